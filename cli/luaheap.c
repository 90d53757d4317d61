/*
** luaheap.c -- the `luaheap` command: heap snapshots read back
** (docs/heap.md, "luaheap").
**
**   luaheap summary FILE        types, largest objects, biggest retainers
**   luaheap diff A B [C]        what is new in B (and still in C)
**   luaheap path FILE ID        a shortest path from the root to ID
**
** Options anywhere: --json, --top N, --help, --version.  Exit status: 0
** done; 1 bad input (a file that is not a snapshot it can read, an ID not
** in the file) or a write error; 2 usage.
*/
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"

#ifndef LI_VERSION
#define LI_VERSION "unknown"
#endif

#define PROGNAME "luaheap"
#define TOP_DEFAULT 10

/* Exit statuses. */
enum {
  ST_OK = 0,       /* done */
  ST_INPUT = 1,    /* bad input, or the output could not be written */
  ST_USAGE = 2     /* the command line is wrong */
};

static void usage(FILE *f)
{
  fputs("usage: " PROGNAME " summary FILE\n"
        "       " PROGNAME " diff A B [C]\n"
        "       " PROGNAME " path FILE ID\n"
        "Read heap snapshots (.heapsnapshot, as luaprof --heap and"
        " luainstr_snapshot write them,\n"
        "or Chrome DevTools).\n"
        "  summary FILE   count and bytes a type, the largest objects, the"
        " biggest\n"
        "                 retained sizes with their shortest path from a"
        " root\n"
        "  diff A B [C]   objects in B not in A (with C: and still in C),"
        " by type, by\n"
        "                 retaining path and (memory mode) by allocating"
        " function\n"
        "  path FILE ID   a shortest path from a root to the object ID"
        " (decimal or 0x...)\n"
        "  --json         write JSON (docs/heap.md describes it)\n"
        "  --top N        lists N long (default 10)\n"
        "  --help         show this help and exit\n"
        "  --version      show the version and exit\n"
        "Exit status: 0 done, 1 bad input, 2 usage.\n", f);
}

static int usage_error(const char *what, const char *arg)
{
  if (arg != NULL) fprintf(stderr, PROGNAME ": %s '%s'\n", what, arg);
  else fprintf(stderr, PROGNAME ": %s\n", what);
  usage(stderr);
  return ST_USAGE;
}

/* A whole number: decimal, or hexadecimal after 0x. */
static int number(const char *s, uint64_t *v)
{
  char *end;
  int base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  }
  if (*s == '\0' || *s == '-' || *s == '+' || *s == ' ') return -1;
  errno = 0;
  *v = strtoull(s, &end, base);
  return errno != 0 || *end != '\0' ? -1 : 0;
}

int main(int argc, char **argv)
{
  const char *args[4];
  int nargs = 0, json = 0, rc;
  unsigned top = TOP_DEFAULT;
  char err[512];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return ST_OK;
    } else if (strcmp(a, "--version") == 0) {
      printf(PROGNAME " " LI_VERSION "\n");
      return ST_OK;
    } else if (strcmp(a, "--json") == 0) {
      json = 1;
    } else if (strcmp(a, "--top") == 0 || strncmp(a, "--top=", 6) == 0) {
      const char *n = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
      uint64_t v;
      if (n == NULL) return usage_error("--top needs a number", NULL);
      if (number(n, &v) < 0 || v > 1000000)
        return usage_error("--top takes a number up to 1000000, not", n);
      top = (unsigned)v;
    } else if (strcmp(a, "--") == 0) {
      for (i++; i < argc; i++) {
        if (nargs == 4) return usage_error("too many arguments", NULL);
        args[nargs++] = argv[i];
      }
    } else if (a[0] == '-' && a[1] != '\0') {
      return usage_error("unknown option", a);
    } else {
      if (nargs == 4) return usage_error("too many arguments", NULL);
      args[nargs++] = a;
    }
  }
  if (nargs == 0) return usage_error("no command", NULL);
  if (strcmp(args[0], "summary") == 0) {
    if (nargs != 2) return usage_error("summary takes one FILE", NULL);
    rc = lh_summary(stdout, args[1], top, json, err, sizeof err);
  } else if (strcmp(args[0], "diff") == 0) {
    if (nargs != 3 && nargs != 4)
      return usage_error("diff takes two or three files: A B [C]", NULL);
    rc = lh_diff(stdout, args[1], args[2], nargs == 4 ? args[3] : NULL, top,
                 json, err, sizeof err);
  } else if (strcmp(args[0], "path") == 0) {
    uint64_t id;
    if (nargs != 3) return usage_error("path takes FILE and ID", NULL);
    if (number(args[2], &id) < 0)
      return usage_error("not an object id (decimal or 0x...):", args[2]);
    rc = lh_pathcmd(stdout, args[1], id, json, err, sizeof err);
  } else {
    return usage_error("unknown command", args[0]);
  }
  if (rc < 0) {
    fprintf(stderr, PROGNAME ": %s\n", err);
    return ST_INPUT;
  }
  return ST_OK;
}
