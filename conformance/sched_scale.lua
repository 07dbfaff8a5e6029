-- Scale: 10,000 threads in one scenario (issue 3: "each sleeping and spinning
-- briefly"), every one profiled at once.  One CPU, default tick 156250 x 100 ns
-- = 46,875,000 cycles at 3 GHz, quantum 2 ticks, clock interrupt 2000 cycles.
--
-- Each thread: EnableThreadProfiling (dispatch flag, mask bit 0 = PMC0 =
-- instructions), spin(1000) = 4 + 2 x 1000 = 2004 instructions, Sleep(1),
-- spin(1000) again, ReadThreadProfilingData.  Derived by hand from the rules
-- in sim/README.md:
--  * a thread runs 2004 cycles (cost "unit": one cycle per instruction) per
--    switch-in, far less than a quantum (93,750,000 cycles), so it is never
--    preempted: it is switched in exactly twice, once at creation (before it
--    enables profiling) and once after its Sleep.  So ContextSwitchCount = 1
--    and WaitReasonBitMap = 1 << DelayExecution (4);
--  * HwCounters[0] = 2 x 2004 = 4008 for every thread;
--  * busy time of the CPU = 10,000 x 4008 = 40,080,000 cycles, exactly;
--  * a Sleep(1) (3,000,000 cycles) returns no earlier than 3,000,000 cycles
--    after it began;
--  * the CPU switched in 2 x 10,000 times (no idle switch is counted).
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local N = 10000
local m = hcp.machine { pmc = { "instructions" }, cost = "unit" }
assert(m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 } } == hcp.STATUS_SUCCESS)
local k = m:load "kernels"
local bad = { switches = 0, bits = 0, ins = 0, sleep = 0, rc = 0 }
local done = 0

for i = 1, N do
  m:thread { name = "w" .. i, body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 1)
    if rc ~= hcp.ERROR_SUCCESS then bad.rc = bad.rc + 1; return end
    t:run(k.spin, 1000)
    local before = m:clock()
    t:Sleep(1)
    if m:clock() - before < 3000000 then bad.sleep = bad.sleep + 1 end
    t:run(k.spin, 1000)
    local rc2, pd = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING |
                                                  hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)
    if rc2 ~= hcp.ERROR_SUCCESS then bad.rc = bad.rc + 1 end
    if pd.ContextSwitchCount ~= 1 then bad.switches = bad.switches + 1 end
    if pd.WaitReasonBitMap ~= 1 << hcp.DelayExecution then bad.bits = bad.bits + 1 end
    if pd.HwCounters[0].Value ~= 4008 then bad.ins = bad.ins + 1 end
    t:DisableThreadProfiling(ph)
    done = done + 1
  end }
end
m:run()

tap.clause("SCHED-SCALE-10000")
tap.is(done, N, "all 10,000 threads ran to the end")
tap.is(bad.rc, 0, "every Enable/Read succeeded with 10,000 profiling blocks live at once")
tap.is(bad.switches, 0, "every thread: ContextSwitchCount = 1 (switched in once after its Sleep)")
tap.is(bad.bits, 0, "every thread: WaitReasonBitMap = DelayExecution only")
tap.is(bad.ins, 0, "every thread: HwCounters[0] = 2 x (4 + 2 x 1000) instructions")
tap.is(bad.sleep, 0, "every Sleep(1) lasted at least 3,000,000 cycles")
local cpu = m:cpus()[1]
tap.is(cpu.busy, N * 4008, "busy cycles = 10,000 x 4008")
tap.is(cpu.switches, 2 * N, "the CPU switched threads in 2 x 10,000 times")
tap.is(cpu.time, cpu.busy + cpu.idle + cpu.interrupt, "time = busy + idle + interrupt")
tap.done_testing()
