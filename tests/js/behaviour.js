// behaviour.js -- the behaviour programs (tests/behaviour/README.md),
// instrumented through the JavaScript API and run in wasmoon without a
// runtime (the offline form's do-nothing probe), must print exactly what
// the originals print in wasmoon: same stdout, same stderr (error
// messages, tracebacks), same exit status.
//
//   node behaviour.js LUAINSTR_JS [DIR]      (DIR: tests/behaviour/lua54)
//
// As tests/behaviour/run.sh: DIR/modules/*.lua are copied next to every
// program (instrumented in the instrumented run), P.args holds the
// arguments one a line, stdin is empty, and the instrumented text must
// differ from the original (unless listed in UNCHANGED_OK) with as many
// \n and \r bytes.  Each program is loaded with its file's chunk name,
// "@P.lua", as lua5.4 loads it, and instrumented with that name.
// The driver is checked too, for information: where lua5.4 is installed,
// each original also runs under it, and the programs whose stdout, stderr
// or status differ from their wasmoon run are listed (not a failure: they
// are the programs that print a traceback themselves, whose bottom frames
// are the driver's; see wasmoon_run.js).
// LI_ONLY=GLOB runs some programs only.  Prints a line per program and
// `N passed, N failed, N excluded`; exits 1 if any failed.
"use strict";
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const os = require("os");
const { run } = require("./wasmoon_run.js");

// Programs wasmoon cannot run as lua5.4 does, by name, with the reason.
// Every other program of the folder runs.
const EXCLUDED = {
};

function usage() {
  console.error("usage: node behaviour.js LUAINSTR_JS [DIR]");
  process.exit(2);
}

function listFile(file) {
  if (!fs.existsSync(file)) return new Set();
  return new Set(fs.readFileSync(file, "utf8").split(/\r?\n/)
    .map((l) => l.replace(/#.*/, "").trim()).filter((l) => l !== ""));
}

function count(bytes, byte) {
  let n = 0;
  for (const b of bytes) if (b === byte) n++;
  return n;
}

function globRegExp(glob) {
  return new RegExp("^" + glob.replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*").replace(/\?/g, ".") + "$");
}

// The first lines where a and b differ, for the failure report.
function excerpt(what, a, b) {
  const la = a.toString("latin1").split("\n"), lb = b.toString("latin1").split("\n");
  let i = 0;
  while (i < la.length && i < lb.length && la[i] === lb[i]) i++;
  const show = (l) => JSON.stringify(l === undefined ? "<end>" : l);
  return `  --- ${what} differs at line ${i + 1}\n    original:     ${show(la[i])}\n` +
         `    instrumented: ${show(lb[i])}`;
}

// A function running a program under the host's lua5.4 as
// tests/behaviour/run.sh does (its own directory with the modules, stdin
// empty), or null when there is no lua5.4.
function nativeLua(modules) {
  if (spawnSync("lua5.4", ["-v"]).status !== 0) return null;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "li-js-native."));
  process.on("exit", () => fs.rmSync(tmp, { recursive: true, force: true }));
  for (const [n, b] of Object.entries(modules)) fs.writeFileSync(path.join(tmp, n), b);
  return (name, bytes, args) => {
    fs.writeFileSync(path.join(tmp, name), bytes);
    const env = { PATH: process.env.PATH, LUA_PATH: "./?.lua", LUA_CPATH: "./?.so", LC_ALL: "C" };
    const r = spawnSync("lua5.4", [name, ...args], { cwd: tmp, input: "", env, timeout: 60000 });
    fs.rmSync(path.join(tmp, name));
    return { stdout: r.stdout, stderr: r.stderr, status: r.status };
  };
}

async function main() {
  const [luainstrJs, dirArg] = process.argv.slice(2);
  if (!luainstrJs) usage();
  const li = require(path.resolve(luainstrJs));
  await li.ready;
  const dir = path.resolve(dirArg || path.join(__dirname, "../behaviour/lua54"));
  const only = globRegExp(process.env.LI_ONLY || "*");
  const unchangedOk = listFile(path.join(dir, "UNCHANGED_OK"));
  let passed = 0, failed = 0, excluded = 0;

  // The helper modules, instrumented once for all programs.
  const modsOrig = {}, modsInstr = {};
  const modDir = path.join(dir, "modules");
  if (fs.existsSync(modDir)) {
    for (const name of fs.readdirSync(modDir).filter((n) => n.endsWith(".lua")).sort()) {
      const bytes = fs.readFileSync(path.join(modDir, name));
      modsOrig[name] = bytes;
      try {
        modsInstr[name] = li.instrument(bytes, "@" + name, { lua: "5.4" });
      } catch (e) {
        console.log(`FAIL modules/${name}: instrument failed: ${e.message}`);
        failed++;
        modsInstr[name] = bytes;  // let the programs run anyway
      }
    }
  }

  const native = nativeLua(modsOrig), likeNative = [], unlikeNative = [];

  const programs = fs.readdirSync(dir).filter((n) => n.endsWith(".lua")).sort();
  if (programs.length === 0) console.error(`behaviour.js: no *.lua programs in ${dir}`);
  for (const name of programs) {
    if (!only.test(name)) continue;
    if (EXCLUDED[name]) {
      console.log(`skip ${name}: ${EXCLUDED[name]}`);
      excluded++;
      continue;
    }
    const orig = fs.readFileSync(path.join(dir, name));
    const argsFile = path.join(dir, name.replace(/\.lua$/, ".args"));
    const args = fs.existsSync(argsFile)
      ? fs.readFileSync(argsFile, "utf8").replace(/\n$/, "").split("\n") : [];
    let instr;
    try {
      instr = li.instrument(orig, "@" + name, { lua: "5.4" });
    } catch (e) {
      console.log(`FAIL ${name}: instrument failed: ${e.message}`);
      failed++;
      continue;
    }
    const why = [], details = [];
    if (Buffer.compare(Buffer.from(instr), orig) === 0 && !unchangedOk.has(name))
      why.push("instrumented text is identical to the original");
    for (const [byte, shown] of [[10, "\\n"], [13, "\\r"]]) {
      const a = count(orig, byte), b = count(instr, byte);
      if (a !== b) why.push(`line breaks changed: ${a} vs ${b} '${shown}' bytes`);
    }
    const a = await run({ files: { ...modsOrig, [name]: orig }, program: name, args });
    const b = await run({ files: { ...modsInstr, [name]: instr }, program: name, args });
    if (native) {
      const n = native(name, orig, args);
      const same = n.status === a.status && Buffer.compare(n.stdout, a.stdout) === 0 &&
        Buffer.compare(n.stderr, a.stderr) === 0;
      (same ? likeNative : unlikeNative).push(name);
    }
    if (a.status === 125) why.push("wasmoon could not run the original: " + a.stderr.toString());
    if (a.status !== b.status) why.push(`exit status ${a.status} vs ${b.status}`);
    for (const s of ["stdout", "stderr"]) {
      if (Buffer.compare(a[s], b[s]) !== 0) {
        why.push(`${s} differs`);
        details.push(excerpt(s, a[s], b[s]));
      }
    }
    if (why.length === 0) {
      console.log(`ok   ${name}`);
      passed++;
    } else {
      console.log(`FAIL ${name}: ${why.join("; ")}`);
      for (const d of details) console.log(d);
      failed++;
    }
  }
  if (native) {
    console.log(`driver check: ${likeNative.length} of ${likeNative.length + unlikeNative.length}` +
      ` originals print in wasmoon exactly what lua5.4 prints` +
      (unlikeNative.length ? ` (not: ${unlikeNative.join(" ")})` : ""));
  }
  console.log(`${passed} passed, ${failed} failed, ${excluded} excluded`);
  process.exitCode = failed === 0 ? 0 : 1;
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exitCode = 2;
});
