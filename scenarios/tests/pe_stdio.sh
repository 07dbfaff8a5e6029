#!/bin/sh
# msvcrt's stdio on files and the console (api/README.md "msvcrt's stdio"):
# scenarios/examples/pe/stdio.c checks each stream and descriptor function's documented outcomes
# (its "ok"/"not ok" lines); this file turns them into TAP on x86-64 and i386, checks the files it
# leaves byte for byte (text mode's "\r\n", derived here from what it writes), perror's line, a
# second run's bytes, standard input (empty by default, --stdin FILE or -), the stream locks with
# printlock.c on two CPUs (no line mixed with another thread's), and Wine's lines (x86-64).
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
cr=$(printf '\r')
echo "TAP version 13"
{ # runs.csv as fprintf writes it in text mode
  printf 'Run,name,ms\r\n1,odd,1.25\r\n2,even,2.50\r\n3,odd,3.75\r\n4,even,5.00\r\n5,odd,6.25\r\n6,last,7.50\r\n'
} > want.csv
printf '%s\n' . ./ctrlz.txt ./data.bin ./runs.csv ./scan.txt ./text.txt > want.list
for bits in 64 32 u64 u32; do # u: built against the UCRT (ucrtbase.dll's rows)
  case $bits in
    u*) cp "$pe/../crt/stdio$bits.exe" . ;;
    *) cp "$pe/stdio$bits.exe" "$pe/printlock$bits.exe" . ;;
  esac
  crt=msvcrt.dll scanf=msvcrt.dll!scanf
  case $bits in u*) crt=ucrtbase.dll scanf="ucrtbase.dll!__stdio_common_vfscanf: scanf" ;; esac
  for run in 1 2; do
    rm -rf "d$run" && mkdir "d$run"
    timeout 120 $HCPSIM run --cwd "d$run" "stdio$bits.exe" > "out$run.txt" 2> "err$run.txt"
    echo $? > "st$run.txt"
  done
  CLAUSE=PE-STDIO
  tr -d "$cr" < out1.txt > o.txt
  while IFS= read -r line; do
    line=$(printf '%s' "$line" | sed 's/\\/\\\\/g') # tap.sh's echo reads backslashes
    case "$line" in
      "ok "*) result 0 "stdio$bits.exe: ${line#ok }" ;;
      "not ok "*) result 1 "stdio$bits.exe: ${line#not ok }" ;;
    esac
  done < o.txt
  [ "$(cat st1.txt)" = 0 ] && [ "$(tail -n 1 o.txt)" = "0 failed" ]
  result $? "stdio$bits.exe: runs to exit code 0, no check failed" "status $(cat st1.txt)"
  # perror (Microsoft's page): "message: " and errno's message, or the message alone when the
  # argument is empty or NULL; the messages are _sys_errlist's (ENOENT, EACCES, EBADF)
  printf 'stdio.c: No such file or directory\r\nPermission denied\r\nBad file descriptor\r\n' | cmp -s - err1.txt
  result $? "stdio$bits.exe: $crt!perror: \"stdio.c: \" and errno's message (ENOENT) on stderr, text mode; \"\" and NULL: the message alone (EACCES, EBADF)" "$(od -c err1.txt | head -4)"
  cmp -s out1.txt out2.txt && cmp -s err1.txt err2.txt
  result $? "stdio$bits.exe: a second run writes the same bytes"
  (cd d1 && find . | LC_ALL=C sort) > got.list
  cmp -s got.list want.list
  result $? "stdio$bits.exe: the folder holds what the program left (its temporary and renamed files gone)" "$(tr '\n' ' ' < got.list)"
  case $bits in # msvcrt's builds end by writing 'R' over the first byte with _flsbuf (the UCRT has none)
    u*) sed '1s/^R/r/' want.csv | cmp -s - d1/runs.csv ;;
    *) cmp -s d1/runs.csv want.csv ;;
  esac
  result $? "stdio$bits.exe: runs.csv: fprintf's lines with \"\\\\r\\\\n\" (text mode)" "$(od -c d1/runs.csv | head -3)"
  printf '\001\000\000\000\376\377\377\377\015\012\015\012\004\000\000\000Z' | cmp -s - d1/data.bin
  result $? "stdio$bits.exe: data.bin: fwrite's 16 bytes in binary mode, then \"a\"'s Z" "$(od -c d1/data.bin | head -2)"
  printf 'a\r\nb\r\n' | cmp -s - d1/text.txt && printf 'ab\032cd' | cmp -s - d1/ctrlz.txt
  result $? "stdio$bits.exe: text.txt and ctrlz.txt hold their bytes"
  # standard input
  printf '1 2 3\n4\r\n5\n' > nums.txt
  $HCPSIM run --cwd d1 --stdin nums.txt "stdio$bits.exe" stdin > o.txt 2> err.txt
  [ "$(tr -d "$cr" < o.txt)" = "$(printf 'stdin: 5 numbers, sum 15, then scanf returns EOF: 1\ngetchar at the end: -1')" ]
  result $? "stdio$bits.exe stdin: $scanf: with --stdin FILE it reads the numbers through, then EOF; $crt!getchar: EOF (-1) at the end" "$(cat o.txt err.txt)"
  $HCPSIM run --cwd d1 "stdio$bits.exe" stdin > o.txt 2> err.txt
  [ "$(tr -d "$cr" < o.txt | head -n 1)" = "stdin: 0 numbers, sum 0, then scanf returns EOF: 1" ]
  result $? "stdio$bits.exe stdin: without --stdin the input is empty" "$(cat o.txt)"
  printf '40 2' | $HCPSIM run --cwd d1 --stdin - "stdio$bits.exe" stdin > o.txt 2> err.txt
  [ "$(tr -d "$cr" < o.txt | head -n 1)" = "stdin: 2 numbers, sum 42, then scanf returns EOF: 1" ]
  result $? "stdio$bits.exe stdin: --stdin -: hcpsim's own standard input" "$(cat o.txt)"
  $HCPSIM run --cwd d1 --stdin no-such-file.txt "stdio$bits.exe" stdin > o.txt 2> err.txt
  st=$?
  [ "$st" = 2 ] && [ ! -s o.txt ] && grep -q "no-such-file.txt: cannot read it as the program's standard input" err.txt
  result $? "stdio$bits.exe: --stdin of a file that cannot be read: status 2 before the program runs, naming it" \
    "status $st: $(cat err.txt)"
  case $bits in u*) continue ;; esac # the stream locks: printlock.c, msvcrt's builds
  CLAUSE=PE-STDIO-LOCK
  $HCPSIM run --cpus 2 "printlock$bits.exe" > p1.txt 2> err.txt; st=$?
  $HCPSIM run --cpus 2 "printlock$bits.exe" > p2.txt 2>> err.txt
  tr -d "$cr" < p1.txt > p.txt
  bad=$(grep -cvE '^(A [0-9][0-9]: a{40}|B [0-9][0-9]: b{40})$' p.txt)
  [ "$st" = 0 ] && [ "$bad" = 0 ] && [ "$(wc -l < p.txt)" = 80 ]
  result $? "printlock$bits.exe on 2 CPUs: 80 lines, each whole (mingw-w64's printf holds the lock; msvcrt.dll!fputs waits for it)" "status $st, $bad mixed lines: $(head -3 p.txt)"
  [ "$(grep '^A' p.txt | cut -c3-4 | tr '\n' ' ')" = "$(seq -w 0 39 | tr '\n' ' ')" ] &&
    [ "$(grep '^B' p.txt | cut -c3-4 | tr '\n' ' ')" = "$(seq -w 0 39 | tr '\n' ' ')" ]
  result $? "printlock$bits.exe: each thread's lines in its own order"
  grep -q '^A' p.txt && grep -q '^B' p.txt && [ "$(head -n 40 p.txt | grep -c '^A')" -lt 40 ]
  result $? "printlock$bits.exe: the threads ran at once (their lines alternate, not all of A first)"
  cmp -s p1.txt p2.txt
  result $? "printlock$bits.exe: a second run writes the same bytes"
done

# stdio64.exe and stdiou64.exe under Wine: every line but the [hcpsim] and [not Wine] ones
CLAUSE=PE-WINE
wine=$(command -v wine64 || command -v wine)
for prog in stdio64 stdiou64; do
  if [ -z "$wine" ]; then
    echo "ok $((n + 1)) - $prog.exe: Wine writes the same lines [PE-WINE] # SKIP no wine"
    n=$((n + 1))
    continue
  fi
  rm -rf w64 && mkdir w64
  (cd w64 && WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" ../$prog.exe > ../wine.txt 2> ../wine.err); wst=$?
  command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
  if [ -s wine.txt ]; then # it ran (its status is the program's own)
    rm -rf s && mkdir s
    $HCPSIM run --cwd s $prog.exe 2>/dev/null | grep -v '\[hcpsim\]\|\[not Wine\]' | tr -d "$cr" > sim.txt
    tr -d "$cr" < wine.txt | cmp -s - sim.txt
    result $? "$prog.exe: Wine 8.0 writes the same lines (its [hcpsim] and [not Wine] checks aside)" "$(tr -d "$cr" < wine.txt | diff - sim.txt | head -5)"
    # (a fresh prefix makes Wine's loader say "wine: created the configuration directory ...")
    tr -d "$cr" < wine.err | grep -v '^wine: ' > wperror.txt
    printf 'stdio.c: No such file or directory\nPermission denied\nBad file descriptor\n' | cmp -s - wperror.txt
    result $? "$prog.exe: Wine 8.0's perror lines are the ones expected above (with a message, empty, NULL)" "$(head -4 wperror.txt | tr '\n' '|')"
  else
    echo "ok $((n + 1)) - $prog.exe: Wine writes the same lines [PE-WINE] # SKIP wine did not run the program (status $wst)"
    n=$((n + 1))
    echo "ok $((n + 1)) - $prog.exe: Wine 8.0's perror lines [PE-WINE] # SKIP wine did not run the program (status $wst)"
    n=$((n + 1))
  fi
done
echo "1..$n"
exit $((fail > 0))
