-- EnableThreadProfiling: validation order and error codes (HCP-SPEC §2.1, §9;
-- edge cases 4, 7-14, 36, 38).  Expected codes come from the spec's tables.
-- The home of the HCP-ENABLE- and SIMDEF-ENABLE- clauses (README.md "Where a test goes"):
--   1. one thread through every rule (below);
--   2. the edge cases that need a machine of their own (7, 8, 10, 11, 14, 36), on every HCP
--      profile, in both semantics where HCP-SPEC §11 makes them differ;
--   3. the §9 bad-input rows of Enable in both semantics (none differs; running both shows
--      it), every HCP call wrapped so that the last error is checked to stay unchanged (edge
--      38), and the simulator-defined result of an unwritable PerformanceDataHandle pointer
--      (api/README.md "Simulator-defined": tests named "simulator-defined", SIMDEF-...);
--   4. the heap running out of profiling blocks (ERROR_NOT_ENOUGH_MEMORY).
-- `hcpsim run conformance/hcp_enable.lua slow` also exhausts the default 64 MiB OS heap
-- (149,797 threads, about 10 s; skipped otherwise).
--
-- Expected values: spin(n) retires spin0 + 2n instructions (4 on x64, 5 on x86, 3 on ARM64:
-- testlib.ISA) and 2 + n branches (scenarios/kernels/README.md); with cost = "unit" a cycle is
-- an instruction and API calls cost nothing; error codes from HCP-SPEC §5 and §9.
local hcp = require "hcpsim"
-- Threads here exit with profiling enabled on purpose (Windows lets them; the documentation
-- forbids it): that warning is expected, any other ends the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("exited with profiling enabled", 1, true), w) end)
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local DISP = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING
local HW = hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS
local FLAG = hcp.THREAD_PROFILING_FLAG_DISPATCH
local CUR = -2
local SEMS = { "documented", "observed" }
local POISON = testlib.POISON
local SLOW = arg and arg[1] == "slow"
local sentinel = testlib.sentinel

------------------------------------------------------------------------------
-- 1. One thread through every rule.
------------------------------------------------------------------------------

local m = hcp.machine { cost = "unit" }
local k = m:load "kernels"
local b -- a second, live thread

m:thread { name = "A", body = function(t)
  local cur = t:GetCurrentThread()
  t:SetLastError(0xDEADBEEF)

  tap.clause("HCP-ENABLE-CURRENT-OK")
  local rc, ph = t:EnableThreadProfiling(cur, 0, 0)
  tap.is(rc, hcp.ERROR_SUCCESS, "Enable(current, 0, 0) succeeds")
  tap.ok(ph ~= nil and ph ~= 0, "and writes a non-NULL handle")
  local qrc, on = t:QueryThreadProfiling(cur)
  tap.is(qrc, 0, "Query succeeds")
  tap.is(on, true, "Query reports enabled")

  tap.clause("HCP-ENABLE-TWICE")
  local rc2, ph2 = t:EnableThreadProfiling(cur, 0, 0)
  tap.is(rc2, hcp.ERROR_WMI_ALREADY_ENABLED, "a second Enable returns 4206")
  tap.is(ph2, nil, "and does not write the out-parameter")
  local rrc = t:ReadThreadProfilingData(ph, 0)
  tap.is(rrc, 0, "the first handle still reads")
  tap.is(t:DisableThreadProfiling(ph), 0, "and still disables")

  tap.clause("HCP-ENABLE-FLAGS")
  for _, flags in ipairs { 2, 0x80000000, 0xFFFFFFFF } do
    local r, h = t:EnableThreadProfiling(cur, flags, 0)
    tap.is(r, hcp.ERROR_INVALID_PARAMETER, string.format("Flags 0x%X -> 87", flags))
    tap.is(h, nil, string.format("Flags 0x%X: out-parameter untouched", flags))
  end
  tap.is(select(2, t:QueryThreadProfiling(cur)), false, "failed Enables leave profiling off")

  tap.clause("HCP-ENABLE-MASK")
  for _, mask in ipairs { 0x10000, 0x8000000000000000, 0x100000000 } do
    tap.is((t:EnableThreadProfiling(cur, 0, mask)), hcp.ERROR_INVALID_PARAMETER,
           string.format("mask %s (a bit >= 16) -> 87", hcp.hex(mask)))
  end
  local r, h = t:EnableThreadProfiling(cur, 1, 0xFFFF)
  tap.is(r, 0, "mask 0xFFFF (16 counters) is accepted")
  tap.is(t:DisableThreadProfiling(h), 0, "and disabled again")

  tap.clause("HCP-ENABLE-ORDER")
  tap.is((t:EnableThreadProfiling(0x12345678, 2, 0)), 87, "bad flags are checked before the handle")
  tap.is((t:EnableThreadProfiling(0x12345678, 0, 0x10000)), 87, "a bad mask is checked before the handle")
  tap.is((t:EnableThreadProfiling(b.handle, 2, 0)), 87, "bad flags are checked before the current-thread rule")

  tap.clause("HCP-ENABLE-OTHER-THREAD")
  tap.is(b.state, "Ready", "thread B is alive")
  local ro, ho = t:EnableThreadProfiling(b.handle, 0, 0)
  tap.is(ro, hcp.ERROR_NOT_SUPPORTED, "Enable with another thread's handle -> 50")
  tap.is(ho, nil, "out-parameter untouched")
  tap.is(select(2, t:QueryThreadProfiling(b.handle)), false, "thread B stays unprofiled")

  tap.clause("HCP-ENABLE-BAD-HANDLE")
  tap.is((t:EnableThreadProfiling(0, 0, 0)), hcp.ERROR_INVALID_HANDLE, "NULL handle -> 6")
  tap.is((t:EnableThreadProfiling(0x1235, 0, 0)), hcp.ERROR_INVALID_HANDLE, "garbage handle -> 6")
  tap.is((t:EnableThreadProfiling(-1, 0, 0)), hcp.ERROR_INVALID_HANDLE, "the process pseudo-handle -> 6")
  local own = t:OpenThread(hcp.THREAD_ALL_ACCESS, false, t:GetCurrentThreadId())
  tap.ok(own ~= nil, "OpenThread on the current thread")
  tap.ok(t:CloseHandle(own), "CloseHandle")
  tap.is((t:EnableThreadProfiling(own, 0, 0)), hcp.ERROR_INVALID_HANDLE, "a closed handle -> 6")
  local again = t:OpenThread(hcp.THREAD_ALL_ACCESS, false, t:GetCurrentThreadId())
  tap.isnt(again, own, "a new handle in the same slot has a new value")
  tap.is((t:EnableThreadProfiling(own, 0, 0)), hcp.ERROR_INVALID_HANDLE, "the stale value still -> 6")
  t:CloseHandle(again)

  tap.clause("HCP-ENABLE-ACCESS")
  local q = t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, t:GetCurrentThreadId())
  tap.is((t:EnableThreadProfiling(q, 0, 0)), hcp.ERROR_ACCESS_DENIED,
         "a handle without THREAD_SET_INFORMATION -> 5")
  local s = t:OpenThread(hcp.THREAD_SET_INFORMATION, false, t:GetCurrentThreadId())
  local rs, hs = t:EnableThreadProfiling(s, 0, 0)
  tap.is(rs, 0, "a handle with THREAD_SET_INFORMATION succeeds")
  tap.is(t:DisableThreadProfiling(hs), 0, "disabled")
  t:CloseHandle(q)
  t:CloseHandle(s)

  tap.clause("HCP-ENABLE-NO-COUNTERS")
  local r0, h0 = t:EnableThreadProfiling(cur, 0, 0)
  tap.is(r0, 0, "Enable(0, 0)")
  local _, pd1 = t:ReadThreadProfilingData(h0, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
  t:run(k.spin, 10)
  local _, pd2 = t:ReadThreadProfilingData(h0, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
  tap.is(pd1.CycleTime, 0, "CycleTime right after Enable: no guest work yet")
  tap.is(pd2.CycleTime - pd1.CycleTime, 4 + 2 * 10, "CycleTime grows by spin(10)'s 24 cycles")

  tap.clause("HCP-ENABLE-RESTART")
  tap.is(t:DisableThreadProfiling(h0), 0, "Disable")
  local r3, h3 = t:EnableThreadProfiling(cur, 1, 0)
  tap.is(r3, 0, "Enable after Disable succeeds")
  local _, pd3 = t:ReadThreadProfilingData(h3, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
  tap.is(pd3.CycleTime, 0, "CycleTime restarts")
  tap.is(pd3.ContextSwitchCount, 0, "ContextSwitchCount restarts")
  t:DisableThreadProfiling(h3)

  tap.clause("HCP-LAST-ERROR-UNCHANGED")
  tap.is(t:GetLastError(), 0xDEADBEEF, "no HCP call touched the last error")
end }

b = m:thread { name = "B", body = function(t)
  tap.clause("HCP-ENABLE-PER-THREAD")
  local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0)
  tap.is(rc, 0, "thread B enables itself")
  tap.is(t:DisableThreadProfiling(ph), 0, "and disables")
end }

m:run()

-- Enable with the dispatch flag and an empty mask, in both semantics (the start of every
-- read in hcp_read.lua).
tap.clause("HCP-ENABLE-CURRENT-OK")
for _, sem in ipairs(SEMS) do
  local m1 = hcp.machine { semantics = sem, pmc = { "instructions", "cycles", "branches" }, cost = "unit" }
  m1:thread { name = "reader-" .. sem, body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), FLAG, 0)
    tap.is(rc, 0, sem .. ": Enable(dispatch, mask 0)")
    t:DisableThreadProfiling(ph)
  end }
  m1:run()
end

------------------------------------------------------------------------------
-- 2. Edge cases on every HCP profile.
------------------------------------------------------------------------------
testlib.each_platform(testlib.HCP_PROFILES, "edges 7, 8, 10, 11, 14, 36", function(platform)
  local P = platform .. ": "
  local spin = testlib.spin_instructions(platform)

  -- edges 7, 8: Enable checks Flags and the mask in ntdll, before its system
  -- call (HCP-SPEC §2.1 steps 1-2; step 5 enters the kernel), so a call they
  -- reject enters no kernel and costs no api_call cycles (pmu_model/README.md:
  -- only calls that enter the kernel cost them).  api_call = 700; each
  -- QueryThreadCycleTime charges its own entry before it reads.
  do
    local m2 = hcp.machine { platform = platform, cost = { table = "unit", api_call = 700 } }
    local other = m2:thread { name = "other", body = function() end }
    m2:thread { name = "ntdll-checks", priority = 9, body = function(t)
      tap.clause("HCP-ENABLE-CHECKED-IN-USER-MODE")
      local function cycles() return select(2, t:QueryThreadCycleTime(CUR)) end
      local q0 = cycles()
      tap.is((t:EnableThreadProfiling(CUR, 2, 0)), 87, "edge 7: " .. P .. "Flags 2 -> 87")
      tap.is((t:EnableThreadProfiling(CUR, 0, 0x10000)), 87, "edge 8: " .. P .. "mask 0x10000 -> 87")
      local q1 = cycles()
      tap.is(q1 - q0, 700, "edge 7, 8: " .. P .. "the two rejected Enables charged no kernel entry (only the query's 700)")
      tap.is((t:EnableThreadProfiling(other.handle, 0, 0)), 50, "edge 10: " .. P .. "another thread -> 50")
      local q2 = cycles()
      tap.is(q2 - q1, 700 + 700, "edge 10: " .. P .. "that one was refused in the kernel: its entry (700) is charged")
      local _, ph = t:EnableThreadProfiling(CUR, 0, 0)
      tap.is(cycles() - q2, 700 + 700, "edge 4: " .. P .. "a successful Enable enters the kernel: 700")
      t:DisableThreadProfiling(ph)
    end }
    m2:run()
  end

  -- edge 11: handles to non-thread objects (event, mutex, semaphore) -> 6.
  do
    local m2 = hcp.machine { platform = platform }
    local objs = { { "an event", m2:event {} }, { "a mutex", m2:mutex {} },
                   { "a semaphore", m2:semaphore { initial = 0, max = 1 } } }
    m2:thread { name = "objects", body = function(t)
      tap.clause("HCP-ENABLE-BAD-HANDLE")
      for _, o in ipairs(objs) do
        local rc, h = t:EnableThreadProfiling(o[2], 0, 0)
        tap.is(rc, hcp.ERROR_INVALID_HANDLE, "edge 11: " .. P .. "Enable with " .. o[1] .. " handle -> 6")
        tap.is(h, nil, "edge 11: " .. P .. o[1] .. ": out-parameter untouched")
      end
      tap.is(select(2, t:QueryThreadProfiling(CUR)), false, "edge 11: " .. P .. "profiling stays off")
    end }
    m2:run()
  end

  -- edge 14: Enable(Flags 0, mask 0) keeps cycle time only.  Read with Flags 0:
  -- observed writes a non-decreasing CycleTime; documented writes nothing, and
  -- the DISPATCHING read (which documented semantics needs for CycleTime)
  -- gives the non-decreasing value.
  for _, sem in ipairs(SEMS) do
    local m2 = hcp.machine { platform = platform, semantics = sem, cost = "unit" }
    local k = m2:load "kernels"
    m2:thread { name = "cycles-only", body = function(t)
      tap.clause("HCP-ENABLE-NO-COUNTERS")
      local S = sem .. ": "
      local rc, ph = t:EnableThreadProfiling(CUR, 0, 0)
      tap.is(rc, 0, "edge 14: " .. P .. S .. "Enable(0, 0) succeeds")
      tap.is(select(2, t:QueryThreadProfiling(CUR)), true, "edge 14: " .. P .. S .. "Query reports TRUE")
      local r1, a = t:ReadThreadProfilingData(ph, 0, sentinel())
      t:run(k.spin, 10)
      local r2, b = t:ReadThreadProfilingData(ph, 0, sentinel())
      t:run(k.spin, 0)
      local r3, c = t:ReadThreadProfilingData(ph, 0, sentinel())
      tap.ok(r1 == 0 and r2 == 0 and r3 == 0, "edge 14: " .. P .. S .. "Read(Flags 0) succeeds each time")
      if sem == "observed" then
        tap.is(a.CycleTime, 0, "edge 14: " .. P .. "observed: Read(0) right after Enable: CycleTime 0")
        tap.is(b.CycleTime, spin(10), "edge 14: " .. P .. "observed: after spin(10): " .. spin(10))
        tap.is(c.CycleTime, spin(10) + spin(0),
               "edge 14: " .. P .. "observed: after spin(0) more: " .. spin(10) + spin(0) .. " (non-decreasing)")
      else
        tap.ok(a.CycleTime == 0x3333333333333333 and b.CycleTime == 0x3333333333333333
               and c.CycleTime == 0x3333333333333333, "edge 14: " .. P .. "documented: Read(0) leaves CycleTime as set")
        local _, d = t:ReadThreadProfilingData(ph, DISP)
        tap.is(d.CycleTime, spin(10) + spin(0),
               "edge 14: " .. P .. "documented: the DISPATCHING read gives CycleTime " .. spin(10) + spin(0))
      end
      tap.is(t:DisableThreadProfiling(ph), 0, "edge 14: " .. P .. S .. "Disable")
    end }
    m2:run()
  end

  -- edge 36: Enable -> Disable -> Enable restarts every count, after a real
  -- switch, real cycles and real counter values were counted the first time.
  do
    local m2 = hcp.machine { platform = platform, pmc = { "instructions" }, cost = "unit" }
    assert(m2:KeSetHardwareCounterConfiguration { { Index = 0 } } == hcp.STATUS_SUCCESS)
    local k = m2:load "kernels"
    m2:thread { name = "restart", body = function(t)
      tap.clause("HCP-ENABLE-RESTART")
      local _, h1 = t:EnableThreadProfiling(CUR, FLAG, 1)
      t:run(k.spin, 100)
      t:Sleep(1)
      local _, a = t:ReadThreadProfilingData(h1, DISP | HW)
      tap.ok(a.ContextSwitchCount == 1 and a.CycleTime == spin(100) and a.HwCounters[0].Value == spin(100),
             "edge 36: " .. P .. "first enable: 1 switch, CycleTime = instructions = spin(100) = " .. spin(100))
      tap.is(t:DisableThreadProfiling(h1), 0, "edge 36: " .. P .. "Disable")
      local rc, h2 = t:EnableThreadProfiling(CUR, FLAG, 1)
      tap.is(rc, 0, "edge 36: " .. P .. "Enable again succeeds")
      local _, b = t:ReadThreadProfilingData(h2, DISP | HW)
      tap.is(b.ContextSwitchCount, 0, "edge 36: " .. P .. "ContextSwitchCount back to 0")
      tap.is(b.WaitReasonBitMap, 0, "edge 36: " .. P .. "no wait reason carried over")
      tap.is(b.CycleTime, 0, "edge 36: " .. P .. "CycleTime back to 0")
      tap.is(b.HwCounters[0].Value, 0, "edge 36: " .. P .. "the counter back to 0")
      t:run(k.spin, 1)
      local _, c = t:ReadThreadProfilingData(h2, DISP | HW)
      tap.ok(c.CycleTime == spin(1) and c.HwCounters[0].Value == spin(1),
             "edge 36: " .. P .. "then counts spin(1) only: " .. spin(1))
      t:DisableThreadProfiling(h2)

      -- HCP-SPEC §2.1 step 4: every Enable zeroes its 448-byte block before it
      -- writes Size 0x1C0, Version 1 and the mask.  The heap hands a freed block
      -- out again (last in, first out: sim/README.md), so scribble over the freed
      -- block (a use after free) and enable again.
      tap.clause("HCP-ENABLE-BLOCK-INIT")
      m2:write(h2, string.rep("\x5A", 448))
      local _, h3 = t:EnableThreadProfiling(CUR, 0, 0x3)
      tap.is(h3, h2, "edge 36: " .. P .. "the freed block is handed out again")
      tap.is(m2:read(h3, 448), "\xC0\x01\x01\x00" .. string.rep("\0", 28) .. string.pack("<I8", 0x3) .. string.rep("\0", 408),
             "edge 36: " .. P .. "re-enabled block = zeros, Size 0x1C0, Version 1, mask @32 (HCP-SPEC §2.1 step 4)")
      t:DisableThreadProfiling(h3)
    end }
    m2:run()
  end
end)

------------------------------------------------------------------------------
-- 3. §9 bad input, both semantics.  X enables and exits without Disable; A is a
-- live thread (it waits until B is done); P enables through a NULL
-- PerformanceDataHandle pointer, Q through a read-only one; B tries every bad
-- Enable.  P, Q and B check the last error after each HCP call.
------------------------------------------------------------------------------
for _, sem in ipairs(SEMS) do
  local S = sem .. ": "
  local m3 = hcp.machine { semantics = sem, pmc = { "instructions" }, cost = "unit" }
  assert(m3:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 } } == hcp.STATUS_SUCCESS)
  local imp = m3:imports()
  local E = m3:event {}
  local MX = m3:mutex {}
  local SEM = m3:semaphore { initial = 0, max = 1 }
  local done = m3:event {}

  local X = m3:thread { name = "X", body = function(t)
    t:EnableThreadProfiling(CUR, FLAG, 1) -- exits without Disable
  end }
  local A = m3:thread { name = "A", body = function(t) t:WaitForSingleObject(done, hcp.INFINITE) end }

  -- P: Enable with a NULL PerformanceDataHandle pointer; Q: with a read-only one.
  local code = m3:code(testlib.pd_image()) -- read-only memory holding a valid PERFORMANCE_DATA header
  m3:thread { name = "P", body = function(t)
    local _, guest, report = testlib.last_error_checker(t)
    tap.clause("SIMDEF-ENABLE-NULL-OUT")
    tap.is(guest(imp.EnableThreadProfiling, "EnableThreadProfiling", CUR, 0, 0, 0), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "Enable(&handle = NULL) from guest code -> ERROR_NOACCESS (simulator-defined; Windows faults)")
    tap.is(select(2, t:QueryThreadProfiling(CUR)), true,
           "§9: " .. S .. "and profiling stays enabled, as Windows enables before it writes (simulator-defined)")
    local rc, h = t:EnableThreadProfiling(CUR, 0, 0)
    tap.ok(rc == hcp.ERROR_WMI_ALREADY_ENABLED and h == nil, "§9: " .. S .. "a later Enable -> 4206 (simulator-defined)")
    report(S .. "thread P")
  end }
  m3:thread { name = "Q", body = function(t)
    local _, guest, report = testlib.last_error_checker(t)
    tap.clause("SIMDEF-ENABLE-NULL-OUT")
    tap.is(guest(imp.EnableThreadProfiling, "EnableThreadProfiling", CUR, FLAG, 1, code), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "Enable(&handle on a read-only page) -> ERROR_NOACCESS (simulator-defined)")
    tap.is(select(2, t:QueryThreadProfiling(CUR)), true, "§9: " .. S .. "profiling stays enabled (simulator-defined)")
    tap.is(m3:read(code, 288), testlib.pd_image(), "§9: " .. S .. "nothing was written there (simulator-defined)")
    report(S .. "thread Q")
  end }

  m3:thread { name = "B", body = function(t)
    local call, _, report = testlib.last_error_checker(t)
    local cur = CUR

    tap.clause("HCP-ENABLE-OTHER-THREAD")
    local rc, h = call("EnableThreadProfiling", A.handle, 0, 0)
    tap.is(rc, hcp.ERROR_NOT_SUPPORTED, "§9: " .. S .. "Enable with another live thread's handle -> 50")
    tap.is(h, nil, "§9: " .. S .. "out-parameter untouched")
    local aq = t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, A.id)
    rc, h = call("EnableThreadProfiling", aq, 0, 0)
    tap.is(rc, hcp.ERROR_ACCESS_DENIED,
           "§9: " .. S .. "another thread's handle without THREAD_SET_INFORMATION -> 5 (access before the current-thread rule)")
    tap.is(h, nil, "§9: " .. S .. "out-parameter untouched")
    rc = call("EnableThreadProfiling", X.handle, 0, 0)
    tap.is(rc, hcp.ERROR_NOT_SUPPORTED, "§9: " .. S .. "an exited thread's handle -> 50 (not the calling thread)")

    tap.clause("HCP-ENABLE-ACCESS")
    local own = t:OpenThread(hcp.THREAD_ALL_ACCESS & ~hcp.THREAD_SET_INFORMATION, false, t:GetCurrentThreadId())
    rc, h = call("EnableThreadProfiling", own, 0, 0)
    tap.is(rc, hcp.ERROR_ACCESS_DENIED, "§9: " .. S .. "own thread, every right but THREAD_SET_INFORMATION -> 5")
    tap.is(h, nil, "§9: " .. S .. "out-parameter untouched")
    tap.is(select(2, t:QueryThreadProfiling(cur)), false, "§9: " .. S .. "profiling stays off")

    tap.clause("HCP-ENABLE-BAD-HANDLE")
    local closed = t:OpenThread(hcp.THREAD_ALL_ACCESS, false, t:GetCurrentThreadId())
    t:CloseHandle(closed)
    for _, c in ipairs { { closed, "a closed handle" }, { 0x4321, "a garbage handle" }, { 0, "NULL" },
                         { -1, "the process pseudo-handle" }, { E, "an event" }, { MX, "a mutex" },
                         { SEM, "a semaphore" }, { closed | (1 << 40), "a value above 32 bits" } } do
      rc, h = call("EnableThreadProfiling", c[1], 0, 0)
      tap.ok(rc == hcp.ERROR_INVALID_HANDLE and h == nil, "§9: " .. S .. "Enable with " .. c[2] .. " -> 6, out-parameter untouched")
    end

    tap.clause("HCP-ENABLE-ORDER")
    for _, c in ipairs { { E, 2, 0, "flags 2 on an event handle" }, { A.handle, 0x80000000, 0, "flags on another thread" },
                         { 0x4321, 2, 0x10000, "bad flags and mask on a garbage handle" },
                         { aq, 4, 0, "bad flags with a handle lacking access" } } do
      rc, h = call("EnableThreadProfiling", c[1], c[2], c[3])
      tap.ok(rc == hcp.ERROR_INVALID_PARAMETER and h == nil, "§9: " .. S .. c[4] .. " -> 87 (Flags checked first)")
    end
    for _, c in ipairs { { 0x4321, 1 << 16, "bit 16 on a garbage handle" }, { E, 1 << 63, "bit 63 on an event" },
                         { A.handle, 1 << 20, "bit 20 on another thread" }, { aq, 0xFFFF0000, "0xFFFF0000 lacking access" } } do
      rc, h = call("EnableThreadProfiling", c[1], 0, c[2])
      tap.ok(rc == hcp.ERROR_INVALID_PARAMETER and h == nil, "§9: " .. S .. "mask " .. c[3] .. " -> 87 (mask second)")
    end
    tap.is(select(2, t:QueryThreadProfiling(cur)), false, "§9: " .. S .. "after all of them profiling is still off")
    report(S .. "thread B")
    t:SetEvent(done)
  end }
  m3:run()
end

------------------------------------------------------------------------------
-- 4. §9 "Enable, heap or pool exhausted -> ERROR_NOT_ENOUGH_MEMORY (8)".  Each
-- Enable takes a 448-byte profiling block (HCP-SPEC §3.3) from the OS heap; a
-- thread that exits without Disable leaks its block (HCP-SPEC §2.2).  With the
-- machine option os_heap = 4096 the heap holds floor(4096 / 448) = 9 blocks,
-- so the 10th such thread finds it full; the whole 64 MiB heap holds
-- 67,108,864 / 448 = 149,796 (`hcpsim run conformance/hcp_enable.lua slow`
-- checks that too, about 10 s).  Disable frees a block for the next Enable.
------------------------------------------------------------------------------
tap.clause("HCP-ENABLE-NO-MEMORY")
local function exhaust(opts, limit, label)
  local m4 = hcp.machine(opts)
  local ok, first_fail, fail_rc, fail_h, fail_query, fail_gle = 0, nil, nil, nil, nil, nil
  m4:thread { name = "spawner", body = function()
    for i = 1, limit + 1 do
      m4:thread { name = "leak", priority = 9, body = function(t)
        t:SetLastError(POISON)
        local rc, h = t:EnableThreadProfiling(CUR, 0, 0)
        if rc == 0 then
          ok = ok + 1
        elseif not first_fail then
          first_fail, fail_rc, fail_h = i, rc, h
          fail_query = select(2, t:QueryThreadProfiling(CUR))
          fail_gle = t:GetLastError()
        end
      end }
    end
  end }
  local again
  m4:thread { name = "after", priority = 1, body = function(t) -- runs last: every leak thread has exited
    local rc = t:EnableThreadProfiling(CUR, 0, 0)
    again = rc
  end }
  m4:run()
  tap.is(ok, limit, "§9: " .. label .. ": " .. limit .. " threads enable and exit without Disable, leaking their blocks")
  tap.is(first_fail, limit + 1, "§9: " .. label .. ": the next Enable fails")
  tap.is(fail_rc, hcp.ERROR_NOT_ENOUGH_MEMORY, "§9: " .. label .. ": with ERROR_NOT_ENOUGH_MEMORY (8)")
  tap.is(fail_h, nil, "§9: " .. label .. ": the out-parameter is untouched")
  tap.is(fail_query, false, "§9: " .. label .. ": and the thread is not profiling")
  tap.is(fail_gle, POISON, "§9: " .. label .. ": the last error is unchanged")
  tap.is(again, hcp.ERROR_NOT_ENOUGH_MEMORY, "§9: " .. label .. ": leaked blocks stay leaked: a later Enable fails too")
end
exhaust({ cost = "unit", os_heap = 4096 }, 9, "os_heap 4096")
do -- a Disabled block is reused: 9 enable/disable pairs then 9 leaks still fit
  local m4 = hcp.machine { cost = "unit", os_heap = 4096 }
  local rcs = {}
  m4:thread { name = "reuse", body = function(t)
    for _ = 1, 20 do
      local rc, h = t:EnableThreadProfiling(CUR, 0, 0)
      rcs[#rcs + 1] = rc
      if rc == 0 then t:DisableThreadProfiling(h) end
    end
  end }
  m4:run()
  local all0 = true
  for _, rc in ipairs(rcs) do all0 = all0 and rc == 0 end
  tap.ok(#rcs == 20 and all0, "§9: os_heap 4096: 20 Enable/Disable pairs in one thread all succeed (Disable frees the block)")
end
if SLOW then
  exhaust({ cost = "unit", max_threads = 200000 }, 149796, "the default 64 MiB heap")
else
  tap.skip("the default 64 MiB heap takes 149,797 threads (about 10 s): run `hcpsim run conformance/hcp_enable.lua slow`",
           "§9: heap exhaustion of the default 64 MiB heap -> 8")
end

tap.done_testing()
