// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/setfs_probe: a proc file that implements only ->proc_read_iter,
 * the method the seed patch "proc: add a read_iter method to proc
 * proc_ops" added, so kernel_read() and splice work on it.
 *
 * /proc/setfs_probe_legacy: the same bytes through the old ->proc_read,
 * which kernel_read() and splice refuse.  Built only when struct proc_ops
 * still has ->proc_read (module/Kbuild looks for it in the headers).
 */
#include "setfs_probe.h"

#include <linux/proc_fs.h>

static const struct proc_ops setfs_proc_ops = {
	.proc_read_iter	= setfs_data_read_iter,
	.proc_lseek	= setfs_data_llseek,
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

#ifdef SETFS_HAVE_PROC_READ
static ssize_t setfs_proc_legacy_read(struct file *file, char __user *buf,
				      size_t count, loff_t *ppos)
{
	return simple_read_from_buffer(buf, count, ppos, setfs_data,
				       setfs_data_size);
}

static const struct proc_ops setfs_proc_legacy_ops = {
	.proc_read	= setfs_proc_legacy_read,
	.proc_lseek	= setfs_data_llseek,
};

int setfs_proc_legacy_init(void)
{
	struct proc_dir_entry *pde;

	pde = proc_create(SETFS_PROC_LEGACY_NAME, 0444, NULL,
			  &setfs_proc_legacy_ops);
	if (!pde)
		return -ENOMEM;
	proc_set_size(pde, setfs_data_size);
	return 0;
}

void setfs_proc_legacy_exit(void)
{
	remove_proc_entry(SETFS_PROC_LEGACY_NAME, NULL);
}
#endif /* SETFS_HAVE_PROC_READ */
