-- The PMU events and the cost model (pmu_model/README.md), with expected
-- values derived by hand from the kernels' listings (scenarios/kernels/*.S)
-- and the documented tables, or from a reference model of the documented
-- predictor written here in Lua.  Nothing is copied from a previous run.  At the
-- end: each CPU of a machine has its own predictor and caches.
local hcp = require "hcpsim"
-- Threads here exit with profiling enabled on purpose (Windows lets them; the documentation
-- forbids it): that warning is expected, any other ends the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("exited with profiling enabled", 1, true), w) end)
local tap = require "hcpsim.tap"

local HW = hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS

-- A fresh machine with `events` on PMC0.. and the configuration naming them
-- in order; body(t, read, k, m) gets read() -> table event -> delta since the
-- previous read.
local function measure(opts, events, body)
  opts.pmc = events
  local m = hcp.machine(opts)
  local cfg = {}
  for i = 1, #events do cfg[i] = { Type = hcp.PMCCounter, Index = i - 1 } end
  assert(m:KeSetHardwareCounterConfiguration(cfg) == hcp.STATUS_SUCCESS)
  local k = m:load "kernels"
  m:thread { name = "probe", body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, (1 << #events) - 1)
    assert(rc == hcp.ERROR_SUCCESS)
    local last = {}
    for i = 1, #events do last[i] = 0 end
    local function read()
      local _, pd = t:ReadThreadProfilingData(ph, HW)
      local d = {}
      for i = 1, #events do
        local v = pd.HwCounters[i - 1].Value
        d[events[i]] = v - last[i]
        last[i] = v
      end
      return d
    end
    body(t, read, k, m)
    t:DisableThreadProfiling(ph)
  end }
  m:run()
  return m
end

------------------------------------------------------------------------------
-- 1. Static events: loads, stores, conditional branches per kernel formula
-- (the "# loads:", "# stores:", "# conditional:" lines of each .S file).
------------------------------------------------------------------------------
tap.clause("SIM-PMU-EVENTS-STATIC")
do
  local ev = { "instructions", "cond-branches", "loads", "stores", "branches" }
  measure({ cost = "unit" }, ev, function(t, read, k, m)
    local buf = m:alloc(8 * 4096)
    local dst = m:alloc(8 * 4096)
    local cases = {
      { "spin", { 1000 }, 1000, function(n) return 1 + n, 1, 0 end },
      { "memwalk", { buf, 300 }, 300, function(n) return 1 + n, 1 + n, 0 end },
      { "calls", { 250 }, 250, function(n) return 1 + n, 1 + n, n end },
      { "stores", { buf, 400 }, 400, function(n) return 1 + n, 1, n end },
      { "copy", { dst, buf, 256 }, 256, function(n) return 1 + n, 1 + n, n end },
      { "recurse", { 600 }, 600, function(n) return 1 + n, 1 + n, n end },
      { "icalls", { 333 }, 333, function(n) return 1 + n, 1 + n, n end },
    }
    read()
    for _, c in ipairs(cases) do
      t:run(k[c[1]], table.unpack(c[2]))
      local d = read()
      local cond, loads, stores = c[4](c[3])
      local what = string.format("%s(n=%d)", c[1], c[3])
      tap.is(d["cond-branches"], cond, what .. ": cond-branches")
      tap.is(d.loads, loads, what .. ": loads")
      tap.is(d.stores, stores, what .. ": stores")
    end
  end)
end

------------------------------------------------------------------------------
-- 2. Cycles under the default table, branch-misses from gshare by hand.
-- spin(n) on a fresh CPU (history 0, every counter 1 = weakly not taken):
--   classes: mov 1 + test (alu) 1 + jz (branch) 1 + n x (dec 1 + jnz 1) + ret 2
--   = 5 + 2n base cycles.  k.spin is page-aligned, so jz is at pc mod 4096 = 6
--   and jnz at 0xb.  jz: not taken, counter 1 predicts not taken: a hit.
--   jnz, taken n-1 times: iteration i (history 2^(i-1)-1 after i-1 taken
--   outcomes, then saturating at 0xFFF) indexes 0xb xor history; the first 12
--   indices are new (counter 1: predicted not taken, a miss, counter -> 2),
--   the 13th (history 0xFFF) is new too: a miss; from then on it predicts
--   taken.  The last, not-taken jnz at 0xb xor 0xFFF (counter 3): a miss.  No
--   index equals jz's 6.  The ret: the return stack holds the sentinel that
--   t:run's call pushed: a hit.  So n >= 14: 14 misses; n = 5: 4 misses
--   (iterations 1-4 taken, new indices; the 5th, not taken, index 0xb ^ 0xF
--   is new: counter 1 predicts not taken, a hit).
------------------------------------------------------------------------------
tap.clause("SIM-PMU-CYCLES-DEFAULT-TABLE")
for _, c in ipairs { { 1000, 14 }, { 5, 4 } } do
  local n, misses = c[1], c[2]
  measure({}, { "instructions", "cycles", "branch-misses", "ref-cycles" }, function(t, read, k)
    read()
    tap.is(k.spin % 4096, 0, "spin is page-aligned (the derivation uses pc mod 4096)")
    t:run(k.spin, n)
    local d = read()
    tap.is(d.instructions, 4 + 2 * n, "spin(" .. n .. "): instructions")
    tap.is(d["branch-misses"], misses, "spin(" .. n .. "): branch-misses on a fresh predictor")
    tap.is(d.cycles, 5 + 2 * n + 15 * misses, "spin(" .. n .. "): cycles = 5 + 2n + 15 x misses")
    tap.is(d["ref-cycles"], d.cycles, "spin(" .. n .. "): ref-cycles = cycles (nominal frequency)")
  end)
end

tap.clause("SIM-PMU-CYCLES-UNIT-TABLE")
measure({ cost = "unit" }, { "instructions", "cycles", "branch-misses" }, function(t, read, k)
  read()
  t:run(k.spin, 1000)
  local d = read()
  tap.is(d.cycles, d.instructions, "unit table: cycles = instructions")
  tap.is(d["branch-misses"], 14, "unit table: mispredicts are still counted, at no cost")
end)

------------------------------------------------------------------------------
-- 3. The predictor against a reference model of the documented algorithm:
-- gshare, 12 history bits, 4096 two-bit counters starting at 1, index =
-- (pc xor history) mod 4096, history = (history << 1 | taken) mod 4096.
-- memwalk(buf, n): jz at +5 (not taken for n > 0), jnz at +0x11 taken n-1
-- times then not; spin(n): jz at +6, jnz at +0xb.  Three calls of each in a
-- row on one CPU: the history carries over from call to call.
------------------------------------------------------------------------------
tap.clause("SIM-PMU-BRANCH-GSHARE")
do
  local ctr, hist = {}, 0
  local function cond(pc, taken)
    local i = (pc ~ hist) & 4095
    local c = ctr[i] or 1
    local miss = (c >= 2) ~= taken
    if taken and c < 3 then ctr[i] = c + 1 end
    if not taken and c > 0 then ctr[i] = c - 1 end
    hist = ((hist << 1) | (taken and 1 or 0)) & 4095
    return miss and 1 or 0
  end
  local function loop(base, jz, jnz, n)
    local misses = cond(base + jz, false)
    for i = 1, n do misses = misses + cond(base + jnz, i < n) end
    return misses
  end
  measure({}, { "branch-misses" }, function(t, read, k, m)
    local buf = m:alloc(8 * 1024)
    read()
    for i = 1, 3 do
      t:run(k.memwalk, buf, 1024)
      tap.is(read()["branch-misses"], loop(k.memwalk, 5, 0x11, 1024), "memwalk(1024) call " .. i)
    end
    for i = 1, 3 do
      t:run(k.spin, 1000)
      tap.is(read()["branch-misses"], loop(k.spin, 6, 0xb, 1000), "spin(1000) call " .. i)
    end
  end)
end

------------------------------------------------------------------------------
-- 4. The return stack.  recurse(20) pushes 20 return addresses on top of the
-- sentinel that t:run's call pushed: 21 rets in all.  With 64 entries every
-- ret hits; with the default 16 the 5 oldest entries were dropped, so the
-- last 5 rets (4 recursion levels and the final ret) mispredict; with 0
-- entries all 21 do.  The conditional branches behave the same in each
-- machine, so the differences are exactly the ret mispredicts.
------------------------------------------------------------------------------
tap.clause("SIM-PMU-BRANCH-RAS")
do
  local got = {}
  for _, ras in ipairs { 64, 16, 0 } do
    measure({ predictor = { ras = ras } }, { "branch-misses" }, function(t, read, k)
      read()
      t:run(k.recurse, 20)
      got[ras] = read()["branch-misses"]
    end)
  end
  tap.is(got[16] - got[64], 5, "16-entry return stack: the last 5 of 21 rets mispredict")
  tap.is(got[0] - got[64], 21, "no return stack: every ret mispredicts")
end

------------------------------------------------------------------------------
-- 5. Caches (cache model on because a PMC counts a cache event).
-- memwalk(buf, n) reads n 8-byte words of a page-aligned buffer: n/8 lines.
-- Cold caches: each line misses L1D, L2 and the LLC and is served by memory
-- (+200 cycles); the final ret hits (t:run's call wrote that line).  A second
-- pass over 8 KiB (fits in L1D, 32 KiB) misses nothing.  Over 64 KiB (2 x
-- L1D, 8-way LRU): the first pass leaves the last 32 KiB in L1D; the second
-- pass's first half evicts them before the second half needs them, so every
-- line misses L1D again and is served by L2 (1 MiB): +10 cycles each.
-- The return-address line: t:run's call wrote it into every level; a walk
-- over 64 KiB touches 16 lines of every L1D set after it, so it is evicted
-- from L1D (not from L2) and the final ret adds one L1D miss served by L2.
-- memwalk base cycles: xor 1 + test 1 + jz 1 + n x (add r,[m] (load) 2 +
-- add 1 + dec 1 + jnz 1) + ret 2 = 5 + 5n.
------------------------------------------------------------------------------
tap.clause("SIM-PMU-CACHE-HIERARCHY")
do
  local ev = { "l1d-misses", "l2-misses", "llc-references", "llc-misses", "cycles", "branch-misses" }
  measure({}, ev, function(t, read, k, m)
    local small = m:alloc(8 * 1024)
    local big = m:alloc(64 * 1024)
    read()
    local function pass(buf, n, what, l1, l2, llc, penalty)
      t:run(k.memwalk, buf, n)
      local d = read()
      tap.is(d["l1d-misses"], l1, what .. ": l1d-misses")
      tap.is(d["l2-misses"], l2, what .. ": l2-misses")
      tap.is(d["llc-references"], l2, what .. ": llc-references = l2-misses")
      tap.is(d["llc-misses"], llc, what .. ": llc-misses")
      tap.is(d.cycles, 5 + 5 * n + 15 * d["branch-misses"] + penalty, what .. ": cycles = base + mispredicts + misses")
    end
    pass(small, 1024, "8 KiB cold", 128, 128, 128, 128 * 200)
    pass(small, 1024, "8 KiB again", 0, 0, 0, 0)
    pass(big, 8192, "64 KiB cold", 1024 + 1, 1024, 1024, 1024 * 200 + 10)
    pass(big, 8192, "64 KiB again", 1024 + 1, 0, 0, (1024 + 1) * 10)
  end)
end

tap.clause("SIM-PMU-CACHE-GEOMETRY")
-- A direct-mapped 4 KiB L1D (64 sets of one 64-byte line): two passes over
-- 8 KiB; in the second, each line's set holds the line 4 KiB away: 128 misses.
-- In both, the walk passes the return-address line's set after the call wrote
-- it, so the final ret misses L1D too (served by L2): 128 + 1.
measure({ cache = { l1d = { size = 4096, ways = 1, line = 64 } } }, { "l1d-misses", "l2-misses" },
  function(t, read, k, m)
    local buf = m:alloc(8 * 1024)
    read()
    t:run(k.memwalk, buf, 1024)
    local d = read()
    tap.is(d["l1d-misses"], 128 + 1, "cold: 128 data lines + the return-address line")
    t:run(k.memwalk, buf, 1024)
    d = read()
    tap.is(d["l1d-misses"], 128 + 1, "direct-mapped, 2 x its size: every line misses again")
    tap.is(d["l2-misses"], 0, "and every one is served by L2")
  end)

------------------------------------------------------------------------------
-- 6. Kernel work: functions that enter the kernel cost 1500 cycles (api_call)
-- counted by cycles:k, and clock interrupts 2000 each; CycleTime has user and
-- API cycles, not interrupts.  One thread alone on one CPU, so every tick hits it.
------------------------------------------------------------------------------
tap.clause("SIM-PMU-KERNEL-WORK")
do
  local m = hcp.machine { pmc = { "cycles", "cycles:k", "cycles:uk" }, tick = 1000 }
  assert(m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 },
                                               { Type = hcp.PMCCounter, Index = 1 },
                                               { Type = hcp.PMCCounter, Index = 2 } } == hcp.STATUS_SUCCESS)
  local k = m:load "kernels"
  local e = m:event { manual = true }
  local r
  m:thread { body = function(t)
    local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 7)
    local ticks0 = m:cpus()[1].ticks
    t:SetEvent(e); t:ResetEvent(e); t:SetEvent(e)  -- 3 kernel entries
    t:run(k.spin, 1000000)                          -- about 2 M cycles: several ticks
    local ticks = m:cpus()[1].ticks - ticks0
    local _, pd = t:ReadThreadProfilingData(ph, HW | hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
    r = { u = pd.HwCounters[0].Value, k = pd.HwCounters[1].Value, uk = pd.HwCounters[2].Value,
          cycle_time = pd.CycleTime, ticks = ticks }
  end }
  m:run()
  tap.ok(r.ticks >= 5, "the run crossed several ticks (" .. r.ticks .. ")")
  tap.is(r.k, 3 * 1500 + r.ticks * 2000, "cycles:k = 3 API calls x 1500 + ticks x 2000")
  tap.is(r.uk, r.u + r.k, "cycles:uk = cycles:u + cycles:k")
  tap.is(r.cycle_time, r.u + 3 * 1500, "CycleTime = user cycles + API kernel cycles, interrupts excluded")
end

tap.clause("SIM-PMU-EVENT-NAMES")
do
  local ok, err = pcall(hcp.machine, { pmc = { "cycles:x" } })
  tap.ok(not ok and err:find("pmc%[1%] 'cycles:x': the part after ':' must be u, k or uk"), "a bad mode suffix is refused")
  ok, err = pcall(hcp.machine, { pmc = { "l1d-misses" }, cache = false })
  tap.ok(not ok and err:find("needs the cache model"), "a cache event with cache = false is refused")
  ok, err = pcall(hcp.machine, { cache = { l1d = { size = 1000, ways = 3, line = 64 } } })
  tap.ok(not ok and err:find("cache geometry"), "a geometry that is not whole sets is refused")
  ok, err = pcall(hcp.machine, { cost = "fast" })
  tap.ok(not ok and err:find("unknown cost table 'fast'"), "an unknown cost table is refused")
end

------------------------------------------------------------------------------
-- Each CPU's own predictor and caches (two CPUs running the same code at once).
------------------------------------------------------------------------------
tap.clause("SIM-PMU-PER-CPU")
do
  -- Each CPU has its own predictor and its own L1D, L2 and LLC
  -- (pmu_model/README.md "In a machine").  A (CPU 0) and B (CPU 1) run the
  -- same code over the same data at the same time, in lock-step rounds.
  -- spin(1000) on a fresh predictor mispredicts 14 times: the jz (not taken,
  -- counter 1: predicted), the jnz taken with the 13 histories 0, 1, 3, ...,
  -- 0xFFF, each met first with a counter at 1, then the final not-taken jnz
  -- (counter 2 at history 0xFFF); the ret is predicted from the return stack.
  -- memwalk(buf, 2048) over a cold, page-aligned 16 KiB buffer misses every
  -- level once per line: 256 lines (the final ret's stack line, written by
  -- t:run's call, stays in L1D: 257 lines fit).  Each thread sees exactly
  -- that on its own CPU, whatever the other does.
  local m = hcp.machine { cpus = 2, pmc = { "branch-misses", "l1d-misses" } }
  local k = m:load "kernels"
  local buf = m:alloc(16 * 1024)
  local got = {}
  for i, name in ipairs { "A", "B" } do
    m:thread { name = name, affinity = 1 << (i - 1), body = function(t)
      t:run(k.spin, 1000)
      local c = t:counters()
      got[name .. " spin"] = c["branch-misses"]
      t:run(k.memwalk, buf, 2048)
      local d = t:counters()
      got[name .. " l1d"], got[name .. " l2"], got[name .. " llc"] = d["l1d-misses"], d["l2-misses"], d["llc-misses"]
    end }
  end
  m:run()
  for _, name in ipairs { "A", "B" } do
    tap.is(got[name .. " spin"], 14, name .. ": spin(1000) mispredicts 14 times on its CPU's fresh predictor")
    tap.is(got[name .. " l1d"], 256, name .. ": memwalk over 16 KiB misses L1D once per line")
    tap.is(got[name .. " l2"], 256, name .. ": and L2")
    tap.is(got[name .. " llc"], 256, name .. ": and the LLC of its own CPU")
  end
end
tap.done_testing()
