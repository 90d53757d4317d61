/*
** fuzz_common.h -- what the fuzz targets share: failing loudly, and
** reading typed values out of the fuzzer's bytes.
*/
#ifndef LI_FUZZ_COMMON_H
#define LI_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A property failed: say which, and abort so libFuzzer saves the input. */
#define FZ_CHECK(cond, ...)                                            \
  do {                                                                 \
    if (!(cond)) {                                                     \
      fprintf(stderr, "%s:%d: property failed: %s\n  ", __FILE__,       \
              __LINE__, #cond);                                        \
      fprintf(stderr, __VA_ARGS__);                                    \
      fputc('\n', stderr);                                             \
      abort();                                                         \
    }                                                                  \
  } while (0)

/* The fuzzer's bytes, consumed from the front. */
typedef struct fz_bytes {
  const uint8_t *p;
  size_t n;
} fz_bytes;

static inline uint64_t fz_u64(fz_bytes *b, unsigned nbytes) {
  uint64_t x = 0;
  for (unsigned i = 0; i < nbytes && b->n > 0; i++, b->p++, b->n--)
    x = x << 8 | *b->p;
  return x;
}

/* A number in [0, limit]. */
static inline uint64_t fz_upto(fz_bytes *b, uint64_t limit) {
  unsigned nbytes = 1;
  while (nbytes < 8 && (limit >> (8 * nbytes)) != 0) nbytes++;
  uint64_t x = fz_u64(b, nbytes);
  return limit == UINT64_MAX ? x : x % (limit + 1);
}

/* A malloc'd NUL-terminated string of up to max bytes (any byte but NUL). */
static inline char *fz_string(fz_bytes *b, size_t max) {
  size_t len = (size_t)fz_upto(b, max), k = 0;
  char *s = malloc(len + 1);
  if (s == NULL) abort();
  for (size_t i = 0; i < len && b->n > 0; i++, b->p++, b->n--)
    if (*b->p != 0) s[k++] = (char)*b->p;
  s[k] = '\0';
  return s;
}

#endif
