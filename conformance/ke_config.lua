-- KeSetHardwareCounterConfiguration / KeQueryHardwareCounterConfiguration
-- (HCP-SPEC §4; edge cases 40-45), in both semantics.
local hcp = require "hcpsim"
-- KeSetHardwareCounterConfiguration is called here with indexes past the machine's PMCs and types other than
-- PMCCounter on purpose
-- (Windows takes them; the documentation does not): those warnings are expected, any other ends
-- the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w)
  assert(w:find("KeSetHardwareCounterConfiguration", 1, true), w)
end)
local tap = require "hcpsim.tap"

local POISON = string.rep("\xA5", 16)

local function seventeen()
  local l = {}
  for i = 1, 17 do l[i] = { Type = hcp.PMCCounter, Index = i - 1 } end
  return l
end

for _, sem in ipairs { "documented", "observed" } do
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
tap.done_testing()
