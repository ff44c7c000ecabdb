// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fixture for iov_iter_fields.cocci, clean: the v2 shape uses only the
 * <linux/uio.h> helpers; vfs_read() has already checked the user range.
 * Fields of other structures with the same names are not iov_iter fields.
 * No rule may flag this file.
 */

#include <linux/uio.h>

struct not_an_iter {
	size_t count;
	unsigned long nr_segs;
	void *ubuf;
};

int do_syslog_read_iter(struct iov_iter *to, int source)
{
	int error;

	error = check_syslog_permissions(SYSLOG_ACTION_READ, source);
	if (error)
		return error;
	if (!iov_iter_count(to))
		return 0;
	if (iov_iter_is_pipe(to) || !iter_is_iovec(to))
		return -EINVAL;
	return syslog_print(to);
}

static size_t other_fields(struct not_an_iter *n, struct iov_iter *to)
{
	n->count = iov_iter_count(to);
	n->nr_segs = 1;
	n->ubuf = NULL;
	iov_iter_advance(to, n->count);
	return n->count;
}
