#!/usr/bin/env bash
# engine-time.sh BUILD [OUTDIR]: the figures of docs/performance.md "Closed
# loop: where a step's time goes": BUILD/engine-time (scripts/engine_time.c)
# on the papers' closed-loop scenes at moderate sizes, one after the other
# under nice (a shared machine: compare the ratios, each within its run).
# Each scene's per-step table goes to OUTDIR/SCENE.txt (default
# engine-time/), its summary line to stdout. ITERS (default 30) sets the
# PGS iterations the engine is compared with. BEFORE=/path/to/engine-time
# (an older build's) adds the before/after pairs of the scenes a change of
# the engine touched, the two binaries alternating (A B A B), to
# OUTDIR/before-after.txt.
set -euo pipefail
build=${1:?usage: engine-time.sh BUILD [OUTDIR]}
out=${2:-engine-time}
et=$build/engine-time
[ -x "$et" ] || { echo "engine-time.sh: $et missing (cmake --build $build --target engine-time)" >&2; exit 1; }
mkdir -p "$out"
run() { # NAME SCENE OPTIONS...
  local name=$1; shift
  nice "$et" --iters "${ITERS:-30}" "$@" >"$out/$name.txt"
  grep "median ms/step" "$out/$name.txt"
}
run stir stir --spheres 216 --steps 40
run cable cable --segments 640 --steps 20
run beam beam --steps 40
run bolt-nut-assembly bolt-nut-assembly --steps 48
run dish-piling dish-piling --steps 120
run quadrupeds-8 quadrupeds --robots 8 --steps 240
run quadrupeds-27 quadrupeds --robots 27 --steps 240
run pouring pouring --particles 45 --steps 60
run wall-1000 wall --bricks 1000 --steps 5
run wall-2000 wall --bricks 2000 --steps 3
run wall-8000 wall --bricks 8000 --steps 2
if [ -n "${BEFORE:-}" ]; then
  : >"$out/before-after.txt"
  for args in "bolt-nut-assembly --steps 48"; do
    for rep in 1 2; do
      for bin in "$BEFORE" "$et"; do
        # shellcheck disable=SC2086
        echo "$([ "$bin" = "$et" ] && echo after || echo before) $(nice "$bin" --iters "${ITERS:-30}" $args | grep "median ms/step" | tr "\n" " ")" |
          tee -a "$out/before-after.txt"
      done
    done
  done
fi
