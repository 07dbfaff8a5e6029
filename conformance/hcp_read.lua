-- ReadThreadProfilingData: buffer validation, which fields each flag writes,
-- slot placement of configured counters, and exact counter values (HCP-SPEC
-- §2.4, §3.4, §11; edge cases 15-20, 22, 25-31).  Sentinels in the input
-- buffer show exactly which bytes a call wrote.  Counter values come from the
-- kernels' listings: spin(n) retires 4 + 2n instructions and 2 + n branches.
-- The home of the HCP-READ-, HCP-COUNT- and SIMDEF-READ- clauses (README.md "Where a test
-- goes"):
--   1. one thread per semantics through every rule (below);
--   2. the edge cases with counters configured (26, 28, 30) and RetryCount (31) on every HCP
--      profile, both semantics;
--   3. the §9 bad-input rows of Read, both semantics, the last error checked after every HCP
--      call; the simulator-defined results of api/README.md (a bad buffer, a bad handle, a
--      read of another thread: tests named "simulator-defined", SIMDEF-...);
--   4. the counts Read returns: exact counts of hand-assembled code and built-in kernels,
--      accumulation across reads, counting from Enable (HCP-COUNT-), and the configuration
--      element behind each slot (HCP-READ-CONFIG-ELEMENT).
local hcp = require "hcpsim"
-- KeSetHardwareCounterConfiguration is called here with indexes past the machine's PMCs on purpose
-- (Windows takes them; the documentation does not), and threads exit with profiling enabled
-- (Windows lets them; the documentation forbids it): those warnings are expected, any other ends
-- the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w)
  assert(w:find("KeSetHardwareCounterConfiguration", 1, true) or w:find("exited with profiling enabled", 1, true), w)
end)
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local DISP = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING
local HW = hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS
local FLAG = hcp.THREAD_PROFILING_FLAG_DISPATCH
local CUR = -2
local SEMS = { "documented", "observed" }

local sentinel, zeroed, same_slot = testlib.sentinel, testlib.zeroed, testlib.same_slot

local function check_untouched(got, want, except, name)
  local field = testlib.differs(got, want, except)
  tap.ok(field == nil, name .. (field and " (changed: " .. field .. ")" or ""))
end

------------------------------------------------------------------------------
-- 1. One thread per semantics through every rule.
------------------------------------------------------------------------------
for _, sem in ipairs { "documented", "observed" } do
  local m = hcp.machine { semantics = sem, pmc = { "instructions", "cycles", "branches" }, cost = "unit" }
  local k = m:load "kernels"
  local documented = sem == "documented"
  m:thread { name = "reader-" .. sem, body = function(t)
    local cur = t:GetCurrentThread()
    local rc, ph = t:EnableThreadProfiling(cur, hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
    assert(rc == 0, "Enable(dispatch, mask 0): " .. tostring(rc)) -- checked in hcp_enable.lua

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

------------------------------------------------------------------------------
-- 2. Edge cases on every HCP profile.
------------------------------------------------------------------------------
testlib.each_platform(testlib.HCP_PROFILES, "edges 26, 28, 30, 31", function(platform)
  local P = platform .. ": "
  local spin = testlib.spin_instructions(platform)

  -- edges 26, 28, 30 with counters configured, both semantics.
  for _, sem in ipairs(SEMS) do
    local m = hcp.machine { platform = platform, semantics = sem, pmc = { "instructions", "cycles", "branches" },
                            cost = "unit" }
    local k = m:load "kernels"
    local observed = sem == "observed"
    m:thread { name = "slots", body = function(t)
      local S = sem .. ": "
      tap.clause("HCP-READ-HW-MASK-ZERO")
      assert(m:KeSetHardwareCounterConfiguration { { Index = 0 }, { Index = 2 } } == hcp.STATUS_SUCCESS)
      local _, p0 = t:EnableThreadProfiling(CUR, 0, 0)
      t:run(k.spin, 3)
      local want = sentinel()
      local r, pd = t:ReadThreadProfilingData(p0, HW, want)
      tap.is(r, 0, "edge 26: " .. P .. S .. "HARDWARE_COUNTERS with mask 0 and 2 counters configured succeeds")
      tap.is(pd.HwCountersCount, 0, "edge 26: " .. P .. S .. "HwCountersCount 0 (not the configured 2)")
      tap.ok(testlib.same_slots(pd, want), "edge 26: " .. P .. S .. "HwCounters[] untouched")
      t:DisableThreadProfiling(p0)

      tap.clause("HCP-READ-UNCONFIGURED-ZERO")
      local _, p3 = t:EnableThreadProfiling(CUR, 0, 0x7) -- bit 2: no element 2
      t:run(k.spin, 5)
      r, pd = t:ReadThreadProfilingData(p3, HW, zeroed())
      tap.is(r, 0, "edge 30: " .. P .. S .. "mask 0x7 with 2 counters configured succeeds")
      tap.is(pd.HwCounters[0].Value, spin(5), "edge 30: " .. P .. S .. "slot 0 = PMC0 = instructions of spin(5)")
      tap.is(pd.HwCounters[1].Value, 7, "edge 30: " .. P .. S .. "slot 1 = PMC2 = branches of spin(5)")
      tap.ok(same_slot(pd, zeroed(), 2),
             "edge 30: " .. P .. S .. "the unconfigured slot 2 reads zero in a pre-zeroed buffer (neutral test)")
      tap.is(pd.HwCountersCount, 2, "edge 30: " .. P .. S .. "HwCountersCount 2 (both semantics agree here)")
      t:DisableThreadProfiling(p3)

      tap.clause("HCP-READ-HWCOUNTERSCOUNT")
      assert(m:KeSetHardwareCounterConfiguration({}, 0) == hcp.STATUS_SUCCESS)
      assert(m:KeSetHardwareCounterConfiguration { { Index = 0 }, { Index = 1 }, { Index = 2 }, { Index = 3 } } == 0)
      local _, p1 = t:EnableThreadProfiling(CUR, 0, 0x1)
      t:run(k.spin, 1)
      r, pd = t:ReadThreadProfilingData(p1, HW, sentinel())
      tap.is(pd.HwCounters[0].Value, spin(1),
             "edge 28: " .. P .. S .. "config of 4, mask 0x1: slot 0 = spin(1) = " .. spin(1) .. " instructions")
      tap.is(pd.HwCountersCount, observed and 4 or 1,
             "edge 28: " .. P .. S .. (observed and "HwCountersCount = 4 configured counters, not popcount(mask)"
                                                 or "HwCountersCount = 1 element holding data (documented)"))
      t:DisableThreadProfiling(p1)
      m:KeSetHardwareCounterConfiguration({}, 0)
    end }
    m:run()
  end

  -- edge 31: RetryCount is the seqlock loop's extra iterations (HCP-SPEC §2.4
  -- step 6).  t:inject_kernel_updates(n) makes the next read meet n kernel
  -- updates of the block (simulator-defined hook, api/README.md): RetryCount n,
  -- every other byte as in the same read without updates; the next read is 0
  -- again.  Two identical machines, one with the hook, read through the guest
  -- gate into poisoned buffers; documented semantics writes RetryCount only
  -- with DISPATCHING, observed always (§11).
  tap.clause("HCP-READ-RETRY-INJECTED")
  for _, sem in ipairs(SEMS) do
    local function run(inject)
      local m = hcp.machine { platform = platform, semantics = sem, pmc = { "instructions" }, cost = "unit" }
      assert(m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 } } == hcp.STATUS_SUCCESS)
      local imp, k = m:imports(), m:load "kernels"
      local out = {}
      m:thread { name = "retry", body = function(t)
        local a, b, c = m:alloc(288), m:alloc(288), m:alloc(288)
        for _, buf in ipairs { a, b, c } do m:write(buf, testlib.pd_image()) end
        local _, ph = t:EnableThreadProfiling(CUR, FLAG, 0x1)
        t:run(k.spin, 5)
        if inject then t:inject_kernel_updates(inject) end
        out.rc = t:run(imp.ReadThreadProfilingData, ph, DISP | HW, a)
        out.a = m:read(a, 288)
        out.rc2 = t:run(imp.ReadThreadProfilingData, ph, DISP | HW, b)
        out.b = m:read(b, 288)
        if inject then t:inject_kernel_updates(3) end
        out.rc3 = t:run(imp.ReadThreadProfilingData, ph, HW, c) -- no DISPATCHING
        out.c = m:read(c, 288)
        t:DisableThreadProfiling(ph)
      end }
      m:run()
      return out
    end
    local plain, hooked = run(nil), run(1)
    local PS = P .. sem .. ": "
    tap.ok(plain.rc == 0 and hooked.rc == 0 and hooked.rc2 == 0 and hooked.rc3 == 0,
           "edge 31: " .. PS .. "the reads succeed with and without injected updates")
    tap.is(string.unpack("<I4", plain.a, 25), 0, "edge 31: " .. PS .. "RetryCount 0 without concurrent kernel updates")
    tap.is(string.unpack("<I4", hooked.a, 25), 1, "edge 31: " .. PS .. "RetryCount 1 after one injected kernel update")
    tap.is(hooked.a:sub(1, 24) .. hooked.a:sub(29), plain.a:sub(1, 24) .. plain.a:sub(29),
           "edge 31: " .. PS .. "every other byte is what the read without updates wrote")
    tap.is(hooked.b, plain.b, "edge 31: " .. PS .. "the next read meets no update: RetryCount 0 again, same bytes")
    tap.is(string.unpack("<I4", hooked.c, 25), sem == "observed" and 3 or 0xEEEEEEEE,
           "edge 31: " .. PS .. "3 updates, read without DISPATCHING: RetryCount "
           .. (sem == "observed" and "3 (written regardless of Flags)" or "untouched (documented: only with DISPATCHING)"))
  end
end)

------------------------------------------------------------------------------
-- 3. §9 bad input, both semantics.  X enables and exits without Disable; A
-- enables, spins, waits twice (its data is read by B in between) and reads at
-- the end; B reads into bad buffers, with bad handles, and A's data.  A and B
-- check the last error after each HCP call.  spin(10) = 24 instructions, one
-- cycle each with cost = "unit" (API calls cost nothing).
------------------------------------------------------------------------------
for _, sem in ipairs(SEMS) do
  local S = sem .. ": "
  local m = hcp.machine { semantics = sem, pmc = { "instructions" }, cost = "unit" }
  assert(m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 } } == hcp.STATUS_SUCCESS)
  local k = m:load "kernels"
  local imp = m:imports()
  local e1, e2 = m:event { manual = false }, m:event { manual = false }
  local ha -- A's profiling handle
  local a_reads = {}
  local exited_handle

  m:thread { name = "X", body = function(t)
    exited_handle = select(2, t:EnableThreadProfiling(CUR, FLAG, 1)) -- exits without Disable
  end }

  m:thread { name = "A", body = function(t)
    local call, _, report = testlib.last_error_checker(t)
    ha = select(2, call("EnableThreadProfiling", CUR, FLAG, 1))
    t:run(k.spin, 10) -- 24 instructions
    t:WaitForSingleObject(e1, hcp.INFINITE)
    t:WaitForSingleObject(e2, hcp.INFINITE)
    local _, pd = call("ReadThreadProfilingData", ha, DISP | HW)
    a_reads.final = pd
    call("DisableThreadProfiling", ha)
    report(S .. "thread A")
  end }

  local code = m:code(testlib.pd_image()) -- read-only memory holding a valid PERFORMANCE_DATA header
  m:thread { name = "B", body = function(t)
    local call, guest, report = testlib.last_error_checker(t)
    local _, mine = call("EnableThreadProfiling", CUR, FLAG, 1)

    tap.clause("SIMDEF-READ-BAD-BUFFER")
    tap.is(guest(imp.ReadThreadProfilingData, "ReadThreadProfilingData", mine, DISP, 0), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "Read into NULL -> ERROR_NOACCESS (simulator-defined; Windows faults)")
    tap.is(guest(imp.ReadThreadProfilingData, "ReadThreadProfilingData", mine, DISP, code), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "Read into a read-only PERFORMANCE_DATA -> ERROR_NOACCESS (simulator-defined)")
    tap.is(m:read(code, 288), testlib.pd_image(), "§9: " .. S .. "which keeps its bytes")
    local page = m:alloc(4096) -- an unmapped guard page follows it
    local edge = page + 4096 - 144
    m:write(edge, testlib.pd_image():sub(1, 144))
    tap.is(guest(imp.ReadThreadProfilingData, "ReadThreadProfilingData", mine, DISP | HW, edge), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "a PERFORMANCE_DATA running into an unmapped page -> ERROR_NOACCESS (simulator-defined)")
    tap.is(m:read(edge, 144), testlib.pd_image():sub(1, 144), "§9: " .. S .. "and its mapped half is not written (simulator-defined)")
    tap.is(guest(imp.ReadThreadProfilingData, "ReadThreadProfilingData", 0x4321, 0xFF, 0), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "NULL buffer, bad flags, garbage handle -> 998: the buffer is checked first (simulator-defined)")

    tap.clause("SIMDEF-READ-BAD-HANDLE")
    tap.is((call("DisableThreadProfiling", mine)), 0, "§9: " .. S .. "B disables: its handle is freed")
    local ph_freed = mine
    for _, c in ipairs { { ph_freed, "a handle after Disable" }, { 0, "NULL" }, { 0x4321, "a garbage handle" },
                         { exited_handle, "the handle of a thread that exited without Disable" },
                         { ha + 8, "a pointer inside a live block" } } do
      local want = sentinel()
      local r, out = call("ReadThreadProfilingData", c[1], DISP | HW, want)
      tap.is(r, hcp.ERROR_INVALID_HANDLE, "§9: " .. S .. "Read with " .. c[2] .. " -> 6 (simulator-defined; Windows reads it unchecked)")
      tap.ok(testlib.same_pd(out, want), "§9: " .. S .. "  nothing written (simulator-defined)")
    end
    for _, c in ipairs { { { Size = 0, Version = 1 }, hcp.ERROR_INVALID_USER_BUFFER, "Size 0" },
                         { { Size = 288, Version = 0 }, hcp.ERROR_INVALID_PARAMETER, "Version 0" } } do
      tap.is((call("ReadThreadProfilingData", 0x4321, DISP, c[1])), c[2],
             "§9: " .. S .. "garbage handle with " .. c[3] .. " -> " .. c[2] .. ": the buffer is checked before the handle")
    end
    tap.is((call("ReadThreadProfilingData", 0x4321, 4)), hcp.ERROR_INVALID_PARAMETER,
           "§9: " .. S .. "garbage handle with Flags 4 -> 87: flags are checked before the handle")

    tap.clause("SIMDEF-READ-OTHER-THREAD")
    t:run(k.spin, 100) -- B's own work: must not show in A's data
    local want = sentinel()
    local r, pd = call("ReadThreadProfilingData", ha, DISP | HW, want)
    tap.is(r, 0, "§9: " .. S .. "B reads A's handle: success (simulator-defined: the profiled thread's data)")
    tap.is(pd.CycleTime, 24, "§9: " .. S .. "  A's CycleTime: spin(10) = 24, not B's")
    tap.is(pd.HwCounters[0].Value, 24, "§9: " .. S .. "  A's instructions")
    tap.is(pd.ContextSwitchCount, 0, "§9: " .. S .. "  A's ContextSwitchCount: not switched in since Enable")
    tap.is(pd.HwCountersCount, 1, "§9: " .. S .. "  HwCountersCount 1")
    t:SetEvent(e1)
    tap.is(t:SwitchToThread(), true, "§9: " .. S .. "B yields: A's wait returns, A waits again")
    r, pd = call("ReadThreadProfilingData", ha, DISP)
    tap.is(pd.ContextSwitchCount, 1, "§9: " .. S .. "  B sees A's switch-in (simulator-defined)")
    tap.is(pd.WaitReasonBitMap, 1 << hcp.UserRequest, "§9: " .. S .. "  with its wait reason, and clears it")
    t:SetEvent(e2)
    report(S .. "thread B, Read")
  end }
  m:run()

  tap.clause("SIMDEF-READ-OTHER-THREAD")
  tap.is(a_reads.final.ContextSwitchCount, 2, "§9: " .. S .. "A's own read afterwards: 2 switch-ins")
  tap.is(a_reads.final.WaitReasonBitMap, 1 << hcp.UserRequest,
         "§9: " .. S .. "the bit of its second wait only: B's read cleared the first (simulator-defined)")
end

------------------------------------------------------------------------------
-- 4. The counts Read returns (win10-x64, documented semantics: the counts do not
-- depend on it).  cost = "unit": API calls retire no guest instruction.  Every
-- count is the listing's: the kernels' formulas (scenarios/kernels/README.md,
-- a ret and a call count as branches) and the snippets assembled by hand below.
------------------------------------------------------------------------------
-- STRAIGHT(x) = (x + 7) * 3, no branch but its ret:
--   00: b8 07 00 00 00   mov eax, 7
--   05: 48 01 c8         add rax, rcx
--   08: 48 8d 04 40      lea rax, [rax + rax*2]
--   0c: c3               ret
-- 4 instructions, 1 branch.
local STRAIGHT = "\xb8\x07\x00\x00\x00\x48\x01\xc8\x48\x8d\x04\x40\xc3"
-- COUNT(n), n >= 1: counts n down, returns n:
--   00: 31 c0            xor eax, eax
--   02: 48 ff c0         inc rax          <- loop
--   05: 48 ff c9         dec rcx
--   08: 75 f8            jnz 02           (rel8 = 0x02 - 0x0a = -8)
--   0a: c3               ret
-- 2 + 3n instructions, n + 1 branches (n jnz, the ret).
local COUNT = "\x31\xc0\x48\xff\xc0\x48\xff\xc9\x75\xf8\xc3"

do
  local m = hcp.machine { pmc = { "instructions", "branches", "loads" }, cost = "unit" }
  assert(m:KeSetHardwareCounterConfiguration { { Index = 0 }, { Index = 1 } } == hcp.STATUS_SUCCESS)
  local k = m:load "kernels"
  local straight, count = m:code(STRAIGHT), m:code(COUNT)
  local words = m:alloc(8 * 6) -- 3, 4, 5, 6, 7, 8: three odd words
  m:write(words, string.pack("<i8i8i8i8i8i8", 3, 4, 5, 6, 7, 8))
  m:thread { name = "counts", body = function(t)
    -- One Enable per measurement: element 0 = PMC0 = instructions, element 1 = PMC1 = branches.
    local function measure(entry, ...)
      local _, ph = t:EnableThreadProfiling(CUR, 0, 0x3)
      local ret = t:run(entry, ...)
      local _, pd = t:ReadThreadProfilingData(ph, HW)
      t:DisableThreadProfiling(ph)
      return ret, pd.HwCounters[0].Value, pd.HwCounters[1].Value
    end

    tap.clause("HCP-COUNT-EXACT")
    for _, c in ipairs {
      { "straight-line code STRAIGHT(5)", straight, { 5 }, 36, 4, 1 },
      { "a loop COUNT(1)", count, { 1 }, 1, 5, 2 },
      { "a loop COUNT(1000)", count, { 1000 }, 1000, 3002, 1001 },
      { "spin(0)", k.spin, { 0 }, 0, 4, 2 },
      { "spin(777)", k.spin, { 777 }, 777, 4 + 2 * 777, 2 + 777 },
      { "calls(50): direct calls", k.calls, { 50 }, 50, 4 + 4 * 50, 2 + 3 * 50 },
      { "branchy(words, 6): data-dependent branches, 3 odd words", k.branchy, { words, 6 }, 3, 4 + 5 * 6 + 3, 2 + 2 * 6 },
      { "memwalk(words, 6)", k.memwalk, { words, 6 }, 33, 4 + 4 * 6, 2 + 6 },
    } do
      local ret, ins, br = measure(c[2], table.unpack(c[3]))
      tap.is(ret, c[4], c[1] .. " returns " .. c[4])
      tap.is(ins, c[5], c[1] .. ": " .. c[5] .. " instructions from its listing")
      tap.is(br, c[6], c[1] .. ": " .. c[6] .. (c[6] == 1 and " branch" or " branches"))
    end

    tap.clause("HCP-COUNT-ACCUMULATE")
    do
      local _, ph = t:EnableThreadProfiling(CUR, 0, 0x3)
      t:run(k.spin, 10)
      local _, a = t:ReadThreadProfilingData(ph, HW)
      t:run(k.spin, 20)
      local _, b = t:ReadThreadProfilingData(ph, HW)
      local _, c = t:ReadThreadProfilingData(ph, HW)
      t:run(count, 4)
      local _, d = t:ReadThreadProfilingData(ph, HW)
      t:DisableThreadProfiling(ph)
      tap.ok(a.HwCounters[0].Value == 24 and a.HwCounters[1].Value == 12, "after spin(10): 24 instructions, 12 branches")
      tap.is(b.HwCounters[0].Value, 24 + 44, "after spin(20) more: the first read's 24 + 44 instructions")
      tap.is(b.HwCounters[1].Value, 12 + 22, "and 12 + 22 branches")
      tap.ok(c.HwCounters[0].Value == b.HwCounters[0].Value and c.HwCounters[1].Value == b.HwCounters[1].Value,
             "a read with no code run in between returns the same values (reading counts nothing)")
      tap.is(d.HwCounters[0].Value, 24 + 44 + 14, "after COUNT(4): + 14 instructions")
      tap.is(d.HwCounters[1].Value, 12 + 22 + 5, "and + 5 branches")
    end

    tap.clause("HCP-COUNT-SINCE-ENABLE")
    do
      t:run(k.spin, 100) -- before Enable: not counted
      local _, ph = t:EnableThreadProfiling(CUR, 0, 0x3)
      local _, a = t:ReadThreadProfilingData(ph, HW)
      tap.ok(a.HwCounters[0].Value == 0 and a.HwCounters[1].Value == 0,
             "a read right after Enable: 0 instructions, 0 branches (spin(100) before it is not counted)")
      t:run(k.spin, 5)
      local _, b = t:ReadThreadProfilingData(ph, HW)
      tap.ok(b.HwCounters[0].Value == 14 and b.HwCounters[1].Value == 7, "then spin(5): 14 instructions, 7 branches")
      t:DisableThreadProfiling(ph)
      t:run(k.spin, 50) -- between Disable and the next Enable: not counted
      _, ph = t:EnableThreadProfiling(CUR, 0, 0x3)
      local _, c = t:ReadThreadProfilingData(ph, HW)
      tap.ok(c.HwCounters[0].Value == 0 and c.HwCounters[1].Value == 0,
             "after a re-enable: 0 again (neither spin(5) nor spin(50) is counted)")
      t:run(k.spin, 1)
      local _, d = t:ReadThreadProfilingData(ph, HW)
      tap.ok(d.HwCounters[0].Value == 6 and d.HwCounters[1].Value == 3, "then spin(1): 6 instructions, 3 branches")
      t:DisableThreadProfiling(ph)
    end

    -- Element i of the configuration names a PMC; slot i and mask bit i follow the element,
    -- not the PMC: elements 0, 1, 2 = PMC2 (loads), PMC0 (instructions), PMC1 (branches).
    -- spin(10): 24 instructions, 12 branches, 1 load (the ret's).
    tap.clause("HCP-READ-CONFIG-ELEMENT")
    assert(m:KeSetHardwareCounterConfiguration({}, 0) == hcp.STATUS_SUCCESS)
    tap.is(m:KeSetHardwareCounterConfiguration { { Index = 2 }, { Index = 0 }, { Index = 1 } }, hcp.STATUS_SUCCESS,
           "configure PMC2, PMC0, PMC1 in that order")
    do
      local _, ph = t:EnableThreadProfiling(CUR, 0, 0x7)
      t:run(k.spin, 10)
      local _, pd = t:ReadThreadProfilingData(ph, HW, sentinel())
      t:DisableThreadProfiling(ph)
      tap.is(pd.HwCounters[0].Value, 1, "mask 0x7: slot 0 = element 0 = PMC2 = loads: 1")
      tap.is(pd.HwCounters[1].Value, 24, "slot 1 = element 1 = PMC0 = instructions: 24")
      tap.is(pd.HwCounters[2].Value, 12, "slot 2 = element 2 = PMC1 = branches: 12")
      _, ph = t:EnableThreadProfiling(CUR, 0, 0x2)
      t:run(k.spin, 10)
      local want = sentinel()
      _, pd = t:ReadThreadProfilingData(ph, HW, want)
      t:DisableThreadProfiling(ph)
      tap.is(pd.HwCounters[1].Value, 24, "mask 0x2: slot 1 = element 1 = PMC0 = instructions: 24")
      tap.ok(same_slot(pd, want, 0) and same_slot(pd, want, 2), "slots 0 and 2 (bits not set) untouched")
    end
  end }
  m:run()
end

tap.done_testing()
