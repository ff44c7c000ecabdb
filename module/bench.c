// SPDX-License-Identifier: GPL-2.0
/*
 * SETFS_IOC_BENCH_KERNEL_READ: the cost of one kernel_read() on a file the
 * caller names, measured inside the kernel so that the system call and the
 * copy to user space are not part of it.  Files without ->read_iter, or
 * with ->read as well, fail the first call with -EINVAL: that refusal is
 * what the seed patch "fs: don't allow kernel reads and writes without
 * iter ops" introduced, and the caller reports it as such.
 */
#include "setfs_probe.h"

#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

/* The bounds of setfs_probe_uapi.h: -EINVAL for a request outside them. */
static long setfs_bench_check(const struct setfs_ctl_bench *b)
{
	if (strnlen(b->path, sizeof(b->path)) == sizeof(b->path))
		return -ENAMETOOLONG;
	if (!b->calls || b->calls > SETFS_CTL_BENCH_CALLS_MAX)
		return -EINVAL;
	if (!b->count || b->count > SETFS_CTL_BENCH_COUNT_MAX)
		return -EINVAL;
	if (b->calls * b->count > SETFS_CTL_BENCH_BYTES_MAX)
		return -EINVAL;
	return 0;
}

long setfs_ctl_bench_kernel_read(void *arg)
{
	struct setfs_ctl_bench *b = arg;
	u64 calls = b->calls, done = 0, bytes = 0, start;
	struct file *file;
	ssize_t ret = 0;
	loff_t pos;
	long err;
	void *buf;

	err = setfs_bench_check(b);
	if (err)
		return err;
	b->calls = 0;
	b->ns = 0;
	b->bytes = 0;
	b->ret = 0;
	file = filp_open(b->path, O_RDONLY, 0);
	if (IS_ERR(file)) {
		b->open_ret = PTR_ERR(file);
		return 0;
	}
	b->open_ret = 0;
	buf = kvmalloc(b->count, GFP_KERNEL);
	if (!buf) {
		err = -ENOMEM;
		goto out_close;
	}

	start = ktime_get_ns();
	while (done < calls) {
		pos = 0;
		ret = kernel_read(file, buf, b->count, &pos);
		if (ret < 0)
			break;
		bytes += ret;
		done++;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	b->ns = ktime_get_ns() - start;
	b->calls = done;
	b->bytes = bytes;
	b->ret = ret;

	kvfree(buf);
out_close:
	filp_close(file, NULL);
	return err;
}
