#!/bin/sh
# Command lines (api/README.md "Windows programs": the command line; "SHELL32"):
# scenarios/examples/pe/cmdline.c on both ISAs.
# - Its table through SHELL32.dll!CommandLineToArgvW: the expected arguments below follow
#   Microsoft's documented rules for CommandLineToArgvW (2n backslashes before a quote are n and
#   the quote delimits, 2n+1 are n and a literal quote, others are themselves; the program name is
#   taken whole up to the next quote or blank) and, for runs of quotes, the rule Windows applies
#   (a run of m quotes, 1 more inside a quoted part, gives m / 3 quotes and stays quoted when
#   m % 3 is 1), as Wine's shell32 tests state it (those tests pass on Windows); its failures
#   (no pNumArgs: NULL, ERROR_INVALID_PARAMETER) and the empty command line (the program's path).
# - The round trip: hcpsim quotes the arguments it gives a program so that both the C runtime's
#   argv and CommandLineToArgvW of GetCommandLineW give back each original argument.
# - A UCRT build whose name holds a blank: its path is quoted in the command line, and
#   _get_narrow/wide_winmain_command_line return what follows the quoted name.
# - 1,000 generated command lines through CommandLineToArgvW, against Wine's shell32.
# Each run twice (the same bytes), the x86-64 images' output against Wine's.
. scenarios/tests/lib/tap.sh
. "$top/scenarios/tests/lib/pe_family.sh"
crt=$(dirname "$pe")/crt
echo "TAP version 13"
tab=$(printf '\t')

# The table: each line is the command line in braces (a tab shown as \t), the argument count and
# each argument in brackets.
cat > want_table.txt <<'EOF'
SHELL32.dll!CommandLineToArgvW: {exe a b} -> 3: [exe] [a] [b]
SHELL32.dll!CommandLineToArgvW: {exe\ta\t\tb } -> 3: [exe] [a] [b]
SHELL32.dll!CommandLineToArgvW: {exe "a b" c} -> 3: [exe] [a b] [c]
SHELL32.dll!CommandLineToArgvW: {exe a\b c\\d} -> 3: [exe] [a\b] [c\\d]
SHELL32.dll!CommandLineToArgvW: {exe a\"b} -> 2: [exe] [a"b]
SHELL32.dll!CommandLineToArgvW: {exe a\\"b c"} -> 2: [exe] [a\b c]
SHELL32.dll!CommandLineToArgvW: {exe a\\\"b} -> 2: [exe] [a\"b]
SHELL32.dll!CommandLineToArgvW: {exe "a\\" b} -> 3: [exe] [a\] [b]
SHELL32.dll!CommandLineToArgvW: {exe "" b ""} -> 4: [exe] [] [b] []
SHELL32.dll!CommandLineToArgvW: {exe "a""b"} -> 2: [exe] [a"b]
SHELL32.dll!CommandLineToArgvW: {exe "a"""b"} -> 2: [exe] [a"b]
SHELL32.dll!CommandLineToArgvW: {exe "a""""b"} -> 2: [exe] [a"b]
SHELL32.dll!CommandLineToArgvW: {exe a""b} -> 2: [exe] [ab]
SHELL32.dll!CommandLineToArgvW: {exe "twelve"""""""""""" quotes" next} -> 3: [exe] [twelve"""" quotes] [next]
SHELL32.dll!CommandLineToArgvW: {exe "the crazy \\"""\\" quotes} -> 3: [exe] [the crazy \"\] [quotes]
SHELL32.dll!CommandLineToArgvW: {exe a\} -> 2: [exe] [a\]
SHELL32.dll!CommandLineToArgvW: {exe a\\ b} -> 3: [exe] [a\\] [b]
SHELL32.dll!CommandLineToArgvW: {exe "unterminated arg} -> 2: [exe] [unterminated arg]
SHELL32.dll!CommandLineToArgvW: {exe   } -> 1: [exe]
SHELL32.dll!CommandLineToArgvW: {exe} -> 1: [exe]
SHELL32.dll!CommandLineToArgvW: {"spaced exe" "next arg"} -> 2: [spaced exe] [next arg]
SHELL32.dll!CommandLineToArgvW: {"spaced exe"\targ} -> 2: [spaced exe] [arg]
SHELL32.dll!CommandLineToArgvW: {exe"file"path arg1} -> 2: [exe"file"path] [arg1]
SHELL32.dll!CommandLineToArgvW: {exe"path\ arg1} -> 2: [exe"path\] [arg1]
SHELL32.dll!CommandLineToArgvW: {\"exe "arg one"} -> 2: [\"exe] [arg one]
SHELL32.dll!CommandLineToArgvW: {"exe"arg" one" argtwo} -> 3: [exe] [arg one] [argtwo]
SHELL32.dll!CommandLineToArgvW: {"spaced exe\"arg1 arg2} -> 3: [spaced exe\] [arg1] [arg2]
SHELL32.dll!CommandLineToArgvW: {"two"" arg1 } -> 2: [two] [ arg1 ]
SHELL32.dll!CommandLineToArgvW: {"three""" arg2} -> 3: [three] [] [arg2]
SHELL32.dll!CommandLineToArgvW: {"four""""arg1} -> 2: [four] ["arg1]
SHELL32.dll!CommandLineToArgvW: { "arg"one argtwo} -> 3: [] [argone] [argtwo]
SHELL32.dll!CommandLineToArgvW: {"unterminated exe} -> 1: [unterminated exe]
SHELL32.dll!CommandLineToArgvW: {C:\hcpsim\x.exe --opt="v a" \\server\share\} -> 3: [C:\hcpsim\x.exe] [--opt=v a] [\\server\share\]
SHELL32.dll!CommandLineToArgvW: pNumArgs NULL: NULL, error 87 (ERROR_INVALID_PARAMETER)
SHELL32.dll!CommandLineToArgvW: lpCmdLine and pNumArgs NULL: NULL, error 87 (ERROR_INVALID_PARAMETER)
SHELL32.dll!CommandLineToArgvW: {} -> 1: [cmdlineBITS.exe], GetModuleFileNameW(NULL) equal
0 failed
EOF
CLAUSE=PE-IMPORTS
for bits in 64 32; do
  sed "s/BITS/$bits/" want_table.txt > want_table$bits.txt
  pe_expect cmdline $bits want_table$bits.txt
  pe_twice cmdline $bits
done
pe_wine cmdline '^$'

# 1,000 generated command lines (a, b, blanks, tabs, quotes, backslashes; cmdline.c --random):
# both ISAs split them alike, twice the same bytes, and as Wine's shell32 does (below).
CLAUSE=PE-IMPORTS
for bits in 64 32; do
  timeout 300 $HCPSIM run cmdline$bits.exe --random 1000 1 > out_rand$bits.txt 2> err_rand$bits.txt; st=$?
  tr -d "$cr" < out_rand$bits.txt > got_rand$bits.txt
  [ "$st" = 0 ] && [ ! -s err_rand$bits.txt ] && [ "$(tail -n 1 got_rand$bits.txt)" = "0 failed" ] &&
    [ "$(grep -c '^SHELL32.dll!CommandLineToArgvW: {' got_rand$bits.txt)" -gt 900 ]
  result $? "cmdline$bits.exe --random 1000 1: SHELL32.dll!CommandLineToArgvW splits $(($(wc -l < got_rand$bits.txt) - 1)) generated command lines, each a block LocalFree frees" \
    "status $st: $(head -c 300 err_rand$bits.txt)"
  timeout 300 $HCPSIM run cmdline$bits.exe --random 1000 1 > again_rand$bits.txt 2>&1
  cmp -s out_rand$bits.txt again_rand$bits.txt
  result $? "cmdline$bits.exe --random 1000 1: a second run writes the same bytes"
done
cmp -s got_rand64.txt got_rand32.txt
result $? "cmdline32.exe --random 1000 1: the same arguments as cmdline64.exe" "$(diff got_rand64.txt got_rand32.txt | head -4 | tr '\n' '|')"

# The round trip: arguments with blanks, a tab, quotes, backslashes before quotes and at the end,
# an empty one.  The expected lines are the arguments themselves, each from both parsers.
set -- plain "two words" "tab${tab}in" "" 'a"b' '"quoted"' 'back\slash' 'trail\' 'a b\' '\\server\share' \
  'x\"y' 'x\\"y z' '"' '""""' '--opt=va"l ue' 'a\\\\b c'
{
  echo "argc $(($# + 1)); SHELL32.dll!CommandLineToArgvW: $(($# + 1))"
  echo "program [PROG] [PROG]"
  i=0
  for a in "$@"; do
    i=$((i + 1))
    s=$(printf '%s' "$a" | sed 's/\t/\\t/g')
    printf 'argv[%d] [%s] [%s] same\n' $i "$s" "$s"
  done
} > want_rt.txt
CLAUSE=PE-CLI-ARGS
for bits in 64 32; do
  sed "s/PROG/cmdline$bits.exe/g" want_rt.txt > want_rt$bits.txt
  timeout 300 $HCPSIM run cmdline$bits.exe "$@" > out_rt$bits.txt 2> err_rt$bits.txt; st=$?
  tr -d "$cr" < out_rt$bits.txt > got_rt$bits.txt
  [ "$st" = 0 ] && [ ! -s err_rt$bits.txt ] && cmp -s got_rt$bits.txt want_rt$bits.txt
  result $? "cmdline$bits.exe: $# arguments (blanks, a tab, quotes, backslashes before quotes and at the end, an empty one) come back unchanged from msvcrt.dll's argv and SHELL32.dll!CommandLineToArgvW of GetCommandLineW" \
    "status $st: $(diff got_rt$bits.txt want_rt$bits.txt | head -6 | tr '\n' '|') $(head -c 300 err_rt$bits.txt)"
  timeout 300 $HCPSIM run cmdline$bits.exe "$@" > again_rt$bits.txt 2>&1
  cmp -s out_rt$bits.txt again_rt$bits.txt
  result $? "cmdline$bits.exe with arguments: a second run writes the same bytes"
done

# The UCRT builds under a name with a blank: the quoted path ends at its closing quote.
CLAUSE=PE-CRT-UCRT
for bits in u64 u32; do
  cp "$crt/cmdline$bits.exe" "cmd line$bits.exe"
  cat > want_wm$bits.txt <<EOF
argc 4; SHELL32.dll!CommandLineToArgvW: 4
program [cmd line$bits.exe] [cmd line$bits.exe]
argv[1] [a] [a] same
argv[2] [b c] [b c] same
argv[3] [d"e] [d"e] same
ucrtbase.dll!_get_narrow_winmain_command_line: [a "b c" d\\"e]
ucrtbase.dll!_get_wide_winmain_command_line: [a "b c" d\\"e]
EOF
  timeout 300 $HCPSIM run "cmd line$bits.exe" a "b c" 'd"e' > out_wm$bits.txt 2> err_wm$bits.txt; st=$?
  tr -d "$cr" < out_wm$bits.txt > got_wm$bits.txt
  result_lines want_wm$bits.txt got_wm$bits.txt "\"cmd line$bits.exe\" a \"b c\" d\\\"e"
  [ "$st" = 0 ] && [ ! -s err_wm$bits.txt ] && [ "$(wc -l < got_wm$bits.txt)" = 7 ]
  result $? "\"cmd line$bits.exe\": runs to exit 0 writing nothing else (status $st)" "$(head -c 300 err_wm$bits.txt)"
  timeout 300 $HCPSIM run "cmd line$bits.exe" a "b c" 'd"e' > again_wm$bits.txt 2>&1
  cmp -s out_wm$bits.txt again_wm$bits.txt
  result $? "\"cmd line$bits.exe\": a second run writes the same bytes"
done

# Wine: the generated lines, the round trip and the UCRT build under its spaced name (x86-64), byte
# for byte
CLAUSE=PE-WINE
wine=$(command -v wine64 || command -v wine)
if [ -n "$wine" ]; then
  for run in rand rt wm; do
    if [ $run = rand ]; then
      exe=cmdline64.exe
      WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" $exe --random 1000 1 > wine_$run.txt 2> wine_$run.err; wst=$?
      ours=out_rand64.txt
    elif [ $run = rt ]; then
      exe=cmdline64.exe
      WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" $exe "$@" > wine_$run.txt 2> wine_$run.err; wst=$?
      ours=out_rt64.txt
    else
      exe="cmd lineu64.exe"
      WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" "$exe" a "b c" 'd"e' > wine_$run.txt 2> wine_$run.err; wst=$?
      ours=out_wmu64.txt
    fi
    if [ "$wst" = 0 ] && [ -s wine_$run.txt ]; then
      cmp -s wine_$run.txt $ours
      same=$?
      what="with arguments: hcpsim writes what Wine writes (its own command line built by Wine's launcher)"
      [ $run = rand ] && what="--random 1000 1: SHELL32.dll!CommandLineToArgvW: hcpsim writes what Wine writes"
      result $same "$exe $what" \
        "$(diff wine_$run.txt $ours | head -6 | tr '\n' '|')"
    else
      n=$((n + 1))
      echo "ok $n - $exe with arguments: hcpsim writes what Wine writes [PE-WINE] # SKIP wine did not run it (status $wst)"
    fi
  done
else
  n=$((n + 1))
  echo "ok $n - cmdline64.exe with arguments: hcpsim writes what Wine writes [PE-WINE] # SKIP no wine"
fi
command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
echo "1..$n"
exit $((fail > 0))
