-- ReadThreadProfilingData: buffer validation, which fields each flag writes,
-- slot placement of configured counters, and exact counter values (HCP-SPEC
-- §2.4, §3.4, §11; edge cases 15-20, 22, 25-30).  Sentinels in the input
-- buffer show exactly which bytes a call wrote.  Counter values come from the
-- kernels' listings: spin(n) retires 4 + 2n instructions and 2 + n branches.
local hcp = require "hcpsim"
-- KeSetHardwareCounterConfiguration is called here with indexes past the machine's PMCs on purpose
-- (Windows takes them; the documentation does not): those warnings are expected, any other ends
-- the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w)
  assert(w:find("KeSetHardwareCounterConfiguration", 1, true), w)
end)
local tap = require "hcpsim.tap"

local DISP = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING
local HW = hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS

local sentinel = require("hcpsim.testlib").sentinel

local function same_slot(got, want, i)
  local a, b = got.HwCounters[i], want.HwCounters[i]
  return a.Type == b.Type and a.Reserved == b.Reserved and a.Value == b.Value
end

local function untouched(got, want, except)
  except = except or {}
  for _, f in ipairs { "Size", "Version", "HwCountersCount", "ContextSwitchCount", "WaitReasonBitMap",
                       "CycleTime", "RetryCount", "Reserved" } do
    if not except[f] and got[f] ~= want[f] then return false, f end
  end
  for i = 0, 15 do
    if not except[i] and not same_slot(got, want, i) then return false, "HwCounters[" .. i .. "]" end
  end
  return true
end

local function check_untouched(got, want, except, name)
  local ok, field = untouched(got, want, except)
  tap.ok(ok, name .. (ok and "" or " (changed: " .. field .. ")"))
end

for _, sem in ipairs { "documented", "observed" } do
  local m = hcp.machine { semantics = sem, pmc = { "instructions", "cycles", "branches" }, cost = "unit" }
  local k = m:load "kernels"
  local documented = sem == "documented"
  m:thread { name = "reader-" .. sem, body = function(t)
    local cur = t:GetCurrentThread()
    local rc, ph = t:EnableThreadProfiling(cur, hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
    tap.clause("HCP-ENABLE-CURRENT-OK")
    tap.is(rc, 0, sem .. ": Enable(dispatch, mask 0)")

    tap.clause("HCP-READ-SIZE-EXACT")
    for _, size in ipairs { 0, 287, 289, 448, 0xFFFF } do
      local pd = sentinel()
      pd.Size = size
      local r, out = t:ReadThreadProfilingData(ph, DISP, pd)
      tap.is(r, hcp.ERROR_INVALID_USER_BUFFER, sem .. ": Size " .. size .. " -> 1784")
      check_untouched(out, pd, nil, sem .. ": Size " .. size .. ": buffer untouched")
    end
    tap.is((t:ReadThreadProfilingData(ph, DISP, {})), 1784, sem .. ": a zeroed buffer -> 1784")

    tap.clause("HCP-READ-VERSION")
    for _, v in ipairs { 0, 2, 255 } do
      local pd = sentinel()
      pd.Version = v
      tap.is((t:ReadThreadProfilingData(ph, DISP, pd)), hcp.ERROR_INVALID_PARAMETER, sem .. ": Version " .. v .. " -> 87")
    end
    local both = sentinel()
    both.Size, both.Version = 100, 7
    tap.is((t:ReadThreadProfilingData(ph, DISP, both)), 1784, sem .. ": Size is checked before Version")

    tap.clause("HCP-READ-FLAGS")
    for _, f in ipairs { 4, 8, 0xFFFFFFFF } do
      local pd = sentinel()
      local r, out = t:ReadThreadProfilingData(ph, f, pd)
      tap.is(r, hcp.ERROR_INVALID_PARAMETER, string.format("%s: Flags 0x%X -> 87", sem, f))
      check_untouched(out, pd, nil, string.format("%s: Flags 0x%X: buffer untouched", sem, f))
    end
    local bad = sentinel()
    bad.Version = 0
    tap.is((t:ReadThreadProfilingData(ph, 4, bad)), 87, sem .. ": Version and Flags both bad -> 87")

    tap.clause("HCP-READ-FLAGS-ZERO")
    do
      local pd = sentinel()
      local r, out = t:ReadThreadProfilingData(ph, 0, pd)
      tap.is(r, 0, sem .. ": Flags 0 succeeds")
      if documented then
        check_untouched(out, pd, nil, "documented: Flags 0 writes nothing")
      else
        tap.is(out.WaitReasonBitMap, 0, "observed: Flags 0 zeroes WaitReasonBitMap")
        tap.is(out.CycleTime, 0, "observed: Flags 0 writes CycleTime (no work since Enable)")
        tap.is(out.RetryCount, 0, "observed: Flags 0 writes RetryCount = 0")
        check_untouched(out, pd, { WaitReasonBitMap = true, CycleTime = true, RetryCount = true },
                        "observed: Flags 0 leaves every other byte as the caller set it")
      end
    end

    tap.clause("HCP-READ-DISPATCH-FIELDS")
    do
      local pd = sentinel()
      local r, out = t:ReadThreadProfilingData(ph, DISP, pd)
      tap.is(r, 0, sem .. ": DISPATCHING succeeds")
      tap.is(out.ContextSwitchCount, 0, sem .. ": no switch since Enable")
      tap.is(out.WaitReasonBitMap, 0, sem .. ": no wait reason since Enable")
      tap.is(out.CycleTime, 0, sem .. ": no cycles since Enable")
      tap.is(out.RetryCount, 0, sem .. ": RetryCount 0 without concurrent updates")
      tap.is(out.Reserved, pd.Reserved, sem .. ": Reserved is never written")
      check_untouched(out, pd, { ContextSwitchCount = true, WaitReasonBitMap = true, CycleTime = true,
                                 RetryCount = true }, sem .. ": DISPATCHING does not touch the counters")
    end

    tap.clause("HCP-READ-HW-MASK-ZERO")
    do
      local pd = sentinel()
      local r, out = t:ReadThreadProfilingData(ph, HW, pd)
      tap.is(r, 0, sem .. ": HARDWARE_COUNTERS with mask 0 succeeds")
      tap.is(out.HwCountersCount, 0, sem .. ": HwCountersCount 0")
      check_untouched(out, pd, { HwCountersCount = true, WaitReasonBitMap = not documented,
                                 CycleTime = not documented, RetryCount = not documented },
                      sem .. ": HwCounters[] untouched")
    end
    tap.is(t:DisableThreadProfiling(ph), 0, sem .. ": Disable")

    tap.clause("HCP-READ-NOT-ENABLED-FLAGS")
    local _, ph0 = t:EnableThreadProfiling(cur, 0, 0)
    t:run(k.spin, 5)
    do
      local pd = sentinel()
      local r, out = t:ReadThreadProfilingData(ph0, DISP, pd)
      tap.is(r, 0, sem .. ": DISPATCHING when Enable had no dispatch flag succeeds")
      tap.is(out.ContextSwitchCount, 0, sem .. ": with ContextSwitchCount 0")
      tap.is(out.WaitReasonBitMap, 0, sem .. ": and WaitReasonBitMap 0")
      tap.is(out.CycleTime, 4 + 2 * 5, sem .. ": CycleTime is still kept (spin(5) = 14 cycles)")
    end
    t:DisableThreadProfiling(ph0)

    tap.clause("HCP-READ-SLOT-BY-INDEX")
    -- Four configured counters: element i is PMC Index i: 0 instructions, 1 cycles, 2 branches, 3 (no event).
    tap.is(m:KeSetHardwareCounterConfiguration { { Index = 0 }, { Index = 1 }, { Index = 2 }, { Index = 3 } },
           hcp.STATUS_SUCCESS, sem .. ": four counters configured")
    local _, p8 = t:EnableThreadProfiling(cur, 0, 0x8)
    do
      local pd = sentinel()
      local r, out = t:ReadThreadProfilingData(p8, HW, pd)
      tap.is(r, 0, sem .. ": read with mask 0x8")
      tap.is(out.HwCounters[3].Type, hcp.PMCCounter, sem .. ": HwCounters[3].Type = PMCCounter")
      tap.is(out.HwCounters[3].Reserved, 0, sem .. ": HwCounters[3].Reserved = 0")
      tap.is(out.HwCounters[3].Value, 0, sem .. ": PMC3 counts no event")
      tap.ok(same_slot(out, pd, 0) and same_slot(out, pd, 1) and same_slot(out, pd, 2),
             sem .. ": HwCounters[0..2] untouched (not compacted)")
      tap.is(out.HwCountersCount, documented and 1 or 4,
             sem .. (documented and ": HwCountersCount = elements holding data (1)"
                                 or ": HwCountersCount = configured counters (4)"))
    end
    t:DisableThreadProfiling(p8)

    tap.clause("HCP-READ-COUNTER-VALUES")
    t:run(k.spin, 1000) -- before Enable: must not count
    local _, p7 = t:EnableThreadProfiling(cur, 0, 0x7)
    t:run(k.spin, 12345)
    t:run(k.spin, 0)
    do
      local r, out = t:ReadThreadProfilingData(p7, HW, sentinel())
      tap.is(r, 0, sem .. ": read with mask 0x7")
      local ins, br = (4 + 2 * 12345) + 4, (2 + 12345) + 2
      tap.is(out.HwCounters[0].Value, ins, sem .. ": instructions since Enable = spin(12345) + spin(0)")
      tap.is(out.HwCounters[1].Value, ins, sem .. ": cycles since Enable (unit table: 1 per instruction)")
      tap.is(out.HwCounters[2].Value, br, sem .. ": branches since Enable")
      tap.is(out.HwCountersCount, documented and 3 or 4, sem .. ": HwCountersCount")
      local _, d = t:ReadThreadProfilingData(p7, DISP)
      tap.is(d.CycleTime, ins, sem .. ": CycleTime counts from Enable, not from thread start")
    end
    t:DisableThreadProfiling(p7)

    tap.clause("HCP-READ-UNCONFIGURED-ZERO")
    tap.is(m:KeSetHardwareCounterConfiguration({}, 0), 0, sem .. ": clear the configuration")
    tap.is(m:KeSetHardwareCounterConfiguration { { Index = 2 }, { Index = 0 } }, 0,
           sem .. ": configure branches, instructions")
    local _, p5 = t:EnableThreadProfiling(cur, 0, 0x5) -- bit 2: no counter configured
    t:run(k.spin, 3)
    do
      local pd = sentinel()
      local r, out = t:ReadThreadProfilingData(p5, HW, pd)
      tap.is(r, 0, sem .. ": read with a bit for an unconfigured counter")
      tap.is(out.HwCounters[0].Value, 2 + 3, sem .. ": slot 0 = PMC2 = branches of spin(3)")
      if documented then
        tap.ok(out.HwCounters[2].Type == 0 and out.HwCounters[2].Reserved == 0 and out.HwCounters[2].Value == 0,
               "documented: the unconfigured counter reads zero")
        tap.is(out.HwCountersCount, 1, "documented: one element holds data")
      else
        tap.ok(same_slot(out, pd, 2), "observed: the unconfigured counter's slot is untouched")
        tap.is(out.HwCountersCount, 2, "observed: HwCountersCount = 2 configured")
      end
      tap.ok(same_slot(out, pd, 1), sem .. ": slot 1 (bit not set) untouched")
    end
    t:DisableThreadProfiling(p5)

    tap.clause("HCP-READ-INDEX-LOW32")
    m:KeSetHardwareCounterConfiguration({}, 0)
    m:KeSetHardwareCounterConfiguration { { Index = 0x100000000 } } -- low 32 bits: PMC0
    local _, p1 = t:EnableThreadProfiling(cur, 0, 0x1)
    t:run(k.spin, 7)
    local _, o1 = t:ReadThreadProfilingData(p1, HW)
    tap.is(o1.HwCounters[0].Value, 4 + 2 * 7, sem .. ": Index 0x100000000 selects PMC0 (instructions)")
    t:DisableThreadProfiling(p1)
    m:KeSetHardwareCounterConfiguration({}, 0)

    tap.clause("SIMDEF-READ-BAD-HANDLE")
    tap.is((t:ReadThreadProfilingData(p1, DISP)), hcp.ERROR_INVALID_HANDLE,
           sem .. ": a disabled handle -> 6 (simulator-defined)")
    tap.is((t:ReadThreadProfilingData(0, DISP)), hcp.ERROR_INVALID_HANDLE, sem .. ": NULL handle -> 6 (simulator-defined)")
  end }
  m:run()
end
tap.done_testing()
