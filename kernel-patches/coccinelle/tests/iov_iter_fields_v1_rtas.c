// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fixture for iov_iter_fields.cocci: the shape of v1's rtas_log_read()
 * (patch 0035, arch/powerpc/kernel/rtasd.c), which reads the iov_iter's
 * ubuf, nr_segs and iov fields to refuse a NULL buffer.  Each line that a
 * rule must flag ends with an "expect:" comment naming the rule.
 */

#include <linux/fs.h>
#include <linux/uio.h>

static ssize_t rtas_log_read(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	size_t count = iov_iter_count(to);
	int error;
	char *tmp;
	unsigned long s;
	unsigned long offset;

	if ((iter_is_ubuf(to) && !to->ubuf) || /* expect: iov_iter_fields */
	    (iter_is_iovec(to) && to->nr_segs && /* expect: iov_iter_fields */
	     !to->iov->iov_base) || /* expect: iov_iter_fields */
	    count < rtas_error_log_buffer_max)
		return -EINVAL;

	count = rtas_error_log_buffer_max;

	tmp = kmalloc(count, GFP_KERNEL);
	if (!tmp)
		return -ENOMEM;

	spin_lock_irqsave(&rtasd_log_lock, s);
	while (rtas_log_size == 0) {
		if (file->f_flags & O_NONBLOCK) {
			spin_unlock_irqrestore(&rtasd_log_lock, s);
			error = -EAGAIN;
			goto out;
		}
		spin_unlock_irqrestore(&rtasd_log_lock, s);
		error = wait_event_interruptible(rtas_log_wait, rtas_log_size);
		if (error)
			goto out;
		spin_lock_irqsave(&rtasd_log_lock, s);
	}
	offset = rtas_error_log_buffer_max * (rtas_log_start & LOG_NUMBER_MASK);
	memcpy(tmp, &rtas_log_buf[offset], count);
	rtas_log_start += 1;
	rtas_log_size -= 1;
	spin_unlock_irqrestore(&rtasd_log_lock, s);

	error = copy_to_iter(tmp, count, to) != count ? -EFAULT : count;
out:
	kfree(tmp);
	return error;
}

/* Other direct accesses: a local iov_iter and its fields. */
static size_t local_iter(char __user *buf, size_t len)
{
	struct iov_iter iter;
	struct iov_iter *i = &iter;

	iov_iter_ubuf(&iter, ITER_DEST, buf, len);
	if (iter.iter_type != ITER_UBUF) /* expect: iov_iter_fields */
		return 0;
	i->iov_offset = 0; /* expect: iov_iter_fields */
	return i->count; /* expect: iov_iter_fields */
}

/* A const pointer is an iov_iter all the same. */
static bool peek(const struct iov_iter *ci)
{
	return ci->data_source; /* expect: iov_iter_fields */
}
