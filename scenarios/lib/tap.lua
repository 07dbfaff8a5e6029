-- hcpsim.tap: TAP version 13 from scenarios (design/CONTRACT.md).
-- plan, ok, is, isnt, like, diag, skip, todo, clause, done_testing.
-- A failure prints YAML diagnostics (got, expected, clause).  A test that
-- passes inside tap.todo is printed as a plain failure, so a fixed gap fails
-- the run until its todo is removed (TAP itself would let it pass).
local M = {}

local count, failed, planned, done = 0, 0, nil, false
local header, clause, todo_reason = false, nil, nil

local function emit(s) print(s) end

local function start()
  if not header then
    header = true
    emit("TAP version 13")
  end
end

local function show(v)
  if math.type(v) == "integer" then
    if v >= 10 or v < 0 then return string.format("%d (0x%X)", v, v) end
    return tostring(v)
  elseif type(v) == "string" then
    return string.format("%q", v)
  end
  return tostring(v)
end

local function yaml_str(s)
  return "'" .. tostring(s):gsub("'", "''"):gsub("\n", " ") .. "'"
end

local function report(pass, name, diag)
  start()
  count = count + 1
  name = name and tostring(name):gsub("#", "\\#") or ""
  if clause then name = name .. " [" .. clause .. "]" end
  local line
  if todo_reason then
    if pass then
      failed = failed + 1
      line = string.format("not ok %d - %s (passed inside todo: %s; remove the todo)", count, name,
                           todo_reason:gsub("#", "\\#"))
    else
      line = string.format("not ok %d - %s # TODO %s", count, name, todo_reason)
    end
  else
    if not pass then failed = failed + 1 end
    line = string.format("%s %d - %s", pass and "ok" or "not ok", count, name)
  end
  emit(line)
  if not pass and diag then
    emit("  ---")
    for _, kv in ipairs(diag) do emit("  " .. kv[1] .. ": " .. yaml_str(kv[2])) end
    if clause then emit("  clause: " .. clause) end
    emit("  ...")
  end
  return pass
end

function M.plan(n)
  if planned then error("tap.plan: plan already set", 2) end
  if math.type(n) ~= "integer" or n < 0 then error("tap.plan: expected a non-negative integer", 2) end
  start()
  planned = n
  emit("1.." .. n)
end

function M.ok(cond, name)
  return report(cond and true or false, name, { { "got", tostring(cond) }, { "expected", "a true value" } })
end

function M.is(got, want, name)
  return report(got == want, name, { { "got", show(got) }, { "expected", show(want) } })
end

function M.isnt(got, unwanted, name)
  return report(got ~= unwanted, name, { { "got", show(got) }, { "expected", "anything else" } })
end

function M.like(got, pattern, name)
  local pass = type(got) == "string" and string.find(got, pattern) ~= nil
  return report(pass, name, { { "got", show(got) }, { "expected", "a match for " .. show(pattern) } })
end

function M.diag(...)
  start()
  local parts = {}
  for i = 1, select("#", ...) do parts[#parts + 1] = tostring((select(i, ...))) end
  for line in (table.concat(parts, " ") .. "\n"):gmatch("(.-)\n") do emit("# " .. line) end
end

function M.skip(reason, n)
  n = n or 1
  start()
  for _ = 1, n do
    count = count + 1
    emit(string.format("ok %d # SKIP %s", count, reason or ""))
  end
end

function M.todo(reason, fn)
  if type(fn) ~= "function" then error("tap.todo: expected (reason, function)", 2) end
  local saved = todo_reason
  todo_reason = tostring(reason)
  local ok, err = pcall(fn)
  todo_reason = saved
  if not ok then error(err, 0) end
end

function M.clause(id)
  if id ~= nil and (type(id) ~= "string" or not id:match("^[A-Z][A-Z0-9%-]+$")) then
    error("tap.clause: clause ids look like HCP-READ-SIZE-EXACT", 2)
  end
  clause = id
end

function M.done_testing()
  if done then return end
  done = true
  if not planned then
    start()
    emit("1.." .. count)
    planned = count
  end
end

function M.failures() return failed end

-- Called by the runtime after the scenario: true when the run passed.
function M._finish()
  if not header then return true end
  if not planned then
    emit("# Tests were run but no plan was declared and done_testing() was not seen.")
    return false
  end
  if planned ~= count then
    emit(string.format("# Looks like you planned %d tests but ran %d.", planned, count))
    return false
  end
  if failed > 0 then
    emit(string.format("# Looks like you failed %d test%s of %d.", failed, failed == 1 and "" or "s", count))
    return false
  end
  return true
end

return M
