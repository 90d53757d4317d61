/*
** chrome_check.h -- a chrome trace checked by a real JSON reader (Python's
** json module), shared by test_chrome.c and test_flight.c.
*/
#ifndef LI_TEST_CHROME_CHECK_H
#define LI_TEST_CHROME_CHECK_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "report.h"

/* The chrome trace of p read by Python's json module; check is Python code
** run on d (the document) and ev (its events); 0 when every assert holds. */
static inline int chrome_check(const li_profile *p, const char *check) {
  char path[] = "/tmp/li-chrome-XXXXXX", cmd[8192];
  int fd = mkstemp(path), st;
  FILE *f = fdopen(fd, "w");
  cr_assert_eq(li_report_write(p, "chrome", f), 0);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "python3 -c 'import json,sys\n"
           "d = json.load(open(sys.argv[1]))\n"
           "ev = d[\"traceEvents\"]\n"
           "%s' %s", check, path);
  st = system(cmd);
  remove(path);
  return st;
}

#endif
