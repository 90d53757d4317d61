/*
** report.c -- the report formats, and writing a report to a FILE, to a
** string or to a path.  Writing to a path never leaves a half-written report:
** a regular file is written beside itself and renamed into place.
*/
#define _XOPEN_SOURCE 700          /* open_memstream, fchmod, fsync, realpath */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "writers.h"

/* ---- the formats -------------------------------------------------------- */

typedef int (*li_writer)(const li_profile *p, FILE *f);

typedef struct format_entry {
  const char *name;     /* what -f/--format and the API take */
  li_writer write;      /* its module's entry point */
  int binary;           /* not for a terminal */
} format_entry;

#define LI_FORMAT_ENTRY(id, name, binary) { name, li_write_##id, binary },
static const format_entry formats[] = { LI_REPORT_FORMATS(LI_FORMAT_ENTRY) };
#undef LI_FORMAT_ENTRY

/* ", text, csv": the list with a separator before every name, so the
** public string is this one past its first separator. */
#define LI_FORMAT_NAME(id, name, binary) ", " name
static const char format_names[] = LI_REPORT_FORMATS(LI_FORMAT_NAME);
#undef LI_FORMAT_NAME

static const format_entry *find_format(const char *name) {
  if (name == NULL) return NULL;
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
    if (strcmp(formats[i].name, name) == 0) return &formats[i];
  return NULL;
}

int li_report_known(const char *format) {
  return find_format(format) != NULL;
}

const char *li_report_format_error(const char *format, char *buf,
                                   size_t len) {
#define LI_ABSENT(name, why) \
  if (strcmp(format, name) == 0) { snprintf(buf, len, "%s: %s", name, why); return buf; }
  if (find_format(format) != NULL) return NULL;
  if (format == NULL) format = "";
  LI_REPORT_ABSENT(LI_ABSENT)
#undef LI_ABSENT
  snprintf(buf, len, "unknown format '%.64s' (formats: %s)", format,
           li_report_formats());
  return buf;
}

const char *li_report_formats(void) {
  return format_names + 2;
}

/* LUAINSTR_CHECK set and not empty: every report checks that its figures
** agree (li_profile_check) and a contradiction stops the program, so that
** a test run finds one in any report any test makes (the suite sets it). */
static void check_or_abort(const li_profile *p) {
  const char *on = getenv("LUAINSTR_CHECK");
  char why[512];
  if (on == NULL || on[0] == '\0') return;
  if (li_profile_check(p, why, sizeof why) == 0) return;
  fprintf(stderr, "luainstr: report contradicts itself: %s\n", why);
  abort();
}

int li_report_write(const li_profile *p, const char *format, FILE *f) {
  const format_entry *e = find_format(format);
  if (e == NULL) {
    errno = EINVAL;
    return -1;
  }
  check_or_abort(p);
  if (e->write(p, f) != 0) return -1;
  return ferror(f) ? -1 : 0;
}

/* ---- figures for people ------------------------------------------------- */

/* Integer arithmetic on the exact value, rounded half up at each step, so
** that a value never shows as "1000 us" (it is "1.00 ms") and the page's
** JavaScript, doing the same steps, gives the same string.  ORDER: html.c
** fmtUnits. */
void li_fmt_units(char *buf, size_t len, uint64_t v, const char *const *unit,
                  int nunit, uint64_t step) {
  uint64_t d = 1, w, rem, r;   /* d: the size of unit[u] in unit[0]s */
  int u = 0;
  while (u + 1 < nunit && v / d >= step) { d *= step; u++; }
  for (;;) {
    if (u == 0) {
      snprintf(buf, len, "%" PRIu64 " %s", v, unit[0]);
      return;
    }
    w = v / d;
    rem = v % d;   /* below d (at most step^(nunit-1)): no overflow below */
    if (w < 10 && (r = w * 100 + (rem * 100 + d / 2) / d) < 1000) {
      snprintf(buf, len, "%" PRIu64 ".%02" PRIu64 " %s", r / 100, r % 100,
               unit[u]);
      return;
    }
    if (w < 100 && (r = w * 10 + (rem * 10 + d / 2) / d) < 1000) {
      snprintf(buf, len, "%" PRIu64 ".%" PRIu64 " %s", r / 10, r % 10,
               unit[u]);
      return;
    }
    r = w + (rem * 2 >= d);
    if (r < step || u + 1 == nunit) {
      snprintf(buf, len, "%" PRIu64 " %s", r, unit[u]);
      return;
    }
    d *= step;   /* 999.5 us is 1.00 ms, 1023.5 KiB 1.00 MiB */
    u++;
  }
}

void li_fmt_ns(char *buf, size_t len, uint64_t ns) {
  static const char *const unit[] = { "ns", "us", "ms", "s" };
  li_fmt_units(buf, len, ns, unit, 4, 1000);
}

void li_fmt_bytes(char *buf, size_t len, uint64_t bytes) {
  static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
  li_fmt_units(buf, len, bytes, unit, 5, 1024);
}

/* ---- the order every table shares -------------------------------------- */

static const char *str_or_empty(const char *s) {
  return s != NULL ? s : "";
}

/* Order of two functions: see li_report_order.  The last key, the address,
** only makes equal rows come out the same on every qsort. */
static int cmp_func(const void *a, const void *b) {
  const li_pfunc *x = *(const li_pfunc *const *)a;
  const li_pfunc *y = *(const li_pfunc *const *)b;
  int c;
  if (x->self_ns != y->self_ns) return x->self_ns > y->self_ns ? -1 : 1;
  if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
  if ((c = strcmp(str_or_empty(x->name), str_or_empty(y->name))) != 0) return c;
  if ((c = strcmp(str_or_empty(x->source), str_or_empty(y->source))) != 0) return c;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  return x < y ? -1 : (x > y);
}

const li_pfunc **li_report_order(const li_profile *p, uint32_t *n) {
  /* one spare slot: malloc(0) may return NULL, which means out of memory */
  const li_pfunc **v = malloc(((size_t)p->nfuncs + 1) * sizeof *v);
  uint32_t k = 0;
  *n = 0;
  if (v == NULL) {
    errno = ENOMEM;
    return NULL;
  }
  for (uint32_t i = 0; i < p->nfuncs; i++)
    if (p->funcs[i].calls > 0) v[k++] = &p->funcs[i];
  qsort(v, k, sizeof *v, cmp_func);
  *n = k;
  return v;
}

/* ---- keyed hashing -------------------------------------------------------- */

uint64_t li_hash_keyed(uint64_t x) {
  static uint64_t key;                  /* 0: not drawn yet */
  if (key == 0) {
    uint64_t k = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      if (read(fd, &k, sizeof k) != (ssize_t)sizeof k) k = 0;
      close(fd);
    }
    if (k == 0) {                       /* (no urandom: what differs by run) */
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      k = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^
          ((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)&key;
    }
    key = k | 1;
  }
  x ^= key;                             /* murmur3's finalizer */
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

/* ---- text from any bytes ---------------------------------------------- */

size_t li_utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0], lo = 0x80, hi = 0xbf;
  size_t len;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) len = 2;
  else if (c >= 0xe0 && c <= 0xef) len = 3;
  else if (c >= 0xf0 && c <= 0xf4) len = 4;
  else return 0;
  if (c == 0xe0) lo = 0xa0;                /* overlong */
  if (c == 0xed) hi = 0x9f;                /* surrogates */
  if (c == 0xf0) lo = 0x90;                /* overlong */
  if (c == 0xf4) hi = 0x8f;                /* above U+10FFFF */
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < len; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  return len;
}

void li_put_line_text(FILE *f, const char *s, const char *also) {
  const unsigned char *p = (const unsigned char *)s, *end;
  if (s == NULL) return;
  end = p + strlen(s);
  while (p < end) {
    size_t n = li_utf8_len(p, (size_t)(end - p));
    int special = n == 1 && (*p < 0x20 || *p == 0x7f ||
                             (also != NULL && strchr(also, *p) != NULL));
    if (n > 0 && !special) {
      fwrite(p, 1, n, f);
      p += n;
    } else {
      if (*p == '\n') fputs("\\n", f);
      else if (*p == '\r') fputs("\\r", f);
      else if (*p == '\t') fputs("\\t", f);
      else fprintf(f, "\\x%02X", *p);
      p++;
    }
  }
}

/* ---- to a string -------------------------------------------------------- */

int li_report_to_string(const li_profile *p, const char *format,
                        char **out, size_t *outlen) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f;
  *out = NULL;
  *outlen = 0;
  if (!li_report_known(format)) {
    errno = EINVAL;
    return -1;
  }
  f = open_memstream(&buf, &len);
  if (f == NULL) return -1;
  int st = li_report_write(p, format, f);
  if (fclose(f) != 0) st = -1;
  if (st != 0) {
    int e = errno;
    free(buf);
    errno = e;
    return -1;
  }
  *out = buf;
  *outlen = len;
  return 0;
}

/* ---- to a path ---------------------------------------------------------- */

static void set_err(char *err, size_t errlen, const char *path, int e) {
  if (err != NULL && errlen > 0)
    snprintf(err, errlen, "cannot write report to '%s': %s", path, strerror(e));
}

/* Write the report to an open stream and close it; errno of the first
** failure is kept.  0 or -1. */
static int write_and_close(const li_profile *p, const char *format, FILE *f,
                           int sync) {
  int st = li_report_write(p, format, f);
  int e = errno;
  if (st == 0 && fflush(f) != 0) st = -1, e = errno;
  /* fsync, so that after the rename the name never points at a file whose
  ** blocks are not on disk yet (a crash would leave it empty) */
  if (st == 0 && sync && fsync(fileno(f)) != 0) st = -1, e = errno;
  if (fclose(f) != 0 && st == 0) st = -1, e = errno;
  errno = e;
  return st;
}

/* Paths that name a stream rather than a place to keep a file: /dev/stderr
** and /proc/self/fd/N are symlinks that stat() sees as the regular file an
** fd was redirected to, and replacing them would swap out a system link. */
static int is_stream_path(const char *path) {
  return strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0;
}

/* Not a file to replace: write to it directly.  O_APPEND, so that a stream
** already redirected to a file (/dev/stderr with 2>log) is added to, not
** truncated; no O_CREAT, so that nothing new appears under /dev. */
static int write_direct(const li_profile *p, const char *format,
                        const char *path) {
  int fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY);
  if (fd < 0) return -1;
  FILE *f = fdopen(fd, "a");
  if (f == NULL) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return write_and_close(p, format, f, 0);
}

/* Create "<path>.XXXXXX" exclusively.  Not mkstemp: it creates the file
** 0600, and fixing that needs the umask, which only umask() reads, by
** setting it: a race with any other thread of a host creating files.
** open() with a mode applies the umask itself.  (Also heap.c's, which
** reads its scratch files back: O_RDWR.) */
int li_create_temp(const char *path, int oflag, mode_t mode, char **tmpname) {
  static const char alnum[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  size_t len = strlen(path);
  char *t = malloc(len + 8);
  struct timespec ts;
  uint64_t seed;
  if (t == NULL) return -1;
  clock_gettime(CLOCK_REALTIME, &ts);
  seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
         ((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)t;
  memcpy(t, path, len);
  t[len] = '.';
  t[len + 7] = '\0';
  for (int attempt = 0; attempt < 100; attempt++) {
    for (int i = 1; i <= 6; i++) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;  /* LCG */
      t[len + (size_t)i] = alnum[(seed >> 33) % (sizeof alnum - 1)];
    }
    int fd = open(t, oflag | O_CREAT | O_EXCL | O_NOCTTY, mode);
    if (fd >= 0) {
      *tmpname = t;
      return fd;
    }
    if (errno != EEXIST) break;
  }
  int e = errno;
  free(t);
  errno = e;
  return -1;
}

/* A regular file (or none yet): write "<target>.XXXXXX" and rename it onto
** target, so readers see the old report or the whole new one. */
static int write_replace(const li_profile *p, const char *format,
                         const char *target, const struct stat *old) {
  char *tmp = NULL;
  /* permission bits only: a report never inherits set-id or sticky bits */
  mode_t mode = old != NULL ? (old->st_mode & 0777) : 0644;
  int fd = li_create_temp(target, O_WRONLY, mode, &tmp);
  if (fd < 0) return -1;
  /* an existing report keeps its permissions, which the umask may have
  ** narrowed in open(); a failure here only leaves the narrower mode */
  if (old != NULL) (void)fchmod(fd, mode);
  FILE *f = fdopen(fd, "w");
  int st, e;
  if (f == NULL) {
    e = errno;
    close(fd);
    st = -1;
  } else {
    st = write_and_close(p, format, f, 1);
    e = errno;
  }
  if (st == 0 && rename(tmp, target) != 0) st = -1, e = errno;
  if (st != 0) unlink(tmp);
  free(tmp);
  errno = e;
  return st;
}

/* A symlink: a report it points to is replaced and the link kept; a link
** to a stream is written through; a dangling link is replaced by the report. */
static int write_via_link(const li_profile *p, const char *format,
                          const char *path) {
  struct stat st;
  char *real = realpath(path, NULL);
  int r, e;
  if (real == NULL)
    return errno == ENOENT ? write_replace(p, format, path, NULL) : -1;
  if (stat(real, &st) != 0) r = -1;
  else if (S_ISREG(st.st_mode)) r = write_replace(p, format, real, &st);
  else r = write_direct(p, format, path);
  e = errno;
  free(real);
  errno = e;
  return r;
}

static int is_binary(const char *format) {
  const format_entry *e = find_format(format);
  return e != NULL && e->binary;
}

int li_report_binary_tty(const char *format, FILE *f) {
  return is_binary(format) && isatty(fileno(f));
}

/* Would a binary format go to the terminal that path names? */
static int binary_to_tty(const char *format, const char *path) {
  int fd, tty;
  if (!is_binary(format)) return 0;
  if ((fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK)) < 0) return 0;
  tty = isatty(fd);
  close(fd);
  return tty;
}

int li_report_to_path(const li_profile *p, const char *format,
                      const char *path, char *err, size_t errlen) {
  struct stat st;
  int r;
  if (!li_report_known(format)) {
    if (err != NULL && errlen > 0) li_report_format_error(format, err, errlen);
    errno = EINVAL;
    return -1;
  }
  if (path == NULL || path[0] == '\0') {
    if (err != NULL && errlen > 0)
      snprintf(err, errlen, "cannot write report: no path given");
    errno = ENOENT;
    return -1;
  }
  if (binary_to_tty(format, path)) {
    if (err != NULL && errlen > 0)
      snprintf(err, errlen, LI_REPORT_BINARY_TTY, format);
    errno = EINVAL;
    return -1;
  }
  if (is_stream_path(path))
    r = write_direct(p, format, path);
  else if (lstat(path, &st) != 0)
    r = errno == ENOENT ? write_replace(p, format, path, NULL) : -1;
  else if (S_ISREG(st.st_mode))
    r = write_replace(p, format, path, &st);
  else if (S_ISLNK(st.st_mode))
    r = write_via_link(p, format, path);
  else                    /* a device, a FIFO, a socket; a directory fails */
    r = write_direct(p, format, path);
  if (r != 0) set_err(err, errlen, path, errno);
  return r;
}

/* The current directory in a malloc'd string, or NULL. */
static char *current_dir(void) {
  size_t cap = 256;
  for (;;) {
    char *buf = malloc(cap);
    if (buf == NULL) return NULL;
    if (getcwd(buf, cap) != NULL) return buf;
    free(buf);
    if (errno != ERANGE || cap > (1u << 20)) return NULL;
    cap *= 2;
  }
}

char *li_report_abspath(const char *path) {
  char *cwd, *abs;
  size_t nc, np;
  if (path == NULL || path[0] == '\0') return NULL;
  if (path[0] == '/') {
    abs = malloc(strlen(path) + 1);
    if (abs != NULL) strcpy(abs, path);
    return abs;
  }
  cwd = current_dir();
  if (cwd == NULL) return NULL;
  nc = strlen(cwd);
  np = strlen(path);
  abs = malloc(nc + 1 + np + 1);
  if (abs != NULL) {
    memcpy(abs, cwd, nc);
    abs[nc] = '/';           /* "/" + "/x": a double slash still names /x */
    memcpy(abs + nc + 1, path, np + 1);
  }
  free(cwd);
  return abs;
}

/* ---- JSON strings (json, chrome, html) ---------------------------------- */

void li_json_lstring(FILE *f, const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s, *end = p + len;
  putc('"', f);
  while (p < end) {
    unsigned c = *p;
    size_t n = li_utf8_len(p, (size_t)(end - p));
    if (n > 1) {
      if (n == 3 && c == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
        fprintf(f, "\\u%04x", p[2] == 0xa8 ? 0x2028u : 0x2029u);
      else
        fwrite(p, 1, n, f);
      p += n;
      continue;
    }
    p++;
    if (n == 0) fprintf(f, "\\u%04x", c);        /* not UTF-8: Latin-1 */
    else if (c == '"') fputs("\\\"", f);
    else if (c == '\\') fputs("\\\\", f);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\r') fputs("\\r", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c == '\b') fputs("\\b", f);
    else if (c == '\f') fputs("\\f", f);
    else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&')
      fprintf(f, "\\u%04x", c);      /* also safe inside <script> */
    else putc((int)c, f);
  }
  putc('"', f);
}

void li_json_string(FILE *f, const char *s) {
  if (s == NULL) fputs("null", f);
  else li_json_lstring(f, s, strlen(s));
}
