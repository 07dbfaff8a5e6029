#!/bin/sh
# The guest layouts (api/README.md "Guest layouts"): the table of api/layouts.h as static
# assertions compiled by both mingw-w64 compilers against their own headers (a wrong offset does
# not build), and scenarios/examples/pe/peb.c, which reads its TEB, PEB and process parameters
# through mingw-w64's structures and checks each field against what the documented functions
# return (GetCurrentThreadId, GetModuleHandleW, GetSystemInfo, GetCommandLineW,
# GetModuleFileNameW, IsDebuggerPresent), on both ISAs, and the same under Wine (x86-64).
. scenarios/tests/lib/tap.sh
bdir=$(dirname "$top/${BUILD:-build}/hcpsim")
[ -x "$bdir/api/tests/layout_test.t" ] || bdir=$top/build
pe=$bdir/pe
cr=$(printf '\r')
echo "TAP version 13"
CLAUSE=API-GUEST-LAYOUTS
"$bdir/api/tests/layout_test.t" --mingw > asserts.c
rows=$(grep -c _Static_assert asserts.c)
for cc in x86_64-w64-mingw32-gcc i686-w64-mingw32-gcc; do
  $cc -std=c11 -c -o asserts.o asserts.c > cc.txt 2>&1
  result $? "api/layouts.h: its $rows rows that mingw-w64 names have mingw-w64's offsets (and the structures' sizes) ($cc)" "$(head -5 cc.txt)"
done
CLAUSE=PE-PEB
for bits in 64 32; do
  cp "$pe/peb$bits.exe" .
  $HCPSIM run "peb$bits.exe" > out.txt 2> err.txt; st=$?
  tr -d "$cr" < out.txt > o.txt
  while IFS= read -r line; do
    case "$line" in
      "ok "*) result 0 "peb$bits.exe: ${line#ok }" ;;
      "not ok "*) result 1 "peb$bits.exe: ${line#not ok }" ;;
    esac
  done < o.txt
  [ "$st" = 0 ] && [ "$(tail -n 1 o.txt)" = "0 failed" ] && [ "$(grep -c '^ok ' o.txt)" = 12 ] && [ ! -s err.txt ]
  result $? "peb$bits.exe: runs to exit code 0, all 12 checks passed, nothing on stderr" "status $st: $(cat err.txt)"
done
wine=$(command -v wine64 || command -v wine)
if [ -n "$wine" ]; then
  WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" peb64.exe > wine.txt 2> wine.err
  command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
  if [ -s wine.txt ]; then
    $HCPSIM run peb64.exe | tr -d "$cr" > sim.txt
    tr -d "$cr" < wine.txt | cmp -s - sim.txt
    CLAUSE=PE-WINE
    result $? "peb64.exe: Wine 8.0 writes the same lines" "$(tr -d "$cr" < wine.txt | diff - sim.txt | head -5)"
  else
    n=$((n + 1))
    echo "ok $n - peb64.exe: Wine writes the same lines [PE-WINE] # SKIP wine did not run the program"
  fi
else
  n=$((n + 1))
  echo "ok $n - peb64.exe: Wine writes the same lines [PE-WINE] # SKIP no wine"
fi
echo "1..$n"
exit $((fail > 0))
