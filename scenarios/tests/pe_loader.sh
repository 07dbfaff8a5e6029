#!/bin/sh
# The PE loader's work before main (api/README.md "Windows programs"), x86-64 and i386:
# loader.c's TLS callback runs before the entry point, with the image's base and
# DLL_PROCESS_ATTACH; when the preferred base (the ImageBase objdump reads from the header) is
# taken by an m:code block placed first, the image goes 16 MiB higher, its base relocations make
# its tables of strings, functions and pointers right, and it prints what it prints at its own
# base.  Imports by ordinal: a program linked against an import library made with dlltool from
# a .def that names hcpsim's ordinals (hcpsim describe --imports) calls those functions; an
# ordinal no row has loads and stops the run when called, naming DLL!#N.
CLAUSE=PE-TLS
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
echo "TAP version 13"
echo "1..14"
cr=$(printf '\r')
for bits in 64 32; do
  if [ $bits = 64 ]; then plat=win10-x64 tc=x86_64-w64-mingw32 sym=main; else plat=win7-x86 tc=i686-w64-mingw32 sym=_main; fi
  cp "$pe/loader$bits.exe" .
  ib=$($tc-objdump -p "loader$bits.exe" | awk '$1 == "ImageBase" { print $2 }')
  mainva=$($tc-nm "loader$bits.exe" | awk -v s="$sym" '$3 == s { print $1 }')
  rva=$(printf '%X' $((0x$mainva - 0x$ib)))
  {
    echo "tls callback: call 1, reason 1, base is the image's: yes"
    echo "constructor: call 2"
    echo "words: zero one two"
    echo "ops: 42 144"
    echo "counter: 42"
    echo "rva of main: 0x$rva"
  } > want.txt
  CLAUSE=PE-TLS
  $HCPSIM run "loader$bits.exe" > out.txt 2> err.txt; st=$?
  tr -d "$cr" < out.txt > o.txt
  [ "$st" = 0 ] && head -n 2 o.txt | cmp -s - "$(head -n 2 want.txt > w2.txt; echo w2.txt)"
  result $? "loader$bits.exe: its TLS callback runs first (before the constructors the entry point's C runtime calls), with DLL_PROCESS_ATTACH and the image's base" "$(head -n 2 o.txt)"
  CLAUSE=PE-RELOC
  cmp -s o.txt want.txt
  result $? "loader$bits.exe at its preferred base 0x$ib: its tables and main's RVA 0x$rva as the image gives them" "$(cat o.txt err.txt)"
  cat > reloc.lua <<LUA
local hcp = require "hcpsim"
local m = hcp.machine { platform = "$plat" }
local taken = m:code "\xC3"
local p = m:process { path = "loader$bits.exe", echo = false }
m:run()
print(string.format("code 0x%X base 0x%X exit %s", taken, p.base, tostring(p.exit_code)))
print(p.stdout)
LUA
  $HCPSIM run reloc.lua > out.txt 2> err.txt; st=$?
  tr -d "$cr" < out.txt > r.txt
  want_base=$(printf '%X' $((0x$ib + 0x1000000)))
  [ "$st" = 0 ] && [ "$(head -n 1 r.txt)" = "code 0x$(printf '%X' $((0x$ib))) base 0x$want_base exit 0" ]
  result $? "loader$bits.exe with an m:code block at its preferred base: it loads 16 MiB higher, at 0x$want_base, and exits 0" "status $st: $(head -n 1 r.txt) $(cat err.txt)"
  tail -n +2 r.txt | sed '/^$/d' | cmp -s - want.txt
  result $? "loader$bits.exe relocated: its strings, functions, pointers and main's RVA are those it has at its own base (base relocations applied)" "$(cat r.txt)"

  CLAUSE=PE-ORDINAL
  # hcpsim's ordinals of two functions, from the table
  ord_pid=$($HCPSIM describe --imports | awk '$1 == "KERNEL32.dll" && $3 == "GetCurrentProcessId" { print $2 }')
  ord_len=$($HCPSIM describe --imports | awk '$1 == "msvcrt.dll" && $3 == "strlen" { print $2 }')
  if [ $bits = 32 ]; then dec='@0'; else dec=''; fi
  printf 'LIBRARY KERNEL32.dll\nEXPORTS\nGetCurrentProcessId%s @%s NONAME\nBeep%s @9999 NONAME\n' "$dec" "$ord_pid" "$([ $bits = 32 ] && echo @8)" > k.def
  printf 'LIBRARY msvcrt.dll\nEXPORTS\nstrlen @%s NONAME\n' "$ord_len" > c.def
  cat > ord.c <<'C'
#include <stdio.h>
#include <string.h>
#include <windows.h>
static const char *volatile s = "four";
int main(int argc, char **argv) {
    (void)argv;
    printf("pid %lu len %u\n", GetCurrentProcessId(), (unsigned)strlen(s));
    fflush(stdout);
    if (argc > 1) Beep(440, 10);
    return 0;
}
C
  $tc-dlltool -k -d k.def -l libk.a && $tc-dlltool -k -d c.def -l libc2.a &&
    $tc-gcc -O2 -o "ord$bits.exe" ord.c libk.a libc2.a 2> cc.txt
  $tc-objdump -p "ord$bits.exe" > imp.txt 2>&1
  # an import by ordinal: the lookup entry's top bit set, the ordinal in its low 16 bits
  grep -Eqi "^[[:space:]]*80*$(printf '%x' "$ord_pid")[[:space:]].*<none>" imp.txt
  result $? "ord$bits.exe imports KERNEL32.dll by ordinal $ord_pid (objdump -p)" "$(cat cc.txt; grep -A3 'KERNEL32' imp.txt | head -8)"
  $HCPSIM run "ord$bits.exe" > out.txt 2> err.txt; st=$?
  [ "$st" = 0 ] && [ "$(tr -d "$cr" < out.txt)" = "pid 996 len 4" ]
  result $? "ord$bits.exe: KERNEL32.dll ordinal $ord_pid is GetCurrentProcessId (996), msvcrt.dll ordinal $ord_len is strlen" "status $st: $(cat out.txt err.txt)"
  $HCPSIM run "ord$bits.exe" beep > out.txt 2> err.txt; st=$?
  [ "$st" = 125 ] && [ "$(cat err.txt)" = "hcpsim: ord$bits.exe called KERNEL32.dll!#9999, which hcpsim does not implement" ]
  result $? "ord$bits.exe: an ordinal no row has (9999) loads, and its call stops the run with a message naming KERNEL32.dll and ordinal 9999 (status 125)" "status $st: $(cat err.txt)"
done
exit $((fail > 0))
