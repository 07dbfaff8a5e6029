-- sim/tests/faults.lua — a fault-heavy scenario: on each ISA (x64, x86, ARM64, ARM) 150 random
-- straight-line blocks of loads, stores, read-modify-writes, pushes and pops, pointer chases,
-- divisions and jumps through registers on good and bad pointers (unmapped, a guard page,
-- read-only code, the stack's guard page), run with t:pcall_run; for each, the exception (name,
-- address within the code, inaccessible address, access, instruction) or the result, and the
-- counters the block retired; at the end a digest of the data buffer.  Its output is compared
-- byte for byte with the output the build before issue 32 gave (conformance/fault_corpus.sh,
-- faults.expected): the engine's own precise mode, a memory hook for the whole run, found those
-- faulting instructions.  No atomic instruction (xchg): that mode misreports them
-- (sim/README.md "Precise faults").
local hcp = require "hcpsim"

local rng = 0x2545F4914F6CDD1D
local function pick(n)
  rng = rng ~ (rng << 13)
  rng = rng ~ (rng >> 7)
  rng = rng ~ (rng << 17)
  return (rng >> 1) % n
end

local function le(v, n) return string.pack("<I" .. n, v & ((1 << (8 * n)) - 1)) end

local DATA = 65536

-- The pointers a block uses: 24 good ones into the buffer, then bad ones.
local function pool(data, code, stack_lo, wide)
  local p = {}
  for _ = 1, 24 do p[#p + 1] = data + 8 * pick(DATA // 8 - 64) + 256 end
  p[#p + 1] = 0x10                   -- unmapped
  p[#p + 1] = data + DATA + 8        -- the guard page after the buffer
  p[#p + 1] = code + 64              -- read-only code
  p[#p + 1] = stack_lo - 8           -- the stack's guard page
  p[#p + 1] = wide and 0x123400000000 or 0xC0000000
  return p
end
local function good(p) return p[1 + pick(24)] end
local function any(p) return p[1 + pick(#p)] end

-- ---- x86 (both modes) ----------------------------------------------------------------------------
local X64REGS = { 0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 13, 14 }
local X86REGS = { 0, 1, 2, 3, 6, 7 }

local function x86_block(x64, p, stack_lo)
  local regs = x64 and X64REGS or X86REGS
  local out = {}
  local function b(...) for _, v in ipairs { ... } do out[#out + 1] = string.char(v) end end
  local function rex(r, m) if x64 then b(0x48 | (r >> 3) << 2 | (m >> 3)) end end
  local function mem(op, r, base, d) rex(r, base); b(op, 0x40 | (r & 7) << 3 | (base & 7), d & 0xFF) end
  local function movi(r, v)
    if x64 then b(0x48 | (r >> 3), 0xB8 + (r & 7)); out[#out + 1] = le(v, 8)
    else b(0xB8 + r); out[#out + 1] = le(v, 4) end
  end
  if x64 then b(0x49, 0x89, 0xE7) else b(0x89, 0xE5) end -- save the stack pointer (r15 / ebp)
  for _, r in ipairs(regs) do movi(r, pick(6) > 0 and good(p) or any(p)) end
  if pick(6) == 0 then -- near the stack's guard page: the pushes overflow
    if x64 then b(0x48, 0xBC); out[#out + 1] = le(stack_lo + 8 * pick(3), 8)
    else b(0xBC); out[#out + 1] = le(stack_lo + 4 * pick(3), 4) end
    for _ = 1, 4 do b(0x50 + regs[1 + pick(#regs)] % 8) end
  end
  for _ = 1, 4 + pick(30) do
    local r, m, d = regs[1 + pick(#regs)], regs[1 + pick(#regs)], 8 * pick(6) - 16
    local k = pick(14)
    if k <= 1 then mem(0x8B, r, m, d)                        -- mov r, [m+d]
    elseif k == 2 then mem(0x89, r, m, d)                    -- mov [m+d], r
    elseif k == 3 then mem(0x03, r, m, d)                    -- add r, [m+d]
    elseif k == 4 then mem(0x01, r, m, d)                    -- add [m+d], r
    elseif k == 5 then mem(0xFF, 0, m, d)                    -- inc [m+d]
    elseif k == 6 then mem(0x8D, r, m, d)                    -- lea r, [m+d]
    elseif k == 7 then rex(0, r); b(0x83, 0xC0 | (r & 7), (8 * pick(4)) & 0xFF) -- add r, imm8
    elseif k == 8 then for _, q in ipairs { r, m } do          -- push or pop
        if q >= 8 then b(0x41) end
        b((pick(3) > 0 and 0x50 or 0x58) + (q & 7))
      end
    elseif k == 9 then movi(r, any(p))
    elseif k == 10 then mem(0x8B, m, m, d < 0 and 0 or d)    -- mov m, [m+d]: a chase
    elseif k == 11 then b(0x31, 0xD2); rex(0, r); b(0xF7, 0xF0 | (r & 7)) -- xor edx, edx; div r
    elseif k == 12 then rex(m, r); b(0x39, 0xC0 | (m & 7) << 3 | (r & 7)); rex(r, m); b(0x0F, 0x44, 0xC0 | (r & 7) << 3 | (m & 7)) -- cmp; cmove
    else
      if pick(3) == 0 then -- jmp r to a bad target: an execute fault
        movi(r, p[#p]); if r >= 8 then b(0x41) end; b(0xFF, 0xE0 | (r & 7))
        return table.concat(out)
      end
    end
  end
  if x64 then b(0x4C, 0x89, 0xFC) else b(0x89, 0xEC) end
  b(0xC3)
  return table.concat(out)
end

-- ---- ARM64 ---------------------------------------------------------------------------------------------
local function a64_block(p, stack_lo)
  local out = {}
  local function w(v) out[#out + 1] = le(v, 4) end
  local function reg() local r = pick(27); return r < 18 and r or r + 1 end -- not x18, x28-x30
  local function movx(d, v)
    w(0xD2800000 | (v & 0xFFFF) << 5 | d)
    for hw = 1, 3 do w(0xF2800000 | hw << 21 | ((v >> (16 * hw)) & 0xFFFF) << 5 | d) end
  end
  w(0x91000000 | 31 << 5 | 28) -- mov x28, sp
  for r = 0, 27 do if r ~= 18 then movx(r, pick(6) > 0 and good(p) or any(p)) end end
  if pick(6) == 0 then
    movx(17, stack_lo + 16 * pick(3))
    w(0x91000000 | 17 << 5 | 31) -- mov sp, x17
    for _ = 1, 4 do w(0xA9800000 | 0x7E << 15 | reg() << 10 | 31 << 5 | reg()) end -- stp pre-index
  end
  for _ = 1, 4 + pick(30) do
    local t, n, t2, m, i = reg(), reg(), reg(), reg(), pick(8)
    local k = pick(12)
    if k <= 1 then w(0xF9400000 | i << 10 | n << 5 | t)                 -- ldr
    elseif k == 2 then w(0xF9000000 | i << 10 | n << 5 | t)             -- str
    elseif k == 3 then w(0xF8400400 | 8 << 12 | n << 5 | t)             -- ldr, post-index
    elseif k == 4 then w(0xA9400000 | i << 15 | t2 << 10 | n << 5 | t)  -- ldp
    elseif k == 5 then w(0xA9000000 | i << 15 | t2 << 10 | n << 5 | t)  -- stp
    elseif k == 6 then w(0xA8C00000 | 2 << 15 | t2 << 10 | 31 << 5 | t) -- ldp, sp post-index
    elseif k == 7 then w(0x91000000 | (8 * i) << 10 | n << 5 | t)       -- add
    elseif k == 8 then movx(t, any(p))
    elseif k == 9 then w(0x39400000 | i << 10 | n << 5 | t)             -- ldrb
    elseif k == 10 then w(0xEB00001F | m << 16 | n << 5); w(0x9A800000 | m << 16 | n << 5 | t) -- cmp; csel
    else w(0xF9400000 | t << 5 | t) end                                 -- a chase
  end
  w(0x91000000 | 28 << 5 | 31) -- mov sp, x28
  w(0xD65F03C0)                -- ret
  return table.concat(out)
end

-- ---- ARM (A32) -------------------------------------------------------------------------------------------
local function a32_block(p)
  local out = {}
  local function w(v) out[#out + 1] = le(v, 4) end
  local function movi(d, v)
    w(0xE3000000 | ((v >> 12) & 0xF) << 16 | d << 12 | (v & 0xFFF))             -- movw
    w(0xE3400000 | ((v >> 28) & 0xF) << 16 | d << 12 | ((v >> 16) & 0xFFF))     -- movt
  end
  w(0xE1A0C00D) -- mov r12, sp
  for r = 0, 11 do movi(r, pick(6) > 0 and good(p) or any(p)) end
  for _ = 1, 4 + pick(30) do
    local t, n, i = pick(12), pick(12), 4 * pick(8)
    local k = pick(8)
    if k <= 1 then w(0xE5900000 | n << 16 | t << 12 | i)      -- ldr
    elseif k == 2 then w(0xE5800000 | n << 16 | t << 12 | i)  -- str
    elseif k == 3 then w(0xE52D0004 | t << 12)                -- push {t}
    elseif k == 4 then w(0xE49D0004 | t << 12)                -- pop {t}
    elseif k == 5 then w(0xE2800000 | n << 16 | t << 12 | i)  -- add
    elseif k == 6 then movi(t, any(p))
    else w(0xE5900000 | t << 16 | t << 12) end                -- a chase
  end
  w(0xE1A0D00C) -- mov sp, r12
  w(0xE12FFF1E) -- bx lr
  return table.concat(out)
end

local EVENTS = { "instructions", "branches", "loads", "stores", "cycles" }

for _, platform in ipairs { "win10-x64", "win7-x86", "win11-arm64", "ce2.12-arm" } do
  local m = hcp.machine { platform = platform, max_trap_points = 16384 }
  local wide = platform == "win10-x64" or platform == "win11-arm64"
  local data = m:alloc(DATA)
  local probe = m:code(platform == "win11-arm64" and le(0xD65F03C0, 4) or platform == "ce2.12-arm" and le(0xE12FFF1E, 4)
    or "\xC3")
  m:thread { name = "faults", body = function(t)
    -- the stack's lowest byte: a stack slot is 256 KiB below the first call's stack top
    local stack_lo = platform == "win10-x64" and 0x7FF000001000 or platform == "win11-arm64" and 0x7FF000001000
      or 0x80001000
    t:run(probe)
    local p = pool(data, probe, stack_lo, wide)
    local fill = {}
    for i = 1, DATA // 8 do fill[i] = le(pick(5) > 0 and good(p) or any(p), 8) end
    m:write(data, table.concat(fill))
    local blocks, offsets = {}, {}
    local at = 0
    for i = 1, 150 do
      local code = platform == "win10-x64" and x86_block(true, p, stack_lo)
        or platform == "win7-x86" and x86_block(false, p, stack_lo)
        or platform == "win11-arm64" and a64_block(p, stack_lo) or a32_block(p)
      code = code .. string.rep(platform:find "arm" and "\0" or "\xCC", (16 - #code % 16) % 16)
      blocks[i], offsets[i] = code, at
      at = at + #code
    end
    local base = m:code(table.concat(blocks))
    print(string.format("%s: 150 blocks, %d bytes of code", platform, at))
    for i = 1, 150 do
      local c0 = t:counters()
      local r, code, info = t:pcall_run(base + offsets[i])
      local c1 = t:counters()
      local d = {}
      for _, e in ipairs(EVENTS) do d[#d + 1] = e .. " " .. (c1[e] - c0[e]) end
      if r == nil then
        print(string.format("%3d %s at +%d %s %s %s | %s", i, info.name, info.address - base - offsets[i],
          info.access or "-", info.data and string.format("0x%X", info.data) or "-", info.instruction,
          table.concat(d, ", ")))
      else
        print(string.format("%3d returned | %s", i, table.concat(d, ", ")))
      end
    end
    local bytes = m:read(data, DATA)
    local h = 0xcbf29ce484222325
    for i = 1, #bytes do h = (h ~ bytes:byte(i)) * 0x100000001b3 end
    print(string.format("%s: data digest %016x", platform, h))
  end }
  m:run()
end
