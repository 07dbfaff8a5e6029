-- branches.lua: the same loop over predictable and over random data.
--
-- Story: branchy(buf, n) counts the odd words among n; its "jz" on each
-- word's low bit goes whichever way the data says.  All-even data and sorted
-- data (all odd words first) make the branch predictable; random data makes
-- it a coin toss, and each mispredict costs 15 cycles.
-- What to look at: branch-misses and cycles for the three data sets.
--
-- The predictor is made as simple as the model allows, history = 0: gshare
-- with no history is one 2-bit saturating counter per branch address
-- (index = pc mod 4096), starting at 1 (weakly not taken); predict taken
-- when the counter is 2 or 3; then step it towards the outcome
-- (pmu_model/README.md "Branch predictor").  The kernel's branches are at
-- distinct addresses within 25 bytes, so each has its own counter.
--
-- Derivation (n = 1,000 words, one call on a fresh machine each):
--   * entry `jz .Ldone` (n > 0: not taken): counter 1 predicts not taken: 0.
--   * loop `jnz` (taken 999 times, then not): the first taken is predicted
--     not taken (1 -> 2), the rest are right (2 -> 3), the exit is predicted
--     taken (3 -> 2): 2 mispredicts.
--   * the final `ret` is predicted by the return stack (t:run pushes its
--     sentinel): 0.
--   * the data `jz`, taken for an even word:
--       all even: the first is mispredicted (1 -> 2), then right: 1;
--       sorted (500 odd, 500 even): not taken x 500 (1 -> 0, right), then
--       taken: mispredicted at 0 and at 1, right from 2 on: 2;
--       random: whatever the counter does on that data; the example runs the
--       rule above over the words it wrote (a reference model in Lua).
--   * cycles (default cost table, no cache events: no memory penalties):
--     xor, test, jz = 3, n x (test byte [rcx],1 = load 2; jz 1; add 1;
--     dec 1; jnz 1) = 6n, inc = 1 per odd word, ret 2:
--     5 + 6n + odd + 15 x branch-misses.
--       all even: 5 + 6,000 + 0 + 15 x 3 = 6,050
--       sorted:   5 + 6,000 + 500 + 15 x 4 = 6,565
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local N = 1000
local function measure(words)
  local m = hcp.machine { predictor = { history = 0 }, pmc = { "instructions", "cycles", "branch-misses" } }
  m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 }, { Type = hcp.PMCCounter, Index = 1 },
                                        { Type = hcp.PMCCounter, Index = 2 } }
  local k = m:load "kernels"
  local buf = m:alloc(8 * N)
  local bytes = {}
  for i = 1, N do bytes[i] = string.pack("<i8", words[i]) end
  m:write(buf, table.concat(bytes))
  local out = {}
  m:thread { name = "counter", body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0x7)
    assert(rc == hcp.ERROR_SUCCESS)
    out.odd = t:run(k.branchy, buf, N)
    local rc2, pd = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)
    assert(rc2 == hcp.ERROR_SUCCESS)
    out.instructions, out.cycles, out.misses = pd.HwCounters[0].Value, pd.HwCounters[1].Value, pd.HwCounters[2].Value
    t:DisableThreadProfiling(ph)
  end }
  m:run()
  return out
end

-- The reference: one 2-bit counter over the data branch's outcomes.
local function data_branch_misses(words)
  local c, misses = 1, 0
  for i = 1, N do
    local taken = words[i] % 2 == 0
    if (c >= 2) ~= taken then misses = misses + 1 end
    c = taken and math.min(3, c + 1) or math.max(0, c - 1)
  end
  return misses
end

local sets = {}
local even, sorted, random = {}, {}, {}
for i = 1, N do
  even[i] = 2 * i
  sorted[i] = i <= N // 2 and 2 * i + 1 or 2 * i
  random[i] = math.random(0, 1 << 30)
end
sets[1] = { "all even", even, 1 }
sets[2] = { "sorted", sorted, 2 }
sets[3] = { "random", random, nil }

print("data      odd words  instructions  branch-misses  cycles")
local r = {}
for i, s in ipairs(sets) do
  r[i] = measure(s[2])
  print(string.format("%-9s %9d %13d %14d %7d", s[1], r[i].odd, r[i].instructions, r[i].misses, r[i].cycles))
end

tap.clause("SIM-PMU-BRANCH-GSHARE")
for i, s in ipairs(sets) do
  local odd = 0
  for j = 1, N do odd = odd + s[2][j] % 2 end
  local data = s[3] or data_branch_misses(s[2])
  if s[3] then tap.is(data_branch_misses(s[2]), s[3], s[1] .. ": the reference model agrees with the hand count") end
  tap.is(r[i].misses, 2 + data, string.format("%s: 2 loop-exit misses + %d on the data branch", s[1], data))
  tap.clause("SIM-PMU-CYCLES-DEFAULT-TABLE", function()
    tap.is(r[i].cycles, 5 + 6 * N + odd + 15 * (2 + data), s[1] .. ": cycles = 5 + 6n + odd + 15 x misses")
    tap.is(r[i].instructions, 4 + 5 * N + odd, s[1] .. ": instructions = 4 + 5n + odd")
  end)
  tap.clause("SIM-KERNEL-FORMULAS", function() tap.is(r[i].odd, odd, s[1] .. ": branchy returns the odd words") end)
end
tap.ok(r[3].misses > 10 * r[2].misses, "random data mispredicts more than ten times as often as sorted data")
tap.done_testing()
