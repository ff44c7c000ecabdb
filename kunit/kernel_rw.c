// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite setfs_kernel_rw: kernel_read() and kernel_write() after the
 * seed patch "fs: don't allow kernel reads and writes without iter ops".
 * They build an ITER_KVEC and call ->read_iter/->write_iter; a file with
 * only ->read/->write, or with both kinds of method, gets -EINVAL.
 * vfs_iter_read()/vfs_iter_write() move the same bytes for ITER_KVEC and
 * ITER_BVEC.  Each row of a table is one case in the KTAP output.
 */
#include <linux/bvec.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "setfs_kunit.h"

/*
 * Where to read or write and how much; with pos_from_end, pos counts back
 * from EOF.  err 0: the call covers the fixture bytes from pos up to EOF
 * and advances *pos by as many; otherwise it fails with err and leaves
 * *pos alone.
 */
struct setfs_rw_case {
	const char *name;
	const char *path;
	loff_t pos;
	bool pos_from_end;
	size_t count;
	int err;
};

#define SETFS_PAGE_EDGE	(PAGE_SIZE - 7)

static const struct setfs_rw_case setfs_read_cases[] = {
	/* ->proc_read_iter: proc_iter_file_ops has ->read_iter only */
	{ "proc_iter_start",       SETFS_PROC_PATH, 0, false, 100 },
	{ "proc_iter_mid_page",    SETFS_PROC_PATH, 1000, false, 500 },
	{ "proc_iter_cross_page",  SETFS_PROC_PATH, SETFS_PAGE_EDGE, false, 64 },
	{ "proc_iter_whole_file",  SETFS_PROC_PATH, 0, false, 1 << 20 },
	{ "proc_iter_tail",        SETFS_PROC_PATH, 10, true, 100 },
	{ "proc_iter_at_eof",      SETFS_PROC_PATH, 0, true, 100 },
	{ "proc_iter_over_max_rw", SETFS_PROC_PATH, 1000, false, SETFS_OVER_MAX_RW },
	/* ->proc_read: proc_reg_file_ops has ->read only */
	{ "proc_legacy_start",       SETFS_PROC_LEGACY_PATH, 0, false, 100, -EINVAL },
	{ "proc_legacy_mid_page",    SETFS_PROC_LEGACY_PATH, 1000, false, 500, -EINVAL },
	{ "proc_legacy_cross_page",  SETFS_PROC_LEGACY_PATH, SETFS_PAGE_EDGE, false, 64, -EINVAL },
	{ "proc_legacy_at_eof",      SETFS_PROC_LEGACY_PATH, 0, true, 100, -EINVAL },
	{ "proc_legacy_over_max_rw", SETFS_PROC_LEGACY_PATH, 1000, false, SETFS_OVER_MAX_RW,
	  -EINVAL },
	/* ->read_iter and ->write_iter */
	{ "dev_iter_start",       SETFS_DEV_PATH, 0, false, 100 },
	{ "dev_iter_mid_page",    SETFS_DEV_PATH, 1000, false, 500 },
	{ "dev_iter_cross_page",  SETFS_DEV_PATH, SETFS_PAGE_EDGE, false, 64 },
	{ "dev_iter_at_eof",      SETFS_DEV_PATH, 0, true, 100 },
	{ "dev_iter_over_max_rw", SETFS_DEV_PATH, 1000, false, SETFS_OVER_MAX_RW },
	/* ->read and ->write only */
	{ "dev_legacy_start",       SETFS_DEV_LEGACY_PATH, 0, false, 100, -EINVAL },
	{ "dev_legacy_mid_page",    SETFS_DEV_LEGACY_PATH, 1000, false, 500, -EINVAL },
	{ "dev_legacy_cross_page",  SETFS_DEV_LEGACY_PATH, SETFS_PAGE_EDGE, false, 64, -EINVAL },
	{ "dev_legacy_at_eof",      SETFS_DEV_LEGACY_PATH, 0, true, 100, -EINVAL },
	{ "dev_legacy_over_max_rw", SETFS_DEV_LEGACY_PATH, 1000, false, SETFS_OVER_MAX_RW,
	  -EINVAL },
	/* ->read and ->read_iter: refused, their semantics may differ */
	{ "dev_both_start",       SETFS_DEV_BOTH_PATH, 0, false, 100, -EINVAL },
	{ "dev_both_mid_page",    SETFS_DEV_BOTH_PATH, 1000, false, 500, -EINVAL },
	{ "dev_both_cross_page",  SETFS_DEV_BOTH_PATH, SETFS_PAGE_EDGE, false, 64, -EINVAL },
	{ "dev_both_at_eof",      SETFS_DEV_BOTH_PATH, 0, true, 100, -EINVAL },
	{ "dev_both_over_max_rw", SETFS_DEV_BOTH_PATH, 1000, false, SETFS_OVER_MAX_RW, -EINVAL },
};

SETFS_PARAM_ARRAY(read);

/*
 * Writes carry the fixture bytes of their range, so the store the devices
 * write into keeps holding the pattern for the user tests that run later.
 * A device write is short at the end of the store and fails with -ENOSPC
 * at or past it (setfs_probe_uapi.h).
 */
static const struct setfs_rw_case setfs_write_cases[] = {
	/* proc_iter_file_ops has ->write (proc_reg_write) but no ->write_iter */
	{ "proc_iter_start",       SETFS_PROC_PATH, 0, false, 100, -EINVAL },
	{ "proc_iter_mid_page",    SETFS_PROC_PATH, 1000, false, 500, -EINVAL },
	{ "proc_iter_cross_page",  SETFS_PROC_PATH, SETFS_PAGE_EDGE, false, 64, -EINVAL },
	{ "proc_iter_at_eof",      SETFS_PROC_PATH, 0, true, 100, -EINVAL },
	{ "proc_iter_over_max_rw", SETFS_PROC_PATH, 1000, false, SETFS_OVER_MAX_RW, -EINVAL },
	{ "proc_legacy_start",       SETFS_PROC_LEGACY_PATH, 0, false, 100, -EINVAL },
	{ "proc_legacy_mid_page",    SETFS_PROC_LEGACY_PATH, 1000, false, 500, -EINVAL },
	{ "proc_legacy_cross_page",  SETFS_PROC_LEGACY_PATH, SETFS_PAGE_EDGE, false, 64, -EINVAL },
	{ "proc_legacy_at_eof",      SETFS_PROC_LEGACY_PATH, 0, true, 100, -EINVAL },
	{ "proc_legacy_over_max_rw", SETFS_PROC_LEGACY_PATH, 1000, false, SETFS_OVER_MAX_RW,
	  -EINVAL },
	{ "dev_iter_start",       SETFS_DEV_PATH, 0, false, 100 },
	{ "dev_iter_mid_page",    SETFS_DEV_PATH, 1000, false, 500 },
	{ "dev_iter_cross_page",  SETFS_DEV_PATH, SETFS_PAGE_EDGE, false, 64 },
	{ "dev_iter_at_eof",      SETFS_DEV_PATH, 0, true, 100, -ENOSPC },
	{ "dev_iter_over_max_rw", SETFS_DEV_PATH, 100, true, SETFS_OVER_MAX_RW },
	{ "dev_iter_short_at_end", SETFS_DEV_PATH, 10, true, 100 },
	{ "dev_legacy_start",       SETFS_DEV_LEGACY_PATH, 0, false, 100, -EINVAL },
	{ "dev_legacy_mid_page",    SETFS_DEV_LEGACY_PATH, 1000, false, 500, -EINVAL },
	{ "dev_legacy_cross_page",  SETFS_DEV_LEGACY_PATH, SETFS_PAGE_EDGE, false, 64, -EINVAL },
	{ "dev_legacy_at_eof",      SETFS_DEV_LEGACY_PATH, 0, true, 100, -EINVAL },
	{ "dev_legacy_over_max_rw", SETFS_DEV_LEGACY_PATH, 1000, false, SETFS_OVER_MAX_RW,
	  -EINVAL },
	/* ->write and ->write_iter */
	{ "dev_both_start",       SETFS_DEV_BOTH_PATH, 0, false, 100, -EINVAL },
	{ "dev_both_mid_page",    SETFS_DEV_BOTH_PATH, 1000, false, 500, -EINVAL },
	{ "dev_both_cross_page",  SETFS_DEV_BOTH_PATH, SETFS_PAGE_EDGE, false, 64, -EINVAL },
	{ "dev_both_at_eof",      SETFS_DEV_BOTH_PATH, 0, true, 100, -EINVAL },
	{ "dev_both_over_max_rw", SETFS_DEV_BOTH_PATH, 1000, false, SETFS_OVER_MAX_RW, -EINVAL },
};

SETFS_PARAM_ARRAY(write);

static loff_t setfs_row_start(const struct setfs_rw_case *c, size_t size)
{
	return c->pos_from_end ? size - c->pos : c->pos;
}

/* kernel_read() returns the fixture bytes and advances *pos by as many. */
static void setfs_kernel_read_fixture(struct kunit *test)
{
	const struct setfs_rw_case *c = test->param_value;
	size_t size = setfs_probe_size();
	loff_t start = setfs_row_start(c, size);
	size_t expect = c->err ? 0 : setfs_kunit_span(start, c->count, size);
	struct file *file;
	loff_t pos = start;
	ssize_t ret;
	u8 *buf;

	/* No fixture fills more than its size, whatever count says. */
	buf = kunit_kzalloc(test, min(c->count, size), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	file = setfs_kunit_open_fixture(test, c->path, O_RDONLY);

	ret = kernel_read(file, buf, c->count, &pos);
	if (c->err) {
		KUNIT_EXPECT_EQ(test, ret, (ssize_t)c->err);
		KUNIT_EXPECT_EQ(test, pos, start);
		return;
	}
	KUNIT_ASSERT_EQ(test, ret, (ssize_t)expect);
	KUNIT_EXPECT_EQ(test, pos, start + (loff_t)expect);
	setfs_kunit_expect_pattern(test, buf, start, expect);
}

/* kernel_write() takes the bytes and advances *pos by as many. */
static void setfs_kernel_write_fixture(struct kunit *test)
{
	const struct setfs_rw_case *c = test->param_value;
	size_t size = setfs_probe_size();
	loff_t start = setfs_row_start(c, size);
	size_t expect = c->err ? 0 : setfs_kunit_span(start, c->count, size);
	size_t len = min(c->count, size);
	struct file *file;
	loff_t pos = start;
	ssize_t ret;
	u8 *buf;

	buf = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	setfs_kunit_fill_pattern(buf, start, len);
	file = setfs_kunit_open_fixture(test, c->path, O_WRONLY);

	ret = kernel_write(file, buf, c->count, &pos);
	KUNIT_EXPECT_EQ(test, ret, c->err ? (ssize_t)c->err : (ssize_t)expect);
	KUNIT_EXPECT_EQ(test, pos, start + (loff_t)expect);
}

/*
 * A file whose methods only record how they were called: which method,
 * how many bytes the iterator offered and whether it was an ITER_KVEC.
 * Reads return EOF; writes take everything, like /dev/null.
 */
struct setfs_recorder {
	unsigned int read_calls;
	unsigned int write_calls;
	unsigned int iter_calls;
	size_t seen;
	bool seen_kvec;
};

static ssize_t setfs_rec_read(struct file *file, char __user *buf,
			      size_t count, loff_t *pos)
{
	struct setfs_recorder *rec = file->private_data;

	rec->read_calls++;
	return 0;
}

static ssize_t setfs_rec_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *pos)
{
	struct setfs_recorder *rec = file->private_data;

	rec->write_calls++;
	return count;
}

static void setfs_rec_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	struct setfs_recorder *rec = iocb->ki_filp->private_data;

	rec->iter_calls++;
	rec->seen = iov_iter_count(iter);
	rec->seen_kvec = iov_iter_is_kvec(iter);
}

static ssize_t setfs_rec_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	setfs_rec_iter(iocb, to);
	return 0;
}

static ssize_t setfs_rec_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	setfs_rec_iter(iocb, from);
	return iov_iter_count(from);
}

static const struct file_operations setfs_rec_iter_fops = {
	.owner		= THIS_MODULE,
	.read_iter	= setfs_rec_read_iter,
	.write_iter	= setfs_rec_write_iter,
};

static const struct file_operations setfs_rec_read_iter_fops = {
	.owner		= THIS_MODULE,
	.read_iter	= setfs_rec_read_iter,
};

static const struct file_operations setfs_rec_read_fops = {
	.owner		= THIS_MODULE,
	.read		= setfs_rec_read,
};

static const struct file_operations setfs_rec_read_both_fops = {
	.owner		= THIS_MODULE,
	.read		= setfs_rec_read,
	.read_iter	= setfs_rec_read_iter,
};

static const struct file_operations setfs_rec_write_iter_fops = {
	.owner		= THIS_MODULE,
	.write_iter	= setfs_rec_write_iter,
};

static const struct file_operations setfs_rec_write_fops = {
	.owner		= THIS_MODULE,
	.write		= setfs_rec_write,
};

static const struct file_operations setfs_rec_write_both_fops = {
	.owner		= THIS_MODULE,
	.write		= setfs_rec_write,
	.write_iter	= setfs_rec_write_iter,
};

/* Which methods a file has, and what kernel_read/kernel_write make of it. */
struct setfs_ops_case {
	const char *name;
	const struct file_operations *fops;
	bool write;
	int err;
};

static const struct setfs_ops_case setfs_ops_cases[] = {
	{ "read_iter_only",       &setfs_rec_read_iter_fops,  false },
	{ "read_only",            &setfs_rec_read_fops,       false, -EINVAL },
	{ "read_and_read_iter",   &setfs_rec_read_both_fops,  false, -EINVAL },
	{ "read_without_methods", &setfs_rec_write_iter_fops, false, -EINVAL },
	{ "write_iter_only",      &setfs_rec_write_iter_fops, true },
	{ "write_only",           &setfs_rec_write_fops,      true,  -EINVAL },
	{ "write_and_write_iter", &setfs_rec_write_both_fops, true,  -EINVAL },
	{ "write_without_methods", &setfs_rec_read_iter_fops, true,  -EINVAL },
};

SETFS_PARAM_ARRAY(ops);

static struct setfs_recorder *setfs_recorder_file(struct kunit *test,
						  const struct file_operations *fops,
						  struct file **file)
{
	struct setfs_recorder *rec;

	rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	*file = setfs_kunit_anon_file(test, fops, rec, O_RDWR);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(*file), "anon file: %d",
			       PTR_ERR_OR_ZERO(*file));
	return rec;
}

/* Only ->read_iter/->write_iter are ever called, and only when alone. */
static void setfs_kernel_rw_methods(struct kunit *test)
{
	const struct setfs_ops_case *c = test->param_value;
	struct setfs_recorder *rec;
	struct file *file;
	char buf[16] = "setfs";
	loff_t pos = 0;
	ssize_t ret;

	rec = setfs_recorder_file(test, c->fops, &file);
	if (c->write)
		ret = kernel_write(file, buf, sizeof(buf), &pos);
	else
		ret = kernel_read(file, buf, sizeof(buf), &pos);

	KUNIT_EXPECT_EQ(test, rec->read_calls, 0U);
	KUNIT_EXPECT_EQ(test, rec->write_calls, 0U);
	if (c->err) {
		KUNIT_EXPECT_EQ(test, ret, (ssize_t)c->err);
		KUNIT_EXPECT_EQ(test, rec->iter_calls, 0U);
		return;
	}
	KUNIT_EXPECT_EQ(test, ret, c->write ? (ssize_t)sizeof(buf) : 0);
	KUNIT_EXPECT_EQ(test, rec->iter_calls, 1U);
	KUNIT_EXPECT_TRUE(test, rec->seen_kvec);
}

/*
 * The count the method sees: rw_verify_area() refuses a count that is
 * negative as ssize_t, then __kernel_read/__kernel_write clamp the kvec
 * to MAX_RW_COUNT.  seen 0: the method is not called.
 */
struct setfs_count_case {
	const char *name;
	bool write;
	size_t count;
	ssize_t ret;
	size_t seen;
};

static const struct setfs_count_case setfs_count_cases[] = {
	{ "read_one_byte",     false, 1, 0, 1 },
	{ "read_one_page",     false, PAGE_SIZE, 0, PAGE_SIZE },
	{ "read_max_rw",       false, MAX_RW_COUNT, 0, MAX_RW_COUNT },
	{ "read_max_rw_plus_1", false, MAX_RW_COUNT + 1UL, 0, MAX_RW_COUNT },
	{ "read_ssize_max",    false, SSIZE_MAX, 0, MAX_RW_COUNT },
	{ "read_negative",     false, SIZE_MAX, -EINVAL, 0 },
	{ "write_one_byte",    true, 1, 1, 1 },
	{ "write_one_page",    true, PAGE_SIZE, PAGE_SIZE, PAGE_SIZE },
	{ "write_max_rw",      true, MAX_RW_COUNT, MAX_RW_COUNT, MAX_RW_COUNT },
	{ "write_max_rw_plus_1", true, MAX_RW_COUNT + 1UL, MAX_RW_COUNT, MAX_RW_COUNT },
	{ "write_ssize_max",   true, SSIZE_MAX, MAX_RW_COUNT, MAX_RW_COUNT },
	{ "write_negative",    true, SIZE_MAX, -EINVAL, 0 },
};

SETFS_PARAM_ARRAY(count);

/* The method never touches the buffer, so a small one stands for any size. */
static void setfs_kernel_rw_count(struct kunit *test)
{
	const struct setfs_count_case *c = test->param_value;
	struct setfs_recorder *rec;
	struct file *file;
	char buf[16] = "setfs";
	loff_t pos = 0;
	ssize_t ret;

	rec = setfs_recorder_file(test, &setfs_rec_iter_fops, &file);
	if (c->write)
		ret = kernel_write(file, buf, c->count, &pos);
	else
		ret = kernel_read(file, buf, c->count, &pos);

	KUNIT_EXPECT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, rec->iter_calls, c->seen ? 1U : 0U);
	KUNIT_EXPECT_EQ(test, rec->seen, c->seen);
	KUNIT_EXPECT_EQ(test, pos, 0);
}

/*
 * vfs_iter_read()/vfs_iter_write() of [pos, pos + len): the same bytes
 * through an ITER_KVEC and through an ITER_BVEC.  A NULL path is a file on
 * tmpfs (write rows), written first with the kvec, then with the bvec.
 */
struct setfs_iter_case {
	const char *name;
	const char *path;
	loff_t pos;
	bool pos_from_end;
	size_t len;
	int err;
};

static const struct setfs_iter_case setfs_iter_read_cases[] = {
	{ "proc_iter_start",      SETFS_PROC_PATH, 0, false, 100 },
	{ "proc_iter_cross_page", SETFS_PROC_PATH, PAGE_SIZE - 5, false, 300 },
	{ "proc_iter_whole_file", SETFS_PROC_PATH, 0, false, 1 << 16 },
	{ "proc_iter_tail",       SETFS_PROC_PATH, 10, true, 100 },
	{ "dev_iter_start",       SETFS_DEV_PATH, 0, false, 100 },
	{ "dev_iter_cross_page",  SETFS_DEV_PATH, PAGE_SIZE - 5, false, 300 },
	{ "proc_legacy",          SETFS_PROC_LEGACY_PATH, 0, false, 100, -EINVAL },
	{ "dev_legacy",           SETFS_DEV_LEGACY_PATH, 0, false, 100, -EINVAL },
};

SETFS_PARAM_ARRAY(iter_read);

static const struct setfs_iter_case setfs_iter_write_cases[] = {
	{ "tmpfs_start",       NULL, 0, false, 100 },
	{ "tmpfs_cross_page",  NULL, PAGE_SIZE - 3, false, 10 },
	{ "tmpfs_three_pages", NULL, 123, false, 3 * PAGE_SIZE },
	{ "tmpfs_after_hole",  NULL, 5 * PAGE_SIZE + 1, false, 17 },
	{ "dev_iter_start",    SETFS_DEV_PATH, 0, false, 100 },
	{ "dev_iter_cross_page", SETFS_DEV_PATH, PAGE_SIZE - 5, false, 300 },
	{ "dev_legacy",        SETFS_DEV_LEGACY_PATH, 0, false, 100, -EINVAL },
};

SETFS_PARAM_ARRAY(iter_write);

/* One bio_vec per page that @buf (kmalloc memory) touches. */
static unsigned int setfs_buf_to_bvec(struct kunit *test, u8 *buf, size_t len,
				      struct bio_vec **bvec)
{
	unsigned int nr = DIV_ROUND_UP(offset_in_page(buf) + len, PAGE_SIZE);
	struct bio_vec *bv;
	unsigned int i;

	bv = kunit_kcalloc(test, max(nr, 1U), sizeof(*bv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bv);
	for (i = 0; i < nr; i++) {
		size_t seg = min_t(size_t, len, PAGE_SIZE - offset_in_page(buf));

		bv[i].bv_page = virt_to_page(buf);
		bv[i].bv_offset = offset_in_page(buf);
		bv[i].bv_len = seg;
		buf += seg;
		len -= seg;
	}
	*bvec = bv;
	return nr;
}

static void setfs_iter_prepare(struct kunit *test, unsigned int dir, bool bvec,
			       u8 *buf, size_t len, struct iov_iter *iter,
			       struct kvec *kvec)
{
	struct bio_vec *bv;
	unsigned int nr;

	if (bvec) {
		nr = setfs_buf_to_bvec(test, buf, len, &bv);
		iov_iter_bvec(iter, dir, bv, nr, len);
	} else {
		kvec->iov_base = buf;
		kvec->iov_len = len;
		iov_iter_kvec(iter, dir, kvec, 1, len);
	}
}

static void setfs_vfs_iter_read_kvec_bvec(struct kunit *test)
{
	const struct setfs_iter_case *c = test->param_value;
	size_t size = setfs_probe_size();
	loff_t start = c->pos_from_end ? size - c->pos : c->pos;
	size_t expect = c->err ? 0 : setfs_kunit_span(start, c->len, size);
	u8 *buf[2];
	int i;

	for (i = 0; i < 2; i++) {
		struct iov_iter iter;
		struct file *file;
		struct kvec kvec;
		loff_t pos = start;
		ssize_t ret;

		buf[i] = kunit_kzalloc(test, c->len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf[i]);
		setfs_iter_prepare(test, ITER_DEST, i, buf[i], c->len, &iter,
				   &kvec);
		file = setfs_kunit_open_fixture(test, c->path, O_RDONLY);

		ret = vfs_iter_read(file, &iter, &pos, 0);
		KUNIT_ASSERT_EQ_MSG(test, ret, c->err ? c->err : (ssize_t)expect,
				    "%s", i ? "ITER_BVEC" : "ITER_KVEC");
		KUNIT_EXPECT_EQ_MSG(test, pos, start + (loff_t)expect, "%s",
				    i ? "ITER_BVEC" : "ITER_KVEC");
		setfs_kunit_expect_pattern(test, buf[i], start, expect);
	}
	KUNIT_EXPECT_EQ(test, memcmp(buf[0], buf[1], c->len), 0);
}

static void setfs_vfs_iter_write_kvec_bvec(struct kunit *test)
{
	const struct setfs_iter_case *c = test->param_value;
	size_t expect = c->err ? 0 : c->len;
	u8 *buf, *back;
	int i;

	buf = kunit_kmalloc(test, c->len, GFP_KERNEL);
	back = kunit_kmalloc(test, c->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, back);
	setfs_kunit_fill_pattern(buf, c->pos, c->len);

	for (i = 0; i < 2; i++) {
		const char *kind = i ? "ITER_BVEC" : "ITER_KVEC";
		struct iov_iter iter;
		struct file *file;
		struct kvec kvec;
		loff_t pos = c->pos;
		ssize_t ret;

		if (c->path)
			file = setfs_kunit_open_fixture(test, c->path, O_RDWR);
		else
			file = setfs_kunit_tmpfile(test, 0);
		setfs_iter_prepare(test, ITER_SOURCE, i, buf, c->len, &iter,
				   &kvec);

		ret = setfs_kunit_iter_write(file, &iter, &pos);
		KUNIT_ASSERT_EQ_MSG(test, ret, c->err ? c->err : (ssize_t)expect,
				    "%s", kind);
		KUNIT_EXPECT_EQ_MSG(test, pos, c->pos + (loff_t)expect, "%s",
				    kind);
		if (c->err)
			continue;
		if (!c->path)
			KUNIT_EXPECT_EQ_MSG(test, i_size_read(file_inode(file)),
					    c->pos + (loff_t)c->len, "%s", kind);

		/* What the file holds now: the bytes written, read back. */
		memset(back, 0, c->len);
		pos = c->pos;
		ret = kernel_read(file, back, c->len, &pos);
		KUNIT_ASSERT_EQ_MSG(test, ret, (ssize_t)c->len, "%s", kind);
		setfs_kunit_expect_pattern(test, back, c->pos, c->len);
	}
}

static struct kunit_case setfs_kernel_rw_cases[] = {
	KUNIT_CASE_PARAM(setfs_kernel_read_fixture, setfs_read_gen_params),
	KUNIT_CASE_PARAM(setfs_kernel_write_fixture, setfs_write_gen_params),
	KUNIT_CASE_PARAM(setfs_kernel_rw_methods, setfs_ops_gen_params),
	KUNIT_CASE_PARAM(setfs_kernel_rw_count, setfs_count_gen_params),
	KUNIT_CASE_PARAM(setfs_vfs_iter_read_kvec_bvec,
			 setfs_iter_read_gen_params),
	KUNIT_CASE_PARAM(setfs_vfs_iter_write_kvec_bvec,
			 setfs_iter_write_gen_params),
	{}
};

struct kunit_suite setfs_kernel_rw_suite = {
	.name = "setfs_kernel_rw",
	.test_cases = setfs_kernel_rw_cases,
	.suite_exit = setfs_kunit_flush_fput,
};
