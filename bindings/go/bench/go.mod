module github.com/lanesum/lanesum/bindings/go/bench

go 1.25

require (
	github.com/lanesum/lanesum/bindings/go v0.0.0
	github.com/minio/md5-simd v1.1.2
)

require github.com/klauspost/cpuid/v2 v2.0.1 // indirect

replace github.com/lanesum/lanesum/bindings/go => ../
