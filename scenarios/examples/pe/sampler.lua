-- sampler.lua: runs sampler.c's image (arg[1]: sampler64.exe or sampler32.exe, beside this file)
-- on a machine whose numbers can be derived by hand: the unit cost table (every instruction 1
-- cycle, API calls 0), 1 MHz (Sleep(1) = 1000 cycles, a tick = 15625 cycles), PMC0 instructions,
-- PMC1 branches, configured as elements 0 and 1 as a driver would before the program starts.
-- scenarios/tests/pe_examples.sh states the output.
local hcp = require "hcpsim"
local exe = arg[1] or "sampler64.exe"
local m = hcp.machine { platform = exe:find "32" and "win7-x86" or "win10-x64", cost = "unit", frequency = 1000000,
                        pmc = { "instructions", "branches" } }
m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 }, { Type = hcp.PMCCounter, Index = 1 } }
local args = {}
for i = 2, #arg do args[#args + 1] = arg[i] end
local p = m:process { path = exe, args = args }
m:run()
print("exit " .. p.exit_code)
