// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_isolation: proof that a crashing case fails alone.  Only
 * with setfs_isolation_selftest=1 on the kernel command line (or as an
 * argument of setfs_user); otherwise the group has no case and is left
 * out of the report.  Its first case dies of SIGSEGV: the report must
 * show it failed with the signal named, and the next case and every later
 * group must still run (rootfs/ktap.c runs each group in a child and
 * starts a new one after a crash).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "setfs_user.h"

static enum case_result segfault(void)
{
	raise(SIGSEGV);
	diag("still running after SIGSEGV");
	return CASE_FAIL;
}

static enum case_result after_the_crash(void)
{
	return CASE_PASS;
}

static struct test_case isolation_cases[] = {
	{ "segfault", segfault },
	{ "after_the_crash", after_the_crash },
};

static struct ktap_table isolation_tables[] = {
	KTAP_TABLE(isolation_cases, run_test_case),
};

static void isolation_prepare(void)
{
	const char *on = getenv("setfs_isolation_selftest");

	if (!on || strcmp(on, "1"))
		isolation_tables[0].count = 0;
}

KTAP_GROUP(isolation_group) = {
	.name = "setfs_user_isolation",
	.order = 10,
	.tables = isolation_tables,
	.ntables = ARRAY_SIZE(isolation_tables),
	.prepare = isolation_prepare,
};
