-- Wait reasons and context switches through the dispatcher (the wait reason
-- table of scenarios/API.md; HCP-SPEC §2.4, §6; edge cases 21, 23, 24); at the
-- end, quantum ends (WrQuantumEnd) on their own schedule.  One CPU, tick =
-- 300000 cycles (1000 x 100 ns at 3 GHz), clock interrupt 2000 cycles.
-- The schedule, derived from the rules in sim/README.md:
--
--  t=0       H (priority 12) runs first: enables, waits on event E (UserRequest).
--            L (8, created before Y) runs: enables, spin(1000) = 2004 cycles,
--            SetEvent(E) readies H, which preempts L at once (WrPreempted).
--  t=2004    H runs: its wait returns WAIT_OBJECT_0; switched in once, bit 6.  H exits.
--            L (head of the priority-8 queue, preempted) runs again: bit 32.
--            L: SwitchToThread -> Y (never ran) takes the CPU; L waits in the queue (WrYieldExecution).
--            Y enables, Sleep(0): L is ready at Y's priority -> Y yields (WrYieldExecution).
--            L runs: bit 33.  L: Sleep(1): due = 2004 + 3000000 cycles.
--            Y runs: bit 33.  Y waits for thread L (UserRequest).
--            The CPU is idle; ticks at 300000 k.  The first tick at or after the
--            due time is 3300000: L is readied there and runs at 3302000: bit 4.
--  t=3302000 L exits with code 7; Y's wait on thread L is satisfied: bit 6.
-- Idle = (300000 - 2004) + 10 x 298000; 11 ticks; busy = 2004.
local hcp = require "hcpsim"
-- Threads here exit with profiling enabled on purpose (Windows lets them; the documentation
-- forbids it): that warning is expected, any other ends the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("exited with profiling enabled", 1, true), w) end)
local tap = require "hcpsim.tap"

local DISP = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING
local FLAG = hcp.THREAD_PROFILING_FLAG_DISPATCH
local m = hcp.machine { tick = 1000, quantum = 2, cost = "unit" }
local k = m:load "kernels"
local E = m:event { manual = false, initial = false }
local got = {}

local function read(t, ph, key)
  local _, pd = t:ReadThreadProfilingData(ph, DISP)
  got[key] = { n = pd.ContextSwitchCount, bits = pd.WaitReasonBitMap, clock = m:clock() }
end

local L
m:thread { name = "H", priority = 12, body = function(t)
  local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), FLAG, 0)
  got.h_wait = t:WaitForSingleObject(E, hcp.INFINITE)
  read(t, ph, "h")
end }

L = m:thread { name = "L", priority = 8, body = function(t)
  local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), FLAG, 0)
  t:run(k.spin, 1000)
  got.l_set = t:SetEvent(E)
  read(t, ph, "l1")
  got.l_switched = t:SwitchToThread()
  read(t, ph, "l2")
  t:Sleep(1)
  read(t, ph, "l3")
  return 7
end }

m:thread { name = "Y", priority = 8, body = function(t)
  local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), FLAG, 0)
  t:Sleep(0)
  read(t, ph, "y1")
  got.y_wait = t:WaitForSingleObject(L, hcp.INFINITE)
  got.l_exit = L.exit_code
  read(t, ph, "y2")
end }

m:run()

local bit = function(r) return 1 << r end
tap.clause("SCHED-WAIT-USERREQUEST")
tap.is(got.h_wait, hcp.WAIT_OBJECT_0, "H's wait on the event returns WAIT_OBJECT_0")
tap.is(got.h.n, 1, "H was switched in once after enabling")
tap.is(got.h.bits, bit(hcp.UserRequest), "with UserRequest (bit 6)")
tap.is(got.h.clock, 2004, "at 2004 cycles, right after L's spin(1000)")

tap.clause("SCHED-PREEMPT-ON-WAKE")
tap.is(got.l_set, true, "SetEvent succeeds")
tap.is(got.l1.n, 1, "L was preempted by H and switched back in once")
tap.is(got.l1.bits, bit(hcp.WrPreempted), "with WrPreempted (bit 32)")

tap.clause("SCHED-YIELD")
tap.is(got.l_switched, true, "SwitchToThread gave the CPU to Y")
tap.is(got.l2.n, 2, "L's ContextSwitchCount is cumulative: 2")
tap.is(got.l2.bits, bit(hcp.WrYieldExecution), "the bitmap holds only the switch since the last read: bit 33")
tap.is(got.y1.n, 1, "Y (Sleep(0) with L ready at its priority) was switched back in once")
tap.is(got.y1.bits, bit(hcp.WrYieldExecution), "with WrYieldExecution")

tap.clause("SCHED-SLEEP-TICKS")
tap.is(got.l3.n, 3, "L switched in a third time after Sleep(1)")
tap.is(got.l3.bits, bit(hcp.DelayExecution), "with DelayExecution (bit 4)")
tap.is(got.l3.clock, 3300000 + 2000, "at the first tick at or after the due time, after its interrupt")

tap.clause("SCHED-WAIT-THREAD")
tap.is(got.y_wait, hcp.WAIT_OBJECT_0, "waiting on a thread ends when it exits")
tap.is(got.l_exit, 7, "the body's return value is the exit code")
tap.is(got.y2.n, 2, "Y switched in twice after enabling")
tap.is(got.y2.bits, bit(hcp.UserRequest), "the second time after UserRequest")

-- An exiting thread signals its object while it still holds its CPU, so the
-- CPU's next thread is chosen with its waiters Ready: H (priority 12) waits on
-- X; when X exits, the CPU takes H, not L (priority 8, Ready since the start).
-- (conformance/sched_model.lua checks the same rule on generated scenarios.)
tap.clause("SCHED-WAIT-THREAD", function()
  local m2 = hcp.machine { cost = "unit" }
  local k2 = m2:load "kernels"
  local order = {}
  local x
  m2:thread { name = "H", priority = 12, body = function(t)
    t:WaitForSingleObject(x)
    order[#order + 1] = "H@" .. m2:clock()
  end }
  x = m2:thread { name = "X", body = function(t) t:run(k2.spin, 10) end }
  m2:thread { name = "L", body = function(t) order[#order + 1] = "L@" .. m2:clock() end }
  m2:run()
  tap.is(table.concat(order, " "), "H@24 L@24",
         "a higher-priority waiter on an exiting thread runs next on its CPU (X's spin: 4 + 2 * 10 cycles)")
end)

tap.clause("SCHED-TIME-ACCOUNTING")
local cpu = m:cpus()[1]
tap.is(cpu.busy, 2004, "busy: only L's guest work")
tap.is(cpu.ticks, 11, "11 clock interrupts, 300000 .. 3300000")
tap.is(cpu.interrupt, 11 * 2000, "interrupt time")
tap.is(cpu.idle, (300000 - 2004) + 10 * 298000, "idle time between the ticks")
tap.is(cpu.time, cpu.busy + cpu.idle + cpu.interrupt, "time = busy + idle + interrupt")

-- WrQuantumEnd (30): three threads of one priority that outlast a quantum, seen through the
-- CSwitch events of a trace.  The clock above: tick 300000 cycles, interrupt 2000 cycles (not
-- the thread's), quantum 2 ticks = 600000 cycles of the thread's own work, checked at each tick.
-- A spin(1000000) = 2000004 cycles, B spin(500000) = 1000004, C spin(200000) = 400004:
--   A 0 .. 900000        ticks at 300k, 600k (598000 < 600000), 900k: 896000, a quantum used and
--                        B Ready: A goes to the tail of the queue (B, C, A) with WrQuantumEnd
--   B 902000 .. 1800000  894000 own cycles at the 1.8M tick: quantum end, B to the tail (C, A, B)
--   C 1802000 .. 2204004 ends within its quantum (296000 own cycles at the 2.1M tick)
--   A 2204004 .. 3000000 791996 at the 3.0M tick: quantum end, A behind B
--   B 3002000 .. 3108004 ends; A 3108004 .. 3422012 ends.
-- A thread at the head of the queue instead of the tail would keep the CPU (A B A ...).
tap.clause("SCHED-QUANTUM-END", function()
  local m3 = hcp.machine { tick = 1000, quantum = 2, cost = "unit" }
  local k3 = m3:load "kernels"
  local evs = {}
  m3:trace { flags = hcp.EVENT_TRACE_FLAG_CSWITCH, on_event = function(ev) evs[#evs + 1] = ev end }
  local names = {}
  for _, w in ipairs { { "A", 1000000 }, { "B", 500000 }, { "C", 200000 } } do
    local th = m3:thread { name = w[1], body = function(t) t:run(k3.spin, w[2]) end }
    names[th.id] = w[1]
  end
  m3:run()
  local ins, ends = {}, {}
  for _, ev in ipairs(evs) do
    local new, old = names[ev.data.NewThreadId], names[ev.data.OldThreadId]
    if new then ins[#ins + 1] = new end
    if old and ev.data.OldThreadWaitReason == hcp.WrQuantumEnd then ends[#ends + 1] = old .. ">" .. tostring(new) end
  end
  tap.is(table.concat(ins, " "), "A B C A B A", "switch-ins follow from the tick and quantum lengths: A B C A B A")
  tap.is(table.concat(ends, " "), "A>B B>C A>B",
         "each quantum end leaves with WrQuantumEnd (30) for the next Ready thread of its priority, the old one behind it")
  tap.is(m3:clock(), 2000004 + 1000004 + 400004 + 11 * 2000, "the run ends after all the work and 11 clock interrupts")
end)
tap.done_testing()
