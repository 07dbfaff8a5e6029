#!/bin/sh
# The examples gallery (scenarios/examples/): every example but the tour is
# a TAP program whose expectations are derived by hand in its header.  Each
# runs twice; the two runs must print byte-identical output with the same
# status, the status must be 0, the plan must match the tests run, and each
# of its TAP lines is repeated here, renumbered and prefixed with the file's
# name, so a failing expectation names the example and the clause it
# demonstrates.  The gallery's index (scenarios/examples/README.md) must list
# every example, and every example it lists must exist.
CLAUSE=SIM-EXAMPLES
. scenarios/tests/lib/tap.sh
ex=$top/scenarios/examples
echo "TAP version 13"
for f in "$ex"/*.lua; do
  name=${f##*/}
  [ "$name" = tour.lua ] && continue # no TAP: scenarios/tests/readme.sh checks what it prints
  (cd "$top" && $HCPSIM run "scenarios/examples/$name") >a.out 2>a.err; sa=$?
  (cd "$top" && $HCPSIM run "scenarios/examples/$name") >b.out 2>b.err; sb=$?
  if [ "$sa" = "$sb" ] && cmp -s a.out b.out && cmp -s a.err b.err; then
    CLAUSE=SIM-DETERMINISM result 0 "$name: two runs print byte-identical output ($(wc -c <a.out) bytes, status $sa)"
  else
    CLAUSE=SIM-DETERMINISM result 1 "$name: two runs differ (status $sa, $sb)" "$(diff a.out b.out | head -3 | tr '\n' ' ')"
  fi
  tests=0
  plan=""
  yaml=0
  while IFS= read -r line; do
    case "$line" in
      "ok "*|"not ok "*)
        tests=$((tests + 1))
        n=$((n + 1))
        case "$line" in "not ok"*) fail=$((fail + 1)) ;; esac
        status=${line%% [0-9]*}
        rest=${line#"$status "}
        rest=${rest#* - }
        echo "$status $n - $name: $rest"
        ;;
      1..*) plan=${line#1..} ;;
      "  ---") yaml=1; echo "# $line" ;;
      "  ...") yaml=0; echo "# $line" ;;
      *) [ "$yaml" = 1 ] && echo "# $line" ;;
    esac
  done <a.out
  if [ "$sa" = 0 ] && [ "$tests" -gt 0 ] && [ "$plan" = "$tests" ]; then
    result 0 "$name: exit status 0, plan 1..$plan, $tests expectations met"
  else
    result 1 "$name: exit status $sa, plan '1..$plan', $tests tests" "$(head -c 300 a.err)"
  fi
  grep -q "^| \`$name\` |" "$ex/README.md"
  result $? "$name is in the gallery's index"
done
for listed in $(sed -n 's/^| `\([^`]*\.lua\)` |.*/\1/p' "$ex/README.md"); do
  [ -f "$ex/$listed" ]
  result $? "the index's $listed exists"
done
echo "1..$n"
[ "$fail" = 0 ]
