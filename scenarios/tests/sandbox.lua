-- The scenario sandbox (scenarios/README.md): no way to the host, no source
-- of nondeterminism, strict names.
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

-- Each escape must fail with a message that says what is refused.
local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  return not ok and tostring(e) or nil
end
local function refused(f, want, name)
  local e = err_of(f)
  tap.ok(e ~= nil and e:find(want, 1, true) ~= nil, name)
  if not (e and e:find(want, 1, true)) then tap.diag("got: " .. tostring(e) .. "; want: " .. want) end
end

tap.clause("SIM-RT-SANDBOX-NO-HOST")
for _, name in ipairs { "io", "os", "debug", "package", "dofile", "loadfile", "collectgarbage" } do
  tap.ok(rawget(_G, name) == nil, name .. " is absent")
  refused(function() return _G[name] end,
          "variable '" .. name .. "' is not declared (" ..
          (name == "io" and "the io library needs hcpsim run --unsafe-io)" or "not available in the sandbox)"),
          "reading " .. name .. " fails and says why")
end
refused(function() return io.open("/etc/passwd") end, "variable 'io' is not declared", "io.open is out of reach")
refused(function() return os.execute("true") end, "variable 'os' is not declared", "os.execute is out of reach")
refused(function() return debug.getregistry() end, "variable 'debug' is not declared", "debug.getregistry is out of reach")
refused(function() return package.loadlib("libc.so.6", "system") end, "variable 'package' is not declared",
        "package.loadlib is out of reach")
refused(function() return package.cpath end, "variable 'package' is not declared", "package itself is out of reach")
refused(function() return dofile("/etc/passwd") end, "variable 'dofile' is not declared", "dofile is out of reach")
refused(function() return loadfile("/etc/passwd") end, "variable 'loadfile' is not declared", "loadfile is out of reach")

tap.clause("SIM-RT-SANDBOX-REQUIRE")
for _, mod in ipairs { "os", "io", "debug", "package", "string", "ffi", "socket", "lfs", "hcpsim.nope", "hcpsim/../os",
                       "./x", "/etc/passwd", "" } do
  refused(function() return require(mod) end, "module '" .. mod .. "' not found", "require '" .. mod .. "' fails")
end
tap.is(type(require "hcpsim.kernels"), "function", "require 'hcpsim.kernels' (an hcpsim module) works")
tap.ok(require "hcpsim" == hcp, "require 'hcpsim' gives the one module")

tap.clause("SIM-RT-SANDBOX-BINARY-CHUNKS")
local bin = "\27LuaT\0\25\147\r\n\26\n\4\8\8"
local f_bin, e_bin = load(bin)
tap.ok(f_bin == nil and e_bin == "attempt to load a binary chunk (mode is 't')", "load refuses a binary chunk")
local f_b, e_b = load(bin, "chunk", "b")
tap.ok(f_b == nil and e_b == "attempt to load a binary chunk (mode is 't')", "load refuses a binary chunk in mode 'b'")
refused(function() return load(function() return nil end) end, "load: only string chunks are accepted in the sandbox",
        "load refuses a reader function")
refused(function() return string.dump(function() return 1 end) end,
        "string.dump is not available in the sandbox (binary chunks cannot be loaded)", "string.dump is refused")
refused(function() return ("").dump(print) end, "string.dump is not available in the sandbox",
        "string.dump through a string's methods is refused")
tap.is(load("return 6 * 7")(), 42, "load runs a text chunk")
tap.is(load("return x", "chunk", "t", { x = 5 })(), 5, "load honours an environment table")

tap.clause("SIM-RT-SANDBOX-GC")
-- collectgarbage is gone (no forced collections, no heap size to observe) and the
-- metatables that hold __gc (a Machine's frees the machine) cannot be reached.
refused(function() return collectgarbage("count") end, "variable 'collectgarbage' is not declared",
        "collectgarbage('count') is out of reach")
refused(function() return collectgarbage("stop") end, "variable 'collectgarbage' is not declared",
        "collectgarbage('stop') is out of reach")
local gm = hcp.machine {}
local gt = gm:thread { name = "g", body = function(t) end }
refused(function() return getmetatable(gm) end,
        "getmetatable: the metatables of hcpsim objects are not available in the sandbox", "getmetatable(machine) is refused")
refused(function() return getmetatable(gt).__gc end,
        "getmetatable: the metatables of hcpsim objects are not available in the sandbox", "getmetatable(thread) is refused")
gm:run()
tap.is(gt.state, "Terminated", "the machine still works after the refused calls")
-- Finalizers and weak tables would let output depend on when the collector runs.
refused(function() setmetatable({}, { __gc = function() end }) end,
        "setmetatable: __gc is not available in the sandbox (a finalizer runs when the garbage collector decides",
        "a __gc finalizer is refused")
refused(function() setmetatable({}, { __mode = "k" }) end,
        "setmetatable: __mode is not available in the sandbox (weak entries vanish when the garbage collector decides",
        "a weak table is refused")
tap.is(setmetatable({}, { __index = { a = 7 } }).a, 7, "other metatables work")
local ok_close, closed = pcall(function()
  local log = {}
  do local c <close> = setmetatable({}, { __close = function() log[#log + 1] = "closed" end }) end
  return log[1]
end)
tap.ok(ok_close and closed == "closed", "__close (deterministic: the end of the block) still works")

tap.clause("SIM-RT-SANDBOX-STRING-METATABLE")
refused(function() return getmetatable("") end, "getmetatable: the string metatable is not available in the sandbox",
        "getmetatable('') is refused")
refused(function() setmetatable(getmetatable("x"), { __index = function() return "pwned" end }) end,
        "getmetatable: the string metatable is not available in the sandbox",
        "setting a metatable on the string metatable is refused")
refused(function() getmetatable("").__index = {} end, "getmetatable: the string metatable is not available in the sandbox",
        "replacing the string methods is refused")
tap.is(("abc"):upper(), "ABC", "string methods still work")
tap.is(getmetatable({}), nil, "getmetatable of a plain table still works")
tap.is(getmetatable(setmetatable({}, { __metatable = "mine" })), "mine", "getmetatable honours __metatable")

tap.clause("SIM-RT-SANDBOX-RAWSET-GLOBALS")
refused(function() rawset(_G, "sneaky", 1) end,
        "rawset: assignment to undeclared global 'sneaky' (declare it in the main chunk or use local)",
        "rawset(_G, ...) of an undeclared global outside the main chunk fails")
refused(function() local ok = pcall(rawset, _G, "sneaky2", 1); return sneaky2 end, "variable 'sneaky2' is not declared",
        "rawset(_G, ...) through pcall declares nothing either")
refused(function() setmetatable(_G, nil) end, "cannot change a protected metatable",
        "setmetatable(_G, nil) cannot lift the strict-globals rule")
rawset(_G, "declared_by_rawset", 1)
tap.is(declared_by_rawset, 1, "the main chunk may declare a global with rawset")
tap.ok(pcall(function() rawset(_G, "declared_by_rawset", 2) end) and declared_by_rawset == 2,
       "rawset of a declared global works from a function")
local plain = {}
tap.ok(pcall(function() rawset(plain, "k", 3) end) and plain.k == 3, "rawset on another table works from a function")

tap.clause("SIM-RT-SANDBOX-DETERMINISTIC-RANDOM")
local first = { math.random(1 << 40), math.random(1 << 40), math.random(1 << 40) }
math.randomseed(1) -- the default scenario seed (--seed 1)
local again = { math.random(1 << 40), math.random(1 << 40), math.random(1 << 40) }
tap.ok(first[1] == again[1] and first[2] == again[2] and first[3] == again[3],
       "math.random starts from the scenario seed")
local ok_seed, err_seed = pcall(math.randomseed)
tap.ok(not ok_seed and err_seed:find("number expected, got no value", 1, true),
       "math.randomseed() without a seed (host clock) is refused")

tap.clause("SIM-RT-SANDBOX-DETERMINISTIC-ORDER")
-- Lua seeds its string hash per process, so stock pairs visits these ten keys in a different order
-- on (nearly) every run; the sandbox visits keys sorted: numbers, strings (bytes), false, true.
local greek = {}
for _, k in ipairs { "kappa", "alpha", "theta", "eta", "beta", "zeta", "iota", "eps", "gamma", "delta" } do
  greek[k] = #k
end
local seen = {}
for k, v in pairs(greek) do seen[#seen + 1] = k .. "=" .. v end
tap.is(table.concat(seen, " "), "alpha=5 beta=4 delta=5 eps=3 eta=3 gamma=5 iota=4 kappa=5 theta=5 zeta=4",
       "pairs visits string keys in byte order")
local mixed = { 10, 20, 30, [2.5] = "f", [-1] = "m", b = 1, a = 2, [true] = 3, [false] = 4, ab = 5 }
seen = {}
for k, v in pairs(mixed) do seen[#seen + 1] = tostring(k) .. "=" .. tostring(v) end
tap.is(table.concat(seen, " "), "-1=m 1=10 2=20 2.5=f 3=30 a=2 ab=5 b=1 false=4 true=3",
       "numbers by value, then strings, then false, then true")
local nums = { [2 ^ 53] = 1, [1.5] = 1, [-0.5] = 1, [math.huge] = 1, [-math.huge] = 1, [math.mininteger] = 1,
               [math.maxinteger] = 1 }
seen = {}
for k in pairs(nums) do seen[#seen + 1] = tostring(k) end
tap.is(table.concat(seen, " "),
       "-inf -9223372036854775808 -0.5 1.5 9007199254740992 9223372036854775807 inf",
       "integers and floats in one order, at the ends of both ranges")
tap.is(next(mixed), -1, "next(t) is the least key")
tap.is(select(2, next(mixed)), "m", "with its value")
tap.is(next(mixed, "a"), "ab", "next(t, k) is the least key after k")
tap.is(next(mixed, "aa"), "ab", "next(t, k) for a k not in t: the least key after it")
tap.is(next(mixed, true), nil, "next(t, k) after the last key is nil")
tap.is(next({}), nil, "next of an empty table is nil")
for k in pairs(greek) do greek[k] = nil end
tap.is(next(greek), nil, "clearing every field during pairs empties the table")
local proxy = setmetatable({}, { __pairs = function(t) return function(_, k) if not k then return 1, "one" end end, t, nil end })
seen = {}
for k, v in pairs(proxy) do seen[#seen + 1] = k .. "=" .. v end
tap.is(table.concat(seen, " "), "1=one", "a table's __pairs is honoured")
tap.like(err_of(pairs, nil), "bad argument #1 to 'pairs' %(table expected, got nil%)", "pairs(nil) is an error")
-- Objects are named by number in the order they are first named, not by host address.
local a, b = {}, {}
local na, nb = tostring(a), tostring(b)
local ia, ib = tonumber(na:match("^table: #(%d+)$")), tonumber(nb:match("^table: #(%d+)$"))
tap.ok(ia ~= nil and ib == ia + 1, "tables are named table: #N, numbered as first named (" .. na .. ", " .. nb .. ")")
tap.is(tostring(a), na, "a table keeps its name")
tap.is(string.format("%s|%s", b, a), nb .. "|" .. na, "string.format('%s') uses the same names")
tap.is(("%s"):format(a), na, "so does the method form")
tap.like(tostring(print), "^function: #%d+$", "functions are named by number")
tap.like(tostring(coroutine.create(print)), "^thread: #%d+$", "coroutines are named by number")
tap.is(tostring(setmetatable({}, { __tostring = function() return "mine" end })), "mine", "__tostring is honoured")
tap.is(tostring(setmetatable({}, { __name = "Point" })):match("^Point: #%d+$") ~= nil, true, "__name names the kind")
tap.is(string.format("%s|%s", setmetatable({}, { __name = 42 }), "x"):match("^table: #%d+|x$") ~= nil, true,
       "a __name that is not a string is ignored, and the arguments after it stay in place")
tap.like(tostring(hcp.machine {}), "^hcpsim%.Machine", "hcpsim objects keep their own names")
-- Objects that first meet as keys of one traversal are numbered in the order they were made, so
-- pairs visits them in creation order whatever their addresses (scenarios/README.md "Sandbox").
local made, byobj = {}, {}
for i = 1, 300 do made[i] = {}; byobj[made[i]] = i end
local order, inorder = {}, true
for _, i in pairs(byobj) do order[#order + 1] = i; inorder = inorder and i == #order end
tap.ok(inorder and #order == 300, "300 fresh tables as keys: pairs visits them in creation order")
local later = {}
later[made[300]] = "a"; later[made[1]] = "b"
tap.is(select(2, next(later)), "b", "numbers stay: a table numbered first stays first in another table")
local fns = {}
for i = 1, 20 do fns[function() return i end] = i end
local cos = {}
for i = 1, 20 do cos[coroutine.create(function() end)] = i end
local function visit(t)
  local seq = {}
  for _, v in pairs(t) do seq[#seq + 1] = v end
  return table.concat(seq, " ")
end
local one_to_20 = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"
tap.is(visit(fns), one_to_20, "closures as keys: creation order")
tap.is(visit(cos), one_to_20, "coroutines as keys: creation order")
local mm = hcp.machine {}
local threads = {}
for i = 1, 8 do threads[mm:thread { body = function() end }] = i end
tap.is(visit(threads), "1 2 3 4 5 6 7 8", "m:thread objects as keys: creation order")
local viaNext, k = {}, nil
repeat
  k = next(fns, k)
  if k then viaNext[#viaNext + 1] = fns[k] end
until not k
tap.is(table.concat(viaNext, " "), one_to_20, "next walks the same order")
-- Library functions are no allocation of the scenario's: when one without a number is met as a
-- key, every function reachable from the globals is numbered, breadth first, names sorted (the
-- tables of _G in name order: math before utf8; in math, abs before max). None of these three
-- was named before this point.
local lib = { [utf8.char] = "char", [math.max] = "max", [math.abs] = "abs" }
tap.is(visit(lib), "abs max char", "library functions as keys: the walk's order")

tap.like(err_of(string.format, "%p", {}),
         "bad argument #2 to '[%w.]*format' %('%%p' prints a host address, which differs from run to run%)",
         "string.format('%p') is refused")

tap.clause("SIM-RT-STRICT-GLOBALS")
declared_in_main = 1
tap.is(declared_in_main, 1, "the main chunk may declare globals")
local ok_r, err_r = pcall(function() return undeclared_name end)
tap.ok(not ok_r and err_r:find("variable 'undeclared_name' is not declared", 1, true), "reading an undeclared global fails")
local ok_w, err_w = pcall(function() new_global = 1 end)
tap.ok(not ok_w and err_w:find("assignment to undeclared global 'new_global'", 1, true),
       "writing a new global from a function fails")
local ok_c, err_c = pcall(function() return hcp.ERROR_SUCESS end)
tap.ok(not ok_c and err_c:find("hcpsim has no member 'ERROR_SUCESS'", 1, true), "a misspelt constant fails loudly")

tap.clause("SIM-RT-CONSTANTS")
tap.is(hcp.ERROR_INVALID_USER_BUFFER, 1784, "constants carry Windows values")
tap.is(hcp.STATUS_WMI_ALREADY_ENABLED, 0xC0000303, "NTSTATUS values are unsigned 32-bit")
tap.is(hcp.WrPreempted, 32, "KWAIT_REASON WrPreempted")
tap.is(hcp.WrYieldExecution, 33, "KWAIT_REASON WrYieldExecution")
tap.is(hcp.MaximumWaitReason, 40, "MaximumWaitReason")
tap.is(hcp.EVENT_TRACE_FLAG_DISPATCHER, 0x800, "EVENT_TRACE_FLAG_DISPATCHER")
tap.is(hcp.wait_reason_name(30), "WrQuantumEnd", "wait reason names")
tap.is(hcp.status_name(0xC0000005), "STATUS_ACCESS_VIOLATION", "status names")

tap.clause("SIM-RT-MACHINE-OPTIONS")
local function err_of(f)
  local ok, e = pcall(f)
  return not ok and e or nil
end
tap.like(err_of(function() hcp.machine { cpu = 1 } end),
         "hcp%.machine: unknown field 'cpu' %(did you mean 'cpus'%?%) %(valid: platform, semantics, cpus, ", "an unknown option names the valid ones")
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
