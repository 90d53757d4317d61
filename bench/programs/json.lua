-- json.lua -- JSON-like encoding and decoding: build documents of nested
-- tables, encode them with string building (buffer + table.concat, string
-- escapes, number formatting), decode them with a recursive-descent parser
-- (string.find/sub/byte), and compare the round trip.
-- Usage: json.lua [DOCUMENTS]
local DOCUMENTS = tonumber(arg and arg[1]) or 800

-- ---- encoding ------------------------------------------------------------

local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b',
                  ['\f'] = '\\f', ['\n'] = '\\n', ['\r'] = '\\r',
                  ['\t'] = '\\t' }

local function escape_char(c)
  return escapes[c] or string.format("\\u%04x", c:byte())
end

local function is_array(t)
  local n = #t
  if n == 0 then return next(t) == nil end
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

local encode_value

local function encode_string(s, buf)
  buf[#buf + 1] = '"'
  buf[#buf + 1] = (s:gsub('[%c"\\]', escape_char))
  buf[#buf + 1] = '"'
end

local function encode_table(t, buf)
  if is_array(t) then
    buf[#buf + 1] = "["
    for i = 1, #t do
      if i > 1 then buf[#buf + 1] = "," end
      encode_value(t[i], buf)
    end
    buf[#buf + 1] = "]"
    return
  end
  -- keys sorted: the output must not depend on the hash seed
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  buf[#buf + 1] = "{"
  for i, k in ipairs(keys) do
    if i > 1 then buf[#buf + 1] = "," end
    encode_string(k, buf)
    buf[#buf + 1] = ":"
    encode_value(t[k], buf)
  end
  buf[#buf + 1] = "}"
end

function encode_value(v, buf)
  local ty = type(v)
  if ty == "string" then encode_string(v, buf)
  elseif ty == "number" then
    if math.type(v) == "integer" then buf[#buf + 1] = tostring(v)
    else buf[#buf + 1] = string.format("%.14g", v) end
  elseif ty == "boolean" then buf[#buf + 1] = v and "true" or "false"
  elseif ty == "table" then encode_table(v, buf)
  else buf[#buf + 1] = "null" end
end

local function encode(v)
  local buf = {}
  encode_value(v, buf)
  return table.concat(buf)
end

-- ---- decoding ------------------------------------------------------------

local Decoder = {}
Decoder.__index = Decoder

local unescapes = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t",
                    ['"'] = '"', ["\\"] = "\\", ["/"] = "/" }

function Decoder:skip()
  self.pos = self.text:find("[^ \t\r\n]", self.pos) or #self.text + 1
end

function Decoder:error(what)
  error(string.format("json: %s at %d", what, self.pos))
end

function Decoder:string()
  local text, pos = self.text, self.pos + 1
  local parts = {}
  while true do
    local s, e = text:find('["\\]', pos)
    if s == nil then self:error("unfinished string") end
    parts[#parts + 1] = text:sub(pos, s - 1)
    if text:byte(s) == 34 then
      self.pos = e + 1
      return table.concat(parts)
    end
    local c = text:sub(s + 1, s + 1)
    if c == "u" then
      parts[#parts + 1] = utf8.char(tonumber(text:sub(s + 2, s + 5), 16))
      pos = s + 6
    else
      parts[#parts + 1] = unescapes[c] or self:error("bad escape")
      pos = s + 2
    end
  end
end

function Decoder:number()
  local s, e = self.text:find("^-?%d+%.?%d*[eE]?[-+]?%d*", self.pos)
  if s == nil then self:error("bad number") end
  self.pos = e + 1
  return math.tointeger(tonumber(self.text:sub(s, e))) or tonumber(self.text:sub(s, e))
end

function Decoder:literal(word, value)
  if self.text:sub(self.pos, self.pos + #word - 1) ~= word then self:error("bad literal") end
  self.pos = self.pos + #word
  return value
end

function Decoder:array()
  local t = {}
  self.pos = self.pos + 1
  self:skip()
  if self.text:byte(self.pos) == 93 then self.pos = self.pos + 1; return t end
  while true do
    t[#t + 1] = self:value()
    self:skip()
    local c = self.text:byte(self.pos)
    self.pos = self.pos + 1
    if c == 93 then return t end
    if c ~= 44 then self:error("expected , or ]") end
  end
end

function Decoder:object()
  local t = {}
  self.pos = self.pos + 1
  self:skip()
  if self.text:byte(self.pos) == 125 then self.pos = self.pos + 1; return t end
  while true do
    self:skip()
    local k = self:string()
    self:skip()
    if self.text:byte(self.pos) ~= 58 then self:error("expected :") end
    self.pos = self.pos + 1
    t[k] = self:value()
    self:skip()
    local c = self.text:byte(self.pos)
    self.pos = self.pos + 1
    if c == 125 then return t end
    if c ~= 44 then self:error("expected , or }") end
  end
end

function Decoder:value()
  self:skip()
  local c = self.text:byte(self.pos)
  if c == 123 then return self:object()
  elseif c == 91 then return self:array()
  elseif c == 34 then return self:string()
  elseif c == 116 then return self:literal("true", true)
  elseif c == 102 then return self:literal("false", false)
  elseif c == 110 then return self:literal("null", nil)
  end
  return self:number()
end

local function decode(text)
  local d = setmetatable({ text = text, pos = 1 }, Decoder)
  return d:value()
end

-- ---- documents -----------------------------------------------------------

local seed = 7
local function rand(n)
  seed = (seed * 16807) % 2147483647
  return seed % n
end

local words = { "alpha", "beta", "gamma", "delta", "tab\there", "quote\"d",
                "line\nbreak", "back\\slash", "ünïcødé", "ctrl\1char" }

local function make_doc(depth)
  local r = rand(10)
  if depth == 0 or r < 3 then
    local k = rand(5)
    if k == 0 then return rand(100000) - 50000
    elseif k == 1 then return rand(1000000) / 1024
    elseif k == 2 then return words[rand(#words) + 1] .. rand(100)
    elseif k == 3 then return rand(2) == 0
    else return words[rand(#words) + 1] end
  elseif r < 6 then
    local t = {}
    for i = 1, rand(6) + 1 do t[i] = make_doc(depth - 1) end
    return t
  else
    local t = {}
    for _ = 1, rand(6) + 1 do t[words[rand(#words) + 1] .. rand(20)] = make_doc(depth - 1) end
    return t
  end
end

local total_len, checksum = 0, 0
local tick = bench_tick  -- bench_host frames mode: a frame mark now and then
for _ = 1, DOCUMENTS do
  if tick then tick() end
  local doc = make_doc(6)
  local text = encode(doc)
  local again = encode(decode(text))
  if again ~= text then error("json: round trip differs") end
  total_len = total_len + #text
  for i = 1, #text, 7 do checksum = (checksum * 31 + text:byte(i)) % 1000000007 end
end
print(string.format("checksum %d %d", total_len, checksum))
