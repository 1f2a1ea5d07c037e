#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and runs bench/probes/nvlink_stores.cu against an xpose build (scripts/setup.sh first).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${XPOSE_BUILD_DIR:-build}"
nvcc -std=c++17 -arch=sm_90 -O3 -I include -I "$build/include" -I src bench/probes/nvlink_stores.cu \
  "$build/src/dist/libxpose_dist_internal.a" "$build/src/libxpose_internal.a" -Xcompiler -fopenmp -o "$build/nvlink_stores"
"$build/nvlink_stores"
