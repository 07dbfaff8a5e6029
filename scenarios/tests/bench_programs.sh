#!/bin/sh
# The programs of make bench-programs (reports/bench/programs/) at scale 1: each built for Windows
# with mingw-w64 and run by hcpsim, and built for the host and run natively, must print the same
# text (msvcrt ends lines with CR LF), as reports/bench/programs.sh checks before it times them.
# The native build is the independent reference: the same C source run on the host.
CLAUSE=SIM-BENCH-PROGRAMS
. scenarios/tests/lib/tap.sh
src="$top/reports/bench/programs"
for p in compute memory branchy api printf threads; do
  if ! x86_64-w64-mingw32-gcc -std=c17 -O2 -o "$p.exe" "$src/$p.c" 2>build.err ||
     ! ${CC:-cc} -std=c17 -O2 -o "$p" "$src/$p.c" -pthread 2>>build.err; then
    result 1 "$p builds for Windows and for the host" "$(head -c 300 build.err)"
    continue
  fi
  ./"$p" 1 >native.txt 2>&1
  $HCPSIM run "$p.exe" 1 2>hcpsim.err | tr -d '\r' >hcpsim.txt
  result "$(cmp -s native.txt hcpsim.txt && [ -s native.txt ]; echo $?)" \
    "$p prints the same under hcpsim as natively: $(head -c 60 native.txt | tr -d '\n')" \
    "native: $(head -c 120 native.txt | tr '\n' '|') hcpsim: $(head -c 120 hcpsim.txt | tr '\n' '|') $(head -c 200 hcpsim.err)"
done
echo "1..$n"
[ "$fail" = 0 ]
