#!/bin/sh
# The C runtime against an independent implementation (api/README.md "The C runtime"): each test
# program of scenarios/examples/crt/ (one per family: string, ctype, stdlib, time, math, misc,
# ucrt) in its four builds (x86-64 and i386, msvcrt.dll and the UCRT) runs twice in hcpsim; it
# must exit 0 with nothing on stderr, print the same bytes both times, and print, line by line,
# what the same program printed under Wine 8.0 (the references in scenarios/tests/crt/, made by
# crt/wine.sh with the x86-64 builds) — except the lines crt/differences.txt lists: where Wine is
# known to differ from Windows (each with the source that decides) and the i386 builds' lines that
# depend on the pointer size ("p" lines), whose expected text is given there.  Every line names
# the function it checks ("msvcrt.dll!strlen: ..."), so each becomes one TAP line naming it, and
# the export coverage (conformance/exports.pl) sees every function a passing line names.
. scenarios/tests/lib/tap.sh
crt=$(dirname "$top/${BUILD:-build}/hcpsim")/crt
[ -d "$crt" ] || crt=$top/build/crt
ref=$top/scenarios/tests/crt
cr=$(printf '\r')
echo "TAP version 13"
names=${CRT_NAMES:-$(cd "$top/scenarios/examples/crt" && ls *.c | sed 's/\.c$//')}
for name in $names; do
  CLAUSE=PE-CRT-$(echo "$name" | tr 'a-z' 'A-Z')
  for b in 64 32 u64 u32; do
    exe=$name$b.exe
    case $b in u*) want=$ref/$name.ucrt.txt ;; *) want=$ref/$name.msvcrt.txt ;; esac
    if [ ! -f "$want" ]; then
      result 1 "$exe: a Wine reference exists" "missing $want: run scenarios/tests/crt/wine.sh"
      continue
    fi
    cp "$crt/$exe" .
    $HCPSIM run "$exe" > out1.txt 2> err1.txt; st=$?
    $HCPSIM run "$exe" > out2.txt 2> err2.txt
    [ "$st" = 0 ] && [ ! -s err1.txt ]
    result $? "$exe runs to exit code 0 with nothing on stderr (status $st)" "$(head -c 400 err1.txt)"
    cmp -s out1.txt out2.txt && cmp -s err1.txt err2.txt
    result $? "$exe: a second run writes the same bytes"
    # the expected lines: Wine's, with the listed differences for this build applied
    awk -F'\t' -v n="$name" -v b="$b" 'BEGIN { OFS = "\t" }
      FNR == NR { if ($0 !~ /^#/ && $1 == n && ("," $2 ",") ~ ("," b ",")) { sub(/\r$/, "", $3); alt[$3] = $4 } next }
      { line = $0; sub(/\r$/, "", line); print ((line in alt) ? alt[line] : line) }' \
      "$ref/differences.txt" "$want" > expect.txt
    tr -d "$cr" < out1.txt > got.txt
    nw=$(wc -l < expect.txt)
    ng=$(wc -l < got.txt)
    [ "$nw" = "$ng" ]
    result $? "$exe: prints as many lines as the reference ($nw)" "got $ng"
    i=0
    while IFS= read -r line; do
      i=$((i + 1))
      g=$(sed -n "${i}p" got.txt)
      [ "$g" = "$line" ]
      result $? "$exe:$i: $(printf '%s' "$line" | sed 's/#/\\#/g')" "got: $g"
    done < expect.txt
    # CRLF line ends (the stream's text mode)
    [ "$(grep -c "$cr\$" out1.txt)" = "$ng" ]
    result $? "$exe: every line ends in CRLF"
  done
done
echo "1..$n"
exit $((fail > 0))
