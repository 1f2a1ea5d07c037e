#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up, builds, and runs the main job: `xpose bench`'s default comparison (on the GPU when
# one is visible, else on the CPU). Arguments go to `xpose bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >&2
exec "${XPOSE_BUILD_DIR:-build}/tools/xpose/xpose" bench "$@"
