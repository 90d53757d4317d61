local function inner() error("script failed") end
inner()
