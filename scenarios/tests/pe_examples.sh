#!/bin/sh
# The example programs of scenarios/examples/pe/ (README there) in both ISAs, each run twice.
# Every number is derived here, not recorded:
# - Counts, from the image's disassembly: a probe (sampler.c's sample, reader.c's probe_*) is
#   straight-line code whose three control transfers are, in order, the first
#   ReadThreadProfilingData, the call in the middle (work or a wait function), and the second
#   ReadThreadProfilingData (a call, or a jmp when the compiler made it a tail call).  `glue`
#   counts G, the instructions after the first transfer up to and including the third (2 of them
#   branches).  The window between the two reads is then (api/README.md "Call gate") the first
#   thunk's ret (1 instruction, 1 branch) + G + the middle callee + the second thunk's mov and
#   syscall or int 0x2e (2, 1 branch); work(n) is 2 + 2n instructions, n + 1 branches (its
#   listing in sampler.c), a wait function's thunk 3 instructions, 2 branches.  The machine uses
#   the unit cost table (sampler.lua), so CycleTime = instructions: no API call costs a cycle.
# - Switches and wait reasons, from sim/README.md's scheduler rules at 1 MHz (a tick = 15625
#   cycles, a quantum 2 ticks of the thread's own cycles, Sleep(1) = 1000 cycles, resolved at the
#   next tick): see each block below.
CLAUSE=PE-EXAMPLES
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
echo "TAP version 13"
echo "1..12"
cp "$top/scenarios/examples/pe/sampler.lua" "$top/scenarios/examples/pe/frames.lua" "$top/scenarios/examples/pe/reader.lua" .

# example NAME EXE PRECONDITION DESCRIPTION: runs NAME.lua on EXE twice; its output must be
# want.txt (and PRECONDITION, a status, 0), and the second run's the same bytes.
example() {
  $HCPSIM run "$1.lua" -- "$2" > out1.txt 2> err.txt; st=$?
  [ "$3" = 0 ] && [ "$st" = 0 ] && cmp -s out1.txt want.txt
  result $? "$2: $4" "status $st: $(diff out1.txt want.txt | head -4 | tr '\n' ' ') $(cat err.txt)"
  $HCPSIM run "$1.lua" -- "$2" > out2.txt 2>&1
  cmp -s out1.txt out2.txt
  result $? "$2: a second run prints the same bytes"
}
glue() { # objdump, image, symbol -> "G GB", or "bad" when the code is not straight-line as stated
  $1 -d "$2" | awk -v s="<$3>:" '
    $2 == s { on = 1; next }
    on && /^$/ { exit }
    on && /^ *[0-9a-f]+:\t/ {
      n = split($0, f, "\t"); if (n < 3) next
      split(f[3], w, " "); op = w[1]; if (op == "rex.W") op = w[2]
      transfer = (op ~ /^(call|jmp)/); cond = (op ~ /^j/ && op !~ /^jmp/)
      if (cond || op ~ /^ret/ && t < 3) { bad = 1 }
      if (t >= 1 && t < 3) { g++; if (transfer) gb++ }
      if (transfer) t++
      if (t == 3) { done = 1; exit }
    }
    END { if (bad || !done) print "bad"; else print g, gb }'
}

for bits in 64 32; do
  case $bits in
    64) od=x86_64-w64-mingw32-objdump; pre="" ;;
    32) od=i686-w64-mingw32-objdump; pre="_" ;;
  esac
  cp "$pe/sampler$bits.exe" "$pe/frames$bits.exe" "$pe/reader$bits.exe" .

  # sampler: the contender (priority 9) wakes at every tick; each sample starts just after the
  # sampler's own Sleep(1) returned at a tick (the contender ran first and slept again), so a
  # sample of n = 100 (~210 cycles) holds no tick: kept, its counts as above; n = 10000 lasts
  # 20000+ cycles, more than one tick and less than two: one preemption, discarded.
  set -- $(glue $od "sampler$bits.exe" "${pre}sample")
  if [ "$1" = bad ]; then
    result 1 "sampler$bits.exe: sample() is straight-line code with three transfers"
  else
    g=$1
    {
      for i in 0 1 2 3 4 5; do
        if [ $((i % 2)) = 0 ]; then
          it=100; ins=$((1 + g + 2 + 2 * it + 2))
          printf 'sample %d: n %d kept: cycles %d instructions %d branches %d\r\n' $i $it $ins $ins $((1 + $2 + it + 1 + 1))
        else
          printf 'sample %d: n 10000 discarded: 1 context switch(es)\r\n' $i
        fi
      done
      printf 'kept 3 of 6\r\nexit 0\n'
    } > want.txt
    example sampler "sampler$bits.exe" 0 "kept samples count 1 + $g + (2 + 2n) + 2 instructions = cycles, n + 5 branches; long ones discarded"
  fi

  # frames: vsync (priority 9) sets the auto-reset event at every tick.  A frame starting just
  # after a tick with n = 100 ends its wait at the next tick: 1 switch-in, UserRequest (bit 6).
  # n = 10000 (20000+ cycles) is preempted at the next tick (WrPreempted, bit 32) and its wait
  # finds the event set: 1 switch.  Frame 2 starts there, mid-tick, and waits for the next tick:
  # 1, bit 6.  n = 25000 (50000+ cycles) meets three ticks: at the first two the sampler has used
  # less than its quantum (31250 of its own cycles since the wait gave it a new one): WrPreempted;
  # at the third it has used more (46875 minus the interrupts and vsync's runs): WrQuantumEnd (bit
  # 30), decided before preemption; 3 switches.  Frames 4 and 5 wait once each.
  {
    printf 'frame 0: render   100, context switches 1, wait reasons 0x000000040\r\n'
    printf 'frame 1: render 10000, context switches 1, wait reasons 0x100000000\r\n'
    printf 'frame 2: render   100, context switches 1, wait reasons 0x000000040\r\n'
    printf 'frame 3: render 25000, context switches 3, wait reasons 0x140000000\r\n'
    printf 'frame 4: render   100, context switches 1, wait reasons 0x000000040\r\n'
    printf 'frame 5: render   100, context switches 1, wait reasons 0x000000040\r\n'
    printf 'exit 0\n'
  } > want.txt
  example frames "frames$bits.exe" 0 "switches and wait reasons per frame as the scheduler rules give"

  # reader: Size 288, Version 1, HwCountersCount 2 (mask 0x3, both elements configured: either
  # semantics), RetryCount 0, Reserved and the elements' Reserved never written (0), Type 0
  # (PMCCounter); the window's instructions = 1 + G + 3 + 2 = CycleTime, branches 1 + 2 + 2 + 1 = 6.
  # Switches: Sleep(1) waits (DelayExecution, bit 4); Sleep(0) with nothing else ready and the
  # zero-timeout waits return at once (no switch, no bit); the wait on the event the setter thread
  # (priority 9, wakes at the next tick) sets: 1, UserRequest (bit 6); SwitchToThread with the
  # yielder Ready: 1, WrYieldExecution (bit 33) (the yielder gives the CPU straight back).
  ok=1
  : > want.txt
  for probe in "probe_sleep|Sleep(1)|1|0x10" "probe_sleep0|Sleep(0), nothing else ready|0|0x0" \
    "probe_timeout|WaitForSingleObject(set event, 0)|0|0x0" "probe_timeout|WaitForSingleObject(reset event, 0)|0|0x0" \
    "probe_wait|WaitForSingleObject(event a thread sets)|1|0x40" "probe_yield|SwitchToThread, one thread ready|1|0x200000000"; do
    fn=${probe%%|*}; rest=${probe#*|}; what=${rest%%|*}; rest=${rest#*|}; sw=${rest%%|*}; bm=${rest#*|}
    set -- $(glue $od "reader$bits.exe" "$pre$fn")
    [ "$1" = bad ] && ok=0 && break
    ins=$((1 + $1 + 3 + 2))
    printf '%s: Size 288 Version 1 HwCountersCount 2 ContextSwitchCount +%s WaitReasonBitMap %s CycleTime +%d RetryCount 0 Reserved 0 HwCounters[0] Type 0 Reserved 0 Value +%d HwCounters[1] Type 0 Reserved 0 Value +%d\r\n' \
      "$what" "$sw" "$bm" $ins $ins $((1 + $2 + 2 + 1)) >> want.txt
  done
  printf 'exit 0\n' >> want.txt
  example reader "reader$bits.exe" $((1 - ok)) "every PERFORMANCE_DATA field after each kind of wait"
done
exit $((fail > 0))
