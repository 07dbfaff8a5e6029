-- contract_blind.lua: blind conformance test for hcpsim.
--
-- Written only from the public API contract (now scenarios/API.md), the specification
-- (conformance/SPEC.md, HCP-SPEC)
-- (sections 2-5 and "Edge cases") and scenarios/kernels/README.md.  Every expected
-- count below is derived by hand from the listed machine code; every expected
-- error code comes from the spec.  Nothing is copied from the simulator's output.
--
-- Run: hcpsim run conformance/contract_blind.lua

local tap = require "hcpsim.tap"
local hcp = require "hcpsim"
-- KeSetHardwareCounterConfiguration is called here with indexes past the machine's PMCs, types other than
-- PMCCounter or while a thread profiles, on purpose
-- (Windows takes them; the documentation does not): those warnings are expected, any other ends
-- the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w)
  assert(w:find("KeSetHardwareCounterConfiguration", 1, true), w)
end)

local HW   = hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS   -- 2
local DISP = hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING         -- 1
local CUR  = nil   -- filled per thread with t:GetCurrentThread()

local function u32(x) return x & 0xFFFFFFFF end

------------------------------------------------------------------------------
-- Hand-assembled guest code (Windows x64 calling convention: rcx, rdx, r8, r9,
-- 5th+ at [rsp+0x28], [rsp+0x30], ... at entry; result in rax).
------------------------------------------------------------------------------

-- SUM3(n), n >= 1: loop body of 3 instructions.
--   00: 31 c0           xor  eax, eax
--   02: 48 01 c8        add  rax, rcx        <- loop
--   05: 48 ff c9        dec  rcx
--   08: 75 f8           jnz  0x02            (rel8 = 0x02 - 0x0a = -8)
--   0a: c3              ret
-- instructions = 1 + 3n + 1 = 3n + 2 ; branches = n (jnz) + 1 (ret) ; rax = n(n+1)/2
local SUM3 = "\x31\xc0\x48\x01\xc8\x48\xff\xc9\x75\xf8\xc3"

-- SUM4(n), n >= 1: loop body of 4 instructions, two accumulators.
--   00: 31 c0           xor  eax, eax
--   02: 31 d2           xor  edx, edx
--   04: 48 01 c8        add  rax, rcx        <- loop
--   07: 48 83 c2 03     add  rdx, 3
--   0b: 48 ff c9        dec  rcx
--   0e: 75 f4           jnz  0x04            (rel8 = 0x04 - 0x10 = -12)
--   10: 48 01 d0        add  rax, rdx
--   13: c3              ret
-- instructions = 2 + 4n + 2 = 4n + 4 ; branches = n + 1 ; rax = n(n+1)/2 + 3n
local SUM4 = "\x31\xc0\x31\xd2\x48\x01\xc8\x48\x83\xc2\x03\x48\xff\xc9\x75\xf4\x48\x01\xd0\xc3"

-- SQADD(a, b) = a + b*b : calls a leaf function, uses the stack (push/pop rbx).
--   00: 53              push rbx
--   01: 48 89 cb        mov  rbx, rcx
--   04: 48 89 d1        mov  rcx, rdx
--   07: e8 05 00 00 00  call 0x11            (rel32 = 0x11 - 0x0c = 5)
--   0c: 48 01 d8        add  rax, rbx
--   0f: 5b              pop  rbx
--   10: c3              ret
--   11: 48 89 c8        mov  rax, rcx        (leaf "sq")
--   14: 48 0f af c1     imul rax, rcx
--   18: c3              ret
-- executed: push, mov, mov, call, mov, imul, ret, add, pop, ret = 10 instructions
-- branches: call, ret (leaf), ret = 3
local SQADD = "\x53\x48\x89\xcb\x48\x89\xd1\xe8\x05\x00\x00\x00\x48\x01\xd8\x5b\xc3"
           .. "\x48\x89\xc8\x48\x0f\xaf\xc1\xc3"

-- NEST(n), n >= 1: n calls of g; g calls h twice; h increments rax. rax = 2n.
--   00: 31 c0           xor  eax, eax
--   02: e8 06 00 00 00  call 0x0d (g)        <- loop (rel32 = 0x0d - 0x07 = 6)
--   07: 48 ff c9        dec  rcx
--   0a: 75 f6           jnz  0x02            (rel8 = 0x02 - 0x0c = -10)
--   0c: c3              ret
--   0d: e8 06 00 00 00  call 0x18 (h)        (g; rel32 = 0x18 - 0x12 = 6)
--   12: e8 01 00 00 00  call 0x18 (h)        (rel32 = 0x18 - 0x17 = 1)
--   17: c3              ret
--   18: 48 ff c0        inc  rax             (h)
--   1b: c3              ret
-- per iteration: call g, call h, inc, ret, call h, inc, ret, ret(g), dec, jnz = 10 instr,
--                branches: call, call, ret, call, ret, ret, jnz = 7
-- instructions = 1 + 10n + 1 = 10n + 2 ; branches = 7n + 1
local NEST = "\x31\xc0\xe8\x06\x00\x00\x00\x48\xff\xc9\x75\xf6\xc3"
          .. "\xe8\x06\x00\x00\x00\xe8\x01\x00\x00\x00\xc3"
          .. "\x48\xff\xc0\xc3"

-- HEX7(a1..a7): straight-line, reads all 4 register args and 3 stack args.
-- rax = (((((a1*16+a2)*16+a3)*16+a4)*16+a5)*16+a6)*16+a7
--   00: 48 89 c8        mov  rax, rcx
--   03: 48 c1 e0 04     shl  rax, 4
--   07: 48 01 d0        add  rax, rdx
--   0a: 48 c1 e0 04     shl  rax, 4
--   0e: 4c 01 c0        add  rax, r8
--   11: 48 c1 e0 04     shl  rax, 4
--   15: 4c 01 c8        add  rax, r9
--   18: 48 c1 e0 04     shl  rax, 4
--   1c: 48 03 44 24 28  add  rax, [rsp+0x28]   (5th arg)
--   21: 48 c1 e0 04     shl  rax, 4
--   25: 48 03 44 24 30  add  rax, [rsp+0x30]   (6th arg)
--   2a: 48 c1 e0 04     shl  rax, 4
--   2e: 48 03 44 24 38  add  rax, [rsp+0x38]   (7th arg)
--   33: c3              ret
-- instructions = 1 + 6*2 + 1 = 14 ; branches = 1 (ret)
local SHL4 = "\x48\xc1\xe0\x04"
local HEX7 = "\x48\x89\xc8" .. SHL4 .. "\x48\x01\xd0" .. SHL4 .. "\x4c\x01\xc0" .. SHL4 .. "\x4c\x01\xc8"
          .. SHL4 .. "\x48\x03\x44\x24\x28" .. SHL4 .. "\x48\x03\x44\x24\x30"
          .. SHL4 .. "\x48\x03\x44\x24\x38" .. "\xc3"

-- SUB(a, b) = a - b (64-bit, wraps)
--   00: 48 89 c8        mov  rax, rcx
--   03: 48 29 d0        sub  rax, rdx
--   06: c3              ret
-- instructions = 3 ; branches = 1
local SUB = "\x48\x89\xc8\x48\x29\xd0\xc3"

-- ABS(x)
--   00: 48 89 c8        mov  rax, rcx
--   03: 48 85 c0        test rax, rax
--   06: 79 03           jns  0x0b            (rel8 = 0x0b - 0x08 = 3)
--   08: 48 f7 d8        neg  rax
--   0b: c3              ret
-- x >= 0: mov, test, jns(taken), ret          = 4 instr, 2 branches
-- x <  0: mov, test, jns(not taken), neg, ret = 5 instr, 2 branches
local ABS = "\x48\x89\xc8\x48\x85\xc0\x79\x03\x48\xf7\xd8\xc3"

-- MAX(a, b) signed
--   00: 48 39 d1        cmp  rcx, rdx
--   03: 7e 05           jle  0x0a            (rel8 = 0x0a - 0x05 = 5)
--   05: 48 89 c8        mov  rax, rcx
--   08: eb 03           jmp  0x0d            (rel8 = 0x0d - 0x0a = 3)
--   0a: 48 89 d0        mov  rax, rdx
--   0d: c3              ret
-- a >  b: cmp, jle(not taken), mov, jmp, ret = 5 instr, 3 branches
-- a <= b: cmp, jle(taken), mov, ret          = 4 instr, 2 branches
local MAX = "\x48\x39\xd1\x7e\x05\x48\x89\xc8\xeb\x03\x48\x89\xd0\xc3"

------------------------------------------------------------------------------
-- helpers
------------------------------------------------------------------------------

-- PERFORMANCE_DATA with sentinels everywhere (Size/Version valid unless overridden)
local function sentinel_pd(over)
  local pd = {
    Size = 288, Version = 1, HwCountersCount = 0xEE, ContextSwitchCount = 0x0BADF00D,
    WaitReasonBitMap = 0x5555AAAA5555AAAA, CycleTime = 0x0123456789ABCDEF,
    RetryCount = 0x77777777, Reserved = 0x5EED5EED, HwCounters = {},
  }
  for i = 0, 15 do
    pd.HwCounters[i] = { Type = 0x100 + i, Reserved = 0x200 + i, Value = 0x0101010101010101 * (i + 1) }
  end
  for k, v in pairs(over or {}) do pd[k] = v end
  return pd
end

local function zero_pd()
  local pd = { Size = 288, Version = 1, HwCounters = {} }
  for i = 0, 15 do pd.HwCounters[i] = { Type = 0, Reserved = 0, Value = 0 } end
  return pd
end

local function hc_unchanged(pd, i, name)
  local c = pd.HwCounters[i]
  tap.is(c.Type, 0x100 + i, name .. ": HwCounters[" .. i .. "].Type untouched")
  tap.is(c.Reserved, 0x200 + i, name .. ": HwCounters[" .. i .. "].Reserved untouched")
  tap.is(c.Value, 0x0101010101010101 * (i + 1), name .. ": HwCounters[" .. i .. "].Value untouched")
end

------------------------------------------------------------------------------
-- 1. Exact counts for hand-assembled code
------------------------------------------------------------------------------
do
  local m = hcp.machine { cpus = 1, pmc = { "instructions", "cycles", "branches" } }
  local st = m:KeSetHardwareCounterConfiguration {
    { Type = hcp.PMCCounter, Index = 0 }, { Type = hcp.PMCCounter, Index = 1 }, { Type = hcp.PMCCounter, Index = 2 },
  }
  tap.clause("HCP-COUNT-EXACT")
  tap.is(st, hcp.STATUS_SUCCESS, "KeSet {PMC0,PMC1,PMC2} succeeds")

  local sum3, sum4, sqadd = m:code(SUM3), m:code(SUM4), m:code(SQADD)
  local nest, hex7, sub = m:code(NEST), m:code(HEX7), m:code(SUB)
  local abs, max = m:code(ABS), m:code(MAX)
  local k = m:load "kernels"

  -- enable mask 0x7, run, read, disable; returns results
  local function measure(t, entry, ...)
    local r = {}
    r.erc, r.ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0x7)
    r.ret = t:run(entry, ...)
    local pd
    r.rrc, pd = t:ReadThreadProfilingData(r.ph, HW)
    r.drc = t:DisableThreadProfiling(r.ph)
    r.ins, r.cyc, r.br = pd.HwCounters[0].Value, pd.HwCounters[1].Value, pd.HwCounters[2].Value
    r.pd = pd
    return r
  end

  local function check(t, label, want_ret, want_ins, want_br, entry, ...)
    local r = measure(t, entry, ...)
    tap.ok(r.erc == 0 and r.rrc == 0 and r.drc == 0,
           label .. ": Enable/Read/Disable all return 0 (" .. tostring(r.erc) .. "," .. tostring(r.rrc) .. "," .. tostring(r.drc) .. ")")
    tap.is(r.ret, want_ret, label .. ": return value (rax)")
    tap.is(r.ins, want_ins, label .. ": instructions retired (PMC0 -> HwCounters[0])")
    tap.is(r.br, want_br, label .. ": branches retired (PMC2 -> HwCounters[2])")
    tap.ok(r.cyc > 0, label .. ": cycles (PMC1 -> HwCounters[1]) > 0")
    return r
  end

  m:thread { name = "counter", body = function(t)
    tap.clause("HCP-COUNT-SINCE-ENABLE")
    do -- nothing executed between enable and read -> all zero
      local erc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0x7)
      local rrc, pd = t:ReadThreadProfilingData(ph, HW, zero_pd())
      tap.is(erc, 0, "enable mask 0x7")
      tap.is(rrc, 0, "read immediately after enable")
      tap.is(pd.HwCounters[0].Value, 0, "no guest code run: instructions 0")
      tap.is(pd.HwCounters[2].Value, 0, "no guest code run: branches 0")
      tap.is(pd.HwCounters[0].Type, hcp.PMCCounter, "written entry Type == PMCCounter")
      tap.is(pd.HwCounters[0].Reserved, 0, "written entry Reserved == 0")
      tap.is(t:DisableThreadProfiling(ph), 0, "disable")
    end

    tap.clause("HCP-COUNT-EXACT")
    check(t, "SUM3(10)",   55,     3 * 10 + 2,   10 + 1,   sum3, 10)
    local a = check(t, "SUM3(1000)", 500500, 3 * 1000 + 2, 1000 + 1, sum3, 1000)
    local b = measure(t, sum3, 10)
    tap.ok(a.cyc > b.cyc, "cycles for SUM3(1000) > cycles for SUM3(10)")

    tap.clause("HCP-COUNT-EXACT")
    check(t, "SUM4(1)",   1 + 3,          4 * 1 + 4,   1 + 1,   sum4, 1)
    check(t, "SUM4(250)", 125 * 251 + 750, 4 * 250 + 4, 250 + 1, sum4, 250)

    tap.clause("HCP-COUNT-EXACT")
    check(t, "SQADD(3,4)",  3 + 16,   10, 3, sqadd, 3, 4)
    check(t, "SQADD(-5,7)", -5 + 49,  10, 3, sqadd, -5, 7)
    check(t, "NEST(1)",  2,  10 * 1 + 2,  7 * 1 + 1,  nest, 1)
    check(t, "NEST(5)",  10, 10 * 5 + 2,  7 * 5 + 1,  nest, 5)

    tap.clause("HCP-COUNT-EXACT")
    check(t, "HEX7(1..7)", 0x1234567, 14, 1, hex7, 1, 2, 3, 4, 5, 6, 7)
    check(t, "HEX7(7..1)", 0x7654321, 14, 1, hex7, 7, 6, 5, 4, 3, 2, 1)
    check(t, "HEX7(0,0,0,0,15,0,0) 5th arg at [rsp+0x28]", 0xF00, 14, 1, hex7, 0, 0, 0, 0, 15, 0, 0)
    check(t, "HEX7(0,0,0,0,0,15,0) 6th arg at [rsp+0x30]", 0xF0,  14, 1, hex7, 0, 0, 0, 0, 0, 15, 0)
    check(t, "HEX7(0,0,0,0,0,0,15) 7th arg at [rsp+0x38]", 0xF,   14, 1, hex7, 0, 0, 0, 0, 0, 0, 15)
    check(t, "SUB(5,7) negative result", -2, 3, 1, sub, 5, 7)
    check(t, "SUB(maxint,-1) wraps to minint", math.mininteger, 3, 1, sub, math.maxinteger, -1)
    check(t, "SUB(0x123456789abcdef0, 0) full 64-bit arg", 0x123456789abcdef0, 3, 1, sub, 0x123456789abcdef0, 0)

    tap.clause("HCP-COUNT-EXACT")
    check(t, "ABS(9)  jns taken",     9, 4, 2, abs, 9)
    check(t, "ABS(-9) jns not taken", 9, 5, 2, abs, -9)
    check(t, "MAX(8,3) jle not taken + jmp", 8, 5, 3, max, 8, 3)
    check(t, "MAX(3,8) jle taken",           8, 4, 2, max, 3, 8)
    check(t, "MAX(-4,-4) jle taken (equal)", -4, 4, 2, max, -4, -4)

    tap.clause("HCP-COUNT-EXACT")
    -- spin(n): mov, test, jz, n x (dec, jnz), ret ; jz taken when n == 0
    check(t, "kernels.spin(0)", 0, 4, 2, k.spin, 0)
    check(t, "kernels.spin(7)", 7, 3 + 2 * 7 + 1, 1 + 7 + 1, k.spin, 7)
    -- calls(n): mov, test, jz, n x (call, ret, dec, jnz), ret
    check(t, "kernels.calls(5)", 5, 3 + 4 * 5 + 1, 1 + 3 * 5 + 1, k.calls, 5)

    tap.clause("HCP-COUNT-ACCUMULATE")
    do -- counts accumulate across runs and are not reset by Read
      local erc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0x5)   -- instructions + branches only
      tap.is(erc, 0, "enable mask 0x5")
      t:run(sum3, 10)                  -- 32 instr, 11 branches
      local r1, pd1 = t:ReadThreadProfilingData(ph, HW, zero_pd())
      t:run(sqadd, 1, 2)               -- 10 instr, 3 branches
      t:run(hex7, 1, 1, 1, 1, 1, 1, 1) -- 14 instr, 1 branch
      local r2, pd2 = t:ReadThreadProfilingData(ph, HW, zero_pd())
      tap.is(r1, 0, "first read")
      tap.is(r2, 0, "second read")
      tap.is(pd1.HwCounters[0].Value, 32, "after SUM3(10): 32 instructions")
      tap.is(pd1.HwCounters[2].Value, 11, "after SUM3(10): 11 branches")
      tap.is(pd2.HwCounters[0].Value, 32 + 10 + 14, "cumulative instructions after 3 runs")
      tap.is(pd2.HwCounters[2].Value, 11 + 3 + 1, "cumulative branches after 3 runs")
      tap.is(pd2.HwCounters[1].Value, 0, "mask bit 1 clear: HwCounters[1] not written (pre-zeroed buffer)")
      tap.is(t:DisableThreadProfiling(ph), 0, "disable")
    end

    tap.clause("HCP-COUNT-SINCE-ENABLE")
    do -- code run while profiling is disabled does not count after re-enable
      t:run(sum3, 1000)
      local erc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0x1)
      t:run(max, 1, 2)                 -- 4 instr
      local rrc, pd = t:ReadThreadProfilingData(ph, HW, zero_pd())
      tap.ok(erc == 0 and rrc == 0, "enable/read ok")
      tap.is(pd.HwCounters[0].Value, 4, "only code since (re-)enable is counted")
      tap.is(t:DisableThreadProfiling(ph), 0, "disable")
    end
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 2. Slot placement, HwCounters indexed by configuration element
------------------------------------------------------------------------------
do
  -- PMC3 carries a second "cycles" event, so two slots read the same event.
  local m = hcp.machine { cpus = 1, pmc = { "instructions", "cycles", "branches", "cycles" } }
  tap.clause("SIM-CONTRACT-PMC-EVENTS")
  tap.ok(pcall(hcp.machine, { pmc = { "instructions", "cycles", "branches", "branch-misses" } }),
         "CONTRACT example pmc list with \"branch-misses\" is accepted")
  -- config element 0 -> PMC2 (branches), 1 -> PMC1 (cycles), 2 -> PMC3 (cycles),
  --                3 -> PMC0 (instructions)
  local st = m:KeSetHardwareCounterConfiguration {
    { Type = hcp.PMCCounter, Index = 2 }, { Type = hcp.PMCCounter, Index = 1 },
    { Type = hcp.PMCCounter, Index = 3 }, { Type = hcp.PMCCounter, Index = 0 },
  }
  tap.clause("HCP-READ-SLOT-BY-INDEX")
  tap.is(st, hcp.STATUS_SUCCESS, "KeSet 4-element config succeeds")
  local sum3 = m:code(SUM3)

  m:thread { name = "slots", body = function(t)
    tap.clause("HCP-READ-SLOT-BY-INDEX")
    do
      local erc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0x8)
      tap.is(erc, 0, "enable mask 0x8")
      tap.is(t:run(sum3, 10), 55, "SUM3(10) returns 55")
      local rrc, pd = t:ReadThreadProfilingData(ph, HW, sentinel_pd())
      tap.is(rrc, 0, "read HW counters")
      tap.is(pd.HwCounters[3].Value, 32, "HwCounters[3] (config elem 3 = PMC0 instructions) = 3*10+2")
      tap.is(pd.HwCounters[3].Type, hcp.PMCCounter, "HwCounters[3].Type = PMCCounter")
      tap.is(pd.HwCounters[3].Reserved, 0, "HwCounters[3].Reserved = 0")
      for i = 0, 2 do hc_unchanged(pd, i, "mask 0x8") end
      for i = 4, 15 do hc_unchanged(pd, i, "mask 0x8") end
      tap.is(pd.ContextSwitchCount, 0x0BADF00D, "HW-only read leaves ContextSwitchCount")
      tap.is(pd.Reserved, 0x5EED5EED, "read leaves Reserved")
      -- documented: "HwCountersCount - number of HwCounters elements holding counter data"
      tap.is(pd.HwCountersCount, 1, "documented: HwCountersCount = elements holding data (1)")
      tap.is(t:DisableThreadProfiling(ph), 0, "disable")
    end

    tap.clause("HCP-READ-CONFIG-ELEMENT")
    do
      local erc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0x9)
      t:run(sum3, 10)   -- 32 instructions, 11 branches
      local rrc, pd = t:ReadThreadProfilingData(ph, HW, sentinel_pd())
      tap.ok(erc == 0 and rrc == 0, "enable 0x9 / read ok")
      tap.is(pd.HwCounters[0].Value, 11, "HwCounters[0] (config elem 0 = PMC2 branches) = 10+1")
      tap.is(pd.HwCounters[3].Value, 32, "HwCounters[3] (config elem 3 = PMC0 instructions) = 32")
      hc_unchanged(pd, 1, "mask 0x9")
      hc_unchanged(pd, 2, "mask 0x9")
      tap.is(t:DisableThreadProfiling(ph), 0, "disable")
    end

    tap.clause("HCP-READ-UNCONFIGURED-ZERO")
    do -- bits 4 and 5 select configuration elements that do not exist (4 configured)
      local erc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0x38)
      tap.is(erc, 0, "enable mask 0x38 (bit 3 configured, bits 4,5 not)")
      t:run(sum3, 10)
      local rrc, pd = t:ReadThreadProfilingData(ph, HW, zero_pd())
      tap.is(rrc, 0, "read (pre-zeroed buffer)")
      tap.is(pd.HwCounters[3].Value, 32, "configured bit 3 reads 32 instructions")
      tap.is(pd.HwCounters[4].Value, 0, "unconfigured bit 4 reads 0 (pre-zeroed)")
      tap.is(pd.HwCounters[5].Value, 0, "unconfigured bit 5 reads 0 (pre-zeroed)")
      local sp = sentinel_pd()
      local rrc2, pd2 = t:ReadThreadProfilingData(ph, HW, sp)
      tap.is(rrc2, 0, "read (sentinel buffer)")
      -- documented semantics: "Setting a bit for an unconfigured counter yields a counter value of zero on read."
      tap.is(pd2.HwCounters[4].Value, 0, "documented: unconfigured bit 4 yields 0 even over a sentinel")
      tap.is(pd2.HwCounters[5].Value, 0, "documented: unconfigured bit 5 yields 0 even over a sentinel")
      hc_unchanged(pd2, 6, "mask 0x38")
      tap.is(t:DisableThreadProfiling(ph), 0, "disable")
    end

    tap.clause("HCP-READ-HW-MASK-ZERO")
    do -- HW read with mask 0: HwCounters untouched
      local erc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0)
      t:run(sum3, 3)
      local rrc, pd = t:ReadThreadProfilingData(ph, HW, sentinel_pd())
      tap.ok(erc == 0 and rrc == 0, "enable mask 0 / HW read ok")
      for i = 0, 3 do hc_unchanged(pd, i, "mask 0") end
      tap.is(pd.HwCountersCount, 0, "mask 0: HwCountersCount written as 0")
      tap.is(t:DisableThreadProfiling(ph), 0, "disable")
    end

    tap.clause("HCP-READ-FLAGS-ZERO")
    do -- Read flags 0 (documented semantics: the docs name no member for flags 0)
      local erc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 1, 0xF)
      t:run(sum3, 3)
      local rrc, pd = t:ReadThreadProfilingData(ph, 0, sentinel_pd())
      tap.ok(erc == 0 and rrc == 0, "enable / read flags 0 ok")
      tap.is(pd.ContextSwitchCount, 0x0BADF00D, "flags 0: ContextSwitchCount untouched")
      tap.is(pd.HwCountersCount, 0xEE, "flags 0: HwCountersCount untouched")
      tap.is(pd.Reserved, 0x5EED5EED, "flags 0: Reserved untouched")
      for i = 0, 3 do hc_unchanged(pd, i, "flags 0") end
      tap.is(t:DisableThreadProfiling(ph), 0, "disable")
    end
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 2b. The same placement under semantics = "observed" (the decompiled Windows
--     reader, spec 2.4 steps 4-6 and edge cases 20, 28)
------------------------------------------------------------------------------
do
  local m = hcp.machine { cpus = 1, semantics = "observed", pmc = { "instructions", "cycles", "branches", "cycles" } }
  local st = m:KeSetHardwareCounterConfiguration {
    { Type = hcp.PMCCounter, Index = 2 }, { Type = hcp.PMCCounter, Index = 1 },
    { Type = hcp.PMCCounter, Index = 3 }, { Type = hcp.PMCCounter, Index = 0 },
  }
  tap.clause("HCP-READ-SLOT-BY-INDEX")
  tap.is(st, hcp.STATUS_SUCCESS, "observed: KeSet 4-element config succeeds")
  local sum3 = m:code(SUM3)
  m:thread { name = "obs", body = function(t)
    tap.clause("HCP-READ-SLOT-BY-INDEX")
    do
      local erc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0x8)
      t:run(sum3, 10)
      local rrc, pd = t:ReadThreadProfilingData(ph, HW, sentinel_pd())
      tap.ok(erc == 0 and rrc == 0, "observed: enable 0x8 / read ok")
      tap.is(pd.HwCounters[3].Value, 32, "observed: HwCounters[3] = 32 instructions")
      for i = 0, 2 do hc_unchanged(pd, i, "observed mask 0x8") end
      hc_unchanged(pd, 4, "observed mask 0x8")
      tap.is(pd.HwCountersCount, 4, "observed: HwCountersCount = configured count 4, not popcount")
      tap.is(pd.WaitReasonBitMap, 0, "observed: Read always zeroes WaitReasonBitMap")
      tap.isnt(pd.CycleTime, 0x0123456789ABCDEF, "observed: CycleTime written regardless of flags")
      tap.is(pd.RetryCount, 0, "observed: RetryCount = 0 (no concurrent update)")
      tap.is(pd.ContextSwitchCount, 0x0BADF00D, "observed: HW-only read leaves ContextSwitchCount")
      tap.is(pd.Reserved, 0x5EED5EED, "observed: Read never writes Reserved")
      tap.is(t:DisableThreadProfiling(ph), 0, "disable")
    end
    tap.clause("HCP-READ-FLAGS-ZERO")
    do
      local erc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 1, 0xF)
      t:run(sum3, 3)
      local rrc, pd = t:ReadThreadProfilingData(ph, 0, sentinel_pd())
      tap.ok(erc == 0 and rrc == 0, "observed: enable / read flags 0 ok")
      tap.is(pd.WaitReasonBitMap, 0, "observed flags 0: WaitReasonBitMap = 0")
      tap.isnt(pd.CycleTime, 0x0123456789ABCDEF, "observed flags 0: CycleTime written")
      tap.is(pd.RetryCount, 0, "observed flags 0: RetryCount = 0")
      tap.is(pd.ContextSwitchCount, 0x0BADF00D, "observed flags 0: ContextSwitchCount untouched")
      tap.is(pd.HwCountersCount, 0xEE, "observed flags 0: HwCountersCount untouched")
      tap.is(pd.Reserved, 0x5EED5EED, "observed flags 0: Reserved untouched")
      for i = 0, 3 do hc_unchanged(pd, i, "observed flags 0") end
      tap.is(t:DisableThreadProfiling(ph), 0, "disable")
    end
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 3a. Win32 error codes
------------------------------------------------------------------------------
do
  -- the API contract shows `cpus` as a machine option; this build rejects cpus = 2
  -- ("simulates 1 CPU"), so B is created first and is preempted at its quantum end
  -- (tick 100 us, quantum 1 tick = 300000 cycles) while still running guest code.
  tap.clause("SIM-CONTRACT-CPUS")
  tap.ok(pcall(hcp.machine, { cpus = 2 }), "CONTRACT machine option cpus = 2 is accepted")
  local m = hcp.machine { cpus = 1, tick = 1000, quantum = 1, pmc = { "instructions", "cycles", "branches" } }
  m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 } }
  local k = m:load "kernels"
  local b_started, b_finished = false, false

  local other = m:thread { name = "B", body = function(t)
    b_started = true
    t:run(k.spin, 2000000)     -- 4000002 instructions: several quanta
    b_finished = true
  end }

  m:thread { name = "A", body = function(t)
    local cur = t:GetCurrentThread()
    tap.clause("HCP-ERROR-NUMBERS")
    tap.is(cur, -2, "GetCurrentThread() is the pseudo-handle -2")
    tap.is(hcp.ERROR_INVALID_PARAMETER, 87, "ERROR_INVALID_PARAMETER = 87")
    tap.is(hcp.ERROR_INVALID_USER_BUFFER, 1784, "ERROR_INVALID_USER_BUFFER = 1784")
    tap.is(hcp.ERROR_WMI_ALREADY_ENABLED, 4206, "ERROR_WMI_ALREADY_ENABLED = 4206")
    tap.is(hcp.PERFORMANCE_DATA_VERSION, 1, "PERFORMANCE_DATA_VERSION = 1")
    tap.is(hcp.MAX_HW_COUNTERS, 16, "MAX_HW_COUNTERS = 16")
    tap.is(hcp.PMCCounter, 0, "PMCCounter = 0")
    tap.is(hcp.THREAD_PROFILING_FLAG_DISPATCH, 1, "THREAD_PROFILING_FLAG_DISPATCH = 1")
    tap.is(DISP, 1, "READ_THREAD_PROFILING_FLAG_DISPATCHING = 1")
    tap.is(HW, 2, "READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS = 2")

    tap.clause("HCP-ENABLE-FLAGS")
    t:SetLastError(0xDEADBEEF)
    tap.is(t:EnableThreadProfiling(cur, 2, 0), 87, "Enable flags 2 -> 87")
    tap.is(t:EnableThreadProfiling(cur, 0x80000000, 0), 87, "Enable flags 0x80000000 -> 87")
    tap.is(t:EnableThreadProfiling(cur, 3, 1), 87, "Enable flags 3 -> 87")
    tap.is(t:GetLastError(), 0xDEADBEEF, "failed Enable leaves GetLastError unchanged")
    local _, q = t:QueryThreadProfiling(cur)
    tap.is(q, false, "after failed Enable: Query reports FALSE")

    tap.clause("HCP-ENABLE-MASK")
    tap.is(t:EnableThreadProfiling(cur, 0, 0x10000), 87, "Enable mask bit 16 -> 87")
    tap.is(t:EnableThreadProfiling(cur, 0, 1 << 40), 87, "Enable mask bit 40 -> 87")
    tap.is(t:EnableThreadProfiling(cur, 0, math.mininteger), 87, "Enable mask bit 63 -> 87")
    tap.is(t:EnableThreadProfiling(cur, 0, 0xFFFF0000), 87, "Enable mask 0xFFFF0000 -> 87")
    _, q = t:QueryThreadProfiling(cur)
    tap.is(q, false, "after failed Enable (mask): Query reports FALSE")
    do
      local rc, ph = t:EnableThreadProfiling(cur, 0, 0xFFFF)
      tap.is(rc, 0, "Enable mask 0xFFFF (all 16 bits) succeeds")
      if rc == 0 then tap.is(t:DisableThreadProfiling(ph), 0, "disable") end
    end

    tap.clause("HCP-ENABLE-OTHER-THREAD", "HCP-ENABLE-BAD-HANDLE", "HCP-ENABLE-ORDER")
    tap.ok(b_started and not b_finished, "thread B has started and is still live")
    tap.is(t:EnableThreadProfiling(other.handle, 0, 0), 50, "Enable on another live thread's handle -> 50")
    tap.is(t:EnableThreadProfiling(other.handle, 0, 1), 50, "Enable(other, 0, 1) -> 50")
    do
      local rc, en = t:QueryThreadProfiling(other.handle)
      tap.is(rc, 0, "Query on other thread's full-access handle -> 0")
      tap.is(en, false, "other thread stays not profiled")
    end
    local GARBAGE = 0x7654320
    tap.is(t:EnableThreadProfiling(GARBAGE, 0, 0), 6, "Enable with garbage handle -> 6")
    tap.is(t:EnableThreadProfiling(GARBAGE, 2, 0), 87, "Enable(garbage, flags 2) -> 87 (flags checked first)")
    tap.is(t:EnableThreadProfiling(GARBAGE, 0, 0x10000), 87, "Enable(garbage, mask bit 16) -> 87 (mask checked first)")
    tap.is(t:EnableThreadProfiling(other.handle, 2, 0), 87, "Enable(other thread, flags 2) -> 87 (flags before handle)")
    tap.is(t:EnableThreadProfiling(-1, 0, 0), 6, "Enable(NtCurrentProcess -1: not a thread) -> 6")

    tap.clause("HCP-ENABLE-ACCESS", "HCP-QUERY-OTHER-THREAD")
    do
      local tid = t:GetCurrentThreadId()
      local hq = t:OpenThread(hcp.THREAD_QUERY_INFORMATION, false, tid)
      tap.ok(hq ~= nil, "OpenThread(THREAD_QUERY_INFORMATION, self)")
      if hq then
        tap.is(t:EnableThreadProfiling(hq, 0, 0), 5, "Enable via handle lacking THREAD_SET_INFORMATION -> 5")
        local rc, en = t:QueryThreadProfiling(hq)
        tap.is(rc, 0, "Query via THREAD_QUERY_INFORMATION handle -> 0")
        tap.is(en, false, "... reports FALSE")
        t:CloseHandle(hq)
        tap.is(t:EnableThreadProfiling(hq, 0, 0), 6, "Enable with a closed handle -> 6")
      end
      local hs = t:OpenThread(hcp.THREAD_SET_INFORMATION, false, tid)
      tap.ok(hs ~= nil, "OpenThread(THREAD_SET_INFORMATION, self)")
      if hs then
        local rc, ph = t:EnableThreadProfiling(hs, 0, 1)
        tap.is(rc, 0, "Enable via THREAD_SET_INFORMATION handle to self succeeds")
        if rc == 0 then tap.is(t:DisableThreadProfiling(ph), 0, "disable") end
        t:CloseHandle(hs)
      end
      local hl = t:OpenThread(hcp.THREAD_QUERY_LIMITED_INFORMATION, false, tid)
      if hl then
        tap.is((t:QueryThreadProfiling(hl)), 5, "Query via THREAD_QUERY_LIMITED_INFORMATION-only handle -> 5")
        t:CloseHandle(hl)
      end
    end

    tap.clause("HCP-ENABLE-TWICE")
    do
      local rc1, ph1 = t:EnableThreadProfiling(cur, 0, 1)
      tap.is(rc1, 0, "first Enable succeeds")
      tap.ok(ph1 ~= nil and ph1 ~= 0, "first Enable yields a non-NULL handle")
      local rc2 = t:EnableThreadProfiling(cur, 0, 1)
      tap.is(rc2, 4206, "second Enable on the same thread -> 4206")
      tap.is(t:EnableThreadProfiling(cur, 1, 0), 4206, "third Enable (other flags/mask) -> 4206")
      local rc, en = t:QueryThreadProfiling(cur)
      tap.ok(rc == 0 and en == true, "Query reports TRUE while enabled")
      local rrc = t:ReadThreadProfilingData(ph1, HW)
      tap.is(rrc, 0, "first handle still reads")

      tap.clause("HCP-READ-SIZE-EXACT", "HCP-READ-VERSION", "HCP-READ-FLAGS", "HCP-READ-NOT-ENABLED-FLAGS", "HCP-LAST-ERROR-UNCHANGED")
      tap.is((t:ReadThreadProfilingData(ph1, HW, { Size = 0, Version = 0 })), 1784, "Read zero-initialised pd (Size 0) -> 1784")
      tap.is((t:ReadThreadProfilingData(ph1, HW, { Size = 0, Version = 1 })), 1784, "Read Size 0, Version 1 -> 1784")
      tap.is((t:ReadThreadProfilingData(ph1, HW, { Size = 287, Version = 1 })), 1784, "Read Size 287 -> 1784")
      tap.is((t:ReadThreadProfilingData(ph1, HW, { Size = 289, Version = 1 })), 1784, "Read Size 289 -> 1784")
      tap.is((t:ReadThreadProfilingData(ph1, HW, { Size = 448, Version = 1 })), 1784, "Read Size 448 -> 1784")
      tap.is((t:ReadThreadProfilingData(ph1, HW, { Size = 288, Version = 0 })), 87, "Read Size 288 Version 0 -> 87")
      tap.is((t:ReadThreadProfilingData(ph1, HW, { Size = 288, Version = 2 })), 87, "Read Size 288 Version 2 -> 87")
      tap.is((t:ReadThreadProfilingData(ph1, HW, { Size = 287, Version = 2 })), 1784, "Read bad Size and bad Version -> 1784 (size first)")
      tap.is((t:ReadThreadProfilingData(ph1, 4, { Size = 288, Version = 1 })), 87, "Read flags 4 -> 87")
      tap.is((t:ReadThreadProfilingData(ph1, 0xFFFFFFFF, { Size = 288, Version = 1 })), 87, "Read flags 0xFFFFFFFF -> 87")
      tap.is((t:ReadThreadProfilingData(ph1, 4, { Size = 288, Version = 0 })), 87, "Read flags 4 + Version 0 -> 87")
      tap.is((t:ReadThreadProfilingData(ph1, 4, { Size = 0, Version = 1 })), 1784, "Read flags 4 + Size 0 -> 1784 (size first)")
      do
        local rc4, pd = t:ReadThreadProfilingData(ph1, 4, sentinel_pd())
        tap.is(rc4, 87, "Read flags 4 with sentinel pd -> 87")
        tap.is(pd.WaitReasonBitMap, 0x5555AAAA5555AAAA, "failed Read: WaitReasonBitMap untouched")
        tap.is(pd.CycleTime, 0x0123456789ABCDEF, "failed Read: CycleTime untouched")
        tap.is(pd.HwCountersCount, 0xEE, "failed Read: HwCountersCount untouched")
        hc_unchanged(pd, 0, "failed Read")
      end
      t:SetLastError(0xDEADBEEF)
      t:ReadThreadProfilingData(ph1, HW, { Size = 0 })
      tap.is(t:GetLastError(), 0xDEADBEEF, "failed Read leaves GetLastError unchanged")
      do
        local r3, pd = t:ReadThreadProfilingData(ph1, DISP | HW)
        tap.is(r3, 0, "Read flags 3 succeeds (omitted pd = {Size=288, Version=1})")
        tap.is(pd.Size, 288, "output pd Size still 288")
        tap.is(pd.Version, 1, "output pd Version still 1")
        tap.is(pd.ContextSwitchCount, 0, "DISPATCHING read after Enable(flags 0): ContextSwitchCount 0")
        tap.is(pd.WaitReasonBitMap, 0, "DISPATCHING read after Enable(flags 0): WaitReasonBitMap 0")
      end

      tap.clause("HCP-DISABLE-WRONG-POINTER", "HCP-DISABLE-NOACCESS", "HCP-DISABLE-TWICE", "HCP-LAST-ERROR-UNCHANGED")
      local fake = m:alloc(448)
      tap.is(t:DisableThreadProfiling(fake), 87, "Disable with a different writable 448-byte buffer -> 87")
      rc, en = t:QueryThreadProfiling(cur)
      tap.ok(rc == 0 and en == true, "after Disable(wrong handle): still enabled")
      tap.is(t:DisableThreadProfiling(0), 998, "Disable(NULL) -> 998")
      tap.is(t:DisableThreadProfiling(ph1 + 2), 998, "Disable(misaligned pointer) -> 998")
      t:SetLastError(0xDEADBEEF)
      tap.is(t:DisableThreadProfiling(ph1), 0, "Disable with the Enable handle -> 0")
      tap.is(t:GetLastError(), 0xDEADBEEF, "Disable leaves GetLastError unchanged")
      rc, en = t:QueryThreadProfiling(cur)
      tap.ok(rc == 0 and en == false, "after Disable: Query reports FALSE")
      tap.is(t:DisableThreadProfiling(ph1), 4212, "second Disable -> 4212")
      tap.is(t:DisableThreadProfiling(fake), 4212, "Disable(any buffer) while not profiling -> 4212")
    end

    tap.clause("HCP-ENABLE-RESTART")
    do
      local rc, ph = t:EnableThreadProfiling(cur, 1, 1)
      tap.is(rc, 0, "Enable -> Disable -> Enable succeeds")
      local rrc, pd = t:ReadThreadProfilingData(ph, DISP | HW, zero_pd())
      tap.is(rrc, 0, "read after re-enable")
      tap.is(pd.ContextSwitchCount, 0, "re-enable: ContextSwitchCount restarts at 0")
      tap.is(pd.HwCounters[0].Value, 0, "re-enable: instruction counter restarts at 0")
      tap.is(t:DisableThreadProfiling(ph), 0, "disable")
    end
  end }

  m:run()
end

------------------------------------------------------------------------------
-- 3b. Disable from a thread that is not profiling (cross-thread)
------------------------------------------------------------------------------
do
  local m = hcp.machine { cpus = 1, tick = 1000, quantum = 1, pmc = { "instructions", "cycles", "branches" } }
  local k = m:load "kernels"
  local shared_ph, b_rc, b_done = nil, nil, false
  m:thread { name = "A", body = function(t)
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 1, 0)
    tap.clause("HCP-DISABLE-OTHER-THREAD")
    tap.is(rc, 0, "A enables profiling")
    shared_ph = ph
    local spins = 0
    while not b_done and spins < 200 do t:run(k.spin, 100000); spins = spins + 1 end
    tap.ok(b_done, "B ran while A was enabled (quantum preemption)")
    local qrc, en = t:QueryThreadProfiling(t:GetCurrentThread())
    tap.ok(qrc == 0 and en == true, "A still enabled after B's Disable attempt")
    tap.is(t:DisableThreadProfiling(ph), 0, "A disables its own handle")
  end }
  m:thread { name = "B", body = function(t)
    local spins = 0
    while not shared_ph and spins < 200 do t:run(k.spin, 100000); spins = spins + 1 end
    if shared_ph then
      b_rc = t:DisableThreadProfiling(shared_ph)
      tap.is(b_rc, 4212, "Disable(A's handle) from non-profiled B -> 4212")
    end
    b_done = true
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 3c. Ke* DDIs
------------------------------------------------------------------------------
do
  local m = hcp.machine { cpus = 1, pmc = { "instructions", "cycles", "branches" } }
  local S_OK, S_INV, S_SMALL, S_ALREADY =
    hcp.STATUS_SUCCESS, hcp.STATUS_INVALID_PARAMETER, hcp.STATUS_BUFFER_TOO_SMALL, hcp.STATUS_WMI_ALREADY_ENABLED

  tap.clause("HCP-ERROR-NUMBERS")
  tap.is(S_OK, 0, "STATUS_SUCCESS = 0")
  tap.is(u32(S_INV), 0xC000000D, "STATUS_INVALID_PARAMETER = 0xC000000D")
  tap.is(u32(S_SMALL), 0xC0000023, "STATUS_BUFFER_TOO_SMALL = 0xC0000023")
  tap.is(u32(S_ALREADY), 0xC0000303, "STATUS_WMI_ALREADY_ENABLED = 0xC0000303")

  local function cfg(...)
    local l = {}
    for i, ix in ipairs { ... } do l[i] = { Type = hcp.PMCCounter, Reserved = 0, Index = ix } end
    return l
  end
  local function query_indices(max)
    local st, list, count = m:KeQueryHardwareCounterConfiguration(max)
    local ix = {}
    for i = 1, (list and #list or 0) do ix[i] = list[i].Index end
    return st, list, count, table.concat(ix, ",")
  end

  tap.clause("HCP-KE-BOOT-EMPTY")
  do
    local st, list, count = m:KeQueryHardwareCounterConfiguration(16)
    tap.is(st, S_OK, "boot default: KeQuery -> STATUS_SUCCESS")
    tap.is(count, 0, "boot default: Count 0")
    st, list, count = m:KeQueryHardwareCounterConfiguration(0)
    tap.is(st, S_OK, "empty config: KeQuery(MaximumCount 0) -> STATUS_SUCCESS")
    tap.is(count, 0, "empty config: Count 0")
  end

  tap.clause("HCP-KE-SET-TOO-MANY")
  do
    local l17 = {}
    for i = 1, 17 do l17[i] = { Type = hcp.PMCCounter, Index = (i - 1) % 3 } end
    tap.is(m:KeSetHardwareCounterConfiguration(l17), S_INV, "KeSet with 17 elements -> STATUS_INVALID_PARAMETER")
    local _, _, count = m:KeQueryHardwareCounterConfiguration(16)
    tap.is(count, 0, "rejected KeSet leaves the configuration empty")
  end

  tap.clause("HCP-KE-SET-QUERY")
  do
    tap.is(m:KeSetHardwareCounterConfiguration(cfg(2, 0, 1)), S_OK, "KeSet {2,0,1} -> STATUS_SUCCESS")
    local st, list, count, ix = query_indices(16)
    tap.is(st, S_OK, "KeQuery(16) -> STATUS_SUCCESS")
    tap.is(count, 3, "KeQuery Count = 3")
    tap.is(ix, "2,0,1", "KeQuery reports the indices in configuration order")
    for i = 1, 3 do
      tap.is(list and list[i] and list[i].Type, hcp.PMCCounter, "KeQuery element " .. (i - 1) .. " Type = PMCCounter")
      tap.is(list and list[i] and list[i].Reserved, 0, "KeQuery element " .. (i - 1) .. " Reserved = 0")
    end
    st, list, count, ix = query_indices(3)
    tap.is(st, S_OK, "KeQuery(MaximumCount == count) -> STATUS_SUCCESS")
    tap.is(ix, "2,0,1", "... same indices")

    tap.clause("HCP-KE-QUERY-TOO-SMALL")
    st, list, count = m:KeQueryHardwareCounterConfiguration(2)
    tap.is(st, S_SMALL, "KeQuery(MaximumCount 2 < 3) -> STATUS_BUFFER_TOO_SMALL")
    tap.is(count, 3, "... and the required count 3")
    tap.ok(list == nil or #list == 0, "... and no elements written")
    st, list, count = m:KeQueryHardwareCounterConfiguration(0)
    tap.is(st, S_SMALL, "KeQuery(MaximumCount 0) with 3 configured -> STATUS_BUFFER_TOO_SMALL")
    tap.is(count, 3, "... required count 3")

    tap.clause("HCP-KE-SET-ALREADY-ENABLED")
    tap.is(m:KeSetHardwareCounterConfiguration(cfg(0)), S_ALREADY,
           "KeSet (1 element, different index) while non-empty config exists -> STATUS_WMI_ALREADY_ENABLED")
    tap.is(m:KeSetHardwareCounterConfiguration(cfg(2, 0, 1)), S_ALREADY,
           "KeSet identical config while non-empty -> STATUS_WMI_ALREADY_ENABLED")
    local l17 = {}
    for i = 1, 17 do l17[i] = { Type = hcp.PMCCounter, Index = 0 } end
    tap.is(m:KeSetHardwareCounterConfiguration(l17), S_INV,
           "KeSet 17 elements while non-empty -> STATUS_INVALID_PARAMETER (count checked first)")
    st, list, count, ix = query_indices(16)
    tap.is(ix, "2,0,1", "failed KeSets leave the configuration unchanged")

    tap.clause("HCP-KE-SET-CLEAR")
    tap.is(m:KeSetHardwareCounterConfiguration({}), S_OK, "KeSet with count 0 -> STATUS_SUCCESS (clears)")
    st, list, count = m:KeQueryHardwareCounterConfiguration(16)
    tap.is(st, S_OK, "KeQuery after clear -> STATUS_SUCCESS")
    tap.is(count, 0, "KeQuery after clear -> Count 0")
    tap.is(m:KeSetHardwareCounterConfiguration({}), S_OK, "KeSet count 0 on empty config -> STATUS_SUCCESS")

    tap.clause("HCP-KE-SET-QUERY")
    tap.is(m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0x100000002 } }, S_OK,
           "KeSet after clear succeeds")
    st, list, count, ix = query_indices(1)
    tap.is(st, S_OK, "KeQuery(1) -> STATUS_SUCCESS")
    tap.is(count, 1, "Count 1")
    tap.is(ix, "2", "Index 0x1_0000_0002 is reported as 2 (low 32 bits kept)")
    tap.is(m:KeSetHardwareCounterConfiguration({}), S_OK, "clear")

    tap.clause("HCP-KE-SET-QUERY")
    local l16 = {}
    for i = 1, 16 do l16[i] = { Type = hcp.PMCCounter, Index = 15 - (i - 1) } end
    tap.is(m:KeSetHardwareCounterConfiguration(l16), S_OK, "KeSet with 16 elements -> STATUS_SUCCESS")
    st, list, count, ix = query_indices(16)
    tap.is(count, 16, "KeQuery Count 16")
    tap.is(ix, "15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0", "all 16 indices reported in order")
    st, list, count = m:KeQueryHardwareCounterConfiguration(15)
    tap.is(st, S_SMALL, "KeQuery(15) with 16 configured -> STATUS_BUFFER_TOO_SMALL")
    tap.is(count, 16, "... required count 16")
  end

  -- A KeSet from inside a thread body takes effect for that thread's profiling too.
  tap.clause("HCP-READ-CONFIG-ELEMENT")
  m:KeSetHardwareCounterConfiguration({})
  local sum3 = m:code(SUM3)
  m:thread { name = "ke", body = function(t)
    tap.is(m:KeSetHardwareCounterConfiguration(cfg(2, 0)), S_OK, "KeSet {PMC2, PMC0} from a thread body")
    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0x3)
    t:run(sum3, 4)          -- 3*4+2 = 14 instructions, 4+1 = 5 branches
    local rrc, pd = t:ReadThreadProfilingData(ph, HW, zero_pd())
    tap.ok(rc == 0 and rrc == 0, "enable/read")
    tap.is(pd.HwCounters[0].Value, 5, "elem 0 = PMC2 branches = 5")
    tap.is(pd.HwCounters[1].Value, 14, "elem 1 = PMC0 instructions = 14")
    tap.is(pd.HwCountersCount, 2, "HwCountersCount = 2 (both configured, both selected)")
    tap.is(t:DisableThreadProfiling(ph), 0, "disable")
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 4. Contract surface: every machine / thread member the API contract names exists
------------------------------------------------------------------------------
do
  tap.clause("SIM-CONTRACT-SURFACE")
  local m = hcp.machine {}
  local function has(obj, name) local ok, v = pcall(function() return obj[name] end); return ok and v ~= nil end
  -- Members that later issues build; each is a todo until it exists (none left: issue 5 built m:trace).
  local pending = {}
  local function check(obj, n, label)
    if pending[n] then
      tap.todo("issue " .. pending[n] .. " builds it", function() tap.ok(has(obj, n), label) end)
    else
      tap.ok(has(obj, n), label)
    end
  end
  for _, n in ipairs { "KeSetHardwareCounterConfiguration", "KeQueryHardwareCounterConfiguration", "event", "mutex",
                       "semaphore", "code", "alloc", "read", "write", "load", "thread", "trace", "run" } do
    check(m, n, "machine member m:" .. n .. " exists")
  end
  m:thread { name = "surface", body = function(t)
    for _, n in ipairs { "GetCurrentThread", "GetCurrentThreadId", "GetLastError", "SetLastError", "OpenThread",
                         "CloseHandle", "EnableThreadProfiling", "QueryThreadProfiling", "ReadThreadProfilingData",
                         "DisableThreadProfiling", "GetThreadTimes", "QueryThreadCycleTime", "run", "Sleep",
                         "SwitchToThread", "WaitForSingleObject", "SetEvent", "ResetEvent", "ReleaseMutex",
                         "ReleaseSemaphore" } do
      check(t, n, "thread member t:" .. n .. " exists")
    end
  end }
  m:run()
end

------------------------------------------------------------------------------
-- 4b. m:trace (API contract: ev.header, ev.data, ev.raw; HCP-SPEC §7; edge cases 52, 53, 55, 56)
------------------------------------------------------------------------------
do
  tap.clause("ETW-CONSTANTS")
  tap.is(hcp.EVENT_TRACE_FLAG_THREAD, 0x2, "EVENT_TRACE_FLAG_THREAD = 0x2 (edge 53)")
  tap.is(hcp.EVENT_TRACE_FLAG_CSWITCH, 0x10, "EVENT_TRACE_FLAG_CSWITCH = 0x10 (edge 53)")
  tap.is(hcp.EVENT_TRACE_TYPE_START, 1, "EVENT_TRACE_TYPE_START = 1 (edge 52)")
  local m = hcp.machine { cpus = 1 }
  local sum3 = m:code(SUM3)
  local evs = {}
  m:trace { flags = hcp.EVENT_TRACE_FLAG_THREAD | hcp.EVENT_TRACE_FLAG_CSWITCH,
            on_event = function(ev) evs[#evs + 1] = ev end }
  local w = m:thread { name = "traced", body = function(t) t:run(sum3, 10) end }
  m:run()
  -- ThreadGuid {3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c} as a GUID lies in memory: Data1..Data3 little-endian
  local GUID = "\xd1\xa8\x6f\x3d\x05\xfe\xd0\x11\x9d\xda\x00\xc0\x4f\xd7\xba\x7c"
  local shapes_ok, start_i, end_i, cswitch_in = true, nil, nil, false
  for i, ev in ipairs(evs) do
    local h, ty = ev.header, ev.header and ev.header.Class and ev.header.Class.Type
    if type(ev.raw) ~= "string" or type(ev.data) ~= "table" or h.Size ~= #ev.raw or ev.raw:sub(25, 40) ~= GUID then
      shapes_ok = false
    end
    if ty == 1 and ev.data.TThreadId == w.id then start_i = start_i or i end
    if ty == 2 and ev.data.TThreadId == w.id then end_i = i end
    if ty == 36 and ev.data.NewThreadId == w.id then cswitch_in = true end
    if ty == 1 or ty == 2 then
      if h.Size ~= 48 + 72 or h.Class.Version ~= 3 then shapes_ok = false end   -- edge 56
    elseif ty == 36 then
      if h.Size ~= 48 + 24 or h.Class.Version ~= 2 then shapes_ok = false end   -- edge 55
    end
  end
  tap.ok(#evs > 0, "m:trace delivers events to on_event (" .. #evs .. ")")
  tap.ok(shapes_ok, "every event: header.Size = #raw, ThreadGuid bytes at offset 24, V3 thread payload 72 bytes, CSwitch 24")
  tap.ok(start_i ~= nil, "a Start event carries the new thread's id in its payload")
  tap.ok(end_i ~= nil and start_i ~= nil and start_i < end_i, "its End event comes after its Start")
  tap.ok(cswitch_in, "a CSwitch switches the traced thread in")
end

------------------------------------------------------------------------------
-- 5. GetThreadTimes / QueryThreadCycleTime (HCP-SPEC §8; edge cases 47, 48, 50, 51)
--    API contract: t:GetThreadTimes(h) --> true, creation, exit, kernel, user | false, err
--              t:QueryThreadCycleTime(h) --> true, cycles | false, err
------------------------------------------------------------------------------
do
  tap.clause("TIMES-CREATION", "TIMES-EXIT", "TIMES-KERNEL-USER", "TIMES-ACCESS", "CYCLETIME-QUERY")
  local m = hcp.machine {}   -- default tick: 156250 x 100 ns
  local sum3 = m:code(SUM3)
  local done
  done = m:thread { name = "done", body = function(t) t:run(sum3, 1000) end }
  m:thread { name = "times", body = function(t)
    local me = t:GetCurrentThread()
    t:SetLastError(0xDEADBEEF)
    local ok, creation, exit, kernel, user = t:GetThreadTimes(me)
    tap.is(ok, true, "GetThreadTimes(GetCurrentThread()) succeeds")
    tap.ok(creation >= 116444736000000000, "CreationTime is an absolute FILETIME after 1970 (edge 50)")
    tap.is(exit, 0, "ExitTime is 0 while the thread runs (edge 47)")
    tap.is(kernel % 156250, 0, "KernelTime is a multiple of the clock increment (edge 47)")
    tap.is(user % 156250, 0, "UserTime is a multiple of the clock increment (edge 47)")
    tap.is(t:GetLastError(), 0xDEADBEEF, "success leaves the last error alone")

    t:run(sum3, 1000)
    local qok, c1 = t:QueryThreadCycleTime(me)
    tap.is(qok, true, "QueryThreadCycleTime(GetCurrentThread()) succeeds")
    tap.ok(c1 > 0, "and is nonzero after running guest code (edge 51)")
    t:run(sum3, 1000)
    local _, c2 = t:QueryThreadCycleTime(me)
    tap.ok(c2 >= c1 + 3 * 1000 + 2, "non-decreasing: grows by at least the 3002 instructions run in between (edge 51)")

    local dok, dc, de = t:GetThreadTimes(done.handle)
    tap.is(dok, true, "another thread's handle works")
    tap.ok(de ~= 0 and de >= dc, "an exited thread has ExitTime >= CreationTime (edge 47)")

    local weak = t:OpenThread(hcp.THREAD_SET_INFORMATION, false, t:GetCurrentThreadId())
    local wok, werr = t:GetThreadTimes(weak)
    tap.is(wok, false, "GetThreadTimes without THREAD_QUERY_(LIMITED_)INFORMATION fails (edge 48)")
    tap.is(werr, 5, "with ERROR_ACCESS_DENIED")
    tap.is(t:GetLastError(), 5, "GetLastError() = ERROR_ACCESS_DENIED")
    local qwok, qwerr = t:QueryThreadCycleTime(weak)
    tap.ok(qwok == false and qwerr == 5, "QueryThreadCycleTime without THREAD_QUERY_LIMITED_INFORMATION -> 5 (edge 51)")
    local lim = t:OpenThread(hcp.THREAD_QUERY_LIMITED_INFORMATION, false, t:GetCurrentThreadId())
    tap.is((t:GetThreadTimes(lim)), true, "THREAD_QUERY_LIMITED_INFORMATION is enough for GetThreadTimes")
    tap.is((t:QueryThreadCycleTime(lim)), true, "and for QueryThreadCycleTime")
    local bok, berr = t:GetThreadTimes(0x4321)
    tap.ok(bok == false and berr == 6, "a garbage handle -> ERROR_INVALID_HANDLE")
  end }
  m:run()
end

tap.done_testing()
