-- Structures, constants and codes of the HCP functions (HCP-SPEC §3, §5, §6; edge cases 1-3,
-- 57, 58): the bytes ReadThreadProfilingData writes at each PERFORMANCE_DATA offset and the
-- HARDWARE_COUNTER elements KeQuery writes, in both semantics on every HCP profile, and the
-- values of the constants, wait reasons and error codes a scenario sees.  The C side
-- (sizeof, offsetof, every NTSTATUS -> Win32 pair) is api/tests/layout_test.c.
--
-- Expected values: the offsets and sizes from HCP-SPEC §3.3 and the headers; spin(n) retires
-- spin0 + 2n instructions per guest ISA and a guest import call counts its thunk's
-- instructions before the gate (testlib.ISA); with cost = "unit" a cycle is an instruction and
-- API calls cost nothing; constants from winnt.h, winerror.h and ntstatus.h (§5).
local hcp = require "hcpsim"
-- KeSetHardwareCounterConfiguration is called here with indexes past the machine's PMCs on purpose
-- (Windows takes them; the documentation does not): those warnings are expected, any other ends
-- the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("KeSetHardwareCounterConfiguration", 1, true), w) end)
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local DISP = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING
local HW = hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS
local FLAG = hcp.THREAD_PROFILING_FLAG_DISPATCH
local CUR = -2
local SEMS = { "documented", "observed" }

-- PERFORMANCE_DATA header as bytes (HCP-SPEC §3.3): Size@0 Version@2 HwCountersCount@3
-- ContextSwitchCount@4 WaitReasonBitMap@8 CycleTime@16 RetryCount@24 Reserved@28.
local PD_HEAD = "<I2BBI4I8I8I4I4"

------------------------------------------------------------------------------
-- edge 1, 2 on every HCP profile, both semantics.
------------------------------------------------------------------------------
testlib.each_platform(testlib.HCP_PROFILES, "edges 1, 2", function(platform)
  local P = platform .. ": "
  local TH = testlib.ISA[platform].thunk
  local spin = testlib.spin_instructions(platform)

  -- edge 1, 2: the bytes Read writes lie at the header offsets; elements are
  -- 16 bytes, Type a 4-byte enum.  A guest buffer (not the Lua binding, which
  -- decodes by the same offsets) is poisoned with 0xEE, read by guest code
  -- through the ReadThreadProfilingData import, and compared byte for byte.
  -- 16 counters configured (element i = PMC i; only PMC0 has an event:
  -- instructions), mask 0x8001: slots 0 and 15.  A guest Read after a Lua
  -- Enable counts its thunk's instructions before the gate (api/README.md
  -- "Call gate"): spin(5) + THUNK (x64: 14 + 2 = 16), cycles the same (unit cost).
  for _, sem in ipairs(SEMS) do
    local m = hcp.machine { platform = platform, semantics = sem, pmc = { "instructions" }, cost = "unit" }
    local cfg = {}
    for i = 1, 16 do cfg[i] = { Type = hcp.PMCCounter, Index = i - 1 } end
    assert(m:KeSetHardwareCounterConfiguration(cfg) == hcp.STATUS_SUCCESS)
    local imp, k = m:imports(), m:load "kernels"
    m:thread { name = "layout", body = function(t)
      tap.clause("HCP-LAYOUT-PERFORMANCE-DATA")
      local buf = m:alloc(288)
      m:write(buf, testlib.pd_image())
      local _, ph = t:EnableThreadProfiling(CUR, FLAG, 0x8001)
      t:run(k.spin, 5)
      tap.is(t:run(imp.ReadThreadProfilingData, ph, DISP | HW, buf), 0, "edge 1: " .. P .. sem .. ": guest Read succeeds")
      local raw = m:read(buf, 288)
      local count = sem == "observed" and 16 or 2 -- §11.5: configured counters / elements holding data
      local win = spin(5) + TH
      local want = string.pack(PD_HEAD, 288, 1, count, 0, 0, win, 0, 0xEEEEEEEE)
                   .. string.pack("<I4I4I8", hcp.PMCCounter, 0, win) .. string.rep("\xEE", 16 * 14)
                   .. string.pack("<I4I4I8", hcp.PMCCounter, 0, 0)
      tap.is(#raw, 288, "edge 1: " .. P .. sem .. ": sizeof(PERFORMANCE_DATA) = 288")
      tap.is(raw, want, "edge 1: " .. P .. sem .. ": Size@0 Version@2 HwCountersCount@3 ContextSwitchCount@4 "
             .. "WaitReasonBitMap@8 CycleTime@16 RetryCount@24, Reserved@28 untouched, HwCounters@32, [15]@272")
      tap.clause("HCP-LAYOUT-HARDWARE-COUNTER")
      tap.is(raw:sub(33, 48), string.pack("<I4I4I8", 0, 0, win),
             "edge 2: " .. P .. sem .. ": HARDWARE_COUNTER_DATA = Type (4-byte enum) @0, Reserved @4, Value @8: 16 bytes")
      tap.is(raw:sub(49, 64), string.rep("\xEE", 16), "edge 2: " .. P .. sem .. ": the next element starts 16 bytes on")
      t:DisableThreadProfiling(ph)
    end }
    m:run()
    tap.clause("HCP-LAYOUT-HARDWARE-COUNTER")
    local st, _, n, raw = m:KeQueryHardwareCounterConfiguration(17)
    local want = {}
    for i = 0, 15 do want[#want + 1] = string.pack("<I4I4I8", hcp.PMCCounter, 0, i) end
    want[#want + 1] = string.rep("\xA5", 16)
    tap.ok(st == hcp.STATUS_SUCCESS and n == 16, "edge 2: " .. P .. sem .. ": KeQuery of 16 counters")
    tap.is(raw, table.concat(want),
           "edge 2: " .. P .. sem .. ": HARDWARE_COUNTER = Type @0, Reserved @4, Index @8: 16 bytes each, nothing after")
  end
end)

------------------------------------------------------------------------------
-- Profile-independent: constants and enumerations (edges 3, 57, 58).
------------------------------------------------------------------------------
local function const(name)
  local ok, v = pcall(function() return hcp[name] end)
  return ok and v or nil
end
local function consts(clause, edge, list)
  tap.clause(clause)
  for _, c in ipairs(list) do tap.is(const(c[1]), c[2], string.format("edge %d: hcp.%s = %s", edge, c[1], c[3] or c[2])) end
end

consts("HCP-CONSTANTS", 3, {
  { "MAX_HW_COUNTERS", 16 }, { "THREAD_PROFILING_FLAG_DISPATCH", 1 }, { "PERFORMANCE_DATA_VERSION", 1 },
  { "READ_THREAD_PROFILING_FLAG_DISPATCHING", 1 }, { "READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS", 2 },
  { "PMCCounter", 0 }, { "MaxHardwareCounterType", 1 },
})
consts("HCP-KWAIT-REASON-VALUES", 57, {
  { "Executive", 0 }, { "DelayExecution", 4 }, { "UserRequest", 6 }, { "WrQueue", 15 }, { "WrQuantumEnd", 30 },
  { "WrDispatchInt", 31 }, { "WrPreempted", 32 }, { "WrYieldExecution", 33 }, { "WrAlertByThreadId", 37 },
  { "WrPhysicalFault", 39 }, { "MaximumWaitReason", 40 },
})
consts("HCP-ERROR-NUMBERS", 58, {
  { "ERROR_ACCESS_DENIED", 5 }, { "ERROR_INVALID_HANDLE", 6 }, { "ERROR_NOT_ENOUGH_MEMORY", 8 },
  { "ERROR_NOT_SUPPORTED", 50 }, { "ERROR_INVALID_PARAMETER", 87 }, { "ERROR_NOACCESS", 998 },
  { "ERROR_INVALID_USER_BUFFER", 1784 }, { "ERROR_WMI_ALREADY_ENABLED", 4206 }, { "ERROR_WMI_ALREADY_DISABLED", 4212 },
  { "STATUS_ACCESS_DENIED", 0xC0000022, "0xC0000022" }, { "STATUS_INVALID_HANDLE", 0xC0000008, "0xC0000008" },
  { "STATUS_OBJECT_TYPE_MISMATCH", 0xC0000024, "0xC0000024" }, { "STATUS_NO_MEMORY", 0xC0000017, "0xC0000017" },
  { "STATUS_NOT_SUPPORTED", 0xC00000BB, "0xC00000BB" }, { "STATUS_INVALID_PARAMETER", 0xC000000D, "0xC000000D" },
  { "STATUS_INVALID_PARAMETER_1", 0xC00000EF, "0xC00000EF" }, { "STATUS_INVALID_PARAMETER_2", 0xC00000F0, "0xC00000F0" },
  { "STATUS_INVALID_PARAMETER_3", 0xC00000F1, "0xC00000F1" }, { "STATUS_ACCESS_VIOLATION", 0xC0000005, "0xC0000005" },
  { "STATUS_DATATYPE_MISALIGNMENT", 0x80000002, "0x80000002" },
  { "STATUS_INVALID_BUFFER_SIZE", 0xC0000206, "0xC0000206" }, { "STATUS_WMI_ALREADY_ENABLED", 0xC0000303, "0xC0000303" },
  { "STATUS_WMI_ALREADY_DISABLED", 0xC0000302, "0xC0000302" },
})

tap.done_testing()
