/*
** load_run.c -- run commands and measure each child: wall time, CPU time
** (user + system) and peak RSS, from wait4()'s rusage (bench/load.sh).
**
**   load_run [--each LIST] [--rotate K] -- CMD... [-- CMD...]...
**
** Without --each every command runs once.  With --each, for every path
** of LIST (one a line) every command runs once with each argument "{}"
** replaced by the path: the commands take turns file by file, in an order
** rotated by the file's index plus K, so that a slow phase of a shared
** machine falls on every command alike.  Children's stdin, stdout and
** stderr are /dev/null.  Prints one line per command:
**
**   cmd=I runs=N wall_ns=W cpu_ns=C maxrss_kb=M fails=F differ=D
**
** W and C are sums over the runs, M the largest peak of any run, F the
** runs that did not exit 0, D the files where the command's exit status
** is not that of command 0.  Exits 2 on a usage error or when a command
** cannot be started (or is killed by a signal), else 0.
*/
#define _DEFAULT_SOURCE  /* wait4 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXCMDS 8

/* One command and what its runs added up to. */
typedef struct command {
  char **argv;        /* the words, NULL-terminated (points into main's argv) */
  int argc;           /* how many */
  long long wall_ns;  /* sum of wall time */
  long long cpu_ns;   /* sum of user + system time */
  long maxrss_kb;     /* largest peak RSS */
  long runs, fails, differ;
} command;

static long long now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long tv_ns(struct timeval tv)
{
  return (long long)tv.tv_sec * 1000000000LL + (long long)tv.tv_usec * 1000LL;
}

/* Run c once, {} standing for path (NULL: none); returns its exit status,
** or -1 when it could not run or died of a signal (said on stderr). */
static int run_one(command *c, const char *path)
{
  char *argv[256];
  struct rusage ru;
  long long t0;
  int status, i;
  pid_t pid;
  if (c->argc >= 256) {
    fputs("load_run: command too long\n", stderr);
    return -1;
  }
  for (i = 0; i < c->argc; i++)
    argv[i] = path != NULL && strcmp(c->argv[i], "{}") == 0 ? (char *)path
                                                            : c->argv[i];
  argv[c->argc] = NULL;
  fflush(NULL);
  t0 = now_ns();
  pid = fork();
  if (pid < 0) {
    fprintf(stderr, "load_run: fork: %s\n", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY), nul = open("/dev/null", O_WRONLY);
    if (in < 0 || nul < 0) _exit(126);
    dup2(in, 0);
    dup2(nul, 1);
    dup2(nul, 2);
    execvp(argv[0], argv);
    _exit(127);
  }
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) {
      fprintf(stderr, "load_run: wait4: %s\n", strerror(errno));
      return -1;
    }
  }
  c->wall_ns += now_ns() - t0;
  c->cpu_ns += tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
  if (ru.ru_maxrss > c->maxrss_kb) c->maxrss_kb = ru.ru_maxrss;
  c->runs++;
  if (WIFSIGNALED(status)) {
    fprintf(stderr, "load_run: %s%s%s died of signal %d\n", argv[0],
            path ? " on " : "", path ? path : "", WTERMSIG(status));
    return -1;
  }
  status = WEXITSTATUS(status);
  if (status == 126 || status == 127) {
    fprintf(stderr, "load_run: cannot run %s (exit %d)\n", argv[0], status);
    return -1;
  }
  if (status != 0) c->fails++;
  return status;
}

/* Every command once, for path (or none), starting at command first. */
static int run_all(command *c, int n, const char *path, long first)
{
  int status[MAXCMDS], k;
  for (k = 0; k < n; k++) {
    int i = (int)((first + k) % n);
    if ((status[i] = run_one(&c[i], path)) < 0) return 0;
  }
  for (k = 1; k < n; k++)
    if (status[k] != status[0]) c[k].differ++;
  return 1;
}

static int usage(void)
{
  fputs("usage: load_run [--each LIST] [--rotate K] -- CMD... [-- CMD...]...\n",
        stderr);
  return 2;
}

int main(int argc, char **argv)
{
  command cmds[MAXCMDS];
  const char *list = NULL;
  long rotate = 0, index = 0;
  int n = 0, i = 1, ok = 1;
  memset(cmds, 0, sizeof cmds);
  for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
    if (i + 1 >= argc) return usage();
    if (strcmp(argv[i], "--each") == 0) list = argv[i + 1];
    else if (strcmp(argv[i], "--rotate") == 0) rotate = atol(argv[i + 1]);
    else return usage();
  }
  while (i < argc) {                    /* argv[i] is "--" */
    int j = ++i;
    while (i < argc && strcmp(argv[i], "--") != 0) i++;
    if (i == j || n == MAXCMDS) return usage();
    cmds[n].argv = &argv[j];
    cmds[n].argc = i - j;
    n++;
  }
  if (n == 0) return usage();
  if (list == NULL) {
    ok = run_all(cmds, n, NULL, rotate);
  } else {
    FILE *f = fopen(list, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    if (f == NULL) {
      fprintf(stderr, "load_run: cannot open %s: %s\n", list, strerror(errno));
      return 2;
    }
    while (ok && (len = getline(&line, &cap, f)) > 0) {
      while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = '\0';
      if (len > 0) ok = run_all(cmds, n, line, rotate + index++);
    }
    free(line);
    fclose(f);
  }
  if (!ok) return 2;
  for (i = 0; i < n; i++)
    printf("cmd=%d runs=%ld wall_ns=%lld cpu_ns=%lld maxrss_kb=%ld fails=%ld"
           " differ=%ld\n", i, cmds[i].runs, cmds[i].wall_ns, cmds[i].cpu_ns,
           cmds[i].maxrss_kb, cmds[i].fails, cmds[i].differ);
  return 0;
}
