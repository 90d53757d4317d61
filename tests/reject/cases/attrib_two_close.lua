-- reject: 5.4
-- two to-be-closed variables in one local statement
local a <close>, b <close> = nil, nil
print(a, b)
