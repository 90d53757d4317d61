// api.js -- the JavaScript API of build-js/ (js/README.md): what it
// returns and throws, both module forms, and, where the native `luainstr`
// is built, that the WebAssembly rewriter writes the same bytes as it does
// for every behaviour program of every dialect, but where the CLI's Lua
// compiler made it leave a function without probes (it says so: "Lua
// rejected it instrumented"), which the JS API, without a Lua compiler,
// cannot do (js/README.md).
//
//   node api.js BUILD_JS_DIR [LUAINSTR_BIN]
"use strict";
const assert = require("assert");
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");

const [buildDir, luainstrBin] = process.argv.slice(2);
if (!buildDir) {
  console.error("usage: node api.js BUILD_JS_DIR [LUAINSTR_BIN]");
  process.exit(2);
}
const globalsBefore = new Set(Object.keys(globalThis));
const li = require(path.resolve(buildDir, "luainstr.js"));
const behaviour = path.join(__dirname, "../behaviour");
let passed = 0, failed = 0;

async function test(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
    passed++;
  } catch (e) {
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : e}`);
    failed++;
  }
}

function syntaxError(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof li.LuaSyntaxError, `not a LuaSyntaxError: ${e}`);
    assert.ok(e instanceof Error);
    assert.strictEqual(e.name, "LuaSyntaxError");
    return e;
  }
  assert.fail("no error thrown");
}

const lines = (s) => s.split(/\r\n|\n\r|\r|\n/).length;

async function main() {
  await test("instrument before ready throws", () => {
    assert.throws(() => li.instrument("return 1", "=x"), /not ready yet/);
  });
  assert.strictEqual(await li.ready, li);

  await test("string in, string out, no line moved", () => {
    const src = "local function add(a, b)\n  return a + b\nend\nreturn add(1, 2)\n";
    const out = li.instrument(src, "@f.lua", { lua: "5.4" });
    assert.strictEqual(typeof out, "string");
    assert.strictEqual(lines(out), lines(src));
    assert.ok(out.includes('(("").__luainstr or function()'), out);
    assert.ok(out.includes("LI1\\000@f.lua\\000"), out);
    assert.ok(out.endsWith("__LI() return add(1, 2)\n"), out);
  });

  await test("bytes in, bytes out, any bytes kept", () => {
    const src = Buffer.from("local s = '\xff\x00\xe9'\r\nreturn s\r\n", "latin1");
    const out = li.instrument(new Uint8Array(src), "=b", { lua: "5.4" });
    assert.ok(out instanceof Uint8Array);
    const text = Buffer.from(out).toString("latin1");
    assert.ok(text.includes("local s = '\xff\x00\xe9'\r\n"), text);
    assert.strictEqual(li.instrument(src.buffer.slice(src.byteOffset, src.byteOffset + src.length),
      "=b").length, out.length);  // an ArrayBuffer too
  });

  await test("syntax error: name:line: message, as the CLI prints it", () => {
    let e = syntaxError(() => li.instrument("local x = 1\nx = = 2\n", "@bad.lua", { lua: "5.4" }));
    assert.strictEqual(e.message, "bad.lua:2: syntax error near '='");
    assert.strictEqual(e.line, 2);
    assert.strictEqual(e.chunkname, "@bad.lua");
    e = syntaxError(() => li.instrument("\n\nlocal s = 'open\n", "=stdin"));
    assert.match(e.message, /^stdin:3: /);
    e = syntaxError(() => li.instrument("f(", "f("));
    assert.match(e.message, /^\[string "f\("\]:1: /);
    e = syntaxError(() => li.instrument("f(", undefined));
    assert.match(e.message, /^\(load\):1: /);
  });

  await test("dialects as --lua: goto is a name in 5.1 only", () => {
    const src = "local goto = 1\nreturn goto\n";
    for (const v of ["5.1", 5.1]) assert.ok(li.instrument(src, "=g", { lua: v }).includes("__LI"));
    for (const v of ["5.2", "5.3", "5.4", 5.4, undefined]) {
      const e = syntaxError(() => li.instrument(src, "=g", v === undefined ? {} : { lua: v }));
      assert.strictEqual(e.message, "g:1: syntax error near 'goto'");
    }
    assert.throws(() => li.instrument("return 1", "=v", { lua: "5.5" }), TypeError);
    assert.throws(() => li.instrument("return 1", "=v", { lua: "jit" }), TypeError);
  });

  await test("a # first line is skipped as lua5.4 skips it, unless skipFirstLine is false", () => {
    const src = "#!/usr/bin/env lua\nprint(1)\n";
    const out = li.instrument(src, "@s.lua");
    assert.ok(out.startsWith("#!/usr/bin/env lua\n"), out);
    assert.strictEqual(lines(out), lines(src));
    syntaxError(() => li.instrument(src, "@s.lua", { skipFirstLine: false }));
  });

  await test("rewrite(): functions, warnings, instrumented", () => {
    const r = li.rewrite("local t = {}\nfunction t.m(x)\n  return function() end\nend\n", "@r.lua");
    assert.strictEqual(r.instrumented, true);
    assert.deepStrictEqual(r.functions.map((f) => [f.id, f.name, f.line, f.lastline, f.parent, f.probed]),
      [[1, "main chunk", 0, 0, 0, true], [2, "t.m", 2, 4, 1, true], [3, "anonymous", 3, 3, 2, true]]);
    assert.deepStrictEqual(r.warnings, []);
    // a main chunk with 200 locals has no room for the probe's local
    const src = fs.readFileSync(path.join(behaviour, "lua54/locals200_main.lua"));
    const w = li.rewrite(src, "@locals200_main.lua");
    assert.ok(w.warnings.length > 0);
    for (const line of w.warnings) assert.match(line, /^locals200_main\.lua:(\d+:)? ?warning: /);
    const warned = [];
    li.instrument(src, "@locals200_main.lua", { warn: (l) => warned.push(l) });
    assert.deepStrictEqual(warned, w.warnings);
  });

  await test("binary chunks pass through", () => {
    const r = li.rewrite(new Uint8Array([0x1b, 0x4c, 0x75, 0x61, 0x54, 0]), "=bin");
    assert.strictEqual(r.instrumented, false);
    assert.deepStrictEqual(Array.from(r.code), [0x1b, 0x4c, 0x75, 0x61, 0x54, 0]);
  });

  await test("bad arguments", () => {
    assert.throws(() => li.instrument(42, "=n"), TypeError);
    assert.throws(() => li.instrument(null, "=n"), TypeError);
  });

  await test("a large chunk (memory grows)", () => {
    // 120,000 functions in the main chunk: under 5.4's 131,071, and the
    // source with its instrumented text is over 16 MB, the module's first
    // memory
    const body = "F = function(x) return x + 1 end -- a comment to make it longer\n".repeat(120000);
    const r = li.rewrite(body, "@big.lua");
    assert.strictEqual(r.instrumented, true);
    assert.strictEqual(r.functions.length, 120001);
    assert.strictEqual(lines(r.code), lines(body));
    assert.ok(body.length + r.code.length > 16 << 20, `only ${r.code.length} bytes`);
  });

  await test("more functions than the dialect's Lua compiles: Lua's error", () => {
    // 5.4 compiles at most 131,071 functions in one function; 5.1 262,143
    const at = (n) => "F = function(x) return x + 1 end\n".repeat(n);
    assert.strictEqual(lines(li.instrument(at(131071), "@ok.lua")), lines(at(131071)));
    const e = syntaxError(() => li.instrument(at(131072), "@big.lua"));
    assert.strictEqual(e.message, "big.lua:131072: too many functions (limit is 131071)");
    assert.strictEqual(e.line, 131072);
    assert.strictEqual(e.chunkname, "@big.lua");
    const out = li.instrument(at(131072), "@big.lua", { lua: "5.1" });
    assert.strictEqual(lines(out), lines(at(131072)));
  });

  // (helper-reject) LI_EREJECT: what Lua's compiler rejects after parsing
  await test("a chunk Lua rejects after parsing: Lua's error", () => {
    const src = "local n = 0\ngoto finish\nn = n + 1\n";
    let e = syntaxError(() => li.instrument(src, "@g.lua"));
    assert.strictEqual(e.message, "g.lua:4: no visible label 'finish' for <goto> at line 2");
    assert.strictEqual(e.line, 4);
    assert.strictEqual(e.chunkname, "@g.lua");
    e = syntaxError(() => li.instrument("while true do end\nbreak\n", "=b", { lua: "5.1" }));
    assert.strictEqual(e.message, "b:3: no loop to break near '<eof>'");
    e = syntaxError(() => li.rewrite("local x <const> = 1\nx = 2\n", "=k", { lua: "5.4" }));
    assert.strictEqual(e.message, "k:2: attempt to assign to const variable 'x'");
    assert.strictEqual(e.line, 2);
  });

  await test("the CommonJS file adds no global", () => {
    const added = Object.keys(globalThis).filter((k) => !globalsBefore.has(k));
    assert.deepStrictEqual(added, []);
  });

  await test("the ES module", async () => {
    const m = await import(path.resolve(buildDir, "luainstr.mjs"));
    await m.ready;
    assert.strictEqual(m.default.instrument, m.instrument);
    assert.strictEqual(m.instrument("return 1", "=m"), li.instrument("return 1", "=m"));
    assert.strictEqual(typeof m.LuaSyntaxError, "function");
    assert.strictEqual(globalThis.luainstr, undefined);
  });

  if (luainstrBin && fs.existsSync(luainstrBin)) {
    await test("the same bytes as the native luainstr, every behaviour program and module", () => {
      let n = 0;
      const byCompiler = [];
      for (const [dirName, version] of [["lua54", "5.4"], ["lua53", "5.3"], ["lua51", "5.1"],
                                        ["known_limits", "5.4"]]) {
        const dir = path.join(behaviour, dirName);
        const files = fs.readdirSync(dir).filter((f) => f.endsWith(".lua")).map((f) => path.join(dir, f));
        if (fs.existsSync(path.join(dir, "modules")))
          for (const f of fs.readdirSync(path.join(dir, "modules")).filter((f) => f.endsWith(".lua")))
            files.push(path.join(dir, "modules", f));
        for (const file of files) {
          const name = "@" + path.basename(file);
          const r = spawnSync(luainstrBin, ["--lua", version, "--chunkname", name, file]);
          assert.strictEqual(r.status, 0, `${file}: ${r.stderr}`);
          const out = Buffer.from(li.instrument(fs.readFileSync(file), name, { lua: version }));
          n++;
          if (Buffer.compare(out, r.stdout) === 0) continue;
          assert.match(r.stderr.toString(), /warning: .* left without probes: Lua rejected it instrumented/,
            `${dirName}/${path.basename(file)} differs`);
          byCompiler.push(`${dirName}/${path.basename(file)}`);
        }
      }
      console.log(`     (${n} files; ${n - byCompiler.length} the same, ` +
        `${byCompiler.length} where Lua's compiler made the CLI leave a function alone: ${byCompiler.join(" ")})`);
    });
  } else {
    console.log("skip the same bytes as the native luainstr: no luainstr binary given or built");
  }

  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exitCode = 2;
});
