-- priority.lua: a high-priority thread wakes up and takes the CPU at once.
--
-- Story: on one CPU, "lo" (priority 8) runs a long guest loop while "hi"
-- (priority 12) sleeps.  When hi's timer expires, hi is readied and, having
-- the higher priority, preempts lo on the spot; lo goes back to the head of
-- its ready queue with wait reason WrPreempted and resumes when hi is done.
-- What to look at: lo's ContextSwitchCount and WaitReasonBitMap, and the
-- time hi woke at.
--
-- Derivation (sim/README.md "Scheduler"; cost = "unit": 1 cycle per
-- instruction, API calls free; frequency 3 GHz; tick = 15,625 x 100 ns =
-- 4,687,500 cycles, a tenth of the default, to keep the run short;
-- interrupt 2,000 cycles):
--   * Both threads are Ready at time 0; the CPU takes the highest priority
--     first, so hi runs first, enables profiling and calls Sleep(1): a timer
--     due at 3,000,000 cycles that resolves on the first CPU-0 tick at or
--     after it, the tick due at 4,687,500.  hi waits (DelayExecution, 4).
--   * lo runs at time 0: spin(N) with N = 3,000,000 retires 4 + 2N =
--     6,000,004 instructions = cycles.  Its blocks end at times 3, 5, 7, ...
--     (a 3-instruction entry block, then 2-instruction dec/jnz blocks), and
--     the interrupt is taken at the first block boundary at or after its due
--     time: 4,687,501.  It costs 2,000 cycles, so the clock reads 4,689,501
--     when the timer expires and hi becomes Ready.  hi outranks lo:
--     lo is preempted at once (WrPreempted, 32) and hi resumes at 4,689,501.
--   * lo needs 6,000,004 cycles, less than its quantum (2 ticks =
--     9,375,000 of its own cycles, and a preempted thread keeps what was
--     left): no quantum end before it finishes, so it is switched in once
--     after enabling: ContextSwitchCount 1, WaitReasonBitMap 1 << 32.
--   * hi is switched in once after enabling (its wake-up): count 1,
--     bitmap 1 << 4.  lo's instructions are 6,000,004 however it was cut.
--   * The CPU ends at 6,000,004 (lo's work) + 2,000 (hi's spin(998):
--     4 + 2 x 998) + one interrupt of 2,000 = 6,004,004: the second tick,
--     due at 9,375,000, is never reached.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local m = hcp.machine { cost = "unit", tick = 15625, pmc = { "instructions" } }
m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 } }
local k = m:load "kernels"
local R = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING | hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS
local N = 3000000
local log, res = {}, {}

local function profiled(t, work)
  local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0x1)
  assert(rc == hcp.ERROR_SUCCESS, "EnableThreadProfiling: " .. rc)
  work()
  local rc2, pd = t:ReadThreadProfilingData(ph, R)
  assert(rc2 == hcp.ERROR_SUCCESS, "ReadThreadProfilingData: " .. rc2)
  t:DisableThreadProfiling(ph)
  return pd
end

m:thread { name = "lo", priority = 8, body = function(t)
  res.lo = profiled(t, function()
    log[#log + 1] = string.format("%11d lo starts spin(%d)", m:clock(), N)
    t:run(k.spin, N)
    log[#log + 1] = string.format("%11d lo finishes its spin", m:clock())
  end)
end }
m:thread { name = "hi", priority = 12, body = function(t)
  res.hi = profiled(t, function()
    log[#log + 1] = string.format("%11d hi calls Sleep(1)", m:clock())
    t:Sleep(1)
    res.woke = m:clock()
    log[#log + 1] = string.format("%11d hi wakes up and runs spin(998)", m:clock())
    t:run(k.spin, 998)
  end)
end }
m:run()

print("cycle       event")
for _, l in ipairs(log) do print(l) end
print(string.format("lo: ContextSwitchCount %d, wait reasons 0x%X, instructions %d",
                    res.lo.ContextSwitchCount, res.lo.WaitReasonBitMap, res.lo.HwCounters[0].Value))
print(string.format("hi: ContextSwitchCount %d, wait reasons 0x%X", res.hi.ContextSwitchCount,
                    res.hi.WaitReasonBitMap))

tap.clause("SCHED-PREEMPT-ON-WAKE")
tap.is(table.concat(log, "|"):gsub(" +", " "),
       " 0 hi calls Sleep(1)| 0 lo starts spin(3000000)| 4689501 hi wakes up and runs spin(998)| 6004004 lo finishes its spin",
       "hi sleeps first, wakes on the first tick and runs before lo finishes")
tap.is(res.lo.ContextSwitchCount, 1, "lo is switched in once after enabling (after the preemption)")
tap.is(res.lo.WaitReasonBitMap, 1 << 32, "lo's only wait reason is WrPreempted (32)")
tap.clause("SCHED-SLEEP-TICKS")
tap.is(res.woke, 4689501, "hi wakes at the tick's block boundary 4,687,501 plus the 2,000-cycle interrupt")
tap.is(res.hi.WaitReasonBitMap, 1 << 4, "hi's wait reason is DelayExecution (4)")
tap.clause("SCHED-TIME-ACCOUNTING")
tap.is(m:cpus()[1].time, 6004004, "the CPU ends at 6,000,004 + 2,000 + one 2,000-cycle interrupt")
tap.clause("HCP-COUNT-EXACT")
tap.is(res.lo.HwCounters[0].Value, 4 + 2 * N, "lo retires 4 + 2N instructions, preempted or not")
tap.done_testing()
