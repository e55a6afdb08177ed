package lanesum

// #include "helpers.h"
import "C"

import (
	"encoding/binary"
	"hash"
	"runtime"
	"unsafe"
)

// Go's crypto hashes marshal their state (encoding.BinaryMarshaler) as a 4-byte magic,
// the chaining words big-endian, the unfinished block padded with zeros to a whole block,
// and the message length as a big-endian uint64. lanesum's hashers of the same algorithms
// read and write that format, so a state saved by crypto/sha256 (a resumable upload's)
// resumes in lanesum.NewSHA256() and the other way round.
//
// One difference no real state reaches: a state of the SHA-512 family (SHA-384,
// SHA-512/224, SHA-512/256 too) whose length says 2^61 bytes or more (2 EiB) finishes
// with FIPS 180-4's 128-bit bit length in lanesum, where Go's crypto/sha512 keeps only the
// low 64 bits of it, so the two digests differ.
type goFormat struct {
	magic     string
	words     int // chaining words
	wordBytes int // 4 or 8
	block     int
}

var goFormats = map[string]goFormat{
	"md5":        {"md5\x01", 4, 4, 64},
	"sha1":       {"sha\x01", 5, 4, 64},
	"sha224":     {"sha\x02", 8, 4, 64},
	"sha256":     {"sha\x03", 8, 4, 64},
	"sha384":     {"sha\x04", 8, 8, 128},
	"sha512-224": {"sha\x05", 8, 8, 128},
	"sha512-256": {"sha\x06", 8, 8, 128},
	"sha512":     {"sha\x07", 8, 8, 128},
}

func (f goFormat) size() int { return len(f.magic) + f.words*f.wordBytes + f.block + 8 }

// format is the Go encoding of d's algorithm, or the error saying it has none.
func (d *digest) format() (goFormat, error) {
	f, ok := goFormats[d.alg.name]
	if !ok {
		return f, &Error{Code: C.LANESUM_ERR_UNSUPPORTED,
			Message: d.alg.name + " has no state format of Go's crypto packages to marshal to"}
	}
	return f, nil
}

// AppendBinary appends the hash's state to b in the format of Go's own hash of the same
// algorithm (MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224, SHA-512/256;
// an error for the others). The hash goes on unchanged.
func (d *digest) AppendBinary(b []byte) ([]byte, error) {
	f, err := d.format()
	if err != nil {
		return nil, err
	}
	var st C.LanesumMdState
	var m cMsg
	tail, tl := d.s.pending()
	if err := errorOf(C.ls_md_state(d.alg.id, d.s.h, tail, tl, &st, m.ptr()), &m); err != nil {
		return nil, err
	}
	runtime.KeepAlive(d)
	b = append(b, f.magic...)
	for _, w := range st.words[:f.words] {
		if f.wordBytes == 4 {
			b = binary.BigEndian.AppendUint32(b, uint32(w))
		} else {
			b = binary.BigEndian.AppendUint64(b, uint64(w))
		}
	}
	pending := unsafe.Slice((*byte)(unsafe.Pointer(&st.pending[0])), int(st.npending))
	b = append(b, pending...)
	b = append(b, make([]byte, f.block-len(pending))...)
	return binary.BigEndian.AppendUint64(b, uint64(st.total)), nil
}

// MarshalBinary is AppendBinary(nil): encoding.BinaryMarshaler, as Go's hashes have.
func (d *digest) MarshalBinary() ([]byte, error) { return d.AppendBinary(nil) }

// UnmarshalBinary sets the hash's state to one AppendBinary or Go's own hash of the same
// algorithm marshaled (encoding.BinaryUnmarshaler).
func (d *digest) UnmarshalBinary(b []byte) error {
	f, err := d.format()
	if err != nil {
		return err
	}
	if len(b) < len(f.magic) || string(b[:len(f.magic)]) != f.magic {
		return &Error{Code: C.LANESUM_ERR_ARGUMENT, Message: "invalid " + d.alg.name + " hash state identifier"}
	}
	if len(b) != f.size() {
		return &Error{Code: C.LANESUM_ERR_ARGUMENT, Message: "invalid " + d.alg.name + " hash state size"}
	}
	b = b[len(f.magic):]
	var st C.LanesumMdState
	st.nwords = C.size_t(f.words)
	for i := range f.words {
		if f.wordBytes == 4 {
			st.words[i] = C.uint64_t(binary.BigEndian.Uint32(b))
		} else {
			st.words[i] = C.uint64_t(binary.BigEndian.Uint64(b))
		}
		b = b[f.wordBytes:]
	}
	total := binary.BigEndian.Uint64(b[f.block:])
	st.total = C.uint64_t(total)
	st.npending = C.size_t(total % uint64(f.block))
	for i := range int(st.npending) {
		st.pending[i] = C.uint8_t(b[i])
	}
	var h C.LanesumHasher
	var m cMsg
	if err := errorOf(C.ls_from_md_state(d.alg.id, &st, &h, m.ptr()), &m); err != nil {
		return err
	}
	d.replace(h)
	return nil
}

// Clone returns an independent hash in the same state (hash.Cloner, as Go's hashes).
func (d *digest) Clone() (hash.Cloner, error) {
	c := newDigest(d.alg)
	c.s.n, c.s.small = d.s.n, d.s.small
	if d.s.h.id != 0 {
		var h C.LanesumHasher
		mustOK(C.lanesum_hasher_copy(d.s.h, &h))
		c.replace(h)
		c.s.big = append(c.s.big, d.s.big...)
	}
	runtime.KeepAlive(d)
	return c, nil
}

// replace makes h (a new plain hasher holding everything absorbed so far) d's library
// hasher, freeing the one d had and dropping what d had gathered.
func (d *digest) replace(h C.LanesumHasher) {
	d.cleanup.Stop()
	d.s.free()
	d.s.h = h
	d.s.n = 0
	d.s.big = make([]byte, 0, bigGather)
	d.cleanup = runtime.AddCleanup(d, freeHasher, h.id)
}
