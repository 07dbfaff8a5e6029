-- Pending preemption checks across switches, and wake-up times on several CPUs
-- (sim/README.md "Preemption", "Waits").  Both rules were found by the scheduler
-- model (sched_model.lua); every expected value below is derived from the rules.
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

tap.done_testing()
