package lanesum

// #include "helpers.h"
import "C"

import (
	"hash"
	"runtime"
	"sync"
)

// Server mirrors github.com/minio/md5-simd's Server: code written for md5-simd switches by
// changing its import. Its hashers' writes share SIMD lanes: gathered by the server's
// goroutines (NewServer, NewServerFor) or by an engine of lanesum's (NewEngine).
type Server interface {
	NewHash() Hasher
	Close()
}

// Hasher mirrors md5-simd's Hasher: a hash.Hash to Close when done.
type Hasher interface {
	hash.Hash
	Close()
}

// server is an engine (NewEngine).
type server struct {
	mu     sync.Mutex
	engine C.LanesumEngine
	alg    algorithm
}

// NewServer returns a Server whose MD5 hashers' writes are hashed together in SIMD
// lanes by goroutines of the server's own, as md5-simd's NewServer starts a server:
// a writer hands each large write over and waits, nothing is copied (see batchServer).
func NewServer() Server {
	return newBatchServer(md5Alg)
}

// NewServerFor is NewServer for any algorithm: MD5, SHA-1 and the SHA-2 family share
// lanes, the others are hashed one write after another by the server's goroutines.
func NewServerFor(name string) (Server, error) {
	a, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return newBatchServer(a), nil
}

// NewEngine returns a Server on a lanesum engine of its own, for any algorithm: its
// hashers' blocks are copied into the engine and hashed, in lanes, by whichever writer
// fills its buffers (no goroutines of the server's), and Sum finalizes a hasher. Better
// than NewServer where the writers are OS threads rather than goroutines; NewServer is
// the faster for goroutines (see batchServer).
func NewEngine(name string) (Server, error) {
	a, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return newServer(a), nil
}

func newServer(a algorithm) *server {
	s := &server{alg: a}
	mustOK(C.lanesum_engine_new(&s.engine))
	return s
}

// NewHash returns an MD5 (or the server's algorithm) hasher on the server's lanes.
// Like md5-simd's, it panics after Close.
func (s *server) NewHash() Hasher {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.engine.id == 0 {
		panic(errClosed)
	}
	return newEngineHasher(uint64(s.engine.id), s.alg)
}

// Close frees the server; hashers made on it stay usable (those that had not written
// past their first 128 bytes share the process-wide engine's lanes from then on).
func (s *server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.engine.id != 0 {
		mustOK(C.lanesum_engine_free(s.engine))
		s.engine.id = 0
	}
}

// StdlibHasher mirrors md5-simd's StdlibHasher: an MD5 Hasher of its own (lanesum's
// single-stream MD5), sharing nothing.
func StdlibHasher() Hasher {
	return closer{NewMD5()}
}

// closer is a hash.Hash with nothing to close.
type closer struct{ hash.Hash }

func (closer) Close() {}

// NewLaneHash returns a hasher of the algorithm called name on lanesum's process-wide
// engine: streams written by many goroutines at once share SIMD lanes.
func NewLaneHash(name string) (Hasher, error) {
	a, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return newEngineHasher(0, a), nil
}

// engineHasher is a stream of an engine. Sum finalizes it (an engine stream can't be
// copied): later Sums return the same digest, and Write fails until Reset.
type engineHasher struct {
	alg    algorithm
	closed bool
	// summed: Sum has finalized the stream, whose digest is sum (empty for "blake3-0",
	// so sum != nil can't tell).
	summed  bool
	sum     []byte
	cleanup runtime.Cleanup
	s       stream
}

func newEngineHasher(engine uint64, a algorithm) *engineHasher {
	e := &engineHasher{alg: a}
	e.s = stream{kind: lane, engine: engine, alg: a.id, size: a.size}
	return e
}

func (e *engineHasher) Size() int      { return e.alg.size }
func (e *engineHasher) BlockSize() int { return e.alg.blockSize }

func (e *engineHasher) Write(p []byte) (int, error) {
	if e.closed {
		return 0, errClosed
	}
	if e.summed {
		return 0, ErrWriteAfterSum
	}
	writeTo(e, &e.s, &e.cleanup, p)
	return len(p), nil
}

func (e *engineHasher) Sum(b []byte) []byte {
	if e.closed {
		panic(errClosed)
	}
	if !e.summed {
		e.sum = e.s.sum(nil)
		e.summed = true
		runtime.KeepAlive(e)
	}
	return append(b, e.sum...)
}

func (e *engineHasher) Reset() {
	if e.closed {
		panic(errClosed)
	}
	e.s.reset()
	e.sum, e.summed = nil, false
	runtime.KeepAlive(e)
}

// Close frees the hasher (a second Close does nothing).
func (e *engineHasher) Close() {
	e.closed = true
	e.cleanup.Stop()
	e.s.free()
}
