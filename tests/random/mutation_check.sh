#!/usr/bin/env bash
# Mutation check for the random-model tests (docs/testing.md; not part of ctest): in a
# scratch copy of the source tree, break lagc on purpose — a derivative rule in
# src/builtins.cpp, a term of src/derive/regressor.cpp — build that lagc, and show that
# tests/random/run.py fails on it while it passes on the unbroken copy.
#   bash tests/random/mutation_check.sh [SEED] [COUNT]      (about 10 min on 2 cores)
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
M=${MUTANT_DIR:-/tmp/mutant}
SEED=${1:-1}
COUNT=${2:-12}
RUN="python3 $SRC/tests/random/run.py --lagc $M/build/lagc --work $M/work --seed $SEED --count $COUNT --robots 0 --no-regressions --jobs 2"

mkdir -p "$M"
# The source without build directories; the mutant's own build directory is kept between
# runs so that only the mutated file recompiles.
tar -C "$SRC" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$M" -xf -
cmake -S "$M" -B "$M/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF > "$M/cmake.log" || exit 2

build_and_run() {   # name: build the mutant's lagc, run the slice, print its verdict
    cmake --build "$M/build" --target lagc -j 2 > "$M/build.log" 2>&1 || { echo "$1: build failed"; tail "$M/build.log"; exit 2; }
    $RUN > "$M/$1.log" 2>&1
    local rc=$?
    echo "$1: runner exit $rc; failing checks:" \
        "$(grep -o '^fault .*: .*' "$M/$1.log" | sed 's/.*): //' | tr ', ' '\n\n' | grep . | sort | uniq -c | tr '\n' ';')"
    return $rc
}

mutate() {   # name file sed-script: apply to a fresh copy of the file, run, restore
    cp "$SRC/$2" "$M/$2"
    sed -i "$3" "$M/$2"
    if cmp -s "$SRC/$2" "$M/$2"; then echo "$1: the mutation did not apply to $2"; exit 2; fi
    build_and_run "$1"
    local rc=$?
    cp "$SRC/$2" "$M/$2"
    [ $rc -eq 1 ] && echo "$1: CAUGHT" || { echo "$1: NOT CAUGHT"; status=1; }
}

status=0
build_and_run baseline || { echo "baseline: the unbroken lagc fails the slice (see $M/baseline.log)"; status=1; }
# sin' = -cos, in both of its rows (the expression graph's and d/dt's).
mutate sin_derivative src/builtins.cpp \
    '/cmath("sin", 1/,/cmath("cos", 1/ { s/{{g.call("cos", c.a), false}})/{{g.call("cos", c.a), false}}, true)/; s/return GiNaC::cos(u);/return -GiNaC::cos(u);/ }'
# The regressor keeps a parameter set whose tau has a term free of them.
mutate regressor_remainder src/derive/regressor.cpp \
    's/ || !tau.vanishes_without(chosen)) return {};/) return {};/'
# The regressor's sampler drops the last term of each row of tau.
mutate regressor_row_term src/derive/regressor.cpp \
    's/for (auto const& part : row) sum += part;/for (std::size_t k = 0; k + 1 < row.size(); ++k) sum += row[k];/'
cmake --build "$M/build" --target lagc -j 2 > "$M/build.log" 2>&1
exit $status
