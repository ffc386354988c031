#!/usr/bin/env bash
# scene-stats.sh FILE.h5: the descriptors docs/scenes.md tabulates for a
# recorded scene: problems, DOF, subsystems, contacts / bilateral / soft
# blocks per step (min / median / max, from `mcbench info`), and the
# recorded cond(J A^-1 J^T) estimate and largest mass ratio (min / median /
# max, HDF5 attributes read with h5dump). MCBENCH names the binary (default:
# mcbench on PATH, else ./build/mcbench).
set -euo pipefail
f=${1:?usage: scene-stats.sh FILE.h5}
mcb=${MCBENCH:-$(command -v mcbench || echo ./build/mcbench)}
stats() { sort -g | awk '{v[NR] = $1} END {if (NR) printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR]; else printf "-"}'; }
info=$("$mcb" info "$f" | tail -n +2)
col() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}' <<<"$info"; }
attr() {
  h5dump -A "$f" 2>/dev/null | awk -v a="$1" '
    $1 == "ATTRIBUTE" && $2 == "\"" a "\"" {want = 1}
    want && $1 == "(0):" {print $2; want = 0}'
}
echo "file: $f ($(wc -l <<<"$info") problems)"
echo "DOF: $(col n | stats)"
echo "subsystems: $(col subsystems | stats)"
echo "contacts: $(col contacts | stats)"
echo "bilateral blocks: $(col bilateral | stats)"
echo "soft blocks: $(col soft | stats)"
echo "cond_est: $(attr cond_est | grep -v -i nan | stats)"
echo "mass_ratio: $(attr mass_ratio | stats)"
