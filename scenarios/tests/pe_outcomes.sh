#!/bin/sh
# Documented failure outcomes of kernel32 functions (api/outcomes.tsv, with each one's source):
# scenarios/examples/pe/outcomes.c on both ISAs, each line the function and the last error it
# leaves, and the same lines under Wine (x86-64).  conformance/exports.pl then requires every
# outcome of api/outcomes.tsv to have a passing line like these.
CLAUSE=PE-OUTCOMES
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
cr=$(printf '\r')
echo "TAP version 13"
for bits in 64 32; do
  cp "$pe/outcomes$bits.exe" .
  $HCPSIM run "outcomes$bits.exe" > out.txt 2> err.txt; st=$?
  tr -d "$cr" < out.txt > o.txt
  while IFS= read -r line; do
    case "$line" in
      "ok "*) result 0 "outcomes$bits.exe: ${line#ok }" ;;
      "not ok "*) result 1 "outcomes$bits.exe: ${line#not ok }" ;;
    esac
  done < o.txt
  [ "$st" = 0 ] && [ "$(tail -n 1 o.txt)" = "0 failed" ] && [ "$(grep -c '^ok ' o.txt)" = 9 ] && [ ! -s err.txt ]
  result $? "outcomes$bits.exe: runs to exit code 0, all 9 checks passed, nothing on stderr" "status $st: $(cat err.txt)"
done
wine=$(command -v wine64 || command -v wine)
if [ -n "$wine" ]; then
  WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" outcomes64.exe > wine.txt 2> wine.err
  command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
  if [ -s wine.txt ]; then
    $HCPSIM run outcomes64.exe | tr -d "$cr" > sim.txt
    tr -d "$cr" < wine.txt | cmp -s - sim.txt
    CLAUSE=PE-WINE
    result $? "outcomes64.exe: Wine 8.0 writes the same lines" "$(tr -d "$cr" < wine.txt | diff - sim.txt | head -5)"
  else
    n=$((n + 1))
    echo "ok $n - outcomes64.exe: Wine writes the same lines [PE-WINE] # SKIP wine did not run the program"
  fi
else
  n=$((n + 1))
  echo "ok $n - outcomes64.exe: Wine writes the same lines [PE-WINE] # SKIP no wine"
fi
echo "1..$n"
exit $((fail > 0))
