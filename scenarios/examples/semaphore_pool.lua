-- semaphore_pool.lua: a pool of two resources guarded by a semaphore, four
-- workers that each hold one while they wait for "I/O" (a Sleep).
--
-- Story: the semaphore starts with count 2 (maximum 2).  w1 and w2 take the
-- two resources and sleep 20 ms; w3 and w4 find the count at 0 and queue.
-- When w1 and w2 wake up and release, w3 and w4 get the resources, sleep in
-- turn, and release.  All the waiting happens on clock ticks, so the run is
-- mostly idle time.
-- What to look at: when each worker got its resource, the previous counts
-- ReleaseSemaphore reports, the wait reasons, the CPU's idle time.
--
-- Derivation (sim/README.md "Waits", "Objects", "Clock interrupts"; cost =
-- "unit": no API call takes time and no guest code runs, so only interrupts
-- and idle time move the clock; tick 46,875,000 cycles, interrupt 2,000):
--   * At 0, w1 and w2 each take one (WAIT_OBJECT_0, count 2 -> 1 -> 0) and
--     call Sleep(20): due at 0 + 20 x 3,000,000 = 60,000,000; w3 and w4 wait
--     (UserRequest, 6).  The CPU idles to the tick due at 46,875,000 (not yet
--     due), then to the one at 93,750,000, whose interrupt expires both
--     timers; the clock then reads 93,752,000.
--   * w1 (lower id first) releases: the count goes 0 -> 1 and the first waiter
--     w3 takes it at once (ReleaseSemaphore reports previous count 0); w1
--     exits; w2 releases (previous 0), w4 takes it.  So w3 and w4 acquire at
--     93,752,000 and sleep until 93,752,000 + 60,000,000 = 153,752,000: the
--     tick due at 140,625,000 is too early, the one at 187,500,000 wakes them
--     at 187,502,000.  w3 releases (previous 0), w4 releases (previous 1):
--     the count is back at 2.
--   * Switch-ins after enabling: w1, w2 one each (after DelayExecution, 4);
--     w3, w4 two (after UserRequest, then DelayExecution).
--   * CPU: 4 interrupts (8,000 cycles), busy 0, idle 187,502,000 - 8,000 =
--     187,494,000.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local m = hcp.machine { cost = "unit" }
local pool = m:semaphore { initial = 2, max = 2 }
local got, prev, pd = {}, {}, {}

for i = 1, 4 do
  local name = "w" .. i
  m:thread { name = name, body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
    assert(rc == hcp.ERROR_SUCCESS)
    assert(t:WaitForSingleObject(pool) == hcp.WAIT_OBJECT_0)
    got[name] = m:clock()
    t:Sleep(20) -- the "I/O" done while holding the resource
    local ok, p = t:ReleaseSemaphore(pool, 1)
    assert(ok)
    prev[name] = p
    local rc2, d = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
    assert(rc2 == hcp.ERROR_SUCCESS)
    pd[name] = d
    t:DisableThreadProfiling(ph)
  end }
end
m:run()

print("worker  acquired at   released (previous count)  switches  wait reasons")
for i = 1, 4 do
  local n = "w" .. i
  print(string.format("%-6s %12d   %25d %9d  0x%X", n, got[n], prev[n], pd[n].ContextSwitchCount,
                      pd[n].WaitReasonBitMap))
end
local cpu = m:cpus()[1]
print(string.format("CPU 0: time %d = busy %d + interrupts %d (%d ticks) + idle %d", cpu.time, cpu.busy,
                    cpu.interrupt, cpu.ticks, cpu.idle))

tap.clause("SCHED-SEMAPHORE")
tap.is(string.format("%d %d %d %d", got.w1, got.w2, got.w3, got.w4), "0 0 93752000 93752000",
       "w1, w2 take the two resources at once; w3, w4 when w1 and w2 release after the second tick")
tap.is(string.format("%d %d %d %d", prev.w1, prev.w2, prev.w3, prev.w4), "0 0 0 1",
       "ReleaseSemaphore's previous counts: each release hands on to a waiter, then the count climbs back")
tap.clause("SCHED-SLEEP-TICKS", "HCP-DISPATCH-WAIT-REASON-BIT")
tap.ok(pd.w1.ContextSwitchCount == 1 and pd.w1.WaitReasonBitMap == 1 << 4 and pd.w2.ContextSwitchCount == 1 and
       pd.w2.WaitReasonBitMap == 1 << 4, "w1, w2: one switch-in, after DelayExecution")
tap.ok(pd.w3.ContextSwitchCount == 2 and pd.w3.WaitReasonBitMap == (1 << 6 | 1 << 4) and
       pd.w4.ContextSwitchCount == 2 and pd.w4.WaitReasonBitMap == (1 << 6 | 1 << 4),
       "w3, w4: two switch-ins, after UserRequest and DelayExecution")
tap.clause("SCHED-TIME-ACCOUNTING")
tap.ok(cpu.time == 187502000 and cpu.busy == 0 and cpu.ticks == 4 and cpu.interrupt == 8000 and
       cpu.idle == 187494000, "the CPU ends at the fourth tick's interrupt: 187,502,000, all idle but 8,000")
tap.done_testing()
