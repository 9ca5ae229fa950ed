#!/usr/bin/env bash
# The benchmark, one command: bash bench/run.sh [--sizes 1,2,3] [--timeout 300]
# Builds lagc, installs what it needs (Google Benchmark, valgrind, SymPy, MuJoCo, numpy, Cython)
# from Debian, runs lagc and SymPy side by side and prints a markdown table (progress on
# stderr), then the exact linearization against finite differences (bench/linearization.py),
# then lagc against MuJoCo on 3-D arms with full inertia (bench/arms3d.py; ARMS_SIZES=3,4,...
# to choose), then the robot files, issue 48's targets (bench/targets.py; TARGET_SIZES), and
# how lagc's work grows with the arm (bench/scaling.py; SCALING_SIZES), then the Python package (bench/python_overhead.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/deps
need=()
# python3-numpy, cython3 and python3-dev: the Python package's bench and SymPy's autowrap
# (Cython) beside it; benchmark-only, never lagc's dependencies.
for p in libbenchmark-dev valgrind python3-sympy time libmujoco-dev python3-numpy cython3 python3-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" ||
    echo "bench: could not install ${need[*]}" >&2
fi
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build build-bench --target lagc -j "$(nproc)" >/dev/null
# Debian's python3 has python3-sympy; without SymPy the SymPy columns are skipped.
PY=/usr/bin/python3
extra=()
if ! "$PY" -c "import sympy" 2>/dev/null; then
  echo "bench: SymPy is not available (python3-sympy could not be installed); skipping the SymPy columns" >&2
  extra+=(--no-sympy)
fi
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" >&2
"$PY" bench/bench.py build-bench/lagc "${BENCH_WORK:-/tmp/lagc-bench}" "${extra[@]}" "$@"
echo
echo "Exact linearization against finite differences (callgrind instructions per call):"
echo
"$PY" bench/linearization.py build-bench/lagc "${BENCH_WORK:-/tmp/lagc-bench}/linearization"
echo
echo "project_state on the models with constraints (callgrind instructions per call):"
echo
echo "Exact Jacobians of the RK4 step against finite differences of it (bench/step_jacobian.py):"
echo
"$PY" bench/step_jacobian.py build-bench/lagc "${BENCH_WORK:-/tmp/lagc-bench}/step_jacobian"
echo
echo "The implicit step, its exact Jacobian and a dual-number derivative (bench/radau_jacobian.py):"
echo
"$PY" bench/radau_jacobian.py build-bench/lagc "${BENCH_WORK:-/tmp/lagc-bench}/radau_jacobian"
echo
"$PY" bench/project_state.py build-bench/lagc "${BENCH_WORK:-/tmp/lagc-bench}/project_state"
echo
echo "Orientation forms: quaternion against rotation matrix, free body and tethered kite (bench/orientation_forms.py):"
echo
"$PY" bench/orientation_forms.py build-bench/lagc "${BENCH_WORK:-/tmp/lagc-bench}/orientation_forms"
echo
echo "3-D arms with full inertia against MuJoCo (bench/arms3d.py):"
echo
if [ -f /usr/include/mujoco/mujoco.h ]; then
  "$PY" bench/arms3d.py build-bench/lagc "${BENCH_WORK:-/tmp/lagc-bench}/arms3d" --sizes "${ARMS_SIZES:-3,4,5,6,7,8,9,10,11,12}"
  echo
  echo "Robot files (tests/robots/) read by lagc, against MuJoCo loading the same files (bench/robots.py):"
  echo
  "$PY" bench/robots.py build-bench/lagc "${BENCH_WORK:-/tmp/lagc-bench}/robots"
  echo
  echo "Issue 48's targets on the generic arms, instructions per call (bench/targets.py):"
  echo
  "$PY" bench/targets.py build-bench/lagc "${BENCH_WORK:-/tmp/lagc-bench}/targets" --sizes "${TARGET_SIZES:-6,10,20,30}"
else
  echo "bench: MuJoCo (libmujoco-dev) is not available; skipping the 3-D arms and the robot files" >&2
fi
echo
echo "Longer arms: lagc's time, memory, the file's operations and g++'s time against n (bench/scaling.py):"
echo
"$PY" bench/scaling.py build-bench/lagc "${BENCH_WORK:-/tmp/lagc-bench}/scaling" --sizes "${SCALING_SIZES:-3,4,5,6,8,10,12,13,14,16,18,20}"
echo
echo "The Python package (import lagc) against C++, SymPy's lambdify and autowrap (bench/python_overhead.py):"
echo
LAGC_EXECUTABLE=build-bench/lagc LAGC_CACHE_DIR="${BENCH_WORK:-/tmp/lagc-bench}/python_cache" "$PY" bench/python_overhead.py
