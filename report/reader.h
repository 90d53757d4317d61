/*
** reader.h -- reports read back into the profile model, and merged
** (internal; issue 23).  The writers (writers.h) turn a li_profile into a
** file; these turn a file back into a li_profile, so that every format can
** be written from a report a program wrote earlier, and many reports of
** the same program (a fleet of processes) can be summed into one.
**
**   reader.c    li_profile_new/own/strdup/free, li_report_sniff,
**               li_read_report (a file of any readable format)
**   readjson.c  the `json` report (docs/json-schema.md, version 1)
**   readpprof.c the `pprof` report (profile.proto, gzipped or not)
**   merge.c     li_merge
**
** A profile made here owns its memory: every pointer in it (funcs, nodes,
** frames, spikes, events, strings) is released by li_profile_free and by
** nothing else.  Profiles made by the runtime (li_snapshot) are not freed
** with it.  Every reader checks everything and trusts nothing: bad input
** is a message in err, never a crash, never a partial profile.
*/
#ifndef LI_READER_H
#define LI_READER_H

#include <stddef.h>

#include "report.h"

/* A new, empty (zeroed) profile that owns its memory; NULL when memory
** ran out. */
li_profile *li_profile_new(void);

/* Hand block (from malloc) to p: it is freed with p.  0, or -1 when
** memory ran out (block is then freed at once).  NULL is accepted. */
int li_profile_own(li_profile *p, void *block);

/* A copy of len bytes of s (NUL added), owned by p; NULL when memory ran
** out. */
char *li_profile_strdup(li_profile *p, const char *s, size_t len);

/* Free a profile made by li_profile_new (so by every reader and by
** li_merge) and everything it owns.  NULL is accepted. */
void li_profile_free(li_profile *p);

/* The format of a report's first bytes: "json" (a luainstr-profile
** document), "pprof" (gzip, or a bare profile.proto message) or NULL (not a
** format that can be read back). */
const char *li_report_sniff(const void *data, size_t size);

/* Read one report.  name is for messages ("a.json: ..."). */
li_profile *li_read_json(const void *data, size_t size, const char *name,
                         char *err, size_t errlen);
li_profile *li_read_pprof(const void *data, size_t size, const char *name,
                          char *err, size_t errlen);

/* Read the file at path, of whichever readable format it is. */
li_profile *li_read_report(const char *path, char *err, size_t errlen);

/* One profile holding the sums of n profiles of the same program: a
** function is the same function when its zone flag, name, source and lines
** agree; a call-tree node is the same node when its path of functions from
** the root does.  Counts and times add up; min_ns is the least, max_ns the
** most; what cannot be summed (frames, spikes, traces) is left out and a
** warning line says so.  NULL with a message when n is 0 or memory ran
** out. */
li_profile *li_merge(const li_profile *const *in, size_t n,
                     char *err, size_t errlen);

#endif
