-- Tests added because a mutant of api/ survived the rest of the suite
-- (`make check-mutation`, conformance/mutate.pl; the table is in README.md).
--
-- disable-align-8: DisableThreadProfiling demanding 8-byte alignment passed
-- every other test, which only used 8-aligned blocks and a pointer + 1.  The
-- kernel probes the handle with ProbeForWrite(handle, 0x1C0, 4) (HCP-SPEC §2.2;
-- edge case 33): alignment 4.  So a writable 448-byte range at an address
-- that is 4-aligned but not 8-aligned passes the probe and, not being the
-- block Enable registered, gives 87 with profiling still on; 2-aligned gives
-- STATUS_DATATYPE_MISALIGNMENT -> 998.  Disable does not differ between the
-- semantics; both are run.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

for _, sem in ipairs { "documented", "observed" } do
  local m = hcp.machine { semantics = sem }
  m:thread { name = "disabler", body = function(t)
    local cur = t:GetCurrentThread()
    local rc, ph = t:EnableThreadProfiling(cur, 0, 0)
    tap.clause("HCP-DISABLE-WRONG-POINTER")
    tap.is(rc, 0, sem .. ": Enable succeeds")
    local buf = m:alloc(448 + 16)
    -- p: inside buf, p % 8 == 4, with 448 writable bytes from p.
    local p = buf + ((buf % 8 == 0) and 4 or 0)
    tap.is(p % 8, 4, sem .. ": the test address is 4-aligned and not 8-aligned")
    tap.is(t:DisableThreadProfiling(p), hcp.ERROR_INVALID_PARAMETER,
           sem .. ": Disable(writable 448 bytes at 4 mod 8, not the handle) -> 87: the probe's alignment is 4")
    tap.is(select(2, t:QueryThreadProfiling(cur)), true, sem .. ": profiling stays enabled")
    tap.is(t:DisableThreadProfiling(p + 8), hcp.ERROR_INVALID_PARAMETER, sem .. ": the same 8 bytes further on -> 87")
    tap.clause("HCP-DISABLE-NOACCESS")
    tap.is(t:DisableThreadProfiling(p + 2), hcp.ERROR_NOACCESS, sem .. ": Disable(2 mod 4) -> 998 (misaligned)")
    tap.is(t:DisableThreadProfiling(ph + 2), hcp.ERROR_NOACCESS, sem .. ": Disable(handle + 2) -> 998 (misaligned)")
    tap.is(select(2, t:QueryThreadProfiling(cur)), true, sem .. ": still enabled")
    tap.clause("HCP-DISABLE-WRONG-POINTER")
    tap.is(t:DisableThreadProfiling(ph), 0, sem .. ": the handle itself still disables")
  end }
  m:run()
end
tap.done_testing()
