#!/bin/sh
# Machine options on the command line of `hcpsim run PROGRAM.exe` (scenarios/README.md "Windows
# programs"): the option table's names and ranges, --pmc and --counters, each value checked with a
# message naming the option.  counters.exe (scenarios/examples/pe/counters.c) profiles a loop of
# `dec; jnz` run N times and prints HwCountersCount, HwCounters[0..1].Value and whether the read
# (flag HARDWARE_COUNTERS alone) wrote CycleTime, one per line.
CLAUSE=PE-CLI-OPTIONS
. scenarios/tests/lib/tap.sh
cp "$top/build/pe/counters64.exe" "$top/build/pe/counters32.exe" . || exit 1
exe64=counters64.exe
exe32=counters32.exe
# msvcrt writes text mode: lines end in CR LF
run() { $HCPSIM run "$@" 2>err.txt | tr -d '\r' | tr '\n' ' ' | sed 's/ $//'; }
for exe in "$exe64" "$exe32"; do
  isa=x86-64; [ "$exe" = "$exe32" ] && isa=i386
  one=$(run --pmc instructions,branches --counters 0,1 "$exe" 1)
  many=$(run --pmc instructions,branches --counters 0,1 "$exe" 1001)
  set -- $one; c1=$1 i1=$2 b1=$3 t1=$4
  set -- $many; cn=$1 in=$2 bn=$3
  # 1000 more turns of the loop: 2 instructions (dec, jnz) and 1 branch each; the rest is the same code.
  result "$([ "$c1" = 2 ] && [ "$cn" = 2 ]; echo $?)" "$isa: --counters 0,1 configures two counters" "got '$one'"
  result "$([ "$((in - i1))" = 2000 ]; echo $?)" "$isa: PMC0 = instructions: 1000 more turns count 2000 more" \
    "'$one' then '$many'"
  result "$([ "$((bn - b1))" = 1000 ]; echo $?)" "$isa: PMC1 = branches: 1000 more turns count 1000 more" \
    "'$one' then '$many'"
  swapped=$(run --pmc instructions,branches --counters 1,0 "$exe" 1)
  result "$([ "$swapped" = "2 $b1 $i1 1" ]; echo $?)" "$isa: --counters 1,0 puts PMC1 in element 0" "got '$swapped'"
  none=$(run "$exe" 1)
  # no configured counter: HwCountersCount 0 and the slots as the program left them, zero (observed
  # semantics, a program's default: api/README.md "Semantics"); CycleTime written all the same
  result "$([ "$none" = "0 0 0 1" ]; echo $?)" "$isa: without --counters nothing is configured" "got '$none'"
  # A program follows Windows 10/11 by default: a read with HARDWARE_COUNTERS alone writes CycleTime
  # there (HCP-SPEC §11), and only under --semantics documented is it left as the program set it, 0.
  CLAUSE=PE-SEMANTICS
  result "$([ "$t1" = 1 ]; echo $?)" "$isa: by default a program's HARDWARE_COUNTERS read gets CycleTime (observed semantics)" \
    "got '$one'"
  doc=$(run --semantics documented --pmc instructions,branches --counters 0,1 "$exe" 1)
  set -- $doc
  result "$([ "$4" = 0 ] && [ "$1 $2 $3" = "$c1 $i1 $b1" ]; echo $?)" \
    "$isa: --semantics documented leaves CycleTime unwritten, the counters the same" "got '$doc', observed '$one'"
  CLAUSE=PE-CLI-OPTIONS
done
t=$(run --platform win7-x64 --cpus 4 --semantics observed --pmc instructions,branches --counters 0,1 "$exe64" 1)
result "$([ -n "$t" ] && [ ! -s err.txt ]; echo $?)" "--platform of the image's ISA, --cpus, --semantics are taken" \
  "$(cat err.txt)"
t=$(run --max-cycles 100000000 --stack-size 65536 --precise-faults false "$exe64" 1)
result "$([ -n "$t" ]; echo $?)" "dashed and underscored names of integer and boolean options" "$(cat err.txt)"
check() { # name, expected stderr line, arguments...
  name=$1 want=$2
  shift 2
  $HCPSIM run "$@" >out.txt 2>err.txt
  st=$?
  got=$(cat err.txt)
  result "$([ "$st" = 2 ] && [ "$got" = "$want" ]; echo $?)" "$name" "status $st, stderr: $got; want: $want"
}
check "a value out of the option table's range" "hcpsim: --cpus 0: out of range (1..64)" --cpus 0 "$exe64"
check "an integer option given a word" "hcpsim: --max-cycles x: not an integer" --max-cycles x "$exe64"
check "an unknown event" \
  "hcpsim: --pmc instructions,foo: unknown PMU event 'foo' in pmc[2] (valid: instructions, cycles, branches, ref-cycles, cond-branches, branch-misses, loads, stores, l1d-misses, l2-misses, llc-references, llc-misses)" \
  --pmc instructions,foo "$exe64"
check "a PMC index past the last" "hcpsim: --counters 0,99: '99' is not a PMC index (0..15)" --counters 0,99 "$exe64"
check "a platform of another ISA" "hcpsim: counters64.exe is x64 code; --platform win7-x86 runs x86 programs" \
  --platform win7-x86 "$exe64"
check "a boolean option given a word" "hcpsim: --cache maybe: true or false (its table form is for scenarios: hcp.machine{})" \
  --cache maybe "$exe64"
check "an option without its value" "hcpsim: --cpus needs a value (hcpsim describe: machine options)" --cpus
# The wrapper convention (scenarios/README.md "Windows programs"): the program's first word ends
# hcpsim's options, as valgrind's and wine's do; every later word is the program's, also when it is
# spelt like an hcpsim option.  args.exe prints its argument count, then each argument in brackets.
CLAUSE=PE-CLI-ARGS
cp "$top/build/pe/args64.exe" "$top/build/pe/hello64.exe" . || exit 1
out=$($HCPSIM run args64.exe --seed 3 --iterations 100 --cpus 2 --report r.json -- x 2>err.txt | tr -d '\r' | tr '\n' '|')
st=$?
want="10 arguments|[--seed]|[3]|[--iterations]|[100]|[--cpus]|[2]|[--report]|[r.json]|[--]|[x]|"
result "$([ "$out" = "$want" ] && [ ! -s err.txt ] && [ ! -e r.json ]; echo $?)" \
  "words after the program reach it, those spelt like hcpsim's options and '--' too; hcpsim takes none (no r.json)" \
  "got '$out', stderr: $(cat err.txt)"
out=$($HCPSIM run --seed 3 --cpus 2 -- args64.exe a 2>err.txt | tr -d '\r' | tr '\n' '|')
result "$([ "$out" = "1 arguments|[a]|" ] && [ ! -s err.txt ]; echo $?)" \
  "options before the program are hcpsim's, and '--' before it ends them" "got '$out', stderr: $(cat err.txt)"
out=$($HCPSIM run args64.exe --help 2>err.txt | tr -d '\r' | tr '\n' '|')
result "$([ "$out" = "1 arguments|[--help]|" ] && [ ! -s err.txt ]; echo $?)" \
  "--help after the program is the program's" "got '$out', stderr: $(cat err.txt)"
$HCPSIM run --help >out.txt 2>err.txt
grep -q "after PROGRAM.exe is the program's" out.txt
result $? "hcpsim run --help states the rule" "$(head -5 out.txt)"
# hello.exe exits 7 after printing its arguments: a failing program that got words spelt like
# hcpsim's options is told where they went, once, naming them; the words themselves reach it.
$HCPSIM run hello64.exe --seed 3 --iterations 100 --trace t.json >out.txt 2>err.txt
st=$?
note="hcpsim: note: '--seed', '--trace' went to hello64.exe as its arguments: hcpsim reads its own options only before the program (hcpsim run [OPTIONS] PROGRAM.exe [PROGRAM ARGUMENTS...])"
result "$([ "$st" = 7 ] && [ "$(tr -d '\r' <err.txt)" = "to stderr
$note" ] && grep -q 'argv\[5\]=--trace' out.txt && [ ! -e t.json ]; echo $?)" \
  "a program that fails after getting hcpsim's option names: a note names them and the rule" \
  "status $st, stderr: $(cat err.txt)"
$HCPSIM run hello64.exe --iterations 100 >out.txt 2>err.txt
result "$([ "$(tr -d '\r' <err.txt)" = "to stderr" ]; echo $?)" "no note for words that are not hcpsim's options" \
  "$(cat err.txt)"
# A program that enables counters none configures gets a warning, once, naming the options that
# configure them; --werror makes it an error: status 2, the program stopped at that call.
CLAUSE=PE-WARN-COUNTERS
warn="counters64.exe: warning: EnableThreadProfiling with HardwareCounters 0x3, but no hardware counter is configured: HwCounters[0..1] will hold no counts (on Windows a driver configures them; here hcpsim run --pmc EVENT,... --counters PMC,...)"
out=$(run "$exe64" 1 3)
result "$([ "$out" = "0 0 0 1 0 0 0 1 0 0 0 1" ] && [ "$(cat err.txt)" = "$warn" ]; echo $?)" \
  "three enables without a configuration: one warning naming --pmc and --counters, the run goes on" \
  "got '$out', stderr: $(cat err.txt)"
$HCPSIM run --werror --report w.json "$exe64" 1 3 >out.txt 2>err.txt
st=$?
perl -MJSON::PP -e 'local $/; my $r = JSON::PP->new->decode(<STDIN>)->{run};
  exit($r->{status} eq "error" && $r->{exit_status} == 2 && $r->{error} eq $ARGV[0] ? 0 : 1)' "${warn}" <w.json
r=$?
result "$([ "$st" = 2 ] && [ "$(cat err.txt)" = "hcpsim: $warn" ] && [ ! -s out.txt ] && [ $r = 0 ]; echo $?)" \
  "--werror: the warning ends the run at that call (nothing printed after it), status 2, run.status error" \
  "status $st (report $r): $(cat out.txt) $(cat err.txt)"
out=$(run --pmc instructions --counters 0 "$exe64" 1)
result "$([ "$(cat err.txt)" = "counters64.exe: warning: EnableThreadProfiling with HardwareCounters 0x3, but only 1 hardware counter is configured: HwCounters[1] will hold no counts (on Windows a driver configures them; here hcpsim run --pmc EVENT,... --counters PMC,...)" ]; echo $?)" \
  "one counter configured of the two asked for: the warning names HwCounters[1]" "$(cat err.txt)"
out=$(run --pmc instructions,branches --counters 0,1 "$exe64" 1 3)
result "$([ ! -s err.txt ]; echo $?)" "both configured: no warning" "$(cat err.txt)"
cat >w.lua <<'EOF'
local hcp = require "hcpsim"
local seen = {}
hcp.on_warning(function(w) seen[#seen + 1] = w end)
local m = hcp.machine {}
m:thread { name = "lua", body = function(t)
  local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 3)
  t:DisableThreadProfiling(ph)
end }
local p = m:process { path = "counters64.exe", args = { "1", "2" }, echo = false }
m:run()
print(p.exit_code, #seen, seen[1])
EOF
$HCPSIM run --werror w.lua >out.txt 2>err.txt
st=$?
result "$([ "$st" = 0 ] && [ "$(cat out.txt)" = "0	1	$warn" ] && [ ! -s err.txt ]; echo $?)" \
  "a scenario's hcp.on_warning gets the program's warning once (also under --werror); a Lua body's own Enable gets none" \
  "status $st: $(cat out.txt) $(cat err.txt)"
CLAUSE=PE-CLI-OPTIONS
printf 'print(1)\n' >s.lua
check "machine options are refused for a Lua scenario" \
  "hcpsim: s.lua: machine options on the command line are for Windows programs; a scenario sets them in hcp.machine{}" \
  --cpus 2 s.lua
echo "1..$n"
[ "$fail" = 0 ]
