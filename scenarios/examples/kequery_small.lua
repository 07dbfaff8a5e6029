-- kequery_small.lua: asking KeQueryHardwareCounterConfiguration with a
-- buffer that is too small, and the two-call pattern that follows from it.
--
-- Story: the driver configured three counters.  A caller that passes room
-- for two gets STATUS_BUFFER_TOO_SMALL and, in *Count, the number it needs;
-- the array is not touched.  A caller that does not know the number asks
-- with MaximumCount 0 (a NULL array) first, then again with room for *Count.
-- What to look at: the status, *Count and the array bytes of each call.
--
-- Derivation (api/README.md "Validation order": KeQuery writes *Count
-- first; Count > MaximumCount -> STATUS_BUFFER_TOO_SMALL, array untouched;
-- scenarios/README.md: the binding fills the array with 0xA5 before the call
-- and returns its MaximumCount x 16 bytes after it):
--   * configuration {PMC3, PMC1, PMC0} (KeSet returns STATUS_SUCCESS, 0).
--   * KeQuery(2): 0xC0000023, Count 3, the 32 bytes still all 0xA5.
--   * KeQuery(0): 0xC0000023, Count 3, NULL array: no bytes.
--   * KeQuery(3): STATUS_SUCCESS, Count 3, the elements in the order set,
--     each {Type PMCCounter (0), Index}: 3, 1, 0, as 16-byte HARDWARE_COUNTER
--     elements (Type 4 bytes, Reserved 4, Index 8, little-endian).
--   * KeQuery(5): STATUS_SUCCESS, Count 3; elements 3 and 4 (bytes 48..79)
--     keep their 0xA5: only Count elements are written.
local hcp = require "hcpsim"
-- KeSetHardwareCounterConfiguration is called here with an index past the machine's PMCs on purpose
-- (Windows takes them; the documentation does not): those warnings are expected, any other ends
-- the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w)
  assert(w:find("KeSetHardwareCounterConfiguration", 1, true), w)
end)
local tap = require "hcpsim.tap"

local m = hcp.machine {}
local set = m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 3 },
                                                  { Type = hcp.PMCCounter, Index = 1 },
                                                  { Type = hcp.PMCCounter, Index = 0 } }
print(string.format("KeSet {PMC3, PMC1, PMC0} -> %s", hcp.status_name(set) or hcp.hex(set)))

local q = {}
for _, max in ipairs { 2, 0, 3, 5 } do
  local status, list, count, raw = m:KeQueryHardwareCounterConfiguration(max)
  local idx = {}
  for _, e in ipairs(list or {}) do idx[#idx + 1] = tostring(e.Index) end
  q[max] = { status = status, list = list, count = count, raw = raw, indexes = table.concat(idx, ",") }
  print(string.format("KeQuery(MaximumCount %d) -> %-23s Count %d  indexes {%s}  %d array bytes, %d of them 0xA5", max,
                      hcp.status_name(status) or hcp.hex(status), count, q[max].indexes, #raw,
                      select(2, raw:gsub("\xA5", ""))))
end

tap.clause("HCP-KE-QUERY-TOO-SMALL")
tap.is(set, 0, "the configuration of three counters is set")
tap.ok(q[2].status == 0xC0000023 and q[2].count == 3, "room for 2: STATUS_BUFFER_TOO_SMALL and Count 3")
tap.is(q[2].raw, string.rep("\xA5", 32), "room for 2: the array is untouched")
tap.ok(q[0].status == 0xC0000023 and q[0].count == 3 and q[0].raw == "",
       "MaximumCount 0: STATUS_BUFFER_TOO_SMALL, Count 3, nothing written")
tap.clause("HCP-KE-SET-QUERY")
tap.ok(q[3].status == 0 and q[3].count == 3 and q[3].indexes == "3,1,0", "room for 3: the counters in the order set")
local function element(v) return string.pack("<I4I4I8", hcp.PMCCounter, 0, v) end
tap.is(q[3].raw, element(3) .. element(1) .. element(0), "room for 3: 48 bytes of {Type, Reserved, Index} elements")
tap.is(q[5].raw:sub(49), string.rep("\xA5", 32), "room for 5: the two spare elements are untouched")
tap.done_testing()
