// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite setfs_kernel_rw: kernel_read() on files with iter ops, as the
 * seed patch "fs: don't allow kernel reads and writes without iter ops"
 * requires.  Each row of the table is one case in the KTAP output.
 */
#include <linux/fs.h>
#include <linux/slab.h>

#include "setfs_kunit.h"

/* Where to read and how much; with pos_from_end, pos counts back from EOF. */
struct setfs_read_case {
	const char *name;
	const char *path;
	loff_t pos;
	bool pos_from_end;
	size_t count;
};

static const struct setfs_read_case setfs_read_cases[] = {
	{ "proc_iter_start",      SETFS_PROC_PATH, 0,             false, 100 },
	{ "proc_iter_mid_page",   SETFS_PROC_PATH, 1000,          false, 500 },
	{ "proc_iter_cross_page", SETFS_PROC_PATH, PAGE_SIZE - 7, false, 64 },
	{ "proc_iter_whole_file", SETFS_PROC_PATH, 0,             false, 1 << 20 },
	{ "proc_iter_tail",       SETFS_PROC_PATH, 10,            true,  100 },
	{ "proc_iter_at_eof",     SETFS_PROC_PATH, 0,             true,  100 },
};

SETFS_PARAM_ARRAY(read);

/* kernel_read() returns the pattern bytes and advances *pos by as many. */
static void setfs_kernel_read_pattern(struct kunit *test)
{
	const struct setfs_read_case *c = test->param_value;
	size_t size = setfs_probe_size();
	loff_t start, pos;
	size_t expect;
	struct file *file;
	ssize_t ret;
	u8 *buf;

	start = c->pos_from_end ? size - c->pos : c->pos;
	expect = start >= size ? 0 : min_t(size_t, c->count, size - start);
	buf = kunit_kzalloc(test, c->count, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	file = setfs_kunit_open_fixture(test, c->path, O_RDONLY);
	pos = start;
	ret = kernel_read(file, buf, c->count, &pos);

	KUNIT_ASSERT_EQ(test, ret, (ssize_t)expect);
	KUNIT_EXPECT_EQ(test, pos, start + (loff_t)expect);
	setfs_kunit_expect_pattern(test, buf, start, expect);
}

static struct kunit_case setfs_kernel_rw_cases[] = {
	KUNIT_CASE_PARAM(setfs_kernel_read_pattern, setfs_read_gen_params),
	{}
};

static struct kunit_suite setfs_kernel_rw_suite = {
	.name = "setfs_kernel_rw",
	.test_cases = setfs_kernel_rw_cases,
	.suite_exit = setfs_kunit_flush_fput,
};

kunit_test_suites(&setfs_kernel_rw_suite);
