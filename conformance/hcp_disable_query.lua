-- DisableThreadProfiling and QueryThreadProfiling (HCP-SPEC §2.2, §2.3, §9;
-- edge cases 5, 32-35, 37, 39).
local hcp = require "hcpsim"
-- Threads here exit with profiling enabled on purpose (Windows lets them; the documentation
-- forbids it): that warning is expected, any other ends the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("exited with profiling enabled", 1, true), w) end)
local tap = require "hcpsim.tap"

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
tap.done_testing()
