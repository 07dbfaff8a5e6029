-- Rules the scheduler model (sched_model.lua) found hcpsim breaking: pending preemption
-- checks across switches, wake-up times on several CPUs, idle CPUs taking another thread,
-- the order in which an exiting thread abandons its mutexes (sim/README.md "Preemption",
-- "Waits", "Objects").  Every expected value below is derived from the rules.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local DISP = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING
local FLAG = hcp.THREAD_PROFILING_FLAG_DISPATCH
local bit = function(r) return 1 << r end

-- 1. A check ends with the switch it was meant for.  One CPU, tick 1000 x 100 ns =
-- 300000 cycles at 3 GHz, quantum 1 tick, no interrupt cost, cost "unit" (a cycle per
-- instruction, API calls free).
--   t=0        H (priority 9) enables and sleeps 1 ms: due at 3000000.
--              L (8) enables and spins: blocks of 3 cycles, then 2 each, so its block
--              boundaries are at odd times; it is alone, so each tick gives it a new quantum.
--   3000001    the tick due at 3000000 (first boundary at or after it) expires H's timer:
--              H is Ready and L, running at a lower priority, is told to check; but the
--              same tick ends L's quantum (300000 cycles since 2700001) and a Ready
--              thread of higher priority is there: L leaves with WrQuantumEnd, H runs.
--              The switch to H ends the check: H is what it was for.
--              H: SwitchToThread gives the CPU to L (any priority), with WrYieldExecution.
--              L gets a new quantum (it left with WrQuantumEnd, not WrPreempted).  A
--              yield readies H without telling any CPU to check, so L keeps the CPU
--   3300001    until its quantum ends at the next tick: L leaves with WrQuantumEnd and H's
--              SwitchToThread returns true.  H exits; L runs to the end of its spin.
-- Before the fix the check survived the switch and preempted L at its first block
-- boundary (3000001, WrPreempted), so H came back 300000 cycles early.
tap.clause("SCHED-PREEMPT-CHECK-SWITCH", function()
  local m = hcp.machine { tick = 1000, quantum = 1, interrupt_cycles = 0, cost = "unit" }
  local k = m:load "kernels"
  local got = {}
  m:thread { name = "H", priority = 9, body = function(t)
    local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), FLAG, 0)
    t:Sleep(1)
    got.h_woke = m:clock()
    got.h_yield = t:SwitchToThread()
    got.h_back = m:clock()
    local _, pd = t:ReadThreadProfilingData(ph, DISP)
    got.h = pd
  end }
  m:thread { name = "L", priority = 8, body = function(t)
    local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), FLAG, 0)
    t:run(k.spin, 2000000) -- 4000004 cycles: running past 3300001
    local _, pd = t:ReadThreadProfilingData(ph, DISP)
    got.l = pd
    got.l_end = m:clock()
  end }
  m:run()
  tap.is(got.h_woke, 3000001, "H's Sleep(1) returns at the first block boundary at or after the tick due at 3000000")
  tap.is(got.h_yield, true, "SwitchToThread gave the CPU to the lower-priority L")
  tap.is(got.h_back, 3300001, "H runs again at L's quantum end (the next tick), not at L's next block boundary")
  tap.is(got.h.ContextSwitchCount, 2, "H was switched in twice after enabling (after Sleep, after the yield)")
  tap.is(got.h.WaitReasonBitMap, bit(hcp.DelayExecution) | bit(hcp.WrYieldExecution),
         "with DelayExecution and WrYieldExecution")
  tap.is(got.l.ContextSwitchCount, 2, "L was switched in twice after enabling (after each quantum end)")
  tap.is(got.l.WaitReasonBitMap, bit(hcp.WrQuantumEnd), "always after WrQuantumEnd, never WrPreempted")
  tap.is(got.l_end, 4000004, "L's spin ends at 4 + 2 x 2000000 cycles: nothing else ran guest code")
end)

-- 2. A thread is never Ready before it left its CPU.  Two CPUs, frequency 10 MHz (an ETW
-- time stamp is then a cycle count), default slice (rounds of 10000 cycles) and tick
-- (156250 cycles: none in this run), cost "unit".  A, B, C have priority 8 and ideal
-- processors 0, 1, 0 (creation order round robin).
--   CPU 0, t=0     takes A (B is left to its idle ideal CPU 1).  A spins 2000: 4 + 4000
--                  cycles, then waits on the event E at 4004 and leaves CPU 0, which takes C.
--                  C spins to the end of the round: its blocks end at 4007 + 2j, so it stops
--                  at 10001.
--   CPU 1, t=0     (now the furthest behind) takes B.  B spins 1000 (2004 cycles) and sets E
--                  at 2004: A's wait is satisfied, but A left CPU 0 only at 4004, so it is
--                  Ready at 4004, not 2004.  No CPU of A's affinity is idle and none runs a
--                  lower priority: no check.  B exits at 2004; CPU 1 finds nothing eligible
--                  (A only from 4004) and idles to its round end, 10000.
--   CPU 1, 10000   takes A (CPU 0, at 10001, is behind no one): A's wait returns there.
-- Before the fix A was Ready at 2004 and ran on CPU 1 from 2004, while it still ran on CPU 0.
tap.clause("SCHED-READY-AFTER-LEAVE", function()
  local m = hcp.machine { cpus = 2, frequency = 10000000, cost = "unit" }
  local k = m:load "kernels"
  local E = m:event { manual = false, initial = false }
  local got, ready = {}, {}
  local s = m:trace { flags = hcp.EVENT_TRACE_FLAG_DISPATCHER, on_event = function(ev)
    if ev.name == "ReadyThread" then ready[#ready + 1] = ev.data.TThreadId .. "@" .. (ev.header.TimeStamp - 134116992000000000) end
  end }
  local A = m:thread { name = "A", body = function(t)
    t:run(k.spin, 2000)
    got.a_block = m:clock()
    got.a_wait = t:WaitForSingleObject(E, hcp.INFINITE)
    got.a_woke = m:clock()
  end }
  m:thread { name = "B", body = function(t)
    t:run(k.spin, 1000)
    got.b_set_at = m:clock()
    t:SetEvent(E)
  end }
  m:thread { name = "C", body = function(t) t:run(k.spin, 100000) end }
  m:run()
  s:stop()
  tap.is(got.a_block, 4004, "A waits at 4 + 2 x 2000 cycles")
  tap.is(got.b_set_at, 2004, "B sets the event at 2004, on CPU 1, whose clock is behind")
  tap.is(got.a_wait, hcp.WAIT_OBJECT_0, "A's wait is satisfied")
  tap.is(ready[#ready], A.id .. "@4004", "A is Ready at the time it left CPU 0 (4004), not at the setter's 2004")
  tap.is(got.a_woke, 10000, "A runs on CPU 1 at its round end, after its spans on CPU 0")
end)

-- 3. A thread readied while a CPU of its affinity was idle is not stranded when that CPU
-- takes another thread.  Two CPUs, frequency 10 MHz, default slice (10000 cycles) and tick
-- (none in this run), cost "unit".  X and H have priority 12 and ideal processor 1; L has
-- priority 9 and may run only on CPU 0.  All three are Ready at 0, with both CPUs idle, so
-- their creation tells no CPU to check.
--   CPU 0, t=0   has nothing to run: it leaves X and H to their idle ideal CPU 1 and takes L.
--                L spins 20000 (40004 cycles); its segment stops at the first block boundary
--                at or after the round end: 3 + 2j = 10001.
--   CPU 1, t=0   takes X (first in the priority-12 queue), not H.  H is still Ready and
--                CPU 0 runs a lower priority, so CPU 0 is told to check.  X spins to 10001.
--   CPU 0, 10001 the check at L's first block boundary: H (eligible, its ideal CPU busy)
--                preempts L, which leaves with WrPreempted.
-- Before the fix nothing told CPU 0 to check: H waited for L's exit at 40004.
tap.clause("SCHED-IDLE-TAKES-OTHER", function()
  local m = hcp.machine { cpus = 2, frequency = 10000000, cost = "unit" }
  local k = m:load "kernels"
  local got = {}
  m:thread { name = "X", priority = 12, ideal = 1, body = function(t) t:run(k.spin, 20000) end }
  m:thread { name = "H", priority = 12, ideal = 1, body = function(t)
    got.h_start, got.h_cpu = m:clock(), t.cpu
  end }
  local L = m:thread { name = "L", priority = 9, affinity = 0x1, body = function(t)
    local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), FLAG, 0)
    t:run(k.spin, 20000)
    local _, pd = t:ReadThreadProfilingData(ph, DISP)
    got.l = pd
  end }
  m:run()
  tap.is(got.h_start, 10001, "H starts at CPU 0's first block boundary after CPU 1 took X (10001), not at L's exit (40004)")
  tap.is(got.h_cpu, 0, "on CPU 0")
  tap.is(got.l.ContextSwitchCount, 1, "L was switched back in once")
  tap.is(got.l.WaitReasonBitMap, bit(hcp.WrPreempted), "after WrPreempted")
  tap.is(L.switches, 2, "L ran twice")
end)

-- 4. An exiting thread abandons its mutexes in the order it acquired them (Windows appends a
-- mutant to the owner's list when a wait acquires it and walks that list from its head at
-- thread rundown).  One CPU, cost "unit".
--   X (priority 10) acquires M1, then M2 (both free: at once), then sleeps 1 ms.
--   W (priority 9) waits for any of {M1, M2}: both owned, it waits.
--   X wakes at the tick after its due time and exits owning both: M1 is abandoned first and
--   satisfies W's wait (index 0: WAIT_ABANDONED_0); M2 is abandoned with no waiter.
--   W then waits on M2 with timeout 0: free and abandoned, so WAIT_ABANDONED_0 again.
-- Before the fix the last acquired went first: W got M2 (WAIT_ABANDONED_0 + 1), and its wait
-- on M2, which it then owned, returned WAIT_OBJECT_0.
tap.clause("SCHED-MUTEX-ABANDON-ORDER", function()
  local m = hcp.machine { cost = "unit" }
  local M1, M2 = m:mutex {}, m:mutex {}
  local got = {}
  m:thread { name = "X", priority = 10, body = function(t)
    got.x1, got.x2 = t:WaitForSingleObject(M1, 0), t:WaitForSingleObject(M2, 0)
    t:Sleep(1)
  end }
  m:thread { name = "W", priority = 9, body = function(t)
    got.any = t:WaitForMultipleObjects({ M1, M2 }, false, hcp.INFINITE)
    got.m2 = t:WaitForSingleObject(M2, 0)
  end }
  m:run()
  tap.is(got.x1, hcp.WAIT_OBJECT_0, "X acquires M1")
  tap.is(got.x2, hcp.WAIT_OBJECT_0, "then M2")
  tap.is(got.any, hcp.WAIT_ABANDONED_0, "W's wait-any is satisfied by M1, abandoned first (index 0)")
  tap.is(got.m2, hcp.WAIT_ABANDONED_0, "M2 was abandoned after it, with no waiter: W's wait on it returns WAIT_ABANDONED_0")
end)

tap.done_testing()
