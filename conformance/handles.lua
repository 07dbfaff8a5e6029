-- The handle table (api/README.md "Handles"): values encode (gen << 24) | ((slot + 1) << 2);
-- a closed slot is reused most-recently-freed first with its generation bumped (1..255, then 1
-- again); at most max_handles handles are open, and a creation past it fails as Windows' object
-- manager does when its table is full: NULL and ERROR_NO_SYSTEM_RESOURCES (1450).  Every value
-- below is derived from that rule by hand; the machine creates no handle but each m:thread's own
-- (slot 0 for the first thread).
local hcp = require "hcpsim"
local tap = require "hcpsim.tap"

local function handle(slot, gen) return (gen << 24) | ((slot + 1) << 2) end
local Q = hcp.THREAD_QUERY_INFORMATION

local m = hcp.machine {}
local w = m:thread { name = "w", body = function(t)
  tap.clause("SIMDEF-HANDLE-ENCODING")
  tap.is(t.handle, handle(0, 1), "the thread's own handle: slot 0, generation 1 = 0x1000004")
  local h1 = t:OpenThread(Q, false, t.id)
  local h2 = t:OpenThread(Q, false, t.id)
  tap.is(h1, handle(1, 1), "OpenThread: the next new slot, 1 (0x1000008)")
  tap.is(h2, handle(2, 1), "then slot 2 (0x100000C)")

  tap.clause("SIMDEF-HANDLE-REUSE-ORDER")
  tap.ok(t:CloseHandle(h1) and t:CloseHandle(h2), "both close")
  tap.is(t:OpenThread(Q, false, t.id), handle(2, 2), "a new handle takes the slot closed last (2), generation 2")
  tap.is(t:OpenThread(Q, false, t.id), handle(1, 2), "then the one closed before it (1), generation 2")
  tap.is(t:OpenThread(Q, false, t.id), handle(3, 1), "no free slot left: a new slot, 3")

  tap.clause("SIMDEF-HANDLE-STALE")
  t:SetLastError(0)
  tap.is(t:CloseHandle(h1), false, "the closed handle 0x1000008 does not reach slot 1's new object")
  tap.is(t:GetLastError(), hcp.ERROR_INVALID_HANDLE, "ERROR_INVALID_HANDLE")
  local rc, enabled = t:QueryThreadProfiling(h2)
  tap.is(rc, hcp.ERROR_INVALID_HANDLE, "nor does 0x100000C reach slot 2's: QueryThreadProfiling gives 6")

  tap.clause("SIMDEF-HANDLE-GENERATION-WRAP")
  -- slot 3 holds generation 1; each close and reopen moves it on by one, 255 of them back to 1
  local h = handle(3, 1)
  local seen2 = false
  for k = 1, 255 do
    t:CloseHandle(h)
    h = t:OpenThread(Q, false, t.id)
    if k == 1 then seen2 = h == handle(3, 2) end
    if k == 254 then tap.is(h, handle(3, 255), "254 reopenings: generation 255") end
  end
  tap.ok(seen2, "one reopening: generation 2")
  tap.is(h, handle(3, 1), "the 255th: generation 1 again (0 is never used)")
end }

-- max_handles = 4: the thread's own handle and three OpenThread handles fill the table.
local m2 = hcp.machine { max_handles = 4 }
m2:thread { name = "full", body = function(t)
  tap.clause("SIMDEF-HANDLE-TABLE-FULL")
  local hs = {}
  for i = 1, 3 do hs[i] = t:OpenThread(Q, false, t.id) end
  tap.is(hs[3], handle(3, 1), "three OpenThread handles fit beside the thread's own")
  t:SetLastError(0)
  local h, err = t:OpenThread(Q, false, t.id)
  tap.is(h, nil, "the fifth handle: OpenThread returns NULL")
  tap.is(err, hcp.ERROR_NO_SYSTEM_RESOURCES, "with ERROR_NO_SYSTEM_RESOURCES (1450)")
  tap.is(t:GetLastError(), 1450, "as the thread's last error")
  tap.ok(t:CloseHandle(hs[2]), "closing one")
  tap.is(t:OpenThread(Q, false, t.id), handle(2, 2), "makes room: its slot, generation 2")
  tap.is(select(2, t:OpenThread(Q, false, t.id)), 1450, "and the table is full again")
  local ok, e = pcall(function() return m2:event {} end)
  tap.ok(not ok and e:find("m:event: ERROR_NO_SYSTEM_RESOURCES: the handle table is full (4 handles open; " ..
                           "machine option max_handles, default 1048576)", 1, true),
         "m:event on a full table raises, naming the option")
end }

m:run()
m2:run()
tap.done_testing()
