-- DisableThreadProfiling and QueryThreadProfiling (HCP-SPEC §2.2, §2.3, §9;
-- edge cases 5, 6, 32-35, 37-39).
-- The home of the HCP-DISABLE-, HCP-QUERY- and HCP-EXIT- clauses (README.md "Where a test
-- goes"):
--   1. two threads through the rules of Disable and Query (below), and a double Disable;
--   2. the edge cases that need a machine of their own (6, 37, 39) on every HCP profile;
--   3. the §9 bad-input rows of Query in both semantics (none differs), every HCP call wrapped
--      so that the last error is checked to stay unchanged (edge 38), and the kernel records
--      of threads that exited after an Enable through a bad PerformanceDataHandle pointer.
-- Error codes from HCP-SPEC §5 and §9.
local hcp = require "hcpsim"
-- Threads here exit with profiling enabled on purpose (Windows lets them; the documentation
-- forbids it): that warning is expected, any other ends the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("exited with profiling enabled", 1, true), w) end)
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local FLAG = hcp.THREAD_PROFILING_FLAG_DISPATCH
local CUR = -2
local SEMS = { "documented", "observed" }

------------------------------------------------------------------------------
-- 1. Disable and Query, one machine.
------------------------------------------------------------------------------

local m = hcp.machine { tick = 1000 } -- 600000-cycle quantum: A is preempted inside spin
local k = m:load "kernels"
local a_handle, b, gone

gone = m:thread { name = "exits-enabled", body = function(t)
  local rc = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0)
  tap.clause("HCP-EXIT-WITHOUT-DISABLE")
  tap.is(rc, 0, "a thread enables profiling and exits without Disable")
end }

m:thread { name = "A", body = function(t)
  local cur = t:GetCurrentThread()
  t:SetLastError(0xDEADBEEF)

  tap.clause("HCP-EXIT-WITHOUT-DISABLE")
  tap.is(gone.state, "Terminated", "that thread has exited")
  local qrc, on = t:QueryThreadProfiling(gone.handle)
  tap.is(qrc, 0, "Query on the exited thread's handle succeeds")
  tap.is(on, false, "and reports FALSE: the kernel record went with the thread")

  tap.clause("HCP-QUERY-STATE")
  tap.is(select(2, t:QueryThreadProfiling(cur)), false, "Query before Enable: FALSE")
  local _, ph = t:EnableThreadProfiling(cur, 1, 0)
  a_handle = ph
  tap.is(select(2, t:QueryThreadProfiling(cur)), true, "after Enable: TRUE")

  tap.clause("HCP-DISABLE-WRONG-POINTER")
  local other = m:alloc(448)
  tap.is(t:DisableThreadProfiling(other), hcp.ERROR_INVALID_PARAMETER,
         "Disable with another writable, aligned 448-byte block -> 87")
  tap.is(select(2, t:QueryThreadProfiling(cur)), true, "profiling stays enabled")

  tap.clause("HCP-DISABLE-NOACCESS")
  tap.is(t:DisableThreadProfiling(0), hcp.ERROR_NOACCESS, "Disable(NULL) -> 998")
  tap.is(t:DisableThreadProfiling(ph + 1), hcp.ERROR_NOACCESS, "Disable(misaligned) -> 998")
  tap.is(t:DisableThreadProfiling(0x7000), hcp.ERROR_NOACCESS, "Disable(unmapped) -> 998")
  local code = m:code("\xc3")
  tap.is(t:DisableThreadProfiling(code), hcp.ERROR_NOACCESS, "Disable(read-only page) -> 998")
  tap.is(select(2, t:QueryThreadProfiling(cur)), true, "still enabled")

  tap.clause("HCP-QUERY-OTHER-THREAD")
  local q = t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, b.id)
  local r1, on1 = t:QueryThreadProfiling(q)
  tap.is(r1, 0, "Query on another thread with THREAD_QUERY_INFORMATION succeeds")
  tap.is(on1, false, "and reports that thread's state (not profiling)")
  local lim = t:OpenThread(hcp.THREAD_QUERY_LIMITED_INFORMATION, false, b.id)
  tap.is((t:QueryThreadProfiling(lim)), hcp.ERROR_ACCESS_DENIED, "with only the LIMITED right -> 5")
  tap.is((t:QueryThreadProfiling(0x4321)), hcp.ERROR_INVALID_HANDLE, "Query with a garbage handle -> 6")
  t:CloseHandle(q)
  t:CloseHandle(lim)

  -- A is preempted in here (2000004 cycles > one quantum); B runs meanwhile.
  t:run(k.spin, 1000000)
  tap.clause("HCP-DISABLE-OTHER-THREAD")
  tap.is(b.state, "Terminated", "B ran while A was preempted")
  tap.is(select(2, t:QueryThreadProfiling(cur)), true, "A is still enabled after B's attempts")
  tap.is(t:DisableThreadProfiling(ph), 0, "A disables its own profiling")
  tap.clause("HCP-LAST-ERROR-UNCHANGED")
  tap.is(t:GetLastError(), 0xDEADBEEF, "no HCP call touched the last error")
end }

b = m:thread { name = "B", body = function(t)
  tap.clause("HCP-DISABLE-OTHER-THREAD")
  tap.is(t:DisableThreadProfiling(a_handle), hcp.ERROR_WMI_ALREADY_DISABLED,
         "B (not profiling) disabling A's handle -> 4212")
  local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0)
  tap.is(t:DisableThreadProfiling(a_handle), hcp.ERROR_INVALID_PARAMETER,
         "B (profiling with its own handle) disabling A's handle -> 87")
  tap.is(t:DisableThreadProfiling(ph), 0, "B disables its own")
end }

m:run()

local m2 = hcp.machine {}
m2:thread { name = "twice", body = function(t)
  tap.clause("HCP-DISABLE-TWICE")
  local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0)
  tap.is(t:DisableThreadProfiling(ph), 0, "Disable with the Enable handle succeeds")
  tap.is(t:DisableThreadProfiling(ph), hcp.ERROR_WMI_ALREADY_DISABLED, "a second Disable -> 4212")
  tap.is(select(2, t:QueryThreadProfiling(t:GetCurrentThread())), false, "Query after Disable: FALSE")
end }
m2:run()

------------------------------------------------------------------------------
-- 2. Edge cases on every HCP profile.
------------------------------------------------------------------------------
testlib.each_platform(testlib.HCP_PROFILES, "edges 6, 37, 39", function(platform)
  local P = platform .. ": "

  -- edge 6: QueryThreadProfiling writes exactly one byte, 0 or 1.
  do
    local m3 = hcp.machine { platform = platform }
    local imp = m3:imports()
    m3:thread { name = "query", body = function(t)
      tap.clause("HCP-QUERY-ONE-BYTE")
      local buf = m3:alloc(16)
      local function query()
        m3:write(buf, string.rep("\xA5", 16))
        local rc = t:run(imp.QueryThreadProfiling, CUR, buf + 5)
        return rc, m3:read(buf, 16)
      end
      local function only(b) return string.rep("\xA5", 5) .. b .. string.rep("\xA5", 10) end
      local rc, bytes = query()
      tap.is(rc, 0, "edge 6: " .. P .. "Query before Enable succeeds")
      tap.is(bytes, only("\0"), "edge 6: " .. P .. "writes the one byte 0 (FALSE); the bytes around it are unchanged")
      local _, ph = t:EnableThreadProfiling(CUR, 0, 0)
      rc, bytes = query()
      tap.is(rc, 0, "edge 6: " .. P .. "Query while enabled succeeds")
      tap.is(bytes, only("\1"), "edge 6: " .. P .. "writes the one byte 1 (TRUE), nothing else")
      t:DisableThreadProfiling(ph)
      rc, bytes = query()
      tap.is(bytes, only("\0"), "edge 6: " .. P .. "after Disable: the one byte 0 again")
    end }
    m3:run()
  end

  -- edge 37: a thread that exits without Disable: the kernel record goes
  -- (Query FALSE, covered above), the 448-byte user block leaks: it keeps
  -- its header (Size 0x1C0, Version 1, the mask at offset 32; HCP-SPEC §2.1
  -- step 4, §3.3) and is never handed out again.
  do
    local m3 = hcp.machine { platform = platform }
    local hx
    local X = m3:thread { name = "X", body = function(t) hx = select(2, t:EnableThreadProfiling(CUR, 0, 0x5)) end }
    m3:thread { name = "Y", body = function(t)
      tap.clause("HCP-EXIT-WITHOUT-DISABLE")
      tap.is(X.state, "Terminated", "edge 37: " .. P .. "X exited with profiling enabled")
      tap.is(select(2, t:QueryThreadProfiling(X.handle)), false, "edge 37: " .. P .. "Query on X: FALSE")
      tap.is(m3:read(hx, 4), "\xC0\x01\x01\x00", "edge 37: " .. P .. "X's block still holds Size 0x1C0, Version 1")
      tap.is(m3:read(hx + 32, 8), string.pack("<I8", 0x5), "edge 37: " .. P .. "and its mask at offset 32")
      local seen = {}
      for _ = 1, 3 do
        local rc, hy = t:EnableThreadProfiling(CUR, 0, 0)
        seen[#seen + 1] = rc == 0 and hy ~= hx
        t:DisableThreadProfiling(hy)
      end
      tap.ok(seen[1] and seen[2] and seen[3], "edge 37: " .. P .. "three Enable/Disable rounds never reuse X's block")
      tap.is(m3:read(hx, 4), "\xC0\x01\x01\x00", "edge 37: " .. P .. "which stays as it was")
    end }
    m3:run()
  end

  -- edge 39: Query on another thread that is profiling reports TRUE, then
  -- FALSE after that thread disabled.  A enables, waits; B queries; B yields to
  -- A (same priority), A disables and waits again; B queries again.
  do
    local m3 = hcp.machine { platform = platform }
    local e1, e2 = m3:event { manual = false }, m3:event { manual = false }
    local A = m3:thread { name = "A", body = function(t)
      local _, ph = t:EnableThreadProfiling(CUR, FLAG, 0)
      t:WaitForSingleObject(e1, hcp.INFINITE)
      t:DisableThreadProfiling(ph)
      t:WaitForSingleObject(e2, hcp.INFINITE)
    end }
    m3:thread { name = "B", body = function(t)
      tap.clause("HCP-QUERY-OTHER-THREAD")
      local q = t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, A.id)
      local rc, on = t:QueryThreadProfiling(q)
      tap.is(rc, 0, "edge 39: " .. P .. "Query on profiling thread A with THREAD_QUERY_INFORMATION succeeds")
      tap.is(on, true, "edge 39: " .. P .. "and reports A's state: TRUE")
      local lim = t:OpenThread(hcp.THREAD_QUERY_LIMITED_INFORMATION, false, A.id)
      tap.is((t:QueryThreadProfiling(lim)), hcp.ERROR_ACCESS_DENIED, "edge 39: " .. P .. "LIMITED only -> 5")
      tap.is(select(2, t:QueryThreadProfiling(CUR)), false, "edge 39: " .. P .. "B itself: FALSE")
      t:SetEvent(e1)
      tap.is(t:SwitchToThread(), true, "edge 39: " .. P .. "B yields to A")
      tap.is(select(2, t:QueryThreadProfiling(q)), false, "edge 39: " .. P .. "after A disabled: FALSE")
      t:SetEvent(e2)
      t:CloseHandle(q)
      t:CloseHandle(lim)
    end }
    m3:run()
  end
end)

------------------------------------------------------------------------------
-- 3. §9 bad input, both semantics.  P enables through a NULL PerformanceDataHandle
-- pointer and Q through a read-only one (ERROR_NOACCESS with profiling enabled,
-- simulator-defined: hcp_enable.lua checks that), and both exit; B queries with
-- bad handles and bad output pointers and checks the last error after each call.
------------------------------------------------------------------------------
for _, sem in ipairs(SEMS) do
  local S = sem .. ": "
  local m3 = hcp.machine { semantics = sem, pmc = { "instructions" }, cost = "unit" }
  local imp = m3:imports()
  local E = m3:event {}
  local MX = m3:mutex {}
  local code = m3:code(testlib.pd_image()) -- read-only memory
  local P = m3:thread { name = "P", body = function(t)
    assert(t:run(imp.EnableThreadProfiling, CUR, 0, 0, 0) == hcp.ERROR_NOACCESS)
  end }
  local Q = m3:thread { name = "Q", body = function(t)
    assert(t:run(imp.EnableThreadProfiling, CUR, FLAG, 1, code) == hcp.ERROR_NOACCESS)
  end }

  m3:thread { name = "B", body = function(t)
    local _, guest, report = testlib.last_error_checker(t)
    local cur = CUR
    local closed = t:OpenThread(hcp.THREAD_ALL_ACCESS, false, t:GetCurrentThreadId())
    t:CloseHandle(closed)

    tap.clause("HCP-QUERY-BAD-HANDLE")
    local byte = m3:alloc(16)
    for _, c in ipairs { { closed, "a closed handle" }, { 0x4321, "a garbage handle" }, { 0, "NULL" },
                         { -1, "the process pseudo-handle" }, { E, "an event" }, { MX, "a mutex" } } do
      m3:write(byte, "\xA5")
      tap.is(guest(imp.QueryThreadProfiling, "QueryThreadProfiling", c[1], byte), hcp.ERROR_INVALID_HANDLE,
             "§9: " .. S .. "Query with " .. c[2] .. " -> 6")
      tap.is(m3:read(byte, 1), "\xA5", "§9: " .. S .. "  the output byte is not written")
    end
    tap.clause("HCP-QUERY-NULL")
    tap.is(guest(imp.QueryThreadProfiling, "QueryThreadProfiling", cur, 0), hcp.ERROR_NOACCESS, "§9: " .. S .. "Query(NULL) -> 998")
    tap.is(guest(imp.QueryThreadProfiling, "QueryThreadProfiling", cur, code), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "Query into read-only memory -> 998")
    tap.is(guest(imp.QueryThreadProfiling, "QueryThreadProfiling", 0x4321, 0), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "NULL output and a garbage handle -> 998: the output is probed first (api/README.md order)")

    tap.clause("HCP-EXIT-WITHOUT-DISABLE")
    tap.is(P.state, "Terminated", "§9: " .. S .. "P (enabled through a NULL pointer) has exited")
    tap.is(select(2, t:QueryThreadProfiling(P.handle)), false, "§9: " .. S .. "its kernel record went with it: Query FALSE")
    tap.is(select(2, t:QueryThreadProfiling(Q.handle)), false, "§9: " .. S .. "Q's too")
    report(S .. "thread B, Query")
  end }
  m3:run()
end

tap.done_testing()
