package lanesum

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: ${SRCDIR}/../../target/release/liblanesum_ffi.a -lgcc_s -lutil -lrt -lpthread -lm -ldl
#include <stdlib.h>
#include "helpers.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// ABIVersion is the C ABI version this package was written for; init checks that the
// library linked matches.
const ABIVersion = 1

func init() {
	if v := C.lanesum_abi_version(); v != ABIVersion || C.LANESUM_ABI_VERSION != ABIVersion {
		panic(fmt.Sprintf("lanesum: library ABI %d, header %d, package %d", v,
			C.LANESUM_ABI_VERSION, ABIVersion))
	}
}

// Error is a failed call into the library: its status code and message.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return "lanesum: " + e.Message }

// cMsg receives an error message from the C helpers: the library's message, copied on
// the thread that failed (malloc'd; errorOf frees it), whole whatever its length.
type cMsg struct{ p *C.char }

func (m *cMsg) ptr() **C.char { return &m.p }

// take returns the message received ("" if none) and frees it.
func (m *cMsg) take() string {
	if m == nil || m.p == nil {
		return ""
	}
	msg := C.GoString(m.p)
	C.free(unsafe.Pointer(m.p))
	m.p = nil
	return msg
}

func errorOf[S ~int32 | ~uint32](status S, m *cMsg) error {
	msg := m.take()
	if status == C.LANESUM_OK {
		return nil
	}
	if msg == "" {
		msg = C.GoString(C.lanesum_status_str(C.int32_t(status)))
	}
	return &Error{Code: int(status), Message: msg}
}

// mustOK panics on a status from a call that fails only through a bug in this package
// (a handle it manages was invalid).
func mustOK[S ~int32 | ~uint32](status S) {
	if err := errorOf(status, nil); err != nil {
		panic(err)
	}
}

// bytesPtr is p for C without a copy: cgo pins the memory for the call's duration.
func bytesPtr(p []byte) (*C.uint8_t, C.size_t) {
	if len(p) == 0 {
		return nil, 0
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(p))), C.size_t(len(p))
}

// outPtr is where C writes len(p) bytes: nil for an empty p (BLAKE3 with an empty
// output, "blake3-0"), which the C ABI takes with a zero length, where &p[0] would panic.
func outPtr(p []byte) *C.uint8_t {
	o, _ := bytesPtr(p)
	return o
}

// algCache maps names to looked-up algorithms, so that New(name) crosses into C once
// per name.
var algCache sync.Map

// algorithm is a looked-up algorithm.
type algorithm struct {
	id        C.LanesumAlgorithm
	name      string
	size      int
	blockSize int
}

func lookup(name string) (algorithm, error) {
	if a, ok := algCache.Load(name); ok {
		return a.(algorithm), nil
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var a algorithm
	var size, block C.size_t
	var m cMsg
	if err := errorOf(C.ls_algorithm(cname, &a.id, &size, &block, m.ptr()), &m); err != nil {
		return a, err
	}
	a.name = C.GoString(C.lanesum_algorithm_name(a.id))
	a.size, a.blockSize = int(size), int(block)
	algCache.Store(name, a)
	return a, nil
}

func mustLookup(name string) algorithm {
	a, err := lookup(name)
	if err != nil {
		panic(err)
	}
	return a
}

// Algorithms lists the algorithm names the linked library knows (`blake2b[-BITS]` names
// a family whose output length a suffix chooses).
func Algorithms() []string {
	n := int(C.lanesum_algorithm_names_count())
	names := make([]string, n)
	for i := range names {
		names[i] = C.GoString(C.lanesum_algorithm_names_get(C.size_t(i)))
	}
	return names
}

// ErrWriteAfterSum is returned by an engine hasher's Write after Sum: its stream was
// finalized (Reset starts a new one).
var ErrWriteAfterSum = errors.New("lanesum: Write after Sum on an engine hasher; call Reset")

var errClosed = errors.New("lanesum: use after Close")

// cgoNop is a call into the library that does nothing (BenchmarkCgoCall).
func cgoNop() { C.lanesum_abi_version() }

// rawHasher is a plain hasher handle without Go-side gathering (BenchmarkCgoCall).
type rawHasher C.LanesumHasher

func newRawHasher(a algorithm) rawHasher {
	var h C.LanesumHasher
	mustOK(C.lanesum_hasher_new(a.id, &h))
	return rawHasher(h)
}

func (h rawHasher) update(p []byte) {
	ptr, l := bytesPtr(p)
	mustOK(C.lanesum_hasher_update(C.LanesumHasher(h), ptr, l))
}

func (h rawHasher) free() { mustOK(C.lanesum_hasher_free(C.LanesumHasher(h))) }
