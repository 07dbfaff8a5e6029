#!/bin/sh
# msvcrt's printf formats against an independent oracle (api/README.md "Windows programs"):
# scenarios/examples/pe/printf.c prints a table of formats through msvcrt.dll's own printf
# (flags, widths, precisions, h l ll I I32 I64 z, d i u o x X c s ls S p e E f g G, %%, ties in
# rounding), and the cases where msvcrt differs from C99 (issue 29: _snprintf filling its buffer
# exactly returns the count, an unknown conversion such as %I %z %b %w %h drops its '%', %F is a size
# prefix, the 0 flag pads %s and %c, %p's flags, the lengths of "%*1d" "%0*0d" "% *2d", 1.#INF00e+000
# and the indefinite NaN -1.#IND00 with every precision, %a, %S and %C with a character the code
# page lacks, %n); pe_printf.wine.txt is the output of printf64.exe under Wine 8.0's msvcrt (x86-64,
# Debian's wine64 8.0~repack-4), committed byte for byte, CRLF line ends included.  To make it
# again: build/pe/printf64.exe run as `WINEDEBUG=-all wine printf64.exe > pe_printf.wine.txt`.
# hcpsim's output of printf64.exe must be those bytes; printf32.exe's too, but for the one line
# whose values depend on the pointer size ("p..."), where %p writes 8 hex digits on i386.
CLAUSE=PE-PRINTF
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
want=$top/scenarios/tests/pe_printf.wine.txt
echo "TAP version 13"
echo "1..14"
cp "$pe/printf64.exe" "$pe/printf32.exe" .
$HCPSIM run printf64.exe > out64.txt 2> err.txt; st=$?
[ "$st" = 0 ] && [ ! -s err.txt ]; result $? "printf64.exe runs to exit code 0 (status $st)" "$(cat err.txt)"
cmp -s out64.txt "$want"
result $? "printf64.exe: every line byte for byte as Wine's msvcrt writes it ($(wc -l < "$want" | tr -d ' ') lines)" "$(diff "$want" out64.txt | head -10 | tr '\n' ' ')"
$HCPSIM run printf32.exe > out32.txt 2> err.txt; st=$?
[ "$st" = 0 ] && [ ! -s err.txt ]; result $? "printf32.exe runs to exit code 0 (status $st)" "$(cat err.txt)"
grep -v '^p' "$want" > want_nop.txt
grep -v '^p' out32.txt | cmp -s - want_nop.txt
result $? "printf32.exe: every line but the pointer-size one byte for byte as Wine's msvcrt writes it on x86-64" "$(grep -v '^p' out32.txt | diff want_nop.txt - | head -10 | tr '\n' ' ')"
line=$(grep '^p' "$want" | sed 's/0000000000001234/00001234/; s/0000000000000000/00000000/')
[ "$(grep '^p' out32.txt)" = "$line" ]
result $? "printf32.exe: %p writes 8 hex digits (x86-64: 16), upper case, zero-padded" "$(grep '^p' out32.txt)"

# The same table built against the UCRT (build/crt/printfu64.exe, printfu32.exe: mingw-w64's printf
# calls ucrtbase.dll's __stdio_common_vfprintf with _CRT_INTERNAL_PRINTF_LEGACY_WIDE_SPECIFIERS), against
# the output of printfu64.exe under Wine 8.0's ucrtbase (pe_printf.ucrt.wine.txt): the C99 behaviour —
# two-digit exponents, inf/nan/nan(ind), %F a conversion, %a.  printfu32.exe: all lines but the
# pointer-size one and line 33, whose arguments (ints and doubles for "%F" and "%Ff") do not match the
# UCRT's conversions, so what they read depends on the calling convention.
CLAUSE=PE-PRINTF-UCRT
crt=$(dirname "$top/${BUILD:-build}/hcpsim")/crt
[ -d "$crt" ] || crt=$top/build/crt
wantu=$top/scenarios/tests/pe_printf.ucrt.wine.txt
cp "$crt/printfu64.exe" "$crt/printfu32.exe" .
$HCPSIM run printfu64.exe > out64.txt 2> err.txt; st=$?
[ "$st" = 0 ] && [ ! -s err.txt ]; result $? "printfu64.exe runs to exit code 0 (status $st)" "$(cat err.txt)"
cmp -s out64.txt "$wantu"
result $? "printfu64.exe: ucrtbase.dll!__stdio_common_vfprintf: every line byte for byte as Wine's ucrtbase writes it ($(wc -l < "$wantu" | tr -d ' ') lines)" "$(diff "$wantu" out64.txt | head -10 | tr '\n' ' ')"
$HCPSIM run printfu64.exe > again.txt 2>&1
cmp -s out64.txt again.txt
result $? "printfu64.exe: a second run writes the same bytes"
$HCPSIM run printfu32.exe > out32.txt 2> err.txt; st=$?
[ "$st" = 0 ] && [ ! -s err.txt ]; result $? "printfu32.exe runs to exit code 0 (status $st)" "$(cat err.txt)"
grep -v '^p' "$wantu" | grep -v '^33:' > wantu_nop.txt
grep -v '^p' out32.txt | grep -v '^33:' | cmp -s - wantu_nop.txt
result $? "printfu32.exe: every line but the pointer-size one and line 33 as Wine's ucrtbase writes it on x86-64" "$(grep -v '^p' out32.txt | grep -v '^33:' | diff wantu_nop.txt - | head -10 | tr '\n' ' ')"
# msvcrt's printf reading guest memory (scenarios/examples/pe/printfmem.c; api/README.md "The C
# runtime": printf, host cost): it reads strings and arguments in pieces, so these are the edges of
# those pieces.  The expected text follows from the C standard and the program's bytes (Wine 8.0's
# msvcrt prints the same): a string ending on the last byte before unmapped memory, strings and a
# wide string (at an odd address) across a page boundary, twelve arguments (stack words past the
# registers), and %n rewriting the va_list word the next %d reads (4: "n:ab" written so far).  With
# an argument the program prints a string whose terminator would be past the end of its
# allocation: the run stops (status 125) naming the first byte past it, the address it printed.
CLAUSE=PE-PRINTF
cp "$pe/printfmem64.exe" "$pe/printfmem32.exe" .
printf 'end:aaaaaa|\r\ncross:page-crossing|-cro|rossing        |\r\nwide:wide|\r\nargs:1 2 3 4 5 6 7 8 9 10 eleven z|\r\nn:ab4|\r\n' > wantmem.txt
for b in 64 32; do
  $HCPSIM run printfmem$b.exe > outmem.txt 2> err.txt; st=$?
  [ "$st" = 0 ] && [ ! -s err.txt ] && cmp -s outmem.txt wantmem.txt
  result $? "printfmem$b.exe: msvcrt.dll!printf: strings at page ends and across pages, 12 arguments, %n then the word it wrote (status $st)" "$(diff wantmem.txt outmem.txt | head -6 | tr '\n' ' ') $(cat err.txt)"
  $HCPSIM run printfmem$b.exe x > outmem.txt 2> err.txt; st=$?
  at=$(sed -n 's/^at:\(0x\)*//p' outmem.txt | tr -d '\r')
  at=$(printf '%X' "$((0x${at:-0}))")
  [ "$st" = 125 ] && grep -q "msvcrt.dll!printf: access violation reading 0x$at " err.txt
  result $? "printfmem$b.exe: a string running into unmapped memory stops the run naming its first unreadable byte (0x$at, status $st)" "$(cat err.txt)"
done
exit $((fail > 0))
