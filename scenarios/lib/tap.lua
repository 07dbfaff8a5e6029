-- hcpsim.tap: TAP version 13 from scenarios (scenarios/API.md "TAP").
-- plan, ok, is, isnt, like, diag, skip, todo, clause, done_testing.
-- A failure prints YAML diagnostics (got, expected, clause).  A test that
-- passes inside tap.todo is printed as a plain failure, so a fixed gap fails
-- the run until its todo is removed (TAP itself would let it pass).
-- Clauses (conformance/README.md): tap.clause(ID, ...) names the clauses of
-- the catalogue (conformance/clauses.tsv) that the following tests check;
-- each test line then ends its description with " [ID,...]" before any
-- directive.  An id that is not in the catalogue is an error.
local M = {}
local private = select(2, ...) -- functions the runtime gives embedded modules only

local count, failed, planned, done = 0, 0, nil, false
local header, clause, todo_reason = false, nil, nil
local catalogue, catalogue_path

local tap_line = private and private.tap_line -- the --report keeps the plan and test lines
local function emit(s)
  print(s)
  if tap_line then tap_line(s) end
end

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

-- A test's description: '#' escaped (it starts a directive), the clause tag last.
local function describe(name)
  name = name and tostring(name):gsub("\n", " "):gsub("#", "\\#") or ""
  if clause then name = (name == "" and "" or name .. " ") .. "[" .. clause .. "]" end
  return name
end

local function report(pass, name, diag)
  start()
  count = count + 1
  local line
  if todo_reason then
    if pass then
      failed = failed + 1
      line = string.format("not ok %d - %s", count,
                           describe(tostring(name or "") .. " (todo passed: remove the todo '" .. todo_reason .. "')"))
    else
      line = string.format("not ok %d - %s # TODO %s", count, describe(name), todo_reason)
    end
  else
    if not pass then failed = failed + 1 end
    line = string.format("%s %d - %s", pass and "ok" or "not ok", count, describe(name))
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

-- tap.skip(reason [, n]) or tap.skip(reason, name) or tap.skip(reason, {name, ...}):
-- n tests (default 1), or one per name, that are skipped for reason.
function M.skip(reason, what)
  local names
  if type(what) == "string" then
    names = { what }
  elseif type(what) == "table" then
    names = what
  elseif what == nil or math.type(what) == "integer" then
    names = {}
    for i = 1, what or 1 do names[i] = "skipped" end
  else
    error("tap.skip: expected (reason [, count | name | {names}])", 2)
  end
  start()
  reason = tostring(reason or ""):gsub("\n", " ")
  for _, name in ipairs(names) do
    count = count + 1
    emit(string.format("ok %d - %s # SKIP %s", count, describe(name), reason))
  end
end

-- tap.todo(reason, fn): the tests fn runs are known gaps (TODO); one that passes fails.
function M.todo(reason, fn)
  if type(fn) ~= "function" then error("tap.todo: expected (reason, function)", 2) end
  local saved = todo_reason
  todo_reason = tostring(reason):gsub("\n", " ")
  local ok, err = pcall(fn)
  todo_reason = saved
  if not ok then error(err, 0) end
end

local function valid_id(id)
  return type(id) == "string" and id:match("^[A-Z][A-Z0-9%-]*$") ~= nil and id:find("-", 1, true) ~= nil
         and not id:find("--", 1, true) and id:sub(-1) ~= "-"
end

local function check_ids(ids, level)
  if not catalogue then
    local load = private and private.clause_catalogue
    if not load then error("tap.clause: the clause catalogue is not available", level + 1) end
    local set, path = load()
    if not set then error("tap.clause: " .. path, level + 1) end
    catalogue, catalogue_path = set, path
  end
  for _, id in ipairs(ids) do
    if not valid_id(id) then
      error("tap.clause: " .. show(id) .. " is not a clause id (they look like HCP-READ-SIZE-EXACT)", level + 1)
    end
    if not catalogue[id] then
      error("tap.clause: unknown clause " .. id .. " (not in " .. catalogue_path .. "; add a row there)", level + 1)
    end
  end
end

-- tap.clause(ID [, ID2, ...]): the following tests check these clauses, until the
-- next tap.clause; tap.clause() clears.  tap.clause(ID [, ...], fn): only the
-- tests fn runs, then the previous clauses apply again.
function M.clause(...)
  local n = select("#", ...)
  local fn = n > 0 and select(n, ...) or nil
  if type(fn) == "function" then n = n - 1 else fn = nil end
  local ids = {}
  for i = 1, n do
    local id = select(i, ...)
    if id ~= nil or n > 1 then ids[#ids + 1] = id end
  end
  if #ids == 0 and fn then error("tap.clause: expected clause ids before the function", 2) end
  check_ids(ids, 2)
  local new = #ids > 0 and table.concat(ids, ",") or nil
  if not fn then
    clause = new
    return
  end
  local saved = clause
  clause = new
  local ok, err = pcall(fn)
  clause = saved
  if not ok then error(err, 0) end
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
