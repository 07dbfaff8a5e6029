-- Where two scheduler rules meet (sim/README.md "Scheduler"): preemption and
-- the quantum's remainder, quantum ends with several threads of a priority,
-- ready times on CPUs whose clocks lag, ideal processors with idle and busy
-- CPUs, timers at tick boundaries and on CPU 0 only.  Written because mutants
-- of sim/ that broke one of these meetings survived the rest of the suite
-- (`make check-mutation`, conformance/README.md "Mutation check").
--
-- Every schedule below is derived by hand from the rules, with cost = "unit"
-- (one cycle per instruction, API calls free) and these block facts:
--   spin(n) (scenarios/kernels/spin.S) runs a first block mov/test/jz
--   (3 cycles), n loop blocks dec/jnz (2 cycles each) and ret (1): its block
--   boundaries lie at start + 3 + 2i, and it ends at start + 4 + 2n.
--   even(n), hand-assembled below, runs mov/nop/dec/jnz (4 cycles), then
--   n - 1 loop blocks dec/jnz (2) and ret (1): boundaries at start + 4 + 2i,
--   end at start + 2n + 3.
-- A block that starts at or after a due time (tick, round end) does not run
-- before the scheduler has been asked (sim/README.md "Counting"), so with an
-- odd start spin stops at the first odd time at or after the due time.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

-- mov rax, rcx; nop; L: dec rcx; jnz L; ret  (rcx >= 1)
local EVEN_CODE = "\x48\x89\xC8\x90\x48\xFF\xC9\x75\xFB\xC3"

-- ---------------------------------------------------------------------------
tap.clause("SCHED-QUANTUM-ROTATION")
do
  -- One CPU, tick = 1000 x 100 ns = 300000 cycles at 3 GHz, quantum 2 ticks =
  -- 600000 cycles of the thread's own time, interrupt 2000 cycles (not the
  -- thread's).  A, B, C (priority 8, created in that order) each spin(600000).
  -- A from 0: ticks are taken at 300001 (A has 300001 cycles) and 600001
  -- (598001 < 600000: a quantum is not yet used); at 900001 it has 896001:
  -- its quantum ended and B is Ready: A goes to the TAIL, B runs at 902001.
  -- B from 902001: first block to 902004, boundaries 902004 + 2i, so ticks at
  -- 1200000 (B: 297999), 1500000 (595999), 1800000 (893999 >= 600000): the
  -- head of the queue is C (A went behind it): C runs at 1802000.
  local m = hcp.machine { tick = 1000, quantum = 2, cost = "unit" }
  local k = m:load "kernels"
  local start = {}
  for _, name in ipairs { "A", "B", "C" } do
    m:thread { name = name, body = function(t)
      start[name] = m:clock()
      t:run(k.spin, 600000)
    end }
  end
  m:run()
  tap.is(start.A, 0, "A runs first")
  tap.is(start.B, 902001, "B takes over at the first tick after A used a whole quantum (after its interrupt)")
  tap.is(start.C, 1802000, "C runs after B's quantum: A went to the tail of the queue, behind C")
end

-- ---------------------------------------------------------------------------
tap.clause("SCHED-PREEMPT-KEEPS-QUANTUM")
do
  -- Same clock.  H (priority 12) waits on event E from time 0.  L1 (8) runs
  -- spin(200000) from 0: tick at 300001 (+2000), ends at 402004 with 400004
  -- cycles of its own, sets E: H preempts it at once (L1 to the head of the
  -- priority-8 queue, keeping what is left of its quantum) and exits at once.
  -- L1 runs again at 402004: spin(400000), first block to 402007, boundaries
  -- 402007 + 2i.  Tick at 600001: L1 has 598001 cycles since its quantum
  -- began at 0 (not 600000); tick at 900001: 896001 >= 600000, L2 is Ready at
  -- its priority, so L2 runs at 902001.  Had the preemption given L1 a fresh
  -- quantum (from 400004), it would have kept the CPU until the tick at
  -- 1200001.
  local m = hcp.machine { tick = 1000, quantum = 2, cost = "unit" }
  local k = m:load "kernels"
  local E = m:event {}
  local start, l1_bits = {}, nil
  local l1 = m:thread { name = "L1", body = function(t)
    local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
    t:run(k.spin, 200000)
    t:SetEvent(E)
    local _, pd = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
    l1_bits = pd.WaitReasonBitMap
    start.L1_again = m:clock()
    t:run(k.spin, 400000)
    t:DisableThreadProfiling(ph)
  end }
  m:thread { name = "L2", body = function() start.L2 = m:clock() end }
  m:thread { name = "H", priority = 12, body = function(t) t:WaitForSingleObject(E) end }
  m:run()
  tap.is(l1_bits, 1 << hcp.WrPreempted, "L1 was preempted by H (WrPreempted)")
  tap.is(start.L1_again, 402004, "and ran again at once when H exited")
  tap.is(start.L2, 902001, "L1's quantum still counted from 0: L2 runs after the tick at 900001")
  tap.is(l1.switches, 3, "L1 switched in three times (start, after H, after L2)")
end

-- ---------------------------------------------------------------------------
tap.clause("SCHED-READY-TIME")
do
  -- Two CPUs, lock-step rounds of 10000 cycles.  H (affinity CPU 0) waits on E
  -- from time 0 on CPU 0; X (CPU 0 only) then runs spin(50000): odd
  -- boundaries, so its segments stop at 10001, 20001, ...; Y (CPU 1 only) runs
  -- even(52500): even boundaries, its segments stop at 10000, 20000, ...
  -- From round 1 on, CPU 1 (at 10000k) is behind CPU 0 (10000k + 1) and runs
  -- its round first.  Round 10: Y ends at 105003 and sets E: H is Ready at
  -- 105003 (CPU 0 is busy with X of H's priority: no preemption).  Then CPU 0
  -- runs from 100001: X ends at 100004 and CPU 0 has nothing it may take,
  -- because H became Ready after 100004 on CPU 0's clock.  CPU 0 idles to the
  -- round end, 110000, and H runs there.
  local m = hcp.machine { cpus = 2, cost = "unit" }
  local k = m:load "kernels"
  local even = m:code(EVEN_CODE)
  local E = m:event {}
  local woke, x_end, y_set
  local h = m:thread { name = "H", affinity = 0x1, body = function(t)
    t:WaitForSingleObject(E)
    woke = m:clock()
  end }
  m:thread { name = "X", affinity = 0x1, body = function(t)
    t:run(k.spin, 50000)
    x_end = m:clock()
  end }
  m:thread { name = "Y", affinity = 0x2, body = function(t)
    t:run(even, 52500)
    y_set = m:clock()
    t:SetEvent(E)
  end }
  m:run()
  tap.is(x_end, 100004, "X ends on CPU 0 at 4 + 2 x 50000")
  tap.is(y_set, 105003, "Y sets the event on CPU 1 at 2 x 52500 + 3")
  tap.is(woke, 110000, "H runs at CPU 0's round end, not at 100004, before it was Ready")
  tap.is(h.cpu, 0, "on CPU 0")
end

-- ---------------------------------------------------------------------------
tap.clause("SCHED-IDEAL-BUSY")
do
  -- Two CPUs; A and B both have ideal processor 0.  CPU 0 takes A at 0.  CPU 1
  -- is idle: B's ideal processor is busy, so CPU 1 takes B at once (it leaves
  -- a thread only to an IDLE ideal processor).
  local m = hcp.machine { cpus = 2, cost = "unit" }
  local k = m:load "kernels"
  local start = {}
  local a = m:thread { name = "A", ideal = 0, body = function(t) start.A = m:clock(); t:run(k.spin, 100000) end }
  local b = m:thread { name = "B", ideal = 0, body = function(t) start.B = m:clock(); t:run(k.spin, 100000) end }
  m:run()
  tap.is(a.cpu, 0, "A runs on its ideal processor 0")
  tap.is(b.cpu, 1, "B runs on the idle CPU 1 although its ideal processor is 0")
  tap.is(start.B, 0, "from time 0")
  tap.is(m:cpus()[2].busy, 4 + 2 * 100000, "CPU 1 did B's work")
end
-- ---------------------------------------------------------------------------
tap.clause("SCHED-SLEEP-TICKS")
do
  -- One CPU, tick 300000 cycles, interrupt 2000.  S spins spin(498) = 1000
  -- cycles, then Sleep(1): due 1000 + 3000000 = 3001000.  The tick due at
  -- 3000000 is taken at 3000000 (the CPU idles to each tick) and ends at
  -- 3002000, after the due time, but it expires only timers due at or before
  -- its own due time, 3000000: S is Ready at the next tick, 3300000, and runs
  -- after its interrupt, 3302000.
  local m = hcp.machine { tick = 1000, cost = "unit" }
  local k = m:load "kernels"
  local slept, woke
  m:thread { name = "S", body = function(t)
    t:run(k.spin, 498)
    slept = m:clock()
    t:Sleep(1)
    woke = m:clock()
  end }
  m:run()
  tap.is(slept, 1000, "S sleeps at 1000 cycles")
  tap.is(woke, 3302000, "a timer due during a tick's interrupt waits for the next tick")

  -- Sleep(1) at time 0: due 3000000, exactly the tenth tick's due time: it
  -- expires at that tick (due at or before it) and S runs at 3002000.
  m = hcp.machine { tick = 1000, cost = "unit" }
  m:thread { name = "S0", body = function(t)
    t:Sleep(1)
    woke = m:clock()
  end }
  m:run()
  tap.is(woke, 3002000, "a timer due exactly at a tick expires at that tick")
end

-- ---------------------------------------------------------------------------
tap.clause("SCHED-TIMERS-CPU0")
do
  -- Two CPUs, tick 300000 cycles, rounds of 10000.  S (priority 12, CPU 1
  -- only) sleeps 1 ms at time 0 on CPU 1: due 3000000, a tick's due time.  X
  -- (CPU 0 only) runs spin: odd boundaries, it stops at 10000k + 1; Y (CPU 1
  -- only) runs even(): it stops at 10000k exactly, so every round (and tick)
  -- happens on CPU 1 first (interrupts add 2000 on both: parities stay).
  -- CPU 1's tick at 3000000 expires nothing (only CPU 0's interrupt expires
  -- timers); CPU 0's tick, taken at 3000001, readies S at 3002001.  CPU 1 is
  -- then at 3002000, busy with Y (priority 8): it checks for preemption at its
  -- block boundaries, but S becomes eligible there only at CPU 1's next round
  -- end, 3010000, where it preempts Y.
  local m = hcp.machine { cpus = 2, tick = 1000, cost = "unit" }
  local k = m:load "kernels"
  local even = m:code(EVEN_CODE)
  local woke
  local s = m:thread { name = "S", priority = 12, affinity = 0x2, body = function(t)
    t:Sleep(1)
    woke = m:clock()
  end }
  m:thread { name = "X", affinity = 0x1, body = function(t) t:run(k.spin, 1600000) end }
  local y = m:thread { name = "Y", affinity = 0x2, body = function(t) t:run(even, 1600000) end }
  m:run()
  tap.is(woke, 3010000, "the sleeper wakes at CPU 1's round end after CPU 0's tick, not at CPU 1's own tick")
  tap.is(s.cpu, 1, "on CPU 1")
  tap.is(y.switches, 2, "Y was preempted once")
  tap.is(m:cpus()[1].ticks, m:cpus()[2].ticks, "both CPUs take every tick")
end
-- ---------------------------------------------------------------------------
tap.clause("SCHED-TIMER-ORDER")
do
  -- One CPU.  R (priority 10), Q (9) and P (8), created P, Q, R (ids 1000,
  -- 1004, 1008), each Sleep(1) at time 0 in priority order R, Q, P: three
  -- timers due at 3000000.  The tick there expires them in (due time, thread
  -- id) order, whatever order they were set in: P, Q, R are readied in that
  -- order (the kernel logger's ReadyThread events; Flag 0x1, readied from a
  -- DPC, marks a timeout: api/README.md "ETW"), then run by priority: R, Q, P.
  local m = hcp.machine { tick = 1000, cost = "unit" }
  local readied, ran = {}, {}
  m:trace { flags = hcp.EVENT_TRACE_FLAG_DISPATCHER, on_event = function(ev)
    if ev.name == "ReadyThread" and ev.data.Flag == 1 then readied[#readied + 1] = ev.data.TThreadId end
  end }
  for _, spec in ipairs { { "P", 8 }, { "Q", 9 }, { "R", 10 } } do
    m:thread { name = spec[1], priority = spec[2], body = function(t)
      t:Sleep(1)
      ran[#ran + 1] = spec[1] .. "@" .. m:clock()
    end }
  end
  m:run()
  tap.is(table.concat(readied, ","), "1000,1004,1008", "timers due together expire in thread id order")
  tap.is(table.concat(ran, ","), "R@3002000,Q@3002000,P@3002000", "and the threads then run by priority")
end
-- ---------------------------------------------------------------------------
tap.clause("SCHED-QUANTUM-RENEW")
do
  -- One CPU, tick 300000 cycles, quantum 600000, interrupt 2000.  B sleeps
  -- 1 ms at time 0 (due 3000000); A spins spin(2000000) from 0, alone.  A's
  -- boundaries are odd, so tick k is taken at 300000k + 1, when A has
  -- 300000k + 1 - 2000(k - 1) cycles: 896001 at tick 3, 1790001 at tick 6,
  -- 2684001 at tick 9.  At each of these a whole quantum has passed and no
  -- thread of A's priority is Ready: A gets a new quantum there.  Tick 10
  -- (3000001) readies B at 3002001, but A's quantum began at tick 9 (298000
  -- cycles ago); at tick 11 it is 596000; at tick 12 (3600001) 894000: B
  -- runs after that interrupt, at 3602001.
  local m = hcp.machine { tick = 1000, quantum = 2, cost = "unit" }
  local k = m:load "kernels"
  local woke
  m:thread { name = "B", body = function(t)
    t:Sleep(1)
    woke = m:clock()
  end }
  local a = m:thread { name = "A", body = function(t) t:run(k.spin, 2000000) end }
  m:run()
  tap.is(woke, 3602001, "a thread alone at its priority got a new quantum at each quantum end: B waits for the current one")
  tap.is(a.switches, 2, "A was switched out once, at that quantum end")
end
-- ---------------------------------------------------------------------------
tap.clause("SCHED-TIME-ACCOUNTING")
do
  -- Two CPUs with the default cost tables and the cache model: a CPU's busy
  -- time is the retired work of the threads it ran, mispredict and cache
  -- penalties included (they move the clock of the CPU that executed them),
  -- plus their kernel work (here only Sleep: api_call = 1500 cycles each);
  -- its clock is busy + idle + interrupt, and each interrupt costs 2000.
  local m = hcp.machine { cpus = 2, tick = 1000, cache = true }
  local k = m:load "kernels"
  local buf = m:alloc(256 * 1024)
  local words = {}
  local x = 12345
  for i = 1, 4096 do -- a linear congruential sequence: bit 0 varies without a period a predictor learns
    x = (x * 1103515245 + 12345) % 2147483648
    words[i] = string.pack("<i8", (x >> 16) & 1)
  end
  local data = m:alloc(8 * 4096)
  m:write(data, table.concat(words))
  local sleeps = 0
  local ts = {
    m:thread { name = "walker", body = function(t) for _ = 1, 4 do t:run(k.memwalk, buf, 32768) end end },
    m:thread { name = "brancher", body = function(t) for _ = 1, 8 do t:run(k.branchy, data, 4096) end end },
    m:thread { name = "recurser", body = function(t) for _ = 1, 50 do t:run(k.recurse, 40) end end },
    m:thread { name = "sleeper", body = function(t)
      for _ = 1, 3 do
        t:run(k.spin, 100000)
        t:Sleep(1)
        sleeps = sleeps + 1
      end
    end },
  }
  m:run()
  local cycles, misses, l1d = 0, 0, 0
  for _, t in ipairs(ts) do
    local c = t:counters()
    cycles, misses, l1d = cycles + c.cycles, misses + c["branch-misses"], l1d + c["l1d-misses"]
  end
  local c = m:cpus()
  tap.ok(misses > 0 and l1d > 0, "the work had mispredicts and L1D misses (so penalties)")
  tap.is(c[1].busy + c[2].busy, cycles + 1500 * sleeps, "busy time of both CPUs = the threads' user cycles + 1500 per Sleep")
  for i = 1, 2 do
    tap.is(c[i].time, c[i].busy + c[i].idle + c[i].interrupt, "CPU " .. (i - 1) .. ": time = busy + idle + interrupt")
    tap.is(c[i].interrupt, 2000 * c[i].ticks, "CPU " .. (i - 1) .. ": interrupt = 2000 per tick")
  end
end
-- ---------------------------------------------------------------------------
tap.clause("SCHED-YIELD-PRIORITY")
do
  -- One CPU.  L (priority 8) and H (10); H runs first.  Sleep(0) yields only
  -- to a Ready thread of H's own priority: there is none, it returns at once.
  -- SwitchToThread yields to any Ready thread: L runs spin(1000) from 0 to
  -- 2004 and exits, then H continues at 2004; a second SwitchToThread finds
  -- nothing Ready and returns false.
  local m = hcp.machine { cost = "unit" }
  local k = m:load "kernels"
  local got = {}
  m:thread { name = "L", body = function(t)
    got.l_start = m:clock()
    t:run(k.spin, 1000)
  end }
  local h = m:thread { name = "H", priority = 10, body = function(t)
    t:Sleep(0)
    got.after_sleep0 = m:clock()
    got.switches_after_sleep0 = t.switches
    got.sw1 = t:SwitchToThread()
    got.after_sw = m:clock()
    got.sw2 = t:SwitchToThread()
  end }
  m:run()
  tap.is(got.switches_after_sleep0, 1, "Sleep(0) with only a lower-priority thread Ready: no switch")
  tap.is(got.after_sleep0, 0, "and it returns at once")
  tap.is(got.sw1, true, "SwitchToThread yields to a lower-priority Ready thread")
  tap.is(got.l_start, 0, "which runs at once")
  tap.is(got.after_sw, 2004, "H continues when L has finished spin(1000)")
  tap.is(got.sw2, false, "SwitchToThread with nothing Ready returns false")
  tap.is(h.switches, 2, "H was switched in twice")
end
-- ---------------------------------------------------------------------------
tap.clause("SCHED-CPUS-PREEMPT-REMOTE")
do
  -- Two CPUs, rounds of 10000.  H (priority 12, CPU 1 only) waits on E from
  -- time 0 on CPU 1; Y (CPU 1) then runs even(): it stops at 10000k, so CPU 1
  -- runs each round first; X (CPU 0) runs spin(50000) (stops at 10000k + 1)
  -- and sets E at 100004, when CPU 1 has already run round 10 to 110000.  No
  -- CPU of H's affinity is idle and Y's priority is lower: CPU 1 is told to
  -- check, and does so at its next block boundary, 110000, where H (Ready
  -- since 100004) preempts Y, not at its next round end (120000).
  local m = hcp.machine { cpus = 2, cost = "unit" }
  local k = m:load "kernels"
  local even = m:code(EVEN_CODE)
  local E = m:event {}
  local woke
  local h = m:thread { name = "H", priority = 12, affinity = 0x2, body = function(t)
    t:WaitForSingleObject(E)
    woke = m:clock()
  end }
  m:thread { name = "X", affinity = 0x1, body = function(t)
    t:run(k.spin, 50000)
    t:SetEvent(E)
  end }
  local y = m:thread { name = "Y", affinity = 0x2, body = function(t) t:run(even, 100000) end }
  m:run()
  tap.is(woke, 110000, "the woken thread preempts on the other CPU at that CPU's next block boundary")
  tap.is(h.cpu, 1, "on CPU 1")
  tap.is(y.switches, 2, "Y was preempted once")
end
tap.done_testing()
