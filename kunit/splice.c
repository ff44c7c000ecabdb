// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite setfs_splice: do_splice_direct(), the path of sendfile() and
 * copy_file_range() between file systems, after the seed patch "fs: don't
 * allow splice read/write without explicit ops".  With the fallbacks
 * default_file_splice_read/write gone, a file without ->splice_read cannot
 * be spliced from and a file without ->splice_write cannot be spliced to:
 * both give -EINVAL.
 *
 * do_splice_direct() is exported (fs/splice.c) and is what is used here,
 * called as do_sendfile() calls it (setfs_kunit_splice_direct(): the
 * range checks first, and file_start_write() around it where the caller
 * still has to take it).
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/splice.h>
#include <linux/uio.h>

#include "setfs_kunit.h"

enum setfs_splice_out {
	SETFS_OUT_TMPFS,		/* ->splice_write: iter_file_splice_write */
	SETFS_OUT_TMPFS_APPEND,		/* the same, opened O_APPEND */
	SETFS_OUT_WRITE_ITER,		/* ->write_iter, no ->splice_write */
	SETFS_OUT_PROC_WRITE,		/* /proc/setfs_probe: ->write only */
};

/*
 * Splice len bytes from path at pos (with pos_from_end, back from EOF) to
 * out at opos.  err 0: the fixture bytes from pos up to EOF arrive at opos
 * and both positions advance by as many; otherwise this errno and no
 * position moves.
 */
struct setfs_splice_case {
	const char *name;
	const char *path;
	loff_t pos;
	bool pos_from_end;
	size_t len;
	enum setfs_splice_out out;
	loff_t opos;
	int err;
};

static const struct setfs_splice_case setfs_splice_cases[] = {
	{ "proc_to_tmpfs_start", SETFS_PROC_PATH, 0, false, 100,
	  SETFS_OUT_TMPFS, 0 },
	{ "proc_to_tmpfs_cross_page", SETFS_PROC_PATH, PAGE_SIZE - 10, false, 50,
	  SETFS_OUT_TMPFS, 7 },
	{ "proc_to_tmpfs_whole_file", SETFS_PROC_PATH, 0, false, 1 << 20,
	  SETFS_OUT_TMPFS, 0 },
	{ "proc_to_tmpfs_over_max_rw", SETFS_PROC_PATH, 1000, false,
	  SETFS_OVER_MAX_RW, SETFS_OUT_TMPFS, PAGE_SIZE },
	{ "proc_to_tmpfs_tail", SETFS_PROC_PATH, 10, true, 100,
	  SETFS_OUT_TMPFS, 0 },
	{ "proc_to_tmpfs_at_eof", SETFS_PROC_PATH, 0, true, 100,
	  SETFS_OUT_TMPFS, 0 },
	{ "proc_to_tmpfs_append", SETFS_PROC_PATH, 0, false, 100,
	  SETFS_OUT_TMPFS_APPEND, 0, -EINVAL },
	{ "proc_to_write_iter_only", SETFS_PROC_PATH, 0, false, 100,
	  SETFS_OUT_WRITE_ITER, 0, -EINVAL },
	{ "proc_to_proc_write", SETFS_PROC_PATH, 0, false, 100,
	  SETFS_OUT_PROC_WRITE, 0, -EINVAL },
	{ "proc_legacy_to_tmpfs", SETFS_PROC_LEGACY_PATH, 0, false, 100,
	  SETFS_OUT_TMPFS, 0, -EINVAL },
	{ "dev_iter_to_tmpfs", SETFS_DEV_PATH, 0, false, 100,
	  SETFS_OUT_TMPFS, 0, -EINVAL },
	{ "dev_legacy_to_tmpfs", SETFS_DEV_LEGACY_PATH, 0, false, 100,
	  SETFS_OUT_TMPFS, 0, -EINVAL },
};

SETFS_PARAM_ARRAY(splice);

/* ->write_iter that counts its calls: splice must not fall back to it. */
static ssize_t setfs_count_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	unsigned int *calls = iocb->ki_filp->private_data;

	(*calls)++;
	return iov_iter_count(from);
}

static const struct file_operations setfs_write_iter_fops = {
	.owner		= THIS_MODULE,
	.llseek		= noop_llseek,
	.write_iter	= setfs_count_write_iter,
};

static struct file *setfs_splice_out_file(struct kunit *test,
					  enum setfs_splice_out out,
					  unsigned int *calls)
{
	struct file *file;

	switch (out) {
	case SETFS_OUT_TMPFS:
		return setfs_kunit_tmpfile(test, 0);
	case SETFS_OUT_TMPFS_APPEND:
		return setfs_kunit_tmpfile(test, O_APPEND);
	case SETFS_OUT_WRITE_ITER:
		file = setfs_kunit_anon_file(test, &setfs_write_iter_fops, calls,
					     O_WRONLY);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "anon file: %d",
				       PTR_ERR_OR_ZERO(file));
		return file;
	case SETFS_OUT_PROC_WRITE:
		return setfs_kunit_open_fixture(test, SETFS_PROC_PATH, O_WRONLY);
	}
	KUNIT_FAIL(test, "unknown output %d", out);
	return NULL;
}

static void setfs_splice_direct(struct kunit *test)
{
	const struct setfs_splice_case *c = test->param_value;
	size_t size = setfs_probe_size();
	loff_t start = c->pos_from_end ? size - c->pos : c->pos;
	size_t expect = c->err ? 0 : setfs_kunit_span(start, c->len, size);
	loff_t pos = start, opos = c->opos;
	unsigned int write_iter_calls = 0;
	struct file *in, *out;
	long ret;
	u8 *buf;

	in = setfs_kunit_open_fixture(test, c->path, O_RDONLY);
	out = setfs_splice_out_file(test, c->out, &write_iter_calls);
	KUNIT_ASSERT_NOT_NULL(test, out);

	ret = setfs_kunit_splice_direct(in, &pos, out, &opos, c->len);

	KUNIT_EXPECT_EQ(test, write_iter_calls, 0U);
	KUNIT_ASSERT_EQ(test, ret, c->err ? (long)c->err : (long)expect);
	KUNIT_EXPECT_EQ(test, pos, start + (loff_t)expect);
	KUNIT_EXPECT_EQ(test, opos, c->opos + (loff_t)expect);
	if (c->err || !expect)
		return;

	/* The output file holds the input's bytes at opos. */
	buf = kunit_kzalloc(test, expect, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, i_size_read(file_inode(out)),
			c->opos + (loff_t)expect);
	opos = c->opos;
	KUNIT_ASSERT_EQ(test, kernel_read(out, buf, expect, &opos),
			(ssize_t)expect);
	setfs_kunit_expect_pattern(test, buf, start, expect);
}

static struct kunit_case setfs_splice_test_cases[] = {
	KUNIT_CASE_PARAM(setfs_splice_direct, setfs_splice_gen_params),
	{}
};

struct kunit_suite setfs_splice_suite = {
	.name = "setfs_splice",
	.test_cases = setfs_splice_test_cases,
	.suite_exit = setfs_kunit_flush_fput,
};
