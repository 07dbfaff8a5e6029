-- round_robin.lua: four CPU-bound threads of equal priority on 1 CPU, then on
-- 4 CPUs.
--
-- Story: each thread runs spin(600,000): 4 + 2 x 600,000 = 1,200,004
-- instructions = cycles (cost = "unit").  On one CPU they take turns at
-- quantum ends; on four CPUs each has a CPU of its own and never switches.
-- What to look at: switches and wait reasons per thread, each CPU's time,
-- and the makespan (the last CPU clock): exactly 4 times shorter on 4 CPUs.
--
-- Derivation (sim/README.md "Clock interrupts", "Quantum end", "Several
-- CPUs", "Idle CPUs and the ideal processor"; tick = 1000 x 100 ns = 300,000
-- cycles, interrupt 2,000 cycles, quantum 2 ticks = 600,000 own cycles):
--   1 CPU.  a runs first (creation order).  At the interrupts due at 300,000
--   and 600,000 it has run about 300,000 and 598,000 of its own cycles (the
--   interrupts are not its cycles): under a quantum.  At the one due at
--   900,000 it has run about 896,000: quantum end, b, c, d are Ready, a goes
--   to the tail (WrQuantumEnd, 30).  b, c, d do the same three ticks later
--   each (about 894,000 cycles a turn).  Each then needs under 310,000
--   cycles more: less than a quantum, so the second turn finishes it.  Every
--   thread (enabled at its first dispatch) is switched in once more:
--   ContextSwitchCount 1, WaitReasonBitMap 1 << 30.
--   CPU 0: busy 4 x 1,200,004 = 4,800,016 cycles, never idle; its clock ends
--   at 4,800,016 + 2,000 x ticks, the ticks being the due times 300,000 j at
--   or below the end: 16 (4,800,000 <= 4,832,016 < 5,100,000): 4,832,016.
--   4 CPUs.  Ideal processors are assigned round robin (thread k -> CPU k),
--   so each CPU runs one thread.  At each quantum end nobody else is Ready
--   for that CPU: a new quantum, no switch: ContextSwitchCount 0, bitmap 0.
--   Each CPU: busy 1,200,004, ticks due at 300,000 ... 1,200,000: 4, clock
--   1,200,004 + 8,000 = 1,208,004.  Makespan 4,832,016 / 1,208,004 = 4.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local N = 600000
local function run(cpus)
  local m = hcp.machine { cost = "unit", tick = 1000, quantum = 2, cpus = cpus }
  local k = m:load "kernels"
  local pd = {}
  for _, name in ipairs { "a", "b", "c", "d" } do
    m:thread { name = name, body = function(t)
      local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
      assert(rc == hcp.ERROR_SUCCESS)
      t:run(k.spin, N)
      local rc2, d = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
      assert(rc2 == hcp.ERROR_SUCCESS)
      pd[#pd + 1] = { name = name, d = d }
      t:DisableThreadProfiling(ph)
    end }
  end
  m:run()
  table.sort(pd, function(x, y) return x.name < y.name end)
  return m:cpus(), pd
end

local results = {}
for _, cpus in ipairs { 1, 4 } do
  local cpu, pd = run(cpus)
  local makespan = 0
  print(string.format("%d CPU%s:", cpus, cpus > 1 and "s" or ""))
  for i, c in ipairs(cpu) do
    print(string.format("  CPU %d: time %9d = busy %9d + interrupts %6d (%2d ticks) + idle %d", i - 1, c.time,
                        c.busy, c.interrupt, c.ticks, c.idle))
    if c.time > makespan then makespan = c.time end
  end
  for _, p in ipairs(pd) do
    print(string.format("  thread %s: ContextSwitchCount %d, WaitReasonBitMap 0x%X", p.name,
                        p.d.ContextSwitchCount, p.d.WaitReasonBitMap))
  end
  print(string.format("  makespan %d cycles", makespan))
  results[cpus] = { cpu = cpu, pd = pd, makespan = makespan }
end
print(string.format("speed-up on 4 CPUs: %d / %d = %d (remainder %d)", results[1].makespan, results[4].makespan,
                    results[1].makespan // results[4].makespan, results[1].makespan % results[4].makespan))

tap.clause("SCHED-QUANTUM-END", "SCHED-CPUS-ONE")
local one = results[1]
for _, p in ipairs(one.pd) do
  tap.ok(p.d.ContextSwitchCount == 1 and p.d.WaitReasonBitMap == 1 << 30,
         "1 CPU: " .. p.name .. " is switched in once more, after a quantum end")
end
tap.clause("SCHED-TIME-ACCOUNTING")
local c0 = one.cpu[1]
tap.ok(c0.busy == 4800016 and c0.ticks == 16 and c0.idle == 0 and c0.time == 4832016,
       "1 CPU: busy 4 x 1,200,004 + 16 interrupts = 4,832,016")
tap.clause("SCHED-CPUS-PARALLEL")
local four = results[4]
for _, p in ipairs(four.pd) do
  tap.ok(p.d.ContextSwitchCount == 0 and p.d.WaitReasonBitMap == 0, "4 CPUs: " .. p.name .. " is never switched out")
end
for i, c in ipairs(four.cpu) do
  tap.ok(c.busy == 1200004 and c.ticks == 4 and c.time == 1208004,
         string.format("4 CPUs: CPU %d runs one thread: busy 1,200,004 + 4 interrupts = 1,208,004", i - 1))
end
tap.is(one.makespan, 4 * four.makespan, "the makespan on 4 CPUs is exactly a quarter")
tap.done_testing()
