-- etw_trace.lua: the NT Kernel Logger's view of a short run.
--
-- Story: "a" does some work and waits on an event; "b" does some work, sets
-- the event and ends; "a" wakes up and ends.  A kernel logger session with
-- the THREAD, CSWITCH and DISPATCHER flags is started before the run and
-- records every thread event.  What to look at: the event sequence, who
-- logged each event (the header's ThreadId) and its time stamp.
--
-- Derivation (api/README.md "ETW", "When" and "Header"; sim/README.md;
-- cost = "unit", 3 GHz, so a time stamp is boot_time + floor(cycles / 300)
-- in 100-ns units):
--   1, 2. Starting a THREAD session logs DCStart for each live thread in
--      creation order: a (1000), b (1004), outside any body (context 0), at 0.
--   3. m:run: CPU 0 switches from idle (0) to a: CSwitch 0 -> 1000 at 0,
--      logged in the idle context (0), old state 0 (idle has none).
--   4. a runs spin(2998) = 6,000 cycles and waits on the event: CSwitch
--      1000 -> 1004 at 6,000 (+20), logged by a, a Waiting (5) for
--      UserRequest (6).
--   5. b runs spin(1498) = 3,000 cycles and sets the event: a is readied,
--      ReadyThread of 1000 logged by b at 9,000 (+30).
--   6, 7. b's body ends: End of 1004 logged by b, then its last CSwitch
--      1004 -> 1000, b Terminated (4) with wait reason Executive (0), at 9,000.
--   8, 9. a's body ends at once: End of 1000, CSwitch 1000 -> 0 (idle), a
--      Terminated (4), Executive (0), at 9,000.  The session stops with the run; no thread is alive, so no
--      DCEnd.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local m = hcp.machine { cost = "unit" }
local k = m:load "kernels"
local ev = m:event {}
m:thread { name = "a", body = function(t)
  t:run(k.spin, 2998)
  t:WaitForSingleObject(ev)
end }
m:thread { name = "b", body = function(t)
  t:run(k.spin, 1498)
  t:SetEvent(ev)
end }

local BOOT = 134116992000000000 -- the default boot_time, 2026-01-01 00:00 UTC
local lines = {}
local session = m:trace {
  flags = hcp.EVENT_TRACE_FLAG_THREAD | hcp.EVENT_TRACE_FLAG_CSWITCH | hcp.EVENT_TRACE_FLAG_DISPATCHER,
  on_event = function(e)
    local d, what = e.data, ""
    if e.name == "CSwitch" then
      what = string.format("%d -> %d, old state %d, wait reason %d", d.OldThreadId, d.NewThreadId, d.OldThreadState,
                           d.OldThreadWaitReason)
    else
      what = string.format("thread %d", d.TThreadId)
    end
    lines[#lines + 1] = string.format("+%-3d cpu %d by %4d  %-11s %s", e.header.TimeStamp - BOOT, e.cpu,
                                      e.header.ThreadId, e.name, what)
  end,
}
m:run()

print("time  cpu  logged by   event       details")
for _, l in ipairs(lines) do print(l) end

tap.clause("ETW-SEQUENCE", "ETW-RUNDOWN", "ETW-CONTEXT")
local expected = {
  "+0   cpu 0 by    0  DCStart     thread 1000",
  "+0   cpu 0 by    0  DCStart     thread 1004",
  "+0   cpu 0 by    0  CSwitch     0 -> 1000, old state 0, wait reason 0",
  "+20  cpu 0 by 1000  CSwitch     1000 -> 1004, old state 5, wait reason 6",
  "+30  cpu 0 by 1004  ReadyThread thread 1000",
  "+30  cpu 0 by 1004  End         thread 1004",
  "+30  cpu 0 by 1004  CSwitch     1004 -> 1000, old state 4, wait reason 0",
  "+30  cpu 0 by 1000  End         thread 1000",
  "+30  cpu 0 by 1000  CSwitch     1000 -> 0, old state 4, wait reason 0",
}
tap.is(#lines, #expected, "nine events")
for i = 1, #expected do tap.is(lines[i], expected[i], "event " .. i) end
tap.is(session.active, false, "the session stopped with the run")
tap.done_testing()
