-- coroutine_pipeline.lua -- a text-processing pipeline of coroutines: a
-- generator of log lines, a tokenizer, a filter and a word counter, each
-- stage a coroutine pulling from the one before (coroutine.wrap for some,
-- coroutine.create/resume for others), so every item crosses several
-- yields and resumes.
-- Usage: coroutine_pipeline.lua [LINES]
local LINES = tonumber(arg and arg[1]) or 300000

local verbs = { "GET", "POST", "PUT", "DELETE" }
local paths = { "/", "/index.html", "/api/users", "/api/items", "/login",
                "/static/app.js", "/static/style.css", "/health" }

-- Stage 1: produce log lines.
local function generator(n)
  return coroutine.wrap(function()
    local seed = 12345
    for i = 1, n do
      seed = (seed * 1103515245 + 12345) % 2147483648
      local line = string.format("%d %s %s %d %d", i,
        verbs[seed % #verbs + 1], paths[(seed // 7) % #paths + 1],
        (seed // 64) % 5 == 0 and 404 or 200, (seed // 3) % 5000)
      coroutine.yield(line)
    end
  end)
end

-- Stage 2: split each line into fields; yields a record table.
local function tokenizer(source)
  local co = coroutine.create(function()
    for line in source do
      local f = {}
      for word in line:gmatch("%S+") do f[#f + 1] = word end
      coroutine.yield({ id = tonumber(f[1]), verb = f[2], path = f[3],
                        status = tonumber(f[4]), bytes = tonumber(f[5]) })
    end
  end)
  return function()
    local ok, rec = coroutine.resume(co)
    if not ok then error(rec) end
    return rec
  end
end

-- Stage 3: keep the requests that matter.
local function filter(source, keep)
  return coroutine.wrap(function()
    for rec in source do
      if keep(rec) then coroutine.yield(rec) end
    end
  end)
end

-- Stage 4: split paths into segments, one yield per segment.
local function segments(source)
  return coroutine.wrap(function()
    for rec in source do
      for seg in rec.path:gmatch("[^/]+") do coroutine.yield(seg, rec) end
      if rec.path == "/" then coroutine.yield("<root>", rec) end
    end
  end)
end

-- Sink: count segments and bytes per status.
local counts, bytes = {}, { [200] = 0, [404] = 0 }
local n = 0
local pipeline = segments(filter(tokenizer(generator(LINES)),
  function(rec) return rec.verb ~= "DELETE" and rec.bytes > 100 end))
local tick = bench_tick  -- bench_host frames mode: a frame mark now and then
for seg, rec in pipeline do
  if tick and n % 64 == 0 then tick() end
  counts[seg] = (counts[seg] or 0) + 1
  bytes[rec.status] = bytes[rec.status] + rec.bytes
  n = n + 1
end

local keys = {}
for k in pairs(counts) do keys[#keys + 1] = k end
table.sort(keys)
local h = 0
for _, k in ipairs(keys) do
  for i = 1, #k do h = (h * 31 + k:byte(i)) % 1000000007 end
  h = (h * 31 + counts[k]) % 1000000007
end
print(string.format("checksum %d %d %d %d", n, bytes[200], bytes[404], h))
