#!/usr/bin/env bash
# The cksum/sum personalities, --base64 and the S3 checksums, from a fresh clone:
# the library's S3 checksum unit tests, the command's unit tests, its end-to-end tests
# of cksum and sum (tests/cksum.rs, and the comparisons with coreutils 9.1 in
# tests/coreutils.rs: golden files everywhere, the live tools where 9.1 is installed)
# and of --s3 (tests/s3.rs: AWS SDK values, and the Python oracle tests/s3_oracle.py,
# standard library only, when python3 is there).
set -euo pipefail
cd "$(dirname "$0")/.."

env -u LANESUM_ISA cargo test -p lanesum --lib s3_checksum
env -u LANESUM_ISA cargo test -p lanesum --doc modes::s3_checksum
env -u LANESUM_ISA cargo test -p lanesum-cli --bins
env -u LANESUM_ISA cargo test -p lanesum-cli --test cksum --test s3
env -u LANESUM_ISA cargo test -p lanesum-cli --test coreutils -- sum_matches cksum_matches
