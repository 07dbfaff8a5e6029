#!/bin/sh
# Same scenario and seed -> byte-identical output: every example scenario and
# every conformance scenario runs twice and the outputs are compared byte for
# byte (stdout and stderr and exit status).
top=$(pwd)
HCPSIM=${HCPSIM:-$top/build/hcpsim}
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
files=$(ls scenarios/examples/*.lua conformance/*.lua | sort)
count=$(echo "$files" | wc -l)
echo "TAP version 13"
echo "1..$count"
n=0
fail=0
for f in $files; do
  n=$((n + 1))
  $HCPSIM run "$f" >"$dir/a.out" 2>"$dir/a.err"; sa=$?
  $HCPSIM run "$f" >"$dir/b.out" 2>"$dir/b.err"; sb=$?
  if [ "$sa" = "$sb" ] && cmp -s "$dir/a.out" "$dir/b.out" && cmp -s "$dir/a.err" "$dir/b.err" \
     && [ -s "$dir/a.out" ]; then
    echo "ok $n - $f: two runs are byte-identical ($(wc -c <"$dir/a.out") bytes, status $sa)"
  else
    fail=$((fail + 1))
    echo "not ok $n - $f: runs differ (status $sa vs $sb)"
    diff "$dir/a.out" "$dir/b.out" | head -5 | sed 's/^/# /'
  fi
done
[ "$fail" = 0 ]
