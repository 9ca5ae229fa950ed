#!/usr/bin/env bash
# Draws bench/scaling.png from bench/scaling.py's CSV: lagc's time, g++ -O2's time and the
# operations in the generated file against the generic arm's joints, on log scales.
# Usage: bash bench/plot_scaling.sh [LAGC]   (builds lagc into build-bench when not given;
# needs gnuplot: apt-get install gnuplot-nox). SCALING_CSV=FILE draws an earlier run's CSV
# (scaling.py --csv FILE) instead of running it again.
set -euo pipefail
cd "$(dirname "$0")/.."
lagc=${1:-}
csv=${SCALING_CSV:-}
if [ -z "$lagc" ] && [ -z "$csv" ]; then
  cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
  cmake --build build-bench --target lagc -j "$(nproc)" >/dev/null
  lagc=build-bench/lagc
fi
if [ -z "$csv" ]; then
  csv=$(mktemp)
  python3 bench/scaling.py "$lagc" "${BENCH_WORK:-/tmp/lagc-bench}/scaling" --csv "$csv"
fi
gnuplot <<GP
set terminal png size 900,600 font ",11"
set output "bench/scaling.png"
set datafile separator ","
set logscale xy
set grid
set key top left
set xlabel "joints n (generic 3-D arm, full inertia tensors)"
set ylabel "seconds"
set y2label "operations in the generated file"
set y2tics
set logscale y2
set title "lagc on longer arms, default limits"
plot "$csv" skip 1 using 1:2 with linespoints lw 2 title "lagc, whole run [s]", \
     "$csv" skip 1 using 1:5 with linespoints lw 2 title "g++ -O2 [s]", \
     "$csv" skip 1 using 1:4 axes x1y2 with linespoints lw 2 title "operations in the file"
GP
rm -f "$csv"
echo "wrote bench/scaling.png"
