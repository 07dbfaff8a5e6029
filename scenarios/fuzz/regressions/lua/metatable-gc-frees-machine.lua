local hcp = require "hcpsim"
local m = hcp.machine{}
local th = m:thread{body = function(t) end}
getmetatable(m).__gc(m)
print(th.id, th:counters())
