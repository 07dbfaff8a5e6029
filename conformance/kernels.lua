-- The built-in guest kernels (scenarios/kernels/*.S, `m:load "kernels"`): for
-- several arguments each, the return value, the memory it writes, and the
-- instructions and branches it retires, read through ReadThreadProfilingData
-- (HwCounters), against the formulas in the kernel's source comments
-- (scenarios/kernels/README.md).  Expected values come from those formulas
-- and from the data this file writes, computed here in Lua; the data-dependent
-- terms (odd words for branchy, fall-throughs for pattern) are counted from
-- the data, never read from the simulator.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"
local testlib = require "hcpsim.testlib"

local HW = hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS

local m = hcp.machine { pmc = { "instructions", "cycles", "branches" } }
-- element 0 = PMC0 (instructions), element 1 = PMC2 (branches)
assert(m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 },
                                             { Type = hcp.PMCCounter, Index = 2 } } == hcp.STATUS_SUCCESS)
local k = m:load "kernels"

-- The formulas, as written in each .S file: instructions, branches.
local formula = {
  spin = function(a) return 4 + 2 * a.n, 2 + a.n end,
  memwalk = function(a) return 4 + 4 * a.n, 2 + a.n end,
  calls = function(a) return 4 + 4 * a.n, 2 + 3 * a.n end,
  branchy = function(a) return 4 + 5 * a.n + a.odd, 2 + 2 * a.n end,
  stores = function(a) return 4 + 4 * a.n, 2 + a.n end,
  stride = function(a) return 4 + 4 * a.n, 2 + a.n end,
  chase = function(a) return 4 + 3 * a.n, 2 + a.n end,
  pattern = function(a) return 4 + 4 * a.n + a.zeros, 2 + 2 * a.n end,
  recurse = function(a) return 4 + 7 * a.n, 2 + 3 * a.n end,
  copy = function(a) return 4 + 6 * a.n, 2 + a.n end,
  icalls = function(a) return 5 + 4 * a.n, 2 + 3 * a.n end,
  profile_loop = function(a) return 50 + 2 * a.n, 15 + a.n end,
}

-- Every kernel the library places is covered here, and every kernel covered exists.
tap.clause("SIM-KERNEL-LIBRARY")
do
  local function sorted_keys(t)
    local keys = {}
    for key in pairs(t) do keys[#keys + 1] = key end
    table.sort(keys) -- pairs() order varies from run to run
    return keys
  end
  local names = sorted_keys(k)
  for _, name in ipairs(names) do
    tap.ok(formula[name] ~= nil and math.type(k[name]) == "integer",
           "kernel '" .. name .. "' is placed at an address and has formulas in this test")
  end
  for _, name in ipairs(sorted_keys(formula)) do
    tap.ok(k[name] ~= nil, "the library has kernel '" .. name .. "'")
  end
  tap.diag("kernels: " .. table.concat(names, " "))
end

-- Deterministic data: splitmix64 (Lua integers wrap like the guest's registers).
local rng = testlib.splitmix64

local function pack(list)
  local parts = {}
  for i, v in ipairs(list) do parts[i] = string.pack("<i8", v) end
  return table.concat(parts)
end

local function random_words(count, seed)
  local r, list = rng(seed), {}
  for i = 1, count do list[i] = r() end
  return list
end

-- A guest buffer holding `bytes`.
local function buffer(bytes)
  local a = m:alloc(#bytes)
  m:write(a, bytes)
  return a
end

local function word_at(bytes, offset) return (string.unpack("<i8", bytes, offset + 1)) end

m:thread { name = "kernels", body = function(t)
  tap.clause("SIM-KERNEL-FORMULAS")
  local cur = t:GetCurrentThread()

  -- One call between Enable and Read: rax, instructions, branches.
  local function measure(entry, ...)
    local rc, ph = t:EnableThreadProfiling(cur, 0, 0x3)
    assert(rc == hcp.ERROR_SUCCESS, "EnableThreadProfiling: " .. tostring(rc))
    local ret, code = t:run(entry, ...)
    assert(ret ~= nil, "guest exception " .. tostring(code))
    local rc2, pd = t:ReadThreadProfilingData(ph, HW)
    assert(rc2 == hcp.ERROR_SUCCESS, "ReadThreadProfilingData: " .. tostring(rc2))
    t:DisableThreadProfiling(ph)
    return ret, pd.HwCounters[0].Value, pd.HwCounters[1].Value
  end

  -- name: kernel; label: the call as text; vars: the formulas' variables; want: return value.
  local function check(name, label, vars, want, ...)
    local ret, ins, br = measure(k[name], ...)
    local want_ins, want_br = formula[name](vars)
    tap.is(ret, want, label .. " returns " .. want)
    tap.is(ins, want_ins, label .. ": instructions = formula")
    tap.is(br, want_br, label .. ": branches = formula")
  end

  -- spin(n): returns n.
  for _, n in ipairs { 0, 1, 2, 1000, 65537 } do
    check("spin", "spin(" .. n .. ")", { n = n }, n, n)
  end

  -- memwalk(buf, n): the wrapping sum of the first n words.
  local rand = random_words(512, 1)
  local rbytes = pack(rand)
  local rbuf = buffer(rbytes)
  for _, n in ipairs { 0, 1, 7, 512 } do
    local sum = 0
    for i = 1, n do sum = sum + rand[i] end
    check("memwalk", "memwalk(buf, " .. n .. ")", { n = n }, sum, rbuf, n)
  end

  -- calls(n): returns n.
  for _, n in ipairs { 0, 1, 300 } do
    check("calls", "calls(" .. n .. ")", { n = n }, n, n)
  end

  -- branchy(buf, n): returns the number of odd words; random, all-odd and all-even data.
  local function odd_words(list, n)
    local c = 0
    for i = 1, n do c = c + (list[i] & 1) end
    return c
  end
  for _, n in ipairs { 0, 1, 16, 512 } do
    local odd = odd_words(rand, n)
    check("branchy", "branchy(random, " .. n .. ")", { n = n, odd = odd }, odd, rbuf, n)
  end
  do
    local odds, evens = {}, {}
    for i = 1, 100 do odds[i], evens[i] = 2 * i + 1, -2 * i end
    check("branchy", "branchy(all odd, 100)", { n = 100, odd = 100 }, 100, buffer(pack(odds)), 100)
    check("branchy", "branchy(all even, 100)", { n = 100, odd = 0 }, 0, buffer(pack(evens)), 100)
  end

  -- stores(buf, n): words n, n-1, ..., 1; the word after them keeps its value.
  for _, n in ipairs { 0, 1, 100 } do
    local fill = {}
    for i = 1, n + 1 do fill[i] = 0x5A5A5A5A5A5A5A5A end
    local b = buffer(pack(fill))
    check("stores", "stores(buf, " .. n .. ")", { n = n }, n, b, n)
    local want = {}
    for i = 1, n do want[i] = n - (i - 1) end
    want[n + 1] = 0x5A5A5A5A5A5A5A5A
    tap.is(m:read(b, 8 * (n + 1)), pack(want), "stores(buf, " .. n .. ") wrote n..1 and nothing after")
  end

  -- stride(buf, n, s): the wrapping sum of the words at byte offsets 0, s, 2s, ... from the start.
  local big = pack(random_words(8192, 2)) -- 64 KiB
  local bigbuf = buffer(big)
  for _, c in ipairs { { 0, 8, 0 }, { 10, 8, 0 }, { 64, 64, 0 }, { 16, 4096, 0 }, { 50, 12, 0 },
                       { 9, -8, #big - 8 }, { 5, 0, 800 } } do
    local n, s, start = c[1], c[2], c[3]
    local sum = 0
    for i = 0, n - 1 do sum = sum + word_at(big, start + i * s) end
    check("stride", string.format("stride(buf+%d, %d, %d)", start, n, s), { n = n }, sum, bigbuf + start, n, s)
  end

  -- chase(buf, n): i = 0, then n times i = buf[i]; a table of 1024 indices.
  local links = {}
  for i = 0, 1023 do links[i + 1] = (i * 389 + 101) % 1024 end
  local chbuf = buffer(pack(links))
  for _, n in ipairs { 0, 1, 5, 2000 } do
    local i = 0
    for _ = 1, n do i = links[i + 1] end
    check("chase", "chase(buf, " .. n .. ")", { n = n }, i, chbuf, n)
  end

  -- pattern(n, mask): the number of i in 1..n with (i & mask) == 0.
  for _, c in ipairs { { 0, 1 }, { 10, 0 }, { 10, -1 }, { 1000, 1 }, { 1000, 7 }, { 999, 5 } } do
    local n, mask = c[1], c[2]
    local zeros = 0
    for i = 1, n do
      if i & mask == 0 then zeros = zeros + 1 end
    end
    check("pattern", string.format("pattern(%d, %d)", n, mask), { n = n, zeros = zeros }, zeros, n, mask)
  end

  -- recurse(n): returns n (8n bytes of the 256 KiB stack).
  for _, n in ipairs { 0, 1, 2, 1000 } do
    check("recurse", "recurse(" .. n .. ")", { n = n }, n, n)
  end

  -- copy(dst, src, n): the first n words of src land in dst; the word after them keeps its value.
  for _, n in ipairs { 0, 1, 50 } do
    local fill = {}
    for i = 1, n + 1 do fill[i] = -1 end
    local dst = buffer(pack(fill))
    check("copy", "copy(dst, src, " .. n .. ")", { n = n }, n, dst, rbuf, n)
    tap.is(m:read(dst, 8 * (n + 1)), rbytes:sub(1, 8 * n) .. string.pack("<i8", -1),
           "copy(dst, src, " .. n .. ") copied n words and nothing after")
  end

  -- icalls(n): returns n.
  for _, n in ipairs { 0, 1, 300 } do
    check("icalls", "icalls(" .. n .. ")", { n = n }, n, n)
  end

  -- profile_loop(imports, n, pd, mask) profiles itself through import thunks, so
  -- it is measured by the thread's own counters (t:counters()) instead of an
  -- Enable around it; the whole call's formulas include the four thunks, and
  -- its PERFORMANCE_DATA holds the window formulas (profile_loop.S).
  local imports = m:import_table { "GetCurrentThread", "EnableThreadProfiling", "ReadThreadProfilingData",
                                   "DisableThreadProfiling" }
  local pd = m:alloc(288)
  local delta = testlib.delta
  for _, n in ipairs { 0, 1, 1000 } do
    m:write(pd, string.pack("<I2BB", 288, 1, 0) .. string.rep("\0", 284)) -- Size, Version
    local label = "profile_loop(imports, " .. n .. ", pd, 0x3)"
    local c0 = t:counters()
    local ret = t:run(k.profile_loop, imports, n, pd, 0x3)
    local c1 = t:counters()
    local want_ins, want_br = formula.profile_loop { n = n }
    tap.is(ret, 0, label .. " returns 0: Enable, Read and Disable succeed")
    tap.is(delta(c0, c1, "instructions"), want_ins, label .. ": instructions = formula")
    tap.is(delta(c0, c1, "branches"), want_br, label .. ": branches = formula")
    tap.is(delta(c0, c1, "cond-branches"), 2 + n, label .. ": conditional = formula")
    tap.is(delta(c0, c1, "loads"), 15, label .. ": loads = formula")
    tap.is(delta(c0, c1, "stores"), 8, label .. ": stores = formula")
    local bytes = m:read(pd, 288)
    tap.is(string.unpack("<I8", bytes, 1 + 32 + 8), 13 + 2 * n, label .. ": HwCounters[0] (instructions) = window formula")
    tap.is(string.unpack("<I8", bytes, 1 + 48 + 8), 5 + n, label .. ": HwCounters[1] (branches) = window formula")
  end
  do -- Enable fails (the thread is already profiled): its code alone, two imports called.
    local _, ph = t:EnableThreadProfiling(cur, 0, 0)
    local c0 = t:counters()
    local ret = t:run(k.profile_loop, imports, 5, pd, 0x3)
    local c1 = t:counters()
    t:DisableThreadProfiling(ph)
    local label = "profile_loop while profiled"
    tap.is(ret, hcp.ERROR_WMI_ALREADY_ENABLED, label .. " returns Enable's ERROR_WMI_ALREADY_ENABLED alone")
    tap.is(delta(c0, c1, "instructions"), 31, label .. ": 31 instructions (profile_loop.S)")
    tap.is(delta(c0, c1, "branches"), 8, label .. ": 8 branches")
    tap.is(delta(c0, c1, "cond-branches"), 1, label .. ": 1 conditional")
    tap.is(delta(c0, c1, "loads"), 9, label .. ": 9 loads")
    tap.is(delta(c0, c1, "stores"), 6, label .. ": 6 stores")
  end
end }
m:run()
tap.done_testing()
