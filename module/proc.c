// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/setfs_probe: a proc file that implements only ->proc_read_iter,
 * the method the seed patch "proc: add a read_iter method to proc
 * proc_ops" added, so kernel_read() and splice work on it.
 */
#include "setfs_probe.h"

#include <linux/proc_fs.h>

static loff_t setfs_proc_lseek(struct file *file, loff_t offset, int whence)
{
	return fixed_size_llseek(file, offset, whence, setfs_data_size);
}

static const struct proc_ops setfs_proc_ops = {
	.proc_read_iter	= setfs_data_read_iter,
	.proc_lseek	= setfs_proc_lseek,
};

int setfs_proc_init(void)
{
	struct proc_dir_entry *pde;

	pde = proc_create(SETFS_PROC_NAME, 0444, NULL, &setfs_proc_ops);
	if (!pde)
		return -ENOMEM;
	proc_set_size(pde, setfs_data_size);
	return 0;
}

void setfs_proc_exit(void)
{
	remove_proc_entry(SETFS_PROC_NAME, NULL);
}
