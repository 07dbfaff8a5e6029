-- The call gate (api/README.md "Call gate", sim/README.md "Call gate"): guest
-- code calls the Windows functions through import thunks (m:imports()), with
-- the Windows x64 convention, and reaches the very functions a Lua body's
-- binding calls, with structures in guest memory.  Expected values come from
-- the thunk rule (thunk k at 0x100000000 + 16k: mov eax, k; syscall; ret),
-- the formulas of profile_loop.S and spin.S, the cost table
-- (pmu_model/README.md), the scheduler rules (sim/README.md) and the
-- spec's error codes; each guest result is set beside the Lua body's result
-- for the same call.
local hcp = require "hcpsim"
-- Threads here exit with profiling enabled on purpose (Windows lets them; the documentation
-- forbids it): that warning is expected, any other ends the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("exited with profiling enabled", 1, true), w) end)
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local HW = hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS
local BOTH = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING | HW
local INVALID_SYSTEM_SERVICE = 0xC000001C
local GATE = 0x100000000
local MS = 3000000 -- cycles per millisecond at the default 3 GHz

-- The imports in thunk order (api/README.md "Call gate").
local NAMES = { "GetCurrentThread", "GetCurrentThreadId", "GetLastError", "SetLastError", "EnableThreadProfiling",
                "DisableThreadProfiling", "QueryThreadProfiling", "ReadThreadProfilingData", "QueryThreadCycleTime",
                "GetThreadTimes", "Sleep", "SwitchToThread", "SetEvent", "ResetEvent", "WaitForSingleObject",
                "WaitForMultipleObjects", "ReleaseMutex", "ReleaseSemaphore", "OpenThread", "CloseHandle",
                "GetExitCodeThread" }
local PROFILE_IMPORTS = { "GetCurrentThread", "EnableThreadProfiling", "ReadThreadProfilingData",
                          "DisableThreadProfiling" }

-- element 0 = PMC0 (instructions), 1 = PMC2 (branches), 2 = PMC1 (cycles)
local function machine(opts)
  opts = opts or {}
  opts.pmc = { "instructions", "cycles", "branches" }
  local m = hcp.machine(opts)
  assert(m:KeSetHardwareCounterConfiguration { { Index = 0 }, { Index = 2 }, { Index = 1 } } == hcp.STATUS_SUCCESS)
  return m
end

-- callx(fn, a, b, c): calls fn(a, b, c) through a register and returns its rax.
--   sub rsp, 0x28; mov rax, rcx; mov rcx, rdx; mov rdx, r8; mov r8, r9; call rax; add rsp, 0x28; ret
-- 8 instructions (2 branches: call, ret; 1 load: ret; 1 store: call), plus the callee's.
local CALLX = "\x48\x83\xec\x28\x48\x89\xc8\x48\x89\xd1\x4c\x89\xc2\x4d\x89\xc8\xff\xd0\x48\x83\xc4\x28\xc3"
-- sysc(): mov eax, 1; syscall; ret -- a thunk's shape, outside the gate page.
local SYSC = "\xb8\x01\x00\x00\x00\x0f\x05\xc3"

-- PERFORMANCE_DATA as bytes (HCP-SPEC §3.3) and as the table the Lua binding uses.
local PD_HEAD = "<I2BBI4I8I8I4I4"
local function pd_bytes(p)
  local parts = { string.pack(PD_HEAD, p.Size, p.Version, p.HwCountersCount, p.ContextSwitchCount, p.WaitReasonBitMap,
                              p.CycleTime, p.RetryCount, p.Reserved) }
  for i = 0, 15 do
    local e = p.HwCounters[i]
    parts[#parts + 1] = string.pack("<I4I4I8", e.Type, e.Reserved, e.Value)
  end
  return table.concat(parts)
end
local function pd_table(s)
  local p, pos = {}, nil
  p.Size, p.Version, p.HwCountersCount, p.ContextSwitchCount, p.WaitReasonBitMap, p.CycleTime, p.RetryCount,
    p.Reserved, pos = string.unpack(PD_HEAD, s)
  p.HwCounters = {}
  for i = 0, 15 do
    local e = {}
    e.Type, e.Reserved, e.Value, pos = string.unpack("<I4I4I8", s, pos)
    p.HwCounters[i] = e
  end
  return p
end
-- 288 bytes of 0xEE sentinels with the given Size and Version (Wine-style poisoning).
local function poisoned(size, version)
  return string.pack("<I2B", size, version) .. string.rep("\xEE", 285)
end
-- The poisoned buffer after a documented-semantics read with flags 3 of mask 0x7.
local function read_result(size_ok, ctxsw, bitmap, cycletime, v0, v1, v2)
  local p = pd_table(poisoned(288, 1))
  p.HwCountersCount, p.ContextSwitchCount, p.WaitReasonBitMap, p.CycleTime, p.RetryCount = 3, ctxsw, bitmap,
    cycletime, 0
  for i, v in ipairs { v0, v1, v2 } do p.HwCounters[i - 1] = { Type = hcp.PMCCounter, Reserved = 0, Value = v } end
  assert(size_ok)
  return pd_bytes(p)
end
local delta = testlib.delta

-- ---- the main machine: imports, counts, kernel work, arguments, errors ----------------------------------
local m = machine()
local imp = m:imports()
local k = m:load "kernels"
local callx = m:code(CALLX)
local sysc = m:code(SYSC)

tap.clause("SIM-GATE-IMPORTS")
do
  local n = 0
  for _ in pairs(imp) do n = n + 1 end
  tap.is(n, #NAMES, "m:imports() has " .. #NAMES .. " functions")
  for i, name in ipairs(NAMES) do
    tap.is(imp[name], GATE + 16 * (i - 1), name .. ": thunk " .. (i - 1) .. " at 0x100000000 + 16 x " .. (i - 1))
  end
  local tbl = m:import_table(PROFILE_IMPORTS)
  local want = {}
  for i, name in ipairs(PROFILE_IMPORTS) do want[i] = string.pack("<I8", imp[name]) end
  tap.is(m:read(tbl, 32), table.concat(want), "m:import_table writes the thunk addresses in the order given")
  local ok1, e1 = pcall(m.import_table, m, { "GetCurrentThread", "NtQuerySystemTime" })
  tap.ok(not ok1 and e1:find("unknown import 'NtQuerySystemTime'", 1, true), "an unknown import name is an error")
  local ok2 = pcall(m.import_table, m, {})
  tap.ok(not ok2, "an empty import list is an error")
  tap.is(machine():imports().EnableThreadProfiling, imp.EnableThreadProfiling, "every machine has the same addresses")
end

local ev = m:event {}
local leak_rc, leak_query
m:thread { name = "gate", body = function(t)
  local cur = t:GetCurrentThread()

  tap.clause("SIM-GATE-THUNK-COUNTS")
  do -- t:run of a thunk: exactly the thunk (mov eax, k; syscall; ret)
    local c0 = t:counters()
    local tid = t:run(imp.GetCurrentThreadId)
    local c1 = t:counters()
    tap.is(tid, t.id, "GetCurrentThreadId from guest code returns the thread id")
    tap.is(delta(c0, c1, "instructions"), 3, "a thunk retires 3 instructions: mov eax, k; syscall; ret")
    tap.is(delta(c0, c1, "branches"), 2, "2 branches: syscall and ret")
    tap.is(delta(c0, c1, "cond-branches"), 0, "no conditional branch")
    tap.is(delta(c0, c1, "loads"), 1, "1 load: ret")
    tap.is(delta(c0, c1, "stores"), 0, "no store")
    tap.is(delta(c0, c1, "cycles"), 1 + 25 + 2, "28 user cycles: mov 1 + system 25 + ret 2 (default table)")
    tap.is(delta(c0, c1, "branch-misses"), 0, "the ret is predicted by the return stack; syscall never misses")
  end
  do -- a call of an import from guest code: the caller's call plus the thunk
    local c0 = t:counters()
    local h = t:run(callx, imp.GetCurrentThread)
    local c1 = t:counters()
    tap.is(h, -2, "GetCurrentThread from guest code returns (HANDLE)-2 in all 64 bits")
    tap.is(delta(c0, c1, "instructions"), 8 + 3, "callx (8, its call included) + the thunk (3)")
    tap.is(delta(c0, c1, "branches"), 2 + 2, "call, ret + syscall, ret")
    tap.is(delta(c0, c1, "loads"), 1 + 1, "the two rets")
    tap.is(delta(c0, c1, "stores"), 1, "the call's return address")
  end
  do -- the profiling window: Enable snapshots inside its syscall, Read reads inside its own
    local _, ph = t:EnableThreadProfiling(cur, 0, 0x7)
    local pd = m:alloc(288)
    m:write(pd, poisoned(288, 1))
    tap.is(t:run(imp.ReadThreadProfilingData, ph, HW, pd), hcp.ERROR_SUCCESS, "Read from guest code after a Lua Enable")
    local p = pd_table(m:read(pd, 288))
    tap.is(p.HwCounters[0].Value, 2, "a guest Read counts its thunk's mov and syscall")
    tap.is(p.HwCounters[1].Value, 1, "and the syscall as a branch")
    tap.is(p.HwCounters[2].Value, 1 + 25, "cycles: mov 1 + system 25")
    t:DisableThreadProfiling(ph)
    local hslot = m:alloc(8)
    tap.is(t:run(imp.EnableThreadProfiling, -2, 0, 0x7, hslot), hcp.ERROR_SUCCESS, "Enable from guest code")
    local h = string.unpack("<I8", m:read(hslot, 8))
    local rc, q = t:ReadThreadProfilingData(h, HW)
    tap.is(rc, hcp.ERROR_SUCCESS, "a Lua Read of the handle guest code got")
    tap.is(q.HwCounters[0].Value, 1, "counts the Enable thunk's ret only")
    tap.is(q.HwCounters[1].Value, 1, "a branch")
    tap.is(q.HwCounters[2].Value, 2, "ret: 2 cycles")
    tap.is(t:DisableThreadProfiling(h), hcp.ERROR_SUCCESS, "the Lua body disables what guest code enabled")
  end

  tap.clause("SIM-GATE-KERNEL-WORK")
  do -- api_call cycles (1,500) as the api charges them; QueryThreadCycleTime charges its own entry first
    local function cycles() return select(2, t:QueryThreadCycleTime(cur)) end
    local a = cycles()
    t:run(imp.SetEvent, ev)
    local b = cycles()
    t:SetEvent(ev)
    local c = cycles()
    t:run(imp.GetCurrentThreadId)
    local d = cycles()
    tap.is(b - a, 28 + 1500 + 1500, "guest SetEvent: thunk 28 + its kernel entry 1500 + the query's 1500")
    tap.is(c - b, 1500 + 1500, "Lua SetEvent: its kernel entry + the query's; the thunk is the only difference")
    tap.is(d - c, 28 + 1500, "GetCurrentThreadId does not enter the kernel")
    t:ResetEvent(ev)
  end

  tap.clause("SIM-GATE-ARGS-X64")
  do
    tap.is(t:run(imp.WaitForSingleObject, ev, 0xFFFFFFFF00000000), hcp.WAIT_TIMEOUT,
           "a DWORD argument is the low half of its register: timeout 0, not INFINITE")
    tap.is(t:run(imp.SetEvent, ev | (1 << 32)), 0, "a HANDLE is all 64 bits: a handle with high bits is invalid")
    tap.is(t:run(imp.GetLastError), hcp.ERROR_INVALID_HANDLE, "ERROR_INVALID_HANDLE")
    local ft = m:alloc(32)
    m:write(ft, string.rep("\xEE", 32))
    tap.is(t:run(imp.GetThreadTimes, cur, ft, ft + 8, ft + 16, ft + 24), 1,
           "GetThreadTimes: the fifth argument comes from [rsp + 0x28]")
    local ok, creation, exit = t:GetThreadTimes(cur)
    local gc, ge, _, gu = string.unpack("<I8I8I8I8", m:read(ft, 32))
    tap.ok(ok and gc == creation and ge == exit and ge == 0, "creation and exit times equal the Lua body's")
    tap.is(gu, 0, "no clock interrupt yet: user time 0")
    tap.is(t:run(imp.OpenThread, hcp.THREAD_QUERY_INFORMATION, 0, t.id) & 3, 0, "OpenThread returns a handle")
  end

  tap.clause("SIM-GATE-SAME-RESULTS") -- the PERFORMANCE_DATA checks (Size, Version, Flags) from both callers
  do
    local _, ph = t:EnableThreadProfiling(cur, 0, 0x7)
    local pd = m:alloc(288)
    local cases = {
      { 0, 1, BOTH, ph, hcp.ERROR_INVALID_USER_BUFFER, "Size 0" },
      { 287, 1, BOTH, ph, hcp.ERROR_INVALID_USER_BUFFER, "Size 287" },
      { 289, 1, BOTH, ph, hcp.ERROR_INVALID_USER_BUFFER, "Size 289" },
      { 288, 0, BOTH, ph, hcp.ERROR_INVALID_PARAMETER, "Version 0" },
      { 288, 2, BOTH, ph, hcp.ERROR_INVALID_PARAMETER, "Version 2" },
      { 288, 1, 4, ph, hcp.ERROR_INVALID_PARAMETER, "Flags 4" },
      { 0, 1, 4, ph, hcp.ERROR_INVALID_USER_BUFFER, "Size 0 and Flags 4: Size first" },
      { 288, 1, BOTH, 0x1234, hcp.ERROR_INVALID_HANDLE, "a handle that is no profiling block" },
    }
    for _, c in ipairs(cases) do
      local before = poisoned(c[1], c[2])
      m:write(pd, before)
      local grc = t:run(imp.ReadThreadProfilingData, c[4], c[3], pd)
      local gbytes = m:read(pd, 288)
      local lrc, lpd = t:ReadThreadProfilingData(c[4], c[3], pd_table(before))
      tap.is(grc, c[5], c[6] .. ": guest code gets " .. c[5])
      tap.is(lrc, grc, c[6] .. ": the Lua body gets the same code")
      tap.is(gbytes, before, c[6] .. ": guest PERFORMANCE_DATA untouched")
      tap.is(pd_bytes(lpd), gbytes, c[6] .. ": the Lua body's PERFORMANCE_DATA is byte-identical")
    end
    t:DisableThreadProfiling(ph)
  end

  tap.clause("SIM-GATE-SIZE-CHECK") -- profile_loop with a Size-0 PERFORMANCE_DATA
  do
    local imports = m:import_table(PROFILE_IMPORTS)
    local pd = m:alloc(288)
    local before = poisoned(0, 1)
    m:write(pd, before)
    local r = t:run(k.profile_loop, imports, 100, pd, 0x7)
    tap.is(r, hcp.ERROR_INVALID_USER_BUFFER << 16, "profile_loop: Enable 0 | Read 1784 << 16 | Disable 0 << 32")
    tap.is(m:read(pd, 288), before, "nothing written to the guest's PERFORMANCE_DATA")
    local _, ph = t:EnableThreadProfiling(cur, 1, 0x7)
    t:run(k.spin, 100)
    local lrc, lpd = t:ReadThreadProfilingData(ph, BOTH, pd_table(before))
    tap.is(lrc, hcp.ERROR_INVALID_USER_BUFFER, "the same sequence from Lua: ERROR_INVALID_USER_BUFFER")
    tap.is(pd_bytes(lpd), before, "nothing written either")
    tap.is(t:DisableThreadProfiling(ph), hcp.ERROR_SUCCESS, "Disable from Lua succeeds after the failed Read")
    local q = m:alloc(1)
    tap.is(t:run(imp.QueryThreadProfiling, cur, q), hcp.ERROR_SUCCESS, "guest QueryThreadProfiling")
    tap.is(m:read(q, 1), "\0", "profile_loop disabled what it enabled: FALSE")
  end

  tap.clause("SIM-GATE-LAST-ERROR")
  do
    t:run(imp.SetLastError, 0xDEADBEEF)
    tap.is(t:GetLastError(), 0xDEADBEEF, "SetLastError from guest code, GetLastError from Lua")
    tap.is(t:run(imp.GetLastError), 0xDEADBEEF, "GetLastError from guest code: the DWORD, zero-extended")
    t:SetLastError(1234)
    tap.is(t:run(imp.GetLastError), 1234, "SetLastError from Lua, GetLastError from guest code")
    t:run(imp.SetLastError, 0x1234567800000005)
    tap.is(t:GetLastError(), 5, "the DWORD argument's upper half is ignored")
    t:SetLastError(77)
    tap.is(t:run(imp.QueryThreadProfiling, cur, 0), hcp.ERROR_NOACCESS, "an HCP function fails from guest code")
    tap.is(t:run(imp.GetLastError), 77, "and leaves the last error alone (HCP-SPEC §9)")
    tap.is(t:run(imp.CloseHandle, 0x4444), 0, "a BOOL function fails from guest code: FALSE")
    tap.is(t:run(imp.GetLastError), hcp.ERROR_INVALID_HANDLE, "and sets the last error")
    local ok, err = t:CloseHandle(0x4444)
    tap.ok(not ok and err == hcp.ERROR_INVALID_HANDLE, "as the Lua body's call does")
  end

  tap.clause("SIM-GATE-BAD-POINTER")
  do
    local ro = k.spin -- read+execute code: not writable
    tap.is(t:run(imp.QueryThreadProfiling, cur, 0x10), hcp.ERROR_NOACCESS, "QueryThreadProfiling(NULL-ish): 998")
    tap.is(t:run(imp.ReadThreadProfilingData, 0x1234, BOTH, 0), hcp.ERROR_NOACCESS,
           "ReadThreadProfilingData(NULL buffer): 998 (simulator-defined)")
    tap.is(t:run(imp.DisableThreadProfiling, 0), hcp.ERROR_NOACCESS, "DisableThreadProfiling(NULL): 998")
    tap.is(t:run(imp.DisableThreadProfiling, 0x10000002), hcp.ERROR_NOACCESS, "DisableThreadProfiling(misaligned): 998")
    for _, p in ipairs { { 0, "NULL" }, { 0x10, "unmapped" }, { ro, "read-only code" }, { imp.Sleep, "a thunk" } } do
      tap.is(t:run(imp.QueryThreadCycleTime, cur, p[1]), 0, "QueryThreadCycleTime(" .. p[2] .. "): FALSE")
      local gle = t:run(imp.GetLastError)
      local ok, err = t:QueryThreadCycleTime(cur, p[1] == 0 and false or p[1])
      tap.ok(gle == hcp.ERROR_NOACCESS and not ok and err == gle, "  ERROR_NOACCESS, as from Lua")
    end
    local ft = m:alloc(32)
    m:write(ft, string.rep("\xEE", 32))
    tap.is(t:run(imp.GetThreadTimes, cur, ft, ft + 8, ft + 16, 0x10), 0, "GetThreadTimes with a bad 5th pointer: FALSE")
    tap.is(t:run(imp.GetLastError), hcp.ERROR_NOACCESS, "ERROR_NOACCESS")
    tap.is(m:read(ft, 32), string.rep("\xEE", 32), "nothing written")
    local ok, err = t:GetThreadTimes(cur, { creation = ft, exit = ft + 8, kernel = ft + 16, user = 0x10 })
    tap.ok(not ok and err == hcp.ERROR_NOACCESS, "the same from Lua")
    tap.is(t:run(imp.WaitForMultipleObjects, 1, 0, 0, 0), hcp.WAIT_FAILED, "WaitForMultipleObjects(NULL array)")
    tap.is(t:run(imp.GetLastError), hcp.ERROR_NOACCESS, "ERROR_NOACCESS")
    tap.is(t:run(imp.GetCurrentThreadId), t.id, "the thread goes on calling imports after each failure")
  end

  tap.clause("SIM-GATE-NOT-A-SERVICE")
  do
    tap.is(t:run(GATE + 16 * #NAMES), INVALID_SYSTEM_SERVICE, "the first thunk past the imports")
    tap.is(t:run(GATE + 16 * 255), INVALID_SYSTEM_SERVICE, "the last thunk of the page")
    tap.is(t:run(sysc), INVALID_SYSTEM_SERVICE, "a thunk's code outside the gate page serves nothing")
    local r, code = t:pcall_run(GATE + 8)
    tap.ok(r == nil and code == hcp.STATUS_BREAKPOINT, "a thunk's int3 padding traps")
  end
end }

m:thread { name = "leak", body = function(t)
  tap.clause("SIM-GATE-BAD-POINTER")
  leak_rc = t:run(imp.EnableThreadProfiling, -2, 0, 0, 0)
  leak_query = select(2, t:QueryThreadProfiling(-2))
end }
m:run()
tap.is(leak_rc, hcp.ERROR_NOACCESS, "EnableThreadProfiling(&handle = NULL) from guest code: ERROR_NOACCESS")
tap.is(leak_query, true, "and profiling stays enabled (simulator-defined, api/README.md)")

-- ---- the same work from guest code and from Lua: PERFORMANCE_DATA bytes by formula -----------------------
-- cost = "unit": user cycles = instructions, no API-call cycles, so every counter follows from the
-- instruction and branch formulas (profile_loop.S window: 13 + 2n, 5 + n; spin.S: 4 + 2n, 2 + n).
tap.clause("SIM-GATE-SAME-RESULTS")
do
  local mu = machine { cost = "unit" }
  local ku = mu:load "kernels"
  local imports = mu:import_table(PROFILE_IMPORTS)
  mu:thread { name = "unit", body = function(t)
    local pd = mu:alloc(288)
    for _, n in ipairs { 0, 1000 } do
      mu:write(pd, poisoned(288, 1))
      local r = t:run(ku.profile_loop, imports, n, pd, 0x7)
      local gbytes = mu:read(pd, 288)
      local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0x7)
      t:run(ku.spin, n)
      local lrc, lpd = t:ReadThreadProfilingData(ph, BOTH, pd_table(poisoned(288, 1)))
      local drc = t:DisableThreadProfiling(ph)
      local label = "n = " .. n
      tap.is(r, 0, label .. ": guest Enable, Read, Disable return 0")
      tap.ok(lrc == 0 and drc == 0, label .. ": the Lua body's Read and Disable return 0 too")
      tap.is(gbytes, read_result(true, 0, 0, 13 + 2 * n, 13 + 2 * n, 5 + n, 13 + 2 * n),
             label .. ": guest PERFORMANCE_DATA = the window formulas, byte for byte")
      tap.is(pd_bytes(lpd), read_result(true, 0, 0, 4 + 2 * n, 4 + 2 * n, 2 + n, 4 + 2 * n),
             label .. ": Lua PERFORMANCE_DATA = spin's formulas, byte for byte")
      local g, l = pd_table(gbytes), lpd
      tap.ok(g.HwCounters[0].Value - l.HwCounters[0].Value == 9 and g.HwCounters[1].Value - l.HwCounters[1].Value == 3,
             label .. ": they differ by the gate's part of the window only: 9 instructions, 3 branches")
    end
  end }
  mu:run()
end

-- ---- blocking calls from guest code: the thread leaves the CPU inside the call ------------------------------
tap.clause("SIM-GATE-BLOCKING")
do
  local mb = machine()
  local bimp = mb:imports()
  local bcallx = mb:code(CALLX)
  local ev1, ev2, go, evh = mb:event {}, mb:event {}, mb:event {}, mb:event {}
  local log = {}
  local function note(s) log[#log + 1] = s end
  mb:thread { name = "A", body = function(t)
    local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
    note("A sleeps")
    local t0 = mb:clock()
    local c0 = t:counters()
    local r = t:run(bcallx, bimp.Sleep, 10)
    local c1 = t:counters()
    note("A woke")
    tap.is(r, 0, "Sleep(10) from guest code returns (VOID: rax 0)")
    tap.ok(mb:clock() - t0 >= 10 * MS, "after at least 10 ms of virtual time")
    tap.is(delta(c0, c1, "instructions"), 8 + 3, "across the wait: callx + the thunk, nothing counted twice")
    tap.is(delta(c0, c1, "branches"), 4, "and their 4 branches")
    local _, p1 = t:ReadThreadProfilingData(ph, BOTH)
    tap.is(p1.ContextSwitchCount, 1, "the guest Sleep switched the thread out and in once")
    tap.is(p1.WaitReasonBitMap, 1 << 4, "wait reason DelayExecution (4)")
    t:Sleep(10)
    local _, p2 = t:ReadThreadProfilingData(ph, BOTH)
    tap.is(p2.ContextSwitchCount, 2, "the same Sleep from Lua: one more switch")
    tap.is(p2.WaitReasonBitMap, 1 << 4, "with the same wait reason")
    t:DisableThreadProfiling(ph)

    t:SetEvent(go) -- B is Ready
    note("A waits")
    tap.is(t:run(bcallx, bimp.WaitForSingleObject, ev1, hcp.INFINITE), hcp.WAIT_OBJECT_0,
           "WaitForSingleObject(INFINITE) from guest code blocks until B sets the event: WAIT_OBJECT_0")
    note("A got")
    t0 = mb:clock()
    tap.is(t:run(bimp.WaitForSingleObject, ev2, 20), hcp.WAIT_TIMEOUT, "a wait from guest code that times out")
    tap.ok(mb:clock() - t0 >= 20 * MS, "after at least 20 ms")
    tap.is(t:WaitForSingleObject(ev2, 20), hcp.WAIT_TIMEOUT, "as the Lua body's wait does")

    tap.is(t:run(bimp.SwitchToThread), 0, "SwitchToThread from guest code with nobody ready: FALSE")
    t:SetEvent(go)
    note("A yields")
    tap.is(t:run(bimp.SwitchToThread), 1, "with B ready: TRUE, after B ran")
    note("A back")

    local _, ph2 = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
    note("A sets")
    tap.is(t:run(bcallx, bimp.SetEvent, evh), 1, "SetEvent from guest code that readies a higher priority: TRUE")
    note("A after")
    local _, p3 = t:ReadThreadProfilingData(ph2, BOTH)
    tap.is(p3.WaitReasonBitMap, 1 << 32, "A was preempted inside the call (WrPreempted, 32) and resumed after it")
    t:DisableThreadProfiling(ph2)
  end }
  mb:thread { name = "H", priority = 9, body = function(t)
    note("H waits")
    t:WaitForSingleObject(evh)
    note("H runs")
  end }
  mb:thread { name = "B", body = function(t)
    note("B runs")
    t:WaitForSingleObject(go)
    note("B sets")
    t:SetEvent(ev1)
    t:WaitForSingleObject(go)
    note("B switched to")
  end }
  mb:run()
  tap.is(table.concat(log, ", "),
         "H waits, A sleeps, B runs, A woke, A waits, B sets, A got, A yields, B switched to, A back, A sets, " ..
           "H runs, A after",
         "the order of events: other threads run while A is inside a guest call")
end

-- ---- dispatch data of the same work from guest code and from Lua --------------------------------------------
-- A spin of 75,000,000 iterations takes 150,000,000 cycles (dec 1 + jnz 1), more than a quantum
-- (93,750,000) plus a tick (46,875,000): with B ready, A's quantum ends inside it exactly once.
tap.clause("SIM-GATE-DISPATCH-SAME")
do
  local N = 75000000
  local mq = machine()
  local kq = mq:load "kernels"
  local imports = mq:import_table(PROFILE_IMPORTS)
  local go = mq:event {}
  mq:thread { name = "A", body = function(t)
    local pd = mq:alloc(288)
    mq:write(pd, poisoned(288, 1))
    tap.is(t:run(kq.profile_loop, imports, N, pd, 0x7), 0, "profile_loop across a quantum end returns 0")
    local g = pd_table(mq:read(pd, 288))
    t:SetEvent(go) -- B is Ready again
    local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0x7)
    t:run(kq.spin, N)
    local _, l = t:ReadThreadProfilingData(ph, BOTH)
    t:DisableThreadProfiling(ph)
    tap.is(g.ContextSwitchCount, 1, "guest: one switch-in")
    tap.is(g.WaitReasonBitMap, 1 << 30, "guest: WrQuantumEnd (30)")
    tap.is(l.ContextSwitchCount, g.ContextSwitchCount, "Lua: the same switch count")
    tap.is(l.WaitReasonBitMap, g.WaitReasonBitMap, "Lua: the same wait reasons")
    tap.is(g.HwCounters[0].Value - l.HwCounters[0].Value, 9, "instructions differ by the gate's 9")
    tap.is(g.HwCounters[1].Value - l.HwCounters[1].Value, 3, "branches by its 3")
  end }
  mq:thread { name = "B", body = function(t) t:WaitForSingleObject(go) end }
  mq:run()
end

tap.done_testing()
