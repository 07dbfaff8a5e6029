#!/bin/sh
# The C runtime against an independent implementation (api/README.md "The C runtime"): each test
# program of scenarios/examples/crt/ (one per family: string, ctype, stdlib, time, math, misc,
# ucrt) in its four builds (x86-64 and i386, msvcrt.dll and the UCRT) runs twice in hcpsim; it
# must exit 0 with nothing on stderr, print the same bytes both times, and print, line by line,
# what the same program printed under Wine 8.0 (the references in scenarios/tests/crt/, made by
# crt/wine.sh with the x86-64 builds) — except the lines crt/differences.txt lists: where Wine is
# known to differ from Windows (each with the source that decides) and the i386 builds' lines that
# depend on the pointer size ("p " lines), whose expected text is given there.  Every line names
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

# math.c's values: thousands of arguments (a fixed pseudo-random sequence and known hard cases); each
# result must be the correctly rounded value that crt/math_ref.py computed with mpmath at 2,400 bits
# (crt/math.values.*.txt), in every build: one TAP line per function.
CLAUSE=PE-CRT-MATH
for b in 64 32 u64 u32; do
  case $b in u*) dll=ucrtbase.dll; want=$ref/math.values.ucrt.txt ;; *) dll=msvcrt.dll; want=$ref/math.values.msvcrt.txt ;; esac
  [ -f "math$b.exe" ] || cp "$crt/math$b.exe" .
  $HCPSIM run "math$b.exe" values > out1.txt 2> err1.txt; st=$?
  $HCPSIM run "math$b.exe" values > out2.txt 2>&1
  [ "$st" = 0 ] && [ ! -s err1.txt ] && cmp -s out1.txt out2.txt
  result $? "math$b.exe values: runs to exit code 0, twice the same bytes" "status $st: $(head -c 300 err1.txt)"
  tr -d "$cr" < out1.txt > got.txt
  [ "$(wc -l < got.txt)" = "$(wc -l < "$want")" ]
  result $? "math$b.exe values: as many lines as $(basename "$want")" "got $(wc -l < got.txt)"
  paste -d '|' got.txt "$want" | awk -F'|' '
    { split($2, w, " "); f = w[1]; if (!(f in n)) order[++k] = f; n[f]++; if ($1 != $2) { bad[f]++; if (!(f in first)) first[f] = $1 " (expected " $2 ")" } }
    END { for (i = 1; i <= k; i++) { f = order[i]; print (f in bad ? "bad" : "ok") "\t" f "\t" n[f] "\t" first[f] } }' > verdict.txt
  while IFS='	' read -r v f count first; do
    [ "$v" = ok ]
    result $? "math$b.exe values: $dll!$f: $count arguments, each result correctly rounded" "first difference: $first"
  done < verdict.txt
done

# misc.c's endings (Microsoft's documentation of abort, raise and exit; the exit codes as Wine gives them):
# abort writes msvcrt's message on stderr (the UCRT's release build none) and ends with status 3, after
# a SIGABRT handler when one is set; raise(SIGTERM) left at SIG_DFL ends with status 3; exit(7) runs
# the atexit functions last registered first.
CLAUSE=PE-CRT-MISC
msg=$(printf '\nThis application has requested the Runtime to terminate it in an unusual way.\nPlease contact the application'"'"'s support team for more information.\n')
for b in 64 32 u64 u32; do
  case $b in u*) dll=ucrtbase.dll; want_err="" ;; *) dll=msvcrt.dll; want_err=$msg ;; esac
  [ -f "misc$b.exe" ] || cp "$crt/misc$b.exe" .
  $HCPSIM run "misc$b.exe" abort > out.txt 2> err.txt; st=$?
  [ "$st" = 3 ] && [ ! -s out.txt ] && [ "$(cat err.txt)" = "$want_err" ]
  result $? "misc$b.exe abort: $dll!abort: status 3$([ -n "$want_err" ] && echo ", msvcrt's message on stderr")" "status $st: $(head -c 200 err.txt)"
  $HCPSIM run "misc$b.exe" sigabrt > out.txt 2> err.txt; st=$?
  [ "$st" = 3 ] && [ "$(tr -d '\r' < out.txt)" = "$dll!abort: the SIGABRT handler ran (22)" ] && [ "$(cat err.txt)" = "$want_err" ]
  result $? "misc$b.exe sigabrt: $dll!abort: the SIGABRT handler runs, then status 3" "status $st: $(cat out.txt err.txt | head -c 300)"
  $HCPSIM run "misc$b.exe" raise > out.txt 2> err.txt; st=$?
  [ "$st" = 3 ] && [ ! -s out.txt ] && [ ! -s err.txt ]
  result $? "misc$b.exe raise: $dll!raise: SIGTERM at SIG_DFL ends the process with status 3" "status $st: $(cat out.txt err.txt | head -c 300)"
  $HCPSIM run "misc$b.exe" exit > out.txt 2> err.txt; st=$?
  [ "$st" = 7 ] && [ "$(tr -d '\r' < out.txt | tr '\n' '|')" = "$dll!exit: atexit function 2 (registered last, runs first)|$dll!exit: atexit function 1|" ]
  result $? "misc$b.exe exit: $dll!exit: the atexit functions, last registered first, then status 7" "status $st: $(cat out.txt err.txt | head -c 300)"
done
# ucrt.c terminate: the handler set_terminate installed runs as the program's code, then abort: status 3
CLAUSE=PE-CRT-UCRT
for b in u64 u32; do
  [ -f "ucrt$b.exe" ] || cp "$crt/ucrt$b.exe" .
  $HCPSIM run "ucrt$b.exe" terminate > out.txt 2> err.txt; st=$?
  [ "$st" = 3 ] && [ "$(tr -d '\r' < out.txt)" = "ucrtbase.dll!terminate: the handler ran" ] && [ ! -s err.txt ]
  result $? "ucrt$b.exe terminate: ucrtbase.dll!terminate: the terminate handler runs, then abort ends the process with status 3" "status $st: $(cat out.txt err.txt | head -c 300)"
  # quick_exit, _exit, _cexit and _invalid_parameter_noinfo_noreturn (Microsoft's documentation;
  # the statuses and lines as Wine gives them)
  $HCPSIM run "ucrt$b.exe" quick > out.txt 2> err.txt; st=$?
  [ "$st" = 5 ] && [ "$(tr -d '\r' < out.txt)" = "ucrtbase.dll!quick_exit: the _crt_at_quick_exit function ran" ] && [ ! -s err.txt ]
  result $? "ucrt$b.exe quick: ucrtbase.dll!quick_exit: the _crt_at_quick_exit function runs, no atexit function, status 5" "status $st: $(cat out.txt err.txt | head -c 300)"
  $HCPSIM run "ucrt$b.exe" exit > out.txt 2> err.txt; st=$?
  [ "$st" = 6 ] && [ ! -s out.txt ] && [ ! -s err.txt ]
  result $? "ucrt$b.exe exit: ucrtbase.dll!_exit: status 6, no atexit function" "status $st: $(cat out.txt err.txt | head -c 300)"
  $HCPSIM run "ucrt$b.exe" cexit > out.txt 2> err.txt; st=$?
  [ "$st" = 0 ] && [ "$(tr -d '\r' < out.txt | tr '\n' '|')" = "ucrtbase.dll!_cexit: the atexit function ran|ucrtbase.dll!_cexit: returned|" ] && [ ! -s err.txt ]
  result $? "ucrt$b.exe cexit: ucrtbase.dll!_cexit: runs the atexit functions and returns" "status $st: $(cat out.txt err.txt | head -c 300)"
  $HCPSIM run "ucrt$b.exe" noreturn > out.txt 2> err.txt; st=$?
  [ "$st" = 23 ] && [ "$(tr -d '\r' < out.txt)" = "ucrtbase.dll!_invalid_parameter_noinfo_noreturn: the handler ran" ] && [ ! -s err.txt ]
  result $? "ucrt$b.exe noreturn: ucrtbase.dll!_invalid_parameter_noinfo_noreturn: the handler runs, then the process ends with 0xC0000417 (status 23)" "status $st: $(cat out.txt err.txt | head -c 300)"
done
# A C hello world built against the UCRT (scenarios/examples/pe/hello.c with -lucrt: its imports are
# api-ms-win-crt-*-l1-1-0.dll's, resolved to ucrtbase.dll): hcpsim check finds nothing missing, and
# it prints what it prints under Wine's ucrtbase (crt/hellou.ucrt.txt: the C99 exponent digits),
# "to stderr" on stderr, status 7.
CLAUSE=PE-CRT-UCRT
for b in u64 u32; do
  cp "$crt/hello$b.exe" .
  $HCPSIM check "hello$b.exe" > check.txt; st=$?
  [ "$st" = 0 ] && tail -1 check.txt | grep -q "can run: nothing it imports is missing"
  result $? "hello$b.exe: hcpsim check: its api-ms-win-crt-* imports are all there (status $st)" "$(tail -1 check.txt)"
  $HCPSIM run "hello$b.exe" a b > out.txt 2> err.txt; st=$?
  [ "$st" = 7 ] && cmp -s out.txt "$ref/hellou.ucrt.txt" && [ "$(tr -d "$cr" < err.txt)" = "to stderr" ]
  result $? "hello$b.exe a b: ucrtbase.dll!__stdio_common_vfprintf: Wine's output byte for byte, stderr, status 7" "status $st: $(head -c 300 out.txt err.txt)"
done
# The cost of a call whose work grows with its input (api/README.md "The C runtime": "Cost"): the
# spec's work=byte:1/1 rows charge 1 kernel cycle per unit besides the api_call, so between the
# same call of N and of 0 bytes the thread's cycle time grows by memcpy 2N (N read, N written),
# strlen N (read), sprintf N (written); under the unit cost table (API calls free) by nothing.
CLAUSE=PE-CRT-COST
pe=$(dirname "$crt")/pe
for b in 64 32; do
  cp "$pe/crtcost$b.exe" .
  $HCPSIM run "crtcost$b.exe" > out.txt 2> err.txt; st=$?
  want="memcpy 1000: 2000|strlen 1000: 1000|sprintf 1000: 1000|memcpy 65536: 131072|strlen 65536: 65536|sprintf 65536: 65536|"
  [ "$st" = 0 ] && [ "$(tr -d "$cr" < out.txt | tr '\n' '|')" = "$want" ]
  result $? "crtcost$b.exe: msvcrt.dll!memcpy: 2 cycles a byte; msvcrt.dll!strlen: 1 a byte read; msvcrt.dll!sprintf: 1 a byte written, besides the api_call" "status $st: $(tr -d "$cr" < out.txt | tr '\n' '|') $(head -c 200 err.txt)"
  $HCPSIM run --cost unit "crtcost$b.exe" > out.txt 2> err.txt; st=$?
  [ "$st" = 0 ] && [ "$(tr -d "$cr" < out.txt | tr '\n' '|')" = "$(echo "$want" | sed 's/: [0-9]*|/: 0|/g')" ]
  result $? "crtcost$b.exe --cost unit: the work costs nothing where API calls cost nothing" "status $st: $(tr -d "$cr" < out.txt | tr '\n' '|')"
done
echo "1..$n"
exit $((fail > 0))
