package lanesum

// #include "helpers.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// A hasher collects small writes in Go before crossing into C, where a cgo call (tens of
// nanoseconds) costs more than copying them: up to gather bytes in the hasher itself
// while the message is short (a short message then costs one cgo call in all), then up
// to bigGather in a buffer of its own. Writes of bigGather or more are never copied.
const (
	gather    = 128
	bigGather = 4 << 10
)

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
	alg    C.LanesumAlgorithm
	algs   []C.LanesumAlgorithm // a multi hasher's; else nil, and alg is the one
	size   int                  // digest bytes, over all algorithms
	h      C.LanesumHasher
	n      int    // bytes in small (before h is made)
	big    []byte // gathered writes (after h is made)
	small  [gather]byte
	// via: the batch server that hashes this stream's large writes (a plain stream of
	// NewServer's), else nil; done is its reusable answer channel.
	via  *batchServer
	done chan struct{}
}

func (s *stream) algsPtr() (*C.LanesumAlgorithm, C.size_t) {
	if s.algs == nil {
		return &s.alg, 1
	}
	return &s.algs[0], C.size_t(len(s.algs))
}

// pending is what was gathered and not handed to the library yet.
func (s *stream) pending() (*C.uint8_t, C.size_t) {
	if s.h.id == 0 {
		return (*C.uint8_t)(unsafe.Pointer(&s.small[0])), C.size_t(s.n)
	}
	return bytesPtr(s.big)
}

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
	var m cMsg
	switch s.kind {
	case plain:
		st = C.LanesumStatus(C.lanesum_hasher_new(s.alg, &s.h))
	default:
		algs, n := s.algsPtr()
		st = C.ls_engine_hasher(C.uint64_t(s.engine), algs, n, C.int(s.kind-lane), &s.h, m.ptr())
		if st == C.LANESUM_ERR_HANDLE && s.engine != 0 {
			// The stream's Server was closed before the stream reached its engine: its
			// hashers stay usable (see server.Close), so this one joins the global engine.
			m.take()
			s.engine = 0
			st = C.ls_engine_hasher(0, algs, n, C.int(s.kind-lane), &s.h, m.ptr())
		}
	}
	if err := errorOf(st, &m); err != nil {
		panic(err)
	}
	s.big = append(make([]byte, 0, bigGather), s.small[:s.n]...)
	s.n = 0
}

// write gathers p or hands it (after what was gathered) to the library hasher, which
// exists once the message outgrew small (see writeTo).
func (s *stream) write(p []byte) {
	if s.h.id == 0 {
		s.n += copy(s.small[s.n:], p)
		return
	}
	if len(s.big)+len(p) <= bigGather {
		s.big = append(s.big, p...)
		return
	}
	if len(p) < bigGather {
		// Top the buffer up, hand it over, keep the rest.
		k := bigGather - len(s.big)
		s.big = append(s.big, p[:k]...)
		s.update(s.big, nil)
		s.big = append(s.big[:0], p[k:]...)
		return
	}
	s.update(s.big, p)
	s.big = s.big[:0]
}

// update hands a then b (either may be empty) to the library hasher: through the batch
// server while the stream has an open one, else in one cgo call.
func (s *stream) update(a, b []byte) {
	for s.via != nil && len(a)+len(b) > 0 {
		if len(a) == 0 {
			a, b = b, nil
			continue
		}
		if s.done == nil {
			s.done = make(chan struct{}, 1)
		}
		ok, err := s.via.submit(s.h, a, s.done)
		if err != nil {
			panic(err) // a handle of this package's was invalid: a bug here
		}
		if !ok {
			s.via = nil // closed: hash here from now on
			break
		}
		a, b = b, nil
	}
	if len(a)+len(b) == 0 {
		return
	}
	ap, al := bytesPtr(a)
	bp, bl := bytesPtr(b)
	mustOK(C.ls_update2(s.h, ap, al, bp, bl))
}

// sum appends the digests to b: leaving the state alone (plain hashers) or finalizing it.
func (s *stream) sum(b []byte) []byte {
	out := append(b, make([]byte, s.size)...)
	o := outPtr(out[len(b):])
	tail, tl := s.pending()
	switch {
	case s.h.id == 0:
		algs, n := s.algsPtr()
		mustOK(C.ls_hash_each(algs, n, tail, tl, o, C.size_t(s.size)))
	case s.kind == plain:
		mustOK(C.ls_peek(s.h, tail, tl, o, C.size_t(s.size)))
	default:
		mustOK(C.ls_finish(s.h, tail, tl, o, C.size_t(s.size)))
		s.big = s.big[:0]
	}
	return out
}

func (s *stream) reset() {
	s.n = 0
	s.big = s.big[:0]
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
