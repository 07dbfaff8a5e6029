-- hcpsim.testlib: what the test scenarios share (conformance/*.lua, scenarios/tests/*.lua):
-- PERFORMANCE_DATA tables whose every field and counter slot holds a recognisable value, so a
-- check sees exactly which bytes a call wrote (the Wine way: poison, call, compare); the
-- platform profiles and a loop over those this build can run; a last-error checker for HCP
-- calls.  A helper that two scenarios would otherwise copy belongs here.
local M = {}

-- A PERFORMANCE_DATA with a valid Size (288) and Version (1) and a distinct value elsewhere:
-- HwCountersCount 0x77, ContextSwitchCount 0x11111111, WaitReasonBitMap 0x2222222222222222,
-- CycleTime 0x3333333333333333, RetryCount 0x44444444, Reserved 0x55555555, and slot i
-- { Type = 0x60 + i, Reserved = 0x70 + i, Value = 0x1000 + i }.
function M.sentinel()
  local pd = { Size = 288, Version = 1, HwCountersCount = 0x77, ContextSwitchCount = 0x11111111,
               WaitReasonBitMap = 0x2222222222222222, CycleTime = 0x3333333333333333,
               RetryCount = 0x44444444, Reserved = 0x55555555, HwCounters = {} }
  for i = 0, 15 do pd.HwCounters[i] = { Type = 0x60 + i, Reserved = 0x70 + i, Value = 0x1000 + i } end
  return pd
end

-- A PERFORMANCE_DATA with a valid Size and Version and zero everywhere else.
function M.zeroed()
  local pd = { Size = 288, Version = 1, HwCounters = {} }
  for i = 0, 15 do pd.HwCounters[i] = { Type = 0, Reserved = 0, Value = 0 } end
  return pd
end

local HEADER = { "Size", "Version", "HwCountersCount", "ContextSwitchCount", "WaitReasonBitMap", "CycleTime",
                 "RetryCount", "Reserved" }

-- Whether slot i of two PERFORMANCE_DATA tables holds the same Type, Reserved and Value.
function M.same_slot(got, want, i)
  local a, b = got.HwCounters[i], want.HwCounters[i]
  return a.Type == b.Type and a.Reserved == b.Reserved and a.Value == b.Value
end

-- The first field (a header field's name, or "HwCounters[i]") in which two PERFORMANCE_DATA
-- tables differ, skipping those `except` names (by field name or slot index); nil when none.
function M.differs(got, want, except)
  except = except or {}
  for _, f in ipairs(HEADER) do
    if not except[f] and got[f] ~= want[f] then return f end
  end
  for i = 0, 15 do
    if not except[i] and not M.same_slot(got, want, i) then return "HwCounters[" .. i .. "]" end
  end
  return nil
end

-- Whether two PERFORMANCE_DATA tables hold the same value in every field and slot.
function M.same_pd(got, want) return M.differs(got, want) == nil end

-- Whether every counter slot of two PERFORMANCE_DATA tables is the same (the header aside).
function M.same_slots(got, want)
  for i = 0, 15 do
    if not M.same_slot(got, want, i) then return false end
  end
  return true
end

-- The 288 bytes of a PERFORMANCE_DATA in guest memory with a valid Size and Version and the
-- byte `fill` (default 0xEE) everywhere else.
function M.pd_image(fill)
  return string.pack("<I2B", 288, 1) .. string.rep(fill or "\xEE", 285)
end

-- The platform profiles (api/README.md "Platforms"), and those with the HCP functions.
M.PROFILES = { "win10-x64", "win7-x64", "win7-x86", "win11-arm64", "ce2.12-arm" }
M.HCP_PROFILES = { "win10-x64", "win7-x64", "win7-x86", "win11-arm64" }

-- Per HCP profile's guest ISA (scenarios/kernels/*/spin.S, the thunks in api/README.md "Call
-- gate"): spin(n) retires spin0 + 2n instructions and 2 + n branches (x64 4, x86 5, ARM64 3); a
-- guest import call counts `thunk` instructions of its thunk before the gate (x64 mov + syscall,
-- x86 mov + int 0x2e: 2; ARM64 svc: 1).
M.ISA = {
  ["win10-x64"] = { spin0 = 4, thunk = 2 }, ["win7-x64"] = { spin0 = 4, thunk = 2 },
  ["win7-x86"] = { spin0 = 5, thunk = 2 }, ["win11-arm64"] = { spin0 = 3, thunk = 1 },
}

-- The instructions spin(n) retires on an HCP profile's guest ISA, as a function of n.
function M.spin_instructions(platform)
  local spin0 = M.ISA[platform].spin0
  return function(n) return spin0 + 2 * n end
end

-- Whether hcp.machine accepts the platform (a profile whose guest CPU this build lacks is
-- refused), and if not, why (the message without its "hcp.machine: " prefix).
function M.available(platform)
  local ok, err = pcall(require("hcpsim").machine, { platform = platform })
  if ok then return true end
  return false, (tostring(err):gsub("^.-hcp%.machine: ", ""))
end

-- Runs fn(platform) for each platform of `list` that hcp.machine accepts; for each other one a
-- skipped test (naming the current clauses) says which `what` it leaves out and why.
function M.each_platform(list, what, fn)
  local tap = require "hcpsim.tap"
  for _, p in ipairs(list) do
    if M.available(p) then
      fn(p)
    else
      tap.skip(what .. " on " .. p .. ": its guest CPU is not available (hcp.machine refuses the platform)")
    end
  end
end

-- HCP calls that keep the last error (HCP-LAST-ERROR-UNCHANGED): checker(t) returns
--   call(name, ...)          t:name(...) with the last error set to 0xDEADBEEF before it
--   guest(addr, name, ...)   t:run(addr, ...), the same call from guest code (the import `addr`)
--   report(label)            one test, "\u{A7}9: LABEL: GetLastError unchanged ...": no call so
--                            far changed the last error (HCP-SPEC section 9; this file stays
--                            ASCII: it is compiled into the binary)
M.POISON = 0xDEADBEEF
function M.last_error_checker(t)
  local tap = require "hcpsim.tap"
  local changed, calls = {}, 0
  local function call(name, ...)
    t:SetLastError(M.POISON)
    local r = table.pack(t[name](t, ...))
    calls = calls + 1
    if t:GetLastError() ~= M.POISON then changed[#changed + 1] = name end
    return table.unpack(r, 1, r.n)
  end
  local function guest(addr, name, ...)
    t:SetLastError(M.POISON)
    local r = t:run(addr, ...)
    calls = calls + 1
    if t:GetLastError() ~= M.POISON then changed[#changed + 1] = name .. " (guest)" end
    return r
  end
  local function report(label)
    tap.clause("HCP-LAST-ERROR-UNCHANGED", function()
      tap.is(table.concat(changed, ", "), "", "\u{A7}9: " .. label .. ": GetLastError unchanged after each of the "
             .. calls .. " HCP calls (edge 38)")
    end)
  end
  return call, guest, report
end

-- splitmix64 from `state` on Lua's wrapping 64-bit integers (the same numbers on every host): a
-- function returning the next number each call.
function M.splitmix64(state)
  local s = state
  return function()
    s = s + 0x9E3779B97F4A7C15
    local z = s
    z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ~ (z >> 27)) * 0x94D049BB133111EB
    return z ~ (z >> 31)
  end
end

-- The change of counter `name` between two t:counters() tables.
function M.delta(c0, c1, name) return c1[name] - c0[name] end

return M
