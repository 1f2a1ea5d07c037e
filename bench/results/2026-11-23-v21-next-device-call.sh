#!/bin/bash
# The next device call that v21 left planned (docs/kernels.md v21), self-contained: run it in the repository root
# on an H100 (the device tool: `bash bench/results/2026-11-23-v21-next-device-call.sh`). About 7-8 minutes (timeout_s 600).
#   Part 1, bisecting why whole-sector ownership (2026-11-23-whole-sector-ownership-experiment.patch) lost 25-45%:
#     head  the tile kernel as committed
#     s1    the patch (look-ahead loads, the second-half stores, 1-2 KiB more shared memory per block)
#     s2    the patch, never taking the second-half path (stores as head; look-ahead loads kept)
#     s3    s2 without the look-ahead loads in the unmasked form (what is left: shared memory and code)
#     s4    the patch with one shared-memory gather per output vector at the segment ends instead of two
#           (if the store phase's length is the cost: f32, whose threads store 8 vectors per tile, lost most)
#     h2    a second design (2026-11-23-two-block-halo-experiment.patch, compiled, never run): a halo of two row
#           blocks and no look-ahead; where a segment starts in a sector's second half, lane 1 also stores the
#           vector before the segment (the previous tile's last 16 + head bytes), and the last lane leaves its vector
#           to the next tile; ptxas: the tall u8 shape spills 36-40 bytes, the large u8 one 0-12
#   Part 1b, t512: the tall u8 shape at 512 x 64 instead of 256 x 128 (half the tile boundaries inside output rows,
#     so half the sectors two tiles share; 64-byte input row segments; 64 registers, no spills), on the large
#     unaligned u8 views that take the tall shape.
#   Part 2, a rule: views whose output rows are 16-byte aligned but off 32-byte sectors take the unaligned shapes
#     (route: 2026-11-23-off-sector-route-prepared.patch, as it would be merged) instead of the aligned ones (head);
#     v21 saw the aligned kernel 16% slower there on u8.
#   Part 3, ncu of head against s1 (8191 x 8193 u8), and of head with output rows 16 bytes off sectors
#     against on sectors (DRAM read bytes: do half-written sectors cost reads?).
# Everything lands in $OUT/r.tgz (the device tool returns at most 8 files); the tables print last.
# PARTS="1 1b 2 3" (the default) picks the parts; every variant is built whichever run.
set -u
PARTS=" ${PARTS:-1 1b 2 3} "
part() { [[ "$PARTS" == *" $1 "* ]]; }
R=$OUT/r; mkdir -p $R/json
P=bench/results/2026-11-23-whole-sector-ownership-experiment.patch
tree() { rm -rf /tmp/$1 && mkdir -p /tmp/$1 && cp -r CMakeLists.txt cmake include src tools bench scripts examples tests /tmp/$1/; }
tree head
tree sect && (cd /tmp/sect && patch -s -p1 < $OLDPWD/$P) || { echo "patch failed"; exit 1; }
tree t512
cat > /tmp/edit_variants.py <<'PY'
# (file, text that must occur once, its replacement) for the variants made by edits.
sect = '/tmp/sect/src/cuda/tile_kernel.cu'
edits = [
    (sect, "  return S::kWholeSectors && (reinterpret_cast<uintptr_t>(row) & 16) != 0;",
     "#ifdef EXP_NO_SECOND_HALF\n  return false;\n#endif\n"
     "  return S::kWholeSectors && (reinterpret_cast<uintptr_t>(row) & 16) != 0;"),
    (sect, "          load_realigned_full<S>(src, m.ld_in, tile, takes_halo, lookahead_rows > 0);",
     "#ifdef EXP_NO_LOOKAHEAD_LOADS\n          load_realigned_full<S>(src, m.ld_in, tile, takes_halo, false);\n#else\n"
     "          load_realigned_full<S>(src, m.ld_in, tile, takes_halo, lookahead_rows > 0);\n#endif"),
    (sect, "      if (j == 0 && takes_halo && !second_half) before = gather_column<S>(beside, column);\n"
     "      if (j == kGroup - 1 && takes_lookahead && second_half) after = gather_column<S>(beside, column);",
     "#ifdef EXP_ONE_GATHER\n"
     "      if (second_half ? (j == kGroup - 1 && takes_lookahead) : (j == 0 && takes_halo)) {\n"
     "        const uint4 outside = gather_column<S>(beside, column);\n"
     "        if (second_half) after = outside;\n"
     "        else before = outside;\n"
     "      }\n"
     "#else\n"
     "      if (j == 0 && takes_halo && !second_half) before = gather_column<S>(beside, column);\n"
     "      if (j == kGroup - 1 && takes_lookahead && second_half) after = gather_column<S>(beside, column);\n"
     "#endif"),
    ('/tmp/t512/src/cuda/tuning.hpp',
     "  static constexpr int kRows = 256, kCols = 128, kThreads = 512, kMinBlocks = 2;\n  static constexpr bool kUnmasked = true;",
     "  static constexpr int kRows = 512, kCols = 64, kThreads = 512, kMinBlocks = 2;\n  static constexpr bool kUnmasked = true;"),
]
for path, old, new in edits:
    s = open(path).read()
    assert s.count(old) == 1, old
    open(path, 'w').write(s.replace(old, new))
PY
python3 /tmp/edit_variants.py || exit 1
# The routing rule as prepared for merging (code, tuning entry, GPU test).
tree route && (cd /tmp/route && patch -s -p1 < $OLDPWD/bench/results/2026-11-23-off-sector-route-prepared.patch) || { echo "route patch failed"; exit 1; }
tree h2 && (cd /tmp/h2 && patch -s -p1 < $OLDPWD/bench/results/2026-11-23-two-block-halo-experiment.patch) || { echo "h2 patch failed"; exit 1; }
cfg() { cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF "${@:3}" > $2.cfg.log 2>&1; }
cfg /tmp/head /tmp/head/b & cfg /tmp/route /tmp/route/b & cfg /tmp/t512 /tmp/t512/b & cfg /tmp/h2 /tmp/h2/b & cfg /tmp/sect /tmp/sect/b1 &
cfg /tmp/sect /tmp/sect/b2 "-DCMAKE_CUDA_FLAGS=-DEXP_NO_SECOND_HALF" &
cfg /tmp/sect /tmp/sect/b3 "-DCMAKE_CUDA_FLAGS=-DEXP_NO_SECOND_HALF -DEXP_NO_LOOKAHEAD_LOADS" &
cfg /tmp/sect /tmp/sect/b4 "-DCMAKE_CUDA_FLAGS=-DEXP_ONE_GATHER" & wait
for b in /tmp/head/b /tmp/route/b /tmp/t512/b /tmp/h2/b /tmp/sect/b1 /tmp/sect/b2 /tmp/sect/b3 /tmp/sect/b4; do
  (cmake --build $b --target xpose_cli -j 3 > $b.build.log 2>&1 || echo "BUILD FAILED $b") &
done; wait
declare -A X=([head]=/tmp/head/b/tools/xpose/xpose [route]=/tmp/route/b/tools/xpose/xpose [t512]=/tmp/t512/b/tools/xpose/xpose [h2]=/tmp/h2/b/tools/xpose/xpose
              [s1]=/tmp/sect/b1/tools/xpose/xpose [s2]=/tmp/sect/b2/tools/xpose/xpose
              [s3]=/tmp/sect/b3/tools/xpose/xpose [s4]=/tmp/sect/b4/tools/xpose/xpose)
for v in "${!X[@]}"; do [ -x ${X[$v]} ] || { echo "missing $v"; tail -20 /tmp/*/b*.build.log; exit 1; }; done
run() {  # variant label rows cols dtype pad_in pad_out
  ${X[$1]} bench --rows $3 --cols $4 --dtype $5 --pad-in $6 --pad-out $7 --kernels auto --reps 30 --warmup 5 \
    --format json --output $R/json/$2_$1.json --no-progress > /dev/null 2>> $R/errors.txt
}
for round in 1 2; do
  part 1 && for v in head s1 s2 s3 s4 h2; do
    run $v p1u8packed_r$round 8191 8193 u8 0 0
    run $v p1u8ld8224_r$round 8191 8193 u8 0 33
    run $v p1f32packed_r$round 8191 8193 f32 0 0
  done
  part 1b && for v in head t512 h2; do
    run $v p1bu8_8191x8193_r$round 8191 8193 u8 0 0
    run $v p1bu8_16383x16385_r$round 16383 16385 u8 0 0
    run $v p1bu8_12345x6789_r$round 12345 6789 u8 0 0
    run $v p1bu8_100003x1000_r$round 100003 1000 u8 0 0
    run $v p1bu8_1000003x300_r$round 1000003 300 u8 0 0
  done
  part 2 && for v in head route; do
    run $v p2u8_8208_8208_r$round 8191 8193 u8 15 17
    run $v p2u8_8448_8208_r$round 8191 8193 u8 255 17
    run $v p2u8_8224_8224_r$round 8191 8193 u8 31 33
    run $v p2f16_8200_8200_r$round 8191 8193 f16 7 9
    run $v p2f32_8196_8196_r$round 8191 8193 f32 3 5
  done
done
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__shared_mem_config_size,launch__registers_per_thread,launch__grid_size,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio
part 3 && for dt in u8; do for v in head s1; do
  ncu --clock-control none --kernel-name regex:tile_transpose_kernel --launch-skip 2 --launch-count 1 --metrics $M \
    ${X[$v]} bench --rows 8191 --cols 8193 --dtype $dt --kernels auto --reps 3 --warmup 1 --no-progress > $R/ncu_${dt}_$v.txt 2>&1
done; done
# Whether half-written sectors cost DRAM reads: head's unaligned kernel with output rows 16 bytes off sectors
# (ld_out 8208: half the tile boundaries inside a sector) against on sectors (8224); packed input bytes are 67.1 MB.
part 3 && for lo in 8208 8224; do
  ncu --clock-control none --kernel-name regex:tile_transpose_kernel --launch-skip 2 --launch-count 1 --metrics $M \
    ${X[head]} bench --rows 8191 --cols 8193 --dtype u8 --pad-out $((lo - 8191)) --kernels auto --reps 3 --warmup 1 \
    --no-progress > $R/ncu_u8_ldout${lo}_head.txt 2>&1
done
cat > /tmp/tables.py <<'PY'
import json, glob, os, sys, collections
R = sys.argv[1]
rows = collections.OrderedDict()
for f in sorted(glob.glob(R + '/json/*.json')):
    name = os.path.basename(f)[:-5]
    case, variant = name.rsplit('_', 1)
    case, rnd = case.rsplit('_r', 1)
    c = json.load(open(f))['cases'][0]
    a = [r for r in c['results'] if r['kernel'] == 'auto'][0]
    rows.setdefault(case, collections.OrderedDict()).setdefault(variant, []).append(
        '%.2f%s' % (a['median_us'], '' if a['status'] == 'passed' else '!' + a['status']))
for case, vs in rows.items():
    print('%-22s' % case, '   '.join('%s %s' % (v, ' '.join(x)) for v, x in vs.items()))
PY
python3 /tmp/tables.py $R > $R/tables.txt
for f in $R/ncu_*.txt; do echo "== $(basename $f)" >> $R/tables.txt
  grep -E "^\s+(gpu__|dram__|lts__|smsp__|sm__|launch__|l1tex__)" $f | awk '{print "  " $1, $(NF-1), $NF}' >> $R/tables.txt; done
tar czf $OUT/r.tgz -C $OUT r
cat $R/tables.txt; head -5 $R/errors.txt 2>/dev/null
