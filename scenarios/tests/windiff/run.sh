#!/bin/sh
# scenarios/tests/windiff/run.sh HCPSIM OUTDIR FROM RUNS [CASES]: the long differential runs
# (README.md): seeds FROM .. FROM+RUNS-1, CASES cases each (default 100), built with mingw-w64,
# run under Wine (live) and hcpsim (x86-64 and i386), compared case by case.  Each mismatching
# case is written as OUTDIR/seedS-caseK.c (gen.pl --only K: the minimal program) with the two
# lines in OUTDIR/seedS-caseK.txt.  Exit 1 when any case differs.
set -u
hcpsim=$1 out=$2 from=$3 runs=$4 cases=${5:-100}
here=$(cd "$(dirname "$0")" && pwd)
wine=$(command -v wine64 || command -v wine) || { echo "run.sh: Wine is not installed (make wine-deps)" >&2; exit 2; }
mkdir -p "$out" && out=$(cd "$out" && pwd)
export WINEDEBUG=-all WINEPREFIX="$out/wineprefix"
bad=0 total=0 diffs=0
s=$from
while [ "$s" -lt $((from + runs)) ]; do
  d="$out/seed$s" && mkdir -p "$d"
  perl "$here/gen.pl" --seed "$s" --cases "$cases" > "$d/p.c"
  perl "$here/gen.pl" --seed "$s" --cases "$cases" --known > "$d/known.txt"
  perl "$here/gen.pl" --seed "$s" --args > "$d/args.txt"
  x86_64-w64-mingw32-gcc -O1 -w -o "$d/p64.exe" "$d/p.c" && i686-w64-mingw32-gcc -O1 -w -o "$d/p32.exe" "$d/p.c" ||
    { echo "seed $s: the program does not build"; bad=1; s=$((s + 1)); continue; }
  set --
  while IFS= read -r a; do set -- "$@" "$a"; done < "$d/args.txt"
  (cd "$d" && timeout 300 "$wine" p64.exe "$@" > wine.txt 2> wine.err)
  for bits in 64 32; do
    (cd "$d" && timeout 300 "$hcpsim" run --max-trap-points 16384 -- "p$bits.exe" "$@" > "sim$bits.txt" 2> "sim$bits.err")
    perl "$here/compare.pl" --wine "$d/wine.txt" --sim "$d/sim$bits.txt" --known "$d/known.txt" --label "seed $s $bits-bit " > "$d/cmp$bits.txt" || bad=1
    for k in $(sed -n 's/^seed [0-9]* [0-9]*-bit case \([0-9]*\) differs$/\1/p' "$d/cmp$bits.txt"); do
      perl "$here/gen.pl" --seed "$s" --only "$k" > "$out/seed$s-case$k.c"
      grep -A2 "case $k differs" "$d/cmp$bits.txt" >> "$out/seed$s-case$k.txt"
      diffs=$((diffs + 1))
    done
    tail -1 "$d/cmp$bits.txt"
  done
  total=$((total + cases))
  s=$((s + 1))
done
command -v wineserver >/dev/null 2>&1 && timeout 30 wineserver -k 2>/dev/null
echo "windiff: $runs seeds, $total cases on each ISA, $diffs mismatching case runs (minimal programs in $out)"
exit $bad
