#!/usr/bin/env bash
# Regenerates docs/constraint-drift.png: the Cartesian pendulum's constraint residual
# |c(t)| over 20 s of RK4, with and without Baumgarte stabilisation.
# Usage: bash docs/plot_drift.sh [BUILD_DIR]   (needs gnuplot: apt-get install gnuplot-nox)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
csv=$(mktemp)
LAGC_DRIFT_CSV=$csv "$build/tests/test_constrained" --gtest_filter='Baumgarte.CartesianPendulumDrift*' >/dev/null
gnuplot <<GP
set terminal png size 900,500 font ",11"
set output "docs/constraint-drift.png"
set datafile separator ","
set logscale y
set format y "10^{%L}"
set xlabel "t [s]"
set ylabel "|c(t)| = |(x^2 + y^2 - l^2)/2|  [m^2]"
set title "Cartesian pendulum, RK4 with dt = 1e-3: constraint drift"
set key top left
set grid
plot "$csv" skip 1 using 1:3 with lines lw 2 title "no stabilisation (alpha = beta = 0)", \
     "$csv" skip 1 using 1:(\$2 > 0 ? \$2 : 1e-18) with lines lw 2 title "Baumgarte, alpha = beta = 10"
GP
rm -f "$csv"
echo "wrote docs/constraint-drift.png"
