/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP writer for the user test binary, in the kselftest style:
 * every group is a subtest of the document, every case a result in it.
 */
#ifndef _SETFS_KTAP_H
#define _SETFS_KTAP_H

#include <stdarg.h>
#include <stdio.h>

enum case_result { CASE_PASS, CASE_FAIL, CASE_SKIP };

struct test_case {
	const char *name;
	enum case_result (*run)(void);
};

struct test_group {
	const char *name;
	const struct test_case *cases;
	unsigned int count;
};

/* Diagnostic line inside the current case ("    # ..."). */
static inline void __attribute__((format(printf, 1, 2)))
diag(const char *fmt, ...)
{
	va_list ap;

	fputs("    # ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

/* Skip reason of the current case; printed with its result line. */
extern const char *skip_reason;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* _SETFS_KTAP_H */
