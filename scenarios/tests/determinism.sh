#!/bin/sh
# Same scenario and seed -> byte-identical output: every example scenario,
# every conformance scenario and the Lua runtime tests run twice and the
# outputs are compared byte for byte (stdout and stderr and exit status).
#
# With arguments (make check-determinism), each argument is an hcpsim binary
# (a normal, an ASan and an -O0 build): every scenario runs twice with each,
# writing a --trace and a --report JSON file as well, and every run's stdout,
# exit status, trace and report must equal the first binary's first run
# (stderr is compared between the two runs of one binary: a sanitizer build
# may print to it).  A failure names the file, the binary and what differs.
top=$(pwd)
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
files=$(ls scenarios/examples/*.lua conformance/*.lua scenarios/tests/*.lua | sort)
count=$(echo "$files" | wc -l)
echo "TAP version 13"
echo "1..$count"
n=0
fail=0
if [ $# -gt 0 ]; then
  for f in $files; do
    n=$((n + 1))
    bad=""
    k=0
    for bin in "$@"; do
      k=$((k + 1))
      for r in 1 2; do
        $bin run --trace "$dir/$k.$r.trace.json" --report "$dir/$k.$r.report.json" "$f" >"$dir/$k.$r.out" 2>"$dir/$k.$r.err"
        echo $? >"$dir/$k.$r.st"
      done
      if ! cmp -s "$dir/$k.1.err" "$dir/$k.2.err"; then
        bad="$bad; $bin: stderr differs between its two runs"
      fi
      for r in 1 2; do
        if ! cmp -s "$dir/1.1.out" "$dir/$k.$r.out" || ! cmp -s "$dir/1.1.st" "$dir/$k.$r.st"; then
          bad="$bad; $bin run $r: stdout or status (now $(cat "$dir/$k.$r.st")) differs from $1 run 1"
          diff "$dir/1.1.out" "$dir/$k.$r.out" | head -5 | sed 's/^/# /' >>"$dir/diffs"
        fi
        for what in trace report; do
          if ! cmp -s "$dir/1.1.$what.json" "$dir/$k.$r.$what.json"; then
            bad="$bad; $bin run $r: the --$what file differs from $1 run 1"
            cmp "$dir/1.1.$what.json" "$dir/$k.$r.$what.json" 2>&1 | head -1 | sed 's/^/# /' >>"$dir/diffs"
          fi
        done
      done
    done
    if [ -z "$bad" ] && [ -s "$dir/1.1.out" ] && [ -s "$dir/1.1.trace.json" ] && [ -s "$dir/1.1.report.json" ]; then
      echo "ok $n - $f: $(($# * 2)) runs in $# builds are byte-identical ($(wc -c <"$dir/1.1.out") bytes of output, $(wc -c <"$dir/1.1.trace.json") of trace, $(wc -c <"$dir/1.1.report.json") of report, status $(cat "$dir/1.1.st")) [SIM-DETERMINISM]"
    else
      fail=$((fail + 1))
      echo "not ok $n - $f: ${bad#; } [SIM-DETERMINISM]"
      [ -s "$dir/1.1.out" ] || echo "# $1 printed nothing"
      [ -s "$dir/1.1.trace.json" ] && [ -s "$dir/1.1.report.json" ] || echo "# $1 wrote no trace or no report"
      [ -f "$dir/diffs" ] && cat "$dir/diffs" && rm -f "$dir/diffs"
    fi
    rm -f "$dir"/*.json
  done
  [ "$fail" = 0 ]
  exit
fi
HCPSIM=${HCPSIM:-$top/build/hcpsim}
for f in $files; do
  n=$((n + 1))
  $HCPSIM run "$f" >"$dir/a.out" 2>"$dir/a.err"; sa=$?
  $HCPSIM run "$f" >"$dir/b.out" 2>"$dir/b.err"; sb=$?
  if [ "$sa" = "$sb" ] && cmp -s "$dir/a.out" "$dir/b.out" && cmp -s "$dir/a.err" "$dir/b.err" \
     && [ -s "$dir/a.out" ]; then
    echo "ok $n - $f: two runs are byte-identical ($(wc -c <"$dir/a.out") bytes, status $sa) [SIM-DETERMINISM]"
  else
    fail=$((fail + 1))
    echo "not ok $n - $f: runs differ (status $sa vs $sb) [SIM-DETERMINISM]"
    diff "$dir/a.out" "$dir/b.out" | head -5 | sed 's/^/# /'
  fi
done
[ "$fail" = 0 ]
