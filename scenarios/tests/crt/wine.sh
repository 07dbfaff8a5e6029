#!/bin/sh
# Makes the Wine references of scenarios/tests/pe_crt.sh again (README.md here):
#   sh scenarios/tests/crt/wine.sh BUILD/crt
# runs each NAME64.exe and NAMEu64.exe of the folder under Wine with a fresh prefix and writes
# NAME.msvcrt.txt and NAME.ucrt.txt next to this script.
set -e
exes=$1
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(mktemp -d)
trap 'WINEPREFIX=$prefix wineserver -k 2>/dev/null; rm -rf "$prefix"' EXIT
for f in "$exes"/*u64.exe; do
  name=$(basename "$f" u64.exe)
  [ -f "$exes/${name}64.exe" ] || continue
  for v in 64 u64; do
    out=$here/$name.$([ $v = 64 ] && echo msvcrt || echo ucrt).txt
    (cd "$exes" && env -u TZ LANG=C.UTF-8 WINEDEBUG=-all WINEPREFIX=$prefix timeout 300 wine "./$name$v.exe" > "$out.tmp" 2>/dev/null) || true
    mv "$out.tmp" "$out"
    echo "$out: $(wc -l < "$out") lines"
  done
done
