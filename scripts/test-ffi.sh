#!/usr/bin/env bash
# The C ABI and the Go module, from a fresh clone: builds the library, checks that the
# committed header is what cbindgen makes of it, runs the C tests plain and under
# AddressSanitizer + UndefinedBehaviorSanitizer, then go vet and go test -race in
# bindings/go. From scratch the release builds of lanesum and of cbindgen take most of
# the time (7 and 5 minutes on the shared 2-core development machine, under load; less on
# an idle one); once built, about 40 seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo build --release -p lanesum-ffi"
cargo build --release -p lanesum-ffi
echo "== cargo test --release -p lanesum-ffi (header up to date; release: reuses the build)"
cargo test --release -p lanesum-ffi

echo "== C tests (crates/lanesum-ffi/tests/c)"
make -C crates/lanesum-ffi/tests/c check
echo "== C tests under -fsanitize=address,undefined"
make -C crates/lanesum-ffi/tests/c check-san

if ! command -v go >/dev/null; then
    echo "go not found: skipping bindings/go" >&2
    exit 1
fi
echo "== go vet / go test -race (bindings/go)"
cd bindings/go
go vet ./...
go test -race -count=1 ./...
