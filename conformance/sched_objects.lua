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
tap.done_testing()
