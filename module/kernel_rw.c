// SPDX-License-Identifier: GPL-2.0
/*
 * SETFS_IOC_KERNEL_READ and SETFS_IOC_KERNEL_WRITE: kernel_read() and
 * kernel_write() on a file the caller names, with a kernel buffer, as the
 * seed patch "fs: don't allow kernel reads and writes without iter ops"
 * defines them: only files with ->read_iter (->write_iter) and without
 * ->read (->write) are served, the others get -EINVAL.
 */
#include "setfs_probe.h"

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* Checks the request and opens its file; NULL when rw->open_ret says why. */
static struct file *setfs_rw_open(struct setfs_ctl_rw *rw, int flags,
				  long *err)
{
	struct file *file;

	*err = 0;
	rw->ret = 0;
	if (strnlen(rw->path, sizeof(rw->path)) == sizeof(rw->path)) {
		*err = -ENAMETOOLONG;
		return NULL;
	}
	if (rw->count > SETFS_CTL_RW_MAX) {
		*err = -EINVAL;
		return NULL;
	}
	file = filp_open(rw->path, flags, 0);
	if (IS_ERR(file)) {
		rw->open_ret = PTR_ERR(file);
		return NULL;
	}
	rw->open_ret = 0;
	return file;
}

/*
 * One kernel_read() or kernel_write() of rw->count bytes at rw->pos
 * between a kernel buffer and the user buffer rw->buf.
 */
static long setfs_ctl_kernel_rw(struct setfs_ctl_rw *rw, bool write)
{
	void __user *ubuf = u64_to_user_ptr(rw->buf);
	size_t len = max_t(size_t, rw->count, 1);
	struct file *file;
	loff_t pos = rw->pos;
	ssize_t ret;
	long err;
	void *buf;

	file = setfs_rw_open(rw, write ? O_WRONLY : O_RDONLY, &err);
	if (!file)
		return err;
	buf = kvzalloc(len, GFP_KERNEL);
	if (!buf) {
		err = -ENOMEM;
		goto out_close;
	}
	if (write) {
		if (copy_from_user(buf, ubuf, rw->count)) {
			err = -EFAULT;
			goto out_free_buf;
		}
		ret = kernel_write(file, buf, rw->count, &pos);
	} else {
		ret = kernel_read(file, buf, rw->count, &pos);
		if (ret > 0 && copy_to_user(ubuf, buf, ret)) {
			err = -EFAULT;
			goto out_free_buf;
		}
	}
	rw->ret = ret;
	rw->pos = pos;

out_free_buf:
	kvfree(buf);
out_close:
	filp_close(file, NULL);
	return err;
}

long setfs_ctl_kernel_read(void *arg)
{
	return setfs_ctl_kernel_rw(arg, false);
}

long setfs_ctl_kernel_write(void *arg)
{
	return setfs_ctl_kernel_rw(arg, true);
}
