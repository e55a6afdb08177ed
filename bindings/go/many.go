package lanesum

// #include "helpers.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// parallelFrom is the total size from which HashMany spreads work over every core.
const parallelFrom = 1 << 20

// HashMany returns the digests of msgs under the algorithm called name, hashed together
// in SIMD lanes (and over every core when they add up to a MiB or more). The messages
// are read in place, not copied.
func HashMany(name string, msgs [][]byte) ([][]byte, error) {
	a, err := lookup(name)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(msgs))
	if len(msgs) == 0 {
		return out, nil
	}
	// The descriptors hold pointers into Go memory: those must be pinned for C to see them.
	var pin runtime.Pinner
	defer pin.Unpin()
	descs := make([]C.LanesumSlice, len(msgs))
	total := 0
	for i, m := range msgs {
		if len(m) > 0 {
			p := unsafe.SliceData(m)
			pin.Pin(p)
			descs[i] = C.LanesumSlice{ptr: (*C.uint8_t)(unsafe.Pointer(p)), len: C.size_t(len(m))}
			total += len(m)
		}
	}
	digests := make([]byte, len(msgs)*a.size)
	par := C.int32_t(0)
	if total >= parallelFrom {
		par = 1
	}
	var msg cMsg
	st := C.ls_hash_many(a.id, &descs[0], C.size_t(len(msgs)),
		outPtr(digests), C.size_t(len(digests)), par, msg.ptr())
	if err := errorOf(st, &msg); err != nil {
		return nil, err
	}
	for i := range out {
		out[i] = digests[i*a.size : (i+1)*a.size : (i+1)*a.size]
	}
	return out, nil
}
