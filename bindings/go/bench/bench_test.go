// Package bench reproduces the table of GitLab Workhorse's concurrent-multihash merge
// request against lanesum, plus minio's md5-simd against lanesum's md5-simd-style API.
// A module of its own so that the lanesum module needs nothing from the network.
//
//	go test -run - -bench . -benchtime 2x    (bindings/go/bench; the library built first)
package bench

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"io"
	"runtime"
	"sync"
	"testing"

	lanesum "github.com/lanesum/lanesum/bindings/go"
	md5simd "github.com/minio/md5-simd"
)

// The merge request's cases: a write of size, count times, into a new hasher.
var cases = []struct {
	name        string
	size, count int
}{
	{"8B-x1", 8, 1},
	{"8KiB-x1", 8 << 10, 1},
	{"64B-x1024", 64, 1024},
	{"8KiB-x1024", 8 << 10, 1024},
	{"64KiB-x1024", 64 << 10, 1024},
}

func data(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

// goMulti is Workhorse's multiHash: Go's four hashes one after the other.
func goMulti() (io.Writer, func() [][]byte) {
	hs := []hash.Hash{md5.New(), sha1.New(), sha256.New(), sha512.New()}
	ws := make([]io.Writer, len(hs))
	for i, h := range hs {
		ws[i] = h
	}
	return io.MultiWriter(ws...), func() [][]byte {
		out := make([][]byte, len(hs))
		for i, h := range hs {
			out[i] = h.Sum(nil)
		}
		return out
	}
}

func lanesumMulti() (io.Writer, func() [][]byte) {
	m, err := lanesum.NewMultiHash()
	if err != nil {
		panic(err)
	}
	return m, func() [][]byte {
		s := m.Sums()
		return [][]byte{s["md5"], s["sha1"], s["sha256"], s["sha512"]}
	}
}

func single(f func() hash.Hash) func() (io.Writer, func() [][]byte) {
	return func() (io.Writer, func() [][]byte) {
		h := f()
		return h, func() [][]byte { return [][]byte{h.Sum(nil)} }
	}
}

var impls = []struct {
	name string
	make func() (io.Writer, func() [][]byte)
}{
	{"go-md5", single(md5.New)},
	{"lanesum-md5", single(lanesum.NewMD5)},
	{"go-sha1", single(sha1.New)},
	{"lanesum-sha1", single(lanesum.NewSHA1)},
	{"go-sha256", single(sha256.New)},
	{"lanesum-sha256", single(lanesum.NewSHA256)},
	{"go-sha512", single(sha512.New)},
	{"lanesum-sha512", single(lanesum.NewSHA512)},
	{"go-multiwriter", goMulti},
	{"lanesum-multihash", lanesumMulti},
}

// BenchmarkTable: each algorithm alone, Go's sequential multihash and lanesum's
// MultiHash, for every case (sub-benchmarks alternate Go and lanesum in one process).
func BenchmarkTable(b *testing.B) {
	for _, c := range cases {
		buf := data(c.size)
		for _, im := range impls {
			b.Run(c.name+"/"+im.name, func(b *testing.B) {
				b.SetBytes(int64(c.size * c.count))
				for b.Loop() {
					w, sum := im.make()
					for range c.count {
						w.Write(buf)
					}
					sum()
				}
			})
		}
	}
}

// BenchmarkNoisyNeighbour: 32 goroutines each stream 64 MiB in 32 KiB writes through the
// four hashes. Then, where GOMAXPROCS is not 16, as many goroutines as two per P: the
// shape of 32 on 16 cores, where a core idles whenever its two writers both wait, which
// a small machine shows only this way (32 goroutines there always have one to run).
func BenchmarkNoisyNeighbour(b *testing.B) {
	const total, write = 64 << 20, 32 << 10
	buf := data(write)
	shapes := []int{32}
	if perP := 2 * runtime.GOMAXPROCS(0); perP != 32 {
		shapes = append(shapes, perP)
	}
	for _, streams := range shapes {
		for _, im := range impls[len(impls)-2:] {
			b.Run(fmt.Sprintf("%d-streams/%s", streams, im.name), func(b *testing.B) {
				b.SetBytes(int64(streams) * total)
				for b.Loop() {
					var wg sync.WaitGroup
					for range streams {
						wg.Add(1)
						go func() {
							defer wg.Done()
							w, sum := im.make()
							for range total / write {
								w.Write(buf)
							}
							sum()
						}()
					}
					wg.Wait()
				}
			})
		}
	}
}

type server interface {
	NewHash() hasher
	Close()
}

type hasher interface {
	hash.Hash
	Close()
}

// The two servers behind one interface (their Hasher types differ by package only).
type simdServer struct{ s md5simd.Server }

func (s simdServer) NewHash() hasher { return s.s.NewHash() }
func (s simdServer) Close()          { s.s.Close() }

type laneServer struct{ s lanesum.Server }

func (s laneServer) NewHash() hasher { return s.s.NewHash() }
func (s laneServer) Close()          { s.s.Close() }

// BenchmarkMD5Server: 32 concurrent MD5 streams (16 MiB each in 32 KiB writes) through
// minio's md5-simd and through lanesum's md5-simd-style API, a server per iteration.
func BenchmarkMD5Server(b *testing.B) {
	const streams, total, write = 32, 16 << 20, 32 << 10
	buf := data(write)
	want := md5.Sum(func() []byte {
		all := make([]byte, 0, total)
		for range total / write {
			all = append(all, buf...)
		}
		return all
	}())
	for _, s := range []struct {
		name string
		make func() server
	}{
		{"md5-simd", func() server { return simdServer{md5simd.NewServer()} }},
		{"lanesum", func() server { return laneServer{lanesum.NewServer()} }},
	} {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(streams * total)
			for b.Loop() {
				srv := s.make()
				var wg sync.WaitGroup
				for range streams {
					wg.Add(1)
					go func() {
						defer wg.Done()
						h := srv.NewHash()
						for range total / write {
							h.Write(buf)
						}
						if got := h.Sum(nil); string(got) != string(want[:]) {
							panic(fmt.Sprintf("%s: wrong MD5 %x", s.name, got))
						}
						h.Close()
					}()
				}
				wg.Wait()
				srv.Close()
			}
		})
	}
}
