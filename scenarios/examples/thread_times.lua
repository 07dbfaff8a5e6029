-- thread_times.lua: GetThreadTimes counts whole clock ticks,
-- QueryThreadCycleTime counts cycles.
--
-- Story: one thread runs four equal slices of guest work, 10 ms each
-- (30,000,000 cycles at 3 GHz), and after each asks GetThreadTimes and
-- QueryThreadCycleTime about itself.  The cycle time grows by exactly
-- 30,000,000 each time; the user time jumps by a whole tick (15.625 ms) or
-- not at all, because Windows charges a thread one tick of user time per
-- clock interrupt that finds it running.
-- What to look at: the user-time column against the cycle column.
--
-- Derivation (api/README.md "Thread times"; sim/README.md "Clock
-- interrupts"; cost = "unit", so the API calls take no cycles and kernel
-- time stays 0; tick 156,250 x 100 ns = 46,875,000 cycles, interrupt 2,000
-- cycles, not the thread's):
--   * spin(14,999,998) retires 4 + 2 x 14,999,998 = 30,000,000 cycles.
--   * The CPU clock after slice s is 30,000,000 s + 2,000 x (interrupts so
--     far); interrupts come due at 46,875,000 j:
--       s = 1: 30,000,000, no tick yet              user 0
--       s = 2: tick 1 (46,875,000) -> 60,002,000    user 156,250
--       s = 3: 90,002,000 < 93,750,000               user 156,250
--       s = 4: tick 2 -> 120,004,000                 user 312,500
--     (user time = ticks x 156,250; 20 ms of work showed as 15.625 ms, 30 ms
--     still as 15.625 ms, 40 ms as 31.25 ms.)
--   * QueryThreadCycleTime = 30,000,000 s (interrupts excluded).
--   * CreationTime = boot_time (created before m:run, at virtual time 0);
--     ExitTime 0 while the thread runs; KernelTime 0.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local m = hcp.machine { cost = "unit" }
local k = m:load "kernels"
local BOOT = 134116992000000000 -- the default boot_time, 2026-01-01 00:00 UTC
local rows = {}
m:thread { name = "worker", body = function(t)
  for s = 1, 4 do
    t:run(k.spin, 14999998)
    local ok, creation, exit, kernel, user = t:GetThreadTimes(t:GetCurrentThread())
    local ok2, cycles = t:QueryThreadCycleTime(t:GetCurrentThread())
    assert(ok and ok2)
    rows[s] = { clock = m:clock(), cycles = cycles, creation = creation, exit = exit, kernel = kernel, user = user }
  end
end }
m:run()

print("slice  work (ms)  CPU clock    QueryThreadCycleTime  user time (100 ns)  = ms")
for s, r in ipairs(rows) do
  print(string.format("%5d %10d %10d %21d %19d  %s", s, 10 * s, r.clock, r.cycles, r.user,
                      string.format("%d.%04d", r.user // 10000, r.user % 10000)))
end

tap.clause("TIMES-KERNEL-USER")
local users = {}
for s, r in ipairs(rows) do users[s] = r.user end
tap.is(table.concat(users, " "), "0 156250 156250 312500", "user time moves in whole ticks: 0, 1, 1, 2 ticks")
local kernel_zero = true
for _, r in ipairs(rows) do kernel_zero = kernel_zero and r.kernel == 0 end
tap.ok(kernel_zero, "kernel time stays 0: no API call costs cycles under cost = unit")
tap.clause("CYCLETIME-QUERY")
local cycles = {}
for s, r in ipairs(rows) do cycles[s] = r.cycles end
tap.is(table.concat(cycles, " "), "30000000 60000000 90000000 120000000", "the cycle time grows by exactly 30,000,000")
tap.clause("SCHED-TIME-ACCOUNTING")
local clocks = {}
for s, r in ipairs(rows) do clocks[s] = r.clock end
tap.is(table.concat(clocks, " "), "30000000 60002000 90002000 120004000", "the CPU clock includes the interrupts")
tap.clause("TIMES-CREATION")
tap.is(rows[1].creation, BOOT, "CreationTime is boot_time: created before the run")
tap.clause("TIMES-EXIT")
tap.is(rows[4].exit, 0, "ExitTime is 0 while the thread runs")
tap.done_testing()
