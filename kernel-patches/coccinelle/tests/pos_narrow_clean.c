// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fixture for pos_narrow.cocci, clean: the v2 shape of
 * isapnp_proc_bus_read() keeps the position in a loff_t and compares it
 * with the size before any 32-bit arithmetic.  No rule may flag this file.
 */

#include <linux/fs.h>
#include <linux/uio.h>

static ssize_t isapnp_proc_bus_read(struct kiocb *iocb, struct iov_iter *to)
{
	struct pnp_dev *dev = pde_data(file_inode(iocb->ki_filp));
	size_t nbytes = iov_iter_count(to);
	loff_t pos = iocb->ki_pos;
	unsigned char buf[256];
	int i, size = 256;
	size_t copied;

	if (pos < 0 || pos >= size)
		return 0;
	if (nbytes > size - pos)
		nbytes = size - pos;
	if (!nbytes)
		return 0;

	isapnp_cfg_begin(dev->card->number, dev->number);
	for (i = 0; i < nbytes; i++)
		buf[i] = isapnp_read_byte(pos + i);
	isapnp_cfg_end();

	copied = copy_to_iter(buf, nbytes, to);
	if (!copied)
		return -EFAULT;
	iocb->ki_pos = pos + copied;
	return copied;
}

/* A 32-bit copy is fine once the loff_t is known to be below the size. */
static ssize_t pci_like_read(struct kiocb *iocb, struct iov_iter *to)
{
	unsigned int size = 4096;
	unsigned int off;
	loff_t pos = iocb->ki_pos;
	long long wide = iocb->ki_pos;
	loff_t end;
	size_t count;

	if (pos >= size)
		return 0;
	off = pos;
	end = pos + iov_iter_count(to);
	count = end - wide;
	return off + count;
}

/* Guards on the field itself and on *ppos, in statement and block form. */
static ssize_t guarded_old(struct kiocb *iocb, loff_t *ppos)
{
	unsigned int a, b;

	if (iocb->ki_pos >= 4096)
		return 0;
	a = iocb->ki_pos;
	if (*ppos < 0 || 4096 <= *ppos) {
		pr_debug("past the end\n");
		return -EINVAL;
	}
	b = *ppos;
	return a + b;
}

/* The same, compared first. */
static int stack_kiocb(struct file *file)
{
	struct kiocb kiocb;
	int where;

	init_sync_kiocb(&kiocb, file);
	if (kiocb.ki_pos > INT_MAX)
		return -EINVAL;
	where = kiocb.ki_pos;
	return where;
}
