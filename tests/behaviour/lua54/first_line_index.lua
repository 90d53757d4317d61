local t = nil; print(t.x) -- fails on line 1
