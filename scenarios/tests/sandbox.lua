-- The scenario sandbox (scenarios/README.md): no way to the host, no source
-- of nondeterminism, strict names.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

tap.clause("RT-SANDBOX-NO-HOST")
for _, name in ipairs { "io", "os", "debug", "package", "dofile", "loadfile", "collectgarbage" } do
  tap.ok(not pcall(function() return _G[name] end) or rawget(_G, name) == nil, name .. " is absent")
end
for _, mod in ipairs { "os", "io", "debug", "package", "hcpsim.nope" } do
  local ok, err = pcall(require, mod)
  tap.ok(not ok and err:find("module '" .. mod .. "' not found", 1, true), "require '" .. mod .. "' fails")
end
local ok_bin, err_bin = pcall(function() return load(string.dump(function() return 1 end)) end)
tap.ok(ok_bin and err_bin == nil, "load refuses a binary chunk")
tap.is(load("return 6 * 7")(), 42, "load runs a text chunk")
tap.is(load("return x", "chunk", "t", { x = 5 })(), 5, "load honours an environment table")

tap.clause("RT-SANDBOX-DETERMINISTIC-RANDOM")
local first = { math.random(1 << 40), math.random(1 << 40), math.random(1 << 40) }
math.randomseed(1) -- the default scenario seed (--seed 1)
local again = { math.random(1 << 40), math.random(1 << 40), math.random(1 << 40) }
tap.ok(first[1] == again[1] and first[2] == again[2] and first[3] == again[3],
       "math.random starts from the scenario seed")
local ok_seed, err_seed = pcall(math.randomseed)
tap.ok(not ok_seed and err_seed:find("number expected, got no value", 1, true),
       "math.randomseed() without a seed (host clock) is refused")

tap.clause("RT-STRICT-GLOBALS")
declared_in_main = 1
tap.is(declared_in_main, 1, "the main chunk may declare globals")
local ok_r, err_r = pcall(function() return undeclared_name end)
tap.ok(not ok_r and err_r:find("variable 'undeclared_name' is not declared", 1, true), "reading an undeclared global fails")
local ok_w, err_w = pcall(function() new_global = 1 end)
tap.ok(not ok_w and err_w:find("assignment to undeclared global 'new_global'", 1, true),
       "writing a new global from a function fails")
local ok_c, err_c = pcall(function() return hcp.ERROR_SUCESS end)
tap.ok(not ok_c and err_c:find("hcpsim has no member 'ERROR_SUCESS'", 1, true), "a misspelt constant fails loudly")

tap.clause("RT-CONSTANTS")
tap.is(hcp.ERROR_INVALID_USER_BUFFER, 1784, "constants carry Windows values")
tap.is(hcp.STATUS_WMI_ALREADY_ENABLED, 0xC0000303, "NTSTATUS values are unsigned 32-bit")
tap.is(hcp.WrPreempted, 32, "KWAIT_REASON WrPreempted")
tap.is(hcp.WrYieldExecution, 33, "KWAIT_REASON WrYieldExecution")
tap.is(hcp.MaximumWaitReason, 40, "MaximumWaitReason")
tap.is(hcp.EVENT_TRACE_FLAG_DISPATCHER, 0x800, "EVENT_TRACE_FLAG_DISPATCHER")
tap.is(hcp.wait_reason_name(30), "WrQuantumEnd", "wait reason names")
tap.is(hcp.status_name(0xC0000005), "STATUS_ACCESS_VIOLATION", "status names")

tap.clause("RT-MACHINE-OPTIONS")
local function err_of(f)
  local ok, e = pcall(f)
  return not ok and e or nil
end
tap.like(err_of(function() hcp.machine { cpu = 1 } end),
         "hcp%.machine: unknown field 'cpu' %(valid: platform, semantics, cpus, ", "an unknown option names the valid ones")
tap.like(err_of(function() hcp.machine { platform = "win95" } end), "unknown platform 'win95' %(valid: win10%-x64",
         "an unknown platform lists the valid ones")
tap.like(err_of(function() hcp.machine { pmc = { "instructions", "cache-misses" } } end),
         "unknown PMU event 'cache%-misses' in pmc%[2%] %(valid: instructions, cycles, branches, ref%-cycles, " ..
         "cond%-branches, branch%-misses, loads, stores, l1d%-misses, l2%-misses, llc%-references, llc%-misses%)",
         "an unknown event lists the valid ones")
tap.like(err_of(function() hcp.machine { semantics = "lax" } end), "unknown semantics 'lax' %(valid: documented, observed%)",
         "an unknown semantics lists the valid ones")
tap.like(err_of(function() hcp.machine { tick = "fast" } end), "'tick' must be an integer %(got string%)",
         "a mistyped option says what it wants")
tap.like(err_of(function() hcp.machine { quantum = 0 } end), "'quantum' = 0 is out of range", "a zero quantum is refused")
local m = hcp.machine {}
tap.like(err_of(function() m:frobnicate {} end), "hcpsim%.Machine has no member 'frobnicate'", "an unknown method is named")
tap.like(err_of(function() m:thread { body = 1 } end), "'body' must be a function %(got number%)", "a thread needs a body")
tap.like(err_of(function() m:read(0, 4) end), "m:read%(0x0, 4%): guest address not mapped", "reading unmapped memory")
tap.like(err_of(function() m:write(m:code("\xc3"), "x") end), "guest access not permitted", "writing into code")
tap.done_testing()
