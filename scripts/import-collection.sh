#!/usr/bin/env bash
# import-collection.sh [MCBENCH] [N]: N small local FCLIB files (default
# 500, from a 2x2x2 stack) imported in one 'mcbench import fclib' command
# against N commands of one file each; prints both wall times (docs/formats.md).
set -euo pipefail
mcb=${1:-build/mcbench}
n=${2:-500}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"$mcb" gen stack --nx 2 --ny 2 --nz 2 --steps "$n" -o "$d/s.h5" >/dev/null
"$mcb" export fclib "$d/s.h5" --all --form local -o "$d/fx" >/dev/null
t0=$(date +%s.%N)
"$mcb" import fclib "$d"/fx/*.hdf5 -o "$d/all.h5" >/dev/null 2>&1
t1=$(date +%s.%N)
for f in "$d"/fx/*.hdf5; do "$mcb" import fclib "$f" -o "$d/one.h5" >/dev/null 2>&1; rm -f "$d/one.h5"; done
t2=$(date +%s.%N)
echo "$n files: one command $(echo "$t1 - $t0" | bc) s; one by one $(echo "$t2 - $t1" | bc) s"
