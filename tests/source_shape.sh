#!/usr/bin/env bash
# The shape contributors can rely on (docs/architecture.md): in src/ and grammar/, no
# function longer than 80 lines and no file longer than 600. Functions and their extents
# come from universal-ctags (its `end:` field), lines from wc -l. Prints the longest ten
# of each and fails on any over the limit.
# Usage: bash tests/source_shape.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
files=$(ls src/*.cpp src/*.hpp grammar/*.cpp grammar/*.hpp)
functions=$(ctags --fields=+ne --kinds-C++=f --language-force=C++ -o - $files |
  awk -F'\t' '{ line = 0; end = 0
                for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) line = substr($i, 6); if ($i ~ /^end:/) end = substr($i, 5) }
                if (end > 0) printf "%d %s:%d %s\n", end - line + 1, $2, line, $1 }' | sort -rn)
echo "longest functions (lines, where, name):"; echo "$functions" | head -10
echo "longest files:"; wc -l $files | sort -rn | sed -n '2,11p'
status=0
over=$(echo "$functions" | awk '$1 > 80')
if [ -n "$over" ]; then echo "FAIL: functions over 80 lines:"; echo "$over"; status=1; fi
big=$(wc -l $files | grep -v ' total$' | awk '$1 > 600')
if [ -n "$big" ]; then echo "FAIL: files over 600 lines:"; echo "$big"; status=1; fi
count=$(echo "$functions" | wc -l)
[ "$status" -eq 0 ] && echo "source shape: $count functions, none over 80 lines; no file over 600 lines"
exit $status
