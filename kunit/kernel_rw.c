// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite setfs_kernel_rw: kernel_read() on files with iter ops, as the
 * seed patch "fs: don't allow kernel reads and writes without iter ops"
 * requires.  Each row of the table is one case in the KTAP output.
 */
#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/slab.h>

#include "setfs_probe_api.h"

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

static void setfs_read_case_desc(const struct setfs_read_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(setfs_read, setfs_read_cases, setfs_read_case_desc);

/* kernel_read() returns the pattern bytes and advances *pos by as many. */
static void setfs_kernel_read_pattern(struct kunit *test)
{
	const struct setfs_read_case *c = test->param_value;
	size_t size = setfs_probe_size();
	loff_t start, pos;
	size_t expect, i;
	struct file *file;
	ssize_t ret;
	u8 *buf;

	start = c->pos_from_end ? size - c->pos : c->pos;
	expect = start >= size ? 0 : min_t(size_t, c->count, size - start);
	buf = kunit_kzalloc(test, c->count, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	file = filp_open(c->path, O_RDONLY, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "open %s: %ld", c->path,
			       PTR_ERR_OR_ZERO(file));
	pos = start;
	ret = kernel_read(file, buf, c->count, &pos);
	filp_close(file, NULL);

	KUNIT_ASSERT_EQ(test, ret, (ssize_t)expect);
	KUNIT_EXPECT_EQ(test, pos, start + (loff_t)expect);
	for (i = 0; i < expect; i++)
		KUNIT_ASSERT_EQ_MSG(test, buf[i], setfs_pattern_byte(start + i),
				    "byte at offset %lld", start + (loff_t)i);
}

static struct kunit_case setfs_kernel_rw_cases[] = {
	KUNIT_CASE_PARAM(setfs_kernel_read_pattern, setfs_read_gen_params),
	{}
};

static struct kunit_suite setfs_kernel_rw_suite = {
	.name = "setfs_kernel_rw",
	.test_cases = setfs_kernel_rw_cases,
};

kunit_test_suites(&setfs_kernel_rw_suite);

MODULE_DESCRIPTION("KUnit tests for the set_fs() removal");
MODULE_LICENSE("GPL");
