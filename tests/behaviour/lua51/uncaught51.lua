-- Lua 5.1 / LuaJIT: an uncaught error with a traceback.
local Parser = {}
Parser.__index = Parser
function Parser.new(s) return setmetatable({s = s, i = 1}, Parser) end
function Parser:expect(c)
  if self.s:sub(self.i, self.i) ~= c then
    error("expected " .. c .. " at " .. self.i)
  end
  self.i = self.i + 1
end
function Parser:parse() self:expect("(") self:expect(")") return "ok" end
print(Parser.new("()"):parse())
io.stderr:write("stderr line\n")
Parser.new("(]"):parse()
