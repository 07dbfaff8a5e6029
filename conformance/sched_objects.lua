-- Events, mutexes, semaphores, thread objects and the wait functions, as
-- Windows defines them: return codes (WAIT_OBJECT_0 + i, WAIT_ABANDONED_0 + i,
-- WAIT_TIMEOUT, WAIT_FAILED with GetLastError), FIFO wake order, auto/manual
-- reset, ownership and recursion, abandonment, counts, wait-all atomicity,
-- timeouts resolved on clock ticks.  One CPU; bodies that run no guest code
-- are never preempted, so each scenario's order follows from creation order
-- and the waits alone.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local OBJ0, AB0, TIMEOUT, FAILED = hcp.WAIT_OBJECT_0, hcp.WAIT_ABANDONED_0, hcp.WAIT_TIMEOUT, hcp.WAIT_FAILED

-- Runs the bodies (name -> function) as threads in list order on a fresh machine.
-- Appends to a log; the value is computed first (a blocking call must not
-- have its slot chosen before it blocks).
local function add(log, s) log[#log + 1] = s end

local function scenario(opts, bodies)
  local m = hcp.machine(opts or {})
  for _, b in ipairs(bodies(m)) do m:thread { name = b[1], priority = b[3], body = b[2] } end
  m:run()
  return m
end

tap.clause("SCHED-EVENT-MANUAL")
do
  local log = {}
  scenario(nil, function(m)
    local ev = m:event { manual = true }
    return {
      { "w1", function(t) add(log, "w1:" .. t:WaitForSingleObject(ev)) end },
      { "w2", function(t) add(log, "w2:" .. t:WaitForSingleObject(ev)) end },
      { "setter", function(t)
        add(log, "set")
        t:SetEvent(ev)
        add(log, "after-set:" .. t:WaitForSingleObject(ev, 0))
        t:ResetEvent(ev)
        add(log, "after-reset:" .. t:WaitForSingleObject(ev, 0))
      end },
    }
  end)
  tap.is(table.concat(log, " "), "set after-set:0 after-reset:258 w1:0 w2:0",
         "SetEvent on a manual event releases every waiter and stays signalled until ResetEvent")
end

tap.clause("SCHED-EVENT-AUTO")
do
  local log = {}
  scenario(nil, function(m)
    local ev = m:event {}
    return {
      { "w1", function(t) add(log, "w1:" .. t:WaitForSingleObject(ev)) end },
      { "w2", function(t) add(log, "w2:" .. t:WaitForSingleObject(ev)) end },
      { "setter", function(t)
        t:SetEvent(ev)
        add(log, "one:" .. t:WaitForSingleObject(ev, 0))
        t:SetEvent(ev)
        t:SetEvent(ev)
        add(log, "kept:" .. t:WaitForSingleObject(ev, 0))
        add(log, "consumed:" .. t:WaitForSingleObject(ev, 0))
      end },
    }
  end)
  tap.is(table.concat(log, " "), "one:258 kept:0 consumed:258 w1:0 w2:0",
         "an auto event releases one waiter per SetEvent (FIFO); with no waiter it stays signalled for one wait")
end

tap.clause("SCHED-MUTEX")
do
  local r = {}
  scenario(nil, function(m)
    local mx = m:mutex {}
    return {
      { "owner", function(t)
        r.first = t:WaitForSingleObject(mx)
        r.again = t:WaitForSingleObject(mx, 0)
        r.rel1 = t:ReleaseMutex(mx)
        r.rel2 = t:ReleaseMutex(mx)
        r.rel3, r.err3 = t:ReleaseMutex(mx)
        r.take = t:WaitForSingleObject(mx) -- owned again, then abandoned at exit
      end },
      { "stranger", function(t)
        r.s_rel, r.s_err = t:ReleaseMutex(mx)
        r.abandoned = t:WaitForSingleObject(mx)
        t:ReleaseMutex(mx)
      end },
      { "later", function(t) r.later = t:WaitForSingleObject(mx) end },
    }
  end)
  tap.is(r.first, OBJ0, "an unowned mutex is acquired")
  tap.is(r.again, OBJ0, "the owner acquires it again (recursion)")
  tap.ok(r.rel1 and r.rel2, "two releases for two acquisitions")
  tap.is(r.rel3, false, "a third release fails")
  tap.is(r.err3, hcp.ERROR_NOT_OWNER, "with ERROR_NOT_OWNER")
  tap.is(r.s_rel, false, "another thread cannot release it")
  tap.is(r.s_err, hcp.ERROR_NOT_OWNER, "ERROR_NOT_OWNER")
  tap.is(r.abandoned, AB0, "the owner exited holding it: the next waiter gets WAIT_ABANDONED_0")
  tap.is(r.later, OBJ0, "after a proper release the next acquisition is normal")
end

tap.clause("SCHED-SEMAPHORE")
do
  local r = {}
  scenario(nil, function(m)
    local s = m:semaphore { initial = 1, max = 2 }
    return { { "s", function(t)
      r.take = t:WaitForSingleObject(s, 0)
      r.empty = t:WaitForSingleObject(s, 0)
      r.rel, r.prev = t:ReleaseSemaphore(s, 1)
      r.over, r.over_err = t:ReleaseSemaphore(s, 2)
      r.rel2, r.prev2 = t:ReleaseSemaphore(s, 1)
      r.full, r.full_err = t:ReleaseSemaphore(s, 1)
      r.zero, r.zero_err = t:ReleaseSemaphore(s, 0)
    end } }
  end)
  tap.is(r.take, OBJ0, "a count of 1 satisfies one wait")
  tap.is(r.empty, TIMEOUT, "a count of 0 times out at once with timeout 0")
  tap.ok(r.rel and r.prev == 0, "ReleaseSemaphore(1) reports the previous count 0")
  tap.ok(r.over == false and r.over_err == hcp.ERROR_TOO_MANY_POSTS, "1 + 2 > max 2: ERROR_TOO_MANY_POSTS")
  tap.ok(r.rel2 and r.prev2 == 1, "the failed release changed nothing: previous count 1")
  tap.ok(r.full == false and r.full_err == hcp.ERROR_TOO_MANY_POSTS, "at max, one more fails")
  tap.ok(r.zero == false and r.zero_err == hcp.ERROR_INVALID_PARAMETER, "releasing 0 is ERROR_INVALID_PARAMETER")
end

tap.clause("SCHED-WAIT-MULTIPLE")
do
  local r = {}
  scenario(nil, function(m)
    local e1, e2 = m:event { manual = true }, m:event { manual = true }
    local a, s = m:event {}, m:semaphore { initial = 0, max = 5 }
    return {
      { "waiter", function(t)
        t:SetEvent(e2)
        r.any1 = t:WaitForMultipleObjects({ e1, e2 }, false, 0)
        t:SetEvent(e1)
        r.any0 = t:WaitForMultipleObjects({ e1, e2 }, false, 0)
        r.all = t:WaitForMultipleObjects({ a, s }, true) -- blocks until both are signalled at once
        r.a_after = t:WaitForSingleObject(a, 0)
        r.s_after = t:WaitForSingleObject(s, 0)
      end },
      { "signaller", function(t)
        t:SetEvent(a)
        r.a_kept = "set"
        t:ReleaseSemaphore(s, 1)
      end },
    }
  end)
  tap.is(r.any1, OBJ0 + 1, "wait-any returns WAIT_OBJECT_0 + the index of the signalled object")
  tap.is(r.any0, OBJ0, "with several signalled, the lowest index")
  tap.is(r.all, OBJ0, "wait-all returns when every object is signalled")
  tap.is(r.a_after, TIMEOUT, "and it consumed the auto event ...")
  tap.is(r.s_after, TIMEOUT, "... and the semaphore's count, together")
end

tap.clause("SCHED-WAIT-ERRORS")
do
  local r = {}
  scenario(nil, function(m)
    local e = m:event {}
    return { { "x", function(t)
      r.bad, r.bad_err = t:WaitForSingleObject(0x1234, 0)
      r.none, r.none_err = t:WaitForMultipleObjects({}, false, 0)
      local many = {}
      for i = 1, 65 do many[i] = e end
      r.many, r.many_err = t:WaitForMultipleObjects(many, false, 0)
      r.dup, r.dup_err = t:WaitForMultipleObjects({ e, e }, true, 0)
      r.dup_any = t:WaitForMultipleObjects({ e, e }, false, 0)
      local q = t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, t:GetCurrentThreadId())
      r.acc, r.acc_err = t:WaitForSingleObject(q, 0)
      r.set_bad, r.set_err = t:SetEvent(q)
      r.last = t:GetLastError()
    end } }
  end)
  tap.ok(r.bad == FAILED and r.bad_err == hcp.ERROR_INVALID_HANDLE, "a garbage handle: WAIT_FAILED, ERROR_INVALID_HANDLE")
  tap.ok(r.none == FAILED and r.none_err == hcp.ERROR_INVALID_PARAMETER, "no handles: WAIT_FAILED, 87")
  tap.ok(r.many == FAILED and r.many_err == hcp.ERROR_INVALID_PARAMETER, "65 handles: WAIT_FAILED, 87")
  tap.ok(r.dup == FAILED and r.dup_err == hcp.ERROR_INVALID_PARAMETER, "the same object twice in a wait-all: 87")
  tap.is(r.dup_any, TIMEOUT, "the same object twice in a wait-any is allowed")
  tap.ok(r.acc == FAILED and r.acc_err == hcp.ERROR_ACCESS_DENIED, "a handle without SYNCHRONIZE: ERROR_ACCESS_DENIED")
  tap.ok(r.set_bad == false and r.set_err == hcp.ERROR_INVALID_HANDLE, "SetEvent on a thread handle: ERROR_INVALID_HANDLE")
  tap.is(r.last, hcp.ERROR_INVALID_HANDLE, "failures set the last error")
end

tap.clause("SCHED-WAIT-TIMEOUT-TICKS")
do
  local r = {}
  -- default tick: 156250 x 100 ns = 15.625 ms = 46875000 cycles at 3 GHz
  scenario(nil, function(m)
    local e = m:event {}
    return { { "x", function(t)
      r.w10 = t:WaitForSingleObject(e, 10) -- due 30000000: first tick at or after it is 46875000
      r.t10 = m:clock()
      r.w16 = t:WaitForSingleObject(e, 16) -- due t10 + 48000000 = 94877000: tick 3 at 140625000
      r.t16 = m:clock()
    end } }
  end)
  tap.is(r.w10, TIMEOUT, "the wait times out")
  tap.is(r.t10, 46875000 + 2000, "10 ms resolve at the first clock tick (15.625 ms), after its interrupt")
  tap.is(r.t16, 3 * 46875000 + 2000, "16 ms from there end at the third tick")
end

tap.clause("SCHED-EXIT-CODE")
do
  local r = {}
  local m = hcp.machine {}
  local a = m:thread { name = "a", body = function(t) t:exit(42); r.after = true end }
  local b = m:thread { name = "b", body = function(t) r.running = m:threads()[3].exit_code end }
  local c = m:thread { name = "c", body = function(t) return "not a number" end }
  m:run()
  tap.is(a.exit_code, 42, "t:exit(code) ends the thread with that code")
  tap.is(r.after, nil, "nothing after t:exit runs")
  tap.is(r.running, hcp.STILL_ACTIVE, "a thread that has not exited reports STILL_ACTIVE (259)")
  tap.is(c.exit_code, 0, "a body returning a non-integer exits with 0")
  tap.is(b.state, "Terminated", "threads end Terminated")
end
tap.clause("SCHED-TIMER-OBJECT")
do
  -- default machine: 3 GHz, a tick every 46875000 cycles (15.625 ms), 2000 cycles of interrupt
  local r = {}
  scenario(nil, function(m)
    local tm, nt, e = m:timer {}, m:timer { manual = true }, m:event {}
    return {
      { "x", function(t)
        r.set = t:SetWaitableTimer(tm, -100000) -- 10 ms: due before the first tick
        r.w1 = t:WaitForSingleObject(tm)
        r.t1 = m:clock()
        r.again = t:WaitForSingleObject(tm, 0)
        -- 20 ms periods: each expiry at a tick, the next due 60000000 cycles after that tick
        t:SetWaitableTimer(tm, -200000, 20)
        r.p = {}
        for i = 1, 3 do t:WaitForSingleObject(tm) r.p[i] = m:clock() end
        r.cancel = t:CancelWaitableTimer(tm)
        r.w_cancelled = t:WaitForSingleObject(tm, 100)
        t:SetWaitableTimer(nt, -10000)
        r.n1 = t:WaitForSingleObject(nt)
        r.n2 = t:WaitForSingleObject(nt, 0)
        r.bad_ok, r.bad_err = t:SetWaitableTimer(e, -10000)
        r.neg_ok, r.neg_err = t:SetWaitableTimer(tm, -10000, -1)
      end },
    }
  end)
  tap.is(r.set, true, "m:timer{} and t:SetWaitableTimer(h, -100000): true")
  tap.is(r.w1, OBJ0, "a synchronization timer's wait ends when it expires")
  tap.is(r.t1, 46875000 + 2000, "a timer due at 10 ms expires at the first clock tick at or after it, in its interrupt")
  tap.is(r.again, TIMEOUT, "the satisfied wait reset the synchronization timer")
  tap.is(table.concat(r.p, " "), table.concat({ 140625000 + 2000, 234375000 + 2000, 328125000 + 2000 }, " "),
    "a 20 ms periodic timer set at 46877000 expires at ticks 3, 5 and 7: each expiry's tick + 60000000 cycles, rounded up to a tick")
  tap.is(r.cancel, true, "CancelWaitableTimer: true")
  tap.is(r.w_cancelled, TIMEOUT, "a cancelled timer does not expire")
  tap.is(r.n1 .. " " .. r.n2, OBJ0 .. " " .. OBJ0, "a notification (manual) timer stays signalled after a wait")
  tap.is(tostring(r.bad_ok) .. " " .. tostring(r.bad_err), "false " .. hcp.ERROR_INVALID_HANDLE,
    "SetWaitableTimer on an event: false, ERROR_INVALID_HANDLE")
  tap.is(tostring(r.neg_ok) .. " " .. tostring(r.neg_err), "false " .. hcp.ERROR_INVALID_PARAMETER,
    "a negative period: false, ERROR_INVALID_PARAMETER")
end

tap.clause("SCHED-SUSPEND")
do
  local r = { log = {} }
  local m = hcp.machine {}
  local e = m:event {}
  local b, c
  m:thread { name = "a", body = function(t)
    r.s1 = t:SuspendThread(b)
    r.s2 = t:SuspendThread(b)
    r.sc = t:SuspendThread(c)
    t:SetEvent(e)
    t:Sleep(20)
    add(r.log, "a slept")
    r.r1 = t:ResumeThread(b)
    t:Sleep(20)
    add(r.log, "a slept again")
    r.r2 = t:ResumeThread(b)
    r.rc = t:ResumeThread(c)
    t:Sleep(20)
    r.r3 = t:ResumeThread(b)
    r.self, r.self_err = t:SuspendThread(t:GetCurrentThread())
  end }
  b = m:thread { name = "b", body = function(t) add(r.log, "b ran") end }
  c = m:thread { name = "c", body = function(t)
    r.cw = t:WaitForSingleObject(e, 10)
    add(r.log, "c woke " .. r.cw)
  end }
  m:run()
  tap.is(r.s1 .. " " .. r.s2 .. " " .. r.sc, "0 1 0",
    "SuspendThread returns the previous count (b suspended twice, c once)")
  tap.is(table.concat(r.log, ", "), "a slept, a slept again, b ran, c woke 0",
    "suspended threads run only when their count reaches 0: a ready one, and a waiting one whose event was set while it was suspended (its wait satisfied at resumption, though its 10 ms timeout had passed)")
  tap.is(r.r1 .. " " .. r.r2 .. " " .. r.rc .. " " .. r.r3, "2 1 1 0",
    "ResumeThread returns the previous count; 0 for a thread not suspended")
  tap.is(tostring(r.self) .. " " .. tostring(r.self_err), 0xFFFFFFFF .. " " .. hcp.ERROR_NOT_SUPPORTED,
    "a Lua body cannot suspend itself: 0xFFFFFFFF, ERROR_NOT_SUPPORTED")
end

tap.clause("SCHED-ALERT-BY-THREAD-ID")
do
  local r = {}
  local m = hcp.machine {}
  local w
  w = m:thread { name = "w", body = function(t)
    r.w1 = t:WaitForAlertByThreadId()
    r.own = t:AlertThreadByThreadId(t:GetCurrentThreadId())
    r.w2 = t:WaitForAlertByThreadId(0)
    r.w3 = t:WaitForAlertByThreadId(0)
    r.w4 = t:WaitForAlertByThreadId(10)
    local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0)
    t:WaitForAlertByThreadId(10)
    local _, pd = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING)
    r.bits = pd.WaitReasonBitMap
    t:DisableThreadProfiling(ph)
  end }
  m:thread { name = "alerter", body = function(t)
    r.a = t:AlertThreadByThreadId(w)
    r.bad = t:AlertThreadByThreadId(12345)
  end }
  m:run()
  tap.is(r.w1, 0x101, "WaitForAlertByThreadId ends with STATUS_ALERTED when another thread alerts it")
  tap.is(r.a, 0, "AlertThreadByThreadId: STATUS_SUCCESS")
  tap.is(r.own .. " " .. r.w2 .. " " .. r.w3, "0 257 258",
    "an alert given before the wait is kept for the next one, which takes it (STATUS_ALERTED, then STATUS_TIMEOUT)")
  tap.is(r.w4, 0x102, "without an alert the wait times out: STATUS_TIMEOUT")
  tap.is(r.bits, 1 << 37, "the wait records WrAlertByThreadId (37)")
  tap.is(r.bad, 0xC000000B, "an unknown thread id: STATUS_INVALID_CID")
end
tap.done_testing()
