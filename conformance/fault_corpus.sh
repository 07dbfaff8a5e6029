#!/bin/sh
# sim/tests/faults.lua: 600 random blocks of guest code on x64, x86, ARM64 and ARM, most of them
# faulting in the middle (reads, writes, executes, stack overflows, divisions), each fault's
# exception, instruction and retired counts, and the data buffer's digest.  The expected output,
# sim/tests/faults.expected, is what the build before issue 32 printed, whose precise faults came
# from the engine itself (a memory hook for the whole run syncs Unicorn's PC before every load and
# store): the fault replay (sim/replay.c) must find the same instructions, counts and memory.
# The scenario runs twice: the same bytes each time.
CLAUSE=SIM-FAULT-REPLAY
. scenarios/tests/lib/tap.sh
$HCPSIM run "$top/sim/tests/faults.lua" >out1.txt 2>err1.txt
result $? "the corpus runs to its end (every fault caught by t:pcall_run)" "$(head -c 300 err1.txt)"
result "$(cmp -s out1.txt "$top/sim/tests/faults.expected"; echo $?)" \
  "every fault, instruction, counter and the data digest as the engine's own precise mode gave them" \
  "$(diff "$top/sim/tests/faults.expected" out1.txt | head -6 | tr '\n' '|')"
$HCPSIM run "$top/sim/tests/faults.lua" >out2.txt 2>/dev/null
result "$(cmp -s out1.txt out2.txt; echo $?)" "a second run prints the same bytes"
echo "1..$n"
[ "$fail" = 0 ]
