#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and runs bench/probes/address_offsets.cu against an xpose build (scripts/setup.sh first).
# Arguments: how many spacers (default 12), then cases as rows cols dtype (default: 8191 x 8193 u8 and f32,
# 8192^2 f64); the last row of each case allocates the output first.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${XPOSE_BUILD_DIR:-build}"
nvcc -std=c++17 -arch=sm_90 -O3 -I include bench/probes/address_offsets.cu -I "$build/include" -I . -I src \
  "$build/baselines/libxpose_baselines.a" "$build/src/libxpose_internal.a" -lcublas \
  -Xcompiler -fopenmp -o "$build/address_offsets"
"$build/address_offsets" "$@"
