/*
** json_check.h -- a strict JSON validator (RFC 8259) for the fuzz targets:
** one value with optional whitespace around it, strings of valid UTF-8 with
** only the escapes JSON has, no control characters, numbers as the grammar
** says (no NaN, no Infinity, no leading zeros).
*/
#ifndef LI_FUZZ_JSON_CHECK_H
#define LI_FUZZ_JSON_CHECK_H

#include <stddef.h>

/* 1 if s[0..n) is one valid JSON text; 0 with a message in err (which
** names the offset) otherwise. */
int fz_json_valid(const char *s, size_t n, char *err, size_t errlen);

#endif
