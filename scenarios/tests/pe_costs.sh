#!/bin/sh
# What issue 33's families cost (api/README.md "Costs of the synchronisation families") on
# scenarios/examples/pe/costs.c, x86-64 and i386, one CPU, the default cost table (api_call 1500
# cycles of kernel work), read with the program's own counters (cycles:k, instructions).  Each
# expected number is derived from the rules there, not taken from a run:
#  - a function of the user-mode families (SRW locks, condition variables, FLS values) that does
#    not wait or wake enters no kernel: 0; a wake that alerts a parked thread is one entry, 1500;
#  - a kernel32 function of one call of OS code (SetEvent, QueueUserAPC, SubmitThreadpoolWork): 1500;
#  - an alertable SleepEx(0) with no APC returns 0 (1500, and no dispatcher); with 3 APCs queued it
#    returns WAIT_IO_COMPLETION (192) after delivering them: one entry each (3 x 1500 = 4500 more)
#    and the dispatcher's code (api/guest/ucb_*.S): x86-64 1 instruction on entry, 15 per callback
#    (cb_next's call and thunk, the record's test, the arguments, the call, the jump back), 12 to
#    return (cb_next's call, thunk, test, the result, the stack, ret), less the SleepEx thunk's
#    ret that the redirection skips, plus each APC's own ret: 1 + 45 + 12 - 1 + 3 = 60; i386 3 on
#    entry (two pushes, a move), 16 per callback (x86-64's 15, pushes for the moves, and the
#    stack reset after the stdcall callee), 17 to return (x86-64's 12 less the stack's add, and
#    two pops and the four instructions that pop the interrupted call's arguments), less 1, plus
#    3 ret 4s: 3 + 48 + 17 - 1 + 3 = 70.
CLAUSE=PE-SYNC-COSTS
. scenarios/tests/lib/tap.sh
. "$top/scenarios/tests/lib/pe_family.sh"
echo "TAP version 13"
for bits in 64 32; do
  if [ $bits = 64 ]; then apc=60; else apc=70; fi
  cat > want$bits.txt <<EOT
empty window: kernel 0
SRW acquire + release, uncontended: kernel 0
SetEvent: kernel 1500
FlsSetValue + FlsGetValue: kernel 0
WakeConditionVariable, no sleeper: kernel 0
QueueUserAPC: kernel 1500
SleepEx(0, TRUE): 0 then 192; 3 APCs delivered: kernel 4500, user instructions $apc
SRW release with a parked waiter: kernel 1500
WakeConditionVariable, one sleeper: kernel 1500
SubmitThreadpoolWork: kernel 1500
EOT
  cp "$pe/costs$bits.exe" .
  timeout 300 $HCPSIM run --pmc cycles:k,instructions --counters 0,1 "costs$bits.exe" > out$bits.txt 2> err$bits.txt
  st=$?
  tr -d "$cr" < out$bits.txt > got$bits.txt
  result_lines want$bits.txt got$bits.txt "costs$bits.exe"
  [ "$st" = 0 ] && [ ! -s err$bits.txt ] && [ "$(wc -l < got$bits.txt)" = "$(wc -l < want$bits.txt)" ]
  result $? "costs$bits.exe: runs to exit 0 writing nothing else (status $st)" "$(head -c 600 err$bits.txt)"
done
echo "1..$n"
exit $((fail > 0))
