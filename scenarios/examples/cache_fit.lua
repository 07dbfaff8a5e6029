-- cache_fit.lua: a working set that fits in L1D against one that thrashes it.
--
-- Story: memwalk sums a buffer twice, once with 16 KiB (2,048 words) and once
-- with 64 KiB (8,192 words), each on a fresh machine (cold caches).  L1D is
-- 32 KiB: the small buffer stays in it and its second pass never misses; the
-- large one evicts itself, so its second pass misses L1D on every line, and
-- every one of those misses is served by L2 (1 MiB) for 10 cycles.
-- What to look at: l1d-misses, l2-misses and cycles per pass.
--
-- Derivation (pmu_model/README.md "Cycles", "Data caches", default cost
-- table; the predictor is turned off so that cycles hold no mispredicts):
--   * memwalk(buf, n) retires xor, test, jz, n x (add rax,[rcx]; add; dec;
--     jnz), ret: class costs 1 + 1 + 1 + n x (2 + 1 + 1 + 1) + 2 = 5 + 5n
--     cycles, 4 + 4n instructions (8,196 for n = 2,048, 32,772 for 8,192)
--     and 1 + n loads (n words, the ret's stack read).
--   * Lines are 64 B (8 words); L1D has 64 sets of 8 ways, so a line at
--     address a lives in set (a / 64) mod 64.  t:run's call writes the return
--     address into the cache uncounted, so the stack line is the most
--     recently used line of its set when the walk starts.
--   * 16 KiB = 256 lines, 4 per set: pass 1 misses each line once in every
--     level (256 l1d and 256 l2 misses, each served by memory for 200
--     cycles); the stack line shares a set with 4 lines, stays, and the ret
--     hits.  Pass 2: nothing misses.
--       pass 1: 5 + 5 x 2,048 + 256 x 200 = 61,445 cycles; pass 2: 10,245.
--   * 64 KiB = 1,024 lines, 16 per set.  Pass 1: 1,024 misses from memory;
--     the stack line's set then receives 16 lines after it and LRU evicts it,
--     so the ret misses L1D too and is served by L2 (the walk used each of
--     L2's 1,024 sets once, it kept the stack line): l1d 1,025, l2 1,024.
--       5 + 5 x 8,192 + 1,024 x 200 + 10 = 245,775 cycles.
--     Pass 2: each set sees its 16 lines in the same cyclic order and LRU
--     has always evicted the line coming round (pmu_model/README.md's 64 KiB
--     example), so all 1,024 miss L1D, and so does the ret again; L2 holds
--     them all: l1d 1,025, l2 0, 5 + 5 x 8,192 + 1,025 x 10 = 51,215 cycles.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local function walk(words)
  local m = hcp.machine { predictor = false, pmc = { "instructions", "cycles", "l1d-misses", "l2-misses" } }
  m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 }, { Type = hcp.PMCCounter, Index = 1 },
                                        { Type = hcp.PMCCounter, Index = 2 }, { Type = hcp.PMCCounter, Index = 3 } }
  local k = m:load "kernels"
  local buf = m:alloc(words * 8)
  local passes = {}
  m:thread { name = "walker", body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0xF)
    assert(rc == hcp.ERROR_SUCCESS)
    local before = { 0, 0, 0, 0 }
    for p = 1, 2 do
      t:run(k.memwalk, buf, words)
      local rc2, pd = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)
      assert(rc2 == hcp.ERROR_SUCCESS)
      local now = {}
      for i = 0, 3 do now[i + 1] = pd.HwCounters[i].Value end
      passes[p] = { now[1] - before[1], now[2] - before[2], now[3] - before[3], now[4] - before[4] }
      before = now
    end
    t:DisableThreadProfiling(ph)
  end }
  m:run()
  return passes
end

local small, large = walk(2048), walk(8192)
print("working set  pass  instructions  cycles  l1d-misses  l2-misses")
for _, r in ipairs { { "16 KiB", small }, { "64 KiB", large } } do
  for p = 1, 2 do
    local v = r[2][p]
    print(string.format("%-11s %5d %13d %7d %11d %10d", r[1], p, v[1], v[2], v[3], v[4]))
  end
end

local function row(v) return string.format("%d %d %d %d", v[1], v[2], v[3], v[4]) end
tap.clause("SIM-PMU-CACHE-FITS")
tap.is(row(small[1]), "8196 61445 256 256", "16 KiB pass 1: 4 + 4n instructions, 256 cold lines from memory")
tap.is(row(small[2]), "8196 10245 0 0", "16 KiB pass 2: it fits, no miss, 5 + 5n cycles")
tap.clause("SIM-PMU-CACHE-TWICE")
tap.is(row(large[1]), "32772 245775 1025 1024", "64 KiB pass 1: 1,024 lines from memory, the evicted stack line from L2")
tap.is(row(large[2]), "32772 51215 1025 0", "64 KiB pass 2: it thrashes L1D, every line again from L2")
tap.done_testing()
