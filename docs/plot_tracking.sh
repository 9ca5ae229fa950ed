#!/usr/bin/env bash
# Regenerates docs/task-space-tracking.png: the planar arm's tip following a circle under
# resolved-acceleration control (examples/task_space_tracking), path and error.
# Usage: bash docs/plot_tracking.sh [BUILD_DIR]   (needs gnuplot: apt-get install gnuplot-nox)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
csv=$(mktemp)
"$build/tests/task_space_tracking" "$csv" >/dev/null
gnuplot <<GP
set terminal png size 1000,450 font ",11"
set output "docs/task-space-tracking.png"
set datafile separator ","
set multiplot layout 1,2 title "Planar arm: tip on a circle by resolved-acceleration control (J, drift, inverse dynamics from lagc; RK4, dt = 1 ms)"
set grid
set size ratio -1
set xlabel "x [m]"
set ylabel "y [m]"
set key top left
plot "$csv" skip 1 using 4:5 with lines lw 6 lc rgb "#cccccc" title "wanted circle", \
     "$csv" skip 1 using 2:3 with lines lw 2 lc rgb "#00008b" title "tip, from an offset start"
set size noratio
set logscale y
set format y "10^{%L}"
set xlabel "t [s]"
set ylabel "|tip - wanted| [m]"
unset key
plot "$csv" skip 1 using 1:6 with lines lw 2 lc rgb "#8b0000"
unset multiplot
GP
rm -f "$csv"
echo "wrote docs/task-space-tracking.png"
