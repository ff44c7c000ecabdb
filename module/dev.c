// SPDX-License-Identifier: GPL-2.0
/*
 * The fixture devices, one per combination of file methods the seed
 * patches treat differently:
 *
 * /dev/setfs_probe: ->read_iter/->write_iter and no ->splice_read or
 *	->splice_write, so kernel_read()/kernel_write() work and splice
 *	fails with -EINVAL ("fs: don't allow splice read/write without
 *	explicit ops").
 * /dev/setfs_probe_legacy: ->read/->write only, which kernel_read() and
 *	kernel_write() refuse ("fs: don't allow kernel reads and writes
 *	without iter ops").
 * /dev/setfs_probe_both: both kinds, which they refuse as well.
 *
 * Reads return the fixture pattern.  Writes store into one buffer shared
 * by the three devices (the store), initialised with the pattern; see
 * setfs_probe_uapi.h for the exact semantics.
 */
#include "setfs_probe.h"

#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

static u8 *setfs_store;
static DEFINE_MUTEX(setfs_store_lock);

/**
 * setfs_store_checksum() - checksum of the store the devices write into
 *
 * Return: setfs_checksum() of the setfs_data_size bytes of the store.
 */
u64 setfs_store_checksum(void)
{
	u64 sum;

	mutex_lock(&setfs_store_lock);
	sum = setfs_checksum(setfs_store, setfs_data_size);
	mutex_unlock(&setfs_store_lock);
	return sum;
}

/* How many of @count bytes at @pos fit in the store, or -errno. */
static ssize_t setfs_store_room(loff_t pos, size_t count)
{
	if (pos < 0)
		return -EINVAL;
	if (pos >= setfs_data_size)
		return -ENOSPC;
	return min_t(size_t, count, setfs_data_size - pos);
}

static ssize_t setfs_dev_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	ssize_t room;
	size_t copied;

	if (!iov_iter_count(from))
		return 0;
	room = setfs_store_room(iocb->ki_pos, iov_iter_count(from));
	if (room < 0)
		return room;
	mutex_lock(&setfs_store_lock);
	copied = copy_from_iter(setfs_store + iocb->ki_pos, room, from);
	mutex_unlock(&setfs_store_lock);
	if (!copied)
		return -EFAULT;
	iocb->ki_pos += copied;
	return copied;
}

static ssize_t setfs_dev_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	return simple_read_from_buffer(buf, count, ppos, setfs_data,
				       setfs_data_size);
}

/*
 * All or nothing, like the write() of most old drivers: the bytes go
 * through a bounce buffer, so a fault leaves the store untouched (a failed
 * copy_from_user() straight into the store would zero the rest).
 */
static ssize_t setfs_dev_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	ssize_t room;
	void *bounce;

	if (!count)
		return 0;
	room = setfs_store_room(*ppos, count);
	if (room < 0)
		return room;
	bounce = memdup_user(buf, room);
	if (IS_ERR(bounce))
		return PTR_ERR(bounce);
	mutex_lock(&setfs_store_lock);
	memcpy(setfs_store + *ppos, bounce, room);
	mutex_unlock(&setfs_store_lock);
	kfree(bounce);
	*ppos += room;
	return room;
}

static const struct file_operations setfs_dev_fops = {
	.owner		= THIS_MODULE,
	.llseek		= setfs_data_llseek,
	.read_iter	= setfs_data_read_iter,
	.write_iter	= setfs_dev_write_iter,
};

static const struct file_operations setfs_dev_legacy_fops = {
	.owner		= THIS_MODULE,
	.llseek		= setfs_data_llseek,
	.read		= setfs_dev_read,
	.write		= setfs_dev_write,
};

static const struct file_operations setfs_dev_both_fops = {
	.owner		= THIS_MODULE,
	.llseek		= setfs_data_llseek,
	.read		= setfs_dev_read,
	.read_iter	= setfs_data_read_iter,
	.write		= setfs_dev_write,
	.write_iter	= setfs_dev_write_iter,
};

static struct miscdevice setfs_devs[] = {
	{
		.minor	= MISC_DYNAMIC_MINOR,
		.name	= SETFS_DEV_NAME,
		.fops	= &setfs_dev_fops,
		.mode	= 0666,
	},
	{
		.minor	= MISC_DYNAMIC_MINOR,
		.name	= SETFS_DEV_LEGACY_NAME,
		.fops	= &setfs_dev_legacy_fops,
		.mode	= 0666,
	},
	{
		.minor	= MISC_DYNAMIC_MINOR,
		.name	= SETFS_DEV_BOTH_NAME,
		.fops	= &setfs_dev_both_fops,
		.mode	= 0666,
	},
};

static void setfs_dev_deregister(size_t count)
{
	while (count--)
		misc_deregister(&setfs_devs[count]);
}

int setfs_dev_init(void)
{
	size_t i;
	int ret;

	setfs_store = vmalloc(setfs_data_size);
	if (!setfs_store)
		return -ENOMEM;
	memcpy(setfs_store, setfs_data, setfs_data_size);

	for (i = 0; i < ARRAY_SIZE(setfs_devs); i++) {
		ret = misc_register(&setfs_devs[i]);
		if (ret) {
			pr_err("misc_register(%s): %d\n", setfs_devs[i].name,
			       ret);
			goto err_deregister;
		}
	}
	return 0;

err_deregister:
	setfs_dev_deregister(i);
	vfree(setfs_store);
	setfs_store = NULL;
	return ret;
}

void setfs_dev_exit(void)
{
	setfs_dev_deregister(ARRAY_SIZE(setfs_devs));
	vfree(setfs_store);
	setfs_store = NULL;
}
