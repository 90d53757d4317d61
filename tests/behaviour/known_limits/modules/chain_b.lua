local B = {}
function B.run(x) return "b" .. tostring(x) end
function B.fail(x)
  local t = nil
  return t[x]
end
return B
