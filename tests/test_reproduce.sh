#!/usr/bin/env bash
# test_reproduce.sh: `mcbench reproduce` end to end. Every shipped spec
# reads (--list); usage errors exit 2 with their reason; a malformed spec
# exits 2 naming its file, line and field; a tiny replay spec runs, writes
# its Markdown, CSV and HTML with published | measured | ratio | verdict and
# the expected verdicts (iterations are exact: reproduced against the
# published count, not reproduced against a wrong one; a time against its
# reference row is a ratio, never a raw time); a second invocation keeps
# the complete campaigns, a changed budget or another build reruns them; an interrupted
# campaign (only its journal) is resumed; --dry-run runs nothing; and, with
# MCB_REPRODUCE_ALL=1 (the ctest `reproduce_quick`), `--all --quick` runs
# every shipped spec's quick variant and writes reproduction.md.
set -u
mcb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
run() { # name command...: must exit 0
  local name=$1; shift
  if "$@" >"$d/out" 2>"$d/err"; then ok; else bad "$name: exit $?"; cat "$d/err"; fi
}
fails() { # name code pattern command...: must exit code saying pattern
  local name=$1 code=$2 pat=$3; shift 3
  "$@" >"$d/out" 2>"$d/err"
  local rc=$?
  if [ $rc -eq "$code" ] && grep -q -- "$pat" "$d/err"; then ok
  else bad "$name: exit $rc, wanted $code and '$pat':"; cat "$d/err"; fi
}
has() { # name file pattern: the file holds the pattern
  if grep -q -- "$3" "$2"; then ok; else bad "$1: no '$3' in $2"; fi
}

if [ "${MCB_REPRODUCE_ALL:-0}" = 1 ]; then
  # every shipped spec, quick (seconds each)
  # the FCLIB files beside the repository (../shared/fclib) when present:
  # without them fclib-profiles is skipped
  fc=$(cd "$(dirname "$0")/../.." && pwd)/shared/fclib
  F=() want=1
  if ls "$fc"/*.hdf5 >/dev/null 2>&1; then F=(--fclib "$fc"); want=0; fi
  run all-quick "$mcb" reproduce --all --quick "${F[@]}" -o "$d/all"
  [ -s "$d/all/reproduction.md" ] && ok || bad "all-quick: no reproduction.md"
  has all-index "$d/all/index.html" "href='subadmm-table1/subadmm-table1.html'"
  n=$("$mcb" reproduce --list | tail -n +2 | wc -l)
  m=$(ls "$d"/all/*/*.md 2>/dev/null | wc -l)
  [ "$m" -eq $((n - want)) ] && ok || bad "all-quick: $m item pages for $n specs"
  has all-summary "$d/all/reproduction.md" "subadmm-table1](#subadmm-table1) | subadmm, Table I |"
  for f in "$d"/all/*/*.md; do has "item $f" "$f" "| published | measured | ratio | verdict |"; done
  echo "reproduce --all --quick: $pass passed, $fail failed"
  [ $fail -eq 0 ]
  exit
fi

# every shipped spec reads
run list "$mcb" reproduce --list
for s in subadmm-table1 canal-table2 tasora-table1 rpisim-fig9b; do has "list $s" "$d/out" "^$s "; done

# usage errors
fails none 2 "needs NAME" "$mcb" reproduce
fails all-name 2 "takes no NAME" "$mcb" reproduce --all subadmm-table1
fails doc 2 "needs --all" "$mcb" reproduce subadmm-table1 --doc x.md
fails unknown 2 "nope" "$mcb" reproduce nope -o "$d/u"

# a tiny spec of our own
mkdir -p "$d/xp"
cat >"$d/xp/tiny.yaml" <<'EOF'
name: tiny
title: "A tiny table for the tests"
source: {paper: none, citation: "mcbench tests", item: "Table T", where: "none"}
kind: table
protocol: replay
problems:
  - {id: stack, scene: stack, args: "--nx 2 --ny 2 --nz 2 --steps 2"}
solvers:
  - {id: pgs, solver: pgs}
  - {id: pj, solver: pj}
budget: {iters: 40, tol: 0, time_s: 20}
layout:
  columns:
    - {id: t, label: "time", problems: stack, quantity: time_ms, unit: ms}
    - {id: it, label: "iterations", problems: stack, quantity: iterations, unit: iterations}
    - {id: most, label: "at most", problems: stack, quantity: iterations, unit: iterations, band: {bound: upper}}
  rows:
    - {id: pgs, solver: pgs, published: [2.0, 40, 50]}
    - {id: pj, solver: pj, ref: pgs, published: [1.0, 400, 20]}
notes:
  - difference: "pj needs 10x fewer iterations in the paper"
    reason: "a made-up paper"
    experiment: "none"
    tested: false
EOF
export MCB_EXPERIMENTS_DIR="$d/xp"
run tiny "$mcb" reproduce tiny -o "$d/r"
md="$d/r/tiny/tiny.md"
for f in tiny.md tiny.csv tiny.html; do [ -s "$d/r/tiny/$f" ] && ok || bad "tiny: no $f"; done
has tiny-head "$md" "| published | measured | ratio | verdict |"
has tiny-it "$md" "| pgs | iterations | 40 iterations | 40 iterations | 1 | reproduced |"
has tiny-it-bad "$md" "| pj | iterations | 400 iterations | 40 iterations | 0.1 | not reproduced |"
has tiny-ref "$md" "| pgs | time | .* | reference |"
# a bound: 40 iterations are at most 50 (reproduced), not at most 20
has tiny-upper "$md" "| pgs | at most | 50 iterations | 40 iterations | .* | reproduced |"
has tiny-upper-bad "$md" "| pj | at most | 20 iterations | 40 iterations | .* | not reproduced |"
has tiny-note "$md" "conjecture"
# a time is compared as a ratio to its reference row, against the paper's (0.5x)
has tiny-ratio "$md" "| pj | time | 1 ms | .* ms | .*x vs 0.5x) | .*reproduced |"
has tiny-csv "$d/r/tiny/tiny.csv" "verdict"
# kept when complete
run tiny-again "$mcb" reproduce tiny -o "$d/r"
has tiny-kept "$d/err" "kept"
# the same campaigns are found by another spelling of DIR
(cd "$d" && "$mcb" reproduce tiny -o ./r >"$d/out" 2>"$d/err") && ok || bad "tiny-relative: exit $?"
[ "$(grep -c kept "$d/err")" -eq 2 ] && ok || bad "tiny-relative: the campaigns were not found again"
# another item measuring the same things shares the campaigns
sed 's/^name: tiny/name: twin/' "$d/xp/tiny.yaml" >"$d/xp/twin.yaml"
run twin "$mcb" reproduce twin -o "$d/r"
[ "$(grep -c kept "$d/err")" -eq 2 ] && ok || bad "twin: the campaigns were not shared"
[ -s "$d/r/twin/twin.md" ] && ok || bad "twin: no item"
rm "$d/xp/twin.yaml"
# a changed budget reruns
sed -i 's/iters: 40/iters: 30/' "$d/xp/tiny.yaml"
run tiny-changed "$mcb" reproduce tiny -o "$d/r"
grep -q "kept" "$d/err" && bad "tiny-changed: kept an outdated campaign" || ok
has tiny-30 "$md" "| pgs | iterations | 40 iterations | 30 iterations | 0.75 | reproduced |"
# another build (an executable that differs) never keeps this build's
# problems and campaigns, and keeps its own
cp "$mcb" "$d/mcbench-other" && printf 'x' >>"$d/mcbench-other"
np=$(ls "$d"/r/problems/*.h5 | wc -l)
run tiny-other-build "$d/mcbench-other" reproduce tiny -o "$d/r"
grep -q "kept" "$d/err" && bad "tiny-other-build: kept another build's campaign" || ok
[ "$(ls "$d"/r/problems/*.h5 | wc -l)" -eq $((np + 1)) ] && ok ||
  bad "tiny-other-build: reused another build's problem file"
run tiny-other-again "$d/mcbench-other" reproduce tiny -o "$d/r"
[ "$(grep -c kept "$d/err")" -eq 2 ] && ok || bad "tiny-other-again: its own campaigns were not kept"
rm -f "$d/mcbench-other"
# interrupted: SIGINT leaves the campaign's journal; the next invocation
# resumes it (pj runs each of the 2 problems 2 s, to its time limit)
sed -e 's/^name: tiny/name: slow/' -e 's/budget: {iters: 30, tol: 0, time_s: 20}/budget: {iters: 100000000, tol: 0, time_s: 2}/' \
  "$d/xp/tiny.yaml" >"$d/xp/slow.yaml"
set -m
"$mcb" reproduce slow -o "$d/r" >/dev/null 2>&1 &
pid=$!
# pgs ends early (stalled), pj runs on: the second campaign's journal
jn() { ls "$d"/r/campaigns/*.h5.journal 2>/dev/null | head -1; }
for _ in $(seq 100); do [ -n "$(jn)" ] && [ -e "$d/r/slow/runs/stack/pgs.h5" ] && break; sleep 0.1; done
sleep 1
kill -s INT -- "-$pid"   # the job's process group: the command and its campaign
wait "$pid"
set +m
j=$(jn)
[ -n "$j" ] && ok || bad "slow: no journal left after SIGINT"
run slow-resume "$mcb" reproduce slow -o "$d/r"
has slow-resumed "${j%.h5.journal}.log" "resuming"
[ -s "$d/r/slow/runs/stack/pj.h5" ] && ok || bad "slow-resume: no results after the resume"
run tiny-dry "$mcb" reproduce tiny -o "$d/r" --dry-run
has tiny-dry-cmd "$d/out" "mcbench run .* --solvers pgs"
# a closed-loop group's randomised instances: simulate's --instances, and
# quick_instances under --quick
cat >"$d/xp/inst.yaml" <<'EOF'
name: inst
title: "instances"
source: {paper: none, item: x}
kind: table
protocol: closed-loop
problems:
  - {id: q, scene: quadrupeds, args: "--steps 3", quick: "--steps 2", instances: 20, quick_instances: 2}
solvers: [{id: p, solver: pgs}]
budget: {iters: 10}
layout:
  columns: [{id: c, problems: q, quantity: engine_ms, unit: ms}]
  rows: [{id: r, solver: p, published: [3]}]
EOF
run inst-dry "$mcb" reproduce "$d/xp/inst.yaml" -o "$d/r" --dry-run
has inst-dry-cmd "$d/out" "mcbench simulate quadrupeds --steps 3 --instances 20 --solvers pgs"
run inst-dry-quick "$mcb" reproduce "$d/xp/inst.yaml" -o "$d/r" --dry-run --quick
has inst-dry-quick-cmd "$d/out" "simulate quadrupeds --steps 2 --instances 2 "
# --instances K caps the repetitions (never raises them); the page names it
run inst-cap "$mcb" reproduce "$d/xp/inst.yaml" -o "$d/r" --dry-run --instances 3
has inst-cap-cmd "$d/out" "simulate quadrupeds --steps 3 --instances 3 "
run inst-nocap "$mcb" reproduce "$d/xp/inst.yaml" -o "$d/r" --dry-run --instances 50
has inst-nocap-cmd "$d/out" "simulate quadrupeds --steps 3 --instances 20 "
run inst-one "$mcb" reproduce "$d/xp/inst.yaml" -o "$d/r1" --instances 1
has inst-one-page "$d/r1/inst/inst.md" "mcbench reproduce inst --instances 1"
# a performance profile (iterations to 1e-6): both solvers solve both
# problems, so each curve ends at 1; on each problem one of the two is the
# best, so their fractions at tau = 1 add up to at least 1
cat >"$d/xp/prof.yaml" <<'EOF'
name: prof
title: "A profile for the tests"
source: {paper: none, item: "Fig. T"}
kind: figure
protocol: replay
problems:
  - {id: stack, scene: stack, args: "--nx 2 --ny 2 --nz 2 --steps 2"}
solvers:
  - {id: pgs, solver: pgs}
  - {id: pj, solver: pj}
budget: {iters: 20000, tol: 1.0e-6, time_s: 20, check_every: 1}
figure:
  x: {axis: profile, label: "tau", log: true}
  y: {quantity: iterations, label: "fraction"}
  series:
    - {id: pgs, solver: pgs, problems: [stack]}
    - {id: pj, solver: pj, problems: [stack]}
claims:
  - {id: pgs-all, series: pgs, quantity: y_final, unit: fraction, published: 1, band: {abs: 0.001}}
  - {id: pj-all, series: pj, quantity: y_final, unit: fraction, published: 1, band: {abs: 0.001}}
  - {id: pgs-best, series: pgs, quantity: "y_at:1", unit: fraction}
  - {id: pj-best, series: pj, quantity: "y_at:1", unit: fraction}
EOF
run prof "$mcb" reproduce prof -o "$d/r"
pm="$d/r/prof/prof.md"
has prof-pgs "$pm" "| pgs-all | pgs | 1 fraction | 1 fraction | .* | reproduced |"
has prof-pj "$pm" "| pj-all | pj | 1 fraction | 1 fraction | .* | reproduced |"
b=$(awk -F'|' '$2 ~ /-best/ { gsub(/[^0-9.]/, "", $5); s += $5 } END { print (s >= 1) }' "$pm")
[ "$b" = 1 ] && ok || bad "prof: the fractions at tau = 1 add up to less than 1"
rm "$d/xp/prof.yaml"
# a `needs: gpu` entry (docs/reproduction.md, "needs"): where the device
# query finds no GPU, its cells say why and hold no number, and the rest of
# the table is the table without it; with a stand-in for the device
# (MCB_REPRODUCE_GPU_STANDIN=ccp-jacobi) the column is filled and both of
# its ratios computed
nogpu=0
"$mcb" gpu 2>/dev/null | grep -q "^device: none" && nogpu=1
cat >"$d/xp/cpu.yaml" <<'EOF'
name: cpu
title: "A GPU column for the tests"
source: {paper: none, item: "Table G"}
kind: table
protocol: replay
problems:
  - {id: stack, scene: stack, args: "--nx 2 --ny 2 --nz 2 --steps 2"}
solvers:
  - {id: serial, solver: ccp-jacobi, budget: {threads: 1}}
  - {id: cores, solver: ccp-jacobi, budget: {threads: 2}}
budget: {iters: 20, tol: 0, time_s: 20, law: ccp, check_every: never}
layout:
  columns:
    - {id: serial, solver: serial, quantity: time_ms, unit: ms}
    - {id: cores, solver: cores, quantity: time_ms, unit: ms, ref: serial}
  rows:
    - {id: stack, problems: stack, published: [430, 60]}
EOF
sed -e 's/^name: cpu/name: gpu/' \
    -e 's/^budget:/  - {id: gpu, solver: ccp-jacobi-gpu, needs: gpu}\nbudget:/' \
    -e 's/^  rows:/    - {id: gpu, solver: gpu, quantity: time_ms, unit: ms, ref: serial}\n    - {id: gpu-cores, solver: gpu, quantity: time_ms, unit: ms, ref: cores}\n  rows:/' \
    -e 's/published: \[430, 60\]/published: [430, 60, 60, ~]/' "$d/xp/cpu.yaml" >"$d/xp/gpu.yaml"
run gpu-cpu "$mcb" reproduce cpu -o "$d/r"
gm="$d/r/gpu/gpu.md"
if [ $nogpu = 1 ]; then
  run gpu-none "$mcb" reproduce gpu -o "$d/r"
  has gpu-none-said "$d/err" "gpu: stack x gpu: skipped: no GPU: "
  has gpu-none-cell "$gm" "| stack | gpu | 60 ms | not run (no GPU: [^|]*) |  | not run |"
  has gpu-none-cores "$gm" "| stack | gpu-cores |  | not run (no GPU: [^|]*) |  | not run |"
  has gpu-none-machine "$gm" "^Machine: CPU .*; no GPU\.$"
  n=$(awk -F'|' '$3 ~ /^ gpu(-cores)? $/ && $5 !~ /^ not run \(no GPU: /' "$gm" | wc -l)
  [ "$n" -eq 0 ] && ok || bad "gpu-none: $n GPU cells with a measurement"
  # the rest of the table: the CPU cells are those of the table without the GPU
  for c in serial cores; do
    line=$(grep -F "| stack | $c |" "$d/r/cpu/cpu.md")
    [ -n "$line" ] && grep -qxF -- "$line" "$gm" && ok || bad "gpu-none: the $c cell differs: $line"
  done
  # tasora-table1's quick variant: the GPU column says why, the CPU columns are measured
  tm="$d/r/tasora-table1/tasora-table1.md"
  run tasora-quick "$mcb" reproduce "$(dirname "$0")/../experiments/tasora-table1.yaml" -o "$d/r" --quick
  has tasora-gpu "$tm" "| wall-1000 | GPU (ms per step) | 60 ms | not run (no GPU: [^|]*) |  | not run |"
  has tasora-serial "$tm" "| wall-1000 | serial (ms per step) | 430 ms | [0-9.e+-]* ms |  | reference |"
  has tasora-parallel "$tm" "| wall-1000 | parallel (ms per step) | 60 ms | [0-9.e+-]* ms | .*x vs 0.14x) | .*reproduced |"
  has tasora-machine "$tm" "^Machine: CPU .*; no GPU\.$"
fi
MCB_REPRODUCE_GPU_STANDIN=ccp-jacobi run gpu-standin "$mcb" reproduce gpu -o "$d/r"
has gpu-standin-cell "$gm" "| stack | gpu | 60 ms | [0-9.e+-]* ms | .* (.*x vs 0.14x) | .*reproduced |"
has gpu-standin-cores "$gm" "| stack | gpu-cores |  | [0-9.e+-]* ms | ([0-9.e+-]*x, not published) | not compared |"
has gpu-standin-machine "$gm" "^Machine: CPU .*; GPU stand-in: ccp-jacobi (MCB_REPRODUCE_GPU_STANDIN)\.$"
if [ $nogpu = 1 ]; then # the stand-in's campaign is not the device's: not run again
  run gpu-none-again "$mcb" reproduce gpu -o "$d/r"
  has gpu-none-again-cell "$gm" "| stack | gpu | 60 ms | not run (no GPU: [^|]*) |"
fi
rm "$d/xp/cpu.yaml" "$d/xp/gpu.yaml"
# a malformed spec: file, line and field
cat >"$d/xp/broken.yaml" <<'EOF'
name: broken
title: "broken"
source: {paper: none, citation: "x", item: "x", where: "x"}
kind: table
protocol: replay
problems:
  - {id: stack, scene: stack, args: "--nx 2"}
solvers:
  - {id: pgs, solver: pgs, budget: {iters: ten}}
EOF
fails broken 2 "broken.yaml:9: solvers\[0\].budget.iters" "$mcb" reproduce broken -o "$d/b"
[ -e "$d/b/broken" ] && bad "broken: output made for a malformed spec" || ok

echo "reproduce: $pass passed, $fail failed"
[ $fail -eq 0 ]
