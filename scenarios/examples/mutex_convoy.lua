-- mutex_convoy.lua: a lock convoy.  Once the holder of a busy mutex loses the
-- CPU, every later acquisition costs a context switch.
--
-- Story: three threads, same priority, one CPU, each takes the mutex twice
-- and holds it for 1,000,000 cycles of guest work (spin(499,998): 4 + 2 x
-- 499,998 = 1,000,000 instructions = cycles under cost = "unit").  t1's
-- first critical section outlives its quantum; t2 and t3 run, find the mutex
-- owned and queue on it.  From then on ReleaseMutex hands the mutex to the
-- first waiter, and the releaser, coming back for the mutex at once, finds it
-- owned and queues behind the others: the threads take turns in a fixed
-- order, one switch per acquisition.
-- What to look at: the acquisition order, each thread's switches and wait
-- reasons.
--
-- Derivation (sim/README.md "Clock interrupts", "Quantum end", "Waits",
-- "Objects"; tick = 1000 x 100 ns = 300,000 cycles at 3 GHz, interrupts
-- 2,000 cycles, quantum = 2 ticks = 600,000 of the thread's own cycles):
--   * t1 runs at 0 and takes the free mutex.  Interrupts come due at 300,000,
--     600,000, 900,000, ... of the CPU clock; their 2,000 cycles are not the
--     thread's.  At 600,000 t1 has run 598,000 of its cycles (< 600,000): no
--     quantum end.  At 900,000 it has run 896,000: quantum end with t2 and t3
--     Ready, so t1 goes to the tail (WrQuantumEnd, 30) still owning the mutex
--     with 104,000 cycles of its section left.
--   * t2, then t3 run at 902,000, wait on the mutex and block (UserRequest,
--     6), in that order.  t1 runs again and ends its section at 1,006,000;
--     ReleaseMutex gives the mutex to t2 (first waiter), t1 asks again and
--     blocks behind t3.  Each later release hands on to the next in the
--     queue t3, t1, t2, t3: acquisitions t1 t2 t3 t1 t2 t3.  No other quantum
--     end switches: when a quantum is used up nobody else is Ready.
--   * Switch-ins after enabling (each thread enables first thing, before any
--     switch): t1: the return after its quantum end, and the mutex for its
--     second section = 2, bits 30 and 6; t2 and t3: the mutex twice = 2, bit 6.
--   * Busy = 6 sections x 1,000,000 = 6,000,000 cycles.  The CPU never idles,
--     so its clock ends at 6,000,000 + 2,000 x ticks, and the ticks are the
--     due times 300,000 j at or below the end: 20 of them (6,000,000 <
--     6,040,000 < 6,300,000): the clock ends at 6,040,000.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local m = hcp.machine { cost = "unit", tick = 1000, quantum = 2 }
local k = m:load "kernels"
local mx = m:mutex {}
local order, pd = {}, {}

for i = 1, 3 do
  local name = "t" .. i
  m:thread { name = name, body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
    assert(rc == hcp.ERROR_SUCCESS)
    for _ = 1, 2 do
      assert(t:WaitForSingleObject(mx) == hcp.WAIT_OBJECT_0)
      order[#order + 1] = name
      t:run(k.spin, 499998)
      assert(t:ReleaseMutex(mx))
    end
    local rc2, d = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
    assert(rc2 == hcp.ERROR_SUCCESS)
    pd[name] = d
    t:DisableThreadProfiling(ph)
  end }
end
m:run()

local function reasons(bitmap)
  local names = {}
  for bit = 0, 63 do
    if bitmap >> bit & 1 == 1 then names[#names + 1] = hcp.wait_reason_name(bit) end
  end
  return table.concat(names, ",")
end
print("acquisitions: " .. table.concat(order, " "))
for i = 1, 3 do
  local d = pd["t" .. i]
  print(string.format("t%d: %d switches after enabling, wait reasons %s", i, d.ContextSwitchCount,
                      reasons(d.WaitReasonBitMap)))
end
local cpu = m:cpus()[1]
print(string.format("CPU 0: time %d = busy %d + interrupts %d (%d ticks) + idle %d", cpu.time, cpu.busy,
                    cpu.interrupt, cpu.ticks, cpu.idle))

tap.clause("SCHED-MUTEX", "SCHED-QUANTUM-END")
tap.is(table.concat(order, " "), "t1 t2 t3 t1 t2 t3", "after t1's quantum end the mutex passes round in FIFO order")
tap.clause("HCP-DISPATCH-WAIT-REASON-BIT")
tap.ok(pd.t1.ContextSwitchCount == 2 and pd.t1.WaitReasonBitMap == (1 << 30 | 1 << 6),
       "t1: 2 switch-ins, WrQuantumEnd and UserRequest")
for i = 2, 3 do
  local d = pd["t" .. i]
  tap.ok(d.ContextSwitchCount == 2 and d.WaitReasonBitMap == 1 << 6, "t" .. i .. ": 2 switch-ins, UserRequest only")
end
tap.clause("SCHED-TIME-ACCOUNTING")
tap.ok(cpu.busy == 6000000 and cpu.ticks == 20 and cpu.interrupt == 40000 and cpu.idle == 0 and cpu.time == 6040000,
       "busy 6,000,000 + 20 interrupts x 2,000 = 6,040,000, no idle")
tap.done_testing()
