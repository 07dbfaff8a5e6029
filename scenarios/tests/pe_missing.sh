#!/bin/sh
# What a call of a function hcpsim lacks does (api/README.md "Missing imports"): by default the run
# stops at it, naming it (status 125, the report's status missing-import); with --missing-imports
# fail (m:process{missing_imports = "fail"}) it returns what a function missing from a Windows DLL
# returns, 0 with ERROR_CALL_NOT_IMPLEMENTED (120), warned once per function, listed in the
# report, and the program goes on.  fallback.c calls KERNEL32.dll!Beep (a stub of the export
# spec: its parameters are known), msvcrt.dll!_resetstkoflw (cdecl, not in the spec) and Beep
# again, and exits 7 when both failed; on x86 a stdcall function the spec does not describe
# cannot return (its callee pops words nobody knows): the run stops, saying so.
CLAUSE=PE-MISSING-IMPORTS
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
echo "TAP version 13"
cr=$(printf '\r')
for bits in 64 32; do
  exe=fallback$bits.exe
  cp "$pe/$exe" .
  $HCPSIM run --report stop.json "$exe" > out.txt 2> err.txt; st=$?
  [ "$st" = 125 ] && [ ! -s out.txt ] && [ "$(cat err.txt)" = "hcpsim: $exe called KERNEL32.dll!Beep, which hcpsim does not implement" ]
  result $? "$exe: KERNEL32.dll!Beep: by default the run stops at the first call, naming it (status $st)" "$(cat err.txt)"
  perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $r = decode_json(<$f>); exit !($r->{run}{status} eq "missing-import")' stop.json
  result $? "$exe: the report's status is missing-import"
  $HCPSIM run --missing-imports fail --report fail.json "$exe" > out.txt 2> err.txt; st=$?
  printf 'Beep: 0, last error 120\n_resetstkoflw: 0\nBeep again: 0, last error 120\n' > want.txt
  tr -d "$cr" < out.txt | cmp -s - want.txt
  result $? "$exe --missing-imports fail: KERNEL32.dll!Beep: returns FALSE with last error 120 (ERROR_CALL_NOT_IMPLEMENTED), both times; msvcrt.dll!_resetstkoflw returns 0" "$(cat out.txt)"
  result $([ "$st" = 7 ]; echo $?) "$exe --missing-imports fail: the program goes on to its own exit code 7 (status $st)"
  printf '%s\n' "$exe: warning: called KERNEL32.dll!Beep, which hcpsim does not implement: it returns failure (--missing-imports=fail)" \
    "$exe: warning: called msvcrt.dll!_resetstkoflw, which hcpsim does not implement: it returns failure (--missing-imports=fail)" > wantw.txt
  cmp -s err.txt wantw.txt
  result $? "$exe --missing-imports fail: one warning per function, at its first call" "$(cat err.txt)"
  perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $r = decode_json(<$f>); my $a = $r->{machines}[0]{api};
    exit !(join(",", @{$a->{missing}}) eq "KERNEL32.dll!Beep,msvcrt.dll!_resetstkoflw" && $a->{by_function}{"KERNEL32.dll!Beep"}{guest} == 2
      && $r->{run}{status} eq "exited" && $r->{run}{exit_code} == 7)' fail.json
  result $? "$exe --missing-imports fail: the report lists the two functions (api.missing), Beep's 2 calls, status exited 7"
  $HCPSIM run --werror --missing-imports fail "$exe" > out.txt 2> err.txt; st=$?
  [ "$st" = 2 ] && [ ! -s out.txt ] && grep -q 'KERNEL32.dll!Beep' err.txt
  result $? "$exe --werror --missing-imports fail: the first warning ends the run (status $st)" "$(cat err.txt)"
done
$HCPSIM run --missing-imports maybe fallback64.exe > out.txt 2> err.txt; st=$?
[ "$st" = 2 ] && grep -q -- '--missing-imports maybe: stop .* or fail' err.txt
result $? "--missing-imports maybe: refused, naming both values (status $st)" "$(cat err.txt)"
cat > s.lua <<'LUA'
local hcp = require "hcpsim"
local m = hcp.machine {}
local p = m:process { path = "fallback64.exe", missing_imports = "fail", echo = false }
m:run()
print(p.exit_code, (p.stdout:gsub("\r", "")))
LUA
$HCPSIM run s.lua > out.txt 2> err.txt; st=$?
[ "$st" = 0 ] && [ "$(head -1 out.txt)" = "7	Beep: 0, last error 120" ]
result $? "m:process{missing_imports = \"fail\"}: the program exits 7 (status $st)" "$(head -3 out.txt) $(cat err.txt)"
# A stdcall function of KERNEL32.dll the spec does not describe, from an import library dlltool makes
cat > u.c <<'C'
#include <windows.h>
__declspec(dllimport) BOOL __stdcall HcpsimNoSuchFunction(DWORD a, DWORD b);
int main(void) { return HcpsimNoSuchFunction(1, 2) ? 1 : (int)GetLastError(); }
C
printf 'LIBRARY KERNEL32.dll\nEXPORTS\nHcpsimNoSuchFunction@8\n' > u32.def
printf 'LIBRARY KERNEL32.dll\nEXPORTS\nHcpsimNoSuchFunction\n' > u64.def
x86_64-w64-mingw32-dlltool -d u64.def -l libu64.a && x86_64-w64-mingw32-gcc -O2 -o u64.exe u.c libu64.a &&
  i686-w64-mingw32-dlltool -k -d u32.def -l libu32.a && i686-w64-mingw32-gcc -O2 -o u32.exe u.c libu32.a 2> cc.txt
result $? "a program importing KERNEL32.dll!HcpsimNoSuchFunction builds for both ISAs" "$(cat cc.txt)"
$HCPSIM run --missing-imports fail u64.exe > out.txt 2> err.txt; st=$?
result $([ "$st" = 120 ]; echo $?) "u64.exe --missing-imports fail: an unknown function returns 0 with 120, which the program returns (status $st)" "$(cat err.txt)"
$HCPSIM run --missing-imports fail u32.exe > out.txt 2> err.txt; st=$?
[ "$st" = 125 ] && grep -q 'cannot return from it on x86' err.txt
result $? "u32.exe --missing-imports fail: on x86 the unknown stdcall function stops the run, saying why (status $st)" "$(cat err.txt)"
echo "1..$n"
exit $((fail > 0))
