-- Platform profiles (api/platform.c; api/README.md "Platforms"): what the OS
-- does differently on each, through Lua bodies only (no guest code), so every
-- profile that hcp.machine accepts runs here: the home of the PLAT- clauses
-- (README.md "Where a test goes"; HCP from 32-bit and ARM64 guest code is
-- isa.lua's).  The OS side is also tested in C
-- on an x64 machine with each profile (api/tests/platform_test.c), which does
-- not need the profile's guest CPU.
--
-- Expected values come from HCP-SPEC and seed 004, never from the program:
--   * ETW Thread payloads (§7.2, §7.3; edges 54, 56) are packed here from the
--     spec's field lists — sizes 4, 1 or P (4 bytes in a 32-bit logger, 8 in a
--     64-bit one), back to back in declaration order — and compared byte for
--     byte; the values are those api/README.md "ETW" states (process 996,
--     stacks 0 outside t:run, PagePriority 5, IoPriority 2, 0 for what is not
--     modelled);
--   * ce2.12-arm (§8.2, seed 004; edge 49): CreationTime, ExitTime, KernelTime
--     0, UserTime = the thread's total run time (here its API calls' kernel
--     work, whole ticks: Lua bodies take no clock interrupt), 0 once it exited
--     (simulator-defined); the HCP functions do not exist (120, last error
--     set), Ke* STATUS_NOT_IMPLEMENTED (§4.1, §4.2), QueryThreadCycleTime (Vista+,
--     §8.4) 120, no kernel logger;
--   * 32-bit platforms: HANDLEs are 4 bytes (a handle Lua sees fits in 32 bits).
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local PROFILES = testlib.PROFILES
local PTR = { ["win10-x64"] = 8, ["win7-x64"] = 8, ["win7-x86"] = 4, ["win11-arm64"] = 8, ["ce2.12-arm"] = 4 }
local PID = 996
local START, END, DC_START, DC_END = 1, 2, 3, 4
local CUR = -2
local TICK = 156250
local BOOT = 134116992000000000 -- default boot_time: 2026-01-01 00:00 UTC as a FILETIME (thread_times.lua derives it)

local available = testlib.available
local function why(p) return select(2, available(p)) end

------------------------------------------------------------------------------
-- The Thread classes' field lists (HCP-SPEC §7.3): name, size (0 = pointer-sized)
------------------------------------------------------------------------------
local V3 = { { "ProcessId", 4 }, { "TThreadId", 4 }, { "StackBase", 0 }, { "StackLimit", 0 }, { "UserStackBase", 0 },
             { "UserStackLimit", 0 }, { "Affinity", 0 }, { "Win32StartAddr", 0 }, { "TebBase", 0 },
             { "SubProcessTag", 4 }, { "BasePriority", 1 }, { "PagePriority", 1 }, { "IoPriority", 1 },
             { "ThreadFlags", 1 } }
local V2 = { { "ProcessId", 4 }, { "TThreadId", 4 }, { "StackBase", 0 }, { "StackLimit", 0 }, { "UserStackBase", 0 },
             { "UserStackLimit", 0 }, { "StartAddr", 0 }, { "Win32StartAddr", 0 }, { "TebBase", 0 },
             { "SubProcessTag", 4 } }
local V1G1 = { { "ProcessId", 4 }, { "TThreadId", 4 }, { "StackBase", 0 }, { "StackLimit", 0 }, { "UserStackBase", 0 },
               { "UserStackLimit", 0 }, { "StartAddr", 0 }, { "Win32StartAddr", 0 }, { "WaitMode", 1 } }
local V1G2 = { { "ProcessId", 4 }, { "TThreadId", 4 } }
local V0 = { { "TThreadId", 4 }, { "ProcessId", 4 } }

local function fields_of(version, type)
  if version == 3 then return V3, "Thread_TypeGroup1" end
  if version == 2 then return V2, "Thread_V2_TypeGroup1" end
  if version == 1 then
    if type == END or type == DC_END then return V1G2, "Thread_V1_TypeGroup2" end
    return V1G1, "Thread_V1_TypeGroup1"
  end
  return V0, "Thread_V0_TypeGroup1"
end

-- The payload of thread `tid` outside any guest call: returns the bytes and the decoded values.
local function payload(list, ptr, tid, prio)
  local vals = { ProcessId = PID, TThreadId = tid, Affinity = 1, BasePriority = prio, PagePriority = 5, IoPriority = 2 }
  local fmt, args, want = "<", {}, {}
  for _, f in ipairs(list) do
    local size = f[2] == 0 and ptr or f[2]
    fmt = fmt .. (size == 1 and "B" or "I" .. size)
    args[#args + 1] = vals[f[1]] or 0
    want[f[1]] = vals[f[1]] or 0
  end
  return string.pack(fmt, table.unpack(args)), want
end

local function data_is(data, want)
  local n = 0
  for k, v in pairs(data) do
    if want[k] ~= v then return false end
    n = n + 1
  end
  for _ in pairs(want) do n = n - 1 end
  return n == 0
end

------------------------------------------------------------------------------
-- 1. ETW Thread events of every class version on every profile with a logger
------------------------------------------------------------------------------
local function etw_versions(p)
  local ptr = PTR[p]
  for _, version in ipairs { false, 0, 1, 2, 3 } do
    local v = version or 3 -- every logger profile defaults to Thread V3 (api/platform.c)
    local L = string.format("%s, %s: ", p, version and "etw_thread_version = " .. v or "default (V3)")
    local m = hcp.machine { platform = p, cost = "unit", etw_thread_version = version or nil }
    local evs = {}
    m:trace { flags = hcp.EVENT_TRACE_FLAG_THREAD | hcp.EVENT_TRACE_FLAG_CSWITCH,
              on_event = function(ev) evs[#evs + 1] = ev end }
    local w = m:thread { name = "w", priority = 9, body = function(t) t:Sleep(0) end }
    m:run()
    local seen = {}
    for _, ev in ipairs(evs) do
      local ty = ev.type
      if (ty == START or ty == END) and ev.data.TThreadId == w.id and not seen[ty] then
        seen[ty] = true
        local list, class = fields_of(v, ty)
        local want, decoded = payload(list, ptr, w.id, 9)
        local name = L .. ev.name .. " (" .. class .. ", " .. #want .. " bytes): "
        tap.is(ev.raw:sub(49), want, name .. "payload byte for byte = the spec's fields packed, P = " .. ptr)
        tap.is(#ev.raw, 48 + #want, name .. "Size = 48-byte EVENT_TRACE_HEADER + payload")
        tap.is(string.unpack("<I2", ev.raw, 1), 48 + #want, name .. "header Size @0")
        tap.is(string.unpack("<I2", ev.raw, 7), v, name .. "Class.Version @6 = " .. v)
        tap.is(ev.header.Class.Version, v, name .. "ev.header.Class.Version")
        tap.ok(data_is(ev.data, decoded), name .. "ev.data decodes exactly the class's fields")
      elseif ty == hcp.EVENT_TRACE_TYPE_CSWITCH and not seen[ty] then
        seen[ty] = true
        tap.ok(#ev.raw == 48 + 24 and ev.header.Class.Version == 2,
               L .. "CSwitch keeps class Thread_V2 (version 2), 24 bytes, whatever the Thread version")
      end
    end
    tap.ok(seen[START] and seen[END] and seen[hcp.EVENT_TRACE_TYPE_CSWITCH], L .. "Start, End and a CSwitch were checked")
    if v == 0 then
      local _, st = next(evs)
      for _, ev in ipairs(evs) do if ev.type == START then st = ev break end end
      tap.is(string.unpack("<I4", st.raw, 49), w.id, L .. "V0: TThreadId first (edge 54)")
    end
  end
  local ok, err = pcall(hcp.machine, { platform = p, etw_thread_version = 4 })
  tap.ok(not ok and err:find("'etw_thread_version' = 4 is out of range %(0..3%)"),
         p .. ": etw_thread_version = 4 is refused with a clear message")
end

------------------------------------------------------------------------------
-- 2. Handles: pointer-sized, (HANDLE)-2 is the current thread
------------------------------------------------------------------------------
local function handles(p)
  local m = hcp.machine { platform = p }
  local other = m:thread { name = "other", body = function() end }
  local e1, e2 = m:event { manual = true, initial = true }, m:event { manual = true, initial = true }
  m:thread { name = "h", priority = 9, body = function(t)
    tap.clause("PLAT-X86-HANDLES")
    local h = t:OpenThread(hcp.THREAD_ALL_ACCESS, false, other.id)
    tap.ok(h ~= 0 and h < 2 ^ 32, p .. ": OpenThread's handle fits in 32 bits")
    tap.is(t:GetCurrentThread(), CUR, p .. ": GetCurrentThread() is -2 as Lua sees it")
    tap.is(t:WaitForMultipleObjects({ e1, e2 }, true, 0), hcp.WAIT_OBJECT_0,
           p .. ": WaitForMultipleObjects over a HANDLE[2] of " .. PTR[p] .. "-byte handles")
    tap.is(t:CloseHandle(h), true, p .. ": CloseHandle")
    if p ~= "ce2.12-arm" then
      local rc, ph = t:EnableThreadProfiling(CUR, 0, 0)
      tap.is(rc, 0, p .. ": EnableThreadProfiling succeeds")
      tap.ok(ph and ph > 0 and ph < 2 ^ 32, p .. ": the PerformanceDataHandle Lua sees fits in 32 bits")
      tap.is(t:DisableThreadProfiling(ph), 0, p .. ": and disables")
      -- Guest code's Enable writes a pointer-sized HANDLE; the value is the one a Lua
      -- body can pass on.  A ULONG64 argument takes two stack words in stdcall.
      local imp, ptr = m:imports(), PTR[p]
      local buf = m:alloc(16)
      m:write(buf, string.rep("\xA5", 16))
      local args = p == "win7-x86" and { CUR, 0, 0, 0, buf } or { CUR, 0, 0, buf }
      tap.is(t:run(imp.EnableThreadProfiling, table.unpack(args)), 0, p .. ": guest EnableThreadProfiling succeeds")
      local gh = string.unpack(ptr == 4 and "<I4" or "<I8", m:read(buf, ptr))
      tap.is(m:read(buf + ptr, 16 - ptr), string.rep("\xA5", 16 - ptr),
             p .. ": it writes a " .. ptr .. "-byte *PerformanceDataHandle, nothing after it")
      tap.is(gh, ph, p .. ": the same block as the Lua Enable got (freed, handed out again)")
      tap.is(t:DisableThreadProfiling(gh), 0, p .. ": a Lua body disables with that value")
    end
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 3. Windows CE 2.12 (ce2.12-arm)
------------------------------------------------------------------------------
local function ce()
  local P = "ce2.12-arm: "
  -- api_call = 30,000,000 cycles = 0.01 s = 100,000 x 100 ns: below one tick (156,250).
  local m = hcp.machine { platform = "ce2.12-arm", cost = { api_call = 30000000 } }
  tap.clause("PLAT-KE-NOT-IMPLEMENTED")
  tap.is(m:KeSetHardwareCounterConfiguration { { Index = 0 } }, hcp.STATUS_NOT_IMPLEMENTED,
         P .. "KeSetHardwareCounterConfiguration -> STATUS_NOT_IMPLEMENTED (0xC0000002)")
  tap.is((m:KeQueryHardwareCounterConfiguration(16)), hcp.STATUS_NOT_IMPLEMENTED,
         P .. "KeQueryHardwareCounterConfiguration -> STATUS_NOT_IMPLEMENTED")
  tap.clause("PLAT-CE-NO-LOGGER")
  local ok, err = pcall(m.trace, m, { flags = hcp.EVENT_TRACE_FLAG_THREAD, on_event = function() end })
  tap.ok(not ok and err:find("platform 'ce2.12-arm' has no NT Kernel Logger", 1, true),
         P .. "m:trace fails naming the platform: " .. tostring(err):gsub("^.-m:trace", "m:trace"))
  local W = m:thread { name = "worker", body = function(t)
    tap.clause("PLAT-CE-NO-HCP")
    for _, call in ipairs {
      { "EnableThreadProfiling", function() return t:EnableThreadProfiling(CUR, 0, 0) end },
      { "QueryThreadProfiling", function() return t:QueryThreadProfiling(CUR) end },
      { "ReadThreadProfilingData", function()
          local rc, pd = t:ReadThreadProfilingData(0x1000, 3, { Size = 288, Version = 1, CycleTime = 0x3333 })
          return rc, pd.CycleTime ~= 0x3333 and pd or nil -- the buffer comes back as it was
        end },
      { "DisableThreadProfiling", function() return t:DisableThreadProfiling(0x1000) end },
    } do
      t:SetLastError(0xDEADBEEF)
      local rc, out = call[2]()
      tap.is(rc, hcp.ERROR_CALL_NOT_IMPLEMENTED, P .. call[1] .. " -> ERROR_CALL_NOT_IMPLEMENTED (120)")
      tap.is(out, nil, P .. call[1] .. ": no output")
      tap.is(t:GetLastError(), 120, P .. call[1] .. ": and sets the last error to 120")
    end
    tap.clause("PLAT-CE-NO-CYCLE-TIME")
    t:SetLastError(0)
    local qok, qerr = t:QueryThreadCycleTime(CUR)
    tap.ok(qok == false and qerr == 120 and t:GetLastError() == 120,
           P .. "QueryThreadCycleTime (Vista+) -> FALSE, ERROR_CALL_NOT_IMPLEMENTED")

    tap.clause("PLAT-CE-TIMES")
    -- No API call above entered the kernel (the functions do not exist); this
    -- GetThreadTimes is the first: 100,000 x 100 ns of kernel work, 0 whole ticks.
    local r, c, e, k, u = t:GetThreadTimes(CUR)
    tap.ok(r and c == 0 and e == 0 and k == 0, P .. "CreationTime, ExitTime, KernelTime are 0 (edge 49, seed 004)")
    tap.is(u, 0, P .. "UserTime = run time so far: 100,000 x 100 ns, 0 whole ticks")
    -- The second call: 200,000 x 100 ns of kernel work = 1 whole tick.
    r, c, e, k, u = t:GetThreadTimes(CUR)
    tap.ok(r and c == 0 and e == 0 and k == 0, P .. "still three zeros")
    tap.is(u, TICK, P .. "UserTime = total run time, kernel work included (no user/kernel split): 156,250")
  end }
  m:thread { name = "observer", body = function(t)
    local q = t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, W.id)
    local lim = t:OpenThread(hcp.THREAD_QUERY_LIMITED_INFORMATION, false, W.id)
    tap.is(W.state, "Terminated", P .. "worker exited")
    local r, c, e, k, u = t:GetThreadTimes(q)
    tap.ok(r and c == 0 and e == 0 and k == 0, P .. "the exited worker: CreationTime, ExitTime, KernelTime 0")
    tap.is(u, 0, P .. "UserTime is no longer valid after exit: 0 (simulator-defined)")
    local lok, lerr = t:GetThreadTimes(lim)
    tap.ok(lok == false and lerr == hcp.ERROR_ACCESS_DENIED,
           P .. "THREAD_QUERY_LIMITED_INFORMATION only -> 5: CE needs THREAD_QUERY_INFORMATION")
  end }
  m:run()
end

------------------------------------------------------------------------------
for _, p in ipairs(PROFILES) do
  if available(p) then
    tap.clause("PLAT-ETW-V0-V2-PAYLOADS")
    if p ~= "ce2.12-arm" then etw_versions(p) end
    handles(p)
    if p == "ce2.12-arm" then ce() end
  else
    tap.skip(p .. ": " .. why(p) .. " (its OS side is tested in api/tests/platform_test.c)")
  end
end

------------------------------------------------------------------------------
-- 4. The Thread class versions and the 32-bit logger (edges 54, 56), and CE's
-- GetThreadTimes with a larger kernel entry (edge 49).
------------------------------------------------------------------------------
-- edge 54: the Thread_V0 payload is TThreadId then ProcessId; V1, V2 and V3
-- start ProcessId then TThreadId (HCP-SPEC §7.3).  The machine option
-- etw_thread_version selects the class version the logger writes.
tap.clause("PLAT-ETW-V0-V2-PAYLOADS")
for v = 0, 3 do
  local m = hcp.machine { etw_thread_version = v }
  local first
  m:trace { flags = hcp.EVENT_TRACE_FLAG_THREAD,
            on_event = function(ev) if ev.type == hcp.EVENT_TRACE_TYPE_START then first = first or ev end end }
  local w = m:thread { name = "w", body = function() end }
  m:run()
  local a, b = string.unpack("<I4I4", first.raw, 49)
  if v == 0 then
    tap.ok(a == w.id and b == 996, "edge 54: Thread_V0 Start: TThreadId @0, ProcessId @4")
  else
    tap.ok(a == 996 and b == w.id, "edge 54: Thread V" .. v .. " Start: ProcessId @0, TThreadId @4")
  end
  tap.is(first.header.Class.Version, v, "edge 54: Class.Version " .. v)
end

-- edge 56: a 32-bit logger writes the 44-byte Thread_TypeGroup1 (7 pointer-sized fields of 4 bytes).
tap.clause("PLAT-ETW-32BIT-PAYLOAD")
if available("win7-x86") then
  local m = hcp.machine { platform = "win7-x86" }
  local first
  m:trace { flags = hcp.EVENT_TRACE_FLAG_THREAD,
            on_event = function(ev) if ev.type == hcp.EVENT_TRACE_TYPE_START then first = first or ev end end }
  local w = m:thread { name = "w", body = function() end }
  m:run()
  tap.is(#first.raw, 48 + 44, "edge 56: win7-x86: Thread_TypeGroup1 of a 32-bit logger: 44 bytes after the 48-byte header")
  tap.is(first.raw:sub(49), string.pack("<I4I4I4I4I4I4I4I4I4I4BBBB", 996, w.id, 0, 0, 0, 0, 1, 0, 0, 0, 8, 5, 2, 0),
         "edge 56: win7-x86: ProcessId, TThreadId, 7 x 4-byte pointers, SubProcessTag, 4 bytes: byte for byte")
else
  tap.skip("edge 56 on win7-x86 through Lua: its guest CPU is not available (the OS side: api/tests/platform_test.c "
           .. "PLAT-ETW-PAYLOADS)")
end

-- edge 49: Windows CE 2.10-2.12 GetThreadTimes (HCP-SPEC §8.2, seed 004).
-- api_call = 30,000,000 cycles = 100,000 x 100 ns of kernel work per call at
-- 3 GHz; Lua bodies take no clock interrupt, so the total run time is the
-- calls' kernel work in whole ticks: 2 calls = 200,000 -> 1 tick = 156,250.
tap.clause("PLAT-CE-TIMES")
if available("ce2.12-arm") then
  local m = hcp.machine { platform = "ce2.12-arm", cost = { api_call = 30000000 } }
  local W = m:thread { name = "ce", body = function(t)
    t:GetThreadTimes(CUR)
    local ok, c, e, k, u = t:GetThreadTimes(CUR)
    tap.ok(ok and c == 0 and e == 0 and k == 0, "edge 49: ce2.12-arm: CreationTime, ExitTime, KernelTime always 0")
    tap.is(u, 156250, "edge 49: ce2.12-arm: UserTime = total run time (kernel work included): 1 tick")
  end }
  m:thread { name = "after", body = function(t)
    local ok, _, _, _, u = t:GetThreadTimes(t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, W.id))
    tap.ok(ok and u == 0, "edge 49: ce2.12-arm: UserTime not valid after exit: 0 (simulator-defined)")
  end }
  m:run()
else
  tap.skip("edge 49 on ce2.12-arm through Lua: its guest CPU is not available (the OS side: api/tests/platform_test.c "
           .. "PLAT-CE-TIMES)")
end

------------------------------------------------------------------------------
-- 5. Windows CE 2.10-2.12's GetThreadTimes over seven calls (HCP-SPEC §8.2; edge case 49)
------------------------------------------------------------------------------
-- CreationTime, ExitTime and KernelTime are always 0; UserTime is the total
-- run time, with no user/kernel split, and not valid once the thread exits
-- (simulator-defined: 0).  The handle needs THREAD_QUERY_INFORMATION (CE has
-- no THREAD_QUERY_LIMITED_INFORMATION).  With api_call = 15,000,000 cycles
-- (0.005 s = 50,000 x 100 ns) the n-th GetThreadTimes of a Lua body (no guest
-- code: no clock interrupt is taken) sees n x 50,000 x 100 ns of kernel work,
-- floor(n x 50,000 / 156,250) whole ticks: 0, 0, 0, 1 (n = 4: 200,000), ...,
-- 1 (n = 6), 2 (n = 7: 350,000).  The NT profile of the same scenario gives
-- the same totals as KernelTime and UserTime 0.
tap.clause("PLAT-CE-TIMES")
local function ce_run(platform)
  local got = {}
  local m = hcp.machine { platform = platform, cost = { api_call = 15000000 } }
  local W = m:thread { name = "w", body = function(t)
    for n = 1, 7 do got[n] = { t:GetThreadTimes(CUR) } end
  end }
  m:thread { name = "x", body = function(t)
    got.after = { t:GetThreadTimes(t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, W.id)) }
    got.limited = { t:GetThreadTimes(t:OpenThread(hcp.THREAD_QUERY_LIMITED_INFORMATION, false, W.id)) }
  end }
  m:run()
  return got
end
local CE_TICKS = { 0, 0, 0, 1, 1, 1, 2 }
if pcall(hcp.machine, { platform = "ce2.12-arm" }) then
  local got = ce_run("ce2.12-arm")
  for n = 1, 7 do
    local g = got[n]
    tap.ok(g[1] == true and g[2] == 0 and g[3] == 0 and g[4] == 0,
           string.format("ce2.12-arm: call %d: CreationTime, ExitTime, KernelTime 0 (edge 49)", n))
    tap.is(g[5], CE_TICKS[n] * TICK, string.format("ce2.12-arm: call %d: UserTime = total run time, %d x 50,000 x "
                                                   .. "100 ns in whole ticks = %d", n, n, CE_TICKS[n] * TICK))
  end
  local a = got.after
  tap.ok(a[1] == true and a[2] == 0 and a[3] == 0 and a[4] == 0 and a[5] == 0,
         "ce2.12-arm: after the thread exited: all four 0 (UserTime no longer valid: simulator-defined)")
  tap.ok(got.limited[1] == false and got.limited[2] == hcp.ERROR_ACCESS_DENIED,
         "ce2.12-arm: a THREAD_QUERY_LIMITED_INFORMATION handle -> ERROR_ACCESS_DENIED (5)")
else
  tap.skip("edge 49 through Lua: the ce2.12-arm guest CPU is not available (the OS side: api/tests/platform_test.c "
           .. "PLAT-CE-TIMES)")
end
do -- the NT rules on the same scenario: the split CE does not make
  local got = ce_run("win10-x64")
  local split = true
  for n = 1, 7 do
    local g = got[n]
    split = split and g[4] == CE_TICKS[n] * TICK and g[5] == 0 and g[2] == BOOT and g[3] == 0
  end
  tap.ok(split, "win10-x64, same scenario: CreationTime = boot, KernelTime = those totals, UserTime 0")
  tap.ok(got.after[3] ~= 0 and got.limited[1] == true,
         "win10-x64: an exit time after exit; THREAD_QUERY_LIMITED_INFORMATION suffices")
end

tap.done_testing()
