-- NT Kernel Logger thread events through m:trace (HCP-SPEC §6, §7; edge cases
-- 52-56), the home of the ETW- clauses (README.md "Where a test goes"): every event is compared byte for byte with an EVENT_TRACE_HEADER and
-- a MOF payload packed here from the spec's field lists (§7.3, §7.4) and the
-- values the schedule implies.  Schedules are derived by hand from the rules
-- in sim/README.md, with cost = "unit" (one cycle per instruction, no API-call
-- cost) and tick = 1000 x 100 ns = 300000 cycles at 3 GHz, each clock
-- interrupt costing 2000 cycles; spin(n) retires 4 + 2n instructions.
--
-- The values the simulator chooses where Windows leaves them open are stated
-- in api/README.md "ETW": process id 996, the context 0/0 (system/idle) when no
-- thread runs, TimeStamp = boot_time + virtual time in 100 ns, Kernel/UserTime
-- in clock ticks, stacks only while a thread is inside t:run, PagePriority 5,
-- IoPriority 2, and 0 for what is not modelled.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local THREAD, CSWITCH, DISPATCHER =
  hcp.EVENT_TRACE_FLAG_THREAD, hcp.EVENT_TRACE_FLAG_CSWITCH, hcp.EVENT_TRACE_FLAG_DISPATCHER
local ALL = THREAD | CSWITCH | DISPATCHER
local PID = 996                         -- the scenario's process (api/README.md "ETW")
local BOOT = 134116992000000000         -- default boot_time: 2026-01-01 00:00 UTC as a FILETIME
local START, END, DC_START, DC_END, CSW, READY = 1, 2, 3, 4, 36, 50
-- ThreadGuid {3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c} in memory: Data1, Data2, Data3 little-endian, Data4 as written
local GUID = string.pack("<I4I2I2", 0x3d6fa8d1, 0xfe05, 0x11d0) .. "\x9d\xda\x00\xc0\x4f\xd7\xba\x7c"

local function hex(s) return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end)) end
local function is_bytes(got, want, name) return tap.is(got and hex(got), hex(want), name) end

-- cycles at 3 GHz -> 100-ns units, rounded down
local function ft(cycles) return BOOT + cycles * 10000000 // 3000000000 end

-- EVENT_TRACE_HEADER (§7.4): Size, FieldTypeFlags, Class.Type, Class.Level, Class.Version, ThreadId,
-- ProcessId, TimeStamp, Guid, KernelTime, UserTime
local function header(payload_size, type, version, tid, ts, kt, ut)
  return string.pack("<I2I2BBI2I4I4i8", 48 + payload_size, 0, type, 0, version, tid, tid ~= 0 and PID or 0, ts)
         .. GUID .. string.pack("<I4I4", kt or 0, ut or 0)
end

-- Thread_TypeGroup1 V3, 64-bit logger (§7.3): ProcessId, TThreadId, StackBase, StackLimit, UserStackBase,
-- UserStackLimit, Affinity, Win32StartAddr, TebBase (P = 8 bytes), SubProcessTag, BasePriority, PagePriority,
-- IoPriority, ThreadFlags
local function thread_payload(tid, prio, affinity, stack_hi, stack_lo)
  stack_hi, stack_lo = stack_hi or 0, stack_lo or 0
  return string.pack("<I4I4I8I8I8I8I8I8I8I4BBBB", PID, tid, stack_hi, stack_lo, stack_hi, stack_lo, affinity or 1,
                     0, 0, 0, prio, 5, 2, 0)
end
local function thread_event(type, ctx, ts, tid, prio, affinity, stack_hi, stack_lo)
  return header(72, type, 3, ctx, ts) .. thread_payload(tid, prio, affinity, stack_hi, stack_lo)
end

-- CSwitch (§7.3, E5): NewThreadId, OldThreadId, NewThreadPriority, OldThreadPriority, PreviousCState, SpareByte,
-- OldThreadWaitReason, OldThreadWaitMode, OldThreadState, OldThreadWaitIdealProcessor, NewThreadWaitTime, Reserved.
-- Logged in the outgoing thread's context.
local function cswitch(ts, new, newp, old, oldp, reason, mode, state, ideal)
  return header(24, CSW, 2, old, ts)
         .. string.pack("<I4I4bbBbbbbbI4I4", new, old, newp, oldp, 0, 0, reason, mode, state, ideal or 0, 0, 0)
end

-- ReadyThread (§7.3, E6): TThreadId, AdjustReason, AdjustIncrement, Flag, Reserved; in the readying context.
local function ready(ctx, ts, tid, flag)
  return header(8, READY, 2, ctx, ts) .. string.pack("<I4bbbb", tid, 0, 0, flag or 0, 0)
end

-- compares a list of events with a list of expected raw strings, one test each
local function check_sequence(evs, want, label)
  tap.is(#evs, #want, label .. ": number of events")
  for i = 1, math.max(#evs, #want) do
    is_bytes(evs[i] and evs[i].raw, want[i] or "", string.format("%s: event %d (%s)", label, i,
             evs[i] and evs[i].name or "missing"))
  end
end

local function collector(list)
  return function(ev) list[#list + 1] = ev end
end

local Running, Ready, Waiting, Terminated = 2, 1, 5, 4
local KernelMode, UserMode = 0, 1

------------------------------------------------------------------------------
-- 1. A known schedule with every class (one CPU).  Threads H (id 1000, priority
--    12), L (1004, 8) and Y (1008, 8) are created after the session started,
--    before m:run, so their Start and ReadyThread events are logged in the
--    system context 0/0 at time 0.
--
--  t=0        H runs first (highest priority), waits on event E: UserRequest, UserMode, Waiting.
--             L runs (created before Y): spin(1000) = 2004 cycles.
--  t=2004     L: SetEvent(E) readies H (in L's context) and H preempts L at once: WrPreempted,
--             KernelMode, L back in the Ready state.  H's wait returns; H ends: its End in its
--             own context, then its last CSwitch (Terminated, Executive) to L, head of priority 8.
--             L: SwitchToThread -> Y: WrYieldExecution, Ready.  Y: Sleep(0) with L ready at its
--             priority -> L: WrYieldExecution.  L: Sleep(1) (due 2004 + 3000000): DelayExecution,
--             UserMode, Waiting -> Y.  Y waits for thread L: UserRequest -> idle.
--  t=3302000  the first CPU-0 tick at or after the due time is 3300000; its interrupt ends at
--             3302000, and its timer expiry readies L in the idle context with Flag 0x1 (readied
--             from the clock interrupt's DPC).  L runs and ends (exit code 7): its exit satisfies
--             Y's wait while L still holds the CPU (ReadyThread in L's context), then L's End and
--             its CSwitch to Y.  Y runs and ends.
------------------------------------------------------------------------------
local function schedule(flags, label)
  local m = hcp.machine { tick = 1000, quantum = 2, cost = "unit" }
  local k = m:load "kernels"
  local evs = {}
  local s = m:trace { flags = flags, on_event = collector(evs) }
  local E = m:event { manual = false, initial = false }
  local L
  m:thread { name = "H", priority = 12, body = function(t) t:WaitForSingleObject(E, hcp.INFINITE) end }
  L = m:thread { name = "L", priority = 8, body = function(t)
    t:run(k.spin, 1000)
    t:SetEvent(E)
    t:SwitchToThread()
    t:Sleep(1)
    return 7
  end }
  m:thread { name = "Y", priority = 8, body = function(t)
    t:Sleep(0)
    t:WaitForSingleObject(L, hcp.INFINITE)
  end }
  m:run()
  return evs, s, label
end

local H, L, Y = 1000, 1004, 1008
local t1, t2 = ft(2004), ft(3302000)
local full = {
  thread_event(START, 0, BOOT, H, 12), ready(0, BOOT, H),
  thread_event(START, 0, BOOT, L, 8), ready(0, BOOT, L),
  thread_event(START, 0, BOOT, Y, 8), ready(0, BOOT, Y),
  cswitch(BOOT, H, 12, 0, 0, 0, 0, 0),
  cswitch(BOOT, L, 8, H, 12, hcp.UserRequest, UserMode, Waiting),
  ready(L, t1, H),
  cswitch(t1, H, 12, L, 8, hcp.WrPreempted, KernelMode, Ready),
  thread_event(END, H, t1, H, 12),
  cswitch(t1, L, 8, H, 12, hcp.Executive, KernelMode, Terminated),
  cswitch(t1, Y, 8, L, 8, hcp.WrYieldExecution, KernelMode, Ready),
  cswitch(t1, L, 8, Y, 8, hcp.WrYieldExecution, KernelMode, Ready),
  cswitch(t1, Y, 8, L, 8, hcp.DelayExecution, UserMode, Waiting),
  cswitch(t1, 0, 0, Y, 8, hcp.UserRequest, UserMode, Waiting),
  ready(0, t2, L, 0x1),
  cswitch(t2, L, 8, 0, 0, 0, 0, 0),
  ready(L, t2, Y),
  thread_event(END, L, t2, L, 8),
  cswitch(t2, Y, 8, L, 8, hcp.Executive, KernelMode, Terminated),
  thread_event(END, Y, t2, Y, 8),
  cswitch(t2, 0, 0, Y, 8, hcp.Executive, KernelMode, Terminated),
}

tap.clause("ETW-SEQUENCE")
local evs, s = schedule(ALL, "all classes")
check_sequence(evs, full, "THREAD|CSWITCH|DISPATCHER")
tap.is(s.active, false, "the session stopped at the end of m:run")

tap.clause("ETW-HEADER")
do
  local start, cs, rd = evs[1], evs[7], evs[9]
  tap.is(#GUID, 16, "ThreadGuid is 16 bytes")
  tap.is(start.header.Size, 48 + 72, "Start: Size = 48-byte header + 72-byte payload (edge 56)")
  tap.is(start.header.Class.Type, hcp.EVENT_TRACE_TYPE_START, "Start: Class.Type 1 (edge 52)")
  tap.is(start.header.Class.Version, 3, "Thread V3: Class.Version 3")
  tap.is(start.header.Class.Level, 0, "Class.Level 0")
  tap.is(start.header.FieldTypeFlags, 0, "FieldTypeFlags 0 (simulator-defined)")
  tap.is(start.header.Guid, hcp.ThreadGuid, "Guid is ThreadGuid (edge 52)")
  tap.is(hcp.ThreadGuid, "{3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c}", "hcp.ThreadGuid")
  tap.is(start.raw:sub(25, 40), GUID, "the GUID's bytes at offset 24 (edge 53)")
  tap.is(start.header.TimeStamp, BOOT, "TimeStamp of an event before m:run: boot_time")
  tap.is(cs.header.Size, 48 + 24, "CSwitch: 24-byte payload (edge 55)")
  tap.is(cs.header.Class.Type, hcp.EVENT_TRACE_TYPE_CSWITCH, "CSwitch: Class.Type 36 (edge 52)")
  tap.is(cs.header.Class.Version, 2, "CSwitch: Class.Version 2 (Thread_V2)")
  tap.is(rd.header.Size, 48 + 8, "ReadyThread: 8-byte payload (edge 55)")
  tap.is(rd.header.Class.Type, hcp.EVENT_TRACE_TYPE_READYTHREAD, "ReadyThread: Class.Type 50 (edge 52)")
  tap.is(rd.header.ThreadId, L, "ReadyThread on SetEvent: logged in the setter's context")
  tap.is(rd.header.ProcessId, PID, "... with its process id")
  tap.is(rd.header.TimeStamp, ft(2004), "... at 2004 cycles = 6 x 100 ns after boot")
  tap.is(rd.data.TThreadId, H, "... readying the waiter H")
  tap.is(rd.data.AdjustReason, 0, "AdjustReason 0: no boosts in this model")
  tap.is(rd.data.Flag, 0, "Flag 0: readied by a thread, not a DPC")
  tap.is(evs[17].data.Flag, 1, "a Sleep that times out on the clock interrupt: Flag 0x1 (readied from a DPC)")
  tap.is(evs[17].header.ThreadId, 0, "... logged in the idle context")
  tap.is(start.type, START, "ev.type = Class.Type")
  tap.is(start.name, "Start", "ev.name is the MOF event type name")
  tap.is(cs.name, "CSwitch", "CSwitch name")
  tap.is(rd.name, "ReadyThread", "ReadyThread name")
  tap.is(cs.cpu, 0, "ev.cpu: the processor it was logged on")
end

tap.clause("ETW-DATA")
do
  local cs = evs[10]   -- L preempted by H
  tap.is(cs.data.NewThreadId, H, "ev.data by MOF name: NewThreadId")
  tap.is(cs.data.OldThreadId, L, "OldThreadId")
  tap.is(cs.data.NewThreadPriority, 12, "NewThreadPriority")
  tap.is(cs.data.OldThreadPriority, 8, "OldThreadPriority")
  tap.is(cs.data.OldThreadWaitReason, hcp.WrPreempted, "OldThreadWaitReason WrPreempted (32)")
  tap.is(cs.data.OldThreadWaitMode, KernelMode, "OldThreadWaitMode KernelMode")
  tap.is(cs.data.OldThreadState, Ready, "OldThreadState Ready (1)")
  tap.is(cs.raw:byte(48 + 13), hcp.WrPreempted, "OldThreadWaitReason at payload offset 12 (edge 55)")
  tap.is(cs.raw:byte(48 + 15), Ready, "OldThreadState at payload offset 14 (edge 55)")
  local st = evs[3]    -- Start of L
  tap.is(st.data.ProcessId, PID, "Thread payload: ProcessId first (edge 54)")
  tap.is(st.data.TThreadId, L, "then TThreadId (edge 54)")
  tap.is(st.data.BasePriority, 8, "BasePriority")
  tap.is(st.data.Affinity, 1, "Affinity: the one CPU")
  tap.is(st.data.Win32StartAddr, 0, "Win32StartAddr 0: a Lua body")
  tap.is(st.data.StackBase, 0, "no stack: the thread is not inside t:run")
  tap.is(string.unpack("<I4", st.raw, 48 + 5), L, "TThreadId at payload offset 4")
  tap.is(st.raw:byte(48 + 69), 8, "BasePriority at payload offset 68 (edge 56)")
  tap.is(#st.raw - 48, 72, "72-byte payload: 7 pointer-sized fields of 8 bytes (edge 56)")
end

tap.clause("ETW-CONTEXT")
do
  local start_ctx, end_ctx = true, true
  for _, ev in ipairs(evs) do
    if ev.type == START and ev.header.ThreadId ~= 0 then start_ctx = false end
    if ev.type == END and (ev.header.ThreadId ~= ev.data.TThreadId or ev.header.ProcessId ~= PID) then
      end_ctx = false
    end
  end
  tap.ok(start_ctx, "threads created before m:run: Start logged in the system context 0/0")
  tap.ok(end_ctx, "End is logged in the exiting thread's own context")
  tap.is(evs[11].type, END, "H's End comes before its last CSwitch")
  tap.is(evs[12].data.OldThreadState, Terminated, "... which leaves it Terminated")
  tap.is(evs[19].header.ThreadId, L, "a wait satisfied by a thread's exit: ReadyThread in the exiting thread's context")
end

------------------------------------------------------------------------------
-- 2. Flags filter the classes: each flag alone gives exactly its events of the
--    full sequence, in the same order (only the requested classes appear).
------------------------------------------------------------------------------
tap.clause("ETW-FLAGS")
local function subset(types)
  local r = {}
  for _, raw in ipairs(full) do
    if types[raw:byte(5)] then r[#r + 1] = raw end
  end
  return r
end
check_sequence((schedule(THREAD)), subset { [START] = true, [END] = true }, "THREAD only")
check_sequence((schedule(CSWITCH)), subset { [CSW] = true }, "CSWITCH only")
check_sequence((schedule(DISPATCHER)), subset { [READY] = true }, "DISPATCHER only")
check_sequence((schedule(CSWITCH | DISPATCHER)), subset { [CSW] = true, [READY] = true }, "CSWITCH|DISPATCHER")
tap.is(#(schedule(0)), 0, "flags 0: no events")

tap.clause("ETW-DETERMINISM")
do
  local a, b = schedule(ALL), schedule(ALL)
  local ra, rb = {}, {}
  for i, ev in ipairs(a) do ra[i] = ev.raw end
  for i, ev in ipairs(b) do rb[i] = ev.raw end
  tap.ok(#ra > 0 and table.concat(ra) == table.concat(rb), "two sessions over the same scenario: identical bytes")
end

------------------------------------------------------------------------------
-- 3. Rundown: DCStart for the threads alive when the session starts, DCEnd for
--    those alive when it stops; Start/End only for threads created/ended in
--    between.  One CPU, quantum 1 tick.
--
--  D (1000) ends at once.  A (1004) runs spin(1000000); the 300000 tick is
--  taken at its first block boundary at or after it, 300001 (its blocks end at
--  3 + 2k cycles); A has used its quantum and goes to the tail of its queue,
--  inside its guest call: it holds stack slot 0, [0x7FF000001000,
--  0x7FF000041000) (sim/README.md: slots of a guard page + 256 KiB from
--  0x7FF000000000).  B (1008) runs after the interrupt, at 302001, and starts
--  the session: DCStart for A (with its stack) and B (none),
--  not for D, in B's context.  B creates C (1012, priority 6, affinity 1): its
--  Start is in B's context.  B stops the session: DCEnd for A, B and C.  The
--  threads end later: no End events.
------------------------------------------------------------------------------
tap.clause("ETW-RUNDOWN")
do
  local m = hcp.machine { tick = 1000, quantum = 1, cost = "unit" }
  local k = m:load "kernels"
  local evs2, stopped, stopped_again, session = {}, nil, nil, nil
  m:thread { name = "D", body = function() end }
  m:thread { name = "A", body = function(t) t:run(k.spin, 1000000) end }
  m:thread { name = "B", body = function(t)
    session = m:trace { flags = THREAD, on_event = collector(evs2) }
    m:thread { name = "C", priority = 6, affinity = 1, body = function() end }
    stopped = session:stop()
    stopped_again = session:stop()
  end }
  m:run()
  local at = ft(302001)   -- 1006 x 100 ns
  local lo, hi = 0x7FF000001000, 0x7FF000041000
  check_sequence(evs2, {
    thread_event(DC_START, 1008, at, 1004, 8, 1, hi, lo),
    thread_event(DC_START, 1008, at, 1008, 8),
    thread_event(START, 1008, at, 1012, 6),
    thread_event(DC_END, 1008, at, 1004, 8, 1, hi, lo),
    thread_event(DC_END, 1008, at, 1008, 8),
    thread_event(DC_END, 1008, at, 1012, 6),
  }, "rundown")
  tap.is(stopped, true, "s:stop() stops the running session")
  tap.is(stopped_again, false, "a second s:stop() finds it stopped")
  tap.is(evs2[1] and evs2[1].name, "DCStart", "DCStart name")
  tap.is(evs2[4] and evs2[4].name, "DCEnd", "DCEnd name")
end

tap.clause("ETW-RUNDOWN-BEFORE-RUN")
do -- a session opened and closed before m:run: rundown in the system context at time 0
  local m = hcp.machine { cpus = 2, cost = "unit" }
  local evs3 = {}
  m:thread { name = "p", priority = 9, body = function() end }
  m:thread { name = "q", affinity = 2, body = function() end }
  do
    local s <close> = m:trace { flags = THREAD | CSWITCH, on_event = collector(evs3) }
  end
  check_sequence(evs3, {
    thread_event(DC_START, 0, BOOT, 1000, 9, 3),
    thread_event(DC_START, 0, BOOT, 1004, 8, 2),
    thread_event(DC_END, 0, BOOT, 1000, 9, 3),
    thread_event(DC_END, 0, BOOT, 1004, 8, 2),
  }, "a <close> session before m:run")
  m:run()
  tap.is(#evs3, 4, "no events after the session was closed")
end

------------------------------------------------------------------------------
-- 4. Two CPUs: each thread starts on its ideal processor (creation order round
--    robin), ev.cpu names it, OldThreadWaitIdealProcessor carries it.
------------------------------------------------------------------------------
tap.clause("ETW-CPUS")
do
  local m = hcp.machine { cpus = 2, cost = "unit" }
  local k = m:load "kernels"
  local evs4 = {}
  m:trace { flags = CSWITCH, on_event = collector(evs4) }
  m:thread { name = "x", body = function(t) t:run(k.spin, 10) end }   -- 24 cycles on CPU 0
  m:thread { name = "y", body = function(t) t:run(k.spin, 20) end }   -- 44 cycles on CPU 1
  m:run()
  check_sequence(evs4, {
    cswitch(BOOT, 1000, 8, 0, 0, 0, 0, 0),
    cswitch(BOOT, 0, 0, 1000, 8, hcp.Executive, KernelMode, Terminated, 0),
    cswitch(BOOT, 1004, 8, 0, 0, 0, 0, 0),
    cswitch(BOOT, 0, 0, 1004, 8, hcp.Executive, KernelMode, Terminated, 1),
  }, "two CPUs")
  local cpus = {}
  for i, ev in ipairs(evs4) do cpus[i] = ev.cpu end
  tap.is(table.concat(cpus, ","), "0,0,1,1", "ev.cpu: x on CPU 0, y on CPU 1")
end

------------------------------------------------------------------------------
-- 5. Header times: Kernel/UserTime of the logging thread in clock ticks.  One
--    thread spins 800004 cycles; the ticks at 300000 and 600000 hit it (2 ticks
--    of user time, 2 x 2000 interrupt cycles on the CPU): it ends at 804004.
------------------------------------------------------------------------------
tap.clause("ETW-HEADER-TIMES")
do
  local m = hcp.machine { tick = 1000, cost = "unit" }
  local k = m:load "kernels"
  local evs5 = {}
  m:trace { flags = THREAD, on_event = collector(evs5) }
  m:thread { name = "w", body = function(t) t:run(k.spin, 400000) end }
  m:run()
  local e = evs5[2]
  is_bytes(e and e.raw, header(72, END, 3, 1000, ft(804004), 0, 2) .. thread_payload(1000, 8), "End after 2 ticks")
  tap.is(e and e.header.UserTime, 2, "UserTime: 2 ticks")
  tap.is(e and e.header.KernelTime, 0, "KernelTime: no kernel work with cost = unit")
  tap.is(e and e.header.ProcessorTime, 2 << 32, "ProcessorTime: the same 8 bytes as one ULONG64")
end

------------------------------------------------------------------------------
-- 6. Errors: what on_event may do, one session at a time, flags.
------------------------------------------------------------------------------
tap.clause("ETW-ERRORS")
do
  local m = hcp.machine {}
  local ok, err = pcall(m.trace, m, { flags = hcp.EVENT_TRACE_FLAG_PROCESS, on_event = print })
  tap.ok(not ok, "EVENT_TRACE_FLAG_PROCESS is not simulated: an error")
  tap.like(err, "not simulated", "... naming the unsupported flags")
  ok, err = pcall(m.trace, m, { flags = THREAD })
  tap.like(err, "'on_event' must be a function", "on_event is required")
  local s = m:trace { flags = THREAD, on_event = function() end }
  ok, err = pcall(m.trace, m, { flags = THREAD, on_event = print })
  tap.ok(not ok, "a second session while one runs is an error (one NT Kernel Logger)")
  tap.like(err, "ERROR_ALREADY_EXISTS", "... as StartTrace's ERROR_ALREADY_EXISTS")
  tap.is(s:stop(), true, "stop the first")
  tap.ok(pcall(m.trace, m, { flags = THREAD, on_event = function() end }), "then a new session starts")
  tap.like(tostring(s), "TraceSession", "__tostring")
end

do -- on_event may only read its event
  local m = hcp.machine {}
  m:trace { flags = THREAD, on_event = function(ev) return m:clock() end }
  local ok, err = pcall(m.thread, m, { name = "z", body = function() end })
  tap.ok(not ok, "calling a machine method from on_event is an error")
  tap.like(err, "etw_thread%.lua:%d+: m:trace: on_event may only read its event", "... with FILE:LINE and a clear message")
  tap.ok(pcall(m.trace, m, { flags = THREAD, on_event = function() end }), "the failed session was closed")
end

do -- an error inside on_event stops the run as a scenario error
  local m = hcp.machine {}
  local seen = 0
  m:trace { flags = CSWITCH, on_event = function(ev)
    seen = seen + 1
    if ev.data.NewThreadId == 1004 then error("no CSwitch to 1004, please") end
  end }
  local ran = {}
  m:thread { name = "a", body = function() ran[#ran + 1] = "a" end }
  m:thread { name = "b", body = function() ran[#ran + 1] = "b" end }
  m:thread { name = "c", body = function() ran[#ran + 1] = "c" end }
  local ok, err = pcall(m.run, m)
  tap.ok(not ok, "m:run fails when on_event raises")
  tap.like(err, "^[^:]*etw_thread%.lua:%d+: no CSwitch to 1004, please$", "with the callback's FILE:LINE: message")
  tap.is(seen, 2, "no event is delivered after the failing one (0->a, then a->b fails)")
  tap.is(table.concat(ran, ","), "a", "the run stops at the next scheduling point: b's body never ran")
end

------------------------------------------------------------------------------
-- The constants (edge 53) and the header's layout byte for byte (edge 53), then
-- the Thread and CSwitch events on every profile with a kernel logger (edges 52,
-- 53, 55, 56).
------------------------------------------------------------------------------
tap.clause("ETW-CONSTANTS")
for _, c in ipairs { { "EVENT_TRACE_FLAG_THREAD", 0x2, "0x2" }, { "EVENT_TRACE_FLAG_CSWITCH", 0x10, "0x10" },
                     { "EVENT_TRACE_FLAG_DISPATCHER", 0x800, "0x800" } } do
  local ok, v = pcall(function() return hcp[c[1]] end)
  tap.is(ok and v or nil, c[2], string.format("edge %d: hcp.%s = %s", 53, c[1], c[3]))
end

-- edge 53: EVENT_TRACE_HEADER is 48 bytes; Class.Type @4, Class.Version @6,
-- ThreadId @8, ProcessId @12, TimeStamp @16, Guid @24.  The raw bytes of a
-- CSwitch (logged in the outgoing thread's context) and of the thread's End.
do
  tap.clause("ETW-HEADER-LAYOUT")
  local m = hcp.machine { cost = "unit" }
  local k = m:load "kernels"
  local evs = {}
  m:trace { flags = hcp.EVENT_TRACE_FLAG_THREAD | hcp.EVENT_TRACE_FLAG_CSWITCH,
            on_event = function(ev) evs[#evs + 1] = ev end }
  local w = m:thread { name = "w", body = function(t) t:run(k.spin, 10) end }
  m:run()
  local checked = 0
  for _, ev in ipairs(evs) do
    if ev.type == hcp.EVENT_TRACE_TYPE_END or (ev.type == hcp.EVENT_TRACE_TYPE_CSWITCH and ev.data.OldThreadId == w.id) then
      local raw, h = ev.raw, ev.header
      local name = "edge 53: " .. ev.name .. ": "
      tap.is(string.unpack("<I2", raw, 1), #raw, name .. "Size @0 = the event's bytes")
      tap.is(#raw - 48, ev.type == hcp.EVENT_TRACE_TYPE_END and 72 or 24, name .. "the payload starts at byte 48")
      tap.is(raw:byte(5), ev.type, name .. "Class.Type @4")
      tap.is(string.unpack("<I2", raw, 7), h.Class.Version, name .. "Class.Version @6")
      tap.is(string.unpack("<I4", raw, 9), w.id, name .. "ThreadId @8: the thread's own context")
      tap.is(string.unpack("<I4", raw, 13), h.ProcessId, name .. "ProcessId @12")
      tap.is(string.unpack("<i8", raw, 17), h.TimeStamp, name .. "TimeStamp @16")
      tap.is(raw:sub(25, 40), GUID, name .. "Guid @24 = ThreadGuid")
      checked = checked + 1
    end
  end
  tap.is(checked, 2, "edge 53: the thread's End and its last CSwitch were both checked")
end

-- Every profile with a kernel logger (not ce2.12-arm: platforms.lua), Lua bodies
-- only: a Thread Start is Class.Type 1, Class.Version 3, ThreadGuid at 24, a
-- 48-byte header and Thread_TypeGroup1 of 4 + 4 + 7P + 4 + 4 bytes (P = the
-- pointer size: 4 on win7-x86, else 8); a CSwitch is type 36, version 2, 24 bytes.
local PTR = { ["win7-x86"] = 4 }
testlib.each_platform({ "win10-x64", "win7-x64", "win7-x86", "win11-arm64" }, "edges 52, 53, 55, 56", function(platform)
  local P = platform .. ": "
  local ptr = PTR[platform] or 8
  local m = hcp.machine { platform = platform, boot_time = 100000000000000000, frequency = 10000000,
                          cost = { api_call = 10000000 } }
  local evs = {}
  m:trace { flags = hcp.EVENT_TRACE_FLAG_THREAD | hcp.EVENT_TRACE_FLAG_CSWITCH,
            on_event = function(ev) evs[#evs + 1] = ev end }
  local W = m:thread { name = "w", body = function(t) t:GetThreadTimes(-2) end }
  m:thread { name = "x", body = function(t) t:GetThreadTimes(t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, W.id)) end }
  m:run()
  tap.clause("ETW-PER-PLATFORM")
  local start, cs
  for _, ev in ipairs(evs) do
    if ev.type == hcp.EVENT_TRACE_TYPE_START and ev.data.TThreadId == W.id then start = ev end
    if ev.type == hcp.EVENT_TRACE_TYPE_CSWITCH and not cs then cs = ev end
  end
  tap.ok(start and start.raw:byte(5) == 1 and string.unpack("<I2", start.raw, 7) == 3,
         "edge 52: " .. P .. "Thread Start: Class.Type 1 @4, Class.Version 3 @6")
  tap.is(start and start.raw:sub(25, 40), GUID, "edge 52, 53: " .. P .. "ThreadGuid @24")
  tap.is(start and #start.raw, 48 + 4 + 4 + 7 * ptr + 4 + 4,
         "edge 53, 56: " .. P .. "48-byte header + Thread_TypeGroup1 of 4+4+7P+4+4 bytes, P = " .. ptr)
  tap.ok(cs and #cs.raw == 48 + 24 and cs.raw:byte(5) == 36 and string.unpack("<I2", cs.raw, 7) == 2,
         "edge 55: " .. P .. "CSwitch: type 36, class version 2, 24-byte payload")
end)

tap.done_testing()
