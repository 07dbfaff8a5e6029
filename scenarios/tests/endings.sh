#!/bin/sh
# How a run ends (reports/SCHEMA.md "run.status"; scenarios/README.md "Errors", "Limits"): each way
# a scenario or a program can end, its exit status, its message and its report's run.status,
# run.limit and run.exit_code, and hcpsim diff showing a change of status.  The programs are the
# examples the Makefile builds from scenarios/examples/pe/: hello.exe exits 7, missing.exe calls
# Beep (an import hcpsim lacks), crash.exe x writes through NULL, runaway.exe never ends.
CLAUSE=SIM-REPORT-STATUS
. scenarios/tests/lib/tap.sh
pe=$top/build/pe
[ -d "$(dirname "$HCPSIM")/pe" ] && pe=$(dirname "$HCPSIM")/pe
cp "$pe/hello64.exe" "$pe/missing64.exe" "$pe/crash64.exe" "$pe/runaway64.exe" "$pe/runaway32.exe" . || exit 1
echo "TAP version 13"

# ending NAME STATUS RUN_STATUS LIMIT EXIT_CODE STDERR_LINE -- hcpsim run ARGUMENTS (a --report
# r.json is added): the exit status, the last stderr line, and the report's run record (LIMIT and
# EXIT_CODE "-" for null).  The report's partial is its error for every status but complete and
# exited, null for those.
ending() {
  name=$1 want_st=$2 want_status=$3 want_limit=$4 want_code=$5 want_err=$6
  shift 7
  rm -f r.json
  $HCPSIM run --report r.json "$@" >out.txt 2>err.txt
  st=$?
  got_err=$(tail -1 err.txt | tr -d '\r')
  STATUS=$want_status LIMIT=$want_limit CODE=$want_code perl -MJSON::PP -e '
    local $/; open my $f, "<", "r.json" or exit 1; my $r = JSON::PP->new->decode(<$f>)->{run};
    my $lim = $r->{limit} // "-"; my $code = $r->{exit_code} // "-";
    my $partial = $ENV{STATUS} ne "complete" && $ENV{STATUS} ne "exited";
    exit 2 unless $r->{status} eq $ENV{STATUS} && $lim eq $ENV{LIMIT} && "$code" eq $ENV{CODE};
    exit 3 unless $partial ? ($r->{partial} // "") eq ($r->{error} // "-") : !defined $r->{partial};
    exit 4 if !$partial && defined $r->{error};
    exit 0' 2>perl.err
  r=$?
  [ "$st" = "$want_st" ] && [ "$r" = 0 ] && { [ -z "$want_err" ] || [ "$got_err" = "$want_err" ]; }
  result $? "$name: status $want_st, run.status $want_status" \
    "status $st (check $r), stderr: $got_err; want: $want_err; run: $(grep -A12 '"run"' r.json | tr -s ' \n' ' ')"
}

printf 'print("ran")\n' >ok.lua
ending "a scenario that runs to its end" 0 complete - - "" -- ok.lua
printf 'local tap = require "hcpsim.tap"\ntap.ok(false, "fails")\ntap.done_testing()\n' >tapfail.lua
ending "a scenario whose TAP test fails also ran to its end" 1 complete - - "" -- tapfail.lua
printf 'error("broken")\n' >err.lua
ending "a scenario's own error" 2 error - - "err.lua:1: broken" -- err.lua
ending "a program's exit code (hello.exe returns 7)" 7 exited - 7 "to stderr" -- hello64.exe
ending "a program calling an import hcpsim lacks" 125 missing-import - - \
  "hcpsim: missing64.exe called KERNEL32.dll!Beep, which hcpsim does not implement" -- missing64.exe
ending "a program's unhandled exception" 125 unhandled-exception - - "" -- crash64.exe x
grep -q "^hcpsim: crash64.exe: unhandled exception 0xC0000005 (STATUS_ACCESS_VIOLATION) at " err.txt
result $? "... reported as the program's unhandled exception" "$(cat err.txt)"
cat >fault.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
local bad = m:code("\x48\x8b\x04\x25\x00\x00\x00\x00\xc3") -- mov rax, [0]; ret
m:thread { name = "w", body = function(t) t:run(bad) end }
m:run()
EOF
ending "a scenario's guest exception t:run does not catch" 2 unhandled-exception - - \
  "fault.lua:4: STATUS_ACCESS_VIOLATION (0xC0000005) in thread 'w' (id 1000): read of 0x0 at 0x140000000: mov rax, qword ptr [0] [48 8B 04 25 00 00 00 00]" \
  -- fault.lua
cat >caught.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
local bad = m:code("\x48\x8b\x04\x25\x00\x00\x00\x00\xc3")
m:thread { name = "w", body = function(t) assert(not pcall(t.run, t, bad)); error("later") end }
m:run()
EOF
ending "an exception a body caught, then another error: the run's own error counts" 2 error - - \
  "caught.lua:4: later" -- caught.lua
cat >deadlock.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
local e = m:event {}
m:thread { name = "a", body = function(t) t:WaitForSingleObject(e, 0xFFFFFFFF) end }
m:run()
EOF
ending "a deadlock" 2 deadlock - - "deadlock.lua:5: m:run: deadlock: thread 'a' (id 1000) waits on event #1" \
  -- deadlock.lua
cat >threads.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { max_threads = 2 }
for i = 1, 3 do m:thread { name = "t" .. i, body = function() end } end
EOF
ending "a limit names its option (max_threads)" 2 limit max_threads - \
  "threads.lua:3: limit reached: 2 threads (machine option max_threads; default 10000)" -- threads.lua
printf 'while true do end\n' >loop.lua
ending "a runaway Lua loop stops at --lua-instructions" 2 limit lua_instructions - \
  "loop.lua:1: limit reached: 100000 Lua instructions (hcpsim run --lua-instructions N; default 5000000000)" \
  -- --lua-instructions 100000 loop.lua

# A program that never ends stops at its timeout in simulated time: --timeout 0.01 at the default
# 3 GHz is 3x10^7 cycles; the machine's clock ends at exactly that bound (the limit is checked at
# every block boundary of its straight loop, and the loop's blocks end on it).
CLAUSE=PE-TIMEOUT
for bits in 64 32; do
  ending "runaway$bits.exe with --timeout 0.01" 125 limit timeout - \
    "hcpsim: limit reached: 0.01 s of simulated time on CPU 0 (hcpsim run --timeout SECONDS; default 1 for a program)" \
    -- --timeout 0.01 runaway$bits.exe
  perl -MJSON::PP -e 'local $/; my $m = JSON::PP->new->decode(<STDIN>)->{machines}[0];
    exit($m->{config}{max_cycles} == 30000000 && $m->{end_cycles} >= 30000000 && $m->{end_ns} < 10000000 + 1000
         && $m->{threads}[0]{state} ne "Terminated" ? 0 : 1)' <r.json
  result $? "runaway$bits.exe: max_cycles 3x10^7 = 0.01 s x 3 GHz; it ran to 0.01 s of simulated time and no further" \
    "$(grep -E '"(end_cycles|end_ns|max_cycles)"' r.json | tr -s ' \n' ' ')"
done
[ "$(tr -d '\r' <out.txt)" = "counting forever" ]
result $? "the output before the limit is kept" "$(cat out.txt)"
# The default bound of a program is 1 s of simulated time (3x10^9 cycles at 3 GHz, about a minute
# of host time for runaway.exe): a program that ends sooner runs under it.
$HCPSIM run --report r.json hello64.exe >/dev/null 2>&1
perl -MJSON::PP -e 'local $/; exit(JSON::PP->new->decode(<STDIN>)->{machines}[0]{config}{max_cycles} == 3000000000 ? 0 : 1)' <r.json
result $? "a program's default bound: max_cycles 3x10^9, 1 s at 3 GHz"
$HCPSIM run --frequency 1000000 --timeout 2.5 --report r.json hello64.exe >/dev/null 2>&1
perl -MJSON::PP -e 'local $/; exit(JSON::PP->new->decode(<STDIN>)->{machines}[0]{config}{max_cycles} == 2500000 ? 0 : 1)' <r.json
result $? "--timeout is simulated seconds of the machine's frequency: 2.5 s at 1 MHz is 2.5x10^6 cycles"
ending "--max-cycles instead of --timeout: the cycle limit names max_cycles" 125 limit max_cycles - \
  "hcpsim: limit reached: 100000 cycles on CPU 0 (machine option max_cycles or m:run{max_cycles = N}; default 20000000000)" \
  -- --max-cycles 100000 runaway64.exe
$HCPSIM run --timeout 1 --max-cycles 5 runaway64.exe >out.txt 2>err.txt
st=$?
result "$([ "$st" = 2 ] && [ "$(cat err.txt)" = "hcpsim: --timeout and --max-cycles both bound the run: give one (--timeout is simulated seconds, --max-cycles cycles of each CPU's clock)" ]; echo $?)" \
  "--timeout with --max-cycles is refused" "status $st: $(cat err.txt)"
for bad in 0 -1 x 1.0000000001 2000000000; do
  $HCPSIM run --timeout "$bad" runaway64.exe >out.txt 2>err.txt
  st=$?
  [ "$st" = 2 ] && [ "$(cat err.txt)" = "hcpsim: --timeout $bad: simulated seconds, a number like 2 or 0.5 (0 < SECONDS <= 10^9)" ]
  result $? "--timeout $bad is refused" "status $st: $(cat err.txt)"
done
printf 'print(1)\n' >s.lua
$HCPSIM run --timeout 1 s.lua >out.txt 2>err.txt
result "$([ "$(cat err.txt)" = "hcpsim: s.lua: machine options on the command line are for Windows programs; a scenario sets them in hcp.machine{}" ]; echo $?)" \
  "--timeout is for programs: a scenario bounds its machines with max_cycles" "$(cat err.txt)"

# SIGINT stops a program as it stops a scenario: its report says interrupted.
CLAUSE=SIM-REPORT-STATUS
$HCPSIM run --timeout 1000 --report int.json runaway64.exe >out.txt 2>err.txt &
pid=$!
sleep 1
kill -INT $pid
wait $pid
st=$?
perl -MJSON::PP -e 'local $/; my $r = JSON::PP->new->decode(<STDIN>)->{run};
  exit($r->{status} eq "interrupted" && $r->{exit_status} == 130 && !defined $r->{limit} && !defined $r->{exit_code} ? 0 : 1)' <int.json
r=$?
result "$([ "$st" = 130 ] && [ $r = 0 ]; echo $?)" "SIGINT stops a program: status 130, run.status interrupted" \
  "status $st: $(cat err.txt)"

# hcpsim diff shows the status, the limit and the exit code that changed.
$HCPSIM run --report a.json hello64.exe >/dev/null 2>&1
$HCPSIM run --timeout 0.01 --report b.json runaway64.exe >/dev/null 2>&1
$HCPSIM diff a.json b.json >d.txt 2>err.txt
st=$?
grep -Eq '^run +status +exited +limit' d.txt && grep -Eq '^run +limit +null +timeout' d.txt &&
  grep -Eq '^run +exit_code +7 +\(absent\)' d.txt
r=$?
result "$([ "$st" = 1 ] && [ $r = 0 ]; echo $?)" "hcpsim diff: status exited -> limit, limit null -> timeout, exit_code 7 -> (absent)" \
  "status $st: $(head -12 d.txt)"
echo "1..$n"
[ "$fail" = 0 ]
