-- mixed line endings: LF, CRLF, CR, LFCR
local function f(x)
  local y = x + 1
  if y > 3 then  error("big " .. y)
  end
  return y
end
print(f(1))

print(debug.getinfo(1, "l").currentline)
print(debug.getinfo(f, "S").lastlinedefined)
local ok, e = pcall(f, 5) print(e)
f(9)
