-- Guest CPUs of every platform ISA: x86 (win7-x86, stdcall), ARM64
-- (win11-arm64, AAPCS64) and ARM (ce2.12-arm, AAPCS).  Every expected count
-- below is the formula in the header of scenarios/kernels/ISA/NAME.S, derived
-- by hand from the listing (restated here); the fault codes are Windows'
-- (sim/README.md "ISA layer").  With cost = "unit" cycles equal instructions.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local PLATFORMS = { "win7-x86", "win11-arm64", "ce2.12-arm" }
local ISA = { ["win7-x86"] = "x86", ["win11-arm64"] = "arm64", ["ce2.12-arm"] = "arm" }
local WORD = { x86 = 4, arm64 = 8, arm = 4 } -- the kernels' data word: the pointer size

-- Formulas per ISA: instructions, branches, conditional, loads, stores.
local F = {
  x86 = {
    spin = function(v) return 5 + 2 * v.n, 2 + v.n, 1 + v.n, 2, 0 end,
    memwalk = function(v) return 6 + 4 * v.n, 2 + v.n, 1 + v.n, 3 + v.n, 0 end,
    calls = function(v) return 5 + 4 * v.n, 2 + 3 * v.n, 1 + v.n, 2 + v.n, v.n end,
    branchy = function(v) return 6 + 5 * v.n + v.odd, 2 + 2 * v.n, 1 + 2 * v.n, 3 + v.n, 0 end,
    stores = function(v) return 6 + 4 * v.n, 2 + v.n, 1 + v.n, 3, v.n end,
    recurse = function(v) return 7 + 7 * v.n, 4 + 3 * v.n, 1 + v.n, 3 + v.n, 1 + v.n end,
    profile_loop = function(v) return 52 + 2 * v.n, 15 + v.n, 2 + v.n, 19, 17 end,
    profile_fail = { 33, 8, 1, 13, 11 },
    window = function(n) return 13 + 2 * n, 5 + n end,
    shift = { 11, 22 },
  },
  arm64 = {
    spin = function(v) return 3 + 2 * v.n, 2 + v.n, 1 + v.n, 0, 0 end,
    memwalk = function(v) return 4 + 4 * v.n, 2 + v.n, 1 + v.n, v.n, 0 end,
    calls = function(v) return 5 + 4 * v.n, 2 + 3 * v.n, 1 + v.n, 1, 1 end,
    branchy = function(v) return 4 + 4 * v.n + v.odd, 2 + 2 * v.n, 1 + 2 * v.n, v.n, 0 end,
    stores = function(v) return 4 + 3 * v.n, 2 + v.n, 1 + v.n, 0, v.n end,
    recurse = function(v) return 2 + 7 * v.n, 2 + 3 * v.n, 1 + v.n, v.n, v.n end,
    profile_loop = function(v) return 41 + 2 * v.n, 15 + v.n, 2 + v.n, 9, 3 end,
    profile_fail = { 25, 8, 1, 5, 3 },
    window = function(n) return 11 + 2 * n, 5 + n end,
    shift = { 16, 32 },
  },
  arm = {
    spin = function(v) return 3 + 2 * v.n, 2 + v.n, 1 + v.n, 0, 0 end,
    memwalk = function(v) return 5 + 4 * v.n, 2 + v.n, 1 + v.n, v.n, 0 end,
    calls = function(v) return 4 + 4 * v.n, 2 + 3 * v.n, 1 + v.n, 1, 1 end,
    branchy = function(v) return 5 + 5 * v.n + v.odd, 2 + 2 * v.n, 1 + 2 * v.n, v.n, 0 end,
    stores = function(v) return 4 + 3 * v.n, 2 + v.n, 1 + v.n, 0, v.n end,
    recurse = function(v) return 3 + 7 * v.n, 2 + 3 * v.n, 1 + v.n, v.n, v.n end,
    profile_loop = function(v) return 40 + 2 * v.n, 15 + v.n, 2 + v.n, 7, 2 end,
    profile_fail = { 24, 8, 1, 3, 2 },
    window = function(n) return 11 + 2 * n, 5 + n end,
    shift = { 11, 22 },
  },
}

local EVENTS = { "instructions", "branches", "cond-branches", "loads", "stores" }

local function le32(...)
  local s = ""
  for _, v in ipairs { ... } do s = s .. string.pack("<I4", v) end
  return s
end

-- Hand-encoded fault cases per ISA: name, code bytes, argument, expected code,
-- offset of the exception address, retired instructions, access (or nil).
local FAULTS = {
  x86 = {
    -- nop; nop; nop; mov eax, [0]; ret
    { "a read of address 0", "\x90\x90\x90\x8b\x05\x00\x00\x00\x00\xc3", 0, 0xC0000005, 3, 3, "read" },
    { "ud2", "\x90\x0f\x0b", 0, 0xC000001D, 1, 1 },
    { "int3 (a trap: it retires)", "\x90\xcc\xc3", 0, 0x80000003, 1, 2 },
    { "div by 0", "\x31\xc9\xf7\xf1\xc3", 0, 0xC0000094, 2, 1 },
    { "hlt in user mode", "\x90\xf4\xc3", 0, 0xC0000096, 1, 1 },
  },
  arm64 = {
    -- nop x3; ldr x0, [x0]; ret
    { "a read of address 0", le32(0xd503201f, 0xd503201f, 0xd503201f, 0xf9400000, 0xd65f03c0), 0, 0xC0000005, 12, 3, "read" },
    -- nop; str x1, [x0]; ret
    { "a write of address 0", le32(0xd503201f, 0xf9000001, 0xd65f03c0), 0, 0xC0000005, 4, 1, "write" },
    { "udf #0", le32(0xd503201f, 0x00000000), 0, 0xC000001D, 4, 1 },
    { "brk #0", le32(0xd503201f, 0xd4200000), 0, 0x80000003, 4, 1 },
    { "hvc #0 at EL0", le32(0xd503201f, 0xd4000002), 0, 0xC000001D, 4, 1 },
    -- ldxr x1, [x0] at an odd address: exclusives must be aligned
    { "ldxr misaligned", le32(0xc85f7c01, 0xd65f03c0), "odd", 0x80000002, 0, 0 },
    -- timer and PMU registers QEMU would serve from the host's clock (sim/README.md "Faults")
    { "mrs x0, cntv_tval_el0", le32(0xd503201f, 0xd53be300), 0, 0xC000001D, 4, 1 },
    { "mrs x0, cntp_tval_el0", le32(0xd503201f, 0xd53be200), 0, 0xC000001D, 4, 1 },
    { "mrs x0, pmxevcntr_el0", le32(0xd503201f, 0xd53b9d40), 0, 0xC000001D, 4, 1 },
    { "msr pmcr_el0, x0", le32(0xd503201f, 0xd51b9c00), 0, 0xC000001D, 4, 1 },
  },
  arm = {
    -- ldr r0, [r0]; bx lr (first in its block: A32 data faults report the block start)
    { "a read of address 0", le32(0xe5900000, 0xe12fff1e), 0, 0xC0000005, 0, 0, "read" },
    { "udf", le32(0xe1a00000, 0xe7f000f0), 0, 0xC000001D, 4, 1 },
    { "bkpt", le32(0xe1a00000, 0xe1200070), 0, 0x80000003, 4, 1 },
    { "wfi in user mode", le32(0xe320f003, 0xe12fff1e), 0, 0xC000001D, 0, 0 },
    -- ldrex r1, [r0] at an odd address
    { "ldrex misaligned", le32(0xe1901f9f, 0xe12fff1e), "odd", 0x80000002, 0, 0 },
    -- coprocessor 14/15 accesses (sim/README.md "Faults"): QEMU would serve the timer from the
    -- host's clock, and runs this ldc as mrrc p15, 1, pc, r0, c14 (CNTVCT into r0 and the PC)
    { "ldc p15, c15, [r0, #-0x78]", le32(0xe1a00000, 0xed10ff1e), 0, 0xC000001D, 4, 1 },
    { "mrrc p15, 1, r0, r1, c14 (CNTVCT)", le32(0xe1a00000, 0xec510f1e), 0, 0xC000001D, 4, 1 },
    { "mrc p15, 0, r0, c9, c13, 0 (PMCCNTR)", le32(0xe1a00000, 0xee190f1d), 0, 0xC000001D, 4, 1 },
    { "mrc p15, 0, r0, c0, c0, 0 (MIDR)", le32(0xe1a00000, 0xee100f10), 0, 0xC000001D, 4, 1 },
    -- no floating-point unit (sim/README.md "Not modelled"): with one, this load of address 0
    -- would be an access violation
    { "vldr d0, [r0] (no VFP)", le32(0xe1a00000, 0xed900b00), 0, 0xC000001D, 4, 1 },
  },
}

local function pd_blank(m, pd, size)
  m:write(pd, string.pack("<I2BB", size, 1, 0) .. string.rep("\0", 284))
end

-- One platform: everything guest-side, returns a transcript for the determinism check.
local function run_platform(p)
  local isa = ISA[p]
  local f = F[isa]
  local W = WORD[isa]
  local log = {}
  local m = hcp.machine { platform = p, cost = "unit", pmc = { "instructions", "branches" } }
  local hcp_ok = p ~= "ce2.12-arm" -- CE 2.12 has no HCP functions (api/README.md "Platforms")
  if hcp_ok then m:KeSetHardwareCounterConfiguration { { Index = 0 }, { Index = 1 } } end
  local k = m:load "kernels"
  local buf = m:alloc(8 * 1024)
  local imports = m:import_table { "GetCurrentThread", "EnableThreadProfiling", "ReadThreadProfilingData",
                                   "DisableThreadProfiling" }
  local imp = m:imports()
  local pd = m:alloc(288)
  local hslot = m:alloc(16)

  m:thread { name = "guest", body = function(t)
    local function measure(label, want, entry, ...)
      local c0 = t:counters()
      local r, code, info = t:run(entry, ...)
      local c1 = t:counters()
      local got = {}
      for i, e in ipairs(EVENTS) do
        got[i] = c1[e] - c0[e]
        tap.is(got[i], want[i], string.format("%s %s: %s = formula (%d)", p, label, e, want[i]))
      end
      tap.is(c1.cycles - c0.cycles, got[1], p .. " " .. label .. ": cycles = instructions (cost unit)")
      log[#log + 1] = table.concat(got, ",") .. ":" .. tostring(r) .. ":" .. tostring(code)
      return r, code, info
    end

    tap.clause("SIM-ISA-KERNELS")
    for _, n in ipairs { 0, 1, 7, 300 } do
      tap.is(measure("spin(" .. n .. ")", { f.spin { n = n } }, k.spin, n), n, p .. " spin returns n")
      tap.is(measure("calls(" .. n .. ")", { f.calls { n = n } }, k.calls, n), n, p .. " calls returns n")
      tap.is(measure("recurse(" .. n .. ")", { f.recurse { n = n } }, k.recurse, n), n, p .. " recurse returns n")
      -- words: i * 3 + 1 for i = 0..n-1 (odd when i is even: ceil(n/2) odd words); sum = 3 n(n-1)/2 + n
      local words = {}
      for i = 0, n - 1 do words[#words + 1] = string.pack(W == 4 and "<I4" or "<I8", i * 3 + 1) end
      m:write(buf, table.concat(words))
      local odd = (n + 1) // 2
      tap.is(measure("memwalk(buf, " .. n .. ")", { f.memwalk { n = n } }, k.memwalk, buf, n), 3 * n * (n - 1) // 2 + n,
             p .. " memwalk returns the sum")
      tap.is(measure("branchy(buf, " .. n .. ")", { f.branchy { n = n, odd = odd } }, k.branchy, buf, n), odd,
             p .. " branchy returns the odd count")
      tap.is(measure("stores(buf, " .. n .. ")", { f.stores { n = n } }, k.stores, buf, n), n, p .. " stores returns n")
      local want = {}
      for i = 0, n - 1 do want[#want + 1] = string.pack(W == 4 and "<I4" or "<I8", n - i) end
      if n > 0 then tap.is(m:read(buf, n * W), table.concat(want), p .. " stores wrote n, n-1, ..., 1") end
    end

    -- the HCP functions through the gate behave as on x64 (PLAT-X86-HCP, PLAT-ARM64-HCP)
    local same_as_x64 = ({ ["win7-x86"] = "PLAT-X86-HCP", ["win11-arm64"] = "PLAT-ARM64-HCP" })[p]
    if same_as_x64 then tap.clause("SIM-ISA-GATE", same_as_x64) else tap.clause("SIM-ISA-GATE") end
    if hcp_ok then
      for _, n in ipairs { 0, 1, 500 } do
        pd_blank(m, pd, 288)
        local r = measure("profile_loop(" .. n .. ")", { f.profile_loop { n = n } }, k.profile_loop, imports, n, pd, 3)
        tap.is(r, 0, p .. " profile_loop: Enable, Read and Disable succeed through the thunks")
        local wi, wb = f.window(n)
        local bytes = m:read(pd, 288)
        tap.is(string.unpack("<I8", bytes, 1 + 32 + 8), wi,
               p .. " PERFORMANCE_DATA instructions = window formula (edge 1: the x64 layout on every ISA)")
        tap.is(string.unpack("<I8", bytes, 1 + 48 + 8), wb, p .. " PERFORMANCE_DATA branches = window formula")
      end
      -- edge 16 (Size 287) through the gate: Read fails with ERROR_INVALID_USER_BUFFER, as from Lua
      pd_blank(m, pd, 287)
      local r = t:run(k.profile_loop, imports, 3, pd, 3)
      tap.is(r, hcp.ERROR_INVALID_USER_BUFFER << f.shift[1], p .. " a guest PERFORMANCE_DATA with Size 287: Read returns 1784 (edge 16)")
      local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 1, 3)
      local lr = t:ReadThreadProfilingData(ph, 3, { Size = 287, Version = 1 })
      t:DisableThreadProfiling(ph)
      tap.is(lr, r >> f.shift[1], p .. " the Lua caller gets the same code")
      -- Enable fails when the thread is already profiled: the short path
      _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 0)
      local pf = f.profile_fail
      r = measure("profile_loop while profiled", pf, k.profile_loop, imports, 5, pd, 3)
      t:DisableThreadProfiling(ph)
      tap.is(r, hcp.ERROR_WMI_ALREADY_ENABLED, p .. " profile_loop while profiled returns Enable's code alone (edge 13)")
    else
      -- ce2.12-arm: Enable is not implemented; guest and Lua callers see the same code
      local r = measure("profile_loop (no HCP)", f.profile_fail, k.profile_loop, imports, 5, pd, 3)
      local lr = t:EnableThreadProfiling(t:GetCurrentThread(), 1, 3)
      tap.is(r, lr, p .. " guest Enable returns what the Lua caller gets (" .. tostring(lr) .. ")")
      tap.is(r, hcp.ERROR_CALL_NOT_IMPLEMENTED, p .. " ERROR_CALL_NOT_IMPLEMENTED")
    end

    -- Enable from guest code through call5 and the import thunk (the gate, first) writing a
    -- pointer-sized HANDLE (the platform's rule, on the way).
    tap.clause("SIM-ISA-GATE", "PLAT-X86-HANDLES")
    if hcp_ok then
      m:write(hslot, string.rep("\xA5", 16))
      -- EnableThreadProfiling(GetCurrentThread(), 1, 3, &h) through call5: the argument words
      -- on 32-bit guests are handle, flags, mask low, mask high, pointer (stdcall and AAPCS alike)
      local r
      if W == 4 then
        r = t:run(k.call5, imp.EnableThreadProfiling, 0xFFFFFFFE, 1, 3, 0, hslot)
      else
        r = t:run(k.call5, imp.EnableThreadProfiling, -2, 1, 3, hslot, 0)
      end
      tap.is(r, 0, p .. " Enable through call5 succeeds" .. (isa == "x86" and " and the thunk's ret 20 balances the stack" or ""))
      local bytes = m:read(hslot, 16)
      local h = string.unpack(W == 4 and "<I4" or "<I8", bytes)
      tap.ok(h ~= 0, p .. " a HANDLE was written (edge 4)")
      tap.is(bytes:sub(W + 1), string.rep("\xA5", 16 - W), p .. " the HANDLE is " .. W .. " bytes: the bytes after it are untouched")
      tap.is(t:DisableThreadProfiling(h), 0, p .. " the guest's HANDLE disables profiling from Lua")
      if isa == "x86" then
        -- DisableThreadProfiling pops 4 bytes, call5 pushed 20: its ret 24 then returns to an argument word
        local r2, code = t:pcall_run(k.call5, imp.DisableThreadProfiling, 0x1234, 0, 0, 0, 0)
        tap.is(r2, nil, "x86: a stdcall callee that pops 4 of 20 bytes unbalances call5's stack: it faults")
        tap.is(code, hcp.STATUS_ACCESS_VIOLATION, "x86: with an access violation (a return to address 0)")
      end
    end

    tap.clause("SIM-ISA-FAULTS")
    for _, c in ipairs(FAULTS[isa]) do
      local code = m:code(c[2])
      local arg = c[3] == "odd" and buf + 1 or c[3]
      local c0 = t:counters()
      local r, st, info = t:pcall_run(code, arg)
      local c1 = t:counters()
      tap.is(r, nil, p .. " " .. c[1] .. " faults")
      tap.is(st, c[4], string.format("%s %s: exception 0x%08X", p, c[1], c[4]))
      tap.is(info and info.address, code + c[5], p .. " " .. c[1] .. ": the exception address")
      tap.is(c1.instructions - c0.instructions, c[6], p .. " " .. c[1] .. ": " .. c[6] .. " instructions retired")
      if c[7] then
        tap.is(info.data, 0, p .. " " .. c[1] .. ": the inaccessible address")
        tap.is(info.access, c[7], p .. " " .. c[1] .. ": the access kind")
      end
      log[#log + 1] = tostring(st)
    end
    tap.is(t:run(k.spin, 3), 3, p .. " the thread runs guest code again after its faults")
  end }
  m:run()
  return table.concat(log, ";")
end

for _, p in ipairs(PLATFORMS) do
  local a = run_platform(p)
  local b = run_platform(p)
  tap.clause("SIM-ISA-DETERMINISM")
  tap.is(b, a, p .. ": a second run gives the same counts, results and faults")
end

tap.clause("SIM-ISA-BAD-ENTRY")
do
  local m = hcp.machine { platform = "win7-x86" }
  local a = hcp.machine { platform = "ce2.12-arm" }
  local ka = a:load "kernels"
  m:thread { name = "x", body = function(t)
    local ok, err = pcall(t.run, t, 0x140000000)
    tap.ok(not ok and err:find("t:run: entry 0x140000000 is not a 32-bit address (this machine's guest is x86)", 1, true),
           "x86: an entry above 4 GiB is a scenario error naming it")
  end }
  m:run()
  a:thread { name = "a", body = function(t)
    local ok, err = pcall(t.run, t, ka.spin + 1, 3)
    tap.ok(not ok and err:find("is odd: Thumb code is not supported", 1, true), "ARM: an odd (Thumb) entry is a scenario error")
    tap.is(t:run(ka.spin, 3), 3, "ARM: the even entry runs")
  end }
  a:run()
end

tap.clause("SIM-ISA-CACHE")
-- The cache model is the same on every ISA: memwalk over 4096 bytes on a cold 32 KiB L1D with
-- 64-byte lines misses once per line (64), then fits (0).  On x86 the argument words share the
-- line of the return address t:run's call wrote (no miss).
for _, p in ipairs(PLATFORMS) do
  local m = hcp.machine { platform = p, cache = true }
  local k = m:load "kernels"
  local buf = m:alloc(65536)
  local W = WORD[ISA[p]]
  m:thread { name = "c", body = function(t)
    local c0 = t:counters()
    t:run(k.memwalk, buf, 4096 // W)
    local c1 = t:counters()
    t:run(k.memwalk, buf, 4096 // W)
    local c2 = t:counters()
    tap.is(c1["l1d-misses"] - c0["l1d-misses"], 64, p .. ": memwalk over 4096 cold bytes: 64 L1D misses")
    tap.is(c2["l1d-misses"] - c1["l1d-misses"], 0, p .. ": the second walk hits (4 KiB fits the L1D)")
  end }
  m:run()
end

tap.clause("SIM-ISA-GATE")
-- A guest Sleep(20) through the gate leaves the CPU inside the guest call: the other thread runs
-- to its end first, then the sleeper resumes at the thunk's return and its call returns.
for _, p in ipairs(PLATFORMS) do
  local m = hcp.machine { platform = p, cost = "unit" }
  local k = m:load "kernels"
  local imp = m:imports()
  -- x86 call1(fn, a): push dword [esp+8]; call dword [esp+8]; ret 8 (fn pops its one word)
  local call1 = ISA[p] == "x86" and m:code("\xff\x74\x24\x08\xff\x54\x24\x08\xc2\x08\x00")
  local order = {}
  m:thread { name = "sleeper", body = function(t)
    local r = call1 and t:run(call1, imp.Sleep, 20) or t:run(k.call5, imp.Sleep, 20, 0, 0, 0, 0)
    order[#order + 1] = "sleeper:" .. tostring(r)
    local id = call1 and t:run(call1, imp.SetLastError, 5) or t:run(k.call5, imp.SetLastError, 5, 0, 0, 0, 0)
    order[#order + 1] = "SetLastError:" .. tostring(id) .. ":" .. t:GetLastError()
  end }
  m:thread { name = "other", body = function(t)
    t:run(k.spin, 1000)
    order[#order + 1] = "other"
  end }
  m:run()
  tap.is(table.concat(order, " "), "other sleeper:0 SetLastError:0:5",
         p .. ": the guest Sleep blocks its thread, the other runs, the sleeper resumes; then SetLastError(5) from guest code")
end

tap.clause("SIM-ISA-COUNTERS")
do -- rdtsc; mov ecx, eax; nop; nop; rdtsc; sub eax, ecx; ret: served with the virtual clock
  local m = hcp.machine { platform = "win7-x86", cost = "unit", pmc = { "instructions" } }
  local code = m:code("\x0f\x31\x89\xc1\x90\x90\x0f\x31\x29\xc8\xc3")
  -- rdpmc with ecx = 0 (PMC 0: instructions), twice: mov ecx, 0; rdpmc; mov ebx, eax; nop; rdpmc; sub eax, ebx; ret
  local pmc = m:code("\xb9\x00\x00\x00\x00\x0f\x33\x89\xc3\x90\x0f\x33\x29\xd8\xc3")
  m:thread { name = "c", body = function(t)
    tap.is(t:run(code), 4, "x86: RDTSC reads the virtual clock: 4 cycles from one read to the next (rdtsc, mov, nop, nop)")
    tap.is(t:run(pmc), 3, "x86: RDPMC 0 reads the thread's instructions: 3 from one read to the next (rdpmc, mov, nop)")
  end }
  m:run()
end

tap.clause("SIM-ISA-FAULTS")
do -- ARM: add r3, pc, #5; bx r3 (Thumb state at offset 12); udf; Thumb-2 mrrc p15, 1, r0, r1, c14; bx lr
  local code_bytes = le32(0xe28f3005, 0xe12fff13, 0xe7f000f0) .. "\x51\xec\x1e\x0f\x70\x47"
  local results = {}
  for run = 1, 2 do
    local m = hcp.machine { platform = "ce2.12-arm", cost = "unit" }
    local code = m:code(code_bytes)
    m:thread { name = "thumb", body = function(t)
      local r, st, info = t:pcall_run(code)
      results[run] = tostring(r) .. ":" .. tostring(st)
      if run == 1 then
        tap.is(st, 0xC000001D, "arm: a Thumb-2 mrrc of CNTVCT (entered by bx to an odd address) is STATUS_ILLEGAL_INSTRUCTION")
        tap.is(info and info.address, code + 12, "arm: at the Thumb instruction")
      end
    end }
    m:run()
  end
  tap.is(results[2], results[1], "arm: two runs of it agree")
end

tap.clause("SIM-ISA-COUNTERS")
do -- mrs x0, cntvct_el0; nop; nop; mrs x1, cntvct_el0; sub x0, x1, x0; ret: served with the virtual clock
  local m = hcp.machine { platform = "win11-arm64", cost = "unit" }
  local code = m:code(le32(0xd53be040, 0xd503201f, 0xd503201f, 0xd53be041, 0xcb000020, 0xd65f03c0))
  m:thread { name = "c", body = function(t)
    tap.is(t:run(code), 3, "arm64: CNTVCT_EL0 reads the virtual clock: 3 cycles from one read to the next (mrs, nop, nop)")
  end }
  m:run()
end

tap.done_testing()
