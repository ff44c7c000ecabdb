// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite setfs_proc: proc entries with ->proc_read_iter, the method
 * the seed patch "proc: add a read_iter method to proc proc_ops" added.
 * Such an entry gets proc_iter_file_ops (->read_iter, no ->read), so
 * kernel_read() works on it; proc_reg_read_iter() wraps the method in
 * use_pde()/unuse_pde() and returns -EIO once the entry is removed.
 *
 * PROC_ENTRY_PERMANENT skips that guard, but include/linux/proc_fs.h
 * defines it as 0 when MODULE is defined: a module's entry can go away
 * with the module, so it is always guarded.  The suite checks both (the
 * permanent rows skip when the suite is built into the kernel, where the
 * flag is real and such an entry cannot be removed).
 */
#include <linux/fs.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "setfs_kunit.h"

#define SETFS_KPROC_NAME	"setfs_kunit_proc"

/*
 * Why the rows with PROC_ENTRY_PERMANENT in their ops cannot run when the
 * suite is built into the kernel: the flag is nonzero only there
 * (include/linux/proc_fs.h).
 */
#define SETFS_KPROC_PERMANENT_NA					\
	"built in, PROC_ENTRY_PERMANENT is the real flag: remove_proc_entry() would refuse the entry"

/*
 * A parameter's name, with the SKIP directive for a permanent row built
 * in: 6.1 prints a parameter's result without its directive (see
 * setfs_nf_typed_desc() in nofault.c), so the name carries it.
 */
static void setfs_kproc_desc(const char *name, const struct proc_ops *ops,
			     char *desc)
{
	if (ops->proc_flags & PROC_ENTRY_PERMANENT)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s # SKIP %s", name,
			 SETFS_KPROC_PERMANENT_NA);
	else
		strscpy(desc, name, KUNIT_PARAM_DESC_SIZE);
}

#define SETFS_KPROC_PATH	"/proc/" SETFS_KPROC_NAME
#define SETFS_KPROC_SIZE	1000

/* An entry made by a case; removed when the case ends unless it did. */
struct setfs_kproc {
	u8 data[SETFS_KPROC_SIZE];
	size_t chunk;		/* most bytes per ->proc_read_iter call; 0: any */
	unsigned int iter_calls;
	unsigned int read_calls;
	bool removed;
};

static ssize_t setfs_kproc_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct setfs_kproc *kp = pde_data(file_inode(iocb->ki_filp));
	size_t n;

	kp->iter_calls++;
	n = setfs_kunit_span(iocb->ki_pos, iov_iter_count(to), SETFS_KPROC_SIZE);
	if (kp->chunk)
		n = min(n, kp->chunk);
	n = copy_to_iter(kp->data + iocb->ki_pos, n, to);
	iocb->ki_pos += n;
	return n;
}

#ifdef SETFS_HAVE_PROC_READ
static ssize_t setfs_kproc_read(struct file *file, char __user *buf,
				size_t count, loff_t *pos)
{
	struct setfs_kproc *kp = pde_data(file_inode(file));

	kp->read_calls++;
	return simple_read_from_buffer(buf, count, pos, kp->data,
				       SETFS_KPROC_SIZE);
}
#endif

static ssize_t setfs_kproc_write(struct file *file, const char __user *buf,
				 size_t count, loff_t *pos)
{
	return count;
}

/*
 * The seeds' ->proc_read_iter entry: one call for the whole iterator and
 * splice.  With the procfs series for 6.12 an entry asks for that with
 * PROC_ENTRY_ITER_WHOLE; without it, it reads as a ->proc_read entry did
 * (setfs_kproc_seg_ops).
 */
#ifdef SETFS_HAVE_PROC_ITER_WHOLE
#define SETFS_KPROC_WHOLE	PROC_ENTRY_ITER_WHOLE
#else
#define SETFS_KPROC_WHOLE	0
#endif

static const struct proc_ops setfs_kproc_iter_ops = {
	.proc_flags	= SETFS_KPROC_WHOLE,
	.proc_read_iter	= setfs_kproc_read_iter,
};

static const struct proc_ops setfs_kproc_permanent_ops = {
	.proc_flags	= PROC_ENTRY_PERMANENT | SETFS_KPROC_WHOLE,
	.proc_read_iter	= setfs_kproc_read_iter,
};

#ifdef SETFS_HAVE_PROC_ITER_WHOLE
static const struct proc_ops setfs_kproc_seg_ops = {
	.proc_read_iter	= setfs_kproc_read_iter,
};
#endif

#ifdef SETFS_HAVE_PROC_READ
static const struct proc_ops setfs_kproc_read_ops = {
	.proc_read	= setfs_kproc_read,
};
#endif

/* No read method at all: read(2) has always given -EIO. */
static const struct proc_ops setfs_kproc_write_only_ops = {
	.proc_write	= setfs_kproc_write,
};

static int setfs_kproc_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void setfs_kproc_res_free(struct kunit_resource *res)
{
	struct setfs_kproc *kp = res->data;

	if (!kp->removed)
		remove_proc_entry(SETFS_KPROC_NAME, NULL);
}

static struct setfs_kproc *setfs_kproc_create(struct kunit *test,
					      const struct proc_ops *ops,
					      size_t chunk)
{
	struct setfs_kproc *kp;
	void *tracked;

	if (ops->proc_flags & PROC_ENTRY_PERMANENT)
		kunit_skip(test, SETFS_KPROC_PERMANENT_NA);
	kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kp);
	setfs_kunit_fill_pattern(kp->data, 0, SETFS_KPROC_SIZE);
	kp->chunk = chunk;
	KUNIT_ASSERT_NOT_NULL_MSG(test, proc_create_data(SETFS_KPROC_NAME, 0444,
							 NULL, ops, kp),
				  "cannot create %s", SETFS_KPROC_PATH);
	tracked = kunit_alloc_resource(test, setfs_kproc_res_init,
				       setfs_kproc_res_free, GFP_KERNEL, kp);
	if (!tracked)
		remove_proc_entry(SETFS_KPROC_NAME, NULL);
	KUNIT_ASSERT_NOT_NULL(test, tracked);
	return kp;
}

/*
 * One kernel_read() of count at pos from an entry whose method returns at
 * most chunk bytes a call: ret bytes come back and ki_pos moves as far.
 */
struct setfs_proc_case {
	const char *name;
	const struct proc_ops *ops;
	size_t chunk;
	loff_t pos;
	size_t count;
	ssize_t ret;
};

static const struct setfs_proc_case setfs_proc_cases[] = {
	{ "whole_entry",          &setfs_kproc_iter_ops, 0, 0, 4096, 1000 },
	{ "short_read",           &setfs_kproc_iter_ops, 100, 0, 1000, 100 },
	{ "short_read_mid",       &setfs_kproc_iter_ops, 100, 250, 1000, 100 },
	{ "request_under_chunk",  &setfs_kproc_iter_ops, 100, 0, 10, 10 },
	{ "short_read_near_eof",  &setfs_kproc_iter_ops, 100, 970, 100, 30 },
	{ "one_byte_at_last",     &setfs_kproc_iter_ops, 0, 999, 100, 1 },
	{ "at_eof",               &setfs_kproc_iter_ops, 0, 1000, 100, 0 },
	{ "past_eof",             &setfs_kproc_iter_ops, 0, 2000, 100, 0 },
	{ "permanent_whole_entry", &setfs_kproc_permanent_ops, 0, 0, 4096, 1000 },
	{ "permanent_short_read", &setfs_kproc_permanent_ops, 100, 250, 1000, 100 },
};

static void setfs_proc_desc(const struct setfs_proc_case *c, char *desc)
{
	setfs_kproc_desc(c->name, c->ops, desc);
}

KUNIT_ARRAY_PARAM(setfs_proc, setfs_proc_cases, setfs_proc_desc);

static void setfs_proc_read_iter_once(struct kunit *test)
{
	const struct setfs_proc_case *c = test->param_value;
	struct setfs_kproc *kp;
	struct file *file;
	loff_t pos = c->pos;
	ssize_t ret;
	u8 *buf;

	kp = setfs_kproc_create(test, c->ops, c->chunk);
	buf = kunit_kzalloc(test, c->count, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	file = setfs_kunit_open_fixture(test, SETFS_KPROC_PATH, O_RDONLY);

	ret = kernel_read(file, buf, c->count, &pos);
	KUNIT_ASSERT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, pos, c->pos + (loff_t)c->ret);
	KUNIT_EXPECT_EQ(test, kp->iter_calls, 1U);
	setfs_kunit_expect_pattern(test, buf, c->pos, c->ret);
}

/* Short reads in a loop: each one starts where ki_pos was left. */
static void setfs_proc_read_iter_loop(struct kunit *test)
{
	const size_t chunk = 64;
	struct setfs_kproc *kp;
	struct file *file;
	loff_t pos = 0;
	ssize_t ret;
	u8 *buf;

	kp = setfs_kproc_create(test, &setfs_kproc_iter_ops, chunk);
	buf = kunit_kzalloc(test, SETFS_KPROC_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	file = setfs_kunit_open_fixture(test, SETFS_KPROC_PATH, O_RDONLY);

	do {
		loff_t before = pos;

		ret = kernel_read(file, buf + pos, SETFS_KPROC_SIZE - pos, &pos);
		KUNIT_ASSERT_GE(test, ret, 0);
		KUNIT_ASSERT_LE_MSG(test, (size_t)ret, chunk, "at %lld", before);
		KUNIT_ASSERT_EQ(test, pos, before + ret);
	} while (ret);

	KUNIT_EXPECT_EQ(test, pos, SETFS_KPROC_SIZE);
	KUNIT_EXPECT_EQ(test, kp->iter_calls,
			DIV_ROUND_UP(SETFS_KPROC_SIZE, chunk) + 1);
	setfs_kunit_expect_pattern(test, buf, 0, SETFS_KPROC_SIZE);
}

/*
 * Which file operations proc_get_inode() picks for which proc_ops, and
 * what kernel_read() of the first bytes gives.  With ->proc_read gone from
 * struct proc_ops (the procfs series' last patch) every entry gets
 * ->read_iter, and one without any read method reads -EIO there too;
 * with the 6.12 series only PROC_ENTRY_ITER_WHOLE entries get
 * ->splice_read.
 */
struct setfs_proc_fops_case {
	const char *name;
	const struct proc_ops *ops;
	bool iter;
	bool splice;
	ssize_t kread;
};

#ifdef SETFS_HAVE_PROC_ITER_WHOLE
#define SETFS_KPROC_SEG_SPLICE	false
#else
#define SETFS_KPROC_SEG_SPLICE	true
#endif

static const struct setfs_proc_fops_case setfs_proc_fops_cases[] = {
	{ "proc_read_iter_entry", &setfs_kproc_iter_ops, true, true, 16 },
#ifdef SETFS_HAVE_PROC_ITER_WHOLE
	{ "proc_read_iter_seg_entry", &setfs_kproc_seg_ops, true, false, 16 },
#endif
#ifdef SETFS_HAVE_PROC_READ
	{ "proc_read_entry", &setfs_kproc_read_ops, false, false, -EINVAL },
	{ "write_only_entry", &setfs_kproc_write_only_ops, false, false,
	  -EINVAL },
#else
	{ "write_only_entry", &setfs_kproc_write_only_ops, true,
	  SETFS_KPROC_SEG_SPLICE, -EIO },
#endif
};

SETFS_PARAM_ARRAY(proc_fops);

static void setfs_proc_file_ops(struct kunit *test)
{
	const struct setfs_proc_fops_case *c = test->param_value;
	struct setfs_kproc *kp;
	struct file *file;
	loff_t pos = 0;
	u8 buf[16];

	kp = setfs_kproc_create(test, c->ops, 0);
	file = setfs_kunit_open_fixture(test, SETFS_KPROC_PATH, O_RDONLY);

	KUNIT_EXPECT_EQ(test, !!file->f_op->read_iter, c->iter);
	KUNIT_EXPECT_EQ(test, !!file->f_op->splice_read, c->splice);
	KUNIT_EXPECT_EQ(test, !file->f_op->read, c->iter);
	KUNIT_EXPECT_EQ(test, kernel_read(file, buf, sizeof(buf), &pos),
			c->kread);
	KUNIT_EXPECT_EQ(test, kp->read_calls, 0U);
}

/* A file opened before remove_proc_entry() reads -EIO after it. */
struct setfs_proc_remove_case {
	const char *name;
	const struct proc_ops *ops;
};

static const struct setfs_proc_remove_case setfs_proc_remove_cases[] = {
	{ "normal_entry",            &setfs_kproc_iter_ops },
	{ "permanent_flag_in_module", &setfs_kproc_permanent_ops },
};

static void setfs_proc_remove_desc(const struct setfs_proc_remove_case *c,
				   char *desc)
{
	setfs_kproc_desc(c->name, c->ops, desc);
}

KUNIT_ARRAY_PARAM(setfs_proc_remove, setfs_proc_remove_cases,
		  setfs_proc_remove_desc);

static void setfs_proc_read_after_remove(struct kunit *test)
{
	const struct setfs_proc_remove_case *c = test->param_value;
	struct setfs_kproc *kp;
	struct file *file;
	loff_t pos = 0;
	u8 buf[16];

	kp = setfs_kproc_create(test, c->ops, 0);
	file = setfs_kunit_open_fixture(test, SETFS_KPROC_PATH, O_RDONLY);
	KUNIT_ASSERT_EQ(test, kernel_read(file, buf, sizeof(buf), &pos),
			(ssize_t)sizeof(buf));

	remove_proc_entry(SETFS_KPROC_NAME, NULL);
	kp->removed = true;

	KUNIT_EXPECT_EQ(test, kernel_read(file, buf, sizeof(buf), &pos), -EIO);
	KUNIT_EXPECT_EQ(test, pos, (loff_t)sizeof(buf));
	KUNIT_EXPECT_EQ(test, kp->iter_calls, 1U);
	KUNIT_EXPECT_EQ(test, PTR_ERR(setfs_kunit_open(test, SETFS_KPROC_PATH,
						       O_RDONLY, 0)),
			(long)-ENOENT);
}

/*
 * Why the row above holds for the permanent flag too: modules get 0.  Built
 * in (riscv64-nommu) the flag is real, and the permanent rows skip.
 */
#ifdef SETFS_HAVE_PROC_ITER_WHOLE
/*
 * ->read_iter as io_uring calls it: inline under IOCB_NOWAIT, an entry
 * without PROC_ENTRY_ITER_WHOLE answers -EAGAIN before calling its method
 * unless the file is O_NONBLOCK (io_uring's loop_rw_iter() for a ->read
 * file), so io_uring reads it from a worker as before; a whole-iterator
 * entry reads.  0 bytes from an asynchronous kiocb (io_uring's worker) or
 * under IOCB_NOWAIT return 0 without a call, as loop_rw_iter() did; from
 * a synchronous kiocb without it (read(2) of 0 bytes) they call the
 * method.
 */
struct setfs_proc_nowait_case {
	const char *name;
	const struct proc_ops *ops;
	int flags;		/* open flags besides O_RDONLY */
	bool nowait;		/* IOCB_NOWAIT */
	bool async;		/* a ->ki_complete: not is_sync_kiocb() */
	size_t count;
	ssize_t ret;
	unsigned int calls;
};

static const struct setfs_proc_nowait_case setfs_proc_nowait_cases[] = {
	{ "whole_entry",        &setfs_kproc_iter_ops, 0, true, true, 16, 16, 1 },
	{ "seg_entry",          &setfs_kproc_seg_ops, 0, true, true, 16, -EAGAIN, 0 },
	{ "seg_entry_nonblock", &setfs_kproc_seg_ops, O_NONBLOCK, true, true, 16, 16, 1 },
	{ "seg_entry_worker",   &setfs_kproc_seg_ops, 0, false, true, 16, 16, 1 },
	{ "seg_entry_async_0",  &setfs_kproc_seg_ops, 0, false, true, 0, 0, 0 },
	{ "seg_entry_sync_0",   &setfs_kproc_seg_ops, 0, false, false, 0, 0, 1 },
	/* io_uring's multishot read: a sync kiocb under IOCB_NOWAIT */
	{ "seg_entry_nowait_0", &setfs_kproc_seg_ops, O_NONBLOCK, true, false, 0, 0, 0 },
};

static void setfs_proc_ki_complete(struct kiocb *iocb, long ret)
{
}

SETFS_PARAM_ARRAY(proc_nowait);

static void setfs_proc_nowait(struct kunit *test)
{
	const struct setfs_proc_nowait_case *c = test->param_value;
	struct setfs_kproc *kp;
	struct kiocb kiocb;
	struct iov_iter iter;
	struct kvec kv;
	struct file *file;
	u8 buf[16];

	kp = setfs_kproc_create(test, c->ops, 0);
	file = setfs_kunit_open_fixture(test, SETFS_KPROC_PATH,
					O_RDONLY | c->flags);
	init_sync_kiocb(&kiocb, file);
	if (c->nowait)
		kiocb.ki_flags |= IOCB_NOWAIT;
	if (c->async)
		kiocb.ki_complete = setfs_proc_ki_complete;
	kv.iov_base = buf;
	kv.iov_len = c->count;
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, c->count);
	KUNIT_EXPECT_EQ(test, file->f_op->read_iter(&kiocb, &iter), c->ret);
	KUNIT_EXPECT_EQ(test, kp->iter_calls, c->calls);
	KUNIT_EXPECT_EQ(test, kiocb.ki_pos, c->ret > 0 ? c->ret : 0);
}
#endif

static void setfs_proc_permanent_flag_in_module(struct kunit *test)
{
#ifdef MODULE
	KUNIT_EXPECT_EQ_MSG(test, PROC_ENTRY_PERMANENT, 0,
			    "proc_fs.h gives modules PROC_ENTRY_PERMANENT == 0");
#else
	KUNIT_EXPECT_EQ_MSG(test, PROC_ENTRY_PERMANENT, 1,
			    "proc_fs.h gives the kernel PROC_ENTRY_PERMANENT == 1");
#endif
}

static struct kunit_case setfs_proc_test_cases[] = {
	KUNIT_CASE_PARAM(setfs_proc_read_iter_once, setfs_proc_gen_params),
	KUNIT_CASE(setfs_proc_read_iter_loop),
	KUNIT_CASE_PARAM(setfs_proc_file_ops, setfs_proc_fops_gen_params),
	KUNIT_CASE_PARAM(setfs_proc_read_after_remove,
			 setfs_proc_remove_gen_params),
#ifdef SETFS_HAVE_PROC_ITER_WHOLE
	KUNIT_CASE_PARAM(setfs_proc_nowait, setfs_proc_nowait_gen_params),
#endif
	KUNIT_CASE(setfs_proc_permanent_flag_in_module),
	{}
};

struct kunit_suite setfs_proc_suite = {
	.name = "setfs_proc",
	.test_cases = setfs_proc_test_cases,
	.suite_exit = setfs_kunit_flush_fput,
};
