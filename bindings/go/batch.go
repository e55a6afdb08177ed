package lanesum

// #include "helpers.h"
import "C"

import (
	"hash"
	"runtime"
	"sync"
	"unsafe"
)

// batchMax is the most writes one call hands over: twice the widest lanes (16), so that
// lanes whose write ends early take another in the same call.
const batchMax = 32

// lanesWanted is the batch a server goroutine waits for while more writes keep coming:
// the widest lanes.
const lanesWanted = 16

// batchServer is what NewServer returns: its hashers' writes are hashed in batches, side
// by side in SIMD lanes, by a few goroutines of its own (GOMAXPROCS of them). A writer
// hands its buffer over and waits, as with md5-simd's server; a server goroutine takes
// every write waiting (up to batchMax) and hashes them in one call
// (lanesum_hasher_update_many), reading each buffer in place.
//
// Why not the engine (NewEngine): its writers hash each other's blocks on their own
// threads, and a goroutine inside a cgo call keeps its thread and its P until Go's
// monitor takes the P back. With 32 writer goroutines on 2 cores, the running writers
// soon found nobody else's blocks ready and hashed alone on the single-stream path (a
// fifth of the CPU time in scalar MD5), after copying every write: 0.84x md5-simd.
// Here waiting writers are parked goroutines, nothing is copied, and every call fills
// the lanes.
type batchServer struct {
	alg  algorithm
	reqs chan *batchReq
	// mu guards closed against sends: a writer holds it (shared) from its check to
	// its answer, Close (exclusively) while it closes reqs.
	mu     sync.RWMutex
	closed bool
	wg     sync.WaitGroup
}

// batchReq is one write handed to the server; done answers it.
type batchReq struct {
	h    C.LanesumHasher
	p    []byte
	err  error
	done chan struct{}
}

func newBatchServer(a algorithm) *batchServer {
	s := &batchServer{alg: a, reqs: make(chan *batchReq, batchMax)}
	for range runtime.GOMAXPROCS(0) {
		s.wg.Add(1)
		go s.work()
	}
	return s
}

// work hashes batches of the writes waiting until the server closes.
func (s *batchServer) work() {
	defer s.wg.Done()
	reqs := make([]*batchReq, 0, batchMax)
	handles := make([]C.LanesumHasher, 0, batchMax)
	descs := make([]C.LanesumSlice, 0, batchMax)
	var pin runtime.Pinner
	for r := range s.reqs {
		reqs = append(reqs[:0], r)
		// Take what waits; while that is short of full lanes, let the writers just
		// answered run and hand their next writes over, as long as more come.
		for {
			before := len(reqs)
			reqs = s.drain(reqs)
			if len(reqs) >= lanesWanted {
				break
			}
			if len(reqs) == before {
				runtime.Gosched()
				if reqs = s.drain(reqs); len(reqs) == before {
					break
				}
			}
		}
		// The last batch's pointers go too: cgo checks the whole array it is passed,
		// and those buffers are no longer pinned.
		clear(descs)
		handles, descs = handles[:0], descs[:0]
		for _, r := range reqs {
			// The descriptors hold pointers into Go memory: pinned for C to see them.
			p := unsafe.SliceData(r.p)
			pin.Pin(p)
			handles = append(handles, r.h)
			descs = append(descs, C.LanesumSlice{ptr: (*C.uint8_t)(unsafe.Pointer(p)), len: C.size_t(len(r.p))})
		}
		err := updateMany(handles, descs)
		for i, r := range reqs {
			if err != nil {
				// Nothing was absorbed: each on its own, so that one bad handle (a
				// hasher closed while another goroutine wrote to it) fails alone.
				err1 := updateMany(handles[i:i+1], descs[i:i+1])
				r.err = err1
			}
			r.done <- struct{}{}
		}
		pin.Unpin()
	}
}

// updateMany is lanesum_hasher_update_many over handles and descs.
func updateMany(handles []C.LanesumHasher, descs []C.LanesumSlice) error {
	var m cMsg
	st := C.ls_update_many(&handles[0], &descs[0], C.size_t(len(handles)), m.ptr())
	return errorOf(st, &m)
}

// drain appends the writes waiting now, up to batchMax in all.
func (s *batchServer) drain(reqs []*batchReq) []*batchReq {
	for len(reqs) < batchMax {
		select {
		case r, ok := <-s.reqs:
			if !ok {
				return reqs
			}
			reqs = append(reqs, r)
		default:
			return reqs
		}
	}
	return reqs
}

// submit hashes p into h through the server and waits; false once the server is closed
// (the caller then hashes it itself).
func (s *batchServer) submit(h C.LanesumHasher, p []byte, done chan struct{}) (bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return false, nil
	}
	r := batchReq{h: h, p: p, done: done}
	s.reqs <- &r
	<-done
	return true, r.err
}

// NewHash returns a hasher of the server's algorithm whose writes go through the server.
// Like md5-simd's, it panics after Close.
func (s *batchServer) NewHash() Hasher {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		panic(errClosed)
	}
	d := newDigest(s.alg)
	d.s.via = s
	return &batchHasher{digest: d}
}

// Close stops the server's goroutines once the writes in flight are hashed; hashers
// made on it stay usable (hashing each write themselves).
func (s *batchServer) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.reqs)
		s.wg.Wait()
	}
}

// batchHasher is a server's hasher: a plain digest (Sum leaves the state alone, so
// writes may follow) whose large writes go through the server.
type batchHasher struct {
	*digest
	closed bool
}

func (b *batchHasher) Write(p []byte) (int, error) {
	if b.closed {
		return 0, errClosed
	}
	return b.digest.Write(p)
}

func (b *batchHasher) Sum(in []byte) []byte {
	if b.closed {
		panic(errClosed)
	}
	return b.digest.Sum(in)
}

func (b *batchHasher) Reset() {
	if b.closed {
		panic(errClosed)
	}
	b.digest.Reset()
}

// The digest's saved-state methods, refused once closed: the embedded digest's would
// save (or clone) the empty message, its library hasher freed.

func (b *batchHasher) AppendBinary(p []byte) ([]byte, error) {
	if b.closed {
		return nil, errClosed
	}
	return b.digest.AppendBinary(p)
}

func (b *batchHasher) MarshalBinary() ([]byte, error) { return b.AppendBinary(nil) }

func (b *batchHasher) UnmarshalBinary(p []byte) error {
	if b.closed {
		return errClosed
	}
	return b.digest.UnmarshalBinary(p)
}

func (b *batchHasher) Clone() (hash.Cloner, error) {
	if b.closed {
		return nil, errClosed
	}
	return b.digest.Clone()
}

// Close frees the hasher (a second Close does nothing).
func (b *batchHasher) Close() {
	if !b.closed {
		b.closed = true
		b.cleanup.Stop()
		b.s.free()
	}
}
