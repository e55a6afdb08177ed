package lanesum

import (
	"crypto/md5"
	"testing"
)

// BenchmarkCgoCall measures what one call into the library costs from Go: a call that
// does nothing, and an 8-byte update of an MD5 hasher (always a cgo call, unlike Write,
// which gathers small writes in Go).
func BenchmarkCgoCall(b *testing.B) {
	b.Run("nop", func(b *testing.B) {
		for b.Loop() {
			cgoNop()
		}
	})
	h := newRawHasher(md5Alg)
	defer h.free()
	buf := make([]byte, 8)
	b.Run("update-8B", func(b *testing.B) {
		for b.Loop() {
			h.update(buf)
		}
	})
	b.Run("go-md5-write-8B", func(b *testing.B) {
		g := md5.New()
		for b.Loop() {
			g.Write(buf)
		}
	})
}
