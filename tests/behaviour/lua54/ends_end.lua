local function f()
  error("last token is end")
end
print(pcall(f))
f() end_marker = nil
local function g() end