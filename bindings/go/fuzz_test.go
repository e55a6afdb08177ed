package lanesum

// Fuzz targets across the cgo boundary: every hasher kind, MultiHash, saved states,
// HashMany and the md5-simd-style servers against Go's own hashes (and, for algorithms
// Go lacks, against lanesum's one-shot Hash). Their seeds run with `go test`; fuzz with
// e.g. `go test -run - -fuzz FuzzHash -fuzztime 5m -parallel 1` (LANESUM_ISA=portable,
// avx2, ... to force a kernel level).

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync"
	"testing"
)

type fzAlg struct {
	name  string
	ref   func(data []byte, size int) []byte // nil: lanesum's one-shot Hash
	goNew func() hash.Hash                   // Go's hash with Go's state format, or nil
}

func goSum(f func() hash.Hash) func([]byte, int) []byte {
	return func(b []byte, _ int) []byte {
		h := f()
		h.Write(b)
		return h.Sum(nil)
	}
}

// fzAlgs: the first 8 marshal in Go's format.
var fzAlgs = []fzAlg{
	{"md5", goSum(md5.New), md5.New},
	{"sha1", goSum(sha1.New), sha1.New},
	{"sha224", goSum(sha256.New224), sha256.New224},
	{"sha256", goSum(sha256.New), sha256.New},
	{"sha384", goSum(sha512.New384), sha512.New384},
	{"sha512", goSum(sha512.New), sha512.New},
	{"sha512-224", goSum(sha512.New512_224), sha512.New512_224},
	{"sha512-256", goSum(sha512.New512_256), sha512.New512_256},
	{"sha3-224", goSum(func() hash.Hash { return sha3.New224() }), nil},
	{"sha3-256", goSum(func() hash.Hash { return sha3.New256() }), nil},
	{"sha3-384", goSum(func() hash.Hash { return sha3.New384() }), nil},
	{"sha3-512", goSum(func() hash.Hash { return sha3.New512() }), nil},
	{"shake128", sha3.SumSHAKE128, nil},
	{"shake256", sha3.SumSHAKE256, nil},
	{"shake128-1344", sha3.SumSHAKE128, nil},
	{"shake256-2000", sha3.SumSHAKE256, nil},
	{"blake2b", nil, nil},
	{"blake2b-256", nil, nil},
	{"blake2s", nil, nil},
	{"blake2s-128", nil, nil},
	{"blake3", nil, nil},
	{"blake3-512", nil, nil},
	{"blake3-0", nil, nil}, // an empty digest (b3sum -l 0)
	{"blake2bp", nil, nil},
	{"blake2sp", nil, nil},
	{"md5p8", nil, nil},
	{"sm3", nil, nil},
	{"crc32", nil, nil},
	{"crc32c", nil, nil},
	{"crc64nvme", nil, nil},
	{"xxh64", nil, nil},
	{"xxh3", nil, nil},
	{"xxh128", nil, nil},
	{"crc", nil, nil},
	{"bsd", nil, nil},
	{"sysv", nil, nil},
	{"btv2", nil, nil},
}

const fzMarshalable = 8

func (a fzAlg) want(t *testing.T, data []byte, size int) []byte {
	t.Helper()
	if a.ref != nil {
		return a.ref(data, size)
	}
	d, err := Hash(a.name, data)
	if err != nil {
		t.Fatalf("Hash(%s): %v", a.name, err)
	}
	return d
}

// fzMessage stretches the fuzzer's bytes: rep < 0x80 appends rep%64 variations of data;
// otherwise about (rep&0x7f) KiB derived from data.
func fzMessage(data []byte, rep uint8) []byte {
	if rep < 0x80 {
		n := int(rep % 64)
		out := append([]byte(nil), data...)
		for i := 1; i <= n; i++ {
			for _, c := range data {
				out = append(out, c^byte(i*37))
			}
		}
		return out
	}
	n := len(data) + int(rep&0x7f)*1031
	out := make([]byte, n)
	copy(out, data)
	x := uint32(2166136261)
	for _, c := range data {
		x = (x ^ uint32(c)) * 16777619
	}
	for i := len(data); i < n; i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		out[i] = byte(x)
	}
	return out
}

// fzPieces cuts msg at lengths the splits bytes give (0 .. 191 as is; above, lengths
// about the gather thresholds 128 and 4096, and larger), cycling; zero-length pieces
// included. With no splits, one piece.
func fzPieces(msg []byte, splits []byte) [][]byte {
	var out [][]byte
	for i := 0; ; i++ {
		if len(splits) == 0 || len(out) >= 2000 {
			return append(out, msg)
		}
		if len(msg) == 0 {
			return out
		}
		b := splits[i%len(splits)]
		n := int(b)
		if b >= 0xc0 {
			k := int(b - 0xc0)
			n = [8]int{127, 128, 129, 4095, 4096, 4097, 8191, 65536}[k&7] - k>>3
		}
		n = min(n, len(msg))
		out = append(out, msg[:n])
		msg = msg[n:]
	}
}

func fzMake(t *testing.T, kind uint8, name string) (hash.Hash, func()) {
	t.Helper()
	switch kind & 3 {
	case 0:
		h, err := New(name)
		if err != nil {
			t.Fatalf("New(%s): %v", name, err)
		}
		return h, func() {}
	case 1:
		h, err := NewLaneHash(name)
		if err != nil {
			t.Fatalf("NewLaneHash(%s): %v", name, err)
		}
		return h, h.Close
	case 2:
		s, err := NewEngine(name)
		if err != nil {
			t.Fatalf("NewEngine(%s): %v", name, err)
		}
		h := s.NewHash()
		return h, func() { h.Close(); s.Close() }
	default:
		s, err := NewServerFor(name)
		if err != nil {
			t.Fatalf("NewServerFor(%s): %v", name, err)
		}
		h := s.NewHash()
		return h, func() { h.Close(); s.Close() }
	}
}

func fzWrite(t *testing.T, h io.Writer, p []byte) {
	t.Helper()
	if n, err := h.Write(p); n != len(p) || err != nil {
		t.Fatalf("Write(%d bytes) = %d, %v", len(p), n, err)
	}
}

// fzSum is h.Sum on a prefix with spare capacity, checked to keep the prefix.
func fzSum(t *testing.T, h hash.Hash) []byte {
	t.Helper()
	prefix := make([]byte, 3, 3+h.Size()+5)
	copy(prefix, "pfx")
	s := h.Sum(prefix)
	if len(s) != 3+h.Size() || string(s[:3]) != "pfx" || string(prefix) != "pfx" {
		t.Fatalf("Sum(prefix) = %x (len %d, Size %d)", s, len(s), h.Size())
	}
	return s[3:]
}

// FuzzHash: one hasher of each kind written in pieces, summed mid-way (the kinds whose
// Sum leaves the state alone), cloned, reset and reused.
func FuzzHash(f *testing.F) {
	for i := range fzAlgs {
		for kind := range uint8(4) {
			f.Add([]byte("abc"), []byte{}, uint8(i), uint8(0), kind|0x1c)
			f.Add([]byte("The quick brown fox jumps over the lazy dog"), []byte{0, 1, 55, 0xc1, 0xc4, 0},
				uint8(i), uint8(0x85), kind|0x1c|uint8(i)<<5)
		}
	}
	f.Add(bytes.Repeat([]byte{0xff}, 300), []byte{0xc3, 0xc0, 0xc5}, uint8(3), uint8(20), uint8(0xfc))
	f.Fuzz(func(t *testing.T, data, splits []byte, sel, rep, ops uint8) {
		a := fzAlgs[int(sel)%len(fzAlgs)]
		msg := fzMessage(data, rep)
		pieces := fzPieces(msg, splits)
		kind := ops & 3
		plain := kind == 0 || kind == 3 // Sum leaves the state alone
		h, done := fzMake(t, kind, a.name)
		defer done()
		want := a.want(t, msg, h.Size())
		if len(want) != h.Size() {
			t.Fatalf("%s: Size %d, reference %d bytes", a.name, h.Size(), len(want))
		}
		var clone hash.Hash
		cloneAt, written := 0, 0
		for i, p := range pieces {
			fzWrite(t, h, p)
			written += len(p)
			if !plain {
				continue
			}
			if ops&4 != 0 && i%3 == int(ops>>5)%3 {
				if got, w := fzSum(t, h), a.want(t, msg[:written], h.Size()); !bytes.Equal(got, w) {
					t.Fatalf("%s kind %d: mid-stream Sum after %d of %d bytes (%d pieces) = %x, want %x",
						a.name, kind, written, len(msg), i+1, got, w)
				}
			}
			if ops&8 != 0 && clone == nil && i == int(ops>>5)%len(pieces) {
				c, err := h.(hash.Cloner).Clone()
				if err != nil {
					t.Fatalf("%s kind %d: Clone: %v", a.name, kind, err)
				}
				clone, cloneAt = c, written
			}
		}
		if got := fzSum(t, h); !bytes.Equal(got, want) {
			t.Fatalf("%s kind %d: Sum of %d bytes in %d pieces = %x, want %x", a.name, kind, len(msg), len(pieces), got, want)
		}
		if got := h.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("%s kind %d: second Sum = %x, want %x", a.name, kind, got, want)
		}
		if clone != nil {
			for _, p := range fzPieces(msg[cloneAt:], splits[len(splits)/2:]) {
				fzWrite(t, clone, p)
			}
			if got := fzSum(t, clone); !bytes.Equal(got, want) {
				t.Fatalf("%s kind %d: clone at %d of %d bytes: Sum = %x, want %x", a.name, kind, cloneAt, len(msg), got, want)
			}
		}
		more := append(append([]byte(nil), msg...), data...)
		if plain {
			// Write after Sum goes on with the message.
			fzWrite(t, h, data)
			if got, w := fzSum(t, h), a.want(t, more, h.Size()); !bytes.Equal(got, w) {
				t.Fatalf("%s kind %d: Write after Sum: %x, want %x", a.name, kind, got, w)
			}
		} else if _, err := h.Write([]byte{1}); !errors.Is(err, ErrWriteAfterSum) {
			t.Fatalf("%s kind %d: Write after Sum: %v", a.name, kind, err)
		}
		if ops&0x10 == 0 {
			return
		}
		// Reset and reuse, the message in other pieces.
		h.Reset()
		rev := append([]byte(nil), splits...)
		for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
			rev[i], rev[j] = rev[j], rev[i]
		}
		for _, p := range fzPieces(more, rev) {
			fzWrite(t, h, p)
		}
		if got, w := fzSum(t, h), a.want(t, more, h.Size()); !bytes.Equal(got, w) {
			t.Fatalf("%s kind %d: after Reset, Sum of %d bytes = %x, want %x", a.name, kind, len(more), got, w)
		}
	})
}

// FuzzMultiHash: MultiHash of a fuzz-chosen list of algorithms (duplicates allowed;
// none: the defaults) against io.MultiWriter over Go's hashes (or one-shot references).
func FuzzMultiHash(f *testing.F) {
	f.Add([]byte("abc"), []byte{}, []byte{}, uint8(0))
	f.Add([]byte("abc"), []byte{1, 2, 0}, []byte{0, 1, 3, 5}, uint8(0x81))
	f.Add([]byte("hello world"), []byte{0xc3, 0xc4, 7}, []byte{9, 16, 20, 26, 0}, uint8(0x90))
	f.Add(bytes.Repeat([]byte{1, 2, 3}, 50), []byte{0xc0, 0xc1}, []byte{5, 5, 12, 13, 30}, uint8(40))
	f.Fuzz(func(t *testing.T, data, splits, subset []byte, rep uint8) {
		msg := fzMessage(data, rep)
		var names []string
		var algs []fzAlg
		for _, b := range subset[:min(len(subset), 8)] {
			a := fzAlgs[int(b)%len(fzAlgs)]
			names = append(names, a.name)
			algs = append(algs, a)
		}
		m, err := NewMultiHash(names...)
		if err != nil {
			t.Fatalf("NewMultiHash(%q): %v", names, err)
		}
		defer m.Close()
		if len(names) == 0 {
			algs = fzAlgs[:0]
			for _, n := range DefaultMultiHashes {
				for _, a := range fzAlgs {
					if a.name == n {
						algs = append(algs, a)
					}
				}
			}
		}
		var gos []io.Writer
		goHashes := map[int]hash.Hash{}
		for i, a := range algs {
			if a.goNew != nil {
				goHashes[i] = a.goNew()
				gos = append(gos, goHashes[i])
			}
		}
		mw := io.MultiWriter(gos...)
		pieces := fzPieces(msg, splits)
		for _, p := range pieces {
			fzWrite(t, m, p)
			mw.Write(p)
		}
		sums := m.Sums()
		fin := m.Finish()
		for i, a := range algs {
			var w []byte
			if g, ok := goHashes[i]; ok {
				w = g.Sum(nil)
			} else {
				w = a.want(t, msg, len(sums[a.name]))
			}
			if !bytes.Equal(sums[a.name], w) {
				t.Fatalf("MultiHash(%q) %s of %d bytes in %d pieces = %x, want %x", names, a.name, len(msg), len(pieces), sums[a.name], w)
			}
			if fin[a.name] != fmt.Sprintf("%x", w) {
				t.Fatalf("MultiHash(%q) Finish %s = %s, want %x", names, a.name, fin[a.name], w)
			}
		}
		if _, err := m.Write([]byte{1}); !errors.Is(err, ErrWriteAfterSum) {
			t.Fatalf("Write after Sums: %v", err)
		}
	})
}

// fzState builds a state in Go's format from body: with the right magic and size when
// fix is set, else body as is.
func fzState(alg int, body []byte, fix bool) []byte {
	if !fix {
		return body
	}
	f := goFormats[fzAlgs[alg].name]
	st := append([]byte(f.magic), body...)
	for len(st) < f.size() {
		st = append(st, byte(len(st)*7))
	}
	st = st[:f.size()]
	if f.wordBytes == 8 {
		// Below 2^61 bytes: at and above, Go's SHA-512 family pads with the length in
		// bits mod 2^64 and lanesum with all of it (see goFormat in marshal.go).
		st[len(st)-8] &= 0x1f
	}
	return st
}

// FuzzMarshal: states saved mid-message by lanesum and by Go's crypto, each resumed in
// both; arbitrary states loaded in both.
func FuzzMarshal(f *testing.F) {
	for i := range fzMarshalable {
		f.Add([]byte("abcdefgh"), []byte{3, 0, 200}, uint8(i), uint16(5), uint8(30), []byte("x"), uint8(3))
		f.Add([]byte("abcdefgh"), []byte{0xc4}, uint8(i), uint16(4100), uint8(0x85), []byte{1, 2, 3}, uint8(0x42))
	}
	f.Add([]byte{}, []byte{}, uint8(9), uint16(0), uint8(0), []byte("sha\x03"), uint8(0))
	f.Fuzz(func(t *testing.T, data, splits []byte, sel uint8, cut uint16, rep uint8, state []byte, ops uint8) {
		ai := int(sel) % fzMarshalable
		a := fzAlgs[ai]
		msg := fzMessage(data, rep)
		c := int(cut) % (len(msg) + 1)
		want := a.want(t, msg, 0)
		mk := func() (hash.Hash, func()) {
			if ops&1 != 0 {
				return fzMake(t, 3, a.name) // a server's hasher
			}
			return fzMake(t, 0, a.name)
		}
		ours, done := mk()
		defer done()
		for _, p := range fzPieces(msg[:c], splits) {
			fzWrite(t, ours, p)
		}
		theirs := a.goNew()
		theirs.Write(msg[:c])
		got, err := ours.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			t.Fatalf("%s: MarshalBinary after %d bytes: %v", a.name, c, err)
		}
		gs, err := theirs.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, gs) {
			t.Fatalf("%s: state after %d bytes = %x, Go's %x", a.name, c, got, gs)
		}
		// Go's state into lanesum (a fresh hasher, or one that took junk: gathered in Go
		// below 128 bytes, in the library above), lanesum's into Go.
		junk := fzMessage([]byte("junk"), ops>>1)
		into, done2 := mk()
		defer done2()
		fzWrite(t, into, junk[:int(ops>>1)%(len(junk)+1)])
		if err := into.(encoding.BinaryUnmarshaler).UnmarshalBinary(gs); err != nil {
			t.Fatalf("%s: UnmarshalBinary of Go's state after %d bytes: %v", a.name, c, err)
		}
		back := a.goNew()
		if err := back.(encoding.BinaryUnmarshaler).UnmarshalBinary(got); err != nil {
			t.Fatalf("%s: Go's UnmarshalBinary of lanesum's state: %v", a.name, err)
		}
		if s, err := into.(encoding.BinaryMarshaler).MarshalBinary(); err != nil || !bytes.Equal(s, gs) {
			t.Fatalf("%s: state resumed from Go's and saved again = %x, %v; want %x", a.name, s, err, gs)
		}
		for _, h := range []hash.Hash{into, back, ours} {
			for _, p := range fzPieces(msg[c:], splits[len(splits)/2:]) {
				fzWrite(t, h, p)
			}
			if s := fzSum(t, h); !bytes.Equal(s, want) {
				t.Fatalf("%s: cut at %d of %d: %T resumed to %x, want %x", a.name, c, len(msg), h, s, want)
			}
		}
		// Arbitrary states: an error or the state Go's hash takes, never a panic.
		st := fzState(ai, state, ops&0x80 != 0)
		l, done3 := mk()
		defer done3()
		fzWrite(t, l, data)
		before := l.Sum(nil)
		lerr := l.(encoding.BinaryUnmarshaler).UnmarshalBinary(st)
		g := a.goNew()
		gerr := g.(encoding.BinaryUnmarshaler).UnmarshalBinary(st)
		switch {
		case lerr != nil && gerr != nil:
			if !bytes.Equal(l.Sum(nil), before) {
				t.Fatalf("%s: a refused state (%v) changed the hash", a.name, lerr)
			}
		case lerr != nil || gerr != nil:
			t.Fatalf("%s: state %x: lanesum %v, Go %v", a.name, st, lerr, gerr)
		default:
			ls, err1 := l.(encoding.BinaryMarshaler).MarshalBinary()
			gs, err2 := g.(encoding.BinaryMarshaler).MarshalBinary()
			if err1 != nil || err2 != nil || !bytes.Equal(ls, gs) {
				t.Fatalf("%s: state %x loaded and saved: lanesum %x %v, Go %x %v", a.name, st, ls, err1, gs, err2)
			}
			for _, p := range fzPieces(msg, splits) {
				fzWrite(t, l, p)
				g.Write(p)
			}
			if ls, gs := fzSum(t, l), g.Sum(nil); !bytes.Equal(ls, gs) {
				t.Fatalf("%s: state %x then %d bytes: lanesum %x, Go %x", a.name, st, len(msg), ls, gs)
			}
		}
		// Any algorithm, any bytes: no panic.
		for _, o := range []fzAlg{fzAlgs[int(ops)%len(fzAlgs)], fzAlgs[int(sel)%len(fzAlgs)]} {
			h, err := New(o.name)
			if err != nil {
				t.Fatal(err)
			}
			_ = h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state)
			_ = h.(encoding.BinaryUnmarshaler).UnmarshalBinary(fzState(int(ops)%fzMarshalable, state, true))
		}
	})
}

// FuzzHashMany: HashMany of messages cut from the fuzz bytes (empty and nil ones, the
// same bytes several times), against each message's reference.
func FuzzHashMany(f *testing.F) {
	f.Add([]byte("abc"), []byte{1, 0, 2}, uint8(0), uint8(0))
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz"), []byte{0xc4, 3, 0, 64, 55, 0xc3}, uint8(3), uint8(0x83))
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz"), []byte{0xc1, 0xc2, 0xc3}, uint8(0x89), uint8(0x83))
	f.Add([]byte("xyz"), []byte{200, 1}, uint8(5), uint8(20))
	f.Fuzz(func(t *testing.T, data, lens []byte, sel, rep uint8) {
		a := fzAlgs[int(sel&0x7f)%len(fzAlgs)]
		msg := fzMessage(data, rep)
		msgs := fzPieces(msg, lens)
		for i := range msgs {
			switch {
			case len(msgs[i]) == 0 && i%2 == 0:
				msgs[i] = nil
			case i%5 == 4:
				msgs[i] = msgs[i/2] // the same bytes twice
			}
		}
		if sel&0x80 != 0 { // over a MiB: the parallel path
			msgs = append(msgs, fzMessage(data, 0xff), bytes.Repeat(msg, 1+(1<<20)/(len(msg)+1)))
		}
		got, err := HashMany(a.name, msgs)
		if err != nil {
			t.Fatalf("HashMany(%s, %d messages): %v", a.name, len(msgs), err)
		}
		if len(got) != len(msgs) {
			t.Fatalf("HashMany: %d digests for %d messages", len(got), len(msgs))
		}
		for i, m := range msgs {
			if w := a.want(t, m, len(got[i])); !bytes.Equal(got[i], w) {
				t.Fatalf("HashMany(%s) message %d of %d (%d bytes) = %x, want %x", a.name, i, len(msgs), len(m), got[i], w)
			}
		}
	})
}

// FuzzServer: several streams at once on one md5-simd-style server (NewServer,
// NewServerFor), engine (NewEngine) or the global engine (NewLaneHash), written by
// goroutines of their own; the server closed part way, by another goroutine, when asked.
func FuzzServer(f *testing.F) {
	f.Add([]byte("abc"), []byte{}, uint8(3), uint8(0), uint8(0))
	f.Add([]byte("abcdefgh"), []byte{0xc4, 0xc3, 17}, uint8(7), uint8(0x85), uint8(0x81))
	f.Add([]byte("abcdefgh"), []byte{0xc4, 0xc7}, uint8(5), uint8(0x90), uint8(0x46))
	f.Add([]byte("abcdefgh"), []byte{0xc6, 0}, uint8(4), uint8(0x88), uint8(0x07))
	f.Fuzz(func(t *testing.T, data, splits []byte, streams, rep, mode uint8) {
		a := fzAlgs[int(mode>>3)%len(fzAlgs)]
		var srv Server
		var err error
		switch mode & 3 {
		case 0:
			a, srv = fzAlgs[0], NewServer()
		case 1:
			srv, err = NewServerFor(a.name)
		case 2:
			srv, err = NewEngine(a.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		n := 1 + int(streams%12)
		hs := make([]Hasher, n)
		msgs := make([][]byte, n)
		for i := range hs {
			if srv != nil {
				hs[i] = srv.NewHash()
			} else if hs[i], err = NewLaneHash(a.name); err != nil {
				t.Fatal(err)
			}
			msgs[i] = fzMessage(append([]byte{byte(i)}, data...), rep+uint8(i)*3)
		}
		plain := mode&3 < 2
		// The references, computed here: t.Fatal may not be called from the goroutines.
		wants := make([][]byte, n)
		mores := make([][]byte, n)
		for i, h := range hs {
			wants[i] = a.want(t, msgs[i], h.Size())
			mores[i] = a.want(t, append(append([]byte(nil), msgs[i]...), data...), h.Size())
		}
		var wg sync.WaitGroup
		errs := make(chan string, n)
		closeAt := int(mode>>2) & 1
		var closing sync.WaitGroup
		closing.Add(1)
		var once sync.Once
		signal := func() { once.Do(closing.Done) }
		for i, h := range hs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i == 0 {
					defer signal()
				}
				pieces := fzPieces(msgs[i], splits)
				for j, p := range pieces {
					if k, err := h.Write(p); k != len(p) || err != nil {
						errs <- fmt.Sprintf("stream %d: Write = %d, %v", i, k, err)
						return
					}
					if i == 0 && j == len(pieces)/2 {
						signal()
					}
				}
				if got := h.Sum([]byte{7}); got[0] != 7 || !bytes.Equal(got[1:], wants[i]) {
					errs <- fmt.Sprintf("%s stream %d of %d, %d bytes in %d pieces: %x, want %x", a.name, i, n, len(msgs[i]), len(pieces), got[1:], wants[i])
					return
				}
				if plain {
					h.Write(data)
					if got := h.Sum(nil); !bytes.Equal(got, mores[i]) {
						errs <- fmt.Sprintf("%s stream %d: Write after Sum: %x, want %x", a.name, i, got, mores[i])
						return
					}
				}
				h.Reset()
				for _, p := range fzPieces(msgs[i], splits[len(splits)/2:]) {
					h.Write(p)
				}
				if got := h.Sum(nil); !bytes.Equal(got, wants[i]) {
					errs <- fmt.Sprintf("%s stream %d: after Reset: %x, want %x", a.name, i, got, wants[i])
				}
				h.Close()
			}()
		}
		if srv != nil {
			if closeAt == 1 {
				closing.Wait()
				srv.Close()
			}
			defer srv.Close()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
}
