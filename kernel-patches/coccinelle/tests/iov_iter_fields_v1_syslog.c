// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fixture for iov_iter_fields.cocci: the shape of v1's
 * do_syslog_read_iter() (patch 0046, kernel/printk/printk.c), which reads
 * the iov_iter's ubuf, nr_segs and iov fields to refuse a NULL buffer.
 * Each line that a rule must flag ends with an "expect:" comment.
 */

#include <linux/uio.h>

int do_syslog_read_iter(struct iov_iter *to, int source)
{
	int error;

	error = check_syslog_permissions(SYSLOG_ACTION_READ, source);
	if (error)
		return error;
	if ((iter_is_ubuf(to) && !to->ubuf) || /* expect: iov_iter_fields */
	    (iter_is_iovec(to) && to->nr_segs && !to->iov->iov_base)) /* expect: iov_iter_fields */
		return -EINVAL;
	if (!iov_iter_count(to))
		return 0;
	return syslog_print(to);
}
