-- HCP-SPEC §9 "Behaviour for bad input": the matrix rows that no other test
-- checked fully (the audit of every row is the comment block at the top of
-- edge_cases.lua).  Each row runs in both semantics (none of these rows
-- differs between them; running both shows it), each test is named "§9: ..."
-- with a BADINPUT-... clause, and every HCP call made here is wrapped so that
-- the last error is checked to stay unchanged (the §9 row "GetLastError after
-- any HCP call", edge case 38).
--
-- Where Windows leaves the result undefined (a NULL or bad PERFORMANCE_DATA
-- pointer, a Read with a freed or garbage handle or from another thread, a
-- NULL PerformanceDataHandle pointer), the simulator's choice is the one
-- api/README.md states ("Simulator-defined"); those tests say
-- "simulator-defined" in their names and carry SIMDEF-... clauses.
--
-- Expected values: error codes from HCP-SPEC §5 and §9; spin(n) = 4 + 2n
-- instructions, one cycle each with cost = "unit" (API calls cost nothing).
--
-- `hcpsim run conformance/edge_matrix.lua slow` also exhausts the OS heap
-- (149,797 threads, about 10 s; skipped otherwise).
local hcp = require "hcpsim"
-- Threads here exit with profiling enabled on purpose (Windows lets them; the documentation
-- forbids it): that warning is expected, any other ends the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("exited with profiling enabled", 1, true), w) end)
local tap = require "hcpsim.tap"

local DISP = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING
local HW = hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS
local FLAG = hcp.THREAD_PROFILING_FLAG_DISPATCH
local CUR = -2
local POISON = 0xDEADBEEF
local SEMS = { "documented", "observed" }
local SLOW = arg and arg[1] == "slow"

local testlib = require "hcpsim.testlib"
local sentinel, untouched = testlib.sentinel, testlib.same_pd

-- PERFORMANCE_DATA bytes: a valid header and 0xEE everywhere else.
local function pd_bytes() return string.pack("<I2B", 288, 1) .. string.rep("\xEE", 285) end

-- HCP calls through `h` keep a list of those that changed the last error.
local function checker(t)
  local changed, calls = {}, 0
  local function call(name, ...)
    t:SetLastError(POISON)
    local r = table.pack(t[name](t, ...))
    calls = calls + 1
    if t:GetLastError() ~= POISON then changed[#changed + 1] = name end
    return table.unpack(r, 1, r.n)
  end
  local function guest(addr, name, ...) -- the same through the call gate (guest code)
    t:SetLastError(POISON)
    local r = t:run(addr, ...)
    calls = calls + 1
    if t:GetLastError() ~= POISON then changed[#changed + 1] = name .. " (guest)" end
    return r
  end
  local function report(label)
    tap.clause("HCP-LAST-ERROR-UNCHANGED")
    tap.is(table.concat(changed, ", "), "", "§9: " .. label .. ": GetLastError unchanged after each of the "
           .. calls .. " HCP calls (edge 38)")
  end
  return call, guest, report
end

for _, sem in ipairs(SEMS) do
  local S = sem .. ": "
  local m = hcp.machine { semantics = sem, pmc = { "instructions" }, cost = "unit" }
  assert(m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 } } == hcp.STATUS_SUCCESS)
  local k = m:load "kernels"
  local imp = m:imports()
  local E = m:event {}
  local MX = m:mutex {}
  local SEM = m:semaphore { initial = 0, max = 1 }
  local e1, e2 = m:event { manual = false }, m:event { manual = false }
  local ha -- A's profiling handle
  local a_reads = {}
  local exited_handle

  local X = m:thread { name = "X", body = function(t)
    exited_handle = select(2, t:EnableThreadProfiling(CUR, FLAG, 1)) -- exits without Disable
  end }

  -- A: profiled, waits twice; its data is read by B in between.
  local A = m:thread { name = "A", body = function(t)
    local call, _, report = checker(t)
    ha = select(2, call("EnableThreadProfiling", CUR, FLAG, 1))
    t:run(k.spin, 10) -- 24 instructions
    t:WaitForSingleObject(e1, hcp.INFINITE)
    t:WaitForSingleObject(e2, hcp.INFINITE)
    local _, pd = call("ReadThreadProfilingData", ha, DISP | HW)
    a_reads.final = pd
    call("DisableThreadProfiling", ha)
    report(S .. "thread A")
  end }

  -- P: Enable with a NULL PerformanceDataHandle pointer; Q: with a read-only one.
  local code = m:code(pd_bytes()) -- read-only memory holding a valid PERFORMANCE_DATA header
  local P = m:thread { name = "P", body = function(t)
    local _, guest, report = checker(t)
    tap.clause("SIMDEF-ENABLE-NULL-OUT")
    tap.is(guest(imp.EnableThreadProfiling, "EnableThreadProfiling", CUR, 0, 0, 0), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "Enable(&handle = NULL) from guest code -> ERROR_NOACCESS (simulator-defined; Windows faults)")
    tap.is(select(2, t:QueryThreadProfiling(CUR)), true,
           "§9: " .. S .. "and profiling stays enabled, as Windows enables before it writes (simulator-defined)")
    local rc, h = t:EnableThreadProfiling(CUR, 0, 0)
    tap.ok(rc == hcp.ERROR_WMI_ALREADY_ENABLED and h == nil, "§9: " .. S .. "a later Enable -> 4206 (simulator-defined)")
    report(S .. "thread P")
  end }
  local Q = m:thread { name = "Q", body = function(t)
    local _, guest, report = checker(t)
    tap.clause("SIMDEF-ENABLE-NULL-OUT")
    tap.is(guest(imp.EnableThreadProfiling, "EnableThreadProfiling", CUR, FLAG, 1, code), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "Enable(&handle on a read-only page) -> ERROR_NOACCESS (simulator-defined)")
    tap.is(select(2, t:QueryThreadProfiling(CUR)), true, "§9: " .. S .. "profiling stays enabled (simulator-defined)")
    tap.is(m:read(code, 288), pd_bytes(), "§9: " .. S .. "nothing was written there (simulator-defined)")
    report(S .. "thread Q")
  end }

  m:thread { name = "B", body = function(t)
    local call, guest, report = checker(t)
    local cur = CUR

    ---- Enable --------------------------------------------------------------------------------
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

    ---- Read ------------------------------------------------------------------------------------
    local _, mine = call("EnableThreadProfiling", cur, FLAG, 1)

    tap.clause("SIMDEF-READ-BAD-BUFFER")
    tap.is(guest(imp.ReadThreadProfilingData, "ReadThreadProfilingData", mine, DISP, 0), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "Read into NULL -> ERROR_NOACCESS (simulator-defined; Windows faults)")
    tap.is(guest(imp.ReadThreadProfilingData, "ReadThreadProfilingData", mine, DISP, code), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "Read into a read-only PERFORMANCE_DATA -> ERROR_NOACCESS (simulator-defined)")
    tap.is(m:read(code, 288), pd_bytes(), "§9: " .. S .. "which keeps its bytes")
    local page = m:alloc(4096) -- an unmapped guard page follows it
    local edge = page + 4096 - 144
    m:write(edge, pd_bytes():sub(1, 144))
    tap.is(guest(imp.ReadThreadProfilingData, "ReadThreadProfilingData", mine, DISP | HW, edge), hcp.ERROR_NOACCESS,
           "§9: " .. S .. "a PERFORMANCE_DATA running into an unmapped page -> ERROR_NOACCESS (simulator-defined)")
    tap.is(m:read(edge, 144), pd_bytes():sub(1, 144), "§9: " .. S .. "and its mapped half is not written (simulator-defined)")
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
      tap.ok(untouched(out, want), "§9: " .. S .. "  nothing written (simulator-defined)")
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

    ---- Query -----------------------------------------------------------------------------------
    tap.clause("HCP-QUERY-BAD-HANDLE")
    local byte = m:alloc(16)
    for _, c in ipairs { { closed, "a closed handle" }, { 0x4321, "a garbage handle" }, { 0, "NULL" },
                         { -1, "the process pseudo-handle" }, { E, "an event" }, { MX, "a mutex" } } do
      m:write(byte, "\xA5")
      tap.is(guest(imp.QueryThreadProfiling, "QueryThreadProfiling", c[1], byte), hcp.ERROR_INVALID_HANDLE,
             "§9: " .. S .. "Query with " .. c[2] .. " -> 6")
      tap.is(m:read(byte, 1), "\xA5", "§9: " .. S .. "  the output byte is not written")
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
    report(S .. "thread B")
  end }
  m:run()

  tap.clause("SIMDEF-READ-OTHER-THREAD")
  tap.is(a_reads.final.ContextSwitchCount, 2, "§9: " .. S .. "A's own read afterwards: 2 switch-ins")
  tap.is(a_reads.final.WaitReasonBitMap, 1 << hcp.UserRequest,
         "§9: " .. S .. "the bit of its second wait only: B's read cleared the first (simulator-defined)")
end

-- KeSetHardwareCounterConfiguration with an unreadable (NULL) array: the kernel
-- would raise; api/README.md "Simulator-defined": STATUS_ACCESS_VIOLATION.
-- The checks HCP-SPEC §4.1 makes before touching the array come first:
-- Count > 16, and (observed, §11.6) any non-empty configuration.
for _, sem in ipairs(SEMS) do
  local S = sem .. ": "
  local m = hcp.machine { semantics = sem }
  tap.clause("SIMDEF-KESET-BAD-ARRAY")
  tap.is(m:KeSetHardwareCounterConfiguration({}, 3), hcp.STATUS_ACCESS_VIOLATION,
         "§4.1: " .. S .. "KeSet(NULL, 3) -> STATUS_ACCESS_VIOLATION (simulator-defined)")
  tap.is(m:KeSetHardwareCounterConfiguration({}, 17), hcp.STATUS_INVALID_PARAMETER,
         "§4.1: " .. S .. "KeSet(NULL, 17) -> STATUS_INVALID_PARAMETER: Count is checked before the array")
  tap.is(m:KeSetHardwareCounterConfiguration({}, 0), hcp.STATUS_SUCCESS, "§4.1: " .. S .. "KeSet(NULL, 0) succeeds")
  tap.is(select(3, m:KeQueryHardwareCounterConfiguration(16)), 0, "§4.1: " .. S .. "the failed calls configured nothing")
  assert(m:KeSetHardwareCounterConfiguration { { Index = 1 } } == hcp.STATUS_SUCCESS)
  tap.is(m:KeSetHardwareCounterConfiguration({}, 1),
         sem == "observed" and hcp.STATUS_WMI_ALREADY_ENABLED or hcp.STATUS_ACCESS_VIOLATION,
         "§4.1: " .. S .. (sem == "observed" and "configured: ALREADY_ENABLED before the array is read"
                                             or "configured: the array is read to compare indices -> ACCESS_VIOLATION (simulator-defined)"))
  local _, l = m:KeQueryHardwareCounterConfiguration(16)
  tap.ok(#l == 1 and l[1].Index == 1, "§4.1: " .. S .. "the configuration is unchanged")
end

-- §9 "Enable, heap or pool exhausted -> ERROR_NOT_ENOUGH_MEMORY (8)".  Each
-- Enable takes a 448-byte profiling block (HCP-SPEC §3.3) from the OS heap; a
-- thread that exits without Disable leaks its block (HCP-SPEC §2.2).  With the
-- machine option os_heap = 4096 the heap holds floor(4096 / 448) = 9 blocks,
-- so the 10th such thread finds it full; the whole 64 MiB heap holds
-- 67,108,864 / 448 = 149,796 (`hcpsim run conformance/edge_matrix.lua slow`
-- checks that too, about 10 s).  Disable frees a block for the next Enable.
tap.clause("HCP-ENABLE-NO-MEMORY")
local function exhaust(opts, limit, label)
  local m = hcp.machine(opts)
  local ok, first_fail, fail_rc, fail_h, fail_query, fail_gle = 0, nil, nil, nil, nil, nil
  m:thread { name = "spawner", body = function()
    for i = 1, limit + 1 do
      m:thread { name = "leak", priority = 9, body = function(t)
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
  m:thread { name = "after", priority = 1, body = function(t) -- runs last: every leak thread has exited
    local rc = t:EnableThreadProfiling(CUR, 0, 0)
    again = rc
  end }
  m:run()
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
  local m = hcp.machine { cost = "unit", os_heap = 4096 }
  local rcs = {}
  m:thread { name = "reuse", body = function(t)
    for i = 1, 20 do
      local rc, h = t:EnableThreadProfiling(CUR, 0, 0)
      rcs[#rcs + 1] = rc
      if rc == 0 then t:DisableThreadProfiling(h) end
    end
  end }
  m:run()
  local all0 = true
  for _, rc in ipairs(rcs) do all0 = all0 and rc == 0 end
  tap.ok(#rcs == 20 and all0, "§9: os_heap 4096: 20 Enable/Disable pairs in one thread all succeed (Disable frees the block)")
end
if SLOW then
  exhaust({ cost = "unit", max_threads = 200000 }, 149796, "the default 64 MiB heap")
else
  tap.skip("the default 64 MiB heap takes 149,797 threads (about 10 s): run `hcpsim run conformance/edge_matrix.lua slow`",
           "§9: heap exhaustion of the default 64 MiB heap -> 8")
end

tap.done_testing()
