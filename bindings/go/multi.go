package lanesum

// #include "helpers.h"
import "C"

import (
	"encoding/hex"
	"runtime"
)

// DefaultMultiHashes are the algorithms NewMultiHash computes when given none: what GitLab
// Workhorse records of every upload.
var DefaultMultiHashes = []string{"md5", "sha1", "sha256", "sha512"}

// MultiHash computes several algorithms of one stream in one pass: an io.Writer in the
// shape of GitLab Workhorse's multiHash (which writes to md5, sha1, sha256 and sha512
// through io.MultiWriter, one after the other). Alone, its algorithms run side by side on
// several cores; with other streams writing, they share SIMD lanes with them (lanesum's
// process-wide engine).
//
//	m, _ := lanesum.NewMultiHash()        // or NewMultiHash("sha256") where FIPS demands
//	io.Copy(m, body)
//	sums := m.Finish()                    // map[string]string of hex digests
//
// Not for concurrent use by several goroutines (as Workhorse's isn't).
type MultiHash struct {
	names   []string
	sizes   []int
	sums    map[string][]byte
	closed  bool
	cleanup runtime.Cleanup
	s       stream
}

// NewMultiHash returns a MultiHash computing the algorithms called names (by default
// DefaultMultiHashes).
func NewMultiHash(names ...string) (*MultiHash, error) {
	if len(names) == 0 {
		names = DefaultMultiHashes
	}
	m := &MultiHash{names: append([]string(nil), names...), sizes: make([]int, len(names))}
	m.s = stream{kind: multi, algs: make([]C.LanesumAlgorithm, len(names))}
	for i, name := range names {
		a, err := lookup(name)
		if err != nil {
			return nil, err
		}
		m.s.algs[i] = a.id
		m.sizes[i] = a.size
		m.s.size += a.size
	}
	return m, nil
}

// Write absorbs p into every algorithm. It fails only after Finish, Sums or Close.
func (m *MultiHash) Write(p []byte) (int, error) {
	if m.sums != nil {
		return 0, ErrWriteAfterSum
	}
	if m.closed {
		return 0, errClosed
	}
	writeTo(m, &m.s, &m.cleanup, p)
	return len(p), nil
}

// Sums returns each algorithm's digest by name; the first call finalizes the stream and
// frees the library's state.
func (m *MultiHash) Sums() map[string][]byte {
	if m.sums != nil {
		return m.sums
	}
	if m.closed {
		panic(errClosed)
	}
	all := m.s.sum(nil)
	m.Close()
	m.sums = make(map[string][]byte, len(m.names))
	for i, name := range m.names {
		m.sums[name], all = all[:m.sizes[i]:m.sizes[i]], all[m.sizes[i]:]
	}
	return m.sums
}

// Finish returns each algorithm's digest in hex by name, as Workhorse's finish() does.
func (m *MultiHash) Finish() map[string]string {
	out := make(map[string]string, len(m.names))
	for name, d := range m.Sums() {
		out[name] = hex.EncodeToString(d)
	}
	return out
}

// Close frees the stream without finishing it (after Sums or Finish, it does nothing).
func (m *MultiHash) Close() {
	m.closed = true
	m.cleanup.Stop()
	m.s.free()
}
