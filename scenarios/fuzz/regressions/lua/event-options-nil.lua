local hcp = require "hcpsim"
local m = hcp.machine {}
print(pcall(m.event, m, nil))
print(pcall(m.mutex, m, nil, 1))
print(pcall(m.semaphore, m, nil, {}))
