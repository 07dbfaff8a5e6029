-- tour.lua: what `make run` runs.  Three threads share one CPU under the
-- Windows-like dispatcher (sim/README.md); each enables Hardware Counter
-- Profiling on itself, runs a built-in guest kernel, and reads its
-- PERFORMANCE_DATA.  The table shows each thread's counters next to what its
-- kernel's listing predicts (scenarios/kernels/README.md), and what the cost
-- model (pmu_model/README.md) made of it: mispredicted branches, L1D misses,
-- cycles.
local hcp = require "hcpsim"

local m = hcp.machine {
  tick = 1000,      -- 100 us clock tick ...
  quantum = 2,      -- ... 2 ticks per quantum = 600000 cycles at 3 GHz
  pmc = { "instructions", "cycles", "branches", "branch-misses", "l1d-misses" },  -- the cache model turns on
}
-- The driver's global configuration: mask bit i selects element i, element i names PMC i.
local cfg = {}
for i = 0, 4 do cfg[#cfg + 1] = { Type = hcp.PMCCounter, Index = i } end
m:KeSetHardwareCounterConfiguration(cfg)
local k = m:load "kernels"
local data = m:alloc(8 * 4096)

-- name, kernel, arguments, predicted instructions and branches (scenarios/kernels/README.md)
local jobs = {
  { "spinner", "spin", { 900000 }, function(n) return 4 + 2 * n, 2 + n end },
  { "walker", "memwalk", { data, 4096 }, function(_, n) return 4 + 4 * n, 2 + n end },
  { "caller", "calls", { 300000 }, function(n) return 4 + 4 * n, 2 + 3 * n end },
}

local results = {}
for i, job in ipairs(jobs) do
  m:thread { name = job[1], body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0x1F)
    assert(rc == hcp.ERROR_SUCCESS, "EnableThreadProfiling failed: " .. rc)
    local passes = job[2] == "memwalk" and 60 or 1
    for _ = 1, passes do t:run(k[job[2]], table.unpack(job[3])) end
    local rc2, pd = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING |
                                                  hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)
    assert(rc2 == hcp.ERROR_SUCCESS, "ReadThreadProfilingData failed: " .. rc2)
    local ins, br = job[4](table.unpack(job[3]))
    results[i] = { name = job[1], kernel = job[2], pd = pd, ins = ins * passes, br = br * passes }
    t:DisableThreadProfiling(ph)
  end }
end
m:run()

local function reasons(bitmap)
  local names = {}
  for bit = 0, 63 do
    if bitmap >> bit & 1 == 1 then names[#names + 1] = hcp.wait_reason_name(bit) or ("#" .. bit) end
  end
  return #names > 0 and table.concat(names, ",") or "-"
end

print(string.format("hcpsim tour: %d threads on 1 CPU, Windows-like dispatcher, quantum 600000 cycles", #jobs))
print("HwCounters[0..4] = instructions, cycles, branches, branch-misses, l1d-misses (KeSetHardwareCounterConfiguration)")
print("")
print(string.format("%-8s %-8s %12s %12s %9s %9s %7s %6s %9s %7s  %s", "thread", "kernel", "instructions",
                    "predicted", "branches", "predicted", "mispred", "l1d", "cycles", "cswitch",
                    "wait reasons since enable"))
for _, r in ipairs(results) do
  local hw = r.pd.HwCounters
  print(string.format("%-8s %-8s %12d %12d %9d %9d %7d %6d %9d %7d  %s", r.name, r.kernel, hw[0].Value, r.ins,
                      hw[2].Value, r.br, hw[3].Value, hw[4].Value, hw[1].Value, r.pd.ContextSwitchCount,
                      reasons(r.pd.WaitReasonBitMap)))
end
print("")
local cpu = m:cpus()[1]
local same = true
for _, r in ipairs(results) do same = same and r.pd.CycleTime == r.pd.HwCounters[1].Value end
print(string.format("CycleTime = cycles for every thread: %s (no kernel entry between Enable and Read;", tostring(same)))
print("  clock interrupts are kernel work, excluded from both)")
print(string.format("CPU 0: %d cycles = busy %d + interrupts %d (%d ticks) + idle %d", cpu.time, cpu.busy,
                    cpu.interrupt, cpu.ticks, cpu.idle))
