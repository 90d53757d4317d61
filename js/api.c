/*
** api.c -- the rewriter's entry points for the WebAssembly build (js/).
**
** luainstr.js calls these through the module's exports.  The rewriter
** needs no Lua, so only lexer/, parser/ and rewriter/rewrite.c are linked;
** what the CLI does with Lua's compiler (5.4 messages, functions left
** alone when the instrumented text would not compile) is not here: a syntax
** error is the rewriter's own, with its line.
**
** One call, one job: lijs_new() makes a job, lijs_rewrite() fills it, the
** accessors read it, lijs_free() frees it and everything it holds.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite.h"

#define LIJS_EXPORT __attribute__((used, visibility("default")))

/* One rewrite and what the caller reads back. */
typedef struct lijs_job {
  li_rewrite_result r;  /* the rewriter's result (always filled once run) */
  int ran;              /* r was filled and must be freed */
  char id[64];          /* the chunk name as Lua shows it in messages */
  char error[512];      /* LI_ESYNTAX: "name:line: message", as luainstr prints */
} lijs_job;

LIJS_EXPORT lijs_job *lijs_new(void);
LIJS_EXPORT int lijs_rewrite(lijs_job *j, const char *src, size_t len,
                             const char *chunkname, int version,
                             int skip_first_line);
LIJS_EXPORT const char *lijs_out(const lijs_job *j);
LIJS_EXPORT size_t lijs_outlen(const lijs_job *j);
LIJS_EXPORT const char *lijs_warnings(const lijs_job *j);
LIJS_EXPORT const char *lijs_error(const lijs_job *j);
LIJS_EXPORT const char *lijs_chunkid(const lijs_job *j);
LIJS_EXPORT unsigned lijs_errline(const lijs_job *j);
LIJS_EXPORT unsigned lijs_nfuncs(const lijs_job *j);
LIJS_EXPORT const char *lijs_func_name(const lijs_job *j, unsigned id);
LIJS_EXPORT unsigned lijs_func_line(const lijs_job *j, unsigned id);
LIJS_EXPORT unsigned lijs_func_lastline(const lijs_job *j, unsigned id);
LIJS_EXPORT unsigned lijs_func_parent(const lijs_job *j, unsigned id);
LIJS_EXPORT int lijs_func_probed(const lijs_job *j, unsigned id);
LIJS_EXPORT void lijs_free(lijs_job *j);

lijs_job *lijs_new(void)
{
  return calloc(1, sizeof(lijs_job));
}

/* Rewrite src[0..len) of dialect `version` (51..54).  Returns li_rewrite's
** status; on LI_ESYNTAX, LI_ELIMIT and LI_EREJECT lijs_error() says where
** and why. */
int lijs_rewrite(lijs_job *j, const char *src, size_t len,
                 const char *chunkname, int version, int skip_first_line)
{
  li_rewrite_opts o;
  int status;
  if (j->ran) li_rewrite_free(&j->r);
  memset(&o, 0, sizeof o);
  o.version = version;
  o.chunkname = chunkname;
  o.skip_first_line = skip_first_line;
  status = li_rewrite(src, len, &o, &j->r);
  j->ran = 1;
  j->error[0] = '\0';
  li_chunk_id(j->id, sizeof j->id, chunkname != NULL ? chunkname : "?");
  if (status == LI_ESYNTAX) {
    snprintf(j->error, sizeof j->error, "%s:%lu: %s", j->id,
             (unsigned long)j->r.errline, j->r.errmsg);
  } else if (status == LI_ELIMIT || status == LI_EREJECT) {
    /* the rewriter stopped where that Lua's compiler stops, on the same
    ** limit, and with Lua's words: the chunk is one no Lua of the dialect
    ** loads (as `luainstr --lua 5.1..5.3` says it); LI_EREJECT: what
    ** that Lua's compiler rejects after parsing, in its words and line */
    snprintf(j->error, sizeof j->error, "%s:%lu: %s", j->id,
             (unsigned long)j->r.errline, j->r.errmsg);
  }
  return status;
}

const char *lijs_out(const lijs_job *j) { return j->r.out; }
size_t lijs_outlen(const lijs_job *j) { return j->r.outlen; }
const char *lijs_warnings(const lijs_job *j) { return j->r.warnings; }
const char *lijs_error(const lijs_job *j) { return j->error; }
const char *lijs_chunkid(const lijs_job *j) { return j->id; }
unsigned lijs_errline(const lijs_job *j) { return j->r.errline; }
unsigned lijs_nfuncs(const lijs_job *j) { return j->r.nfuncs; }

/* The descriptor of function `id` (1 = main chunk), or NULL/0 past the end. */
static const li_funcdesc *func(const lijs_job *j, unsigned id)
{
  return id >= 1 && id <= j->r.nfuncs ? &j->r.funcs[id - 1] : NULL;
}

const char *lijs_func_name(const lijs_job *j, unsigned id)
{
  const li_funcdesc *f = func(j, id);
  return f != NULL ? f->name : NULL;
}

unsigned lijs_func_line(const lijs_job *j, unsigned id)
{
  const li_funcdesc *f = func(j, id);
  return f != NULL ? f->line : 0;
}

unsigned lijs_func_lastline(const lijs_job *j, unsigned id)
{
  const li_funcdesc *f = func(j, id);
  return f != NULL ? f->lastline : 0;
}

unsigned lijs_func_parent(const lijs_job *j, unsigned id)
{
  const li_funcdesc *f = func(j, id);
  return f != NULL ? f->parent : 0;
}

int lijs_func_probed(const lijs_job *j, unsigned id)
{
  const li_funcdesc *f = func(j, id);
  return f != NULL ? f->probed : 0;
}

void lijs_free(lijs_job *j)
{
  if (j == NULL) return;
  if (j->ran) li_rewrite_free(&j->r);
  free(j);
}
