-- A function spread over many lines, failing on a later line.
local function process(data)
  local total = 0
  local count = 0

  -- first pass: sum the numbers
  for i = 1, #data do
    local item = data[i]
    if type(item) == "number" then
      total = total + item
      count = count + 1
    end
  end

  -- second pass: check the strings
  local names = {}
  for i = 1, #data do
    local item = data[i]
    if type(item) == "string" then
      names[#names + 1] = item:upper()
    end
  end

  local average
  if count > 0 then
    average = total / count
  end

  local report = {
    "total=" .. total,
    "count=" .. count,
    "average=" .. tostring(average),
    "names=" .. table.concat(names, ","),
  }

  if data.fail then
    local broken = data.missing.field   -- line 37
    return broken
  end

  return table.concat(report, "; ")
end

print(process({1, 2, "a", 3, "b"}))
print(pcall(process, {fail = true}))

local function outer()
  local function middle()
    local function inner()
      local x = {}
      -- padding
      -- padding
      -- padding
      return x.y.z                       -- line 54
    end
    local r = inner()
    return r
  end
  local r = middle()
  return r
end
print(pcall(outer))
outer()
