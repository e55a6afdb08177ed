package lanesum

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// oracles are Go's own implementations of the algorithms lanesum shares with crypto/*
// (SHA-3 since Go 1.24).
var oracles = []struct {
	name  string
	ours  func() hash.Hash
	want  func() hash.Hash
	block int
}{
	{"md5", NewMD5, md5.New, 64},
	{"sha1", NewSHA1, sha1.New, 64},
	{"sha224", NewSHA224, sha256.New224, 64},
	{"sha256", NewSHA256, sha256.New, 64},
	{"sha384", NewSHA384, sha512.New384, 128},
	{"sha512", NewSHA512, sha512.New, 128},
	{"sha512-224", NewSHA512_224, sha512.New512_224, 128},
	{"sha512-256", NewSHA512_256, sha512.New512_256, 128},
	{"sha3-224", func() hash.Hash { return mustNew("sha3-224") }, func() hash.Hash { return sha3.New224() }, 144},
	{"sha3-256", func() hash.Hash { return mustNew("sha3-256") }, func() hash.Hash { return sha3.New256() }, 136},
	{"sha3-384", func() hash.Hash { return mustNew("sha3-384") }, func() hash.Hash { return sha3.New384() }, 104},
	{"sha3-512", func() hash.Hash { return mustNew("sha3-512") }, func() hash.Hash { return sha3.New512() }, 72},
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// chunks splits data into random pieces, small and large.
func chunks(r *rand.Rand, data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		n := 1 + r.IntN(min(len(data), []int{7, 64, 300, 5000, 70000}[r.IntN(5)]))
		out = append(out, data[:n])
		data = data[n:]
	}
	return out
}

var lengths = []int{0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4096, 100_000, 1 << 20}

func TestHashesMatchCrypto(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, o := range oracles {
		for _, n := range lengths {
			data := randBytes(r, n)
			for _, ours := range []hash.Hash{o.ours(), must(New(o.name))} {
				want := o.want()
				if ours.Size() != want.Size() || ours.BlockSize() != o.block {
					t.Fatalf("%s: size %d block %d", o.name, ours.Size(), ours.BlockSize())
				}
				for i, c := range chunks(r, data) {
					ours.Write(c)
					want.Write(c)
					// Sum does not change the state (checked again at the end).
					if i%3 == 0 && !bytes.Equal(ours.Sum(nil), want.Sum(nil)) {
						t.Fatalf("%s: mid-stream Sum differs at %d bytes", o.name, n)
					}
				}
				if got := ours.Sum([]byte("prefix")); !bytes.Equal(got, want.Sum([]byte("prefix"))) {
					t.Fatalf("%s(%d bytes) = %x, want %x", o.name, n, got, want.Sum(nil))
				}
				ours.Reset()
				ours.Write(data)
				if !bytes.Equal(ours.Sum(nil), want.Sum(nil)) {
					t.Fatalf("%s: after Reset differs", o.name)
				}
			}
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Algorithms without a crypto/* oracle: their official vectors.
func TestKnownVectors(t *testing.T) {
	for _, v := range []struct{ name, msg, hex string }{
		{"blake2b", "abc", "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"},
		{"blake2s", "abc", "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"},
		{"blake3", "", "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"},
	} {
		for _, h := range []hash.Hash{must(New(v.name)), map[string]func() hash.Hash{
			"blake2b": NewBLAKE2b512, "blake2s": NewBLAKE2s256, "blake3": NewBLAKE3}[v.name]()} {
			io.WriteString(h, v.msg)
			if got := hex.EncodeToString(h.Sum(nil)); got != v.hex {
				t.Errorf("%s(%q) = %s, want %s", v.name, v.msg, got, v.hex)
			}
		}
		got := must(Hash(v.name, []byte(v.msg)))
		if hex.EncodeToString(got) != v.hex {
			t.Errorf("Hash(%s) = %x", v.name, got)
		}
	}
}

func TestAlgorithms(t *testing.T) {
	names := Algorithms()
	if len(names) < 11 {
		t.Fatalf("Algorithms() = %v", names)
	}
	for _, n := range names {
		bare, _, _ := strings.Cut(n, "[")
		h := must(New(bare))
		h.Write([]byte("x"))
		if len(h.Sum(nil)) != h.Size() {
			t.Errorf("%s: Sum length", n)
		}
	}
}

func TestErrors(t *testing.T) {
	_, err := New("md4")
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "md4") || e.Code != 2 {
		t.Fatalf("New(md4) error = %v", err)
	}
	// Messages come whole, however long: the unknown name's lists every known one, and a
	// long name of multibyte characters stays valid UTF-8.
	if last := Algorithms()[len(Algorithms())-1]; !strings.Contains(e.Message, strings.Split(last, "[")[0]) {
		t.Errorf("New(md4) error lacks %q: %v", last, err)
	}
	long := strings.Repeat("€", 300)
	if _, err := New(long); err == nil || !strings.Contains(err.Error(), long) || !utf8.ValidString(err.Error()) {
		t.Errorf("New(long name) error = %q", err)
	}
	if _, err := NewMultiHash("sha256", "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("NewMultiHash(nope) error = %v", err)
	}
	if _, err := HashMany("blake2b-7", [][]byte{{1}}); err == nil {
		t.Fatal("HashMany with a bad name succeeded")
	}
	if _, err := Hash("", nil); err == nil {
		t.Fatal("Hash with an empty name succeeded")
	}
}

func multiWant(names []string, data []byte) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		for _, o := range oracles {
			if o.name == n {
				h := o.want()
				h.Write(data)
				out[n] = hex.EncodeToString(h.Sum(nil))
			}
		}
	}
	return out
}

func checkMulti(t *testing.T, names []string, data []byte, r *rand.Rand) {
	t.Helper()
	m := must(NewMultiHash(names...))
	for _, c := range chunks(r, data) {
		if n, err := m.Write(c); n != len(c) || err != nil {
			t.Errorf("Write = %d, %v", n, err)
			return
		}
	}
	if len(names) == 0 {
		names = DefaultMultiHashes
	}
	got, want := m.Finish(), multiWant(names, data)
	if len(got) != len(want) {
		t.Errorf("Finish() = %v, want %v", got, want)
		return
	}
	for n := range want {
		if got[n] != want[n] {
			t.Errorf("%s of %d bytes = %s, want %s", n, len(data), got[n], want[n])
			return
		}
	}
	if _, err := m.Write([]byte{1}); !errors.Is(err, ErrWriteAfterSum) {
		t.Errorf("Write after Finish: %v", err)
	}
	m.Close()
}

func TestMultiHash(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range append(lengths, 5<<20) {
		data := randBytes(r, n)
		checkMulti(t, nil, data, r)
		checkMulti(t, []string{"sha256"}, data, r)
		checkMulti(t, []string{"sha512", "md5"}, data, r)
		checkMulti(t, []string{"sha3-256", "md5"}, data, r)
	}
}

// Many MultiHashes at once: their streams share the engine's lanes.
func TestMultiHashConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 5))
			checkMulti(t, nil, randBytes(r, 1<<20+g*1000), r)
		}()
	}
	wg.Wait()
}

// The md5-simd-style API: 32 streams on one server at once, each checked against crypto/md5.
func TestServer(t *testing.T) {
	srv := NewServer()
	defer srv.Close()
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 6))
			h := srv.NewHash()
			defer h.Close()
			for round := range 3 {
				data := randBytes(r, []int{0, 100, 1 << 20}[round]+g*777)
				for _, c := range chunks(r, data) {
					h.Write(c)
				}
				want := md5.Sum(data)
				if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
					t.Errorf("stream %d round %d: %x, want %x", g, round, got, want)
				}
				if got := h.Sum([]byte{9}); !bytes.Equal(got[1:], want[:]) || got[0] != 9 {
					t.Errorf("second Sum differs")
				}
				// Sum leaves the state alone: writing on continues the message.
				h.Write([]byte{1})
				more := md5.Sum(append(data, 1))
				if got := h.Sum(nil); !bytes.Equal(got, more[:]) {
					t.Errorf("stream %d round %d: Write after Sum: %x, want %x", g, round, got, more)
				}
				h.Reset()
			}
		}()
	}
	wg.Wait()
	h := srv.NewHash()
	h.Close()
	h.Close()
	if _, err := h.Write([]byte{1}); err == nil {
		t.Fatal("Write after Close succeeded")
	}
}

func TestLaneHash(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, o := range oracles {
		h := must(NewLaneHash(o.name))
		data := randBytes(r, 300_000)
		for _, c := range chunks(r, data) {
			h.Write(c)
		}
		want := o.want()
		want.Write(data)
		if !bytes.Equal(h.Sum(nil), want.Sum(nil)) {
			t.Errorf("%s lane hasher differs", o.name)
		}
		h.Close()
	}
	srv := must(NewEngine("sha256"))
	h := srv.NewHash()
	h.Write([]byte("abc"))
	if hex.EncodeToString(h.Sum(nil)) != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Error("NewEngine(sha256) hasher differs")
	}
	srv.Close()
	h.Close()
	// Hashers made before Close stay usable, also those that reach the engine only after.
	srv = must(NewEngine("md5"))
	early, late := srv.NewHash(), srv.NewHash()
	early.Write(make([]byte, 200))
	srv.Close()
	late.Write(make([]byte, 200))
	want := md5.Sum(make([]byte, 200))
	for _, h := range []Hasher{early, late} {
		if !bytes.Equal(h.Sum(nil), want[:]) {
			t.Error("a hasher of a closed NewEngine differs")
		}
		h.Close()
	}
}

// Concurrent SHA-3 streams: their sponges share the engine's lanes.
func TestLaneHashSHA3Concurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 9))
			data := randBytes(r, 1<<20+g*1000)
			h := must(NewLaneHash("sha3-256"))
			defer h.Close()
			for _, c := range chunks(r, data) {
				h.Write(c)
			}
			if want := sha3.Sum256(data); !bytes.Equal(h.Sum(nil), want[:]) {
				t.Errorf("goroutine %d: sha3-256 lane hasher differs", g)
			}
		}()
	}
	wg.Wait()
}

func TestHashMany(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, total := range []int{0, 1, 7, 100, 2000} {
		msgs := make([][]byte, total)
		for i := range msgs {
			msgs[i] = randBytes(r, r.IntN(3000))
			if i%10 == 0 {
				msgs[i] = nil
			}
		}
		if total == 2000 {
			for i := range 40 { // over a MiB: the parallel path
				msgs[i] = randBytes(r, 40_000)
			}
		}
		for _, o := range append(oracles[:6:6], oracles[9]) { // md5 ... sha512, sha3-256
			got := must(HashMany(o.name, msgs))
			if len(got) != len(msgs) {
				t.Fatalf("%d digests for %d messages", len(got), len(msgs))
			}
			for i, m := range msgs {
				w := o.want()
				w.Write(m)
				if !bytes.Equal(got[i], w.Sum(nil)) {
					t.Fatalf("%s message %d of %d differs", o.name, i, total)
				}
			}
		}
	}
}

func TestStdlibHasher(t *testing.T) {
	h := StdlibHasher()
	defer h.Close()
	io.WriteString(h, "abc")
	if hex.EncodeToString(h.Sum(nil)) != "900150983cd24fb0d6963f7d28e17f72" {
		t.Fatal("StdlibHasher MD5(abc) differs")
	}
}

// NewServerFor: SHA-256 streams through a server's goroutines, some written after the
// server closed (they hash each write themselves then), each checked against crypto/sha256.
func TestServerForClosedMidStream(t *testing.T) {
	srv := must(NewServerFor("sha256"))
	if _, err := NewServerFor("no-such-algorithm"); err == nil {
		t.Fatal("NewServerFor of an unknown name succeeded")
	}
	r := rand.New(rand.NewPCG(11, 12))
	datas := make([][]byte, 8)
	hs := make([]Hasher, len(datas))
	for i := range datas {
		datas[i] = randBytes(r, 200_000+i*5000)
		hs[i] = srv.NewHash()
	}
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.Write(datas[i][:100_000])
		}()
	}
	wg.Wait()
	srv.Close()
	srv.Close()
	for i, h := range hs {
		h.Write(datas[i][100_000:])
		want := sha256.Sum256(datas[i])
		if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Errorf("stream %d: %x, want %x", i, got, want)
		}
		h.Close()
	}
	defer func() {
		if recover() == nil {
			t.Error("NewHash after Close did not panic")
		}
	}()
	srv.NewHash()
}

// "blake3-0" (BLAKE3 with an empty output, as `b3sum -l 0`): every path that takes a
// digest gives the empty one. They indexed the first byte of the empty output and
// panicked, until outPtr.
func TestZeroLengthDigest(t *testing.T) {
	data := []byte("abc")
	try := func(name string, f func() []byte) {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("panic: %v", r)
				}
			}()
			if got := f(); len(got) != 0 {
				t.Errorf("digest %x, want empty", got)
			}
		})
	}
	try("New.Sum", func() []byte {
		h := must(New("blake3-0"))
		h.Write(data)
		return h.Sum(nil)
	})
	try("New.Sum-prefix", func() []byte {
		h := must(New("blake3-0"))
		h.Write(data)
		return h.Sum([]byte("p"))[1:]
	})
	try("NewLaneHash.Sum", func() []byte {
		h := must(NewLaneHash("blake3-0"))
		defer h.Close()
		h.Write(make([]byte, 1000))
		return h.Sum(nil)
	})
	try("NewLaneHash.Sum-twice", func() []byte {
		// Its Sum finalizes: a second one gives the same digest, a Write fails.
		h := must(NewLaneHash("blake3-0"))
		defer h.Close()
		h.Write(data)
		h.Sum(nil)
		if _, err := h.Write(data); !errors.Is(err, ErrWriteAfterSum) {
			t.Errorf("Write after Sum: %v", err)
		}
		return h.Sum(nil)
	})
	try("Hash", func() []byte { return must(Hash("blake3-0", data)) })
	try("HashMany", func() []byte { return must(HashMany("blake3-0", [][]byte{data}))[0] })
	try("MultiHash", func() []byte {
		m := must(NewMultiHash("blake3-0"))
		m.Write(data)
		return m.Sums()["blake3-0"]
	})
}
