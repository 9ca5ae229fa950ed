#!/usr/bin/env bash
# The shape contributors can rely on (docs/architecture.md): src/ is one folder per stage of
# the pipeline (at least 4 of them, each with a README.md saying what enters and what leaves
# and naming each of its files),
# with at most 3 source files left at its top; in src/ and grammar/, no function longer than
# 80 lines and no file longer than 600; a built-in function's facts in one row of builtins.cpp.
# Functions and their extents come from universal-ctags (its `end:` field), lines from wc -l.
# Prints the longest ten of each and fails on any rule broken.
# Usage: bash tests/source_shape.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
files=$(find src grammar -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.inc' \) | LC_ALL=C sort)
code=$(echo "$files" | grep -v '\.inc$')
functions=$(ctags --fields=+ne --kinds-C++=f --language-force=C++ -o - $code |
  awk -F'\t' '{ line = 0; end = 0
                for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) line = substr($i, 6); if ($i ~ /^end:/) end = substr($i, 5) }
                if (end > 0) printf "%d %s:%d %s\n", end - line + 1, $2, line, $1 }' | sort -rn)
# (From a here-string: `echo | head` dies of SIGPIPE under pipefail once the list passes the
# pipe's 64 KB.)
echo "longest functions (lines, where, name):"; head -10 <<< "$functions"
echo "longest files:"; wc -l $files | sort -rn | sed -n '2,11p'
status=0
over=$(echo "$functions" | awk '$1 > 80')
if [ -n "$over" ]; then echo "FAIL: functions over 80 lines:"; echo "$over"; status=1; fi
big=$(wc -l $files | grep -v ' total$' | awk '$1 > 600')
if [ -n "$big" ]; then echo "FAIL: files over 600 lines:"; echo "$big"; status=1; fi

# The stages as folders.
top=$(find src -maxdepth 1 -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.inc' \) | LC_ALL=C sort)
if [ "$(echo "$top" | grep -c .)" -gt 3 ]; then echo "FAIL: more than 3 source files at the top of src/:"; echo "$top"; status=1; fi
stages=0
for d in src/*/; do
  if [ ! -f "$d/README.md" ]; then echo "FAIL: $d has no README.md saying what enters and what leaves"; status=1; continue; fi
  # The README names each of its folder's files (as NAME.cpp, or NAME.{hpp,cpp} for a pair).
  for f in $(find "$d" -maxdepth 1 -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.inc' \) | LC_ALL=C sort); do
    b=$(basename "$f"); stem=${b%.*}
    if ! grep -qF -e "$b" -e "$stem.{hpp,cpp}" "$d/README.md"; then echo "FAIL: $d/README.md does not name $b"; status=1; fi
  done
  if find "$d" -maxdepth 1 -name '*.cpp' | grep -q .; then stages=$((stages + 1)); fi
done
if [ "$stages" -lt 4 ]; then echo "FAIL: $stages folders of src/ hold code; the pipeline has at least 4 stages"; status=1; fi

# A built-in is one row: "atan2" is spelled once in src/ (the <cmath> names of
# reserved_names.inc aside), and neither differentiator names a function: their
# derivatives are the rows' (builtins.cpp).
atan2=$(echo "$code" | xargs grep -o '"atan2"' | wc -l)
if [ "$atan2" -ne 1 ]; then echo "FAIL: \"atan2\" is spelled $atan2 times in src/, not once:"; echo "$code" | xargs grep -n '"atan2"'; status=1; fi
named=$(grep -n '"[a-z][a-z0-9]*"' src/graph/differentiate.cpp src/symbolic/chain_rule.cpp || true)
if [ -n "$named" ]; then echo "FAIL: a derivative rule outside its built-in's row:"; echo "$named"; status=1; fi

count=$(echo "$functions" | wc -l)
[ "$status" -eq 0 ] && echo "source shape: $count functions, none over 80 lines; no file over 600 lines; $stages stage folders; each built-in one row"
exit $status
