-- Dispatch data: ContextSwitchCount, WaitReasonBitMap (read and clear),
-- CycleTime per thread (HCP-SPEC §2.4, §3.4; edge cases 21-24): one schedule derived
-- below, one without the dispatch flag, and edge 23 on every HCP profile in both
-- semantics (at the end).  The home of the HCP-DISPATCH- clauses (README.md "Where a
-- test goes").
--
-- Expected values follow from the scheduler rules in sim/README.md:
-- tick = 1000 x 100 ns x 3 GHz = 300000 cycles, each costing 2000 cycles of
-- interrupt time; quantum = 2 ticks = 600000 cycles of the thread's own work,
-- checked at ticks: at the first tick where the thread has used a quantum, it
-- goes to the tail of its ready queue (WrQuantumEnd) if another thread of its
-- priority is ready, else it gets a new quantum without a switch.
--
-- Work (spin(n) = 4 + 2n cycles): A 2000004, B 1000004, C 400004.
--   A   0 .. 900000     ticks 300k, 600k (A has 598000 < 600000), 900k (896000: quantum end)
--   B   902000 .. 1.8M  (894000 own cycles at the 1.8M tick: quantum end)
--   C   1802000 .. 2204004  (ends; 296000 own cycles at the 2.1M tick)
--   A   2204004 .. 3.0M (791996 at the 3.0M tick: quantum end)
--   B   3002000 .. 3108004 (ends)
--   A   3108004 .. 3422012 (ends; one more tick at 3.3M)
-- Switch-ins after each thread enabled profiling (at the start of its body,
-- after its first switch-in): A 2, B 1, C none; each follows a quantum end:
-- bit 30 (WrQuantumEnd).  11 ticks in all (300k .. 3.3M).
local hcp = require "hcpsim"
-- Threads here exit with profiling enabled on purpose (Windows lets them; the documentation
-- forbids it): that warning is expected, any other ends the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("exited with profiling enabled", 1, true), w) end)
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local DISP = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING
local HW = hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS
local m = hcp.machine { tick = 1000, quantum = 2, cost = "unit" }
local k = m:load "kernels"
local results = {}

local function worker(name, n, flags)
  return m:thread { name = name, body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), flags, 0)
    local _, first = t:ReadThreadProfilingData(ph, DISP)
    t:run(k.spin, n)
    local _, pd1 = t:ReadThreadProfilingData(ph, DISP)
    local _, pd2 = t:ReadThreadProfilingData(ph, DISP)
    results[name] = { rc = rc, first = first, pd1 = pd1, pd2 = pd2 }
    t:DisableThreadProfiling(ph)
  end }
end

local a = worker("A", 1000000, hcp.THREAD_PROFILING_FLAG_DISPATCH)
local b = worker("B", 500000, hcp.THREAD_PROFILING_FLAG_DISPATCH)
local c = worker("C", 200000, hcp.THREAD_PROFILING_FLAG_DISPATCH)
m:run()

local QE = 1 << hcp.WrQuantumEnd
tap.clause("HCP-DISPATCH-FIRST-READ-ZERO")
for _, n in ipairs { "A", "B", "C" } do
  tap.is(results[n].first.ContextSwitchCount, 0, n .. ": a read right after Enable: no switch yet")
  tap.is(results[n].first.WaitReasonBitMap, 0, n .. ": and no wait reason")
end

tap.clause("HCP-DISPATCH-CONTEXT-SWITCHES", "SCHED-QUANTUM-END")
tap.is(results.A.pd1.ContextSwitchCount, 2, "A was switched in twice after Enable")
tap.is(results.B.pd1.ContextSwitchCount, 1, "B once")
tap.is(results.C.pd1.ContextSwitchCount, 0, "C never (it finished in its first quantum)")
tap.is(a.switches, 3, "A was dispatched 3 times in all")
tap.is(b.switches, 2, "B 2 times")
tap.is(c.switches, 1, "C once")

tap.clause("HCP-DISPATCH-WAIT-REASON-BIT", "SCHED-QUANTUM-END")
tap.is(hcp.WrQuantumEnd, 30, "WrQuantumEnd is KWAIT_REASON 30")
tap.is(results.A.pd1.WaitReasonBitMap, QE, "A: bit 30 (quantum end)")
tap.is(results.B.pd1.WaitReasonBitMap, QE, "B: bit 30")
tap.is(results.C.pd1.WaitReasonBitMap, 0, "C: none")

tap.clause("HCP-DISPATCH-BITMAP-READ-CLEARS")
tap.is(results.A.pd2.WaitReasonBitMap, 0, "A: a second read with no switch in between gives 0")
tap.is(results.A.pd2.ContextSwitchCount, 2, "A: ContextSwitchCount is cumulative, not cleared")

tap.clause("HCP-DISPATCH-CYCLETIME-PER-THREAD")
tap.is(results.A.pd1.CycleTime, 2000004, "A's CycleTime is its own work only")
tap.is(results.B.pd1.CycleTime, 1000004, "B's")
tap.is(results.C.pd1.CycleTime, 400004, "C's")
local work = 2000004 + 1000004 + 400004
tap.is(m:clock(), work + 11 * 2000, "the CPU's time is all the work plus 11 clock interrupts")
tap.is(m:cpus()[1].busy, work, "busy time is the threads' work")
tap.is(m:cpus()[1].interrupt, 11 * 2000, "interrupt time")
tap.is(m:cpus()[1].ticks, 11, "ticks")
tap.is(m:cpus()[1].idle, 0, "the CPU was never idle")

-- Without THREAD_PROFILING_FLAG_DISPATCH the kernel keeps no dispatch data.
tap.clause("HCP-DISPATCH-FLAG-REQUIRED")
local m2 = hcp.machine { tick = 1000, quantum = 2, cost = "unit" }
local k2 = m2:load "kernels"
local got
m2:thread { name = "x", body = function(t)
  local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0)
  t:run(k2.spin, 1000000)
  got = select(2, t:ReadThreadProfilingData(ph, DISP))
end }
m2:thread { name = "y", body = function(t) t:run(k2.spin, 1000000) end }
m2:run()
tap.is(got.ContextSwitchCount, 0, "switched in, but Enable had no dispatch flag: 0")
tap.is(got.WaitReasonBitMap, 0, "and no bitmap")
tap.is(got.CycleTime, 2000004, "CycleTime is kept all the same")

-- edge 23 on every HCP profile, both semantics: WaitReasonBitMap covers the
-- switches since the last DISPATCHING read.  A Sleep(1) switches the thread out
-- and in (DelayExecution, bit 4).  A HARDWARE_COUNTERS-only read does not
-- consume the bits (HCP-SPEC §2.4: the read-and-clear is under DISPATCHING);
-- observed still zeroes the output field (§11.3), documented leaves it as set.
testlib.each_platform(testlib.HCP_PROFILES, "edge 23", function(platform)
  local P = platform .. ": "
  for _, sem in ipairs { "documented", "observed" } do
    local m3 = hcp.machine { platform = platform, semantics = sem, cost = "unit" }
    m3:thread { name = "bits", body = function(t)
      tap.clause("HCP-DISPATCH-BITMAP-READ-CLEARS")
      local S = sem .. ": "
      local _, ph = t:EnableThreadProfiling(-2, hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
      t:Sleep(1)
      local _, hw = t:ReadThreadProfilingData(ph, HW, testlib.sentinel())
      tap.is(hw.WaitReasonBitMap, sem == "observed" and 0 or 0x2222222222222222,
             "edge 23: " .. P .. S .. (sem == "observed" and "a HW-only read zeroes the output field"
                                                           or "a HW-only read leaves the field as set"))
      local _, d1 = t:ReadThreadProfilingData(ph, DISP, testlib.sentinel())
      tap.is(d1.WaitReasonBitMap, 1 << hcp.DelayExecution,
             "edge 23: " .. P .. S .. "the DISPATCHING read still sees the Sleep's switch (bit 4)")
      tap.is(d1.ContextSwitchCount, 1, "edge 23: " .. P .. S .. "one switch-in")
      local _, d2 = t:ReadThreadProfilingData(ph, DISP, testlib.sentinel())
      tap.is(d2.WaitReasonBitMap, 0, "edge 23: " .. P .. S .. "a second read with no switch in between: 0")
      tap.is(d2.ContextSwitchCount, 1, "edge 23: " .. P .. S .. "ContextSwitchCount is not cleared")
      t:Sleep(1)
      local _, d3 = t:ReadThreadProfilingData(ph, DISP, testlib.sentinel())
      tap.is(d3.WaitReasonBitMap, 1 << hcp.DelayExecution, "edge 23: " .. P .. S .. "a new switch sets its bit again")
      tap.is(d3.ContextSwitchCount, 2, "edge 23: " .. P .. S .. "and counts")
      t:DisableThreadProfiling(ph)
    end }
    m3:run()
  end
end)

tap.done_testing()
