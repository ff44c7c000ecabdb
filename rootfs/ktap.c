// SPDX-License-Identifier: GPL-2.0
/*
 * The KTAP writer of setfs_user (see ktap.h).  Output is line buffered
 * and flushed before every case, so a crash still leaves every finished
 * result on stdout.
 */
#define _GNU_SOURCE	/* strchrnul() */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

static const char *filter;

void ktap_set_filter(const char *f)
{
	filter = f && *f ? f : NULL;
}

bool ktap_selected(const char *suite, const char *name)
{
	const char *p = filter, *end;
	char glob[256], *dot;
	size_t len;

	if (!p)
		return true;
	while (*p) {
		end = strchrnul(p, ',');
		len = (size_t)(end - p);
		if (len >= sizeof(glob))
			len = sizeof(glob) - 1;
		memcpy(glob, p, len);
		glob[len] = '\0';
		p = *end ? end + 1 : end;
		dot = strchr(glob, '.');
		if (dot)
			*dot++ = '\0';
		if (fnmatch(glob, suite, 0))
			continue;
		if (!name || !dot || !fnmatch(dot, name, 0))
			return true;
	}
	return false;
}

static const char *row_name(const struct ktap_table *tab, unsigned int i)
{
	const void *row = (const char *)tab->rows + i * tab->row_size;

	return *(const char * const *)row;
}

static unsigned int selected_count(const struct ktap_group *g)
{
	unsigned int t, i, n = 0;

	for (t = 0; t < g->ntables; t++)
		for (i = 0; i < g->tables[t].count; i++) {
			const char *name = row_name(&g->tables[t], i);

			n += name && ktap_selected(g->name, name);
		}
	return n;
}

unsigned int ktap_group_select(const struct ktap_group *g)
{
	if (!ktap_selected(g->name, NULL))
		return 0;
	if (g->prepare)
		g->prepare();
	return selected_count(g);
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

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

unsigned int ktap_run_group(const struct ktap_group *g, unsigned int number)
{
	const char *setup_err = NULL;
	unsigned int t, i, n = 0, failed = 0;
	double t0 = monotonic_seconds();

	printf("    KTAP version 1\n    # Subtest: %s\n    1..%u\n", g->name,
	       selected_count(g));
	fflush(stdout);
	if (g->setup)
		setup_err = g->setup();
	for (t = 0; t < g->ntables; t++) {
		const struct ktap_table *tab = &g->tables[t];

		for (i = 0; i < tab->count; i++) {
			const void *row = (const char *)tab->rows +
					  i * tab->row_size;
			const char *name = row_name(tab, i);
			enum case_result r;

			if (!name || !ktap_selected(g->name, name))
				continue;
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
	/* how long the group took: report_target() in run.sh tabulates it */
	printf("# setfs-time: %s %.2f\n", g->name, monotonic_seconds() - t0);
	fflush(stdout);
	return failed;
}
