-- hcpsim.testlib: what the test scenarios share (conformance/*.lua, scenarios/tests/*.lua):
-- PERFORMANCE_DATA tables whose every field and counter slot holds a recognisable value, so a
-- check sees exactly which bytes a call wrote (the Wine way: poison, call, compare).
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

-- Whether two PERFORMANCE_DATA tables hold the same value in every field and slot.
function M.same_pd(got, want)
  for _, f in ipairs { "Size", "Version", "HwCountersCount", "ContextSwitchCount", "WaitReasonBitMap", "CycleTime",
                       "RetryCount", "Reserved" } do
    if got[f] ~= want[f] then return false end
  end
  for i = 0, 15 do
    local a, b = got.HwCounters[i], want.HwCounters[i]
    if a.Type ~= b.Type or a.Reserved ~= b.Reserved or a.Value ~= b.Value then return false end
  end
  return true
end

return M
