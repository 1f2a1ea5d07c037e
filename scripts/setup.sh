#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian/Ubuntu packages xpose builds with, when they are missing and we are root,
# then configures and builds into ${XPOSE_BUILD_DIR:-build}. Extra arguments go to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."

required=(cmake g++ make libgtest-dev libcli11-dev nlohmann-json3-dev
          python3-dev pybind11-dev python3-numpy python3-pytest)  # the Python package and its tests
optional=(libopenblas-dev libeigen3-dev libopenmpi-dev python3-matplotlib)  # the CPU comparison benchmark; the MPI example; bench --plot

missing() {
  local out=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || out+=("$pkg"); done
  echo "${out[@]:-}"
}

if command -v dpkg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  need="$(missing "${required[@]}" "${optional[@]}")"
  if [ -n "$need" ]; then
    if [ "$(id -u)" = 0 ]; then
      echo "setup: installing $need" >&2
      # A machine without network may still have what it needs from elsewhere; CMake decides.
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need; } \
        >/tmp/xpose-apt.log 2>&1 || echo "setup: apt-get failed (see /tmp/xpose-apt.log); trying the build anyway" >&2
    else
      echo "setup: missing packages ($need); run as root or install them" >&2
    fi
  fi
fi

# With a GPU visible, build for it alone: several times faster than the default, which compiles
# for every GPU the toolkit supports (docs/install.md). A -DXPOSE_CUDA_ARCHITECTURES argument wins.
cuda_architectures=()
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  cuda_architectures=(-DXPOSE_CUDA_ARCHITECTURES=native)
fi

build_dir="${XPOSE_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || echo 2)"
mkdir -p "$build_dir"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${cuda_architectures[@]}" "$@" >"$build_dir/configure.log" 2>&1 \
  || { cat "$build_dir/configure.log" >&2; exit 1; }
cmake --build "$build_dir" -j "$jobs"
