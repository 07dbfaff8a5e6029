local hcp = require "hcpsim"
local m = hcp.machine {}
local far = m:code("\x48\xff\xd9\xc3") -- call far rcx (FF /3 with a register operand): #UD
m:thread { body = function(t)
  local r, code = t:run(far)
  assert(r == nil and code == hcp.STATUS_ILLEGAL_INSTRUCTION)
end }
m:run()
