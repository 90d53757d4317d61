// Count the calls of each function of a chunk run in wasmoon (Lua 5.4 in
// WebAssembly), with a probe written in Lua.  Next to build-js/luainstr.js,
// with `npm install wasmoon`: node example.js
const { LuaFactory } = require("wasmoon");
const luainstr = require("./luainstr.js");

const source = `local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end
local t = {}
function t.greet(name) return "hello " .. name end
print(fib(10), t.greet("wasm"))
`;

// The probe factory, found by instrumented code as ("").__luainstr: it gets
// the chunk's descriptor ("LI1\0chunkname\0count\0" then "name\0line\0
// lastline\0" per function id) and returns the probe P.  P(id) enters
// function id; P() and P(0, ...) leave the function that calls them, the
// latter returning `...`.
const probe = `
calls = {}
string.__luainstr = function (descriptor)
  local f = {}
  for field in descriptor:gmatch("([^\\0]*)\\0") do f[#f + 1] = field end
  local names = {}
  for id = 1, tonumber(f[3]) do
    names[id] = f[3 * id + 1] .. " (" .. f[2] .. ":" .. f[3 * id + 2] .. ")"
  end
  return function (id, ...)
    if id ~= nil and id > 0 then calls[names[id]] = (calls[names[id]] or 0) + 1 end
    return ...
  end
end
`;

(async () => {
  await luainstr.ready;
  const lua = await new LuaFactory().createEngine();
  try {
    await lua.doString(probe);
    lua.global.set("code", luainstr.instrument(source, "@fib.lua", { lua: "5.4" }));
    await lua.doString('assert(load(code, "@fib.lua"))()');
    const calls = lua.global.get("calls");
    for (const name of Object.keys(calls).sort()) console.log(calls[name], name);
  } finally {
    lua.global.close();
  }
})();
