-- thread_times.lua: GetThreadTimes counts whole clock ticks,
-- QueryThreadCycleTime counts cycles.
--
-- Story: one thread runs four equal slices of guest work, 1 ms each
-- (3,000,000 cycles at 3 GHz), and after each asks GetThreadTimes and
-- QueryThreadCycleTime about itself.  The cycle time grows by exactly
-- 3,000,000 each time; the user time jumps by a whole tick or not at all,
-- because Windows charges a thread one tick of user time per clock interrupt
-- that finds it running.  The tick is 1.5625 ms here (tick = 15,625 x 100 ns,
-- a tenth of the default 15.625 ms, to keep the run short; the ratios are
-- those of 10 ms slices on the default tick).
-- What to look at: the user-time column against the cycle column.
--
-- Derivation (api/README.md "Thread times"; sim/README.md "Clock
-- interrupts"; cost = "unit", so the API calls take no cycles and kernel
-- time stays 0; tick 15,625 x 100 ns = 4,687,500 cycles, interrupt 2,000
-- cycles, not the thread's):
--   * spin(1,499,998) retires 4 + 2 x 1,499,998 = 3,000,000 cycles.
--   * The CPU clock after slice s is 3,000,000 s + 2,000 x (interrupts so
--     far); interrupts come due at 4,687,500 j:
--       s = 1: 3,000,000, no tick yet              user 0
--       s = 2: tick 1 (4,687,500) -> 6,002,000     user 15,625
--       s = 3: 9,002,000 < 9,375,000               user 15,625
--       s = 4: tick 2 -> 12,004,000                user 31,250
--     (user time = ticks x 15,625; 2 ms of work showed as 1.5625 ms, 3 ms
--     still as 1.5625 ms, 4 ms as 3.125 ms.)
--   * QueryThreadCycleTime = 3,000,000 s (interrupts excluded).
--   * CreationTime = boot_time (created before m:run, at virtual time 0);
--     ExitTime 0 while the thread runs; KernelTime 0.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local m = hcp.machine { cost = "unit", tick = 15625 }
local k = m:load "kernels"
local BOOT = 134116992000000000 -- the default boot_time, 2026-01-01 00:00 UTC
local rows = {}
m:thread { name = "worker", body = function(t)
  for s = 1, 4 do
    t:run(k.spin, 1499998)
    local ok, creation, exit, kernel, user = t:GetThreadTimes(t:GetCurrentThread())
    local ok2, cycles = t:QueryThreadCycleTime(t:GetCurrentThread())
    assert(ok and ok2)
    rows[s] = { clock = m:clock(), cycles = cycles, creation = creation, exit = exit, kernel = kernel, user = user }
  end
end }
m:run()

print("slice  work (ms)  CPU clock    QueryThreadCycleTime  user time (100 ns)  = ms")
for s, r in ipairs(rows) do
  print(string.format("%5d %10d %10d %21d %19d  %s", s, s, r.clock, r.cycles, r.user,
                      string.format("%d.%04d", r.user // 10000, r.user % 10000)))
end

tap.clause("TIMES-KERNEL-USER")
local users = {}
for s, r in ipairs(rows) do users[s] = r.user end
tap.is(table.concat(users, " "), "0 15625 15625 31250", "user time moves in whole ticks: 0, 1, 1, 2 ticks")
local kernel_zero = true
for _, r in ipairs(rows) do kernel_zero = kernel_zero and r.kernel == 0 end
tap.ok(kernel_zero, "kernel time stays 0: no API call costs cycles under cost = unit")
tap.clause("CYCLETIME-QUERY")
local cycles = {}
for s, r in ipairs(rows) do cycles[s] = r.cycles end
tap.is(table.concat(cycles, " "), "3000000 6000000 9000000 12000000", "the cycle time grows by exactly 3,000,000")
tap.clause("SCHED-TIME-ACCOUNTING")
local clocks = {}
for s, r in ipairs(rows) do clocks[s] = r.clock end
tap.is(table.concat(clocks, " "), "3000000 6002000 9002000 12004000", "the CPU clock includes the interrupts")
tap.clause("TIMES-CREATION")
tap.is(rows[1].creation, BOOT, "CreationTime is boot_time: created before the run")
tap.clause("TIMES-EXIT")
tap.is(rows[4].exit, 0, "ExitTime is 0 while the thread runs")
tap.done_testing()
