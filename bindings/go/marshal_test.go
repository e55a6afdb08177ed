package lanesum

import (
	"bytes"
	"encoding"
	"hash"
	"math/rand/v2"
	"testing"
)

// Saved states are byte for byte those of Go's own hashes, and resume either way:
// crypto's state in lanesum's hasher and lanesum's in crypto's, at cuts around blocks
// and in random pieces (some gathered in Go, some in the library).
func TestMarshalMatchesCrypto(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	data := randBytes(r, 5000)
	for _, o := range oracles[:8] { // md5 ... sha512-256: those Go marshals alike
		for _, cut := range []int{0, 1, 55, 64, 100, 128, 129, 1000, 4097} {
			theirs, ours := o.want(), o.ours()
			theirs.Write(data[:cut])
			for _, c := range chunks(r, data[:cut]) {
				ours.Write(c)
			}
			want, err := theirs.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			got, err := ours.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s at %d: state %x, %v; want %x", o.name, cut, got, err, want)
			}
			full := o.want()
			full.Write(data)
			sum := full.Sum(nil)
			// crypto's state resumed here, ours resumed in crypto, a clone of ours.
			resumed := o.ours()
			resumed.Write([]byte("junk to replace"))
			if err := resumed.(encoding.BinaryUnmarshaler).UnmarshalBinary(want); err != nil {
				t.Fatalf("%s at %d: %v", o.name, cut, err)
			}
			back := o.want()
			if err := back.(encoding.BinaryUnmarshaler).UnmarshalBinary(got); err != nil {
				t.Fatal(err)
			}
			clone, err := ours.(hash.Cloner).Clone()
			if err != nil {
				t.Fatal(err)
			}
			ours.Write([]byte("the original goes its own way"))
			for _, h := range []hash.Hash{resumed, back, clone} {
				for _, c := range chunks(r, data[cut:]) {
					h.Write(c)
				}
				if !bytes.Equal(h.Sum(nil), sum) {
					t.Errorf("%s at %d: %T resumed to another digest", o.name, cut, h)
				}
			}
		}
	}
}

// States of another algorithm or size are refused, the hash left as it was; algorithms
// Go has no format for say so; every hasher clones.
func TestMarshalRefusals(t *testing.T) {
	md5State, _ := NewMD5().(encoding.BinaryMarshaler).MarshalBinary()
	h := NewSHA256()
	h.Write([]byte("abc"))
	for _, bad := range [][]byte{md5State, nil, []byte("sha\x03short")} {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(bad); err == nil {
			t.Errorf("sha256 took the state %q", bad)
		}
	}
	want := oracleSum(NewSHA256, []byte("abc"))
	if !bytes.Equal(h.Sum(nil), want) {
		t.Error("a refused state changed the hash")
	}
	for _, name := range []string{"blake3", "sha3-256", "sm3"} {
		h := mustNew(name)
		if _, err := h.(encoding.BinaryMarshaler).MarshalBinary(); err == nil {
			t.Errorf("%s marshaled", name)
		}
		h.Write([]byte("x"))
		c, err := h.(hash.Cloner).Clone()
		if err != nil || !bytes.Equal(c.Sum(nil), h.Sum(nil)) {
			t.Errorf("%s clone: %v", name, err)
		}
	}
}

func oracleSum(f func() hash.Hash, data []byte) []byte {
	h := f()
	h.Write(data)
	return h.Sum(nil)
}

// A closed server hasher refuses to save, load or clone, as it refuses to write.
func TestMarshalAfterClose(t *testing.T) {
	srv := NewServer()
	defer srv.Close()
	h := srv.NewHash()
	h.Write([]byte("abc"))
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	if _, err := h.(encoding.BinaryMarshaler).MarshalBinary(); err == nil {
		t.Error("MarshalBinary after Close")
	}
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err == nil {
		t.Error("UnmarshalBinary after Close")
	}
	if _, err := h.(hash.Cloner).Clone(); err == nil {
		t.Error("Clone after Close")
	}
}
