/*
** protos.h -- the function prototypes of a compiled Lua 5.4 chunk, read
** from its binary dump (ldump.c's layout), for the rewriter's fuzz target.
** Written independently of runtime/bytecode.c on purpose: the target
** checks the rewriter against what Lua itself reports, so it should not
** share the project's reading of dumps.
*/
#ifndef LI_FUZZ_PROTOS_H
#define LI_FUZZ_PROTOS_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

/* One prototype, in dump order: a function, then its nested functions
** (depth first, in the order they appear in the source). */
typedef struct fz_proto {
  uint32_t line;        /* linedefined (0: main chunk) */
  uint32_t lastline;    /* lastlinedefined */
  uint32_t parent;      /* index of the enclosing prototype (self for 0) */
  uint32_t nprotos;     /* nested functions directly inside */
  unsigned numparams;   /* fixed parameters */
  unsigned is_vararg;   /* 1 if it takes `...` */
  unsigned nupvalues;   /* upvalues */
} fz_proto;

typedef struct fz_protos {
  fz_proto *v;          /* malloc'd */
  uint32_t n;
} fz_protos;

/* Dump the function on top of L (left there) and list its prototypes.
** Returns 1, or 0 if the dump could not be made or read. */
int fz_protos_of(lua_State *L, fz_protos *out);

void fz_protos_free(fz_protos *p);

#endif
