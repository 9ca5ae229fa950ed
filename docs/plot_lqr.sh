#!/usr/bin/env bash
# Regenerates docs/lqr-cart-pendulum.png: the LQR example's closed loop (examples/
# lqr_cart_pendulum), cart position x(t), tilt theta(t) - pi and force F(t) from a 0.3 rad tilt.
# Usage: bash docs/plot_lqr.sh [BUILD_DIR]   (needs gnuplot: apt-get install gnuplot-nox)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
csv=$(mktemp)
"$build/tests/lqr_cart_pendulum" "$csv" >/dev/null
gnuplot <<GP
set terminal png size 900,600 font ",11"
set output "docs/lqr-cart-pendulum.png"
set datafile separator ","
set multiplot layout 2,1 title "Cart-pendulum balanced upright by LQR on lagc's exact linearization (RK4, dt = 10 ms)"
set grid
set xlabel "t [s]"
set ylabel "x [m], theta - pi [rad]"
set key top right
plot "$csv" skip 1 using 1:2 with lines lw 2 title "cart position x", \
     "$csv" skip 1 using 1:3 with lines lw 2 title "tilt theta - pi"
set ylabel "F [N]"
plot "$csv" skip 1 using 1:4 with lines lw 2 lc rgb "#8b0000" title "force on the cart F = -K (x - x*)"
unset multiplot
GP
rm -f "$csv"
echo "wrote docs/lqr-cart-pendulum.png"
