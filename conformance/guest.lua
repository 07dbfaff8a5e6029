-- Guest execution as scenarios see it: t:run's calling convention and return
-- value, exact counts read through HCP, and guest faults reported like
-- Windows exceptions (code, address) without ending the run.
local hcp = require "hcpsim"
-- Threads here exit with profiling enabled on purpose (Windows lets them; the documentation
-- forbids it): that warning is expected, any other ends the run (scenarios/README.md "Warnings").
hcp.on_warning(function(w) assert(w:find("exited with profiling enabled", 1, true), w) end)
local tap = require "hcpsim.tap"

local m = hcp.machine { pmc = { "instructions", "branches" } }
m:KeSetHardwareCounterConfiguration { { Index = 0 }, { Index = 1 } }

-- sum6(a..f): a+b+c+d+[rsp+0x28]+[rsp+0x30]
--   mov rax,rcx; add rax,rdx; add rax,r8; add rax,r9; add rax,[rsp+0x28]; add rax,[rsp+0x30]; ret
-- 7 instructions, 1 branch
local sum6 = m:code("\x48\x89\xc8\x48\x01\xd0\x4c\x01\xc0\x4c\x01\xc8\x48\x03\x44\x24\x28\x48\x03\x44\x24\x30\xc3")
-- negate(a): mov rax, rcx; neg rax; ret
local negate = m:code("\x48\x89\xc8\x48\xf7\xd8\xc3")
-- fault after 3 instructions: nop; nop; nop; mov eax, [0]; ret
local nullread = m:code("\x90\x90\x90\x8b\x04\x25\x00\x00\x00\x00\xc3")

local function counts(t, ph)
  local _, pd = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)
  return pd.HwCounters[0].Value, pd.HwCounters[1].Value
end

m:thread { name = "guest", body = function(t)
  local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0x3)

  tap.clause("SIM-GUEST-CALL-X64")
  tap.is(t:run(sum6, 1, 2, 3, 4, 50, 600), 660, "six arguments: four in registers, two on the stack")
  tap.is(t:run(negate, 5), -5, "rax comes back as a signed 64-bit Lua integer")
  tap.is(t:run(negate, math.mininteger), math.mininteger, "two's complement wraps as on the CPU")
  local ins, br = counts(t, ph)
  tap.is(ins, 7 + 3 + 3, "instructions: exactly the callees', final ret included")
  tap.is(br, 3, "branches: one ret per call")

  tap.clause("SIM-GUEST-FAULT-REPORTED")
  local r, code, info = t:pcall_run(nullread)
  tap.is(r, nil, "a faulting call returns nil")
  tap.is(code, hcp.STATUS_ACCESS_VIOLATION, "then the exception code")
  tap.is(info.address, nullread + 3, "the exception address is the faulting instruction")
  tap.is(info.data, 0, "the inaccessible address")
  tap.is(info.access, "read", "the access kind")
  tap.is(info.bytes:sub(1, 8), "8B 04 25", "the instruction bytes")
  tap.like(info.message, "^STATUS_ACCESS_VIOLATION %(0xC0000005%) in thread 'guest' %(id %d+%): read of 0x0 at 0x",
           "a readable message")
  tap.is(info.instruction, "mov eax, dword ptr [0]", "the faulting instruction, decoded")
  local ins2 = counts(t, ph)
  tap.is(ins2 - ins, 3, "the three nops retired; the faulting load did not")

  tap.clause("SIM-GUEST-FAULT-CONTINUES")
  tap.is(t:run(negate, -7), 7, "the thread runs guest code again after a fault")
  local r2, code2 = t:pcall_run(m:code("\x0f\x0b"))
  tap.is(r2, nil, "ud2 faults")
  tap.is(code2, hcp.STATUS_ILLEGAL_INSTRUCTION, "with STATUS_ILLEGAL_INSTRUCTION")
  local r3, code3 = t:pcall_run(0x7000)
  tap.is(r3, nil, "calling an unmapped address faults")
  tap.is(code3, hcp.STATUS_ACCESS_VIOLATION, "with an access violation")
  -- xor ecx, ecx; div ecx: #DE every time.  Unicorn keeps an exception in flight
  -- across calls unless the CPU state is reset, which once turned the second
  -- into an access violation and the third into an emulator error.
  local div0 = m:code("\x31\xc9\xf7\xf1\xc3")
  for i = 1, 3 do
    local rd, cd = t:pcall_run(div0)
    tap.ok(rd == nil and cd == hcp.STATUS_INTEGER_DIVIDE_BY_ZERO,
           "divide by zero #" .. i .. " -> STATUS_INTEGER_DIVIDE_BY_ZERO (got " .. tostring(cd) .. ")")
  end
  -- ff d9 = call far [rcx]-style far transfer through a register: Unicorn 2.0.1
  -- aborts the host on it, so hcpsim never lets it be translated.
  local rf, cf = t:pcall_run(m:code("\xff\xd9\xc3"))
  tap.ok(rf == nil and cf == hcp.STATUS_ILLEGAL_INSTRUCTION,
         "a far call through a register (ff d9) -> STATUS_ILLEGAL_INSTRUCTION, the host survives")
  tap.is(t:run(negate, -7), 7, "and the thread runs guest code again")
  -- LOCK (f0) is allowed only on read-modify-write instructions with a memory destination
  -- (Intel SDM vol. 2, "LOCK"); elsewhere a CPU raises #UD, and Unicorn 2.0.1 aborts the host
  -- on some of them (lock cmpsb, lock cmp: sim/isa_x86.c).  rcx = the argument, a buffer.
  local lockbuf = m:alloc(16)
  for _, c in ipairs {
    { "lock cmp dword [rcx], 0x100", "\xf0\x81\x39\x00\x01\x00\x00\xc3", false },
    { "lock lock cmp dword [rcx], 0x100", "\xf0\xf0\x81\x39\x00\x01\x00\x00\xc3", false },
    { "lock cmpsb", "\x48\x89\xce\x48\x89\xcf\xf0\xa6\xc3", false },
    { "lock rep cmpsd (ecx = 0)", "\x48\x89\xce\x48\x89\xcf\x31\xc9\xf0\xf3\xa7\xc3", false },
    { "lock movsb", "\x48\x89\xce\x48\x89\xcf\xf0\xa4\xc3", false },
    { "lock clc", "\xf0\xf8\xc3", false },
    -- the code ends inside the instruction; the page's zeros complete it: lock cmp [rax+0xf00f], al
    { "lock cmp [rax + 0xf00f], al (its last bytes are the page's zeros)", "\x48\x89\xc8\xf0\x38\x80\x0f\xf0", false },
    { "lock add eax, 1 (a register destination)", "\xf0\x83\xc0\x01\xc3", false },
    { "lock mov [rcx], eax", "\xf0\x89\x01\xc3", false },
    { "lock add dword [rcx], 1", "\xf0\x83\x01\x01\xc3", true },
    { "lock xchg [rcx], eax", "\xf0\x87\x01\xc3", true },
    { "lock cmpxchg [rcx], edx", "\xf0\x0f\xb1\x11\xc3", true },
    { "lock inc qword [rcx]", "\xf0\x48\xff\x01\xc3", true },
  } do
    local r, code = t:pcall_run(m:code(c[2]), lockbuf)
    if c[3] then
      tap.ok(code == nil, c[1] .. ": runs (got " .. tostring(code) .. ")")
    else
      tap.ok(r == nil and code == hcp.STATUS_ILLEGAL_INSTRUCTION,
             c[1] .. " -> STATUS_ILLEGAL_INSTRUCTION, the host survives (got " .. tostring(code) .. ")")
    end
  end
  local before = string.unpack("<I4", m:read(lockbuf, 4))
  t:run(m:code("\xf0\x83\x01\x01\xc3"), lockbuf)
  tap.is(string.unpack("<I4", m:read(lockbuf, 4)), (before + 1) & 0xFFFFFFFF, "lock add dword [rcx], 1 adds 1")

  tap.clause("SIM-GUEST-RUN-ARGS")
  local ok1, e1 = pcall(function() return t:run("x") end)
  tap.ok(not ok1, "a string entry point is refused")
  tap.like(e1, "guest%.lua:%d+: bad argument #1 to 'run' %(integer expected, got string%)$",
           "FILE:LINE: and Lua's argument message")
  local many = {}
  for i = 1, 17 do many[i] = i end
  local ok2, e2 = pcall(t.run, t, sum6, table.unpack(many))
  tap.ok(not ok2 and e2:find("at most 16 arguments", 1, true), "more than 16 arguments are refused")
  local co = coroutine.wrap(function() return t:run(negate, 1) end)
  local ok3, e3 = pcall(co)
  tap.ok(not ok3 and e3:find("nested coroutine", 1, true), "t:run from a nested coroutine is refused")
end }

local outsider
m:thread { name = "other", body = function(t)
  tap.clause("SIM-GUEST-RUN-CURRENT-ONLY")
  outsider = t
end }
m:run()
local ok4, e4 = pcall(outsider.run, outsider, negate, 1)
tap.ok(not ok4 and e4:find("not the running thread", 1, true), "t:run outside m:run is refused")

-- Trap points (sim/README.md "Faults"): each place where an instruction the engine must not
-- translate may start.  66 ff d8 is two (the prefix and the ff may each start the far call),
-- ff d8 one; past max_trap_points m:code is refused and places nothing.
tap.clause("SIM-GUEST-TRAP-POINTS")
local m2 = hcp.machine { max_trap_points = 3 }
local far16 = m2:code("\x66\xff\xd8\xc3")
local far = m2:code("\xff\xd8")
local ok5, e5 = pcall(m2.code, m2, "\x90\xff\xd8")
tap.is(not ok5 and e5,
       "m:code: limit reached: 3 trap points in guest code (machine option max_trap_points, at most 16384; " ..
       "default 1024: each costs host time on every guest call; data belongs in m:alloc, not m:code)",
       "a fourth trap point is refused with the limit, its value and the option")
local ret = m2:code("\xc3")
tap.is(ret, far + 0x2000, "the refused code took no address: the next code follows the last placed page and its guard")
m2:thread { name = "traps", body = function(t)
  local r1, c1, i1 = t:pcall_run(far16)
  tap.ok(r1 == nil and c1 == hcp.STATUS_ILLEGAL_INSTRUCTION and i1.address == far16,
         "66 ff d8 from its prefix -> STATUS_ILLEGAL_INSTRUCTION at the prefix")
  local r2, c2, i2 = t:pcall_run(far16 + 1)
  tap.ok(r2 == nil and c2 == hcp.STATUS_ILLEGAL_INSTRUCTION and i2.address == far16 + 1,
         "66 ff d8 from its ff -> STATUS_ILLEGAL_INSTRUCTION at the ff")
  local r3, c3 = t:pcall_run(ret)
  tap.ok(c3 == nil, "code placed after the refusal runs (got " .. tostring(c3) .. ")")
end }
m2:run()
local m4 = hcp.machine { max_trap_points = 2 }
local ok7, lockfar = pcall(m4.code, m4, "\xf0\xff\xd8\xc3")
tap.ok(ok7, "f0 ff d8 (a LOCK on a far call) is two trap points, its f0 counted once")
local m4b = hcp.machine { max_trap_points = 1 }
tap.ok(not pcall(m4b.code, m4b, "\xf0\xff\xd8\xc3"), "and a machine that takes one refuses it")
m4:thread { name = "lockfar", body = function(t)
  local _, c8, i8 = t:pcall_run(lockfar + 1)
  tap.ok(c8 == hcp.STATUS_ILLEGAL_INSTRUCTION and i8.address == lockfar + 1,
         "its ff is a trap point: STATUS_ILLEGAL_INSTRUCTION there (got " .. tostring(c8) .. ")")
end }
m4:run()
-- A refusal undoes the whole m:code: its trap points and its guest memory (max_memory) too.
local m5 = hcp.machine { max_trap_points = 4, max_memory = 8192 }
m5:code("\xff\xd8\xff\xd8")
tap.ok(not pcall(m5.code, m5, "\x90\x90\xff\xd8\xff\xd8\xff\xd8"), "2 trap points taken, 3 more refused")
tap.ok(pcall(m5.code, m5, "\xff\xd8\xff\xd8"),
       "2 more fit afterwards: the refused code left none of its trap points behind")
local ok9, e9 = pcall(m5.code, m5, "\xc3")
tap.ok(not ok9 and e9:find("limit reached: 8192 bytes of guest memory", 1, true),
       "two placed pages use up max_memory = 8192; the refused code took none")
local m3 = hcp.machine {}
m3:code(string.rep("\xff\xd8", 1024))
local ok6, e6 = pcall(m3.code, m3, "\xff\xd8")
tap.ok(not ok6 and e6:find("limit reached: 1024 trap points", 1, true),
       "the default is 1024: 1024 far calls fit, the 1025th is refused")
tap.done_testing()
