#!/bin/sh
# The README's examples run and print what the README says they print.
#   The scenario: spin(1000) retires 4 + 2*1000 instructions and 2 + 1000 branches.
#   The program: its C block is built with mingw-w64, its shell block runs with hcpsim on PATH, and
#   what it prints is the text block after it, byte for byte; one more turn of `dec; jnz` adds 2
#   instructions and 1 branch (the README quotes prog.exe 1001's line); without --counters the
#   program reads zeros and gets one warning naming the options.
#   The tour table is what `make run` prints today.
CLAUSE=SIM-README-EXAMPLE
. scenarios/tests/lib/tap.sh
readme=$top/README.md
bin=$dir/bin
mkdir -p "$bin"
printf '#!/bin/sh\nexec %s "$@"\n' "$HCPSIM" >"$bin/hcpsim"
chmod +x "$bin/hcpsim"
echo "TAP version 13"

awk '/^```lua$/{on=1; next} /^```$/{if(on){exit}} on{print}' "$readme" > example.lua
result "$([ -s example.lua ]; echo $?)" "README.md has a Lua example"
out=$($HCPSIM run example.lua 2>&1); st=$?
result "$st" "it runs (status 0)" "status $st: $out"
want=$(printf '%d\t%d' $((4 + 2 * 1000)) $((2 + 1000)))
result "$([ "$out" = "$want" ]; echo $?)" "it prints what the README says" "it prints '$out', want '$want'"
grep -q "It prints \`$want\`" "$readme"
result $? "the README's text quotes $want"

# The program: the first ```c block, the ```sh block after it, the ```text block after that.
awk '/^```c$/ { n++; if (n == 1) { on = 1; next } } on && /^```$/ { exit } on { print }' "$readme" >prog.c
awk '/^```c$/ { c = 1 } c && /^```sh$/ { on = 1; next } on && /^```$/ { exit } on { print }' "$readme" >cmds.sh
awk '/^```c$/ { c = 1 } c && /^```sh$/ { s = 1 } s && /^```text$/ { on = 1; next } on && /^```$/ { exit } on { print }' \
  "$readme" >want.txt
result "$([ -s prog.c ] && [ -s cmds.sh ] && [ -s want.txt ] && grep -q 'prog.exe' cmds.sh; echo $?)" \
  "README.md has a program example: C source, the commands, their output"
PATH="$bin:$PATH" sh -e cmds.sh >got.txt 2>err.txt
st=$?
tr -d '\r' <got.txt >got.lf
cmp -s got.lf want.txt
result "$([ "$st" = 0 ] && cmp -s got.lf want.txt; echo $?)" \
  "the README's commands build and run it and print its text block" \
  "status $st: $(diff want.txt got.lf | tr '\n' '|') $(head -c 400 err.txt)"
line=$(grep '^instructions ' want.txt)
i0=$(echo "$line" | sed 's/^instructions \([0-9]*\), branches \([0-9]*\),.*/\1/')
b0=$(echo "$line" | sed 's/^instructions \([0-9]*\), branches \([0-9]*\),.*/\2/')
one=$($HCPSIM run --pmc instructions,branches --counters 0,1 prog.exe 1001 2>&1 | tr -d '\r')
want1="instructions $((i0 + 2)), branches $((b0 + 1)),"
case "$one" in "$want1"*) r=0 ;; *) r=1 ;; esac
result $r "one more turn of dec; jnz: 2 instructions and 1 branch more ($want1 ...)" "got '$one'"
grep -q "\`prog.exe 1001\` prints \`$want1" "$readme" ||
  grep -q "\`prog.exe 1001\` prints \`instructions $((i0 + 2)), branches $((b0 + 1))\`" "$readme"
result $? "the README's text quotes that line"
zero=$($HCPSIM run prog.exe 2>err.txt | tr -d '\r')
case "$zero" in "instructions 0, branches 0, CycleTime "*) r=0 ;; *) r=1 ;; esac
[ "$r" = 0 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q '^prog.exe: warning: .*--pmc .*--counters' err.txt
result $? "without --counters: zeros and one warning naming --pmc and --counters" "got '$zero'; stderr: $(cat err.txt)"

# The tour table in the README is what `make run` prints today (documentation stays current).
awk '/^## What `make run` shows/{on=1; next} on && /^```$/{n++; if (n == 2) exit; next} on && n == 1 {print}' \
  "$readme" >table
$HCPSIM run "$top/scenarios/examples/tour.lua" >tour 2>&1
missing=0
while IFS= read -r l; do grep -qxF "$l" tour || missing=$((missing + 1)); done <table
result "$([ -s table ] && [ "$missing" = 0 ]; echo $?)" "README's tour table matches make run" \
  "$missing line(s) differ from make run"
echo "1..$n"
[ "$fail" = 0 ]
