local hcp = require "hcpsim"
local th
setmetatable({}, {__gc = function() print(th.id, th.state) end})
local m = hcp.machine{}
th = m:thread{body = function(t) end}
