// SPDX-License-Identifier: GPL-2.0
/*
 * The KTAP writer of setfs_user (see ktap.h).  Output is line buffered
 * and flushed before every case, so a crash still leaves every finished
 * result on stdout.
 */
#include <stdio.h>

#include "ktap.h"

static const char *skip_reason;

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("    # ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

enum case_result ktap_skip(const char *reason)
{
	skip_reason = reason;
	return CASE_SKIP;
}

enum case_result run_test_case(const void *row)
{
	const struct test_case *c = row;

	return c->run();
}

static unsigned int ktap_group_count(const struct ktap_group *g)
{
	unsigned int i, n = 0;

	for (i = 0; i < g->ntables; i++)
		n += g->tables[i].count;
	return n;
}

static void ktap_result(unsigned int n, const char *name, enum case_result r)
{
	const char *reason = skip_reason;

	if (r == CASE_SKIP) {
		if (!reason)
			reason = "no reason given";
		printf("    ok %u %s # SKIP %s\n", n, name, reason);
	} else {
		printf("    %s %u %s\n", r == CASE_PASS ? "ok" : "not ok", n,
		       name);
	}
	fflush(stdout);
}

unsigned int ktap_run_group(const struct ktap_group *g, unsigned int number)
{
	const char *setup_err = NULL;
	unsigned int t, i, n = 0, failed = 0;

	if (g->prepare)
		g->prepare();
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%u\n", g->name,
	       ktap_group_count(g));
	fflush(stdout);
	if (g->setup)
		setup_err = g->setup();
	for (t = 0; t < g->ntables; t++) {
		const struct ktap_table *tab = &g->tables[t];

		for (i = 0; i < tab->count; i++) {
			const void *row = (const char *)tab->rows +
					  i * tab->row_size;
			const char *name = *(const char * const *)row;
			enum case_result r;

			skip_reason = NULL;
			if (setup_err) {
				diag("group setup failed: %s", setup_err);
				r = CASE_FAIL;
			} else {
				r = tab->run(row);
			}
			ktap_result(++n, name, r);
			failed += r == CASE_FAIL;
		}
	}
	if (g->teardown && !setup_err)
		g->teardown();
	printf("%s %u %s\n", failed ? "not ok" : "ok", number, g->name);
	fflush(stdout);
	return failed;
}
