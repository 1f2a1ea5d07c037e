#!/usr/bin/env bash
# H100, v28 call 12: per-size partial-row shapes (pr: f2ee7e4 plus UnalignedPartialRowsTuning; the
# f32 one is 64 x 64 at 128 threads and 4 blocks per SM, the others the kernels they ran before)
# against head (84cc0b7, the same H100 paths as f2ee7e4), on unaligned views of few row tiles, the
# last partial; workstation-built, stripped (.exp-bins/bins.tar.xz). `tile`, 2 alternating rounds.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
printf '300 1000003 f32\n1000 200003 f32\n129 1000003 f32\n500 400003 f32\n300 100003 f32 pad_in 8 pad_out 7\n300 1000003 f16\n300 1000003 u8\n8191 8193 f32\n' > /tmp/few.txt
OUT=$out bench/probes/compare_binaries.sh 2 /tmp/few.txt tile /tmp/v/head /tmp/v/pr > $out/few-rows.txt 2>&1
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
cat $out/few-rows.txt
echo "done $((SECONDS - start)) s"
