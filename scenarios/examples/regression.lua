-- regression.lua: a regression test that pins every counter of a fixed
-- workload to an exact value.
--
-- Story: a performance test that must notice any change, to the cost model,
-- the predictor, the caches or the kernels, fails on the exact line that
-- moved.  Each case runs on a fresh machine (cold predictor and caches) with
-- the default cost table and eight PMCs, reads them through
-- ReadThreadProfilingData, and compares each with a value derived here.
-- What to look at: the table; a changed rule shows as a "not ok" naming the
-- case and the counter.
--
-- Derivation (scenarios/kernels/README.md formulas; pmu_model/README.md:
-- class costs mov 1, alu 1, branch 1, load 2, ret 2, mispredict 15, memory
-- 200; gshare with H = T = 12, counters starting at 1, history 0):
--   spin(n): mov, test, jz, n x (dec, jnz), ret: 4 + 2n instructions, 2 + n
--     branches, 1 load, base cycles 5 + 2n.
--   memwalk(buf, n): xor, test, jz, n x (add rax,[rcx]; add; dec; jnz),
--     ret: 4 + 4n instructions, 2 + n branches, 1 + n loads, base 5 + 5n.
--   Mispredicts.  Each kernel is placed at the start of a page (checked
--     below), so a branch's pc mod 4096 is its offset: spin's entry jz at 6,
--     its loop jnz at 11; memwalk's jz at 5, jnz at 17.  The entry jz (not
--     taken, history 0) finds its counter at 1: predicted not taken, right.
--     The loop jnz's j-th taken execution sees history 2^(j-1) - 1 (12 bits):
--     for j = 1..13 a new counter each (none is the jz's: 11 or 17 XOR
--     2^k - 1 is never 6 or 5), at 1, so mispredicted; from j = 14 on the
--     history stays 0xFFF and its counter (now 2, then 3) predicts right.
--     The exit (not taken) at history 0xFFF then mispredicts.  The ret is
--     predicted by the return stack.  So n - 1 >= 13 taken gives 14
--     mispredicts; spin(10) (9 taken, exit at history 0x1FF, a new counter
--     at 1: predicted not taken, right) gives 9.
--   Caches.  The return address is written into the cache uncounted by
--     t:run's call, so the ret hits.  memwalk over 4 KiB, page-aligned: 64
--     lines, one per L1D set, each missing once at every level (memory,
--     200 cycles).  spin touches only the stack: no miss.
--   case           instr  cycles                      branches misses loads l1d l2 llc
--   spin(10)       24     25 + 9 x 15 = 160           12       9      1     0   0  0
--   spin(1000)     2004   2005 + 14 x 15 = 2215       1002     14     1     0   0  0
--   memwalk(4K)    2052   2565 + 210 + 12800 = 15575  514      14     513   64  64 64
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local EVENTS = { "instructions", "cycles", "branches", "branch-misses", "loads", "l1d-misses", "l2-misses",
                 "llc-misses" }
local cases = {
  { "spin(10)", "spin", function() return 10 end, { 24, 160, 12, 9, 1, 0, 0, 0 } },
  { "spin(1000)", "spin", function() return 1000 end, { 2004, 2215, 1002, 14, 1, 0, 0, 0 } },
  { "memwalk(4K)", "memwalk", function(m) return m:alloc(4096), 512 end, { 2052, 15575, 514, 14, 513, 64, 64, 64 } },
}

local function measure(case)
  local m = hcp.machine { pmc = EVENTS }
  local cfg = {}
  for i = 0, #EVENTS - 1 do cfg[#cfg + 1] = { Type = hcp.PMCCounter, Index = i } end
  assert(m:KeSetHardwareCounterConfiguration(cfg) == 0)
  local k = m:load "kernels"
  local entry = k[case[2]]
  local args = { case[3](m) }
  local got = {}
  m:thread { name = case[1], body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, (1 << #EVENTS) - 1)
    assert(rc == hcp.ERROR_SUCCESS)
    t:run(entry, table.unpack(args))
    local rc2, pd = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)
    assert(rc2 == hcp.ERROR_SUCCESS)
    for i = 0, #EVENTS - 1 do got[i + 1] = pd.HwCounters[i].Value end
    t:DisableThreadProfiling(ph)
  end }
  m:run()
  return got, entry
end

local header = { string.format("%-12s", "case") }
for _, e in ipairs(EVENTS) do header[#header + 1] = string.format("%14s", e) end
print(table.concat(header, ""))
local results = {}
for i, c in ipairs(cases) do
  local got, entry = measure(c)
  results[i] = { got = got, entry = entry }
  local line = { string.format("%-12s", c[1]) }
  for j = 1, #EVENTS do line[#line + 1] = string.format("%14d", got[j]) end
  print(table.concat(line, ""))
end

tap.clause("SIM-KERNEL-LIBRARY")
for i, c in ipairs(cases) do
  tap.is(results[i].entry % 4096, 0, c[1] .. ": the kernel starts a page (the derivation's branch offsets)")
end
for i, c in ipairs(cases) do
  for j, e in ipairs(EVENTS) do
    local clause = (e == "branch-misses" and "SIM-PMU-BRANCH-GSHARE")
                   or (e == "cycles" and "SIM-PMU-CYCLES-DEFAULT-TABLE")
                   or (e:find("misses", 1, true) and "SIM-PMU-CACHE-HIERARCHY")
                   or (e == "loads" and "SIM-PMU-EVENTS-STATIC") or "HCP-COUNT-EXACT"
    tap.clause(clause, function() tap.is(results[i].got[j], c[4][j], c[1] .. ": " .. e) end)
  end
end
tap.done_testing()
