-- wrk script: each request asks for one of 100 paths spread evenly over the stubs
-- (/items/0.json … /items/<STUBS-1>.json), in turn.
local stubs = tonumber(os.getenv("STUBS") or "1")
local paths = {}
for k = 0, 99 do
  paths[#paths + 1] = string.format("/items/%d.json", math.floor(k * stubs / 100))
end
local next = 0

request = function()
  next = next % #paths + 1
  return wrk.format("GET", paths[next])
end
