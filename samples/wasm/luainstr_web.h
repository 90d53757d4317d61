/*
** luainstr_web.h -- the C API that build-wasm/web/luainstr-web.js exports
** to JavaScript (call it with cwrap/ccall; README.md here).  One profiled
** Lua state at a time.  Every string returned belongs to the module and
** stays valid until the next call of the same function or li_wasm_free();
** JavaScript copies it (cwrap with return type 'string' does).
*/
#ifndef LUAINSTR_WEB_H
#define LUAINSTR_WEB_H

/* Runs source (Lua 5.4 text) in a fresh state (the previous one is closed)
** with the standard libraries, profiled, and keeps the state for reports.
** chunkname: "game.lua" is taken as "@game.lua" (a file name in messages
** and reports); "@..." and "=..." are Lua's forms; NULL or "": main.lua.
** Returns NULL, or the error message (with traceback) of a script that
** failed to compile or to run; os.exit(0 or true) ends the script as a
** success, os.exit(N) as the error "os.exit(N)". */
const char *li_wasm_run(const char *source, const char *chunkname);

/* What the last run wrote to stdout (print, io.write); "" if none. */
const char *li_wasm_output(void);

/* The last run's profile in a format ("text", "csv", "folded",
** "folded-calls", "callgrind", "chrome" (needs trace mode), "html",
** "json", "folded-alloc"); NULL on failure (li_wasm_error() says why). */
const char *li_wasm_report(const char *format);

/* A profiler option for every later run, applied in the order given:
** "trace" ("on", "off", or a number of events; needed by "chrome"),
** "include"/"exclude" (globs on chunk names without '@'),
** "clear_patterns"; and "clear" forgets all of them.  NULL, or why not. */
const char *li_wasm_set_option(const char *name, const char *value);

/* Why the last call failed ("" if none did). */
const char *li_wasm_error(void);

/* Closes the state and frees everything; options are forgotten. */
void li_wasm_free(void);

/* ---- live mode: the live view without a server (issue 22;
** docs/live-protocol.md, "In the browser without a server") ------------- */

/* Like li_wasm_run, in a fresh state with frame marks, memory mode and the
** live channel "page" on (after the options given): runs source, which
** defines the game's tick function (a global function tick(dt), or the
** chunk returns one), and keeps it.  NULL, or the error message. */
const char *li_wasm_live_start(const char *source, const char *chunkname);

/* One frame: the span since the last tick is idle (the browser's), then
** tick(dt) runs and the frame is marked (commands are applied there).
** NULL, or tick's error (with traceback), which ends the session. */
const char *li_wasm_live_tick(double dt);

/* 1 while a session runs (started; its tick has not failed, called
** os.exit or been stopped). */
int li_wasm_live_running(void);

/* Every message since the last drain, as one JSON array (the protocol's
** server -> client messages, in order); NULL when there are none. */
const char *li_wasm_live_drain(void);

/* A command from the view (JSON, as a client sends it; its ack comes in a
** later drain): NULL taken, or why not. */
const char *li_wasm_live_command(const char *json);

/* Ends the session: no more ticks, and collection stopped as the view's
** "stop" command does (its ack and status come in the next drain); the
** state stays for reports and output() until the next run.  NULL, or why
** not. */
const char *li_wasm_live_stop(void);

/* The live view's page (the html report's application in live mode), to
** open in a frame with "#embed"; NULL on failure (li_wasm_error). */
const char *li_wasm_live_page(void);

/* The file of download n that an ack of this session named
** ("/download/S/n"): its path in the module's memory file system; NULL when
** there is none (li_wasm_error). */
const char *li_wasm_live_download(unsigned n);

#endif
