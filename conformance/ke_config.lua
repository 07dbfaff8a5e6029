-- KeSetHardwareCounterConfiguration / KeQueryHardwareCounterConfiguration
-- (HCP-SPEC §4; edge cases 40-45), in both semantics; the simulator-defined result of an
-- unreadable array (api/README.md "Simulator-defined"); edge 42 on every HCP profile.  The
-- home of the HCP-KE- and SIMDEF-KESET- clauses (README.md "Where a test goes").
local hcp = require "hcpsim"
-- KeSetHardwareCounterConfiguration is called here with indexes past the machine's PMCs and types other than
-- PMCCounter on purpose
-- (Windows takes them; the documentation does not): those warnings are expected, any other ends
-- the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w)
  assert(w:find("KeSetHardwareCounterConfiguration", 1, true), w)
end)
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local POISON = string.rep("\xA5", 16)
local SEMS = { "documented", "observed" }

local function seventeen()
  local l = {}
  for i = 1, 17 do l[i] = { Type = hcp.PMCCounter, Index = i - 1 } end
  return l
end

for _, sem in ipairs(SEMS) do
  local m = hcp.machine { semantics = sem }

  tap.clause("HCP-KE-BOOT-EMPTY")
  local st, list, count = m:KeQueryHardwareCounterConfiguration(16)
  tap.is(st, hcp.STATUS_SUCCESS, sem .. ": query at boot succeeds")
  tap.is(count, 0, sem .. ": the boot configuration is empty")
  tap.is(#list, 0, sem .. ": no elements")
  local st0, _, c0 = m:KeQueryHardwareCounterConfiguration(0)
  tap.is(st0, hcp.STATUS_SUCCESS, sem .. ": empty configuration, NULL array, MaximumCount 0: success")
  tap.is(c0, 0, sem .. ": Count 0")

  tap.clause("HCP-KE-SET-TOO-MANY")
  tap.is(m:KeSetHardwareCounterConfiguration(seventeen()), hcp.STATUS_INVALID_PARAMETER, sem .. ": Count 17 -> STATUS_INVALID_PARAMETER")
  tap.is(select(3, m:KeQueryHardwareCounterConfiguration(16)), 0, sem .. ": and the configuration is unchanged")

  tap.clause("HCP-KE-SET-QUERY")
  tap.is(m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 5 },
                                               { Type = hcp.MaxHardwareCounterType, Reserved = 9, Index = 0x100000002 } },
         hcp.STATUS_SUCCESS, sem .. ": two counters (odd Type and Reserved are not validated)")
  local st2, l2, c2 = m:KeQueryHardwareCounterConfiguration(16)
  tap.is(st2, hcp.STATUS_SUCCESS, sem .. ": query succeeds")
  tap.is(c2, 2, sem .. ": Count 2")
  tap.is(l2[1].Index, 5, sem .. ": element 0 Index 5")
  tap.is(l2[2].Index, 2, sem .. ": element 1 Index keeps the low 32 bits of 0x100000002")
  tap.ok(l2[1].Type == hcp.PMCCounter and l2[2].Type == hcp.PMCCounter, sem .. ": Type reported as PMCCounter")
  tap.ok(l2[1].Reserved == 0 and l2[2].Reserved == 0, sem .. ": Reserved reported as 0")

  tap.clause("HCP-KE-QUERY-TOO-SMALL")
  local st3, l3, c3, raw = m:KeQueryHardwareCounterConfiguration(1)
  tap.is(st3, hcp.STATUS_BUFFER_TOO_SMALL, sem .. ": MaximumCount 1 < 2 -> STATUS_BUFFER_TOO_SMALL")
  tap.is(c3, 2, sem .. ": the required element count is written")
  tap.is(raw, POISON, sem .. ": nothing is written to the array")
  tap.is(#l3, 0, sem .. ": no elements returned")
  tap.is(select(3, m:KeQueryHardwareCounterConfiguration(0)), 2, sem .. ": MaximumCount 0 reports the count too")

  tap.clause("HCP-KE-SET-ALREADY-ENABLED")
  tap.is(m:KeSetHardwareCounterConfiguration { { Index = 5 } }, hcp.STATUS_WMI_ALREADY_ENABLED,
         sem .. ": a counter already in the configuration -> STATUS_WMI_ALREADY_ENABLED")
  local other = m:KeSetHardwareCounterConfiguration { { Index = 7 } }
  if sem == "observed" then
    tap.is(other, hcp.STATUS_WMI_ALREADY_ENABLED, "observed: any non-empty configuration blocks a new one")
  else
    tap.is(other, hcp.STATUS_SUCCESS, "documented: different counters replace the configuration")
    tap.is(select(3, m:KeQueryHardwareCounterConfiguration(16)), 1, "documented: now one counter")
  end

  tap.clause("HCP-KE-SET-CLEAR")
  tap.is(m:KeSetHardwareCounterConfiguration({}, 0), hcp.STATUS_SUCCESS, sem .. ": Count 0 clears")
  tap.is(select(3, m:KeQueryHardwareCounterConfiguration(16)), 0, sem .. ": the configuration is empty")
  local sixteen = seventeen()
  sixteen[17] = nil
  tap.is(m:KeSetHardwareCounterConfiguration(sixteen), hcp.STATUS_SUCCESS, sem .. ": then 16 counters succeed")
  local _, l16, c16 = m:KeQueryHardwareCounterConfiguration(16)
  tap.is(c16, 16, sem .. ": Count 16")
  tap.is(l16[16].Index, 15, sem .. ": element 15 Index 15")
  tap.is(m:KeSetHardwareCounterConfiguration(seventeen()), hcp.STATUS_INVALID_PARAMETER,
         sem .. ": Count 17 is refused before the already-enabled check")
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

-- edge 42 on every HCP profile: any non-empty configuration blocks a new one of
-- any Count 1..16 (observed); documented blocks only a request naming an index
-- that is already configured.
testlib.each_platform(testlib.HCP_PROFILES, "edge 42", function(platform)
  local P = platform .. ": "
  for _, sem in ipairs(SEMS) do
    local m = hcp.machine { platform = platform, semantics = sem }
    local S = sem .. ": "
    local function block(from)
      local l = {}
      for i = 1, 16 do l[i] = { Type = hcp.PMCCounter, Index = from + i - 1 } end
      return l
    end
    tap.clause("HCP-KE-SET-ALREADY-ENABLED")
    assert(m:KeSetHardwareCounterConfiguration { { Index = 5 } } == hcp.STATUS_SUCCESS)
    local fresh = m:KeSetHardwareCounterConfiguration(block(16)) -- indices 16..31: none configured
    if sem == "observed" then
      tap.is(fresh, hcp.STATUS_WMI_ALREADY_ENABLED, "edge 42: " .. P .. S .. "Count 16 of new indices -> ALREADY_ENABLED")
      tap.is(select(3, m:KeQueryHardwareCounterConfiguration(16)), 1, "edge 42: " .. P .. S .. "configuration unchanged")
      tap.is(m:KeSetHardwareCounterConfiguration({}, 0), hcp.STATUS_SUCCESS, "edge 42: " .. P .. S .. "KeSet(0) clears")
      tap.is(m:KeSetHardwareCounterConfiguration(block(16)), hcp.STATUS_SUCCESS,
             "edge 42: " .. P .. S .. "then Count 16 succeeds")
    else
      tap.is(fresh, hcp.STATUS_SUCCESS, "edge 42: " .. P .. S .. "Count 16 of indices not configured replaces")
    end
    tap.is(select(3, m:KeQueryHardwareCounterConfiguration(16)), 16, "edge 42: " .. P .. S .. "16 configured")
    tap.is(m:KeSetHardwareCounterConfiguration(block(31)), hcp.STATUS_WMI_ALREADY_ENABLED,
           "edge 42: " .. P .. S .. "Count 16 overlapping index 31 -> ALREADY_ENABLED")
    local _, l = m:KeQueryHardwareCounterConfiguration(16)
    tap.ok(l[1].Index == 16 and l[16].Index == 31, "edge 42: " .. P .. S .. "the failed call changed nothing")
  end
end)
tap.done_testing()
