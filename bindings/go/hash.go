// Package lanesum is lanesum's multi-lane SIMD checksums for Go, through its C ABI:
// hash.Hash for every algorithm (NewMD5, NewSHA256, ..., New(name); each a hash.Cloner,
// and for MD5, SHA-1 and SHA-2 an encoding.BinaryMarshaler whose states are those of
// Go's own hashes, byte for byte), MultiHash (several
// algorithms of one stream in one pass, GitLab Workhorse's shape), an API mirroring
// minio's md5-simd (NewServer, Server.NewHash) whose streams share SIMD lanes, and
// HashMany.
//
// Build the static library first: `cargo build --release -p lanesum-ffi` at the
// repository root (cgo links target/release/liblanesum_ffi.a).
package lanesum

// #include "helpers.h"
import "C"

import (
	"hash"
	"runtime"
)

// digest is a hash.Hash on a plain (single-stream) lanesum hasher; Sum leaves its state
// alone, as hash.Hash requires.
type digest struct {
	alg     algorithm
	cleanup runtime.Cleanup
	s       stream
}

func newDigest(a algorithm) *digest {
	return &digest{alg: a, s: stream{kind: plain, alg: a.id, size: a.size}}
}

// New returns a hash.Hash computing the algorithm called name ("md5", "sha256",
// "SHA-512/256", "blake2b-256", "blake3", ...; see Algorithms).
func New(name string) (hash.Hash, error) {
	a, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return newDigest(a), nil
}

func mustNew(name string) hash.Hash {
	h, err := New(name)
	if err != nil {
		panic(err)
	}
	return h
}

// NewMD5 returns a hash.Hash computing MD5.
func NewMD5() hash.Hash { return newDigest(md5Alg) }

// NewSHA1 returns a hash.Hash computing SHA-1.
func NewSHA1() hash.Hash { return newDigest(sha1Alg) }

// NewSHA224 returns a hash.Hash computing SHA-224.
func NewSHA224() hash.Hash { return mustNew("sha224") }

// NewSHA256 returns a hash.Hash computing SHA-256.
func NewSHA256() hash.Hash { return newDigest(sha256Alg) }

// NewSHA384 returns a hash.Hash computing SHA-384.
func NewSHA384() hash.Hash { return mustNew("sha384") }

// NewSHA512 returns a hash.Hash computing SHA-512.
func NewSHA512() hash.Hash { return newDigest(sha512Alg) }

// NewSHA512_224 returns a hash.Hash computing SHA-512/224.
func NewSHA512_224() hash.Hash { return mustNew("sha512-224") }

// NewSHA512_256 returns a hash.Hash computing SHA-512/256.
func NewSHA512_256() hash.Hash { return mustNew("sha512-256") }

// NewBLAKE2b512 returns a hash.Hash computing BLAKE2b-512 (unkeyed).
func NewBLAKE2b512() hash.Hash { return mustNew("blake2b") }

// NewBLAKE2s256 returns a hash.Hash computing BLAKE2s-256 (unkeyed).
func NewBLAKE2s256() hash.Hash { return mustNew("blake2s") }

// NewBLAKE3 returns a hash.Hash computing BLAKE3 with a 32-byte output.
func NewBLAKE3() hash.Hash { return mustNew("blake3") }

var (
	md5Alg    = mustLookup("md5")
	sha1Alg   = mustLookup("sha1")
	sha256Alg = mustLookup("sha256")
	sha512Alg = mustLookup("sha512")
)

func (d *digest) Size() int      { return d.s.size }
func (d *digest) BlockSize() int { return d.alg.blockSize }

func (d *digest) Write(p []byte) (int, error) {
	writeTo(d, &d.s, &d.cleanup, p)
	return len(p), nil
}

func (d *digest) Sum(b []byte) []byte {
	out := d.s.sum(b)
	runtime.KeepAlive(d)
	return out
}

func (d *digest) Reset() {
	d.s.reset()
	runtime.KeepAlive(d)
}

// Hash returns the digest of data under the algorithm called name.
func Hash(name string, data []byte) ([]byte, error) {
	a, err := lookup(name)
	if err != nil {
		return nil, err
	}
	out := make([]byte, a.size)
	ptr, l := bytesPtr(data)
	mustOK(C.lanesum_hash(a.id, ptr, l, outPtr(out), C.size_t(a.size), nil))
	return out, nil
}
