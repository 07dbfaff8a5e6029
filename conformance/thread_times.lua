-- GetThreadTimes and QueryThreadCycleTime (HCP-SPEC §8.1, §8.3, §8.4, §9;
-- edge cases 46-51), the last section on every profile.  The home of the TIMES-,
-- CYCLETIME- and SIMDEF-TIMES- clauses (README.md "Where a test goes"); Windows CE
-- 2.10-2.12's rules (PLAT-CE-TIMES) are platforms.lua's.  The accounting rules are stated in api/README.md
-- ("Thread times") and sim/README.md ("Thread times"):
--
--   creation = boot_time + floor(creation cycles x 10^7 / frequency)   (the creating CPU's clock)
--   exit     = boot_time + floor(exit cycles x 10^7 / frequency), 0 while the thread lives
--   user     = (clock interrupts taken while the thread ran) x tick     (taken at block boundaries: user mode)
--   kernel   = floor(API-call kernel cycles x 10^7 / frequency / tick) x tick   (interrupts excluded)
--   QueryThreadCycleTime = user + kernel cycles without interrupts (PERFORMANCE_DATA.CycleTime's count)
--
-- Both functions enter the kernel: each charges api_call cycles to the caller
-- before it reads, so a thread that queries itself sees its own call.  Every
-- expected value below is derived by hand from these rules, the scheduler
-- rules in sim/README.md and spin(n) = 4 + 2n instructions (one cycle each
-- with cost = "unit"; blocks: [mov test jz] [dec jnz] x n [ret]).
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local FT1970 = 116444736000000000 -- FILETIME of 1970-01-01: 134774 days x 86400 s x 10^7 (HCP-SPEC §8.3)
local DAY = 86400 * 10000000 -- one day in 100-ns units
local BOOT = FT1970 + 20454 * DAY -- default boot_time: 2026-01-01 00:00 UTC, 20454 days after 1970-01-01
local TICK = 156250 -- the default clock increment, 100-ns units
local CUR = -2
local POISON = 0xDEADBEEF
local DISP = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING
local SENT = string.rep("\xA5", 40)

local function unix(ft) return (ft - FT1970) // 10000000 end

------------------------------------------------------------------------------
-- 1. FILETIME epochs and the default boot time (edge cases 46, 50)
------------------------------------------------------------------------------
tap.clause("TIMES-FILETIME")
tap.is(FT1970, (369 * 365 + 89) * 86400 * 10000000, "1601->1970 = (369 x 365 + 89) days in 100 ns (edge 50)")
tap.is(FT1970, 0x019DB1DED53E8000, "= 0x019DB1DED53E8000")
tap.is(BOOT, 134116992000000000, "2026-01-01 00:00 UTC = 116444736000000000 + 20454 x 864000000000")
tap.is(unix(BOOT), 1767225600, "which is Unix time 1767225600")

do
  local m = hcp.machine {} -- default boot_time, 3 GHz, api_call 1500 cycles
  m:thread { name = "first", body = function(t)
    tap.clause("TIMES-CREATION")
    local ok, c, e, kt, ut = t:GetThreadTimes(CUR)
    tap.is(ok, true, "GetThreadTimes(GetCurrentThread()) succeeds (edge 46)")
    tap.is(c, BOOT, "a thread created before m:run was created at boot: 2026-01-01 00:00 UTC")
    tap.clause("TIMES-EXIT")
    tap.is(e, 0, "ExitTime is 0 while the thread runs (edge 47)")
    tap.clause("TIMES-KERNEL-USER")
    tap.is(kt, 0, "kernel: 1500 cycles = 5 x 100 ns, less than a tick -> 0")
    tap.is(ut, 0, "user: no clock interrupt hit it -> 0")
  end }
  m:run()
end

do -- edge 50: boot at the Unix epoch; 1 MHz, interrupts free, cycles = instructions
  tap.clause("TIMES-FILETIME")
  local m = hcp.machine { boot_time = FT1970, frequency = 1000000, interrupt_cycles = 0, cost = "unit" }
  local k = m:load "kernels"
  local epoch, one
  epoch = m:thread { name = "epoch", body = function(t)
    local _, c = t:GetThreadTimes(CUR)
    tap.is(c, FT1970, "boot_time = 116444736000000000: creation at time 0 is that FILETIME")
    tap.is(unix(c), 0, "(ft - 116444736000000000) / 10^7 = Unix time 0")
    t:run(k.spin, 499998) -- 4 + 2 x 499998 = 1,000,000 cycles = 1 s at 1 MHz
    tap.is(m:clock(), 1000000, "after spin(499998) the clock reads 1 s (interrupts cost 0 here)")
    one = m:thread { name = "one", body = function(t2)
      local _, c1 = t2:GetThreadTimes(CUR)
      tap.is(c1, 116444736010000000, "a thread created at 1 s: 116444736010000000")
      tap.is(unix(c1), 1, "= Unix time 1")
      local _, c0, e0, k0, u0 = t2:GetThreadTimes(epoch)
      tap.is(c0, FT1970, "the creator's creation time, read through its handle")
      tap.is(e0, 116444736010000000, "its exit time: it exited at 1 s (after its body ended)")
      tap.is(k0, 0, "its kernel time: no API-call cycles (unit cost) -> 0")
      -- tick = 15625 cycles; interrupts due at 15625 j.  j = 1..63 are taken at
      -- block boundaries of spin; j = 64 is due at 1,000,000 where the [ret]
      -- block already started (at 999,999): no boundary of `epoch` is left.
      tap.is(u0, 63 * TICK, "its user time: 63 clock interrupts x 156250")
    end }
  end }
  m:run()
  tap.ok(one ~= nil, "the second thread was created and ran")
end

do
  tap.clause("TIMES-FILETIME")
  local ok, err = pcall(hcp.machine, { boot_time = -1 })
  tap.ok(not ok and tostring(err):find("boot_time", 1, true) ~= nil, "boot_time = -1 is refused, naming the option")
end

------------------------------------------------------------------------------
-- 2. Creation and exit times at 3 GHz; user ticks; cycle time without
--    interrupts; another thread's handle (edge cases 47, 51)
--
-- cost = "unit", tick 15625 (1.5625 ms) = 4,687,500 cycles, interrupt 2000 cycles.
-- W (priority 8) runs spin(7,500,000) = 15,000,004 cycles from time 0; the
-- interrupts due at 4,687,500, 9,375,000 and 14,062,500 hit it (the 4th is
-- due at 18,750,000, after it ends); its clock ends at 15,000,004 + 3 x 2000
-- = 15,006,004.  No ready thread of priority >= 8 exists, so no quantum end.
-- W creates C (priority 6) there: 15,006,004 x 10^7 / 3e9 = 50,020.013 ->
-- C's creation = BOOT + 50,020.  W exits at 15,006,004: exit = BOOT + 50,020.
-- R (priority 7, created before the run) runs next, then C.
------------------------------------------------------------------------------
do
  local m = hcp.machine { cost = "unit", tick = 15625 }
  local k = m:load "kernels"
  local W, C, R
  W = m:thread { name = "W", body = function(t)
    local _, q0 = t:QueryThreadCycleTime(CUR)
    t:run(k.spin, 7500000)
    local _, q1 = t:QueryThreadCycleTime(CUR)
    tap.clause("CYCLETIME-QUERY")
    tap.is(q0, 0, "QueryThreadCycleTime at start: 0 (unit cost: API calls are free)")
    tap.is(q1 - q0, 15000004, "across spin(7500000): 15,000,004 = instructions; 3 interrupts excluded")
    tap.is(m:clock(), 15006004, "while the clock moved 15,000,004 + 3 x 2000")
    local ok, c, e, kt, ut = t:GetThreadTimes(CUR)
    tap.clause("TIMES-CREATION")
    tap.is(ok, true, "GetThreadTimes on itself")
    tap.is(c, BOOT, "creation = boot_time (created before m:run)")
    tap.clause("TIMES-EXIT")
    tap.is(e, 0, "exit = 0 while it runs (edge 47)")
    tap.clause("TIMES-KERNEL-USER")
    tap.is(ut, 3 * 15625, "user = 3 interrupts x 15625 = 46875")
    tap.is(kt, 0, "kernel = 0: no API-call cycles, interrupts are not kernel time")
    C = m:thread { name = "C", priority = 6, body = function(t2)
      tap.clause("TIMES-CREATION")
      local _, c2 = t2:GetThreadTimes(CUR)
      tap.is(c2, BOOT + 50020, "C (created by W's body at 15,006,004 cycles): BOOT + floor(50,020.013)")
    end }
    local ok2, c2, e2 = t:GetThreadTimes(C)
    tap.clause("TIMES-CREATION")
    tap.is(ok2, true, "W reads C's times through C's handle")
    tap.is(c2, BOOT + 50020, "C's creation time, read by its creator")
    tap.clause("TIMES-EXIT")
    tap.is(e2, 0, "C has not run yet: exit = 0")
  end }
  R = m:thread { name = "R", priority = 7, body = function(t)
    tap.clause("TIMES-EXIT")
    tap.is(W.state, "Terminated", "W has exited when R runs")
    local ok, c, e, kt, ut = t:GetThreadTimes(W)
    tap.is(ok, true, "GetThreadTimes on an exited thread succeeds")
    tap.is(c, BOOT, "its creation time")
    tap.is(e, BOOT + 50020, "its exit time: 15,006,004 cycles -> BOOT + 50,020")
    tap.ok(e >= c and c >= BOOT, "ExitTime >= CreationTime >= boot (edge 47)")
    tap.is(kt, 0, "its kernel time")
    tap.is(ut, 3 * 15625, "its user time (edge 47: a multiple of the tick)")
    tap.clause("CYCLETIME-QUERY")
    local qok, q = t:QueryThreadCycleTime(W)
    tap.is(qok, true, "QueryThreadCycleTime on another (exited) thread's handle")
    tap.is(q, 15000004, "its final cycle time: 15,000,004")
    local _, _, ec = t:GetThreadTimes(C)
    tap.clause("TIMES-EXIT")
    tap.is(ec, 0, "C is Ready, not exited: exit = 0")
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 3. The kernel/user rule, derived cycle by cycle (edge cases 46, 47)
--
-- frequency 10^7 (1 cycle = 100 ns), tick 1000 (= 1000 cycles), interrupt 10
-- cycles, unit cost with api_call = 700.  W (priority 8, alone at its
-- priority) from time 0:
--   QueryThreadCycleTime      kernel 700 -> returns 700          clock 700
--   spin(998) = 2000 cycles   interrupts due at 1000, 2000 hit it clock 2720
--   GetThreadTimes            kernel 1400 -> 1400 x 100 ns -> 1 tick = 1000;
--                             user 2 x 1000 = 2000                clock 3420
--   QueryThreadCycleTime      700 + 2000 + 700 + 700 = 4100      clock 4120
--   spin(1) = 6 cycles        the interrupt due at 3000 (the clock passed it
--                             inside the API calls) is taken at spin's first
--                             block boundary: user mode     clock 4120+10+6 = 4136
--   GetThreadTimes            kernel 2800 -> 2 ticks = 2000; user 3000; clock 4836
-- W exits at 4836.  B (priority 7) then reads W: exit = BOOT + 4836.
------------------------------------------------------------------------------
do
  local m = hcp.machine { frequency = 10000000, tick = 1000, interrupt_cycles = 10,
                          cost = { table = "unit", api_call = 700 } }
  local k = m:load "kernels"
  local W
  W = m:thread { name = "W", body = function(t)
    tap.clause("CYCLETIME-QUERY")
    local _, q1 = t:QueryThreadCycleTime(CUR)
    tap.is(q1, 700, "the first read includes its own kernel entry: 700")
    t:run(k.spin, 998)
    tap.clause("TIMES-KERNEL-USER")
    local _, c, e, kt, ut = t:GetThreadTimes(CUR)
    tap.is(kt, 1000, "kernel: 2 API calls = 1400 cycles = 1400 x 100 ns -> 1 whole tick = 1000")
    tap.is(ut, 2000, "user: 2 interrupts (due 1000, 2000) hit it in spin -> 2 x 1000")
    tap.is(c, BOOT, "creation = boot")
    tap.is(e, 0, "exit = 0")
    tap.clause("CYCLETIME-QUERY")
    local _, q2 = t:QueryThreadCycleTime(CUR)
    tap.is(q2, 4100, "cycle time = 700 + 2000 + 700 + 700: 3 API calls and spin, no interrupts")
    tap.is(m:clock(), 4120, "the clock also holds the 2 interrupts (2 x 10)")
    t:run(k.spin, 1)
    tap.clause("TIMES-KERNEL-USER")
    local _, _, _, kt2, ut2 = t:GetThreadTimes(CUR)
    tap.is(kt2, 2000, "kernel: 4 API calls = 2800 cycles -> 2 ticks = 2000")
    tap.is(ut2, 3000, "user: the interrupt that came due inside the API calls is taken at the next block: 3000")
    tap.is(m:clock(), 4836, "clock 4120 + 10 (interrupt) + 6 (spin(1)) + 700")
  end }
  m:thread { name = "B", priority = 7, body = function(t)
    tap.clause("TIMES-EXIT")
    local ok, c, e, kt, ut = t:GetThreadTimes(W)
    tap.is(ok, true, "B reads the exited W")
    tap.is(c, BOOT, "W creation = boot")
    tap.is(e, BOOT + 4836, "W exit = boot + 4836 (1 cycle = 100 ns)")
    tap.is(kt, 2000, "W kernel = 2000")
    tap.is(ut, 3000, "W user = 3000")
    tap.clause("CYCLETIME-QUERY")
    local _, q = t:QueryThreadCycleTime(W)
    tap.is(q, 4806, "W cycle time = 4 x 700 + 2000 + 6 = 4806 (its exit clock less 3 interrupts)")
    local _, own = t:QueryThreadCycleTime(CUR)
    tap.is(own, 2100, "B's own: its 3 calls, 3 x 700 (reading W charges B, not W)")

    tap.clause("TIMES-LAYOUT")
    local buf = m:alloc(64)
    m:write(buf, SENT)
    local lok = t:GetThreadTimes(W, { creation = buf + 4, exit = buf + 12, kernel = buf + 20, user = buf + 28 })
    tap.is(lok, true, "FILETIMEs at 4-aligned (not 8-aligned) addresses are written")
    local want = "\xA5\xA5\xA5\xA5"
      .. string.pack("<I4I4", BOOT & 0xFFFFFFFF, BOOT >> 32)
      .. string.pack("<I4I4", (BOOT + 4836) & 0xFFFFFFFF, (BOOT + 4836) >> 32)
      .. string.pack("<I4I4", 2000, 0) .. string.pack("<I4I4", 3000, 0) .. "\xA5\xA5\xA5\xA5"
    tap.is(m:read(buf, 40), want, "each FILETIME is dwLowDateTime then dwHighDateTime, little-endian; nothing else written")
    m:write(buf, SENT)
    tap.is(select(2, t:QueryThreadCycleTime(W, buf + 8)), 4806, "QueryThreadCycleTime into a caller's buffer")
    tap.is(m:read(buf, 24), string.rep("\xA5", 8) .. string.pack("<I8", 4806) .. string.rep("\xA5", 8),
           "it writes exactly 8 bytes, little-endian")
  end }
  m:run()
end

do -- edge 46: exactly 1 s of kernel work reports KernelTime 10,000,000
  tap.clause("TIMES-KERNEL-USER")
  local m = hcp.machine { frequency = 1000000, interrupt_cycles = 0, cost = { table = "unit", api_call = 10000 } }
  m:thread { name = "kernel-second", body = function(t)
    local last
    for _ = 1, 99 do last = select(2, t:QueryThreadCycleTime(CUR)) end
    tap.is(last, 990000, "99 calls of 10,000 kernel cycles: cycle time 990,000")
    local _, _, _, kt, ut = t:GetThreadTimes(CUR)
    tap.is(kt, 10000000, "the 100th call makes 1,000,000 cycles = 1 s at 1 MHz: KernelTime 10,000,000 (edge 46)")
    tap.is(kt // TICK, 64, "= 64 ticks of 156250")
    tap.is(ut, 0, "no guest code ran, so no interrupt was taken in user mode: UserTime 0")
  end }
  m:run()
end

do -- edge 47 on the default machine: 3 GHz, tick 156250 = 46,875,000 cycles, api_call 1500
  tap.clause("TIMES-KERNEL-USER")
  local m = hcp.machine {}
  local k = m:load "kernels"
  m:thread { name = "mixed", body = function(t)
    for _ = 1, 40000 do t:QueryThreadCycleTime(CUR) end -- 60,000,000 kernel cycles
    t:run(k.spin, 15000000) -- the interrupt due at 46,875,000 is taken at its first block
    local _, _, _, kt, ut = t:GetThreadTimes(CUR)
    tap.is(kt, TICK, "kernel: 40001 x 1500 cycles = 20.0005 ms = 200,005 x 100 ns -> 1 tick = 156250")
    tap.is(kt % TICK, 0, "KernelTime is a multiple of 156250 (edge 47)")
    tap.is(ut % TICK, 0, "UserTime is a multiple of 156250 (edge 47)")
    tap.ok(ut >= TICK, "and the spin was charged at least the interrupt that came due in the API calls")
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 4. QueryThreadCycleTime and PERFORMANCE_DATA.CycleTime (HCP-SPEC §8.4; edge 51)
------------------------------------------------------------------------------
do
  tap.clause("CYCLETIME-QUERY")
  local m = hcp.machine {} -- default costs: api_call 1500
  m:thread { name = "fresh", body = function(t)
    local ok, q1 = t:QueryThreadCycleTime(CUR)
    tap.is(ok, true, "QueryThreadCycleTime(GetCurrentThread()) succeeds (edge 51)")
    tap.is(q1, 1500, "a fresh thread's first read is nonzero: its own kernel entry, 1500 cycles")
    local _, q2 = t:QueryThreadCycleTime(CUR)
    tap.is(q2, 3000, "non-decreasing: the next read adds one more entry")
  end }
  m:run()
end

do
  -- frequency 10^7, tick 1000, interrupt 10, unit cost, api_call 700.
  --   Enable (700, then the bank is snapshotted: S = 700)
  --   Read1 (user mode): CycleTime c1 = 0
  --   Q1: 700 more -> q1 = 1400
  --   spin(100) = 204 (the interrupt due at 1000 is taken in it: not cycle time)
  --   Read2: c2 = 700 + 204 = 904
  --   Q2: 700 more -> q2 = 2304
  -- [Read1, Read2] holds Q1's entry and the spin; [Q1, Q2] holds the spin and
  -- Q2's entry: the same work, so q2 - q1 = c2 - c1.
  tap.clause("CYCLETIME-QUERY")
  local m = hcp.machine { frequency = 10000000, tick = 1000, interrupt_cycles = 10,
                          cost = { table = "unit", api_call = 700 } }
  local k = m:load "kernels"
  m:thread { name = "pair", body = function(t)
    local rc, ph = t:EnableThreadProfiling(CUR, 0, 0)
    local _, pd1 = t:ReadThreadProfilingData(ph, DISP)
    local _, q1 = t:QueryThreadCycleTime(CUR)
    t:run(k.spin, 100)
    local _, pd2 = t:ReadThreadProfilingData(ph, DISP)
    local _, q2 = t:QueryThreadCycleTime(CUR)
    tap.is(rc, 0, "profiling enabled")
    tap.is(pd1.CycleTime, 0, "CycleTime right after Enable: 0")
    tap.is(q1, 1400, "q1 = Enable's 700 + its own 700")
    tap.is(pd2.CycleTime, 904, "CycleTime = Q1's 700 + spin(100)'s 204")
    tap.is(q2, 2304, "q2 = 1400 + 204 + 700")
    tap.is(q2 - q1, pd2.CycleTime - pd1.CycleTime, "q2 - q1 = CycleTime difference over the same work (904)")
    tap.is(q2, 700 + pd2.CycleTime + 700, "QueryThreadCycleTime = Enable's bias + CycleTime + its own entry")
    t:DisableThreadProfiling(ph)
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 5. Handles, access rights and the last error (HCP-SPEC §8.1, §8.4, §9;
--    edge cases 48, 51).  Failures set the last error; success leaves it.
------------------------------------------------------------------------------
do
  local m = hcp.machine { cost = "unit" }
  local E = m:event {}
  local MX = m:mutex {}
  local S = m:semaphore { initial = 0, max = 1 }
  local B = m:thread { name = "B", priority = 7, body = function() end } -- Ready until A exits
  m:thread { name = "A", body = function(t)
    local buf = m:alloc(64)
    local out = { creation = buf, exit = buf + 8, kernel = buf + 16, user = buf + 24 }
    local function gtt_fails(h, err, what)
      m:write(buf, SENT)
      t:SetLastError(POISON)
      local ok, e = t:GetThreadTimes(h, out)
      tap.is(ok, false, "GetThreadTimes " .. what .. ": FALSE")
      tap.is(e, err, "  error " .. err)
      tap.is(t:GetLastError(), err, "  GetLastError() = " .. err)
      tap.is(m:read(buf, 40), SENT, "  no output written")
      m:write(buf, SENT)
      t:SetLastError(POISON)
      local qok, qe = t:QueryThreadCycleTime(h, buf + 8)
      tap.is(qok, false, "QueryThreadCycleTime " .. what .. ": FALSE")
      tap.is(qe, err, "  error " .. err)
      tap.is(t:GetLastError(), err, "  GetLastError() = " .. err)
      tap.is(m:read(buf, 40), SENT, "  output not written")
    end
    local function both_ok(h, what)
      t:SetLastError(POISON)
      local ok, c = t:GetThreadTimes(h)
      local qok = t:QueryThreadCycleTime(h)
      tap.ok(ok and qok, "GetThreadTimes and QueryThreadCycleTime " .. what .. " succeed")
      tap.is(c, BOOT, "  (B's creation time)")
      tap.is(t:GetLastError(), POISON, "  and leave the last error alone")
    end

    tap.clause("TIMES-ACCESS")
    t:SetLastError(POISON)
    tap.is((t:GetThreadTimes(CUR)), true, "the pseudo-handle -2 works")
    tap.is((t:QueryThreadCycleTime(CUR)), true, "for QueryThreadCycleTime too")
    tap.is(t:GetLastError(), POISON, "success leaves GetLastError() unchanged")
    both_ok(B.handle, "with another thread's full-access handle")
    local lim = t:OpenThread(hcp.THREAD_QUERY_LIMITED_INFORMATION, false, B.id)
    both_ok(lim, "with THREAD_QUERY_LIMITED_INFORMATION only")
    local qi = t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, B.id)
    both_ok(qi, "with THREAD_QUERY_INFORMATION only")
    local none = t:OpenThread(hcp.THREAD_ALL_ACCESS & ~(hcp.THREAD_QUERY_INFORMATION | hcp.THREAD_QUERY_LIMITED_INFORMATION),
                              false, B.id)
    gtt_fails(none, hcp.ERROR_ACCESS_DENIED, "without either query right (edge 48, 51)")
    local mine = t:OpenThread(hcp.THREAD_SET_INFORMATION, false, t:GetCurrentThreadId())
    gtt_fails(mine, hcp.ERROR_ACCESS_DENIED, "on its own thread through a handle without query rights")
    local closed = t:OpenThread(hcp.THREAD_ALL_ACCESS, false, B.id)
    t:CloseHandle(closed)
    gtt_fails(closed, hcp.ERROR_INVALID_HANDLE, "with a closed handle")
    gtt_fails(0x4321, hcp.ERROR_INVALID_HANDLE, "with a garbage handle")
    gtt_fails(0, hcp.ERROR_INVALID_HANDLE, "with NULL")
    gtt_fails(-1, hcp.ERROR_INVALID_HANDLE, "with the current-process pseudo-handle (not a thread)")
    gtt_fails(E, hcp.ERROR_INVALID_HANDLE, "with an event handle")
    gtt_fails(MX, hcp.ERROR_INVALID_HANDLE, "with a mutex handle")
    gtt_fails(S, hcp.ERROR_INVALID_HANDLE, "with a semaphore handle")
    for _, h in ipairs { lim, qi, none, mine } do t:CloseHandle(h) end
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 6. NULL and unwritable output pointers (simulator-defined: native Windows
--    faults in user mode, HCP-SPEC Open question 13; here, as in Wine, a NULL
--    pointer is skipped; an unwritable one is ERROR_NOACCESS and nothing is
--    written; the handle is checked first, as the kernel query comes first)
------------------------------------------------------------------------------
do
  local m = hcp.machine { cost = "unit" }
  local code = m:code("\xc3") -- a read-only page
  m:thread { name = "nulls", body = function(t)
    tap.clause("SIMDEF-TIMES-NULL-OUT")
    local ok, c, e, kt, ut = t:GetThreadTimes(CUR, { creation = false })
    tap.ok(ok and c == nil and e == 0 and kt == 0 and ut == 0, "a NULL lpCreationTime is skipped; the others are written")
    ok, c, e, kt, ut = t:GetThreadTimes(CUR, { exit = false, user = false })
    tap.ok(ok and c == BOOT and e == nil and kt == 0 and ut == nil, "NULL lpExitTime and lpUserTime: skipped individually")
    ok, c, e, kt, ut = t:GetThreadTimes(CUR, { creation = false, exit = false, kernel = false, user = false })
    tap.ok(ok and c == nil and e == nil and kt == nil and ut == nil, "all four NULL: TRUE, nothing written")

    local buf = m:alloc(64)
    for _, bad in ipairs { { "a read-only page", code }, { "an unmapped address", 0x7000 } } do
      m:write(buf, SENT)
      t:SetLastError(POISON)
      local rok, err = t:GetThreadTimes(CUR, { creation = buf, exit = buf + 8, kernel = buf + 16, user = bad[2] })
      tap.is(rok, false, "lpUserTime pointing at " .. bad[1] .. ": FALSE")
      tap.is(err, hcp.ERROR_NOACCESS, "  ERROR_NOACCESS (998)")
      tap.is(t:GetLastError(), hcp.ERROR_NOACCESS, "  GetLastError() = 998")
      tap.is(m:read(buf, 40), SENT, "  the writable outputs were not written either")
    end
    t:SetLastError(POISON)
    local qok, qerr = t:QueryThreadCycleTime(CUR, false)
    tap.is(qok, false, "QueryThreadCycleTime with a NULL CycleTime: FALSE")
    tap.is(qerr, hcp.ERROR_NOACCESS, "  ERROR_NOACCESS (998)")
    tap.is(t:GetLastError(), hcp.ERROR_NOACCESS, "  GetLastError() = 998")
    tap.is(select(2, t:QueryThreadCycleTime(CUR, code)), hcp.ERROR_NOACCESS, "CycleTime on a read-only page: 998")
    tap.is(select(2, t:QueryThreadCycleTime(0x4321, false)), hcp.ERROR_INVALID_HANDLE,
           "a garbage handle with a NULL pointer: 6 (the handle is checked first)")
    tap.is(select(2, t:GetThreadTimes(0x4321, { user = code })), hcp.ERROR_INVALID_HANDLE,
           "GetThreadTimes: garbage handle and unwritable pointer -> 6")
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 7. Every profile (edges 46-48, 50, 51): Lua bodies only.  frequency 10^7 (a
-- cycle is 100 ns) and api_call = 10^7 cycles = 1 s, so one kernel entry is
-- 10,000,000 x 100 ns = 64 whole ticks of 156,250; boot_time 10^17.  NT:
-- KernelTime 10,000,000, UserTime 0 (no clock interrupt in a Lua body).  CE
-- 2.10-2.12 (HCP-SPEC §8.2): those as UserTime, the rest 0, THREAD_QUERY_INFORMATION
-- needed, no QueryThreadCycleTime (120).  (CE's own rules: platforms.lua.)
------------------------------------------------------------------------------
testlib.each_platform(testlib.PROFILES, "edges 46-48, 50, 51 (the OS side: api/tests/platform_test.c)",
                      function(platform)
  local P, ce = platform .. ": ", platform == "ce2.12-arm"
  local m = hcp.machine { platform = platform, boot_time = 100000000000000000, frequency = 10000000,
                          cost = { api_call = 10000000 } }
  local W = m:thread { name = "w", body = function(t)
    tap.clause("TIMES-PER-PLATFORM")
    local ok, c, e, k, u = t:GetThreadTimes(CUR)
    tap.ok(ok, "edges 46, 47, 50: " .. P .. "GetThreadTimes(current) succeeds")
    tap.is(c, ce and 0 or 100000000000000000, "edge 50: " .. P .. (ce and "CreationTime 0 (CE)"
                                                               or "CreationTime = boot_time (created before the run)"))
    tap.is(e, 0, "edge 47: " .. P .. "ExitTime 0 while the thread runs")
    tap.is(k, ce and 0 or 10000000, "edge 46: " .. P .. (ce and "KernelTime 0 (CE)" or "1 s in kernel mode = 10,000,000"))
    tap.is(u, ce and 10000000 or 0, "edge 46: " .. P .. (ce and "UserTime = total run time, 10,000,000 (CE)"
                                                            or "UserTime 0 (no clock interrupt in a Lua body)"))
  end }
  m:thread { name = "x", body = function(t)
    tap.clause("TIMES-ACCESS-PER-PLATFORM")
    local none = t:OpenThread(hcp.SYNCHRONIZE, false, W.id)
    local lim = t:OpenThread(hcp.THREAD_QUERY_LIMITED_INFORMATION, false, W.id)
    local q = t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, W.id)
    tap.is(select(2, t:GetThreadTimes(none)), hcp.ERROR_ACCESS_DENIED, "edge 48: " .. P .. "no query right -> 5")
    tap.is((t:GetThreadTimes(lim)), not ce,
           "edge 48: " .. P .. (ce and "LIMITED alone -> FALSE: CE needs THREAD_QUERY_INFORMATION"
                                    or "THREAD_QUERY_LIMITED_INFORMATION suffices"))
    local ok, _, e = t:GetThreadTimes(q)
    tap.ok(ok and (ce and e == 0 or e > 100000000000000000), "edge 47: " .. P .. (ce and "ExitTime 0 after exit (CE)"
                                                                                  or "an ExitTime after the exit"))
    local cok, cyc = t:QueryThreadCycleTime(lim)
    if ce then
      tap.ok(cok == false and cyc == hcp.ERROR_CALL_NOT_IMPLEMENTED, "edge 51: " .. P .. "no QueryThreadCycleTime: 120")
    else
      tap.ok(cok and cyc == 10000000, "edge 51: " .. P .. "QueryThreadCycleTime with LIMITED: W's one entry, 10^7 cycles")
      tap.is(select(2, t:QueryThreadCycleTime(none)), hcp.ERROR_ACCESS_DENIED, "edge 51: " .. P .. "no query right -> 5")
    end
  end }
  m:run()
end)

tap.done_testing()
