-- An independent model of the scheduler, checked on generated scenarios.
--
-- The model below is written from sim/README.md "Scheduler" (and the cost
-- rules of pmu_model/README.md and api/README.md), not from sim/sched.c or
-- sim/objects.c.  A seeded generator makes small random scenarios (threads,
-- priorities, affinities, CPUs, tick, quantum, interrupt and API-call costs,
-- guest spins, sleeps, yields, events, mutexes, semaphores, waits on threads, waitable
-- timers, alerts by thread id, suspension);
-- each runs in hcpsim, observed through the kernel logger's CSwitch and
-- ReadyThread events, the bodies' API results, the profiling data and the CPU
-- statistics, and in the model; the two must agree event by event.  The run's
-- invariants are checked on hcpsim's observations alone (see check_invariants).
--
--   hcpsim run conformance/sched_model.lua [FIRST [COUNT [multi]]]   seeds FIRST.. (default 1, 240)
--   hcpsim run conformance/sched_model.lua print SEED [1]    the seed's scenario as a standalone file
--   hcpsim run conformance/sched_model.lua diff SEED [1] [shrink]   both schedules side by side
--
-- A failing seed is shrunk (its ops removed one by one while it still fails)
-- and printed as a standalone scenario (diagnostics) with the first event
-- where hcpsim and the model part.
local hcp = require "hcpsim"
-- Threads here exit with profiling enabled on purpose (Windows lets them; the documentation
-- forbids it): that warning is expected, any other ends the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("exited with profiling enabled", 1, true), w) end)
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local FREQ = 10000000 -- 10 MHz: one cycle = 100 ns, so ETW time stamps are cycles
local BOOT = 134116992000000000
local CYC_PER_MS = FREQ // 1000
local WAIT_TIMEOUT, WAIT_ABANDONED_0 = 258, 0x80
local R_EXECUTIVE, R_DELAY, R_USERREQ, R_QEND, R_PREEMPT, R_YIELD = 0, 4, 6, 30, 32, 33
local R_SUSPENDED, R_ALERT = 5, 37
local STATUS_ALERTED, FAILED = 0x101, 0xFFFFFFFF
local S_READY, S_TERMINATED, S_WAITING = 1, 4, 5
local KERNEL_MODE, USER_MODE = 0, 1

-- ---- generator --------------------------------------------------------------------------------------

-- splitmix64 on Lua's wrapping 64-bit integers: the same numbers on every host.  Its state
-- advances by 0x9E3779B97F4A7C15 a number, so a state of seed × that constant would make seed
-- N + 1's numbers seed N's shifted by one; the state is the seed's first splitmix64 output
-- instead, so that nearby seeds are unrelated scenarios.
local function rng(seed)
  local r = { next = testlib.splitmix64(testlib.splitmix64(seed + 0x632BE59BD9B4E019)()) }
  function r.int(lo, hi) return lo + (r.next() >> 1) % (hi - lo + 1) end
  function r.pick(list) return list[r.int(1, #list)] end
  function r.chance(pct) return r.int(1, 100) <= pct end
  return r
end

local FORCE_CPUS = nil

local function generate(seed)
  local r = rng(seed)
  local sc = {
    seed = seed,
    cpus = r.pick { 1, 1, 2, 2, 3 },
    tick = r.pick { 500, 1000, 2000 },
    quantum = r.int(1, 3),
    interrupt_cycles = r.pick { 0, 5, 40 },
    api_call = r.pick { 0, 10, 100 },
    slice = r.pick { 300, 1000, 2500 },
    objects = {},
    threads = {},
  }
  if FORCE_CPUS then sc.cpus = FORCE_CPUS end
  local nthreads = r.int(2, 5)
  local full = (1 << sc.cpus) - 1
  for i = 1, nthreads do
    local th = { name = "t" .. i, priority = r.pick { 7, 8, 8, 8, 9, 12 }, ops = {} }
    if sc.cpus > 1 and r.chance(40) then
      th.affinity = r.int(1, full)
    end
    if sc.cpus > 1 and r.chance(20) then
      local aff = th.affinity or full
      local c = r.int(0, sc.cpus - 1)
      if aff & (1 << c) ~= 0 then th.ideal = c end
    end
    sc.threads[i] = th
  end
  local nobj = r.int(0, 3)
  for i = 1, nobj do
    local kind = r.pick { "event", "event", "mutex", "semaphore", "timer" }
    local o = { kind = kind }
    if kind == "event" then
      o.manual, o.initial = r.chance(40), r.chance(30)
    elseif kind == "timer" then
      o.manual = r.chance(40)
    elseif kind == "semaphore" then
      o.max = r.int(1, 3)
      o.initial = r.int(0, o.max)
    end
    sc.objects[i] = o
  end
  for i, th in ipairs(sc.threads) do
    for _ = 1, r.int(1, 7) do
      local roll = r.int(1, 100)
      local op
      if roll <= 35 then
        op = { "spin", r.pick { 0, 10, 200, 1000, 2500, 5000 } + r.int(0, 300) }
      elseif roll <= 47 then
        op = { "sleep", r.int(1, 3) }
      elseif roll <= 51 then
        op = { "sleep0" }
      elseif roll <= 55 then
        op = { "yield" }
      elseif nobj > 0 and roll <= 85 then
        local o = r.int(1, nobj)
        local kind = sc.objects[o].kind
        if r.chance(50) then
          if kind == "event" then
            op = { r.chance(80) and "set" or "reset", o }
          elseif kind == "timer" then
            if r.chance(80) then
              op = { "set_timer", o, r.int(1, 4), r.pick { 0, 0, 1, 3 } }
            else
              op = { "cancel_timer", o }
            end
          elseif kind == "mutex" then
            op = { "release_mutex", o }
          else
            op = { "release_sem", o, r.int(1, 2) }
          end
        elseif r.chance(70) or nobj == 1 then
          op = { "wait", { o }, false, r.pick { 0, 1, 2, 4 } }
        else
          local o2 = r.int(1, nobj)
          if o2 == o then o2 = o % nobj + 1 end
          op = { "wait", { o, o2 }, r.chance(40), r.pick { 1, 2, 4 } }
        end
      elseif roll <= 92 and #sc.threads > 1 then
        local other = r.int(1, #sc.threads)
        if other == i then other = other % #sc.threads + 1 end
        op = { "wait_thread", other, r.pick { 1, 3 } }
      elseif roll <= 96 and #sc.threads > 1 then
        -- alerts by thread id (the parks of SRW locks and condition variables wait this way)
        if r.chance(50) then
          op = { "wait_alert", r.pick { 0, 1, 2, 4 } }
        else
          local other = r.int(1, #sc.threads)
          if other == i then other = other % #sc.threads + 1 end
          op = { "alert", other }
        end
      else
        op = { "spin", r.int(0, 400) }
      end
      th.ops[#th.ops + 1] = op
    end
  end
  -- suspension: only the first thread suspends (and is never suspended), each suspension
  -- resumed later in its ops, so no run deadlocks
  local t1 = sc.threads[1]
  if #sc.threads > 1 and r.chance(50) then
    local target = r.int(2, #sc.threads)
    local at = r.int(0, #t1.ops)
    local later = r.int(at + 1, #t1.ops + 1)
    table.insert(t1.ops, later, { "resume", target })
    table.insert(t1.ops, at + 1, { "suspend", target })
    if r.chance(30) then -- twice: the second only counts
      table.insert(t1.ops, at + 2, { "suspend", target })
      table.insert(t1.ops, { "resume", target })
    end
  end
  return sc
end

-- ---- the scenario as Lua text (also the standalone reproduction) -------------------------------------

local function op_text(op)
  local k = op[1]
  if k == "spin" then return ("t:run(k.spin, %d)"):format(op[2])
  elseif k == "sleep" then return ("t:Sleep(%d)"):format(op[2])
  elseif k == "sleep0" then return "t:Sleep(0)"
  elseif k == "yield" then return "t:SwitchToThread()"
  elseif k == "set" then return ("t:SetEvent(O[%d])"):format(op[2])
  elseif k == "reset" then return ("t:ResetEvent(O[%d])"):format(op[2])
  elseif k == "release_mutex" then return ("t:ReleaseMutex(O[%d])"):format(op[2])
  elseif k == "release_sem" then return ("t:ReleaseSemaphore(O[%d], %d)"):format(op[2], op[3])
  elseif k == "wait" then
    if #op[2] == 1 then return ("t:WaitForSingleObject(O[%d], %d)"):format(op[2][1], op[4]) end
    local l = {}
    for j, o in ipairs(op[2]) do l[j] = ("O[%d]"):format(o) end
    return ("t:WaitForMultipleObjects({%s}, %s, %d)"):format(table.concat(l, ", "), tostring(op[3]), op[4])
  elseif k == "wait_thread" then return ("t:WaitForSingleObject(T[%d], %d)"):format(op[2], op[3])
  elseif k == "set_timer" then return ("t:SetWaitableTimer(O[%d], %d, %d)"):format(op[2], -op[3] * 10000, op[4])
  elseif k == "cancel_timer" then return ("t:CancelWaitableTimer(O[%d])"):format(op[2])
  elseif k == "wait_alert" then return ("t:WaitForAlertByThreadId(%d)"):format(op[2])
  elseif k == "alert" then return ("t:AlertThreadByThreadId(T[%d])"):format(op[2])
  elseif k == "suspend" then return ("t:SuspendThread(T[%d])"):format(op[2])
  elseif k == "resume" then return ("t:ResumeThread(T[%d])"):format(op[2])
  end
  error("unknown op " .. tostring(k))
end

local function machine_text(sc)
  return ("hcp.machine { cpus = %d, frequency = %d, tick = %d, quantum = %d, interrupt_cycles = %d, slice = %d, "
            .. "cost = { table = \"unit\", api_call = %d } }"):format(sc.cpus, FREQ, sc.tick, sc.quantum,
                                                                      sc.interrupt_cycles, sc.slice, sc.api_call)
end

local function object_text(o)
  if o.kind == "event" then return ("m:event { manual = %s, initial = %s }"):format(tostring(o.manual), tostring(o.initial))
  elseif o.kind == "mutex" then return "m:mutex {}"
  elseif o.kind == "timer" then return ("m:timer { manual = %s }"):format(tostring(o.manual))
  else return ("m:semaphore { initial = %d, max = %d }"):format(o.initial, o.max) end
end

local function thread_opts_text(th)
  local s = ("name = %q, priority = %d"):format(th.name, th.priority)
  if th.affinity then s = s .. (", affinity = 0x%x"):format(th.affinity) end
  if th.ideal then s = s .. (", ideal = %d"):format(th.ideal) end
  return s
end

local function standalone(sc)
  local L = {}
  local function w(s) L[#L + 1] = s end
  w(("-- sched_model seed %d: hcpsim's schedule (C = CSwitch: cpu time old new reason state; R = ReadyThread: cpu time tid flag)"):format(sc.seed))
  w("local hcp = require \"hcpsim\"")
  w("local m = " .. machine_text(sc))
  w("local k = m:load \"kernels\"")
  w("local O, T = {}, {}")
  for i, o in ipairs(sc.objects) do w(("O[%d] = %s"):format(i, object_text(o))) end
  w("m:trace { flags = hcp.EVENT_TRACE_FLAG_CSWITCH | hcp.EVENT_TRACE_FLAG_DISPATCHER, on_event = function(ev)")
  w("  local d, ts = ev.data, ev.header.TimeStamp - " .. BOOT)
  w("  if ev.name == \"CSwitch\" then print(\"C\", ev.cpu, ts, d.OldThreadId, d.NewThreadId, d.OldThreadWaitReason, d.OldThreadState)")
  w("  else print(\"R\", ev.cpu, ts, d.TThreadId, d.Flag) end")
  w("end }")
  for i, th in ipairs(sc.threads) do
    w(("T[%d] = m:thread { %s, body = function(t)"):format(i, thread_opts_text(th)))
    w("  local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)")
    for _, op in ipairs(th.ops) do w("  print(t.name, \"" .. op_text(op):gsub("\"", "\\\"") .. "\", " .. op_text(op) .. ")") end
    w("  local _, pd = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)")
    w("  print(t.name, \"ContextSwitchCount\", pd.ContextSwitchCount, \"WaitReasonBitMap\", pd.WaitReasonBitMap, \"CycleTime\", pd.CycleTime)")
    w("end }")
  end
  w("m:run()")
  w("for i, c in ipairs(m:cpus()) do print(\"cpu\", i - 1, c.time, c.busy, c.idle, c.interrupt, c.ticks, c.switches) end")
  return table.concat(L, "\n") .. "\n"
end

-- ---- hcpsim's side ----------------------------------------------------------------------------------

local function fmt_result(...)
  local n, parts = select("#", ...), {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  return table.concat(parts, ",")
end

local function run_hcpsim(sc)
  local m = hcp.machine {
    cpus = sc.cpus, frequency = FREQ, tick = sc.tick, quantum = sc.quantum,
    interrupt_cycles = sc.interrupt_cycles, slice = sc.slice,
    cost = { table = "unit", api_call = sc.api_call },
  }
  local k = m:load "kernels"
  local O, T = {}, {}
  for i, o in ipairs(sc.objects) do
    if o.kind == "event" then O[i] = m:event { manual = o.manual, initial = o.initial }
    elseif o.kind == "mutex" then O[i] = m:mutex {}
    elseif o.kind == "timer" then O[i] = m:timer { manual = o.manual }
    else O[i] = m:semaphore { initial = o.initial, max = o.max } end
  end
  local obs = { events = {}, threads = {}, cpus = {} }
  local ev_list = obs.events
  local session = m:trace {
    flags = hcp.EVENT_TRACE_FLAG_CSWITCH | hcp.EVENT_TRACE_FLAG_DISPATCHER,
    on_event = function(ev)
      local d, ts = ev.data, ev.header.TimeStamp - BOOT
      if ev.name == "CSwitch" then
        ev_list[#ev_list + 1] = ("C cpu%d @%d %d->%d r%d s%d m%d"):format(ev.cpu, ts, d.OldThreadId, d.NewThreadId,
                                                                       d.OldThreadWaitReason, d.OldThreadState,
                                                                       d.OldThreadWaitMode)
      elseif ev.name == "ReadyThread" then
        ev_list[#ev_list + 1] = ("R cpu%d @%d %d f%d"):format(ev.cpu, ts, d.TThreadId, d.Flag)
      end
    end,
  }
  for i, th in ipairs(sc.threads) do
    local res = { log = {} }
    obs.threads[i] = res
    local function call(op, t)
      local kd = op[1]
      if kd == "spin" then return t:run(k.spin, op[2])
      elseif kd == "sleep" then return t:Sleep(op[2])
      elseif kd == "sleep0" then return t:Sleep(0)
      elseif kd == "yield" then return t:SwitchToThread()
      elseif kd == "set" then return t:SetEvent(O[op[2]])
      elseif kd == "reset" then return t:ResetEvent(O[op[2]])
      elseif kd == "release_mutex" then return t:ReleaseMutex(O[op[2]])
      elseif kd == "release_sem" then return t:ReleaseSemaphore(O[op[2]], op[3])
      elseif kd == "wait" then
        if #op[2] == 1 then return t:WaitForSingleObject(O[op[2][1]], op[4]) end
        local l = {}
        for j, o in ipairs(op[2]) do l[j] = O[o] end
        return t:WaitForMultipleObjects(l, op[3], op[4])
      elseif kd == "wait_thread" then return t:WaitForSingleObject(T[op[2]], op[3])
      elseif kd == "set_timer" then return t:SetWaitableTimer(O[op[2]], -op[3] * 10000, op[4])
      elseif kd == "cancel_timer" then return t:CancelWaitableTimer(O[op[2]])
      elseif kd == "wait_alert" then return t:WaitForAlertByThreadId(op[2])
      elseif kd == "alert" then return t:AlertThreadByThreadId(T[op[2]])
      elseif kd == "suspend" then return t:SuspendThread(T[op[2]])
      elseif kd == "resume" then return t:ResumeThread(T[op[2]])
      end
    end
    T[i] = m:thread {
      name = th.name, priority = th.priority, affinity = th.affinity, ideal = th.ideal,
      body = function(t)
        local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
        res.sleeps = {}
        for _, op in ipairs(th.ops) do
          local before = m:clock()
          res.log[#res.log + 1] = fmt_result(call(op, t))
          if op[1] == "sleep" then res.sleeps[#res.sleeps + 1] = { before, m:clock(), op[2] } end
        end
        local _, pd = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
        res.csc, res.bits, res.cycle_time = pd.ContextSwitchCount, pd.WaitReasonBitMap, pd.CycleTime
      end,
    }
  end
  m:run()
  session:stop()
  for i, t in ipairs(T) do
    local res = obs.threads[i]
    res.id, res.switches, res.affinity = t.id, t.switches, t.affinity
  end
  for i, c in ipairs(m:cpus()) do
    obs.cpus[i] = { time = c.time, busy = c.busy, idle = c.idle, interrupt = c.interrupt, ticks = c.ticks,
                    switches = c.switches }
  end
  return obs
end

-- ---- the model --------------------------------------------------------------------------------------

local function model(sc)
  local tick_cycles = sc.tick * FREQ // 10000000
  local quantum_cycles = sc.quantum * tick_cycles
  local ic, K = sc.interrupt_cycles, sc.api_call
  local ncpu = sc.cpus
  local ev_list = {}
  local function rec(s) ev_list[#ev_list + 1] = s end

  local cpus = {}
  for c = 0, ncpu - 1 do
    cpus[c] = { idx = c, clock = 0, next_tick = tick_cycles, cur = nil, busy = 0, idle = 0, interrupt = 0,
                ticks = 0, switches = 0, check = false, seg_end = nil }
  end
  local full = (1 << ncpu) - 1
  local threads, by_id = {}, {}
  local queues = {} -- priority -> list of threads (FIFO)
  for p = 0, 31 do queues[p] = {} end
  local objs = {}
  for i, o in ipairs(sc.objects) do
    local ob = { kind = o.kind, waiters = {}, name = "o" .. i }
    if o.kind == "event" then ob.manual, ob.signaled = o.manual, o.initial
    elseif o.kind == "timer" then ob.manual, ob.signaled, ob.armed = o.manual, false, false
    elseif o.kind == "semaphore" then ob.count, ob.max = o.initial, o.max
    else ob.owner, ob.rec, ob.abandoned = nil, 0, false end
    objs[i] = ob
  end
  local timers = {} -- waiting threads with a due time
  local timer_seq = 0 -- timer objects: each set (and each periodic re-arm) takes the next number

  local function in_aff(t, c) return t.aff & (1 << c) ~= 0 end
  local function qremove(t)
    local q = queues[t.prio]
    for i, x in ipairs(q) do if x == t then table.remove(q, i) return end end
  end

  -- idle CPUs of t's affinity (other than `except`)
  local function idle_cpu_in(t, except)
    for c = 0, ncpu - 1 do
      if c ~= except and in_aff(t, c) and cpus[c].cur == nil then return true end
    end
    return false
  end

  -- created, woken or timed out: Ready at the readying CPU's time, or at the time it left its
  -- CPU if that is later ("Waits"); such a thread may preempt ("Preemption")
  local function make_ready(t, cpu, flag)
    t.state = "ready"
    t.ready_time = math.max(cpu.clock, t.left_at or 0)
    t.notify = true
    table.insert(queues[t.prio], t)
    rec(("R cpu%d @%d %d f%d"):format(cpu.idx, t.ready_time, t.id, flag))
    -- Preemption: no idle CPU of its affinity -> every CPU of its affinity running a
    -- lower-priority thread checks at its next block boundary.
    local any_idle = false
    for c = 0, ncpu - 1 do
      if in_aff(t, c) and cpus[c].cur == nil then any_idle = true end
    end
    if not any_idle then
      for c = 0, ncpu - 1 do
        if in_aff(t, c) and cpus[c].cur and cpus[c].cur.prio < t.prio then cpus[c].check = true end
      end
    end
  end

  -- the highest-priority eligible Ready thread for cpu, FIFO within a priority
  local function best_ready(cpu, min_prio, exclude, idle_rule)
    for p = 31, min_prio, -1 do
      for _, t in ipairs(queues[p]) do
        if t ~= exclude and in_aff(t, cpu.idx) and t.ready_time <= cpu.clock then
          if not (idle_rule and t.ideal ~= cpu.idx and cpus[t.ideal].cur == nil and in_aff(t, t.ideal)
                  and cpus[t.ideal] ~= cpu) then
            return t
          end
        end
      end
    end
    return nil
  end

  -- a Ready thread that may preempt t on cpu: "now" (eligible), "later" (Ready at a later time);
  -- not one left to its idle ideal processor
  local function pending_above(cpu, prio)
    local now, later = false, false
    for p = 31, prio + 1, -1 do
      for _, x in ipairs(queues[p]) do
        local left = x.ideal ~= cpu.idx and cpus[x.ideal].cur == nil and in_aff(x, x.ideal)
        if x.notify and in_aff(x, cpu.idx) and not left then
          if x.ready_time > cpu.clock then later = true else now = true end
        end
      end
    end
    return now, later
  end

  local function switch_in(cpu, t, old, reason, state, mode)
    local oid, orsn, ost, omode = 0, 0, 0, 0
    if old then oid, orsn, ost, omode = old.id, reason, state, mode end
    rec(("C cpu%d @%d %d->%d r%d s%d m%d"):format(cpu.idx, cpu.clock, oid, t and t.id or 0, orsn, ost, omode))
    cpu.cur = t
    if old then old.left_at = cpu.clock end
    if t then qremove(t) end
    -- a switch ends the pending check, unless a thread that may preempt is not yet eligible
    cpu.check = false
    if t then
      local _, later = pending_above(cpu, t.prio)
      cpu.check = later
    end
    if t then
      t.state = "running"
      t.cpu = cpu.idx
      t.switches = t.switches + 1
      cpu.switches = cpu.switches + 1
      if t.profiling then
        t.csc = t.csc + 1
        t.bits = t.bits | (1 << t.last_reason)
      end
      if not t.keep_quantum then t.qused = 0 end
      t.keep_quantum = false
    end
  end

  -- t leaves cpu with reason/state; the CPU takes nxt, else (t waits or exits: the CPU has
  -- nothing to run) the next thread by the idle-CPU rule, or goes idle
  local function switch_out(cpu, t, reason, state, mode, nxt)
    t.last_reason = reason
    nxt = nxt or best_ready(cpu, 0, nil, true)
    switch_in(cpu, nxt, t, reason, state, mode)
  end

  -- t leaves its CPU for the ready queue at that CPU's time; it never preempts
  local function to_queue(t, head, cpu)
    t.state = "ready"
    t.ready_time = cpu.clock
    t.notify = false
    if head then table.insert(queues[t.prio], 1, t) else table.insert(queues[t.prio], t) end
  end

  -- ---- objects and waits
  local function signalled_for(ob, t)
    if ob.kind == "event" or ob.kind == "timer" then return ob.signaled
    elseif ob.kind == "alert" then return ob.owner.alert
    elseif ob.kind == "semaphore" then return ob.count > 0
    elseif ob.kind == "mutex" then return ob.owner == nil or ob.owner == t
    else return ob.exited end
  end
  local function take(ob, t)
    local abandoned = false
    if ob.kind == "event" or ob.kind == "timer" then
      if not ob.manual then ob.signaled = false end
    elseif ob.kind == "alert" then
      ob.owner.alert = false
    elseif ob.kind == "semaphore" then
      ob.count = ob.count - 1
    elseif ob.kind == "mutex" then
      if ob.owner ~= t then t.owned[#t.owned + 1] = ob end -- in acquisition order
      ob.owner = t
      ob.rec = ob.rec + 1
      abandoned = ob.abandoned
      ob.abandoned = false
    end
    return abandoned
  end
  -- try to satisfy wait {objs, all} for t now: result code or nil
  local function try_wait(t, list, all)
    if all then
      for _, ob in ipairs(list) do if not signalled_for(ob, t) then return nil end end
      local ab = nil
      for i, ob in ipairs(list) do if take(ob, t) and not ab then ab = i end end
      return ab and (WAIT_ABANDONED_0 + ab - 1) or 0
    end
    for i, ob in ipairs(list) do
      if signalled_for(ob, t) then
        local ab = take(ob, t)
        return (ab and WAIT_ABANDONED_0 or 0) + i - 1
      end
    end
    return nil
  end
  local function end_wait(t)
    for _, ob in ipairs(t.wait.list) do
      for i, w in ipairs(ob.waiters) do if w == t then table.remove(ob.waiters, i) break end end
    end
    for i, x in ipairs(timers) do if x == t then table.remove(timers, i) break end end
  end
  -- a satisfied wait's result as the body sees it (an alert: STATUS_ALERTED)
  local function wait_log(w, r)
    if w.wait.kind == "alert" then return tostring(STATUS_ALERTED) end
    return tostring(r)
  end
  -- flag: the ReadyThread Flag (1: readied in a clock interrupt, by a timer object)
  local function signal(ob, cpu, flag)
    local snapshot = {}
    for i, w in ipairs(ob.waiters) do snapshot[i] = w end
    for _, w in ipairs(snapshot) do
      if w.state == "waiting" then
        local r = try_wait(w, w.wait.list, w.wait.all)
        if r then
          end_wait(w)
          w.log[#w.log + 1] = wait_log(w, r)
          w.wait = nil
          make_ready(w, cpu, flag or 0)
        end
      end
    end
  end

  -- ---- threads
  for i, th in ipairs(sc.threads) do
    local aff = th.affinity or full
    local t = { idx = i, id = 1000 + 4 * (i - 1), name = th.name, prio = th.priority, aff = aff, ops = th.ops,
                pc = 0, spin = nil, state = "init", qused = 0, switches = 0, csc = 0, bits = 0, cyc = 0,
                last_reason = 0, log = {}, profiling = false, keep_quantum = false, owned = {},
                obj = { kind = "thread", waiters = {}, exited = false }, alert = false, susp_count = 0,
                susp_pending = false }
    t.alert_obj = { kind = "alert", waiters = {}, owner = t }
    local ideal = th.ideal
    if ideal == nil then
      ideal = (i - 1) % ncpu
      if aff & (1 << ideal) == 0 then
        -- "moved into the affinity": the next CPU of the affinity (wrapping)
        for d = 1, ncpu do
          local c = (ideal + d) % ncpu
          if aff & (1 << c) ~= 0 then ideal = c break end
        end
      end
    end
    t.ideal = ideal
    threads[i] = t
    by_id[t.id] = t
    make_ready(t, cpus[0], 0)
  end

  local function charge(cpu, t, c)
    cpu.clock = cpu.clock + c
    cpu.busy = cpu.busy + c
    t.cyc = t.cyc + c
    t.qused = t.qused + c
  end

  local function exit_thread(cpu, t)
    t.state = "terminated"
    t.obj.exited = true
    -- its mutexes are abandoned in the order it acquired them ("Objects")
    local owned = t.owned
    t.owned = {}
    for _, ob in ipairs(owned) do
      ob.owner, ob.rec, ob.abandoned = nil, 0, true
      signal(ob, cpu)
    end
    signal(t.obj, cpu)
    switch_out(cpu, t, R_EXECUTIVE, S_TERMINATED, KERNEL_MODE)
  end

  -- preemption check on cpu running t: returns true when t was switched out.  It preempts
  -- when a thread that may preempt (created, woken, timed out) is eligible and of higher
  -- priority; the CPU then takes the highest eligible thread above t's priority.  While such
  -- a thread is Ready but not yet eligible here, the check stays pending and is done again at
  -- the next tick or the next run segment.
  local function preempt_check(cpu, t)
    local now, later = pending_above(cpu, t.prio)
    if now then
      local h = best_ready(cpu, t.prio + 1, nil, false)
      to_queue(t, true, cpu)
      t.keep_quantum = true
      switch_out(cpu, t, R_PREEMPT, S_READY, KERNEL_MODE, h)
      return true
    end
    if later then
      cpu.check_at = math.min(cpu.seg_end or math.maxinteger, cpu.next_tick)
    else
      cpu.check = false
    end
    return false
  end

  local function take_interrupt(cpu)
    local due = cpu.next_tick
    cpu.clock = cpu.clock + ic
    -- ticks that came due meanwhile are one interrupt: the next is the first due after the clock
    while cpu.next_tick <= cpu.clock do cpu.next_tick = cpu.next_tick + tick_cycles end
    cpu.interrupt = cpu.interrupt + ic
    cpu.ticks = cpu.ticks + 1
    local t = cpu.cur
    if cpu.idx == 0 then
      -- timer objects and wait timeouts due by the tick, in due-time order; at an equal due
      -- time the timers first (in the order they were set), then the waits (by thread id)
      for _ = 1, 100000 do
        local ot, wt
        for _, ob in ipairs(objs) do
          if ob.kind == "timer" and ob.armed and ob.due <= due and
             (not ot or ob.due < ot.due or (ob.due == ot.due and ob.seq < ot.seq)) then ot = ob end
        end
        for _, w in ipairs(timers) do
          if w.due <= due and (not wt or w.due < wt.due or (w.due == wt.due and w.id < wt.id)) then wt = w end
        end
        if ot and (not wt or ot.due <= wt.due) then
          if ot.period > 0 then
            timer_seq = timer_seq + 1
            ot.due, ot.seq = due + ot.period, timer_seq
          else
            ot.armed = false
          end
          ot.signaled = true
          signal(ot, cpu, 1)
        elseif wt then
          end_wait(wt)
          if wt.wait.kind ~= "sleep" then wt.log[#wt.log + 1] = tostring(WAIT_TIMEOUT) else wt.log[#wt.log + 1] = "" end
          wt.wait = nil
          make_ready(wt, cpu, 1)
        else
          break
        end
      end
    end
    if t then
      -- a quantum end is decided before a pending preemption check
      if t.qused >= quantum_cycles then
        local o = best_ready(cpu, t.prio, nil, false)
        if o then
          to_queue(t, false, cpu)
          switch_out(cpu, t, R_QEND, S_READY, KERNEL_MODE, o)
          return true
        end
        t.qused = 0
      end
      if cpu.check and preempt_check(cpu, t) then return true end
    end
    return false
  end

  -- a suspension another CPU asked for takes effect once this CPU's clock reached its time
  local function take_suspension(cpu, t)
    if not (t.susp_pending and cpu.clock >= t.susp_at) then return false end
    t.susp_pending = false
    t.state = "suspended"
    switch_out(cpu, t, R_SUSPENDED, S_WAITING, KERNEL_MODE)
    return true
  end

  -- a block boundary of guest code on cpu: interrupts, checks; true when t left the CPU
  local function boundary(cpu, t)
    if take_suspension(cpu, t) then return true end
    while cpu.clock >= cpu.next_tick do
      if take_interrupt(cpu) then return true end
    end
    if cpu.check and cpu.clock >= (cpu.check_at or 0) and preempt_check(cpu, t) then return true end
    return false
  end

  local function block_wait(cpu, t, kind, list, all, ms, reason)
    t.state = "waiting"
    t.wait = { kind = kind, list = list or {}, all = all, reason = reason }
    for _, ob in ipairs(t.wait.list) do table.insert(ob.waiters, t) end
    t.due = cpu.clock + ms * CYC_PER_MS
    t.wait.due_at = t.due
    timers[#timers + 1] = t
    switch_out(cpu, t, reason, S_WAITING, USER_MODE)
  end

  -- the API ops; true when t left the CPU
  local function api(cpu, t, op)
    local kd = op[1]
    if kd == "enable" then
      charge(cpu, t, K)
      t.profiling = true
      t.cyc_at_enable = t.cyc
      return false
    end
    charge(cpu, t, K)
    local log = t.log
    if kd == "sleep" then
      block_wait(cpu, t, "sleep", nil, false, op[2], R_DELAY)
      return true
    elseif kd == "sleep0" or kd == "yield" then
      local o
      if kd == "sleep0" then
        o = best_ready(cpu, t.prio, t, false)
      else
        o = best_ready(cpu, 0, t, false)
      end
      if kd == "sleep0" then log[#log + 1] = "" else log[#log + 1] = tostring(o ~= nil) end
      if o then
        to_queue(t, false, cpu)
        switch_out(cpu, t, R_YIELD, S_READY, KERNEL_MODE, o)
        return true
      end
      return false
    elseif kd == "set" then
      local ob = objs[op[2]]
      ob.signaled = true
      log[#log + 1] = "true"
      signal(ob, cpu)
    elseif kd == "reset" then
      objs[op[2]].signaled = false
      log[#log + 1] = "true"
      return false
    elseif kd == "release_mutex" then
      local ob = objs[op[2]]
      if ob.owner ~= t then
        log[#log + 1] = "false,288"
        return false
      else
        log[#log + 1] = "true"
        ob.rec = ob.rec - 1
        if ob.rec == 0 then
          ob.owner = nil
          for i, x in ipairs(t.owned) do if x == ob then table.remove(t.owned, i) break end end
          signal(ob, cpu)
        end
      end
    elseif kd == "release_sem" then
      local ob = objs[op[2]]
      if ob.count + op[3] > ob.max then
        log[#log + 1] = "false,298"
        return false
      else
        log[#log + 1] = "true," .. ob.count
        ob.count = ob.count + op[3]
        signal(ob, cpu)
      end
    elseif kd == "set_timer" then
      local ob = objs[op[2]]
      timer_seq = timer_seq + 1
      ob.signaled, ob.armed, ob.seq = false, true, timer_seq
      ob.due, ob.period = cpu.clock + op[3] * CYC_PER_MS, op[4] * CYC_PER_MS
      log[#log + 1] = "true"
      return false
    elseif kd == "cancel_timer" then
      objs[op[2]].armed = false
      log[#log + 1] = "true"
      return false
    elseif kd == "wait_alert" then
      if t.alert then
        t.alert = false
        log[#log + 1] = tostring(STATUS_ALERTED)
        return false
      end
      if op[2] == 0 then log[#log + 1] = tostring(WAIT_TIMEOUT) return false end
      block_wait(cpu, t, "alert", { t.alert_obj }, false, op[2], R_ALERT)
      return true
    elseif kd == "alert" then
      local o = threads[op[2]]
      log[#log + 1] = "0"
      o.alert = true
      signal(o.alert_obj, cpu)
    elseif kd == "suspend" then
      local o = threads[op[2]]
      if o.state == "terminated" then log[#log + 1] = FAILED .. ",5" return false end
      log[#log + 1] = tostring(o.susp_count)
      o.susp_count = o.susp_count + 1
      if o.susp_count > 1 then return false end
      if o.state == "ready" then
        qremove(o) -- a wait (Suspended): a preempted thread's kept quantum ends
        o.state, o.last_reason, o.susp_wait, o.keep_quantum = "suspended", R_SUSPENDED, nil, false
      elseif o.state == "running" then -- on another CPU: it leaves there (take_suspension)
        o.susp_pending, o.susp_at = true, cpu.clock
      elseif o.state == "waiting" then -- its wait is interrupted, waited again when resumed
        local w = o.wait
        end_wait(o)
        o.susp_wait = { wait = w, due = w.due_at }
        o.wait = nil
        o.state, o.last_reason = "suspended", R_SUSPENDED
      end
      return false
    elseif kd == "resume" then
      local o = threads[op[2]]
      log[#log + 1] = tostring(o.susp_count)
      if o.susp_count == 0 then return false end
      o.susp_count = o.susp_count - 1
      if o.susp_count > 0 then return false end
      if o.susp_pending then
        o.susp_pending = false
      elseif o.state == "suspended" then
        local sw = o.susp_wait
        o.susp_wait = nil
        if not sw then
          make_ready(o, cpu, 0)
        else
          local w = sw.wait
          o.wait = w
          local r = #w.list > 0 and try_wait(o, w.list, w.all)
          if r then
            o.log[#o.log + 1] = wait_log(o, r)
            o.wait = nil
            make_ready(o, cpu, 0)
          elseif sw.due <= cpu.clock then
            o.log[#o.log + 1] = w.kind == "sleep" and "" or tostring(WAIT_TIMEOUT)
            o.wait = nil
            make_ready(o, cpu, 0)
          else
            o.state, o.last_reason, o.due = "waiting", w.reason, sw.due
            for _, ob in ipairs(w.list) do table.insert(ob.waiters, o) end
            timers[#timers + 1] = o
          end
        end
      end
    elseif kd == "wait" or kd == "wait_thread" then
      local list, all, ms = {}, false, nil
      if kd == "wait" then
        for j, o in ipairs(op[2]) do list[j] = objs[o] end
        all, ms = op[3], op[4]
      else
        list[1] = threads[op[2]].obj
        ms = op[3]
      end
      local r = try_wait(t, list, all)
      if r then log[#log + 1] = tostring(r) return false end
      if ms == 0 then log[#log + 1] = tostring(WAIT_TIMEOUT) return false end
      block_wait(cpu, t, "wait", list, all, ms, R_USERREQ)
      return true
    end
    -- a call that can ready threads (SetEvent, or a ReleaseMutex or ReleaseSemaphore that
    -- succeeded) returns: a pending check is done at once
    if cpu.check then return preempt_check(cpu, t) end
    return false
  end

  -- runs cpu's current thread until it leaves the CPU or its segment ends
  local function run_thread(cpu)
    local t = cpu.cur
    for _ = 1, 1000000 do
      if t.spin then
        -- next guest block of k.spin: 3 (mov, test, jz), n x 2 (dec, jnz), 1 (ret)
        if boundary(cpu, t) then return end
        if cpu.seg_end and cpu.clock >= cpu.seg_end then return end
        local s = t.spin
        local c
        if s.i == 0 then c = 3 elseif s.i <= s.n then c = 2 else c = 1 end
        charge(cpu, t, c)
        s.i = s.i + 1
        if s.i > s.n + 1 then t.spin = nil t.log[#t.log + 1] = tostring(s.n) end
      else
        t.pc = t.pc + 1
        if t.pc == 1 then
          if api(cpu, t, { "enable" }) then return end
        elseif t.pc - 1 <= #t.ops then
          local op = t.ops[t.pc - 1]
          if op[1] == "spin" then
            -- a guest call begins a run segment: its round is the one the clock is in now,
            -- and a pending check is done at its first block boundary
            t.spin = { n = op[2], i = 0 }
            if ncpu > 1 then cpu.seg_end = (cpu.clock // sc.slice + 1) * sc.slice end
            cpu.check_at = 0
          elseif api(cpu, t, op) then
            return
          end
        else
          t.read = { csc = t.csc, bits = t.bits, cycle_time = t.cyc - t.cyc_at_enable }
          exit_thread(cpu, t)
          return
        end
      end
    end
    error("model: a thread ran a million steps")
  end

  local function all_done()
    for _, t in ipairs(threads) do if t.state ~= "terminated" then return false end end
    return true
  end

  local slice = sc.slice
  for _ = 1, 10000000 do
    local cpu = cpus[0]
    for c = 1, ncpu - 1 do if cpus[c].clock < cpu.clock then cpu = cpus[c] end end
    if ncpu > 1 then cpu.seg_end = (cpu.clock // slice + 1) * slice end
    cpu.check_at = 0
    if cpu.cur == nil then
      -- an idle CPU: an interrupt that is due, else the next thread, else the end of the
      -- run, else a jump to its next tick or round end
      -- (each is one step: after it the CPU furthest behind goes next)
      if cpu.clock >= cpu.next_tick then
        take_interrupt(cpu)
      elseif best_ready(cpu, 0, nil, true) then
        switch_in(cpu, best_ready(cpu, 0, nil, true))
        -- the threads readied while it was idle told no CPU to check: now every other CPU
        -- running a lower priority than a Ready thread does
        for c = 0, ncpu - 1 do
          local e = cpus[c]
          if e ~= cpu and e.cur then
            for p = e.cur.prio + 1, 31 do if #queues[p] > 0 then e.check = true end end
          end
        end
      else
        if all_done() then break end
        local target = cpu.next_tick
        if ncpu > 1 and cpu.seg_end < target then target = cpu.seg_end end
        cpu.idle = cpu.idle + (target - cpu.clock)
        cpu.clock = target
      end
    elseif not take_suspension(cpu, cpu.cur) then
      run_thread(cpu)
    end
  end
  local out = { events = ev_list, threads = {}, cpus = {} }
  for i, t in ipairs(threads) do
    out.threads[i] = { id = t.id, log = t.log, switches = t.switches, csc = t.read and t.read.csc,
                       bits = t.read and t.read.bits, cycle_time = t.read and t.read.cycle_time }
  end
  for c = 0, ncpu - 1 do
    local x = cpus[c]
    out.cpus[c + 1] = { time = x.clock, busy = x.busy, idle = x.idle, interrupt = x.interrupt, ticks = x.ticks,
                        switches = x.switches }
  end
  return out
end

-- ---- invariants on hcpsim's observations alone -------------------------------------------------------

-- The bound on how long a thread readied by creation, a wake-up or a timeout (a ReadyThread
-- event) may wait while a lower-priority thread runs on a CPU of its affinity
-- (../sim/README.md "Preemption"): 0 on one CPU; on several, two rounds (a CPU may have run
-- that far past the readying CPU's clock) plus the kernel work of the API calls a body makes
-- between two block boundaries (at most 9 here: Enable, 7 ops, Read) and a block.
local function preempt_latency(sc)
  if sc.cpus == 1 then return 0 end
  return 2 * sc.slice + 9 * (sc.api_call + sc.interrupt_cycles) + 3
end

-- A Ready thread of higher priority never waits beyond preempt_latency while a lower-priority
-- thread runs on a CPU of its affinity: nil, or the first violation.
local function check_wait_bound(sc, obs)
  local prio, aff = {}, {}
  for i, th in ipairs(obs.threads) do
    prio[th.id] = sc.threads[i].priority
    aff[th.id] = sc.threads[i].affinity or ((1 << sc.cpus) - 1)
  end
  local runs, cur = {}, {} -- per CPU: intervals {tid, from, to}
  local waits = {}         -- {tid, ready, switched in}
  local open = {}          -- tid -> its wait without a switch-in yet
  for _, e in ipairs(obs.events) do
    local cpu, ts, old, new = e:match("^C cpu(%d+) @(%d+) (%d+)%->(%d+)")
    if cpu then
      cpu, ts, old, new = tonumber(cpu), tonumber(ts), tonumber(old), tonumber(new)
      runs[cpu] = runs[cpu] or {}
      if cur[cpu] then cur[cpu].to = ts end
      cur[cpu] = nil
      if new ~= 0 then
        cur[cpu] = { tid = new, from = ts }
        table.insert(runs[cpu], cur[cpu])
        if open[new] then open[new].to, open[new] = ts, nil end
      end
    else
      local _, rts, tid = e:match("^R cpu(%d+) @(%d+) (%d+)")
      local w = { tid = tonumber(tid), from = tonumber(rts) }
      -- Ready again without a switch-in: it was suspended while ready (and resumed), an
      -- interval the events do not bound, so the earlier Ready is not checked
      if open[w.tid] then open[w.tid].skip = true end
      waits[#waits + 1], open[w.tid] = w, w
    end
  end
  local lat = preempt_latency(sc)
  for _, w in ipairs(waits) do
    if not w.skip and not w.to then return ("thread %d Ready at %d never ran"):format(w.tid, w.from) end
    for cpu, list in pairs(runs) do
      if not w.skip and aff[w.tid] & (1 << cpu) ~= 0 then
        for _, r in ipairs(list) do
          if prio[r.tid] < prio[w.tid] and r.to then
            local over = math.min(r.to, w.to) - math.max(r.from, w.from)
            if over > lat then
              return ("thread %d (priority %d) Ready from %d to %d while thread %d (priority %d) ran on cpu %d from %d to %d: %d cycles, bound %d")
                :format(w.tid, prio[w.tid], w.from, w.to, r.tid, prio[r.tid], cpu, r.from, r.to, over, lat)
            end
          end
        end
      end
    end
  end
  return nil
end

local function check_invariants(sc, obs)
  local ncpu = sc.cpus
  for i, c in ipairs(obs.cpus) do
    if c.time ~= c.busy + c.idle + c.interrupt then
      return ("cpu %d: time %d ~= busy %d + idle %d + interrupt %d"):format(i - 1, c.time, c.busy, c.idle, c.interrupt)
    end
  end
  local by_id, ins = {}, {}
  for i, th in ipairs(obs.threads) do
    by_id[th.id] = { aff = sc.threads[i].affinity or ((1 << ncpu) - 1), on = nil, last = -1, ins = 0 }
  end
  local cpu_cur, cpu_last = {}, {}
  for _, e in ipairs(obs.events) do
    local cpu, ts, old, new = e:match("^C cpu(%d+) @(%d+) (%d+)%->(%d+)")
    if cpu then
      cpu, ts, old, new = tonumber(cpu), tonumber(ts), tonumber(old), tonumber(new)
      if (cpu_cur[cpu] or 0) ~= old then
        return ("cpu %d: CSwitch at %d leaves thread %d, but %d was running"):format(cpu, ts, old, cpu_cur[cpu] or 0)
      end
      if ts < (cpu_last[cpu] or 0) then return ("cpu %d: CSwitch at %d goes back in time"):format(cpu, ts) end
      cpu_cur[cpu], cpu_last[cpu] = new, ts
      if old ~= 0 then
        local o = by_id[old]
        if o.on ~= cpu then return ("thread %d left cpu %d at %d without running there"):format(old, cpu, ts) end
        o.on, o.last = nil, ts
      end
      if new ~= 0 then
        local n = by_id[new]
        if n.on then return ("thread %d switched in on cpu %d at %d while on cpu %d"):format(new, cpu, ts, n.on) end
        if n.aff & (1 << cpu) == 0 then return ("thread %d ran on cpu %d outside its affinity"):format(new, cpu) end
        if ts < n.last then return ("thread %d's spans overlap at %d"):format(new, ts) end
        n.on, n.ins = cpu, n.ins + 1
      end
    end
  end
  local suspended = {}
  for _, th in ipairs(sc.threads) do
    for _, op in ipairs(th.ops) do if op[1] == "suspend" then suspended[op[2]] = true end end
  end
  for i, th in ipairs(obs.threads) do
    local b = by_id[th.id]
    if b.on then return ("thread %d still on cpu %d after the run"):format(th.id, b.on) end
    if b.ins ~= th.switches then
      return ("thread %d: %d CSwitch events switch it in, t.switches is %d"):format(th.id, b.ins, th.switches)
    end
    -- (a thread another suspends may leave its CPU Suspended before its Enable)
    if th.csc ~= th.switches - 1 and not suspended[i] then
      return ("thread %d: ContextSwitchCount %d after Enable in its first run, t.switches %d"):format(th.id, th.csc, th.switches)
    end
    for _, sl in ipairs(th.sleeps or {}) do
      if sl[2] - sl[1] < sc.api_call + sl[3] * CYC_PER_MS then
        return ("thread %d: Sleep(%d) called at %d returned at %d, before its due time"):format(th.id, sl[3], sl[1], sl[2])
      end
    end
  end
  return check_wait_bound(sc, obs)
end

-- ---- comparison -------------------------------------------------------------------------------------

-- the first difference between hcpsim (got) and the model (want), or nil
local function compare(got, want)
  local n = math.max(#got.events, #want.events)
  for i = 1, n do
    if got.events[i] ~= want.events[i] then
      local ctx = {}
      for j = math.max(1, i - 3), i - 1 do ctx[#ctx + 1] = "  both:   " .. got.events[j] end
      ctx[#ctx + 1] = "  hcpsim: " .. tostring(got.events[i])
      ctx[#ctx + 1] = "  model:  " .. tostring(want.events[i])
      return ("event %d differs\n%s"):format(i, table.concat(ctx, "\n"))
    end
  end
  for i, g in ipairs(got.threads) do
    local w = want.threads[i]
    for _, f in ipairs { "switches", "csc", "bits", "cycle_time" } do
      if g[f] ~= w[f] then return ("thread %d %s: hcpsim %s, model %s"):format(i, f, tostring(g[f]), tostring(w[f])) end
    end
    local gl, wl = table.concat(g.log, " | "), table.concat(w.log, " | ")
    if gl ~= wl then return ("thread %d results: hcpsim [%s], model [%s]"):format(i, gl, wl) end
  end
  for i, g in ipairs(got.cpus) do
    for _, f in ipairs { "time", "busy", "idle", "interrupt", "ticks", "switches" } do
      if g[f] ~= want.cpus[i][f] then
        return ("cpu %d %s: hcpsim %d, model %d"):format(i - 1, f, g[f], want.cpus[i][f])
      end
    end
  end
  return nil
end

local function check(sc)
  local got = run_hcpsim(sc)
  local want = model(sc)
  return compare(got, want), got
end

local function check_inv(sc)
  return check_invariants(sc, run_hcpsim(sc))
end

-- Removes ops, then whole threads, while the scenario still fails (bounded: each
-- pass tries every op once).
local function shrink(sc, fn)
  fn = fn or check
  local function copy(s)
    local c = {}
    for k, v in pairs(s) do c[k] = v end
    c.threads = {}
    for i, th in ipairs(s.threads) do
      local t2 = {}
      for k, v in pairs(th) do t2[k] = v end
      t2.ops = {}
      for j, op in ipairs(th.ops) do t2.ops[j] = op end
      c.threads[i] = t2
    end
    return c
  end
  local function fails(s)
    local ok, err = pcall(fn, s)
    return not ok or err ~= nil
  end
  for _ = 1, 3 do
    local changed = false
    for i = #sc.threads, 1, -1 do
      for j = #sc.threads[i].ops, 1, -1 do
        local c = copy(sc)
        local ops = c.threads[i].ops
        local op = ops[j]
        if op and op[1] ~= "resume" then
          table.remove(ops, j)
          if op[1] == "suspend" then -- with the resumption that balances it
            local depth = 0
            for k = j, #ops do
              if ops[k][1] == "suspend" and ops[k][2] == op[2] then depth = depth + 1
              elseif ops[k][1] == "resume" and ops[k][2] == op[2] then
                if depth == 0 then table.remove(ops, k) break end
                depth = depth - 1
              end
            end
          end
          if fails(c) then sc, changed = c, true end
        end
      end
    end
    if not changed then break end
  end
  return sc
end

-- ---- main -------------------------------------------------------------------------------------------

-- fn(scenario) for the scenarios of seeds FIRST .. FIRST + COUNT - 1: each as generated, then,
-- when it has several CPUs, the same seed forced onto one.
local function each_scenario(first, count, fn)
  for seed = first, first + count - 1 do
    FORCE_CPUS = nil
    local sc = generate(seed)
    fn(sc)
    if sc.cpus > 1 then
      FORCE_CPUS = 1
      fn(generate(seed))
    end
  end
end

if arg[1] == "print" then
  FORCE_CPUS = math.tointeger(tonumber(arg[3] or ""))
  print((standalone(generate(math.tointeger(tonumber(arg[2])) or 1)):gsub("\n$", "")))
  return
end

-- report FIRST COUNT: runs the seeds' scenarios in hcpsim only (as generated, then forced onto
-- one CPU when they have several), for `hcpsim run ... --report FILE.json`; prints, per machine
-- in creation order and per thread, what the report must hold (conformance/sched_report.sh):
-- "expect MACHINE THREAD USER KCALLS API_CALL": USER = the user cycles of its spins under the
-- unit cost table (k.spin(n) retires 4 + 2n instructions), KCALLS = its calls that enter the
-- kernel (Enable and every op but a spin; GetCurrentThread is a constant and reading happens
-- entirely in user mode, HCP-SPEC §2), API_CALL = the kernel work of one.
if arg[1] == "report" then
  local first = math.tointeger(tonumber(arg[2] or "1")) or 1
  local count = math.tointeger(tonumber(arg[3] or "20")) or 20
  local mi = 0
  local function expect(sc)
    run_hcpsim(sc)
    for i, th in ipairs(sc.threads) do
      local user, calls = 0, 1
      for _, op in ipairs(th.ops) do
        if op[1] == "spin" then user = user + 4 + 2 * op[2] else calls = calls + 1 end
      end
      print(("expect %d %d %d %d %d"):format(mi, i - 1, user, calls, sc.api_call))
    end
    mi = mi + 1
  end
  each_scenario(first, count, expect)
  return
end

if arg[1] == "diff" then
  FORCE_CPUS = math.tointeger(tonumber(arg[3] or ""))
  local sc = generate(math.tointeger(tonumber(arg[2])) or 1)
  if arg[4] == "shrink" then sc = shrink(sc) print(standalone(sc)) end
  local got, want = run_hcpsim(sc), model(sc)
  for i = 1, math.max(#got.events, #want.events) do
    print(("%-4d %-36s %s %s"):format(i, tostring(got.events[i]), got.events[i] == want.events[i] and "  " or "<>", tostring(want.events[i])))
  end
  for i, g in ipairs(got.threads) do
    print(("thread %d hcpsim: %s; switches %d csc %s bits %s cyc %s"):format(i, table.concat(g.log, " | "), g.switches, g.csc, g.bits, g.cycle_time))
    local w = want.threads[i]
    print(("thread %d model:  %s; switches %d csc %s bits %s cyc %s"):format(i, table.concat(w.log, " | "), w.switches, w.csc, w.bits, w.cycle_time))
  end
  for i, g in ipairs(got.cpus) do
    local w = want.cpus[i]
    print(("cpu %d hcpsim: time %d busy %d idle %d interrupt %d ticks %d switches %d"):format(i - 1, g.time, g.busy, g.idle, g.interrupt, g.ticks, g.switches))
    print(("cpu %d model:  time %d busy %d idle %d interrupt %d ticks %d switches %d"):format(i - 1, w.time, w.busy, w.idle, w.interrupt, w.ticks, w.switches))
  end
  return
end
-- Each seed's scenario runs as generated (1-3 CPUs) and forced onto one CPU; each run's
-- invariants are checked and its schedule compared with the model's.
local first = math.tointeger(tonumber(arg[1] or "1")) or 1
local count = math.tointeger(tonumber(arg[2] or "240")) or 240

-- err: the check's result on sc (computed by the caller); fn re-checks a smaller scenario
local function report(sc, label, err, fn)
  local name = ("seed %d: %d CPUs, %d threads: %s"):format(sc.seed, sc.cpus, #sc.threads, label)
  if err == nil then return tap.ok(true, name) end
  local small = shrink(sc, fn)
  local _, err2 = pcall(fn, small)
  tap.ok(false, name)
  tap.diag(tostring(err))
  tap.diag("shrunk scenario (" .. tostring(err2) .. "), hcpsim run FILE.lua:")
  for line in standalone(small):gmatch("[^\n]+") do tap.diag(line) end
end

local function run_seed(sc)
  local ok, got = pcall(run_hcpsim, sc)
  local inv, cmp
  if not ok then
    inv, cmp = got, got
  else
    inv = check_invariants(sc, got)
    local ok2, want = pcall(model, sc)
    if ok2 then cmp = compare(got, want) else cmp = want end
  end
  tap.clause("SCHED-MODEL-INVARIANTS")
  report(sc, "invariants hold", inv, check_inv)
  tap.clause("SCHED-MODEL-SCHEDULE")
  report(sc, "hcpsim's schedule is the model's", cmp, check)
end

each_scenario(first, count, run_seed)
tap.done_testing()
