-- A planted leak: opening the inventory registers a listener that keeps
-- the whole UI alive through an upvalue after it is closed.
local p = require("luainstr")
local dir = assert(arg[1], "usage: leak.lua DIR")

Game = {}
local function make_events()
  local listeners = {}
  return function(event, f)
    listeners[#listeners + 1] = {event = event, f = f}
  end
end
Game.on = make_events()

local function open_inventory()
  local ui = {title = "inventory", widgets = {}}
  for i = 1, 100 do ui.widgets[i] = {id = i, label = "slot " .. i} end
  Game.on("redraw", function() return ui.title end)   -- the leak
  local scratch = {}                                   -- garbage
  for i = 1, 50 do scratch[i] = {i} end
  return ui
end

local function snapshot(name)
  assert(p.snapshot(dir .. "/" .. name .. ".heapsnapshot", {collect = true}))
end

snapshot("a")
local ui = open_inventory()
snapshot("b")
ui.closed = true
ui = nil
snapshot("c")
