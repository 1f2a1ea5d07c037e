#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and runs bench/probes/walk_bands.cu against an xpose build (scripts/setup.sh first).
# Arguments: bands, shapes or locality (default bands), then rounds (default 3).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${XPOSE_BUILD_DIR:-build}"
nvcc -std=c++17 -arch=sm_90 -O3 -I include bench/probes/walk_bands.cu -I "$build/include" -I . -I src \
  "$build/baselines/libxpose_baselines.a" "$build/src/libxpose_internal.a" -lcublas \
  -Xcompiler -fopenmp -o "$build/walk_bands"
"$build/walk_bands" "$@"
