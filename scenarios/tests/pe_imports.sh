#!/bin/sh
# Every row of the import table (`hcpsim describe --imports`) has a test (api/README.md "Windows
# programs").  scenarios/examples/pe/imports.c checks one documented result per import and prints
# "ok DLL!Name: what" or "not ok DLL!Name: what (got ...)"; this file turns each line into a TAP
# line (x86-64 and i386), checks the ways a program ends (return from main, ExitProcess, _exit,
# abort, _amsg_exit), and names the imports that only the C runtime's own startup and exit code
# calls (below: each must be imported by a program this file ran to its exit code).  That every
# row of the export spec has a passing line naming it ("DLL!Name:"), here or in another test, is
# checked after the suite by conformance/exports.pl.
CLAUSE=PE-IMPORTS
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
# Called by the mingw-w64 C runtime's startup or exit code (_lock and _unlock: by its own printf,
# which imports.c calls once), never by the program's own code: covered when imports64.exe or imports32.exe
# imports it and runs to exit 0.
startup="msvcrt.dll!__getmainargs msvcrt.dll!__set_app_type msvcrt.dll!__setusermatherr msvcrt.dll!__initenv
msvcrt.dll!_acmdln msvcrt.dll!_commode msvcrt.dll!_fmode msvcrt.dll!_iob msvcrt.dll!_initterm msvcrt.dll!_lock
msvcrt.dll!_unlock"
echo "TAP version 13"
cr=$(printf '\r')
for bits in 64 32; do
  cp "$pe/imports$bits.exe" .
  $HCPSIM run "imports$bits.exe" > out.txt 2> err.txt; st=$?
  tr -d "$cr" < out.txt > o$bits.txt
  while IFS= read -r line; do
    case "$line" in
      "ok "*) result 0 "imports$bits.exe: ${line#ok }" ;;
      "not ok "*) result 1 "imports$bits.exe: ${line#not ok }" ;;
    esac
  done < o$bits.txt
  [ "$st" = 0 ] && [ "$(tail -n 4 o$bits.txt | head -n 1)" = "0 failed" ] && [ ! -s err.txt ]
  result $? "imports$bits.exe: runs to exit code 0 with no check failed, nothing on stderr (status $st)" "$(cat err.txt)"
  [ "$(tail -n 3 o$bits.txt | head -n 1 | cut -c1-22)" = "ok msvcrt.dll!_onexit:" ] &&
    [ "$(tail -n 2 o$bits.txt | head -n 1 | cut -c1-21)" = "ok msvcrt.dll!atexit:" ] &&
    [ "$(tail -n 1 o$bits.txt)" = "ok mingw-w64's own atexit registered a function that runs" ]
  result $? "imports$bits.exe: msvcrt.dll!exit: returning from main runs exit, whose msvcrt.dll!_cexit: runs the _onexit and atexit functions, last registered first, after main's last line, then mingw-w64's own atexit table"
  x86_64-w64-mingw32-objdump -p "imports$bits.exe" | awk '/DLL Name:/ { dll = $3 } /^\t[0-9a-f]+\t +[0-9]+  / { print dll "!" $3 }' > imp$bits.txt
  $HCPSIM run "imports$bits.exe" exit > out.txt 2> err.txt; st=$?
  [ "$st" = 42 ] && ! grep -q 'atexit' out.txt
  result $? "imports$bits.exe exit: KERNEL32.dll!ExitProcess: ExitProcess(42) ends the run with status 42 at once (status $st)"
  $HCPSIM run "imports$bits.exe" _exit > out.txt 2> err.txt; st=$?
  [ "$st" = 43 ] && ! grep -q 'atexit\|_onexit' out.txt
  result $? "imports$bits.exe _exit: msvcrt.dll!_exit: _exit(43) ends with status 43 and runs no atexit or _onexit function (status $st)"
  $HCPSIM run "imports$bits.exe" abort > out.txt 2> err.txt; st=$?
  [ "$st" = 3 ] && grep -q 'This application has requested the Runtime to terminate it in an unusual way' err.txt
  result $? "imports$bits.exe abort: msvcrt.dll!abort: status 3 and msvcrt's message on stderr (status $st)" "$(cat err.txt)"
  $HCPSIM run "imports$bits.exe" amsg > out.txt 2> err.txt; st=$?
  [ "$st" = 255 ] && grep -q 'runtime error R6002' err.txt
  result $? "imports$bits.exe amsg: msvcrt.dll!_amsg_exit: _amsg_exit(2) prints runtime error R6002 on stderr, status 255 (status $st)" "$(cat err.txt)"
done
for s in $startup; do
  grep -qx "$s" imp64.txt || grep -qx "$s" imp32.txt
  result $? "$s: called by the C runtime's startup code of imports64.exe or imports32.exe, which imports it and runs to exit 0"
done
echo "1..$n"
exit $((fail > 0))
