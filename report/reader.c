/*
** reader.c -- profiles that own their memory, and reading a report file of
** whichever readable format it is (reader.h).
**
** A li_profile's pointers are const (writers only read them), so a profile
** made here is the first member of a larger block that also lists every
** block it owns: li_profile_own adds one, li_profile_free frees them all.
** The readers and li_merge hand each array and string over as soon as it
** is made, so that an error anywhere frees everything with the profile.
*/
#define _POSIX_C_SOURCE 200809L       /* open() */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "jscan.h"
#include "reader.h"

/* A profile and what it owns. */
typedef struct owned {
  li_profile p;         /* first: a li_profile * is an owned * */
  void **blocks;        /* malloc'd blocks freed with it */
  size_t nblocks, cap;
} owned;

li_profile *li_profile_new(void) {
  owned *o = calloc(1, sizeof *o);
  return o != NULL ? &o->p : NULL;
}

int li_profile_own(li_profile *p, void *block) {
  owned *o = (owned *)p;
  if (block == NULL) return 0;
  if (o->nblocks == o->cap) {
    size_t ncap = o->cap ? o->cap * 2 : 64;
    void **b = ncap > SIZE_MAX / sizeof *b
                   ? NULL : realloc(o->blocks, ncap * sizeof *b);
    if (b == NULL) {
      free(block);
      return -1;
    }
    o->blocks = b;
    o->cap = ncap;
  }
  o->blocks[o->nblocks++] = block;
  return 0;
}

char *li_profile_strdup(li_profile *p, const char *s, size_t len) {
  char *c = len < SIZE_MAX ? malloc(len + 1) : NULL;
  if (c == NULL) return NULL;
  memcpy(c, s, len);
  c[len] = '\0';
  return li_profile_own(p, c) == 0 ? c : NULL;
}

void li_profile_free(li_profile *p) {
  owned *o = (owned *)p;
  if (p == NULL) return;
  for (size_t i = 0; i < o->nblocks; i++) free(o->blocks[i]);
  free(o->blocks);
  free(o);
}

/* ---- which format -------------------------------------------------------- */

/* A protobuf varint at d[*i] (at most 10 bytes, inside size): 1, or 0. */
static int varint(const unsigned char *d, size_t size, size_t *i,
                  uint64_t *v) {
  *v = 0;
  for (unsigned shift = 0; shift < 70 && *i < size; shift += 7) {
    unsigned char b = d[(*i)++];
    *v |= (uint64_t)(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return 1;
  }
  return 0;
}

/* Does a bare (not gzipped) profile.proto message start here?  Its first
** field must be one profile.proto has (fields 1 to 14), with that field's
** wire type and a value that fits: text that merely starts with one of the
** few bytes such a tag is ('\n', '"', '2', 'H', 'P', ...) is not taken. */
static int bare_pprof(const unsigned char *d, size_t size) {
  /* wire type of fields 1..14: 2 length-delimited, 0 varint; 13 (comment,
     repeated int64) either, packed or not */
  static const signed char wire[15] = {-1, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 2,
                                       0, -2, 0};
  size_t i = 0;
  uint64_t tag, v;
  if (!varint(d, size, &i, &tag) || tag >> 3 == 0 || tag >> 3 > 14)
    return 0;
  if (wire[tag >> 3] == -2 ? (tag & 7) != 0 && (tag & 7) != 2
                           : (int)(tag & 7) != wire[tag >> 3])
    return 0;
  if (!varint(d, size, &i, &v)) return 0;
  return (tag & 7) == 0 || v <= size - i;
}

const char *li_report_sniff(const void *data, size_t size) {
  const unsigned char *d = data;
  size_t i = 0;
  if (size >= 2 && d[0] == 0x1f && d[1] == 0x8b) return "pprof";  /* gzip */
  while (i < size && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' ||
                      d[i] == '\r'))
    i++;
  /* any JSON object: the json reader says whether it is a luainstr-profile
     document, and if not what it is */
  if (i < size && d[i] == '{') return "json";
  if (bare_pprof(d, size)) return "pprof";
  return NULL;
}

/* ---- a file -------------------------------------------------------------- */

#ifndef LI_PPROF
/* Builds without protobuf-c and zlib (LUAINSTR_PPROF off, WebAssembly;
** CMake defines LI_PPROF where they are): the pprof reader,
** report/readpprof.c, is not built; a pprof file is then refused by
** name. */
li_profile *li_read_pprof(const void *data, size_t size, const char *name,
                          char *err, size_t errlen) {
  (void)data;
  (void)size;
  snprintf(err, errlen, "%s: pprof: this build has no protobuf-c", name);
  return NULL;
}
#endif

li_profile *li_read_report(const char *path, char *err, size_t errlen) {
  unsigned char *data = NULL;
  size_t size = 0;
  const char *format;
  li_profile *p = NULL;
  int e, fd = open(path, O_RDONLY);
  if (fd < 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return NULL;
  }
  e = li_js_read_fd(fd, &data, &size);
  close(fd);
  if (e != 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(e));
    return NULL;
  }
  format = li_report_sniff(data, size);
  if (size == 0)
    snprintf(err, errlen, "%s: empty file, not a report", path);
  else if (format == NULL)
    snprintf(err, errlen, "%s: not a json or pprof report (the formats "
             "that can be read back)", path);
  else if (strcmp(format, "json") == 0)
    p = li_read_json(data, size, path, err, errlen);
  else
    p = li_read_pprof(data, size, path, err, errlen);
  free(data);
  return p;
}
