-- heap_gen.lua -- write a synthetic .heapsnapshot of about N nodes, shaped
-- like a game's heap (docs/heap.md's format), for bench/heap.sh:
--
--   lua5.4 bench/heap_gen.lua N OUT [LEAK]
--
-- _G.world.entities[i] are tables, each with a pos table, a name string
-- and an update closure whose upvalue `self` is the entity (a cycle)
-- sharing one prototype; _G.cache is a weak table over every tenth
-- entity; _G.list is a linked list N/10 deep (a deep dominator chain).
-- With LEAK (a count), the same heap plus LEAK more entities under
-- _G.leak[i], with the same ids for everything else: `luaheap diff`
-- finds them.  Ids are addresses-like (8-byte aligned, even), the same
-- for the same object in both files.

local N = tonumber(arg[1]) or error("usage: heap_gen.lua N OUT [LEAK]")
local out = assert(io.open(arg[2] or error("usage: heap_gen.lua N OUT [LEAK]"), "wb"))
local leak = tonumber(arg[3] or "0")

local strings, sindex = {}, {}
local function S(s)
  local i = sindex[s]
  if not i then
    i = #strings
    strings[i + 1] = s
    sindex[s] = i
  end
  return i
end

-- node types and edge types: the fixed meta
local T_STRING, T_OBJECT, T_CODE, T_CLOSURE, T_SYNTHETIC = 2, 3, 4, 5, 9
local E_CONTEXT, E_ELEMENT, E_PROPERTY, E_INTERNAL, E_WEAK = 0, 1, 2, 3, 6

local nodes = {}     -- node number -> {type, name, id, self, edges = {...}}
local function node(t, name, id, self)
  nodes[#nodes + 1] = {t, S(name), id, self, {}}
  return #nodes - 1
end
local function edge(from, t, name, to)
  local e = nodes[from + 1][5]
  e[#e + 1] = {t, t == E_ELEMENT and name or S(name), to}
end

local nent = N // 4 - N // 40
local ndeep = N // 10
local root = node(T_SYNTHETIC, "(GC roots)", 1, 0)
local reg = node(T_SYNTHETIC, "(registry)", 3, 0)
edge(root, E_INTERNAL, "(registry)", reg)
local G = node(T_OBJECT, "table", 0x10000000, 1024)
edge(reg, E_PROPERTY, "_G", G)
local world = node(T_OBJECT, "table", 0x10000040, 56)
edge(G, E_PROPERTY, "world", world)
local ents = node(T_OBJECT, "table", 0x10000080, 56 + 16 * nent)
edge(world, E_PROPERTY, "entities", ents)
local cache = node(T_OBJECT, "table", 0x100000c0, 56 + 32 * (nent // 10))
edge(G, E_PROPERTY, "cache", cache)
local proto = node(T_CODE, "prototype update (game.lua:40)", 0x10000100, 420)

local nextid = 0x20000000
local function entity(holder, i)
  local e = node(T_OBJECT, "table", nextid, 120)
  local pos = node(T_OBJECT, "table", nextid + 0x80, 88)
  local name = node(T_STRING, "enemy " .. i, nextid + 0x100, 24 + #("enemy " .. i) + 1)
  local upd = node(T_CLOSURE, "function update (game.lua:40)", nextid + 0x140, 48)
  nextid = nextid + 0x200
  edge(holder, E_ELEMENT, i, e)
  edge(e, E_PROPERTY, "pos", pos)
  edge(e, E_PROPERTY, "name", name)
  edge(e, E_PROPERTY, "update", upd)
  edge(upd, E_CONTEXT, "self", e)
  edge(upd, E_INTERNAL, "(prototype)", proto)
  return e
end
for i = 1, nent do
  local e = entity(ents, i)
  if i % 10 == 0 then edge(cache, E_WEAK, "[" .. i // 10 .. "]", e) end
end
edge(ents, E_INTERNAL, "(prototype)", proto)   -- (so the prototype is reached)

local prev = G
for i = 1, ndeep do
  local x = node(T_OBJECT, "table", 0x60000000 + 64 * i, 56)
  edge(prev, E_PROPERTY, i == 1 and "list" or "next", x)
  prev = x
end

if leak > 0 then
  local l = node(T_OBJECT, "table", 0x70000000, 56 + 16 * leak)
  edge(G, E_PROPERTY, "leak", l)
  nextid = 0x78000000
  for i = 1, leak do entity(l, i) end
end

-- write
local w = {}
local function flush() out:write(table.concat(w)); w = {} end
local nedges = 0
for _, n in ipairs(nodes) do nedges = nedges + #n[5] end
w[#w + 1] = [[{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"],"string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],"trace_node_fields":["id","function_info_index","count","size","children"],"sample_fields":["timestamp_us","last_assigned_id"],"location_fields":["object_index","script_id","line","column"]},]]
local total = 0
for _, n in ipairs(nodes) do total = total + n[4] end
w[#w + 1] = string.format('"node_count":%d,"edge_count":%d,"trace_function_count":0,"lua":{"version":"5.4","exact":true,"collected":true,"gc_count_bytes":%d,"taken_ns":0}},\n"nodes":[', #nodes, nedges, total)
for i, n in ipairs(nodes) do
  w[#w + 1] = string.format('%s%d,%d,%d,%d,%d,0,0', i == 1 and "" or ",\n", n[1], n[2], n[3], n[4], #n[5])
  if #w > 4096 then flush() end
end
w[#w + 1] = '],\n"edges":['
local first = true
for _, n in ipairs(nodes) do
  for _, e in ipairs(n[5]) do
    w[#w + 1] = string.format('%s%d,%d,%d', first and "" or ",\n", e[1], e[2], e[3] * 7)
    first = false
    if #w > 4096 then flush() end
  end
end
w[#w + 1] = '],\n"trace_function_infos":[],"trace_tree":[],"samples":[],"locations":[],\n"strings":['
for i, s in ipairs(strings) do
  w[#w + 1] = (i == 1 and "" or ",\n") .. string.format("%q", s)
  if #w > 4096 then flush() end
end
w[#w + 1] = "]}\n"
flush()
out:close()
io.stderr:write(string.format("heap_gen: %d nodes, %d edges, %d bytes of objects\n",
                              #nodes, nedges, total))
