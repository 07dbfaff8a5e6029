#!/bin/sh
# Every error a user can reach, with its exact message and exit status
# (scenarios/README.md "Errors" and "Limits"): command-line usage, files that
# cannot be read or written, malformed scenarios, unknown names (each listing
# the valid ones), bad argument types for every Windows function of the
# binding (with and without --report, which wraps them), guest exceptions,
# deadlock, and every limit, whose runs still write a trace and a report
# marked partial.  stderr is compared byte for byte; the expected messages
# follow the formats the README states, with positions, addresses and thread
# ids derived by hand (first thread id 1000, the first m:code at 0x140000000,
# each m:code block a whole page followed by an unmapped guard page).
CLAUSE=SIM-ERRORS # the clause(s) each line names (conformance/clauses.tsv); the sections below set theirs
. scenarios/tests/lib/tap.sh

# expect NAME STATUS STDERR [--out STDOUT] -- hcpsim ARGUMENTS...
expect() {
  name=$1 want_st=$2 want_err=$3
  shift 3
  want_out=""
  check_out=0
  if [ "$1" = "--out" ]; then check_out=1; want_out=$2; shift 2; fi
  [ "$1" = "--" ] && shift
  $HCPSIM "$@" >out.txt 2>err.txt
  st=$?
  got_err=$(cat err.txt)
  got_out=$(cat out.txt)
  [ "$st" = "$want_st" ] && [ "$got_err" = "$want_err" ] && { [ $check_out = 0 ] || [ "$got_out" = "$want_out" ]; }
  r=$?
  result $r "$name"
  if [ $r != 0 ]; then
    echo "# status $st (want $want_st)"
    echo "$got_err" | sed 's/^/# stderr: /'
    echo "$want_err" | sed 's/^/# want:   /'
    if [ $check_out = 1 ]; then
      echo "$got_out" | sed 's/^/# stdout: /'
      echo "$want_out" | sed 's/^/# want:   /'
    fi
  fi
}
# machine_lua FILE OPTIONS [LINES [ARGS...]]: a scenario whose lines 1-2 load hcpsim and make the
# machine m with OPTIONS; LINES (a printf format, ARGS filling its %s) follow from line 3.
machine_lua() {
  f=$1 opts=$2
  shift 2
  {
    printf 'local hcp = require "hcpsim"\nlocal m = hcp.machine { %s }\n' "$opts"
    if [ $# -gt 0 ]; then printf "$@"; fi
  } >"$f"
}
echo "TAP version 13"

USAGE='usage: hcpsim run [--seed N] [--unsafe-io] [--trace PATH] [--report PATH] [--trace-limit N]
                  [--report-intervals N] [--report-calls N] [--lua-instructions N]
                  [--lua-memory BYTES] FILE.lua [ARGS...]
       hcpsim run [MACHINE OPTIONS] [--pmc EV,EV...] [--counters I,I...] [--timeout SECONDS]
                  [--missing-imports stop|fail] [--dll-path DIR]...
                  [--report PATH] [--trace PATH] PROGRAM.exe [PROGRAM ARGUMENTS...]
       hcpsim check [--json] [--dll-path DIR]... PROGRAM.exe
       hcpsim describe [--platform P] | --imports
       hcpsim version (also --version, -V)
       hcpsim diff [--format text|md|json] [--tolerance METRIC=PERCENT]... A.json B.json
       hcpsim bench [--rounds R] [WORKLOAD ...] | --one WORKLOAD MODE N
       hcpsim help [COMMAND] (also hcpsim COMMAND --help): every option of a command
Options after FILE.lua are read until '"'--'"'; later words reach the scenario as arg[1..].
Every word after PROGRAM.exe is the program'"'s"': hcpsim'"'s"' options go before it.
--unsafe-io opens Lua'"'s"' io library (files): never use it for scenarios you did not write.
MACHINE OPTIONS: --NAME VALUE for each option hcpsim describe lists (--cpus 2, --semantics observed).'
OPTIONS='--seed N, --unsafe-io, --trace PATH, --report PATH, --trace-limit N, --report-intervals N, --report-calls N, --lua-instructions N, --lua-memory BYTES, --werror, --progress, --no-progress, --; machine options for programs: hcpsim help run'
PLATFORMS='win10-x64, win7-x64, win7-x86, win11-arm64, ce2.12-arm'
printf 'print("ran")\n' > ok.lua

# ---- command line ---------------------------------------------------------------------------
expect "an unknown option lists the valid ones" 2 "hcpsim: unknown option '--bogus' (valid: $OPTIONS)" -- run --bogus ok.lua
expect "an unknown option after the file too" 2 "hcpsim: unknown option '--sed' (did you mean '--seed'?) (valid: $OPTIONS)" -- run ok.lua --sed 3
expect "no scenario file" 2 "hcpsim: run needs a scenario file
$USAGE" -- run
expect "a missing file" 2 "cannot open nothere.lua: No such file or directory" -- run nothere.lua
mkdir adir.lua
expect "a directory as the scenario" 2 "cannot read adir.lua: Is a directory" -- run adir.lua
if [ "$(id -u)" != 0 ]; then
  printf 'print(1)\n' > noperm.lua
  chmod 000 noperm.lua
  expect "an unreadable file" 2 "cannot open noperm.lua: Permission denied" -- run noperm.lua
else
  n=$((n + 1))
  echo "ok $n - an unreadable file [$CLAUSE] # SKIP root reads files without read permission"
fi
printf '\033LuaT\000' > binary.lua
expect "a binary chunk is refused, naming the file" 2 \
  "binary.lua: attempt to load a binary chunk (mode is 't') (hcpsim runs Lua source only)" -- run binary.lua
expect "--seed without a value" 2 "hcpsim: --seed needs a non-negative integer" -- run ok.lua --seed
expect "--seed with a negative value" 2 "hcpsim: --seed needs a non-negative integer" -- run --seed -1 ok.lua
expect "--trace without a path" 2 "hcpsim: --trace needs a file path" -- run ok.lua --trace
expect "--report without a path" 2 "hcpsim: --report needs a file path ending in .json, .md, .html, .csv" -- run ok.lua --report
expect "--report with an unknown extension" 2 \
  "hcpsim: --report r.txt: unknown report format (the extension must be one of .json, .md, .html, .csv)" -- run --report r.txt ok.lua
expect "--trace-limit 0" 2 "hcpsim: --trace-limit needs a positive integer" -- run --trace-limit 0 ok.lua
expect "--lua-instructions without a value" 2 "hcpsim: --lua-instructions needs a positive integer" -- run ok.lua --lua-instructions
expect "--lua-memory with a word" 2 "hcpsim: --lua-memory needs a positive integer" -- run --lua-memory lots ok.lua
expect "--report-calls -5" 2 "hcpsim: --report-calls needs a positive integer" -- run --report-calls -5 ok.lua
expect "--report-intervals without a value" 2 "hcpsim: --report-intervals needs a positive integer" -- run ok.lua --report-intervals
expect "an unknown command" 2 "hcpsim: unknown command 'frob'
$USAGE" -- frob
expect "describe: an unknown platform" 2 "hcpsim: unknown platform 'win95' (valid: $PLATFORMS)" -- describe --platform win95
expect "describe: --platform without a name" 2 "hcpsim: describe: --platform needs a platform name (valid: $PLATFORMS)" -- describe --platform
expect "describe: an unknown argument" 2 "hcpsim: describe: unknown argument '--bogus' (valid: --platform P, --imports)" -- describe --bogus
expect "describe --imports: the extra argument is the one named" 2 \
  "hcpsim: describe: unknown argument 'X' (valid: --platform P, --imports)" -- describe --imports X
expect "describe: --imports takes no --platform" 2 \
  "hcpsim: describe: --imports takes no --platform (the import table is the same on every platform that runs programs)" \
  -- describe --imports --platform win7-x86

# ---- --trace / --report paths: refused before the scenario runs ------------------------------
expect "--trace into a missing directory" 2 "hcpsim: --trace nodir/t.json: No such file or directory" --out "" -- run --trace nodir/t.json ok.lua
expect "--report into a missing directory" 2 "hcpsim: --report nodir/r.json: No such file or directory" --out "" -- run --report nodir/r.json ok.lua
mkdir tdir.json
expect "--trace onto a directory" 2 "hcpsim: --trace tdir.json: Is a directory" --out "" -- run --trace tdir.json ok.lua
expect "--report onto a directory" 2 "hcpsim: --report tdir.json: Is a directory" --out "" -- run --report tdir.json ok.lua
if [ "$(id -u)" != 0 ]; then
  mkdir ro && chmod 555 ro
  expect "--report into a read-only directory" 2 "hcpsim: --report ro/r.md: Permission denied" --out "" -- run --report ro/r.md ok.lua
else
  n=$((n + 1))
  echo "ok $n - --report into a read-only directory [$CLAUSE] # SKIP root writes into read-only directories"
fi

# ---- malformed scenarios ------------------------------------------------------------------------
printf 'local x = 1\nlocal y = = 2\n' > syntax.lua
expect "a syntax error: FILE:LINE: message" 2 "syntax.lua:2: unexpected symbol near '='" -- run syntax.lua
printf 'local s = "abc\nprint(s)\n' > string.lua
expect "an unfinished string" 2 "string.lua:1: unfinished string near '\"abc'" -- run string.lua
printf 'local function f(t)\n  return t.x.y\nend\nf({})\n' > index.lua
expect "a runtime error names the line that raised it" 2 "index.lua:2: attempt to index a nil value (field 'x')" -- run index.lua
printf 'local n = 1\nprint(frobnicate(n))\n' > global.lua
expect "an undeclared global" 2 "global.lua:2: variable 'frobnicate' is not declared" -- run global.lua
printf 'local function f()\n  error({ code = 1 })\nend\nf()\n' > table.lua
expect "a table as the error object still names its line" 2 "table.lua:2: (error object is a table value)" -- run table.lua
cat > bodyerr.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
m:thread { name = "w", body = function(t)
  error({})
end }
m:run()
EOF
expect "a thread body raising a table" 2 "bodyerr.lua:4: thread 'w' raised a non-string error (table)" -- run bodyerr.lua

# ---- unknown names list the valid ones -------------------------------------------------------------
unknown() { # name, machine options, expected message after "u.lua:2: "
  machine_lua u.lua "$2"
  expect "$1" 2 "u.lua:2: $3" -- run u.lua
}
unknown "an unknown platform" 'platform = "win95"' "hcp.machine: unknown platform 'win95' (valid: $PLATFORMS)"
unknown "an unknown semantics" 'semantics = "lax"' "hcp.machine: unknown semantics 'lax' (valid: documented, observed)"
unknown "an unknown PMU event" 'pmc = { "instructions", "cache-misses" }' \
  "hcp.machine: unknown PMU event 'cache-misses' in pmc[2] (valid: instructions, cycles, branches, ref-cycles, cond-branches, branch-misses, loads, stores, l1d-misses, l2-misses, llc-references, llc-misses)"
unknown "an unknown cost table" 'cost = "fast"' "hcp.machine: unknown cost table 'fast' (valid: default, unit)"
unknown "an unknown machine option" 'max_thread = 4' \
  "hcp.machine: unknown field 'max_thread' (did you mean 'max_threads'?) (valid: platform, semantics, cpus, frequency, tick, quantum, interrupt_cycles, slice, pmc, seed, max_cycles, stack_size, precise_faults, cost, predictor, cache, boot_time, etw_thread_version, max_threads, max_memory, max_handles, os_heap, max_mappings, max_trap_points)"
unknown "a limit option out of range" 'max_threads = 0' "hcp.machine: 'max_threads' = 0 is out of range (1..1000000)"
# The other limit options' ranges (lmachine.c): each refused value names its range.
unknown "max_memory below a page" 'max_memory = 4095' "hcp.machine: 'max_memory' = 4095 is out of range (4096..1099511627776)"
unknown "max_handles of 0" 'max_handles = 0' "hcp.machine: 'max_handles' = 0 is out of range (1..4194303)"
unknown "os_heap above 64 MiB" 'os_heap = 67108865' "hcp.machine: 'os_heap' = 67108865 is out of range (0..67108864)"
unknown "stack_size below a page" 'stack_size = 100' "hcp.machine: 'stack_size' = 100 is out of range (4096..67108864)"
unknown "a negative max_cycles" 'max_cycles = -1' "hcp.machine: 'max_cycles' = -1 is out of range (0..9223372036854775807)"
machine_lua u.lua '' 'm:trace { flags = 0x1, on_event = print }\n'
expect "unknown kernel logger flags" 2 \
  "u.lua:3: m:trace: flags 0x1 are not simulated (valid: EVENT_TRACE_FLAG_THREAD 0x2, EVENT_TRACE_FLAG_CSWITCH 0x10, EVENT_TRACE_FLAG_DISPATCHER 0x800)" -- run u.lua
machine_lua u.lua '' 'm:load "nope"\n'
expect "an unknown library" 2 "u.lua:3: m:load: unknown library 'nope' (valid: kernels)" -- run u.lua
printf 'local x = require "socket"\n' > u.lua
expect "an unknown module" 2 "u.lua:1: module 'socket' not found (available: hcpsim, hcpsim.tap, hcpsim.testlib)" -- run u.lua
printf 'local hcp = require "hcpsim"\nprint(hcp.ERROR_SUCESS)\n' > u.lua
expect "a misspelt constant" 2 "u.lua:2: hcpsim has no member 'ERROR_SUCESS' (did you mean 'ERROR_SUCCESS'?)" -- run u.lua
machine_lua u.lua '' 'm:Thread {}\n'
expect "a misspelt method" 2 "u.lua:3: hcpsim.Machine has no member 'Thread' (did you mean 'thread'?)" -- run u.lua
machine_lua u.lua '' 'm:frobnicate {}\n'
expect "a member nothing is close to: no suggestion" 2 "u.lua:3: hcpsim.Machine has no member 'frobnicate'" -- run u.lua
machine_lua u.lua '' 'm:thread { body = function(t) t:Sleeep(1) end }\nm:run()\n'
expect "a misspelt thread method" 2 "u.lua:3: hcpsim.Thread has no member 'Sleeep' (did you mean 'Sleep'?)" -- run u.lua

# ---- bad argument types: every Windows function of the binding, named as on Windows ----------------
# Argument numbers count the Lua call's arguments after the object, which for every function but
# WaitForMultipleObjects are the Windows parameters in order (it takes the handle list, whose
# length is nCount).  Each call is made with --report too: the recording wrapper must not change it.
badarg() { # call (on the body's t), argument number, function, expected type, got
  machine_lua b.lua '' 'm:thread { name = "w", body = function(t)\n  t:%s\nend }\nm:run()\n' "$1"
  want="b.lua:4: bad argument #$2 to '$3' ($4)"
  expect "t:$1" 2 "$want" -- run b.lua
  expect "t:$1 with --report" 2 "$want" -- run --report b.json b.lua
}
badarg 'SetLastError("5")' 1 SetLastError "integer expected, got string"
badarg 'OpenThread("0x40", false, 1000)' 1 OpenThread "integer expected, got string"
badarg 'OpenThread(0x40, false, "1000")' 3 OpenThread "integer expected, got string"
badarg 'CloseHandle({})' 1 CloseHandle "integer expected, got table"
badarg 'EnableThreadProfiling("h", 1, 1)' 1 EnableThreadProfiling "integer expected, got string"
badarg 'EnableThreadProfiling(t:GetCurrentThread(), "1", 0)' 2 EnableThreadProfiling "integer expected, got string"
badarg 'EnableThreadProfiling(t:GetCurrentThread(), 1, 1.5)' 3 EnableThreadProfiling "number has no integer representation"
badarg 'DisableThreadProfiling(nil)' 1 DisableThreadProfiling "integer expected, got nil"
badarg 'QueryThreadProfiling("h")' 1 QueryThreadProfiling "integer expected, got string"
badarg 'ReadThreadProfilingData("h", 3)' 1 ReadThreadProfilingData "integer expected, got string"
badarg 'ReadThreadProfilingData(0, "3")' 2 ReadThreadProfilingData "integer expected, got string"
badarg 'ReadThreadProfilingData(0, 3, "pd")' 3 ReadThreadProfilingData "table expected, got string"
badarg 'GetThreadTimes("h")' 1 GetThreadTimes "integer expected, got string"
badarg 'GetThreadTimes(t, "out")' 2 GetThreadTimes "table expected, got string"
badarg 'QueryThreadCycleTime("h")' 1 QueryThreadCycleTime "integer expected, got string"
badarg 'QueryThreadCycleTime(t, "p")' 2 QueryThreadCycleTime "integer expected, got string"
badarg 'Sleep("10")' 1 Sleep "integer expected, got string"
badarg 'WaitForSingleObject("h", 0)' 1 WaitForSingleObject "integer expected, got string"
badarg 'WaitForSingleObject(t, "0")' 2 WaitForSingleObject "integer expected, got string"
badarg 'WaitForMultipleObjects("h", true)' 1 WaitForMultipleObjects "table expected, got string"
badarg 'WaitForMultipleObjects({ t, "h" }, true)' 1 WaitForMultipleObjects "element 2: handle expected, got string"
badarg 'WaitForMultipleObjects({ t }, true, "0")' 3 WaitForMultipleObjects "integer expected, got string"
badarg 'SetEvent("h")' 1 SetEvent "integer expected, got string"
badarg 'ResetEvent("h")' 1 ResetEvent "integer expected, got string"
badarg 'ReleaseMutex("h")' 1 ReleaseMutex "integer expected, got string"
badarg 'ReleaseSemaphore("h", 1)' 1 ReleaseSemaphore "integer expected, got string"
badarg 'ReleaseSemaphore(t.handle, "1")' 2 ReleaseSemaphore "integer expected, got string"
badarg 'ReleaseSemaphore(t.handle, 1 << 40)' 2 ReleaseSemaphore "lReleaseCount: LONG out of range"
for c in 'KeSetHardwareCounterConfiguration("list")|1|KeSetHardwareCounterConfiguration|table expected, got string' \
         'KeQueryHardwareCounterConfiguration("16")|1|KeQueryHardwareCounterConfiguration|integer expected, got string' \
         'KeQueryHardwareCounterConfiguration(256)|1|KeQueryHardwareCounterConfiguration|MaximumCount must be 0..255 here'; do
  call=${c%%|*} rest=${c#*|}
  num=${rest%%|*} rest=${rest#*|}
  fn=${rest%%|*} why=${rest#*|}
  machine_lua k.lua '' 'm:%s\n' "$call"
  expect "m:$call" 2 "k.lua:3: bad argument #$num to '$fn' ($why)" -- run k.lua
  expect "m:$call with --report" 2 "k.lua:3: bad argument #$num to '$fn' ($why)" -- run --report k.json k.lua
done

# ---- guest exceptions: code, thread, address, the instruction and its bytes ---------------------------
# m:code blocks: 0x140000000, 0x140002000, ... (a page each, then a guard page).  mov rax, [0] is
# 48 8B 04 25 + disp32 0; mov [rcx], rax is 48 89 01; ud2 is 0F 0B; xor ecx, ecx (31 C9) then
# div rcx (48 F7 F1) faults at +2; jmp rcx (FF E1) to 0x1000 faults at the target, which has no bytes.
cat > fault.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
local read0 = m:code("\x48\x8b\x04\x25\x00\x00\x00\x00\xc3")
local write = m:code("\x48\x89\x01\xc3")
local ud2 = m:code("\x0f\x0b")
local div0 = m:code("\x31\xc9\x48\xf7\xf1\xc3")
local jmp = m:code("\xff\xe1")
m:thread { name = "w", body = function(t)
  for _, c in ipairs { { read0 }, { write, write }, { ud2 }, { div0 }, { jmp, 0x1000 } } do
    local r, code, info = t:pcall_run(table.unpack(c))
    print(r, string.format("0x%08X", code), info.message)
  end
end }
m:run()
EOF
expect "guest exceptions name the code, the thread, the address and the instruction" 0 "" --out "nil	0xC0000005	STATUS_ACCESS_VIOLATION (0xC0000005) in thread 'w' (id 1000): read of 0x0 at 0x140000000: mov rax, qword ptr [0] [48 8B 04 25 00 00 00 00]
nil	0xC0000005	STATUS_ACCESS_VIOLATION (0xC0000005) in thread 'w' (id 1000): write of 0x140002000 at 0x140002000: mov qword ptr [rcx], rax [48 89 01]
nil	0xC000001D	STATUS_ILLEGAL_INSTRUCTION (0xC000001D) in thread 'w' (id 1000) at 0x140004000: ud2 [0F 0B]
nil	0xC0000094	STATUS_INTEGER_DIVIDE_BY_ZERO (0xC0000094) in thread 'w' (id 1000) at 0x140006002: div rcx [48 F7 F1]
nil	0xC0000005	STATUS_ACCESS_VIOLATION (0xC0000005) in thread 'w' (id 1000): execute of 0x1000 at 0x1000 [not readable]" -- run fault.lua

# A body that does not handle the exception but asserts the call raises its code; the run ends
# with the exception's message at the line of the assert.
cat > assert.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
local read0 = m:code("\x48\x8b\x04\x25\x00\x00\x00\x00\xc3")
m:thread { name = "w", body = function(t)
  assert(t:pcall_run(read0))
end }
m:run()
EOF
expect "assert(t:pcall_run(...)) of a faulting call" 2 \
  "assert.lua:5: STATUS_ACCESS_VIOLATION (0xC0000005) in thread 'w' (id 1000): read of 0x0 at 0x140000000: mov rax, qword ptr [0] [48 8B 04 25 00 00 00 00]" -- run assert.lua

CLAUSE=SIM-FAULT-UNHANDLED
# An exception t:run does not catch ends the run as Windows ends the process: status 2 and the
# message at the line of t:run, even when the body ignores the result (the second thread never
# runs: the run ends at the first thread's fault).  Its report and trace are partial.
cat > unhandled.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
local read0 = m:code("\x48\x8b\x04\x25\x00\x00\x00\x00\xc3")
m:thread { name = "w", body = function(t)
  t:run(read0)
  print("not reached")
end }
m:thread { name = "x", body = function(t) print("not reached either") end }
m:run()
EOF
UNHANDLED="unhandled.lua:5: STATUS_ACCESS_VIOLATION (0xC0000005) in thread 'w' (id 1000): read of 0x0 at 0x140000000: mov rax, qword ptr [0] [48 8B 04 25 00 00 00 00]"
expect "t:run of a faulting call whose result the body ignores ends the run" 2 "$UNHANDLED" --out "" \
  -- run --report unhandled.json --trace unhandled.trace.json unhandled.lua
grep -q '"partial": "unhandled.lua:5: STATUS_ACCESS_VIOLATION' unhandled.json && [ ! -e unhandled.json.tmp ]
result $? "the report of a run an exception ended is partial, with the message"
grep -q '"partial": *"unhandled.lua:5: STATUS_ACCESS_VIOLATION' unhandled.trace.json
result $? "so is its trace"
# pcall(t.run, t, f) catches it too, as a string (the body handled it); the run goes on.
cat > pcall.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
local read0 = m:code("\x48\x8b\x04\x25\x00\x00\x00\x00\xc3")
m:thread { name = "w", body = function(t)
  print(pcall(t.run, t, read0))
end }
m:run()
EOF
expect "pcall(t.run, t, f) of a faulting call catches the message" 0 "" --out "false	pcall.lua:5: STATUS_ACCESS_VIOLATION (0xC0000005) in thread 'w' (id 1000): read of 0x0 at 0x140000000: mov rax, qword ptr [0] [48 8B 04 25 00 00 00 00]" -- run pcall.lua
CLAUSE=SIM-ERRORS

# ---- deadlock: every blocked thread and what it waits on ---------------------------------------------
# c's wait has a timeout, so it is not part of the deadlock: it times out and exits.
cat > dead.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
local sem = m:semaphore { initial = 0, max = 2 }
local a = m:thread { name = "a", body = function(t) t:WaitForSingleObject(sem) end }
m:thread { name = "b", body = function(t) t:WaitForSingleObject(a) end }
m:thread { name = "c", body = function(t) t:WaitForMultipleObjects({ sem, a }, false, 5) end }
m:run()
EOF
expect "a deadlock names each blocked thread and its wait" 2 \
  "dead.lua:7: m:run: deadlock: thread 'a' (id 1000) waits on semaphore #1; thread 'b' (id 1004) waits on thread #1 ('a')" -- run dead.lua

# ---- limits: "limit reached: VALUE WHAT (OPTION; default D)", status 2 ---------------------------------
CLAUSE=SIM-LIMITS
cat > threads.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { max_threads = 3 }
for i = 1, 4 do
  m:thread { name = "t" .. i, body = function(t) end }
end
EOF
expect "max_threads: the fourth thread" 2 "threads.lua:4: limit reached: 3 threads (machine option max_threads; default 10000)" -- run threads.lua
# 8192 bytes = two pages: m:alloc(4096) takes one, m:code of 1 byte the second, m:alloc(1) a third.
cat > memory.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { max_memory = 8192 }
m:alloc(4096)
m:code("\xc3")
m:alloc(1)
EOF
expect "max_memory: the third page" 2 "memory.lua:5: limit reached: 8192 bytes of guest memory (machine option max_memory; default 1073741824)" -- run memory.lua
# Guest memory mappings: Unicorn 2.0.1 holds at most 3900, and n mappings cost host time as n^3
# (each uc_mem_map searches its RAM blocks pairwise and re-lays the whole map: 3800 took 88 s), so
# the default is 1024 (about 1.7 s) and the machine option max_mappings moves it (16..3900); each
# m:alloc is one mapping (its guard page none).
machine_lua maps.lua 'max_mappings = 20' 'for i = 1, 40 do\n  m:alloc(1)\nend\n'
expect "guest memory mappings (max_mappings)" 2 \
  "maps.lua:4: m:alloc: limit reached: 20 guest memory mappings (machine option max_mappings, at most 3900: Unicorn 2.0.1's limit; default 1024; fewer m:code/m:alloc calls, or fewer threads inside guest calls at once)" -- run maps.lua
machine_lua maps2.lua 'max_mappings = 3901'
expect "max_mappings above Unicorn's limit" 2 "maps2.lua:2: hcp.machine: 'max_mappings' = 3901 is out of range (16..3900)" -- run maps2.lua
machine_lua maps3.lua 'max_mappings = 3900' 'm:alloc(1)\nprint("ok")\n'
expect "max_mappings may be raised to Unicorn's limit, above the default" 0 "" --out "ok" -- run maps3.lua
# The same limit reached by m:code and m:import_table (each block one mapping), named by the caller.
MAPS="limit reached: 16 guest memory mappings (machine option max_mappings, at most 3900: Unicorn 2.0.1's limit; default 1024; fewer m:code/m:alloc calls, or fewer threads inside guest calls at once)"
machine_lua maps4.lua 'max_mappings = 16' 'for i = 1, 40 do\n  m:code("\\xc3")\nend\n'
expect "guest memory mappings through m:code" 2 "maps4.lua:4: m:code: $MAPS" -- run maps4.lua
machine_lua maps5.lua 'max_mappings = 16' 'for i = 1, 40 do\n  m:import_table { "GetLastError" }\nend\n'
expect "guest memory mappings through m:import_table" 2 "maps5.lua:4: m:import_table: $MAPS" -- run maps5.lua
CLAUSE=SIM-LIMITS,SIM-GUEST-TRAP-POINTS
# Trap points (sim/README.md "Faults"): f0 3b c0 (lock cmp eax, eax) is one, at its f0; five
# of them on a machine that takes four end the run at the m:code that brings the fifth.
machine_lua traps.lua 'max_trap_points = 4' 'm:code(string.rep("\\xf0\\x3b\\xc0", 5))\n'
expect "trap points (max_trap_points)" 2 \
  "traps.lua:3: m:code: limit reached: 4 trap points in guest code (machine option max_trap_points, at most 16384; default 1024: each costs host time on every guest call; data belongs in m:alloc, not m:code)" -- run traps.lua
machine_lua traps2.lua 'max_trap_points = 5' 'm:code(string.rep("\\xf0\\x3b\\xc0", 5))\nprint("ok")\n'
expect "five trap points fit in five" 0 "" --out "ok" -- run traps2.lua
machine_lua traps3.lua 'max_trap_points = 16385'
expect "max_trap_points above its limit" 2 "traps3.lua:2: hcp.machine: 'max_trap_points' = 16385 is out of range (1..16384)" -- run traps3.lua
machine_lua traps4.lua 'max_trap_points = 0'
expect "max_trap_points of 0" 2 "traps4.lua:2: hcp.machine: 'max_trap_points' = 0 is out of range (1..16384)" -- run traps4.lua
CLAUSE=SIM-LIMITS
machine_lua alloc0.lua '' 'm:alloc(0)\n'
expect "m:alloc of 0 bytes" 2 "alloc0.lua:3: bad argument #1 to 'alloc' (size must be 1..268435456 bytes)" -- run alloc0.lua
machine_lua alloc1.lua '' 'm:alloc(268435457)\n'
expect "m:alloc above 256 MiB" 2 "alloc1.lua:3: bad argument #1 to 'alloc' (size must be 1..268435456 bytes)" -- run alloc1.lua
# m:alloc blocks live in 0x10000000..0x70000000 (1.5 GiB), each followed by a guard page: five
# 256 MiB blocks fit, the sixth does not, whatever max_memory allows (here 4 GiB).
machine_lua space.lua 'max_memory = 1 << 32' 'for i = 1, 6 do\n  m:alloc(256 * 1024 * 1024)\n  print(i)\nend\n'
expect "the m:alloc address range is used up" 2 "space.lua:4: m:alloc: out of memory (host or guest address space)" \
  --out "1
2
3
4
5" -- run space.lua
$HCPSIM describe | grep -qx '  guest mappings    1024 per machine (machine option max_mappings, at most 3900): each m:alloc, m:code'
result $? "describe states the mappings default (1024) and limit (3900)"
$HCPSIM describe | grep -qx "  trap points       1024 per machine (machine option max_trap_points, at most 16384): places in m:code's"
result $? "describe states the trap points default (1024) and limit (16384)"
# max_handles = 3: the thread's own handle is one, two OpenThread calls fill the table; the third
# fails as Windows does when the handle table is full: NULL and ERROR_NO_SYSTEM_RESOURCES (1450).
cat > handles.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { max_handles = 3 }
m:thread { name = "w", body = function(t)
  for i = 1, 3 do
    local h = t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, t.id)
    print(h ~= nil, t:GetLastError())
  end
end }
m:run()
m:event {}
EOF
CLAUSE=SIM-LIMITS,SIMDEF-HANDLE-TABLE-FULL
expect "max_handles: Windows' error from the API, a limit message from m:event" 2 \
  "handles.lua:10: m:event: ERROR_NO_SYSTEM_RESOURCES: the handle table is full (3 handles open; machine option max_handles, default 1048576)" \
  --out "true	0
true	0
false	1450" -- run handles.lua
CLAUSE=SIM-LIMITS
HANDLES="ERROR_NO_SYSTEM_RESOURCES: the handle table is full"
machine_lua handles2.lua 'max_handles = 2' 'for i = 1, 3 do\n  m:thread { name = "w" .. i, body = function(t) end }\nend\n'
expect "max_handles from m:thread (each thread holds one handle)" 2 \
  "handles2.lua:4: m:thread: $HANDLES (2 handles open; machine option max_handles, default 1048576)" -- run handles2.lua
machine_lua handles3.lua 'max_handles = 1' 'm:event {}\nm:mutex {}\n'
expect "max_handles from m:mutex" 2 \
  "handles3.lua:4: m:mutex: $HANDLES (1 handles open; machine option max_handles, default 1048576)" -- run handles3.lua
machine_lua handles4.lua 'max_handles = 1' 'm:mutex {}\nm:semaphore { initial = 0, max = 1 }\n'
expect "max_handles from m:semaphore" 2 \
  "handles4.lua:4: m:semaphore: $HANDLES (1 handles open; machine option max_handles, default 1048576)" -- run handles4.lua
cat > cycles.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { max_cycles = 100000 }
local loop = m:code("\xeb\xfe")
m:thread { name = "w", body = function(t)
  t:run(loop)
end }
m:run()
EOF
expect "max_cycles in guest code" 2 \
  "cycles.lua:5: limit reached: 100000 cycles on CPU 0 (machine option max_cycles or m:run{max_cycles = N}; default 20000000000)" -- run cycles.lua
cat > calls.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { max_cycles = 5000000 }
m:thread { name = "caller", body = function(t)
  local me = t:GetCurrentThread()
  while true do t:QueryThreadCycleTime(me) end
end }
m:run()
EOF
expect "max_cycles in a body whose API calls never block (each enters the kernel: the clock moves)" 2 \
  "calls.lua:5: limit reached: 5000000 cycles on CPU 0 (machine option max_cycles or m:run{max_cycles = N}; default 20000000000)" -- run --lua-instructions 50000000 calls.lua
cat > sleep.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
m:thread { name = "s", body = function(t) t:Sleep(1000) end }
m:run { max_cycles = 1000000 }
EOF
expect "max_cycles while every thread sleeps" 2 \
  "sleep.lua:4: limit reached: 1000000 cycles (machine option max_cycles or m:run{max_cycles = N}; default 20000000000)" -- run sleep.lua
machine_lua run0.lua '' 'm:run { max_cycles = 0 }\n'
expect "m:run{max_cycles = 0}" 2 "run0.lua:3: m:run: max_cycles must be a positive integer" -- run run0.lua
printf 'local x = 0\nwhile true do\n  x = x + 1\nend\n' > spin.lua
expect "Lua instructions in the main chunk" 2 \
  "spin.lua:3: limit reached: 100000 Lua instructions (hcpsim run --lua-instructions N; default 5000000000)" -- run --lua-instructions 100000 spin.lua
cat > bodyspin.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
m:thread { name = "w", body = function(t)
  while true do end
end }
m:run()
EOF
expect "Lua instructions in a thread body" 2 \
  "bodyspin.lua:4: limit reached: 100000 Lua instructions (hcpsim run --lua-instructions N; default 5000000000)" -- run --lua-instructions 100000 bodyspin.lua
printf 'local t = {}\nfor i = 1, 1e9 do t[i] = ("x"):rep(64) .. i end\n' > hog.lua
expect "Lua memory: named after the file (a refused allocation has no line)" 2 \
  "hog.lua: limit reached: 10000000 bytes of Lua memory (hcpsim run --lua-memory N; default 1073741824)" -- run --lua-memory 10000000 hog.lua

# --trace-limit: a run that switches threads every 1000 cycles (tick 10 x 100 ns = 3000 cycles at
# 3 GHz, quantum 1) fills 200 events long before its 3 x 200004 cycles are done.
cat > busy.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { cost = "unit", quantum = 1, tick = 10 }
local k = m:load "kernels"
for i = 1, 3 do m:thread { name = "w" .. i, body = function(t) t:run(k.spin, 100000) end } end
m:run()
EOF
why="busy.lua:5: limit reached: 200 trace events (hcpsim run --trace-limit N; default 10000000)"
expect "--trace-limit" 2 "$why" -- run --trace-limit 200 --trace busy.json --report busy.report.json busy.lua
WHY="$why" perl -MJSON::PP -e 'local $/; open my $t, "<", "busy.json" or exit 1; my $d = JSON::PP->new->decode(<$t>);
  open my $r, "<", "busy.report.json" or exit 2; my $rep = JSON::PP->new->decode(<$r>);
  exit 3 unless @{$d->{traceEvents}} <= 200;
  exit 4 unless ($d->{otherData}{partial} // "") eq $ENV{WHY};
  exit 5 unless ($rep->{run}{partial} // "") eq $ENV{WHY} && $rep->{run}{status} eq "limit" && $rep->{run}{exit_status} == 2;
  exit 6 unless $rep->{run}{limit} eq "trace_limit";
  exit 0' 2>/dev/null
result $? "the trace stops at 200 events and it and the report say partial, with the limit" "check $?"
WHY="busy.lua:5: limit reached: 200 trace events (hcpsim run --trace-limit N; default 10000000)"
$HCPSIM run --trace-limit 200 --trace busy.json --report busy.md busy.lua >/dev/null 2>&1
grep -qxF "| error | $WHY |" busy.md && grep -qxF '| status | limit trace_limit (exit status 2) |' busy.md
result $? "the Markdown report shows the partial status and the limit"
$HCPSIM run --trace-limit 200 --trace busy.json --report busy.html busy.lua >/dev/null 2>&1
grep -qF "<td class=\"status-partial\">limit trace_limit (exit status 2)</td>" busy.html && grep -qF "$WHY" busy.html
result $? "the HTML report shows the partial status and the limit"
$HCPSIM run --trace busy.json --report busy.report.json busy.lua >/dev/null 2>&1
st=$?
perl -MJSON::PP -e 'local $/; open my $t, "<", "busy.json" or exit 1; my $d = JSON::PP->new->decode(<$t>);
  open my $r, "<", "busy.report.json" or exit 2; my $rep = JSON::PP->new->decode(<$r>);
  exit(exists $d->{otherData}{partial} && !defined $d->{otherData}{partial} && !defined $rep->{run}{partial} ? 0 : 3)' 2>/dev/null
result $? "without the limit the same run completes: partial is null in the trace and the report" "status $st"
# Records dropped where no m:run step checks: m:thread readies its thread at once (a ready-counter
# sample and a Ready span begin for each of three threads), and no m:run follows.  With
# --trace-limit 1 no record fits: the scenario's end names the limit after the file.
machine_lua norun.lua '' 'for i = 1, 3 do m:thread { name = "w" .. i, body = function(t) end } end\nprint("done")\n'
WHY="norun.lua: limit reached: 1 trace events (hcpsim run --trace-limit N; default 10000000)"
expect "--trace-limit outside m:run: named after the file at the scenario's end" 2 "$WHY" --out "done" \
  -- run --trace-limit 1 --trace norun.json --report norun.report.json norun.lua
WHY="$WHY" perl -MJSON::PP -e 'local $/; open my $t, "<", "norun.json" or exit 1; my $d = JSON::PP->new->decode(<$t>);
  open my $r, "<", "norun.report.json" or exit 2; my $rep = JSON::PP->new->decode(<$r>);
  exit 3 if grep { $_->{ph} ne "M" } @{$d->{traceEvents}};
  exit 4 unless ($d->{otherData}{partial} // "") eq $ENV{WHY};
  exit 5 unless ($rep->{run}{partial} // "") eq $ENV{WHY} && $rep->{run}{exit_status} == 2;
  exit 0' 2>/dev/null
result $? "the trace keeps only its metadata and it and the report say partial" "check $?"
$HCPSIM run --trace norun.json norun.lua >/dev/null 2>&1
perl -MJSON::PP -e 'local $/; open my $t, "<", "norun.json" or exit 1; my $d = JSON::PP->new->decode(<$t>);
  exit((grep { $_->{ph} eq "X" && $_->{name} eq "Ready" } @{$d->{traceEvents}}) == 3 ? 0 : 3)' 2>/dev/null
result $? "without the limit the same scenario records three Ready spans (so the limit did drop records)"

# Report lists: not a run-ending limit.  busy.lua's single CPU switches between its three threads
# more than twice, and the scenario makes no API call but m:load's (none recorded): with
# --report-intervals 2 the schedule keeps 2 intervals and says it is truncated.
$HCPSIM run --report-intervals 2 --report-calls 1 --report lists.json busy.lua >/dev/null 2>&1
st=$?
perl -MJSON::PP -e 'local $/; open my $r, "<", "lists.json" or exit 1; my $d = JSON::PP->new->decode(<$r>);
  my $s = $d->{machines}[0]{schedule}; my $a = $d->{machines}[0]{api};
  exit 2 unless $d->{limits}{intervals_per_machine} == 2 && $d->{limits}{calls_per_machine} == 1;
  exit 3 unless $s->{limit} == 2 && $s->{kept} == 2 && $s->{total} > 2 && $s->{truncated};
  exit 4 unless $a->{limit} == 1;
  exit 5 unless !defined $d->{run}{partial} && $d->{run}{status} eq "complete";
  my $kept = 0; $kept += @{$_->{intervals}} for @{$s->{lanes}};
  exit($kept == 2 ? 0 : 6)' 2>/dev/null
r=$?
[ "$st" = 0 ] && [ "$r" = 0 ]
result $? "--report-intervals 2: the schedule keeps 2 intervals, says it is truncated, and the run completes" "status $st, check $r"

# ---- --unsafe-io -------------------------------------------------------------------------------------------
CLAUSE=SIM-UNSAFE-IO
printf 'local f = io.open("result.txt", "w")\n' > io.lua
expect "io without --unsafe-io" 2 "io.lua:1: variable 'io' is not declared (the io library needs hcpsim run --unsafe-io)" -- run io.lua
cat > iow.lua <<'EOF'
local f = assert(io.open("result.txt", "w"))
f:write("counters ", 2004, "\n")
f:close()
print(io.popen == nil, rawget(_G, "os") == nil)
EOF
printf 'local ok = pcall(function() return os end)\nprint(ok)\n' > os.lua
expect "with --unsafe-io a scenario writes a file; io.popen stays closed" 0 "" --out "true	true" -- run --unsafe-io iow.lua
[ "$(cat result.txt 2>/dev/null)" = "counters 2004" ]
result $? "the file holds what the scenario wrote"
expect "--unsafe-io opens io only, not os" 0 "" --out "false" -- run --unsafe-io os.lua

# ---- warnings: what the documentation forbids but Windows lets pass ----------------------------------
CLAUSE=SIM-WARNINGS
# a body that returns with profiling enabled: the warning names the body's last line
cat > exitprof.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
m:thread { name = "w", body = function(t)
  t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0)
end }
m:run()
print("ran")
EOF
EXITPROF="exitprof.lua:5: warning: thread 'w' (id 1000) exited with profiling enabled (the documentation: a thread must call DisableThreadProfiling before it exits)"
expect "a thread that exits with profiling enabled: a warning, the run goes on" 0 "$EXITPROF" --out "ran" -- run exitprof.lua
expect "--werror: the same message ends the run" 2 "$EXITPROF" --out "" -- run --werror exitprof.lua
# t:exit with profiling enabled: the warning names the line of t:exit
cat > exitprof2.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
m:thread { name = "e", body = function(t)
  t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0)
  t:exit(3)
end }
m:run()
EOF
expect "t:exit with profiling enabled: the warning names the line of t:exit" 0 \
  "exitprof2.lua:5: warning: thread 'e' (id 1000) exited with profiling enabled (the documentation: a thread must call DisableThreadProfiling before it exits)" -- run exitprof2.lua
# two PMCs: Index 2 names none; Type 1 is MaxHardwareCounterType, not a counter; the second call is
# made while thread p (id 1000) profiles.  Both calls succeed (0), as on Windows.
cat > keset.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { pmc = { "instructions", "cycles" } }
print(m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 }, { Type = 1, Index = 2 } })
m:thread { name = "p", body = function(t)
  local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 1)
  print(m:KeSetHardwareCounterConfiguration {})
  t:DisableThreadProfiling(ph)
end }
m:run()
EOF
expect "KeSet: a Type other than PMCCounter, an Index past the PMCs, a call while a thread profiles" 0 \
"keset.lua:3: warning: KeSetHardwareCounterConfiguration: CounterArray[1].Type 1 is not a counter type (valid: PMCCounter = 0); Windows does not check it
keset.lua:3: warning: KeSetHardwareCounterConfiguration: CounterArray[1].Index 2 names no PMC of this machine (it has 2: machine option pmc); the counter reads 0
keset.lua:6: warning: KeSetHardwareCounterConfiguration while thread 'p' (id 1000) profiles (the documentation: call it only while thread profiling is disabled)" \
  --out "0
0" -- run keset.lua
expect "--werror: the first warning ends the run" 2 \
  "keset.lua:3: warning: KeSetHardwareCounterConfiguration: CounterArray[1].Type 1 is not a counter type (valid: PMCCounter = 0); Windows does not check it" \
  --out "" -- run --werror keset.lua
expect "--werror with --report (which wraps the Windows functions): the same message" 2 \
  "keset.lua:3: warning: KeSetHardwareCounterConfiguration: CounterArray[1].Type 1 is not a counter type (valid: PMCCounter = 0); Windows does not check it" \
  --out "" -- run --werror --report keset.json keset.lua
# a scenario that expects a warning takes it with hcp.on_warning: nothing on stderr, even with --werror
cat > onwarn.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { pmc = { "instructions" } }
local seen = {}
print(hcp.on_warning(function(w) seen[#seen + 1] = w end))
print(m:KeSetHardwareCounterConfiguration { { Index = 1 } })
print(#seen, seen[1])
print(type(hcp.on_warning(nil)))
EOF
expect "hcp.on_warning hands the warning to the scenario (and returns the previous handler)" 0 "" --out "nil
0
1	onwarn.lua:5: warning: KeSetHardwareCounterConfiguration: CounterArray[0].Index 1 names no PMC of this machine (it has 1: machine option pmc); the counter reads 0
function" -- run --werror onwarn.lua
printf 'local hcp = require "hcpsim"\nhcp.on_warning(5)\n' > onwarn2.lua
expect "hcp.on_warning takes a function or nil" 2 "onwarn2.lua:2: bad argument #1 to 'on_warning' (function expected, got number)" -- run onwarn2.lua
CLAUSE=SIM-BENCH-ONE
BENCH_USAGE="hcpsim: bench --one needs WORKLOAD MODE N (workloads: spin memwalk stores branchy calls x86-spin arm64-spin arm-spin arm64-memwalk; modes 0 to 6; 1 <= N <= 100000000)"
expect "bench --one: an unknown workload" 2 "$BENCH_USAGE" -- bench --one frob 0 10
expect "bench --one: mode 7" 2 "$BENCH_USAGE" -- bench --one spin 7 10
expect "bench --one: N = 0" 2 "$BENCH_USAGE" -- bench --one spin 2 0
expect "bench --rounds 0" 2 "hcpsim: bench --rounds needs a number from 1 to 15" -- bench --rounds 0
expect "bench --rounds 16" 2 "hcpsim: bench --rounds needs a number from 1 to 15" -- bench --rounds 16
expect "bench --rounds x" 2 "hcpsim: bench --rounds needs a number from 1 to 15" -- bench --rounds x
expect "bench: an unknown workload" 2 "hcpsim: bench: no workload 'frob' (workloads: spin memwalk stores branchy calls x86-spin arm64-spin arm-spin arm64-memwalk)" -- bench --rounds 1 spin frob
expect "bench --one: a data workload past its buffer" 2 "hcpsim: bench: workload 'memwalk' failed or miscounted in mode 6 (N up to 8388608 with data)" -- bench --one memwalk 6 8388609
# spin(n) retires 4 + 2n (scenarios/kernels/spin.S): n = 1000 is 2004, and raw Unicorn's block hook sees
# the entry block, n loop blocks and the ret's block: 1002.  Two threads (mode 4 up) each call spin(n/2): 4 more.
expect "bench --one spin, raw Unicorn with a block hook: 2004 instructions, 1002 blocks" 0 "" --out "spin	1	raw unicorn + empty block hook	2004	1002" -- bench --one spin 1 1000
expect "bench --one spin, block counting: 2004 instructions" 0 "" --out "spin	2	hcpsim block counting	2004	0" -- bench --one spin 2 1000
expect "bench --one spin, cache model, two threads of 500: 2008 instructions" 0 "" --out "spin	6	+ cache model	2008	0" -- bench --one spin 6 1000
# memwalk(p, n) retires 4 + 4n (scenarios/kernels/memwalk.S)
expect "bench --one memwalk, cache model: 4 + 4 x 2 x 500 + 4 instructions" 0 "" --out "memwalk	6	+ cache model	4008	0" -- bench --one memwalk 6 1000

echo "1..$n"
[ "$fail" = 0 ]
