#!/bin/sh
# The guest layouts (api/README.md "Guest layouts"): the table of api/layouts.h as static
# assertions compiled by both mingw-w64 compilers against their own headers (a wrong offset does
# not build), and scenarios/examples/pe/peb.c, which reads its TEB, PEB and process parameters
# through mingw-w64's structures and checks each field against what the documented functions
# return (GetCurrentThreadId, GetModuleHandleW, GetSystemInfo, GetCommandLineW,
# GetModuleFileNameW, IsDebuggerPresent), on both ISAs, and the same under Wine (x86-64).
. scenarios/tests/lib/tap.sh
. "$top/scenarios/tests/lib/pe_family.sh"
bdir=$(dirname "$top/${BUILD:-build}/hcpsim")
[ -x "$bdir/api/tests/layout_test.t" ] || bdir=$top/build
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
  pe_selfcheck peb $bits 12
  pe_twice peb $bits
done
pe_wine peb '^$'
command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
echo "1..$n"
exit $((fail > 0))
