// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fixture for pos_narrow.cocci: the shape of v1's isapnp_proc_bus_read()
 * (patch 0043), which narrows the loff_t file position to an int before it
 * is compared with the size.  Each line that a rule must flag ends with an
 * "expect:" comment naming the rule; no other line may be flagged.
 */

#include <linux/fs.h>
#include <linux/uio.h>

static ssize_t isapnp_proc_bus_read(struct kiocb *iocb, struct iov_iter *to)
{
	struct pnp_dev *dev = pde_data(file_inode(iocb->ki_filp));
	size_t nbytes = iov_iter_count(to);
	int pos = iocb->ki_pos; /* expect: pos_narrow */
	int i, size = 256;
	unsigned char buf[256];
	size_t copied;

	if (pos >= size)
		return 0;
	if (nbytes >= size)
		nbytes = size;
	if (pos + nbytes > size)
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

/* The ->proc_read shape of the same function (pristine 6.1). */
static ssize_t isapnp_proc_bus_read_old(struct file *file, char __user *buf,
					size_t nbytes, loff_t *ppos)
{
	int pos = *ppos; /* expect: pos_narrow */
	int cnt, size = 256;

	if (pos >= size)
		return 0;
	if (nbytes >= size)
		nbytes = size;
	if (pos + nbytes > size)
		nbytes = size - pos;
	cnt = nbytes;
	for (; pos < 256 && cnt > 0; pos++, buf++, cnt--)
		__put_user(isapnp_read_byte(pos), buf);
	*ppos = pos;
	return nbytes;
}

/* Other narrowing stores of a loff_t: assignments, casts, 32-bit types. */
static ssize_t narrow_assign(struct kiocb *iocb, struct iov_iter *to,
			     loff_t off, loff_t *ppos)
{
	unsigned int upos;
	u32 word;
	s32 sword;
	u16 half;
	unsigned char byte;
	loff_t local = off + 1;

	upos = iocb->ki_pos; /* expect: pos_narrow */
	word = *ppos; /* expect: pos_narrow */
	sword = (s32)off; /* expect: pos_narrow */
	half = local; /* expect: pos_narrow */
	byte = iocb->ki_pos; /* expect: pos_narrow */
	return upos + word + sword + half + byte;
}

/* A check that does not leave, or that only some paths pass, is no guard. */
static ssize_t half_guarded(struct kiocb *iocb, loff_t *ppos, int flag)
{
	unsigned int a, b;

	if (iocb->ki_pos >= 4096)
		pr_warn("large offset\n");
	a = iocb->ki_pos; /* expect: pos_narrow */
	if (flag) {
		if (*ppos >= 4096)
			return 0;
	}
	b = *ppos; /* expect: pos_narrow */
	return a + b;
}

/* A kiocb on the stack. */
static int stack_kiocb(struct file *file)
{
	struct kiocb kiocb;
	int where;

	init_sync_kiocb(&kiocb, file);
	where = kiocb.ki_pos; /* expect: pos_narrow */
	return where;
}
