#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up, builds, and runs every test. GPU tests report skipped where no GPU is visible.
# Extra arguments go to CMake (for example -DXPOSE_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh "$@" >&2
ctest --test-dir "${XPOSE_BUILD_DIR:-build}" --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"
