#!/bin/sh
# Windows programs' threads, synchronisation, time, memory and heap (api/README.md "Windows
# programs"), their teardown, unhandled exceptions and p.exports, on the images the Makefile builds
# from scenarios/examples/pe/ (threads.c, crash.c).  Every expected line comes from the Win32 rules
# the program's comments state (return values and error codes as Microsoft documents them), not
# from a run; Wine, where installed, is a second, outside oracle for the x86-64 image.
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
echo "TAP version 13"
echo "1..22"
cr=$(printf '\r')
# threads.c on a 1-CPU machine (hcpsim run's default); CPUS = 2 for the Wine comparison below
want() { # cpus
  printf '%s\r\n' \
    "wait all: 0" \
    "shared 2000, exit codes 101 102, main tls 9" \
    "ExitThread: 42" \
    "named again: 1, last error 183" \
    "open: 1, missing: 1 error 2" \
    "before terminate: 259" \
    "after terminate: wait 0, code 99" \
    "pulse: event after 258, waiter 5" \
    "mutex release 1 again 0; sem wait 0 258 release 1 prev 0" \
    "duplicate 1, prio 0 -> set 1 -> 2, affinity $((2 * $1 - 1)), ideal 0" \
    "qpf 10000000, slept >= 100 ms: 1, tick64 >= 100: 1, coarse <= precise: 1, same day: 1" \
    "cpus $1, page 4096, granularity 65536" \
    "virtual: 1 aligned, query 1 size 8192 state 0x1000 protect 0x4 type 0x20000, protect 1 old 0x4, free 1" \
    "heap: size 80 zero 1 free 1"
}
want 1 > want1.txt
for bits in 64 32; do
  cp "$pe/threads$bits.exe" "$pe/crash$bits.exe" "$pe/exits$bits.exe" .
  CLAUSE=PE-THREADS
  timeout 120 $HCPSIM run "threads$bits.exe" > out.txt 2> err.txt; st=$?
  n_want=$(wc -l < want1.txt)
  i=0
  while [ $i -lt 14 ]; do
    i=$((i + 1))
    line=$(sed -n "${i}p" want1.txt | tr -d "$cr")
    [ "$(sed -n "${i}p" out.txt | tr -d "$cr")" = "$line" ] || break
  done
  cmp -s out.txt want1.txt
  result $? "threads$bits.exe: all $n_want lines as Win32 documents each result (CRLF line ends)" "first difference at line $i: want '$line', got '$(sed -n "${i}p" out.txt | tr -d "$cr")'; stderr: $(cat err.txt)"
  CLAUSE=PE-EXIT-PROCESS
  [ "$st" = 3 ] && [ ! -s err.txt ]
  result $? "threads$bits.exe: main returns 3 while two threads wait and sleep: ExitProcess ends them, status 3" "status $st: $(cat err.txt)"
  $HCPSIM run "exits$bits.exe" > ex.txt 2> exerr.txt; st=$?
  [ "$st" = 17 ] && [ "$(tr -d "$cr" < ex.txt)" = "worker exits the process" ] && [ ! -s exerr.txt ]
  result $? "exits$bits.exe: a worker's ExitProcess(17) ends main's endless wait: status 17" "status $st: $(cat ex.txt) $(cat exerr.txt)"
  $HCPSIM run "exits$bits.exe" x > ex.txt 2> exerr.txt; st=$?
  [ "$st" = 9 ] && [ "$(tr -d "$cr" < ex.txt)" = "last thread returns" ] && [ ! -s exerr.txt ]
  result $? "exits$bits.exe x: main's ExitThread(4) leaves the process alive; its last thread's 9 is the exit code" "status $st: $(cat ex.txt) $(cat exerr.txt)"
  CLAUSE=PE-THREADS
  timeout 120 $HCPSIM run "threads$bits.exe" > out2.txt 2>&1
  cmp -s out.txt out2.txt
  result $? "threads$bits.exe: a second run writes the same bytes"
  CLAUSE=PE-UNHANDLED
  # the faulting instruction from the image's own disassembly: poke's store through its argument
  case $bits in
    64) od=x86_64-w64-mingw32-objdump; sym="<poke>:"; insn="mov dword ptr [rcx], 1"; bytes="C7 01 01 00 00 00" ;;
    32) od=i686-w64-mingw32-objdump; sym="<_poke>:"; insn="mov dword ptr [eax], 1"; bytes="C7 00 01 00 00 00" ;;
  esac
  at=$($od -d "crash$bits.exe" | awk -v s="$sym" -v b="$(echo "$bytes" | tr 'A-Z' 'a-z')" '
    $2 == s { on = 1; next } on && /^$/ { exit } on { line = $0; sub(/^[ \t]*/, "", line); split(line, f, ":");
      rest = substr(line, length(f[1]) + 2); gsub(/^[ \t]+/, "", rest); if (index(rest, b) == 1) { print toupper(f[1]); exit } }')
  start=$($od -d "crash$bits.exe" | awk -v s="$sym" '$2 == s { print toupper($1); exit }')
  base=$($od -p "crash$bits.exe" | awk '$1 == "ImageBase" { print toupper($2); exit }')
  off=$(printf '%X' $((0x$at - 0x$base)))
  $HCPSIM run "crash$bits.exe" x > out.txt 2> err.txt; st=$?
  msg="hcpsim: crash$bits.exe: unhandled exception 0xC0000005 (STATUS_ACCESS_VIOLATION) at 0x$(printf '%X' $((0x$at))) (crash$bits.exe+0x$off) in thread 'crash$bits.exe' (id 1000): writing 0x0; instruction: $insn [$bytes]"
  [ "$st" = 125 ] && [ "$(cat err.txt)" = "$msg" ]
  result $? "crash$bits.exe x: NULL store in poke: code, address, module+offset, instruction; status 125" "status $st: got '$(cat err.txt)', want '$msg'"
  [ "$(tr -d "$cr" < out.txt)" = "before" ]
  result $? "crash$bits.exe x: the output before the fault is kept" "$(cat out.txt)"
  # the same fault on the thread main creates (id 1004, named crash.exe#1): the same report
  $HCPSIM run "crash$bits.exe" thread > out.txt 2> err.txt; st=$?
  msg="hcpsim: crash$bits.exe: unhandled exception 0xC0000005 (STATUS_ACCESS_VIOLATION) at 0x$(printf '%X' $((0x$at))) (crash$bits.exe+0x$off) in thread 'crash$bits.exe#1' (id 1004): writing 0x0; instruction: $insn [$bytes]"
  [ "$st" = 125 ] && [ "$(cat err.txt)" = "$msg" ] && [ "$(tr -d "$cr" < out.txt)" = "before" ]
  result $? "crash$bits.exe thread: the NULL store on a created thread is reported in the main thread's format, status 125" "status $st: got '$(cat err.txt)', want '$msg'"
  $HCPSIM run "crash$bits.exe" > out.txt 2> err.txt; st=$?
  [ "$st" = 0 ] && [ "$(tr -d "$cr" < out.txt | tr '\n' '|')" = "before|after 1|" ]
  result $? "crash$bits.exe (no argument): poke stores 1 in a cell, status 0" "status $st: $(cat out.txt) $(cat err.txt)"
  # setter's Sleep(1) and timeout's 5 ms wait both end at the first tick, setter's first (the earlier
  # due time): it sets e, readying waiter behind timeout in the FIFO of priority 8
  CLAUSE=PE-EXPORTS
  platform=win10-x64
  [ $bits = 32 ] && platform=win7-x86
  cat > exports.lua <<EOF
local hcp = require "hcpsim"
local m = hcp.machine { platform = "$platform" }
local p = m:process { path = "crash$bits.exe", echo = false }
local names = {}
for k in pairs(p.exports) do names[#names + 1] = k end
table.sort(names)
print(table.concat(names, " "), p.exports.poke == 0x$start)
local e, never = m:event {}, m:event {}
m:thread { name = "caller", body = function(t) print(t:run(p.exports.add, 2, 40)) end }
m:thread { name = "waiter", body = function(t) print("waitex", t:run(p.exports.waitex, e, 0xFFFFFFFF)) end }
m:thread { name = "timeout", body = function(t) print("timeout", t:run(p.exports.waitex, never, 5)) end }
m:thread { name = "setter", body = function(t) t:Sleep(1); print("set"); t:SetEvent(e) end }
m:run()
print(p.exit_code)
EOF
  $HCPSIM run exports.lua > out.txt 2> err.txt; st=$?
  [ "$st" = 0 ] && [ "$(tr '\n' '|' < out.txt)" = "add poke waitex	true|42|set|timeout	358|waitex	100|0|" ]
  result $? "crash$bits.exe: p.exports has add, poke and waitex (poke at the disassembly's address); t:run(p.exports.add, 2, 40) = 42; waitex's WaitForSingleObjectEx on a Lua body's event blocks until the setter sets it (100 + WAIT_OBJECT_0), and on one never set times out after 5 ms (100 + WAIT_TIMEOUT)" "status $st: $(tr '\n' '|' < out.txt) $(cat err.txt)"
done

# threads64.exe under Wine (an outside oracle) and in hcpsim on a machine of Wine's CPU count.
CLAUSE=PE-WINE
wine=$(command -v wine64 || command -v wine)
cpus=$(nproc 2>/dev/null || echo 1)
if [ -n "$wine" ] && [ "$cpus" -le 64 ]; then
  WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" threads64.exe > wine.txt 2> wine.err; wst=$?
  # The prefix's wineserver lingers a few seconds after its last process: ended here, nothing
  # of this test outlives its directory.  (Runs that waited for the timeout were threads.c's own
  # race on a busy host, its PulseEvent before the waiter waited; threads.c now pulses again.)
  command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
  cat > cpus.lua <<EOF
local hcp = require "hcpsim"
local m = hcp.machine { cpus = $cpus }
local p = m:process { path = "threads64.exe", echo = false }
m:run()
io.write(p.stdout)
EOF
  $HCPSIM run --unsafe-io cpus.lua > sim.txt 2> err.txt
  want "$cpus" > want.txt
  if [ "$wst" = 3 ]; then
    cmp -s wine.txt want.txt
    result $? "Wine writes the expected lines for $cpus CPUs" "$(diff wine.txt want.txt | head -5)"
    cmp -s sim.txt wine.txt
    result $? "hcpsim with cpus = $cpus writes what Wine writes" "$(diff sim.txt wine.txt | head -5) $(cat err.txt)"
  else
    echo "ok $((n + 1)) - Wine writes the expected lines [PE-WINE] # SKIP wine did not run the program (status $wst)"
    echo "ok $((n + 2)) - hcpsim writes what Wine writes [PE-WINE] # SKIP wine did not run the program"
    n=$((n + 2))
    tail -5 wine.err | sed 's/^/# wine: /'
    echo "# wine wrote $(wc -l < wine.txt) of $(want "$cpus" | wc -l) lines; its last:"; tail -2 wine.txt | sed 's/^/# wine stdout: /'
  fi
else
  echo "ok $((n + 1)) - Wine writes the expected lines [PE-WINE] # SKIP no wine"
  echo "ok $((n + 2)) - hcpsim writes what Wine writes [PE-WINE] # SKIP no wine"
  n=$((n + 2))
fi
exit $((fail > 0))
