-- EnableThreadProfiling: validation order and error codes (HCP-SPEC §2.1, §9;
-- edge cases 4, 7-14, 36, 38).  Expected codes come from the spec's tables.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

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
tap.done_testing()
