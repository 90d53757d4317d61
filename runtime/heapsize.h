/*
** heapsize.h -- what a heap snapshot (heap.c) learns of an object from
** Lua's internals: its exact size, and a Lua function's prototype.  Each
** Lua (5.1, 5.2, 5.3, 5.4, LuaJIT) lays its objects out its own way; with
** the build's headers of the release linked (LI_LUA_INTERNALS, as
** direct.h) sizes are exact once li_heap_exact has checked the layout on
** the running library, and estimates otherwise (said in the snapshot).
** Without internals there are no prototypes: a function's node has no
** (prototype) edge and its size is the closure's.
**
** Everything here reads; nothing allocates in the Lua heap but the stack
** slots li_heap_proto_push fills (the caller makes room first).
*/
#ifndef LI_HEAPSIZE_H
#define LI_HEAPSIZE_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

/* 1 when sizes and prototypes come from Lua's internals, checked on the
** library this state runs with; else 0 and *why says why not (static). */
/* The check compares the library's structures with the C API's
** answers on what the state already has -- its allocator and memory
** count, the registry and a string key of it, this thread's stack, the
** first Lua function, C function, userdata and thread of its object list
** -- and allocates nothing; it uses 2 stack slots (lua_checkstack: no
** allocation where the stack has room, as in any C function).  Call it
** once a snapshot: it looks at up to 100000 objects. */
int li_heap_exact(lua_State *L, const char **why);

/* The self size in bytes of the collectable value at index idx (a table,
** function, userdata, thread or string): what Lua allocated for it (see
** docs/heap.md, "self_size"); exact when li_heap_exact, else an estimate
** from the public API.  0 for values that are not objects. */
size_t li_heap_size(lua_State *L, int idx, int exact);
/* Exact: what Lua frees with the object.  A light C function
** (5.2 on) is no object: 0.  A C function's upvalues are inside its
** closure, counted there.  The main thread carries what the state holds
** for itself and no value owns: its state block with the global state
** (and LuaJIT's JIT state), the string table, 5.1/5.2's concatenation
** buffer, LuaJIT's temporary buffer, JIT buffers, traces and C type
** table; so the sizes of all objects, cells and prototypes add up to what
** the allocator holds.  A LuaJIT string buffer counts its memory, a cdata
** its payload.  Estimates count a table's entries with lua_next and a
** function's upvalues with lua_getinfo (2 stack slots, lua_checkstack). */

/* Upvalue cells: a closure's self size leaves them out, as closures share
** them; the walker adds a cell's size once, to the first closure found
** holding it.  The identity of upvalue n (1-based) of the function at idx
** (lua_upvalueid where the API has it, internals on 5.1; NULL: unknown,
** then the cell is counted with each closure), and a cell's size. */
const void *li_heap_upvalue_id(lua_State *L, int idx, int n, int exact);
size_t li_heap_upvalue_size(int exact);
/* For a C function, upvalue n's id is its slot inside the closure,
** as lua_upvalueid gives it: no cell to add.  NULL also when n is not an
** upvalue of the function (exact), or on 5.1 without internals. */

/* The prototype of the Lua function at idx (an identity, and the handle
** for the calls below), or NULL: not a Lua function, or no internals. */
const void *li_heap_proto(lua_State *L, int idx, int exact);

typedef struct li_hproto {
  size_t size;          /* its self size: code, constants, debug info */
  const char *source;   /* chunkname as Lua keeps it ("@f.lua", "=stdin") */
  int line, lastline;   /* where it is defined (0 for a main chunk) */
  uint32_t nrefs;       /* objects it holds: li_heap_proto_push 0..nrefs-1 */
  uint32_t nprotos;     /* inner prototypes: li_heap_proto_child 0..n-1 */
} li_hproto;

void li_heap_proto_info(const void *p, li_hproto *out);

/* Push the i-th object prototype p holds (a string constant, its source,
** a local's or upvalue's name; on LuaJIT also template tables and cdata
** constants) on L's stack, and write the edge's name in name[namesz]
** ("(constant 3)", "(source)", "(name)"): 1; or 0 and nothing pushed (a
** slot that holds no object).  L must have a free stack slot. */
int li_heap_proto_push(lua_State *L, const void *p, uint32_t i, char *name,
                       size_t namesz);

/* The slots are, in order, its constants (0 .. k-1, "(constant I)";
** only strings are objects, and on LuaJIT template tables and cdata: its
** collectable constants, child prototypes among them holding nothing
** pushed), its source ("(source)"; nothing when a stripped dump has none),
** then on PUC Lua its locals' and upvalues' names ("(name)"; LuaJIT keeps
** them as C strings in the prototype's block). */

/* The i-th inner prototype of p. */
const void *li_heap_proto_child(const void *p, uint32_t i);

#endif
