#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# bench.sh - performance comparison of our clang-offload-bundler with LLVM 22's.
#
# Both tools run in the same invocation, on the same generated data, so the
# numbers are directly comparable on whatever machine this runs on.
#
# Scenarios and the performance requirements they check:
#   1. start-up   `-type=bc -list` of a tiny bundle
#                 ours >= 10x faster, ours peak RSS < 8 MiB
#   2. list       `-type=bc -list` of a 4 x 64 MiB (+ host) binary bundle
#                 ours >= 30x faster
#   3. bundle     bundling host + four 64 MiB device images
#                 ours >= 3x faster, ours peak RSS < 32 MiB
#   4. unbundle1  unbundling one device target from that bundle
#                 ours >= 3x faster, ours peak RSS < 32 MiB
#   5. unbundleN  unbundling all five targets from that bundle
#                 ours >= 3x faster, ours peak RSS < 32 MiB
#   6. compress   bundling with -compress (zstd, level 3, long distance
#                 matching): ours >= 2x faster, peak RSS < 1.5x the
#                 uncompressed bundle
#   7. cunbundle1 unbundling one target from the compressed bundle, its hash
#                 verified (LLVM does not check it): >= 0.9x. MD5-bound: the
#                 "md5 floor" row times `md5sum` of the uncompressed bundle
#   8. cunbundleF unbundling the first device target without hash
#                 verification (-verify-hash=false: only that entry is
#                 decompressed): >= 4x
#   9. cunbundleL the same for the last device target: >= 2x
#  10. clist      -list of the compressed bundle: >= 2x
#  11. archive    -unbundle -type=a of a 1 GiB library of 2,000 fat objects
#                 for one GPU: >= 3x, or within 1.25x of the "cp floor" row
#                 (`cp` of a file of the output's size, same disk)
#  12. tk_sizes   `offbundle sizes` of a real ROCm library (Debian's
#                 librocsparse0, 1.25 GiB, 111 bundles; the .deb the
#                 rocm_library test keeps in build/tests/rocm_packages, else
#                 `apt-get download`, never installed): < 50 ms, headers only
#  13. tk_list    `offbundle list` of it: < 50 ms
#  14. tk_prune   `offbundle prune` of it to one target (gfx90a:xnack-): peak
#                 memory <= 64 MiB, and time within 2x of the "tk cp floor"
#                 row (`cp` of a file of the pruned library's size)
#                 (12 to 14 time our offbundle tool alone: LLVM has none;
#                 they are left out, and say so, when the package cannot be
#                 had)
#  15. tk_compress `offbundle compress` of a program holding two plain
#                 bundles (the bundle of scenario 2, twice: a PIE program
#                 gcc links, whose HIP wrappers point at them) against
#                 LLVM 22's -compress of the same bundle twice, one after
#                 the other: >= 1.5x (the bundler's speed per bundle, both
#                 cores across bundles); the first compressed bundle in the
#                 program must be LLVM's bytes
#  16. tk_lib_compress `offbundle compress` of the whole ROCm library (111
#                 bundles on both cores) against the floor `zstd -3
#                 --long=27 -T2` of the same file: within 1.25x; peak RSS
#                 (mapped input pages included) <= 400 MiB
#  17. tk_lib_decompress `offbundle decompress` of that compressed library
#                 against the floor max(`cp` of the output, `zstd -d` of the
#                 zstd file above / 2): within 1.3x, peak RSS <= 400 MiB;
#                 timed with the hash check (the default) and with
#                 --no-verify-hash, each against the target; the "md5
#                 floor" row times `md5sum` of data the output's size,
#                 which the check adds (MD5 runs on one core a bundle);
#                 the five commands run in turn, one run each per round,
#                 since the floor itself drifts on tmpfs
#                 (16 and 17 need about 4 GiB where the data goes; the issue
#                 they come from measured with TMPDIR=/dev/shm)
#  18. tk_tree_sizes `offbundle sizes` of an installation: the ROCm library
#                 and 20,000 small files in 200 folders, against the floor
#                 `find DIR -type f -print0 | xargs -0 head -qc 64` (every
#                 file opened and its first bytes read): within 2x
#  19. tk_tree_prune `offbundle prune --in-place` of a fresh copy of that
#                 tree to one target (gfx90a:xnack-), against `cp -a` of the
#                 tree: faster (within 1x), peak RSS <= 128 MiB; the copy
#                 pruned is made (and synced) before each run
#                 (18 and 19 need about 3 GiB where the data goes)
#  20. tk_kernels `offbundle kernels` of the ROCm library (888 code objects,
#                 every kernel's metadata, descriptor and symbol read)
#                 against `offbundle extract` of the same library (every
#                 entry written into a folder): within 3x; peak RSS
#                 (mapped input pages included) <= 400 MiB
#  21. tk_clib_list, tk_clib_sizes `offbundle list` and `sizes` of the
#                 compressed library (scenario 16's output), which read each
#                 compressed bundle's header only: < 50 ms, peak RSS <= 64
#                 MiB; the same command on the plain library is shown beside
#                 it (each of the 111 bundles' first zstd block is decoded,
#                 which the plain library does not need)
#  22. tk_clib_verify `offbundle verify` of the compressed library (every
#                 bundle decompressed and its hash checked, one at a time)
#                 against the floor `zstd -d -c lib.zst | md5sum`: within
#                 1.25x, peak RSS <= 400 MiB
# With --size 2 (4 x 2 MiB, a typical HIP object) the targets are >= 1.3x
# for every compressed scenario and >= 3x for every other (the start-up and
# archive targets stay those above).
# Every scenario also checks that both tools produce byte-identical output
# (stdout of -list, output files otherwise); a mismatch is always an error.
#
# Measurement:
#   * wall time: median of hyperfine runs (--warmup 1, so both tools see a warm
#     page cache; nothing is dropped, no root needed);
#   * peak memory: the maximum "Maximum resident set size" over a few runs of
#     /usr/bin/time -v (max rather than median: the targets are upper bounds).
#   Output files are deleted before every run (hyperfine --prepare). Rewriting
#   an existing file in place (O_TRUNC or rename over it) makes ext4 flush the
#   new data to disk on close ("auto_da_alloc"), which would turn the benchmark
#   into a disk benchmark with very noisy results.
#
# Data: generated into a fresh temp dir (removed at exit): four device images
# of 64 MiB (random 64 KiB blocks alternating with zero blocks, so roughly 50%
# compressible) and a tiny host file, and a 1 GiB archive. About 3 GiB of free space is needed
# in full mode (inputs, the input bundle and both tools' outputs).
#
# Usage: scripts/bench.sh [options]
#   --runs N          hyperfine runs per command (default 20, or 3 with
#                     --quick); the start-up scenario uses at least 100 runs:
#                     each takes milliseconds and the reference's start-up
#                     time is noisy (dynamic loading of libLLVM)
#   --quick           4 MiB images instead of 64 MiB: a smoke test of the
#                     script and of output identity; targets are reported as
#                     n/a and do not affect the exit status
#   --size MIB        device images of MIB MiB (default 64); targets apply
#                     to 64 and 2, other sizes report them as n/a
#   --only A,B,...    run only these scenarios (names as above; the archive
#                     library is made only when "archive" runs)
#   --ours PATH       our tool (env BENCH_OURS; default
#                     <repo>/build/bin/clang-offload-bundler)
#   --reference PATH  LLVM's tool (env BENCH_REFERENCE; default
#                     $(llvm-config-22 --bindir)/clang-offload-bundler, else
#                     /usr/lib/llvm-22/bin/clang-offload-bundler)
#   -h, --help        show this help
#
# Exit status: 0 if every target passes (or --quick) and all outputs are
# identical; 1 if a target fails or outputs differ; 2 on usage/setup errors.
# Requires: bash, hyperfine, python3, GNU time at /usr/bin/time.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
  # Print the header comment (everything between the shebang and `set -e`).
  sed -n '2,/^set -euo pipefail/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}

die() {
  echo "bench.sh: error: $*" >&2
  exit 2
}

default_reference() {
  local bindir
  if bindir=$(llvm-config-22 --bindir 2>/dev/null) &&
    [[ -x $bindir/clang-offload-bundler ]]; then
    echo "$bindir/clang-offload-bundler"
  else
    echo /usr/lib/llvm-22/bin/clang-offload-bundler
  fi
}

ours=${BENCH_OURS:-$repo_root/build/bin/clang-offload-bundler}
reference=${BENCH_REFERENCE:-$(default_reference)}
runs=""
quick=0
size=""
only=""

while (($#)); do
  case $1 in
    --runs) (($# >= 2)) || die "--runs needs a value"; runs=$2; shift 2 ;;
    --runs=*) runs=${1#*=}; shift ;;
    --quick) quick=1; shift ;;
    --size) (($# >= 2)) || die "--size needs a value"; size=$2; shift 2 ;;
    --size=*) size=${1#*=}; shift ;;
    --only) (($# >= 2)) || die "--only needs a value"; only=$2; shift 2 ;;
    --only=*) only=${1#*=}; shift ;;
    --ours) (($# >= 2)) || die "--ours needs a value"; ours=$2; shift 2 ;;
    --ours=*) ours=${1#*=}; shift ;;
    --reference) (($# >= 2)) || die "--reference needs a value"; reference=$2; shift 2 ;;
    --reference=*) reference=${1#*=}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

if [[ -z $runs ]]; then
  # 20 runs keep a full-size run near 75 s on a 2-core machine (the
  # reference dominates: it copies every byte through memory) while giving
  # medians that are stable against its frequent slow outliers.
  if ((quick)); then runs=3; else runs=20; fi
fi
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer, got '$runs'"
startup_runs=$((runs > 100 ? runs : 100))

for tool in hyperfine python3; do
  command -v "$tool" >/dev/null || die "'$tool' is required but not installed"
done
[[ -x /usr/bin/time ]] || die "GNU time (/usr/bin/time) is required"
[[ -x $ours ]] || die "our tool not found or not executable: $ours (build it, or pass --ours)"
[[ -x $reference ]] || die "reference tool not found or not executable: $reference (pass --reference)"
# Resolve to absolute paths: the commands below run from the temp dir.
ours=$(cd "$(dirname "$ours")" && pwd)/$(basename "$ours")
reference=$(cd "$(dirname "$reference")" && pwd)/$(basename "$reference")

if [[ -n $size ]]; then
  [[ $size =~ ^[1-9][0-9]*$ ]] || die "--size must be a positive integer, got '$size'"
  image_mib=$size
elif ((quick)); then image_mib=4; else image_mib=64; fi
# Targets exist for the full size and for HIP-object-sized images.
if ((image_mib != 64 && image_mib != 2)); then quick=1; fi

# selected NAME: whether --only lets scenario NAME run.
selected() { [[ -z $only || ",$only," == *",$1,"* ]]; }

workdir=$(mktemp -d "${TMPDIR:-/tmp}/offbundle-bench.XXXXXX")
trap 'rm -rf -- "$workdir"' EXIT
trap 'exit 130' INT TERM # make sure the EXIT trap (cleanup) runs on ^C

# Refuse to start rather than fill the disk half-way through: inputs, the
# input bundle, and both tools' bundles and unbundled files.
need_kib=$(((4 * image_mib * 7 + 64) * 1024))
avail_kib=$(df -Pk -- "$workdir" | awk 'NR == 2 { print $4 }')
((avail_kib > need_kib)) ||
  die "not enough space in $workdir: need ~$((need_kib / 1024)) MiB, have $((avail_kib / 1024)) MiB (set TMPDIR)"

cd "$workdir"

# hyperfine runs commands without a shell (-N) so that the start-up scenario
# measures the tool, not sh. It still splits the command line into words the
# POSIX way, so quote every word in single quotes (this also works for sh).
q() {
  local out="" word
  for word in "$@"; do
    out+="'${word//\'/\'\\\'\'}' "
  done
  printf '%s' "${out% }"
}

progress() { echo "bench.sh: $*" >&2; }

load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

# ---------------------------------------------------------------------------
# Data.
progress "generating 4 x $image_mib MiB device images in $workdir"
python3 - "$image_mib" <<'EOF'
import os, sys

# Fast: a single pool of urandom bytes, sliced at different offsets per image
# and block, so images differ from each other while costing one urandom read.
mib = 1 << 20
image = int(sys.argv[1]) * mib
block = 64 * 1024
pool_size = min(8 * mib, image)
pool = os.urandom(pool_size)
zeros = bytes(block)
for i in range(4):
    parts = []
    for k in range(image // (2 * block)):
        off = ((k * 7919 + i * 104729) * 4096) % (pool_size - block + 1)
        parts.append(pool[off:off + block])
        parts.append(zeros)
    with open(f"dev{i}.bin", "wb") as f:
        f.write(b"".join(parts))
with open("host.bin", "wb") as f:
    f.write(b"BC\xc0\xde host")
with open("tiny-dev.bin", "wb") as f:
    f.write(b"BC\xc0\xde dev")
EOF

host_target=host-x86_64-unknown-linux-gnu
device_targets=(hip-amdgcn-amd-amdhsa--gfx906 hip-amdgcn-amd-amdhsa--gfx908
  hip-amdgcn-amd-amdhsa--gfx90a hip-amdgcn-amd-amdhsa--gfx1030)
all_targets=$(IFS=,; echo "$host_target,${device_targets[*]}")
one_target=${device_targets[1]} # gfx908, i.e. dev1.bin
inputs=(-input=host.bin -input=dev0.bin -input=dev1.bin -input=dev2.bin -input=dev3.bin)

# The bundles read by scenarios 1, 2, 4 and 5 are made by the reference, so
# that our reader is measured on (and checked against) LLVM's own output.
"$reference" -type=bc "-targets=$host_target,${device_targets[0]}" \
  -input=host.bin -input=tiny-dev.bin -output=tiny.bc
"$reference" -type=bc "-targets=$all_targets" "${inputs[@]}" -output=bundle.bc
"$reference" -type=bc "-targets=$all_targets" "${inputs[@]}" -compress -output=bundle.ccob
# The compressed-bundle memory target is relative to the uncompressed size.
bundle_mib=$(awk -v b="$(stat -c %s bundle.bc)" 'BEGIN { printf "%.1f", b / 1048576 }')
compress_rss_limit=$(awk -v m="$bundle_mib" 'BEGIN { printf "%.1f", m * 1.5 }')

# ---------------------------------------------------------------------------
# Measurement helpers.

# Results, one entry per scenario, filled by run_scenario.
names=() ours_ms=() ref_ms=() speedups=() ours_rss=() ref_rss=()
mismatches=0

# median_ms JSON INDEX: median wall time of hyperfine result INDEX, in ms.
median_ms() {
  python3 -c 'import json, sys
print("%.3f" % (json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"] * 1000))' "$1" "$2"
}

# interleaved OUT.json RUNS "PREPARE" NAME CMD [NAME CMD ...]: times the
# commands in turn, one run each per round (A B C A B C ...), after one
# round not counted, and writes OUT.json shaped like hyperfine's export
# (results in the order given, each with its runs' times and their median).
# Where the machine's speed drifts within a scenario (page allocation on
# tmpfs can take 0.7 s or 3 s for the same 1.25 GiB minutes apart), each
# command then meets the same moments, so their ratio stays meaningful.
interleaved() {
  local out=$1 rounds=$2 prepare=$3 round i
  shift 3
  local -a labels=() commands=()
  while (($# >= 2)); do
    labels+=("$1")
    commands+=("$2")
    shift 2
  done
  for ((round = 0; round <= rounds; round++)); do
    for i in "${!commands[@]}"; do
      hyperfine -N --style none --runs 1 --prepare "$prepare" \
        --export-json "$out.$round.$i" -n "${labels[$i]}" "${commands[$i]}" >/dev/null
    done
  done
  python3 - "$out" "$rounds" "${#commands[@]}" <<'PY'
import json, statistics, sys
out, rounds, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
results = []
for i in range(count):
    times = [json.load(open("%s.%d.%d" % (out, r, i)))["results"][0]["times"][0]
             for r in range(1, rounds + 1)]
    results.append({"command": json.load(open("%s.1.%d" % (out, i)))["results"][0]["command"],
                    "times": times, "median": statistics.median(times)})
json.dump({"results": results}, open(out, "w"))
PY
  rm -f "$out".*.*
}

# peak_rss_mib "PREPARE" CMD...: max peak RSS (MiB) over 3 runs of CMD.
peak_rss_mib() {
  local prepare=$1 max=0 kib i
  shift
  for i in 1 2 3; do
    [[ -z $prepare ]] || eval "$prepare"
    /usr/bin/time -v -o rss.txt "$@" >/dev/null
    kib=$(awk -F': *' '/Maximum resident set size/ { print $2 }' rss.txt)
    if ((kib > max)); then max=$kib; fi
  done
  awk -v k="$max" 'BEGIN { printf "%.1f", k / 1024 }'
}

# run_scenario NAME RUNS "OUTPUTS" -- OURS_CMD... -- REF_CMD...
# OUTPUTS: files each command writes (deleted before every run); the
# commands' stdout is kept in NAME.ours.out / NAME.ref.out for comparison.
run_scenario() {
  local name=$1 nruns=$2 outputs=$3
  shift 4
  selected "$name" || return 0
  local ours_cmd=() ref_cmd=()
  while [[ $1 != -- ]]; do ours_cmd+=("$1"); shift; done
  shift
  ref_cmd=("$@")

  local prepare_args=() prepare_sh=""
  if [[ -n $outputs ]]; then
    prepare_sh="rm -f -- $outputs"
    prepare_args=(--prepare "$prepare_sh")
  fi

  progress "[$name] timing ($nruns runs each)"
  hyperfine -N --style none --warmup 1 --runs "$nruns" "${prepare_args[@]}" \
    --export-json "$name.json" \
    -n ours "$(q "${ours_cmd[@]}")" -n reference "$(q "${ref_cmd[@]}")" >/dev/null

  progress "[$name] peak memory"
  local o_rss r_rss
  o_rss=$(peak_rss_mib "$prepare_sh" "${ours_cmd[@]}")
  r_rss=$(peak_rss_mib "$prepare_sh" "${ref_cmd[@]}")

  # Fresh outputs for the identity check, with stdout captured.
  [[ -z $prepare_sh ]] || eval "$prepare_sh"
  "${ours_cmd[@]}" >"$name.ours.out"
  "${ref_cmd[@]}" >"$name.ref.out"
  if ! cmp -s "$name.ours.out" "$name.ref.out"; then
    echo "bench.sh: ERROR: [$name] stdout differs between ours and the reference" >&2
    diff "$name.ours.out" "$name.ref.out" | head -20 >&2 || true
    mismatches=$((mismatches + 1))
  fi

  local o r
  o=$(median_ms "$name.json" 0)
  r=$(median_ms "$name.json" 1)
  names+=("$name")
  ours_ms+=("$o")
  ref_ms+=("$r")
  # Keep full precision for the target check; round only when printing.
  speedups+=("$(awk -v o="$o" -v r="$r" 'BEGIN { printf "%.6g", (o > 0 ? r / o : 0) }')")
  ours_rss+=("$o_rss")
  ref_rss+=("$r_rss")
}

# floor NAME "PREPARE" CMD...: median ms of CMD alone (a physical floor
# that a scenario is compared with), recorded as a row of its own.
floor_names=() floor_ms=() absolute_names=() absolute_ms=()
# absolute NAME COMMAND...: times one of our commands that has no LLVM
# counterpart, for a target on its own time.
absolute() {
  local name=$1
  shift
  progress "[$name] timing ($runs runs)"
  hyperfine -N --style none --warmup 1 --runs "$runs" \
    --export-json "$name.json" -n "$name" "$(q "$@")" >/dev/null
  absolute_names+=("$name")
  absolute_ms+=("$(median_ms "$name.json" 0)")
}

floor() {
  local name=$1 prepare=$2
  shift 2
  local prepare_args=()
  [[ -z $prepare ]] || prepare_args=(--prepare "$prepare")
  progress "[$name] timing ($runs runs)"
  hyperfine -N --style none --warmup 1 --runs "$runs" "${prepare_args[@]}" \
    --export-json "$name.json" -n "$name" "$(q "$@")" >/dev/null
  floor_names+=("$name")
  floor_ms+=("$(median_ms "$name.json" 0)")
}

# versus_floor NAME LIMIT RSS_LIMIT FLOOR COMMAND...: times our COMMAND
# against FLOOR (a command line, quoted) and records in tk_lib the two
# medians, our peak RSS, the ratio limit (or "<n>ms", a time limit of its
# own) and the RSS limit.
versus_floor() {
  local name=$1 limit=$2 rss_limit=$3 floor_command=$4
  shift 4
  progress "[$name] timing ($runs runs)"
  hyperfine -N --style none --warmup 1 --runs "$runs" \
    --export-json "$name.json" \
    -n ours "$(q "$@")" -n floor "$floor_command" >/dev/null
  tk_lib[$name]="$(median_ms "$name.json" 0) $(median_ms "$name.json" 1) $(peak_rss_mib "" "$@") $limit $rss_limit"
}

# same_file NAME A B: record an error unless A and B are byte-identical.
same_file() {
  selected "$1" || return 0
  if ! cmp -- "$2" "$3" >&2; then
    echo "bench.sh: ERROR: [$1] $2 and $3 differ" >&2
    mismatches=$((mismatches + 1))
  fi
}

# ---------------------------------------------------------------------------
# Scenarios.

run_scenario startup "$startup_runs" "" -- \
  "$ours" -type=bc -list -input=tiny.bc -- \
  "$reference" -type=bc -list -input=tiny.bc

run_scenario list "$runs" "" -- \
  "$ours" -type=bc -list -input=bundle.bc -- \
  "$reference" -type=bc -list -input=bundle.bc

run_scenario bundle "$runs" "ours.bc ref.bc" -- \
  "$ours" -type=bc "-targets=$all_targets" "${inputs[@]}" -output=ours.bc -- \
  "$reference" -type=bc "-targets=$all_targets" "${inputs[@]}" -output=ref.bc
same_file bundle ours.bc ref.bc

run_scenario unbundle1 "$runs" "one.ours one.ref" -- \
  "$ours" -type=bc -unbundle "-targets=$one_target" -input=bundle.bc -output=one.ours -- \
  "$reference" -type=bc -unbundle "-targets=$one_target" -input=bundle.bc -output=one.ref
same_file unbundle1 one.ours one.ref
same_file unbundle1 one.ours dev1.bin # and both must round-trip the input

all_outs_ours=() all_outs_ref=()
for i in 0 1 2 3 4; do
  all_outs_ours+=("-output=all$i.ours")
  all_outs_ref+=("-output=all$i.ref")
done
run_scenario unbundleN "$runs" \
  "all0.ours all1.ours all2.ours all3.ours all4.ours all0.ref all1.ref all2.ref all3.ref all4.ref" -- \
  "$ours" -type=bc -unbundle "-targets=$all_targets" -input=bundle.bc "${all_outs_ours[@]}" -- \
  "$reference" -type=bc -unbundle "-targets=$all_targets" -input=bundle.bc "${all_outs_ref[@]}"
for i in 0 1 2 3 4; do
  same_file unbundleN "all$i.ours" "all$i.ref"
done

run_scenario compress "$runs" "ours.ccob ref.ccob" -- \
  "$ours" -type=bc "-targets=$all_targets" "${inputs[@]}" -compress -output=ours.ccob -- \
  "$reference" -type=bc "-targets=$all_targets" "${inputs[@]}" -compress -output=ref.ccob
same_file compress ours.ccob ref.ccob

if selected tk_compress; then
  # A program as clang lays one out: the bundles in .hip_fatbin, a HIPF
  # wrapper per bundle in .hipFatBinSegment pointing at it.
  cat >program.c <<'PROGRAM'
asm(".section .hip_fatbin,\"a\"\n.balign 4096\nfirst_bundle: .incbin \"bundle.bc\"\n"
    ".balign 4096\nsecond_bundle: .incbin \"bundle.bc\"\n.previous");
extern const char first_bundle[], second_bundle[];
struct wrapper { unsigned magic, version; const void *binary, *unused; };
__attribute__((section(".hipFatBinSegment"), used)) const struct wrapper
    wrappers[2] = {{0x48495046, 1, first_bundle, 0},
                   {0x48495046, 1, second_bundle, 0}};
int main(void) { return 0; }
PROGRAM
  gcc -O1 -fPIE -pie program.c -o program
  compress_once=("$reference" -type=bc "-targets=$all_targets" "${inputs[@]}" -compress)
  run_scenario tk_compress "$runs" "program.ours tk1.ccob tk2.ccob" -- \
    sh -c "$(q "$(dirname "$ours")/offbundle" compress program -o program.ours) >/dev/null" -- \
    sh -c "$(q "${compress_once[@]}" -output=tk1.ccob) && $(q "${compress_once[@]}" -output=tk2.ccob)"
  # The program's first compressed bundle is LLVM's -compress of the bundle.
  python3 - program.ours tk1.ccob <<'CHECK' || mismatches=$((mismatches + 1))
import struct, sys
program, reference = (open(name, "rb").read() for name in sys.argv[1:])
start = program.find(b"CCOB")
size = struct.unpack_from("<Q", program, start + 8)[0]
if program[start:start + size] != reference:
    sys.exit("bench.sh: ERROR: [tk_compress] the program's first bundle is not LLVM 22's -compress")
CHECK
  rm -f program program.c program.ours tk1.ccob tk2.ccob
fi

run_scenario cunbundle1 "$runs" "cone.ours cone.ref" -- \
  "$ours" -type=bc -unbundle "-targets=$one_target" -input=bundle.ccob -output=cone.ours -- \
  "$reference" -type=bc -unbundle "-targets=$one_target" -input=bundle.ccob -output=cone.ref
same_file cunbundle1 cone.ours cone.ref
same_file cunbundle1 cone.ours dev1.bin

if selected cunbundle1; then floor "md5 floor" "" md5sum bundle.bc; fi

first_target=${device_targets[0]} last_target=${device_targets[3]}
run_scenario cunbundleF "$runs" "cfirst.ours cfirst.ref" -- \
  "$ours" -type=bc -unbundle "-targets=$first_target" -input=bundle.ccob -output=cfirst.ours -verify-hash=false -- \
  "$reference" -type=bc -unbundle "-targets=$first_target" -input=bundle.ccob -output=cfirst.ref
same_file cunbundleF cfirst.ours cfirst.ref
same_file cunbundleF cfirst.ours dev0.bin

run_scenario cunbundleL "$runs" "clast.ours clast.ref" -- \
  "$ours" -type=bc -unbundle "-targets=$last_target" -input=bundle.ccob -output=clast.ours -verify-hash=false -- \
  "$reference" -type=bc -unbundle "-targets=$last_target" -input=bundle.ccob -output=clast.ref
same_file cunbundleL clast.ours clast.ref
same_file cunbundleL clast.ours dev3.bin

run_scenario clist "$runs" "" -- \
  "$ours" -type=bc -list -input=bundle.ccob -- \
  "$reference" -type=bc -list -input=bundle.ccob

# A heterogeneous device archive: 2,000 fat objects (host object plus two
# 256 KiB device images each, about 1 GiB in all), split for one GPU.
if selected archive; then
if ((quick)); then archive_members=100; else archive_members=2000; fi
progress "[archive] making a library of $archive_members fat objects"
printf 'int host_function(void) { return 1; }\n' > archive_host.c
"$(dirname "$reference")/clang" -c archive_host.c -o archive_host.o
head -c 262144 /dev/urandom > archive_dev0.bin
head -c 262144 /dev/urandom > archive_dev1.bin
"$reference" -type=o \
  "-targets=$host_target,${device_targets[0]},${device_targets[2]}" \
  -input=archive_host.o -input=archive_dev0.bin -input=archive_dev1.bin \
  -output=archive_fat.o
mkdir archive_members
for ((i = 0; i < archive_members; i++)); do
  cp archive_fat.o "archive_members/member$i.o"
done
(cd archive_members && ar rc ../library.a ./*.o)
rm -rf archive_members

run_scenario archive "$runs" "dev.ours.a dev.ref.a" -- \
  "$ours" -unbundle -type=a -input=library.a "-targets=${device_targets[0]}" \
  -output=dev.ours.a -allow-missing-bundles -- \
  "$reference" -unbundle -type=a -input=library.a "-targets=${device_targets[0]}" \
  -output=dev.ref.a -allow-missing-bundles
same_file archive dev.ours.a dev.ref.a
# The floor: copying a file of the output's size on the same disk.
head -c "$(stat -c %s dev.ref.a)" library.a > cp-source.a
floor "cp floor" "rm -f cp-copy.a" cp cp-source.a cp-copy.a
fi

# ---------------------------------------------------------------------------
# The offbundle tool on a real ROCm library.

tk_prune_ms="" tk_prune_rss="" tk_lib_md5_ms="" tk_lib_cp_ms="" tk_lib_unzstd_ms=""
# name -> "ours ms, floor ms, ours peak MiB, limit ratio, limit MiB" for 16
# to 19.
declare -A tk_lib
if selected tk_sizes || selected tk_list || selected tk_prune ||
  selected tk_lib_compress || selected tk_lib_decompress ||
  selected tk_tree_sizes || selected tk_tree_prune || selected tk_kernels ||
  selected tk_clib_list || selected tk_clib_sizes || selected tk_clib_verify; then
  offbundle=$(dirname "$ours")/offbundle
  deb=$(find "$repo_root/build/tests/rocm_packages" -name 'librocsparse0_*.deb' 2>/dev/null | head -1)
  if [[ -z $deb ]] && (apt-get download librocsparse0 >/dev/null 2>&1); then
    deb=$(find . -maxdepth 1 -name 'librocsparse0_*.deb' | head -1)
  fi
  if [[ -n $deb && -x $offbundle ]]; then
    progress "[toolkit] unpacking $deb"
    dpkg-deb -x "$deb" rocsparse
    library=$(find rocsparse -name 'librocsparse.so.*.*' | head -1)
    if selected tk_sizes; then absolute tk_sizes "$offbundle" sizes "$library"; fi
    if selected tk_list; then absolute tk_list "$offbundle" list "$library"; fi
    if selected tk_prune; then
      prune=("$offbundle" prune "$library" -k gfx90a:xnack- -o pruned.so)
      "${prune[@]}" >/dev/null
      head -c "$(stat -c %s pruned.so)" "$library" >tk-cp-source.so
      floor "tk cp floor" "rm -f tk-cp-copy.so" cp tk-cp-source.so tk-cp-copy.so
      progress "[tk_prune] timing ($runs runs)"
      hyperfine -N --style none --warmup 1 --runs "$runs" \
        --prepare "rm -f pruned.so" --export-json tk_prune.json \
        -n tk_prune "$(q "${prune[@]}")" >/dev/null
      tk_prune_ms=$(median_ms tk_prune.json 0)
      tk_prune_rss=$(peak_rss_mib "rm -f pruned.so" "${prune[@]}")
      rm -f pruned.so tk-cp-source.so tk-cp-copy.so
    fi
    if selected tk_kernels; then
      progress "[tk_kernels] timing ($runs runs)"
      hyperfine -N --style none --warmup 1 --runs "$runs" \
        --prepare "rm -rf tk-extracted" --export-json tk_kernels.json \
        -n ours "$(q "$offbundle" kernels "$library")" \
        -n extract "$(q "$offbundle" extract "$library" -o tk-extracted)" >/dev/null
      tk_lib[tk_kernels]="$(median_ms tk_kernels.json 0) $(median_ms tk_kernels.json 1) $(peak_rss_mib "" "$offbundle" kernels "$library") 3 400"
      rm -rf tk-extracted
    fi
    if selected tk_lib_compress || selected tk_lib_decompress ||
      selected tk_clib_list || selected tk_clib_sizes ||
      selected tk_clib_verify; then
      compress=("$offbundle" compress "$library" -o lib-compressed.so)
      "${compress[@]}" >/dev/null
      zstd -q -3 --long=27 -T2 -f "$library" -o lib.zst
    fi
    if selected tk_lib_compress; then
      progress "[tk_lib_compress] timing ($runs runs)"
      hyperfine -N --style none --warmup 1 --runs "$runs" \
        --prepare "rm -f lib-compressed.so lib.zst" \
        --export-json tk_lib_compress.json \
        -n ours "$(q "${compress[@]}")" \
        -n floor "$(q zstd -q -3 --long=27 -T2 "$library" -o lib.zst)" >/dev/null
      tk_lib[tk_lib_compress]="$(median_ms tk_lib_compress.json 0) $(median_ms tk_lib_compress.json 1) $(peak_rss_mib "rm -f lib-compressed.so" "${compress[@]}") 1.25 400"
    fi
    if selected tk_lib_decompress; then
      # The floor: writing the decompressed library (cp of a file its size)
      # and zstd decoding the same bytes on one of the two cores.
      "$offbundle" decompress lib-compressed.so -o lib-plain.so >/dev/null
      head -c "$(stat -c %s lib-plain.so)" "$library" >tk-lib-source.so
      progress "[tk_lib_decompress] timing ($runs rounds, the commands in turn)"
      # The pause after deleting the outputs lets the kernel settle what
      # it does with 1.25 GiB just freed, so that every command starts
      # from the same state, whichever ran before it.
      interleaved tk_lib_decompress.json "$runs" \
        "sh -c 'rm -f lib-plain.so tk-lib-copy.so lib.unzst; sleep 3'" \
        ours "$(q "$offbundle" decompress lib-compressed.so -o lib-plain.so)" \
        ours-no-hash "$(q "$offbundle" decompress --no-verify-hash lib-compressed.so -o lib-plain.so)" \
        cp "$(q cp tk-lib-source.so tk-lib-copy.so)" \
        zstd-d "$(q zstd -q -d lib.zst -o lib.unzst)" \
        md5sum "$(q md5sum tk-lib-source.so)"
      decompress_floor=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"]
print("%.3f" % (max(r[2]["median"], r[3]["median"] / 2) * 1000))' tk_lib_decompress.json)
      tk_lib[tk_lib_decompress]="$(median_ms tk_lib_decompress.json 0) $decompress_floor $(peak_rss_mib "rm -f lib-plain.so" "$offbundle" decompress lib-compressed.so -o lib-plain.so) 1.3 400"
      # What the hash check alone costs: MD5 of data the output's size.
      tk_lib_md5_ms=$(median_ms tk_lib_decompress.json 4)
      tk_lib_cp_ms=$(median_ms tk_lib_decompress.json 2)
      tk_lib_unzstd_ms=$(median_ms tk_lib_decompress.json 3)
      tk_lib[tk_lib_decompress_no_hash]="$(median_ms tk_lib_decompress.json 1) $decompress_floor $(peak_rss_mib "rm -f lib-plain.so" "$offbundle" decompress --no-verify-hash lib-compressed.so -o lib-plain.so) 1.3 400"
      rm -f lib-plain.so tk-lib-source.so tk-lib-copy.so lib.unzst
    fi
    for command in list sizes; do
      selected "tk_clib_$command" || continue
      versus_floor "tk_clib_$command" 50ms 64 \
        "$(q "$offbundle" "$command" "$library")" \
        "$offbundle" "$command" lib-compressed.so
    done
    if selected tk_clib_verify; then
      versus_floor tk_clib_verify 1.25 400 \
        "sh -c 'zstd -q -d -c --long=27 lib.zst | md5sum'" \
        "$offbundle" verify lib-compressed.so
    fi
    rm -f lib-compressed.so lib.zst
    if selected tk_tree_sizes || selected tk_tree_prune; then
      # An installation: the library and 20,000 small files in 200 folders.
      progress "[tk_tree] making a tree of 20,001 files"
      mkdir -p tree-src/lib
      cp "$library" tree-src/lib/
      python3 - tree-src <<'PY'
import os, sys
root = sys.argv[1]
for folder in range(200):
    path = os.path.join(root, "share", f"d{folder:03}")
    os.makedirs(path)
    for index in range(100):
        with open(os.path.join(path, f"f{index:03}.txt"), "w") as handle:
            handle.write(("line %d of a plain file\n" % index) * (1 + index % 50))
PY
    fi
    if selected tk_tree_sizes; then
      versus_floor tk_tree_sizes 2 400 \
        "sh -c 'find tree-src -type f -print0 | xargs -0 head -qc 64 >/dev/null'" \
        "$offbundle" sizes tree-src
    fi
    if selected tk_tree_prune; then
      prune_tree=("$offbundle" prune -q -k gfx90a:xnack- --in-place tree)
      progress "[tk_tree_prune] timing ($runs runs)"
      hyperfine -N --style none --warmup 1 --runs "$runs" \
        --export-json tk_tree_prune.json \
        --prepare "sh -c 'rm -rf tree tree-copy; cp -a tree-src tree; sync'" \
        -n ours "$(q "${prune_tree[@]}")" \
        -n floor "cp -a tree-src tree-copy" >/dev/null
      tk_lib[tk_tree_prune]="$(median_ms tk_tree_prune.json 0) $(median_ms tk_tree_prune.json 1) $(peak_rss_mib "sh -c 'rm -rf tree; cp -a tree-src tree; sync'" "${prune_tree[@]}") 1 128"
      rm -rf tree tree-copy
    fi
    rm -rf tree-src
    rm -rf rocsparse
  else
    echo "bench.sh: tk_sizes, tk_list, tk_prune, tk_lib_compress, tk_lib_decompress, tk_tree_sizes, tk_tree_prune, tk_kernels, tk_clib_list, tk_clib_sizes, tk_clib_verify left out: librocsparse0 could not be downloaded or $offbundle is missing" >&2
  fi
fi

# ---------------------------------------------------------------------------
# Report.

# Targets per scenario: minimum speedup, maximum peak RSS of ours in MiB
# (none = no memory target).
declare -A min_speedup max_rss
if ((image_mib == 2)); then
  for name in list bundle unbundle1 unbundleN; do min_speedup[$name]=3; done
  for name in compress cunbundle1 cunbundleF cunbundleL clist; do min_speedup[$name]=1.3; done
else
  min_speedup=([list]=30 [bundle]=3 [unbundle1]=3 [unbundleN]=3 [compress]=2
    [cunbundle1]=0.9 [cunbundleF]=4 [cunbundleL]=2 [clist]=2)
fi
min_speedup[startup]=10
min_speedup[tk_compress]=1.5
min_speedup[archive]=3
max_rss=([startup]=8 [bundle]=32 [unbundle1]=32 [unbundleN]=32)
# Relative to the bundle: at small sizes the fixed cost of zstd dominates.
if ((image_mib != 2)); then max_rss[compress]=$compress_rss_limit; fi

echo
echo "clang-offload-bundler benchmark: ${image_mib} MiB device images x 4, $runs runs" \
  "(start-up: $startup_runs), medians of wall time; peak RSS = max of 3 runs"
echo "  ours:      $ours"
echo "  reference: $reference ($("$reference" --version 2>&1 | grep -o 'version [^ ]*' | head -1))"
# Other load on the machine skews the millisecond-scale start-up numbers most;
# show it so a marginal result can be judged.
if [[ -r /proc/loadavg ]]; then
  echo "  load average at start: $load_start, at end: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
fi
echo
printf '%-10s %12s %12s %9s %10s %10s\n' scenario "ours ms" "ref ms" speedup "ours MiB" "ref MiB"
for i in "${!names[@]}"; do
  printf '%-10s %12s %12s %8.1fx %10s %10s\n' "${names[$i]}" "${ours_ms[$i]}" \
    "${ref_ms[$i]}" "${speedups[$i]}" "${ours_rss[$i]}" "${ref_rss[$i]}"
done
for i in "${!floor_names[@]}"; do
  printf '%-10s %12s\n' "${floor_names[$i]}" "${floor_ms[$i]}"
done
for i in "${!absolute_names[@]}"; do
  printf '%-10s %12s   (offbundle alone)\n' "${absolute_names[$i]}" "${absolute_ms[$i]}"
done
if [[ -n $tk_prune_ms ]]; then
  printf '%-10s %12s   (offbundle alone) %22s\n' tk_prune "$tk_prune_ms" "$tk_prune_rss"
fi
if [[ -n ${tk_lib[*]:-} ]]; then
  echo
  printf '%-26s %10s %10s %7s %9s\n' "whole library" "ours ms" "floor ms" ratio "ours MiB"
  for name in tk_lib_compress tk_lib_decompress tk_lib_decompress_no_hash tk_tree_sizes tk_tree_prune tk_kernels tk_clib_list tk_clib_sizes tk_clib_verify; do
    [[ -n ${tk_lib[$name]:-} ]] || continue
    read -r o f m _ <<<"${tk_lib[$name]}"
    printf '%-26s %10s %10s %6.2fx %9s\n' "$name" "$o" "$f" "$(awk -v o="$o" -v f="$f" 'BEGIN { print o / f }')" "$m"
  done
  if [[ -n $tk_lib_md5_ms ]]; then
    printf '%-26s %10s   (md5sum of the output, one core: what the hash check adds)\n' "md5 floor" "$tk_lib_md5_ms"
    printf '%-26s %10s   (the decompress floor is the larger of these two)\n' "cp of the output" "$tk_lib_cp_ms"
    printf '%-26s %10s   (halved in the floor: two cores)\n' "zstd -d" "$tk_lib_unzstd_ms"
  fi
fi
echo

# ms_of NAME: our median for scenario NAME, or of floor NAME.
ms_of() {
  local i
  for i in "${!names[@]}"; do [[ ${names[$i]} != "$1" ]] || { echo "${ours_ms[$i]}"; return; }; done
  for i in "${!floor_names[@]}"; do [[ ${floor_names[$i]} != "$1" ]] || { echo "${floor_ms[$i]}"; return; }; done
}

passed=0 failed=0 na=0
# verdict LABEL OK: print one target's outcome and count it.
verdict() {
  if ((quick)); then
    printf '  %-44s n/a (--quick)\n' "$1"
    na=$((na + 1))
  elif (($2)); then
    printf '  %-44s PASS\n' "$1"
    passed=$((passed + 1))
  else
    printf '  %-44s FAIL\n' "$1"
    failed=$((failed + 1))
  fi
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }' && echo 1 || echo 0; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }' && echo 1 || echo 0; }

echo "targets:"
for i in "${!names[@]}"; do
  name=${names[$i]}
  if [[ $name == archive && -n $(ms_of "cp floor") ]]; then
    # Whichever is easier: 3x LLVM 22, or within 1.25x of copying the output.
    floor_ratio=$(awk -v o="${ours_ms[$i]}" -v f="$(ms_of "cp floor")" 'BEGIN { printf "%.2f", o / f }')
    verdict "archive: $(printf %.1f "${speedups[$i]}")x >= 3x or ${floor_ratio}x cp <= 1.25x" \
      "$(($(ge "${speedups[$i]}" 3) || $(lt "$floor_ratio" 1.2501)))"
  else
    verdict "$name: speedup $(printf '%.1f' "${speedups[$i]}")x >= ${min_speedup[$name]}x" \
      "$(ge "${speedups[$i]}" "${min_speedup[$name]}")"
  fi
  if [[ -n ${max_rss[$name]:-} ]]; then
    verdict "$name: ours peak ${ours_rss[$i]} MiB < ${max_rss[$name]} MiB" \
      "$(lt "${ours_rss[$i]}" "${max_rss[$name]}")"
  fi
done
for i in "${!absolute_names[@]}"; do
  verdict "${absolute_names[$i]}: ${absolute_ms[$i]} ms < 50 ms" \
    "$(lt "${absolute_ms[$i]}" 50)"
done
if [[ -n $tk_prune_ms ]]; then
  prune_ratio=$(awk -v o="$tk_prune_ms" -v f="$(ms_of "tk cp floor")" 'BEGIN { printf "%.2f", o / f }')
  verdict "tk_prune: ${prune_ratio}x cp <= 2x" "$(lt "$prune_ratio" 2.0001)"
  verdict "tk_prune: peak $tk_prune_rss MiB <= 64 MiB" "$(lt "$tk_prune_rss" 64.0001)"
fi
for name in tk_lib_compress tk_lib_decompress tk_lib_decompress_no_hash tk_tree_sizes tk_tree_prune tk_kernels tk_clib_list tk_clib_sizes tk_clib_verify; do
  [[ -n ${tk_lib[$name]:-} ]] || continue
  read -r o f m limit rss_limit <<<"${tk_lib[$name]}"
  if [[ $limit == *ms ]]; then
    # A time of its own: the floor row is shown for comparison only.
    verdict "$name: $o ms < ${limit%ms} ms" "$(lt "$o" "${limit%ms}")"
  else
    ratio=$(awk -v o="$o" -v f="$f" 'BEGIN { printf "%.2f", o / f }')
    verdict "$name: ${ratio}x its floor <= ${limit}x" \
      "$(lt "$ratio" "$(awk -v l="$limit" 'BEGIN { print l + 0.0001 }')")"
  fi
  verdict "$name: peak $m MiB <= $rss_limit MiB" "$(lt "$m" "$rss_limit.0001")"
done
if ((mismatches)); then
  echo "  outputs identical to the reference              FAIL ($mismatches mismatches)"
else
  echo "  outputs identical to the reference              PASS"
fi
echo

if ((quick)); then
  summary="quick mode: $na targets not applicable"
else
  summary="$passed passed, $failed failed"
fi
if ((mismatches)); then
  echo "SUMMARY: FAIL - outputs differ from the reference ($mismatches); $summary"
  exit 1
elif ((failed)); then
  echo "SUMMARY: FAIL - $summary; outputs identical"
  exit 1
else
  echo "SUMMARY: OK - $summary; outputs identical"
fi
