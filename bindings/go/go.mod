module github.com/lanesum/lanesum/bindings/go

go 1.25
