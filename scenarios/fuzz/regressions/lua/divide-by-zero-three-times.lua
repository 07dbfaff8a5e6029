local hcp = require "hcpsim"
local m = hcp.machine {}
local div = m:code("\x31\xc9\xf7\xf1\xc3") -- xor ecx, ecx; div ecx; ret
m:thread { body = function(t)
  for i = 1, 3 do
    local r, code = t:run(div)
    assert(r == nil and code == hcp.STATUS_INTEGER_DIVIDE_BY_ZERO, "divide by zero #" .. i)
  end
end }
m:run()
