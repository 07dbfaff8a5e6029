-- Several CPUs: the same workload on 1, 2 and 4 CPUs, ideal processors,
-- affinity, an idle CPU taking a woken thread, preemption on the waker's CPU,
-- lock-step rounds (sim/README.md "Several CPUs").  spin(n) = 4 + 2n cycles;
-- the default tick (46875000 cycles) never fires in these runs.
local hcp = require "hcpsim"
-- Threads here exit with profiling enabled on purpose (Windows lets them; the documentation
-- forbids it): that warning is expected, any other ends the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("exited with profiling enabled", 1, true), w) end)
local tap = require "hcpsim.tap"

local A_WORK, B_WORK = 4 + 2 * 1000000, 4 + 2 * 500000

local function two_spinners(cpus)
  local m = hcp.machine { cpus = cpus, cost = "unit" }
  local k = m:load "kernels"
  local a = m:thread { name = "A", body = function(t) t:run(k.spin, 1000000) end }
  local b = m:thread { name = "B", body = function(t) t:run(k.spin, 500000) end }
  m:run()
  return m, a, b
end

tap.clause("SCHED-CPUS-ONE")
do
  local m, a, b = two_spinners(1)
  local c = m:cpus()
  tap.is(#c, 1, "1 CPU")
  tap.ok(a.cpu == 0 and b.cpu == 0, "both threads ran on CPU 0")
  tap.is(c[1].busy, A_WORK + B_WORK, "CPU 0 did both threads' work, one after the other")
  tap.is(c[1].time, A_WORK + B_WORK, "no tick fell in the run: time = work")
  tap.ok(a.switches == 1 and b.switches == 1, "no quantum end without a tick: one switch-in each")
end

for _, n in ipairs { 2, 4 } do
  tap.clause("SCHED-CPUS-PARALLEL")
  local m, a, b = two_spinners(n)
  local c = m:cpus()
  tap.is(#c, n, n .. " CPUs")
  tap.is(a.ideal, 0, n .. " CPUs: A (created first) has ideal processor 0")
  tap.is(b.ideal, 1, n .. " CPUs: B has ideal processor 1")
  tap.is(a.cpu, 0, n .. " CPUs: A ran on CPU 0")
  tap.is(b.cpu, 1, n .. " CPUs: B ran on CPU 1 (CPU 0 left it to its idle ideal processor)")
  tap.is(c[1].busy, A_WORK, n .. " CPUs: CPU 0 busy with A only")
  tap.is(c[2].busy, B_WORK, n .. " CPUs: CPU 1 busy with B only")
  tap.is(c[1].time, A_WORK, n .. " CPUs: the run ends when A exits on CPU 0")
  tap.is(c[2].time % 10000, 0, n .. " CPUs: an idle CPU's clock moves in whole lock-step rounds (10000 cycles)")
  tap.ok(c[2].time >= A_WORK - 10000 and c[2].time <= A_WORK + 10000, n .. " CPUs: and stays within a round of the others")
  tap.is(c[2].idle, c[2].time - B_WORK, n .. " CPUs: CPU 1 idle after B")
  if n == 4 then tap.ok(c[3].busy == 0 and c[4].busy == 0, "4 CPUs: CPUs 2 and 3 stayed idle") end
end

tap.clause("SCHED-AFFINITY")
do
  local m = hcp.machine { cpus = 4, cost = "unit" }
  local k = m:load "kernels"
  local pinned = m:thread { name = "pinned", affinity = 0x4, body = function(t) t:run(k.spin, 10) end }
  local picky = m:thread { name = "picky", affinity = 0xA, ideal = 3, body = function(t) t:run(k.spin, 10) end }
  local default = m:thread { name = "third", body = function(t) t:run(k.spin, 10) end }
  m:run()
  tap.is(pinned.cpu, 2, "affinity 0x4 runs only on CPU 2")
  tap.is(pinned.ideal, 2, "its ideal processor moved into its affinity")
  tap.is(picky.ideal, 3, "an explicit ideal processor is kept")
  tap.is(picky.cpu, 3, "and used")
  tap.is(default.ideal, 2, "ideal processors go round-robin by creation order (third thread: CPU 2)")
  local ok, err = pcall(m.thread, m, { name = "none", affinity = 0x10, body = function() end })
  tap.ok(not ok and err:find("names no CPU of this machine", 1, true), "an affinity outside the machine is refused")
end

tap.clause("SCHED-CPUS-IDLE-TAKES-WOKEN")
do
  -- L spins 200004 cycles on CPU 0 and sets E; H (priority 12) waits on E on
  -- CPU 1.  CPU 1 is idle, so L is not preempted: CPU 1 takes H at the first
  -- round boundary at or after the readying time 200004, i.e. 210000.
  local m = hcp.machine { cpus = 2, cost = "unit" }
  local k = m:load "kernels"
  local E = m:event {}
  local woke
  local l = m:thread { name = "L", body = function(t) t:run(k.spin, 100000); t:SetEvent(E) end }
  local h = m:thread { name = "H", priority = 12, body = function(t)
    t:WaitForSingleObject(E)
    woke = m:clock()
  end }
  m:run()
  tap.is(h.cpu, 1, "H woke on the idle CPU 1")
  tap.is(l.switches, 1, "L was not preempted")
  tap.is(woke, 210000, "at CPU 1's next round boundary after the event")
end

tap.clause("SCHED-CPUS-PREEMPT-WAKER")
do
  -- Both CPUs busy with priority-8 threads; L1 on CPU 0 sets E, readying H
  -- (priority 12).  No CPU is idle: the waker's CPU checks at once and H
  -- preempts L1 there; L2 on CPU 1 is undisturbed.
  local m = hcp.machine { cpus = 2, cost = "unit" }
  local k = m:load "kernels"
  local E = m:event {}
  local bits
  local h = m:thread { name = "H", priority = 12, ideal = 0, body = function(t) t:WaitForSingleObject(E) end }
  local l1 = m:thread { name = "L1", ideal = 0, body = function(t)
    local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
    t:run(k.spin, 100000)
    t:SetEvent(E)
    local _, pd = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
    bits = pd.WaitReasonBitMap
  end }
  local l2 = m:thread { name = "L2", ideal = 1, body = function(t) t:run(k.spin, 1000000) end }
  m:run()
  tap.is(h.cpu, 0, "H ran on the waker's CPU 0")
  tap.is(l1.switches, 2, "L1 was preempted and switched back in")
  tap.is(bits, 1 << hcp.WrPreempted, "with WrPreempted")
  tap.is(l2.switches, 1, "L2 on CPU 1 was not disturbed")
  tap.is(l2.cpu, 1, "and stayed on CPU 1")
end
tap.done_testing()
