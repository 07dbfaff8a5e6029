#!/bin/sh
# Differential runs against Wine, the make test slice (scenarios/tests/windiff/README.md): the
# programs windiff/gen.pl makes for the seeds in WINDIFF_SEEDS (the Makefile builds them once,
# x86-64 and i386, into build/windiff/), run under hcpsim with their generated argument lists,
# case by case against the output of the same x86-64 program under Wine 8.0 committed in
# windiff/wine/ (make windiff-refresh records it again).  The i386 program is held to the same
# lines (nothing a case prints depends on the pointer size).  Each program runs twice: the second
# run's bytes equal the first's.  Cases where Wine is known to differ from Windows are skipped with
# the source that decides (gen.pl --known); hcpsim's own known bugs are TODO (windiff/todo.txt).
. scenarios/tests/lib/tap.sh
CLAUSE=PE-WINDIFF
wd=$(dirname "$top/${BUILD:-build}/hcpsim")/windiff
[ -d "$wd" ] || wd=$top/build/windiff
echo "TAP version 13"
for exe in "$wd"/seed*-64.exe; do
  s=$(basename "$exe" -64.exe); s=${s#seed}
  perl "$top/scenarios/tests/windiff/gen.pl" --seed "$s" --args > args.txt
  perl "$top/scenarios/tests/windiff/gen.pl" --seed "$s" --cases "${WINDIFF_CASES:-100}" --known > known.txt
  for bits in 64 32; do
    cp "$wd/seed$s-$bits.exe" p.exe
    set --
    while IFS= read -r a; do set -- "$@" "$a"; done < args.txt
    # --max-trap-points: a large generated image needs more than the default (issue 29 item 5 lifts it)
    $HCPSIM run --max-trap-points 16384 -- p.exe "$@" > sim.txt 2> err.txt; st=$?
    $HCPSIM run --max-trap-points 16384 -- p.exe "$@" > sim2.txt 2>/dev/null
    result $([ "$st" = 0 ] && [ ! -s err.txt ]; echo $?) "seed $s, $bits-bit: runs to exit 0 (status $st)" "$(head -c 300 err.txt)"
    cmp -s sim.txt sim2.txt
    result $? "seed $s, $bits-bit: a second run writes the same bytes"
    perl "$top/scenarios/tests/windiff/compare.pl" --tap --wine "$top/scenarios/tests/windiff/wine/seed$s.txt" \
      --sim sim.txt --known known.txt --todo "$top/scenarios/tests/windiff/todo.txt" --seed "$s" \
      --label "seed $s, $bits-bit, " > cmp.txt
    while IFS= read -r line; do
      case "$line" in
        "ok - "*|"not ok - "*)
          n=$((n + 1))
          case "$line" in "not ok"*) case "$line" in *"# TODO"*) ;; *) fail=$((fail + 1)) ;; esac ;; esac
          echo "$line" | sed "s/^\(not \)\{0,1\}ok - /&/; s/^ok - /ok $n - /; s/^not ok - /not ok $n - /" ;;
        *) echo "$line" ;;
      esac
    done < cmp.txt
  done
done
echo "1..$n"
exit $((fail > 0))
