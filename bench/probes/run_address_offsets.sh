#!/usr/bin/env bash
# Builds and runs bench/probes/address_offsets.cu against an xpose build (scripts/setup.sh first).
# Argument: how many spacers (default 12); the last row of each case allocates the output first.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${XPOSE_BUILD_DIR:-build}"
nvcc -std=c++17 -arch=sm_90 -O3 -I include bench/probes/address_offsets.cu "$build/src/libxpose.a" -lcublas \
  -Xcompiler -fopenmp -o "$build/address_offsets"
"$build/address_offsets" "$@"
