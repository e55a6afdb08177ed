package lanesum

// #include "helpers.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// gather is how many bytes of small writes a hasher collects in Go before crossing into
// C: a cgo call costs more than copying that much.
const gather = 256

// kind is the library hasher behind a stream.
type kind int

const (
	plain kind = iota // lanesum_hasher_new: copyable, so Sum leaves the state alone
	lane              // lanesum_lane_hasher_new: shares an engine's lanes
	multi             // lanesum_multi_hasher_new: several algorithms
)

// stream is what every hasher of this package holds: the library hasher, made only once
// the message outgrows the gather buffer, so a short message costs one cgo call in all
// (when it is summed, as a one-shot hash).
type stream struct {
	kind   kind
	engine uint64 // 0: the global engine
	algs   []C.LanesumAlgorithm
	size   int // digest bytes, over all algorithms
	h      C.LanesumHasher
	n      int
	small  [gather]byte
}

func (s *stream) smallPtr() *C.uint8_t { return (*C.uint8_t)(unsafe.Pointer(&s.small[0])) }

// writeTo writes p to owner's stream s, making the library hasher first if p outgrows
// the gather buffer: then freeHasher is attached to owner (the value users hold) so that
// a hasher never closed is freed once owner is unreachable.
func writeTo[T any](owner *T, s *stream, cleanup *runtime.Cleanup, p []byte) {
	if s.h.id == 0 && s.n+len(p) > gather {
		s.create()
		*cleanup = runtime.AddCleanup(owner, freeHasher, s.h.id)
	}
	s.write(p)
	runtime.KeepAlive(owner)
}

func (s *stream) create() {
	var st C.LanesumStatus
	var m msgBuf
	mp, mc := m.ptr()
	switch s.kind {
	case plain:
		st = C.LanesumStatus(C.lanesum_hasher_new(s.algs[0], &s.h))
	default:
		st = C.ls_engine_hasher(C.uint64_t(s.engine), &s.algs[0], C.size_t(len(s.algs)),
			C.int(s.kind-lane), &s.h, mp, mc)
	}
	if err := errorOf(st, &m); err != nil {
		panic(err)
	}
}

// write gathers p or hands it (after what was gathered) to the library hasher.
func (s *stream) write(p []byte) {
	if s.n+len(p) <= gather {
		s.n += copy(s.small[s.n:], p)
		return
	}
	if len(p) < gather {
		// Top the buffer up, hand it over, keep the rest.
		k := copy(s.small[s.n:], p)
		mustOK(C.lanesum_hasher_update(s.h, s.smallPtr(), gather))
		s.n = copy(s.small[:], p[k:])
		return
	}
	ptr, l := bytesPtr(p)
	mustOK(C.ls_update2(s.h, s.smallPtr(), C.size_t(s.n), ptr, l))
	s.n = 0
}

// sum appends the digests to b: leaving the state alone (plain hashers) or finalizing it.
func (s *stream) sum(b []byte) []byte {
	out := append(b, make([]byte, s.size)...)
	o := (*C.uint8_t)(unsafe.Pointer(&out[len(b)]))
	switch {
	case s.h.id == 0:
		mustOK(C.ls_hash_each(&s.algs[0], C.size_t(len(s.algs)), s.smallPtr(), C.size_t(s.n),
			o, C.size_t(s.size)))
	case s.kind == plain:
		mustOK(C.ls_peek(s.h, s.smallPtr(), C.size_t(s.n), o, C.size_t(s.size)))
	default:
		mustOK(C.ls_finish(s.h, s.smallPtr(), C.size_t(s.n), o, C.size_t(s.size)))
	}
	return out
}

func (s *stream) reset() {
	s.n = 0
	if s.h.id != 0 {
		mustOK(C.lanesum_hasher_reset(s.h))
	}
}

// free releases the library hasher now (its owner stops the cleanup first).
func (s *stream) free() {
	if s.h.id != 0 {
		freeHasher(s.h.id)
		s.h.id = 0
	}
}

// freeHasher is the cleanup of every Go value owning a hasher handle.
func freeHasher(id C.uint64_t) {
	C.lanesum_hasher_free(C.LanesumHasher{id: id})
}
