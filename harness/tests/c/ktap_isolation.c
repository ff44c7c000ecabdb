// SPDX-License-Identifier: GPL-2.0
/*
 * Drives rootfs/ktap.c on the host (test_ktap.py): groups whose cases
 * crash, exit, hang or skip, and one whose setup crashes.  Each group
 * must report every case, the broken ones failed with their cause, and
 * the later groups must still run.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../../rootfs/ktap.h"

static int passes;	/* in the group's process only: a later case sees 0 */

static enum case_result pass(void)
{
	passes++;
	return CASE_PASS;
}

static enum case_result segv(void)
{
	raise(SIGSEGV);
	return CASE_PASS;
}

static enum case_result skip(void)
{
	return ktap_skip("skipped on purpose");
}

static enum case_result quit(void)
{
	exit(7);
}

static enum case_result hang(void)
{
	for (;;)
		pause();
	return CASE_PASS;
}

static enum case_result fail(void)
{
	return CASE_FAIL;
}

/* after a crash the group goes on in a new process, from the next case */
static enum case_result counted(void)
{
	diag("passes in this process: %d", passes);
	return passes == 0 ? CASE_PASS : CASE_FAIL;
}

static const struct test_case crashy_cases[] = {
	{ "pass1", pass }, { "segv", segv }, { "counted", counted },
	{ "skip1", skip }, { "exit7", quit }, { "hang", hang },
	{ "fail1", fail }, { "pass2", pass },
};

static const struct ktap_group crashy = {
	.name = "crashy",
	KTAP_TABLES(KTAP_TABLE(crashy_cases, run_test_case)),
};

static const char *abort_setup(void)
{
	abort();
}

static const struct test_case two_cases[] = { { "a", pass }, { "b", pass } };

static const struct ktap_group setup_crash = {
	.name = "setup_crash",
	KTAP_TABLES(KTAP_TABLE(two_cases, run_test_case)),
	.setup = abort_setup,
};

static const struct ktap_group after = {
	.name = "after",
	KTAP_TABLES(KTAP_TABLE(two_cases, run_test_case)),
};

int main(void)
{
	const struct ktap_group *groups[] = { &crashy, &setup_crash, &after };
	bool selected[ARRAY_SIZE(groups)];
	unsigned int i, n = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ktap_set_filter(getenv("setfs_filter"));
	for (i = 0; i < ARRAY_SIZE(groups); i++)
		n += selected[i] = ktap_group_select(groups[i]) > 0;
	printf("KTAP version 1\n1..%u\n", n);
	for (i = 0, n = 0; i < ARRAY_SIZE(groups); i++)
		if (selected[i])
			failed += ktap_run_group(groups[i], ++n);
	printf("# failed %u\n", failed);
	return 0;
}
