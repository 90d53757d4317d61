// wasmoon_run.js -- run a Lua program in wasmoon (Lua 5.4 in WebAssembly)
// the way `cd DIR && lua5.4 P.lua ARGS < /dev/null` runs it, and give back
// its stdout, stderr (bytes) and exit status.
//
// Each run gets a fresh wasmoon module (its own memory and file system):
// os.exit ends a run by throwing emscripten's ExitStatus out of the VM,
// which leaves that module unusable.  The files are written into the
// module's file system under /run, which becomes the current directory, so
// `require`, `dofile` and `loadfile` find the modules next to the program.
// What lua.c does around the script is done by a small Lua driver: the
// `arg` table, loadfile (chunk name "@P.lua", a `#` first line and a BOM
// skipped), the script's arguments as `...`, an uncaught error as
// "lua: MESSAGE" + traceback on stderr with status 1 (lua.c's msghandler:
// __tostring, "(error object is a T value)"), and lua_close at the end, so
// pending __gc and the state's to-be-closed work run as in lua5.4.
// The driver's own frames show in tracebacks the same way for every
// program and its instrumented copy.
"use strict";
const { LuaFactory } = require("wasmoon");

// A Lua string literal holding the bytes of a JS string as UTF-8.
function luaString(s) {
  return '"' + Array.from(Buffer.from(s, "utf8"), (b) => "\\" + b).join("") + '"';
}

function driver(name, args, setup) {
  // The driver keeps what it needs in locals: a program may clear _G.
  return `
local io, string, debug, type, getmetatable, pcall, tostring, loadfile,
  xpcall, table = io, string, debug, type, getmetatable, pcall, tostring,
  loadfile, xpcall, table
local name, args = ${luaString(name)}, {${args.map(luaString).join(",")}}
package.path, package.cpath = "./?.lua", ""
arg = { [-1] = "lua5.4", [0] = name }
for i, a in ipairs(args) do arg[i] = a end
${setup || ""}
-- The driver's own frames (xpcall, this chunk) end a traceback where
-- lua.c's end in "[C]: in ?".
local function traceback(msg)
  local tb = debug.traceback(msg, 3)
  local cut = string.find(tb, "\\n\\t%[C%]: in %a+ 'xpcall'\\n")
  return cut and string.sub(tb, 1, cut) .. "\\t[C]: in ?" or tb
end
local function msghandler(msg)
  if type(msg) ~= "string" then
    local mt = getmetatable(msg)
    if mt and mt.__tostring then
      local ok, s = pcall(tostring, msg)
      if ok and type(s) == "string" then return s end  -- no traceback
    end
    msg = string.format("(error object is a %s value)", type(msg))
  end
  local tb = traceback(msg)  -- not a tail call: level 3 is the error's
  return tb
end
local chunk, err = loadfile(name)
if not chunk then
  io.stderr:write("lua5.4: ", err, "\\n")
  return 1
end
local ok, msg = xpcall(chunk, msghandler, table.unpack(args))
io.stdout:flush()
if not ok then
  io.stderr:write("lua5.4: ", msg, "\\n")
  io.stderr:flush()
  return 1
end
return 0
`;
}

// Replace the operations of stdin (end of file at once, as /dev/null),
// stdout and stderr (collected as bytes) of the module's file system.  The
// stream's operations sit under a minified key: it is found as the one
// object with read and write functions.
function captureStdio(FS, sink) {
  for (const fd of [0, 1, 2]) {
    const stream = FS.streams[fd];
    const key = Object.keys(stream).find((k) => stream[k] && typeof stream[k] === "object" &&
      typeof stream[k].write === "function" && typeof stream[k].read === "function");
    if (key === undefined) throw new Error(`wasmoon_run: no stream operations on fd ${fd}`);
    const ops = Object.assign({}, stream[key]);
    ops.read = () => 0;
    ops.write = (_stream, buffer, offset, length) => {
      sink[fd].push(Buffer.from(buffer.subarray(offset, offset + length)));
      return length;
    };
    stream[key] = ops;
  }
}

// run({ files: {name: bytes}, program: "P.lua", args: [..], setup: "lua" })
//   -> { stdout: Buffer, stderr: Buffer, status: number }
// `setup` is Lua run by the driver before the program is loaded (the
// example installs its probe factory there).
async function run({ files, program, args = [], setup = "" }) {
  const factory = new LuaFactory();
  const lua = await factory.getLuaModule();
  const FS = lua.module.FS;
  FS.mkdir("/run");
  for (const [name, bytes] of Object.entries(files)) FS.writeFile(`/run/${name}`, bytes);
  FS.chdir("/run");
  const sink = { 0: [], 1: [], 2: [] };
  captureStdio(FS, sink);
  const engine = await factory.createEngine({ injectObjects: false, enableProxy: false });
  let status;
  const exitCode = process.exitCode;
  try {
    status = Number(engine.doStringSync(driver(program, args, setup)));
    engine.global.close();  // lua_close, as lua.c ends
  } catch (e) {
    if (e && e.name === "ExitStatus" && typeof e.status === "number") {
      status = e.status;  // os.exit: emscripten's exit() threw it
    } else {
      sink[2].push(Buffer.from(`wasmoon_run: ${e && e.stack ? e.stack : e}\n`));
      status = 125;
    }
  } finally {
    process.exitCode = exitCode;  // emscripten sets it on exit() in Node
  }
  return { stdout: Buffer.concat(sink[1]), stderr: Buffer.concat(sink[2]), status };
}

module.exports = { run };
