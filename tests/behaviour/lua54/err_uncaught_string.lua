-- Uncaught error with a string message from a nested function.
local Parser = {}
Parser.__index = Parser
function Parser.new(text) return setmetatable({text = text, pos = 1}, Parser) end
function Parser:expect(ch)
  local got = self.text:sub(self.pos, self.pos)
  if got ~= ch then
    error(("expected '%s' at %d, got '%s'"):format(ch, self.pos, got))
  end
  self.pos = self.pos + 1
end
function Parser:parse()
  self:expect("(")
  self:expect(")")
  return "ok"
end
print(Parser.new("()"):parse())
io.stdout:write("before the error\n")
io.stderr:write("stderr before the error\n")
Parser.new("(]"):parse()
