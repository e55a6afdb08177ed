#!/usr/bin/env bash
# Tests of the checksums (CRC-32/32C/64-NVME, POSIX cksum CRC, BSD/SysV sum, xxHash),
# SHA-3/SHAKE (single stream and the Keccak lanes) and SM3, from a fresh clone: the library's
# unit tests of those modules, its known-answer and differential tests at every
# instruction-set level this CPU has, and the command's end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test -p lanesum --lib -- algorithm:: sha3::
cargo test -p lanesum --test new_algorithms --test differential
cargo test -p lanesum-cli --test new_algorithms
