package lanesum_test

import (
	"fmt"
	"io"
	"strings"

	lanesum "github.com/lanesum/lanesum/bindings/go"
)

// Workhorse's use: every algorithm of an upload in one pass.
func ExampleNewMultiHash() {
	m, err := lanesum.NewMultiHash() // md5, sha1, sha256, sha512
	if err != nil {
		panic(err)
	}
	io.Copy(m, strings.NewReader("abc"))
	sums := m.Finish()
	fmt.Println(sums["md5"])
	fmt.Println(sums["sha256"])
	// Output:
	// 900150983cd24fb0d6963f7d28e17f72
	// ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
}

// Code written for github.com/minio/md5-simd works with the import changed.
func ExampleNewServer() {
	server := lanesum.NewServer()
	defer server.Close()
	h := server.NewHash()
	defer h.Close()
	io.WriteString(h, "abc")
	fmt.Printf("%x\n", h.Sum(nil))
	// Output: 900150983cd24fb0d6963f7d28e17f72
}

func ExampleHashMany() {
	digests, err := lanesum.HashMany("sha1", [][]byte{[]byte("abc"), nil})
	if err != nil {
		panic(err)
	}
	for _, d := range digests {
		fmt.Printf("%x\n", d)
	}
	// Output:
	// a9993e364706816aba3e25717850c26c9cd0d89d
	// da39a3ee5e6b4b0d3255bfef95601890afd80709
}

func ExampleNew() {
	h, err := lanesum.New("blake2b-256")
	if err != nil {
		panic(err)
	}
	io.WriteString(h, "abc")
	fmt.Printf("%d %x\n", h.Size(), h.Sum(nil))
	_, err = lanesum.New("md4")
	fmt.Println(err != nil)
	// Output:
	// 32 bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319
	// true
}
