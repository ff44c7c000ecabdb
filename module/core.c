// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_probe: fixtures that show what the removal of set_fs() changed for
 * user space and for in-kernel callers of kernel_read(), splice and the
 * uaccess helpers.  Each area lives in its own file; the table below is the
 * index of what the module offers.
 */
#include "setfs_probe.h"

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/vmalloc.h>

static unsigned int size = 2 * PAGE_SIZE + 1808;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "bytes in every fixture (default: two pages and 1808 bytes)");

const u8 *setfs_data;
size_t setfs_data_size;

/* Created in this order at load, removed in the reverse order at unload. */
static const struct setfs_area setfs_areas[] = {
	{ "proc", setfs_proc_init, setfs_proc_exit },
#ifdef SETFS_HAVE_PROC_READ
	{ "proc_legacy", setfs_proc_legacy_init, setfs_proc_legacy_exit },
#endif
	{ "dev", setfs_dev_init, setfs_dev_exit },
	{ "nofault", setfs_nofault_init, setfs_nofault_exit },
	{ "ctl", setfs_ctl_init, setfs_ctl_exit },
};

/**
 * setfs_probe_size() - number of bytes every fixture holds
 *
 * Every fixture holds setfs_pattern_byte(pos) at offset pos, for pos
 * below this size.
 *
 * Return: the value of the "size" module parameter.
 */
size_t setfs_probe_size(void)
{
	return setfs_data_size;
}
EXPORT_SYMBOL_GPL(setfs_probe_size);

/**
 * setfs_data_read_iter() - read the fixture bytes at iocb->ki_pos
 * @iocb: the I/O control block; ki_pos advances by the bytes copied
 * @to: destination iterator
 *
 * Return: bytes copied, 0 at or past the end, -EFAULT when nothing could
 * be copied into @to, -EINVAL for a negative position.
 */
ssize_t setfs_data_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	loff_t pos = iocb->ki_pos;
	size_t want, copied;

	if (pos < 0)
		return -EINVAL;
	if (pos >= setfs_data_size || !iov_iter_count(to))
		return 0;
	want = min_t(size_t, iov_iter_count(to), setfs_data_size - pos);
	copied = copy_to_iter(setfs_data + pos, want, to);
	if (!copied)
		return -EFAULT;
	iocb->ki_pos += copied;
	return copied;
}

/**
 * setfs_data_llseek() - llseek of every fixture: a file of setfs_data_size
 * @file: the file
 * @offset: new position, relative to @whence
 * @whence: SEEK_SET, SEEK_CUR or SEEK_END
 *
 * Return: the new position, -EINVAL for other @whence values and for
 * positions below 0 or beyond setfs_data_size.
 */
loff_t setfs_data_llseek(struct file *file, loff_t offset, int whence)
{
	return fixed_size_llseek(file, offset, whence, setfs_data_size);
}

static void setfs_exit_areas(size_t count)
{
	while (count--) {
		setfs_areas[count].exit();
		pr_debug("%s: removed\n", setfs_areas[count].name);
	}
}

static int __init setfs_probe_init(void)
{
	u8 *data;
	size_t i;
	int ret;

	if (!size)
		return -EINVAL;
	data = vmalloc(size);
	if (!data)
		return -ENOMEM;
	for (i = 0; i < size; i++)
		data[i] = setfs_pattern_byte(i);
	setfs_data = data;
	setfs_data_size = size;

	for (i = 0; i < ARRAY_SIZE(setfs_areas); i++) {
		ret = setfs_areas[i].init();
		if (ret) {
			pr_err("%s: init failed: %d\n", setfs_areas[i].name, ret);
			goto err_exit_areas;
		}
	}
	pr_info("loaded: %zu bytes per fixture\n", setfs_data_size);
	return 0;

err_exit_areas:
	setfs_exit_areas(i);
	setfs_data = NULL;
	setfs_data_size = 0;
	vfree(data);
	return ret;
}

static void __exit setfs_probe_exit(void)
{
	setfs_exit_areas(ARRAY_SIZE(setfs_areas));
	vfree(setfs_data);
	pr_info("unloaded\n");
}

module_init(setfs_probe_init);
module_exit(setfs_probe_exit);
MODULE_DESCRIPTION("Fixtures for the set_fs() removal: proc, char devices, uaccess");
MODULE_LICENSE("GPL");
