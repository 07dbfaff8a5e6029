-- event_handoff.lua: a producer and a consumer hand work back and forth
-- through two auto-reset events.
--
-- Story: "consumer" waits for `ready`; "producer" makes an item (guest work),
-- sets `ready` and waits for `done`; the consumer processes the item, sets
-- `done` and waits for the next one.  Three items.  On one CPU each hand-off
-- is a context switch, and every switch is a wait on an event.
-- What to look at: the order of the log, each thread's ContextSwitchCount and
-- WaitReasonBitMap, the CPU's busy time.
--
-- Derivation (sim/README.md "Waits", "Objects"; cost = "unit"):
--   * consumer is created first, so it runs first, enables profiling and
--     waits on `ready`, which is not signalled: it blocks (UserRequest, 6).
--   * producer makes item 1 (spin(1000): 4 + 2 x 1000 = 2,004 cycles), sets
--     `ready`: the consumer becomes Ready but has the same priority, so no
--     preemption; the producer goes on to wait on `done` and blocks.
--   * consumer is switched in (1), processes item 1 (spin(500): 1,004
--     cycles), sets `done` (producer Ready, no preemption), waits on `ready`
--     again and blocks; the producer is switched in (1), and so on.
--   * Each thread blocks once per item, so each is switched in 3 times after
--     enabling, always after a UserRequest wait: ContextSwitchCount 3,
--     WaitReasonBitMap 1 << 6 = 0x40 (the last consumer wait is item 3's,
--     then it sets `done` and exits without waiting again).
--   * So item i is made at 3,008 (i - 1) + 2,004 and processed at 3,008 i,
--     and the consumer starts waiting for item i + 1 at that same time.
--   * Busy time = 3 x 2,004 + 3 x 1,004 = 9,024 cycles, below one tick
--     (46,875,000): no interrupt, no idle, the CPU ends at 9,024.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local m = hcp.machine { cost = "unit" }
local k = m:load "kernels"
local ready, done = m:event {}, m:event {} -- auto-reset, not signalled
local ITEMS = 3
local log, pd = {}, {}
local function say(s) log[#log + 1] = string.format("%6d %s", m:clock(), s) end

local function enable(t)
  local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
  assert(rc == hcp.ERROR_SUCCESS)
  return ph
end
local function finish(t, ph)
  local rc, d = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
  assert(rc == hcp.ERROR_SUCCESS)
  t:DisableThreadProfiling(ph)
  return d
end

m:thread { name = "consumer", body = function(t)
  local ph = enable(t)
  for i = 1, ITEMS do
    say("consumer waits for item " .. i)
    assert(t:WaitForSingleObject(ready) == hcp.WAIT_OBJECT_0)
    t:run(k.spin, 500)
    say("consumer processed item " .. i)
    t:SetEvent(done)
  end
  pd.consumer = finish(t, ph)
end }
m:thread { name = "producer", body = function(t)
  local ph = enable(t)
  for i = 1, ITEMS do
    t:run(k.spin, 1000)
    say("producer made item " .. i)
    t:SetEvent(ready)
    assert(t:WaitForSingleObject(done) == hcp.WAIT_OBJECT_0)
  end
  pd.producer = finish(t, ph)
end }
m:run()

for _, l in ipairs(log) do print(l) end
for _, n in ipairs { "producer", "consumer" } do
  print(string.format("%-8s ContextSwitchCount %d, WaitReasonBitMap 0x%X (%s)", n, pd[n].ContextSwitchCount,
                      pd[n].WaitReasonBitMap, hcp.wait_reason_name(6)))
end
local cpu = m:cpus()[1]
print(string.format("CPU 0: time %d = busy %d + interrupts %d + idle %d", cpu.time, cpu.busy, cpu.interrupt, cpu.idle))

tap.clause("SCHED-EVENT-AUTO")
tap.is(table.concat(log, "|"):gsub(" +", " "), table.concat({
  " 0 consumer waits for item 1", " 2004 producer made item 1", " 3008 consumer processed item 1",
  " 3008 consumer waits for item 2", " 5012 producer made item 2", " 6016 consumer processed item 2",
  " 6016 consumer waits for item 3", " 8020 producer made item 3", " 9024 consumer processed item 3" }, "|"),
  "each SetEvent releases the one waiter, which runs when the setter blocks")
tap.clause("HCP-DISPATCH-CONTEXT-SWITCHES", "SCHED-WAIT-USERREQUEST")
for _, n in ipairs { "producer", "consumer" } do
  tap.is(pd[n].ContextSwitchCount, 3, n .. " is switched in once per item it waited for")
  tap.is(pd[n].WaitReasonBitMap, 1 << 6, n .. "'s switches all follow a UserRequest wait")
end
tap.clause("SCHED-TIME-ACCOUNTING")
tap.ok(cpu.time == 9024 and cpu.busy == 9024 and cpu.interrupt == 0 and cpu.idle == 0,
       "CPU time = busy 3 x 2,004 + 3 x 1,004 = 9,024, no interrupt, no idle")
tap.done_testing()
