// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/setfs_probe: a proc file that implements only ->proc_read_iter,
 * the method the seed patch "proc: add a read_iter method to proc
 * proc_ops" added, so kernel_read() and splice work on it.
 *
 * /proc/setfs_probe_legacy: the same bytes through the old ->proc_read,
 * which kernel_read() and splice refuse.  Built only when struct proc_ops
 * still has ->proc_read (module/Kbuild looks for it in the headers).
 *
 * SETFS_IOC_PROC_RECREATE removes both entries and creates them again
 * while the module stays loaded, for the removal races of the user tests.
 */
#include "setfs_probe.h"

#include <linux/mutex.h>
#include <linux/proc_fs.h>

/* Serialises the creation and removal of the entries below. */
static DEFINE_MUTEX(setfs_proc_lock);
static struct proc_dir_entry *setfs_proc_pde;

static const struct proc_ops setfs_proc_ops = {
#ifdef SETFS_HAVE_PROC_ITER_WHOLE
	/* the seeds' ->proc_read_iter entry: whole iterator, splice */
	.proc_flags	= PROC_ENTRY_ITER_WHOLE,
#endif
	.proc_read_iter	= setfs_data_read_iter,
	.proc_lseek	= setfs_data_llseek,
};

static int setfs_proc_add(struct proc_dir_entry **pde, const char *name,
			  const struct proc_ops *ops)
{
	*pde = proc_create(name, 0444, NULL, ops);
	if (!*pde)
		return -ENOMEM;
	proc_set_size(*pde, setfs_data_size);
	return 0;
}

/* proc_remove() waits for the readers inside the entry's methods. */
static void setfs_proc_del(struct proc_dir_entry **pde)
{
	proc_remove(*pde);
	*pde = NULL;
}

int setfs_proc_init(void)
{
	int ret;

	mutex_lock(&setfs_proc_lock);
	ret = setfs_proc_add(&setfs_proc_pde, SETFS_PROC_NAME,
			     &setfs_proc_ops);
	mutex_unlock(&setfs_proc_lock);
	return ret;
}

void setfs_proc_exit(void)
{
	mutex_lock(&setfs_proc_lock);
	setfs_proc_del(&setfs_proc_pde);
	mutex_unlock(&setfs_proc_lock);
}

#ifdef SETFS_HAVE_PROC_READ
static struct proc_dir_entry *setfs_proc_legacy_pde;

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
	int ret;

	mutex_lock(&setfs_proc_lock);
	ret = setfs_proc_add(&setfs_proc_legacy_pde, SETFS_PROC_LEGACY_NAME,
			     &setfs_proc_legacy_ops);
	mutex_unlock(&setfs_proc_lock);
	return ret;
}

void setfs_proc_legacy_exit(void)
{
	mutex_lock(&setfs_proc_lock);
	setfs_proc_del(&setfs_proc_legacy_pde);
	mutex_unlock(&setfs_proc_lock);
}
#endif /* SETFS_HAVE_PROC_READ */

/*
 * SETFS_IOC_PROC_RECREATE: both entries are removed before either is
 * created again.  An entry that cannot be created stays absent (module
 * unload copes with that) and the error is returned.
 */
long setfs_ctl_proc_recreate(void *arg)
{
	int ret;

	mutex_lock(&setfs_proc_lock);
	setfs_proc_del(&setfs_proc_pde);
#ifdef SETFS_HAVE_PROC_READ
	setfs_proc_del(&setfs_proc_legacy_pde);
#endif
	ret = setfs_proc_add(&setfs_proc_pde, SETFS_PROC_NAME,
			     &setfs_proc_ops);
#ifdef SETFS_HAVE_PROC_READ
	if (!ret)
		ret = setfs_proc_add(&setfs_proc_legacy_pde,
				     SETFS_PROC_LEGACY_NAME,
				     &setfs_proc_legacy_ops);
#endif
	mutex_unlock(&setfs_proc_lock);
	return ret;
}
