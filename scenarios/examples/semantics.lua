-- semantics.lua: the same calls under the documented and the observed
-- semantics, side by side.
--
-- Story: where Microsoft's documentation and what Windows 10/11 does differ,
-- hcpsim implements both: hcp.machine{semantics = "documented"} (the default)
-- or "observed".  This scenario runs one sequence of calls on a machine of
-- each kind and prints the results next to each other.  Each read starts
-- from a buffer full of sentinels (0x33... in CycleTime, 0x60 + i in the Type
-- of HwCounters[i]), so "untouched" shows.
-- What to look at: the rows where the two columns differ.
--
-- Derivation (api/README.md "Semantics: documented vs observed"; cost =
-- "unit"): both machines configure two counters, element 0 = PMC0
-- (instructions) and element 1 = PMC1 (branches), enable with the dispatch
-- flag and mask 0x5 (bits 0 and 2: element 2 is not configured), and run
-- spin(10): 4 + 2 x 10 = 24 instructions = 24 cycles of CycleTime.
--   row                         documented               observed
--   Read, flags 0               nothing written:         CycleTime 24,
--                               CycleTime 0x3333...      WaitReasonBitMap 0
--   Read, HARDWARE_COUNTERS     CycleTime untouched      CycleTime 24 (always
--     only                      (needs DISPATCHING)      written)
--   HwCounters[0] (bit 0)       {PMCCounter, 24}         {PMCCounter, 24}
--   HwCounters[2] (bit 2, not   zeroed: Type 0 (PMC-     untouched: Type 0x62
--     configured)               Counter), Value 0
--   HwCountersCount             1 (elements with data)   2 (configured counters)
--   KeSet {PMC2} over {0, 1}    0 (no index repeats:     0xC0000303 (any config-
--                               replaces)                uration blocks a new one)
--   KeSet {PMC0} over {0, 1}    0xC0000303 (index 0      0xC0000303
--                               is configured)
-- Each KeSet row starts from the configuration {0, 1} again (cleared with a
-- Count 0 KeSet, then set).
local hcp = require "hcpsim"
-- KeSetHardwareCounterConfiguration is called here with an index past the machine's PMCs on purpose
-- (Windows takes them; the documentation does not): those warnings are expected, any other ends
-- the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w)
  assert(w:find("KeSetHardwareCounterConfiguration", 1, true), w)
end)
local tap = require "hcpsim.tap"

local DISP = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING
local HW = hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS
local SENT_CYCLES = 0x3333333333333333

local function sentinel()
  local pd = { Size = 288, Version = 1, HwCountersCount = 0x77, ContextSwitchCount = 0x11111111,
               WaitReasonBitMap = 0x2222222222222222, CycleTime = SENT_CYCLES, RetryCount = 0x44444444,
               Reserved = 0x55555555, HwCounters = {} }
  for i = 0, 15 do pd.HwCounters[i] = { Type = 0x60 + i, Reserved = 0x70 + i, Value = 0x1000 + i } end
  return pd
end

local function configure(m)
  m:KeSetHardwareCounterConfiguration({}, 0)
  return m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 },
                                               { Type = hcp.PMCCounter, Index = 1 } }
end

local function run(sem)
  local m = hcp.machine { semantics = sem, cost = "unit", pmc = { "instructions", "branches" } }
  assert(configure(m) == 0)
  local k = m:load "kernels"
  local r = {}
  m:thread { name = sem, body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0x5)
    assert(rc == hcp.ERROR_SUCCESS)
    t:run(k.spin, 10)
    local _, zero = t:ReadThreadProfilingData(ph, 0, sentinel())
    local _, hw = t:ReadThreadProfilingData(ph, HW, sentinel())
    r.zero_cycles, r.zero_bitmap = zero.CycleTime, zero.WaitReasonBitMap
    r.hw_cycles, r.slot0, r.slot2, r.count = hw.CycleTime, hw.HwCounters[0], hw.HwCounters[2], hw.HwCountersCount
    t:DisableThreadProfiling(ph)
  end }
  m:run()
  assert(configure(m) == 0)
  r.keset_new = m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 2 } }
  assert(configure(m) == 0)
  r.keset_same = m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 } }
  return r
end

local doc, obs = run("documented"), run("observed")
local function cyc(v) return v == SENT_CYCLES and "untouched" or tostring(v) end
local function slot(s) return string.format("Type 0x%X Value %d", s.Type, s.Value) end
local rows = {
  { "Read flags 0: CycleTime", cyc(doc.zero_cycles), cyc(obs.zero_cycles) },
  { "Read flags 0: WaitReasonBitMap", hcp.hex(doc.zero_bitmap), hcp.hex(obs.zero_bitmap) },
  { "Read HW only: CycleTime", cyc(doc.hw_cycles), cyc(obs.hw_cycles) },
  { "HwCounters[0]", slot(doc.slot0), slot(obs.slot0) },
  { "HwCounters[2] (unconfigured)", slot(doc.slot2), slot(obs.slot2) },
  { "HwCountersCount", tostring(doc.count), tostring(obs.count) },
  { "KeSet {PMC2} over {PMC0, PMC1}", hcp.hex(doc.keset_new), hcp.hex(obs.keset_new) },
  { "KeSet {PMC0} over {PMC0, PMC1}", hcp.hex(doc.keset_same), hcp.hex(obs.keset_same) },
}
print(string.format("%-32s %-24s %s", "", "documented", "observed"))
for _, row in ipairs(rows) do print(string.format("%-32s %-24s %s", row[1], row[2], row[3])) end

tap.clause("HCP-READ-FLAGS-ZERO")
tap.is(doc.zero_cycles, SENT_CYCLES, "documented: a read with flags 0 writes nothing")
tap.ok(obs.zero_cycles == 24 and obs.zero_bitmap == 0, "observed: flags 0 writes CycleTime 24 and WaitReasonBitMap 0")
tap.clause("HCP-READ-DISPATCH-FIELDS")
tap.is(doc.hw_cycles, SENT_CYCLES, "documented: CycleTime is written with DISPATCHING only")
tap.is(obs.hw_cycles, 24, "observed: CycleTime is always written")
tap.clause("HCP-READ-COUNTER-VALUES")
tap.ok(doc.slot0.Type == hcp.PMCCounter and doc.slot0.Value == 24 and obs.slot0.Type == hcp.PMCCounter and
       obs.slot0.Value == 24, "both: HwCounters[0] = PMC0 = 24 instructions of spin(10)")
tap.clause("HCP-READ-UNCONFIGURED-ZERO")
tap.ok(doc.slot2.Type == 0 and doc.slot2.Reserved == 0 and doc.slot2.Value == 0,
       "documented: the unconfigured slot is zeroed")
tap.ok(obs.slot2.Type == 0x62 and obs.slot2.Reserved == 0x72 and obs.slot2.Value == 0x1002,
       "observed: the unconfigured slot is untouched")
tap.clause("HCP-READ-HWCOUNTERSCOUNT")
tap.is(doc.count, 1, "documented: HwCountersCount = elements holding data")
tap.is(obs.count, 2, "observed: HwCountersCount = configured counters")
tap.clause("HCP-KE-SET-ALREADY-ENABLED")
tap.is(doc.keset_new, 0, "documented: a KeSet that repeats no configured index replaces the configuration")
tap.is(obs.keset_new, 0xC0000303, "observed: any configuration blocks a new one")
tap.ok(doc.keset_same == 0xC0000303 and obs.keset_same == 0xC0000303,
       "both: a KeSet naming a configured index is STATUS_WMI_ALREADY_ENABLED")
tap.done_testing()
