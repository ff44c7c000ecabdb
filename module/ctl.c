// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/setfs_probe_ctl: runs kernel_read()/kernel_write(), the uaccess
 * helpers and the nofault helpers in the context of the calling task, for
 * the user test binary.  The ioctls are documented in setfs_probe_uapi.h;
 * the table below maps each to its handler (kernel_rw.c, uaccess.c,
 * nofault.c, proc.c, bench.c).
 */
#include "setfs_probe.h"

#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* A module global whose kernel address user space gets from INFO. */
static u8 setfs_kbuf[256];

static long setfs_ctl_info(void *arg)
{
	struct setfs_ctl_info *info = arg;

	info->task_size_max = TASK_SIZE_MAX;
	info->page_size = PAGE_SIZE;
	info->size = setfs_data_size;
	info->kbuf_addr = (unsigned long)setfs_kbuf;
	info->kbuf_size = sizeof(setfs_kbuf);
	info->kbuf_sum = setfs_checksum(setfs_kbuf, sizeof(setfs_kbuf));
	info->store_sum = setfs_store_checksum();
	info->flags = 0;
#ifdef SETFS_HAVE_PROC_READ
	info->flags |= SETFS_INFO_PROC_LEGACY | SETFS_INFO_PROC_OPS_READ;
#endif
#ifdef SETFS_HAVE_PROC_ITER_WHOLE
	info->flags |= SETFS_INFO_PROC_ITER_WHOLE;
#endif
	if (SETFS_CLEAR_USER_WHOLE)
		info->flags |= SETFS_INFO_CLEAR_USER_WHOLE;
	if (SETFS_SEPARATE_USER_SPACE)
		info->flags |= SETFS_INFO_SEPARATE_USER_SPACE;
	if (SETFS_ACCESS_OK_ALL)
		info->flags |= SETFS_INFO_ACCESS_OK_ALL;
	if (SETFS_NF_TOP_ALLOWED)
		info->flags |= SETFS_INFO_NF_TOP_ALLOWED;
	info->nf_user_ret = SETFS_NF_USER_RET;
	info->nf_layout = SETFS_LAYOUT;
	info->uaccess_slack = SETFS_UACCESS_SLACK;
#ifdef CONFIG_SPARSEMEM
	info->section_size_bits = SECTION_SIZE_BITS;
#else
	info->section_size_bits = 0;
#endif
	/*
	 * riscv defines DEFAULT_MAP_WINDOW on 64-bit without an MMU too, in
	 * terms of MMU-only macros.
	 */
#if defined(CONFIG_MMU) && defined(DEFAULT_MAP_WINDOW)
	info->mmap_window = DEFAULT_MAP_WINDOW;
#elif defined(CONFIG_X86_64) || defined(CONFIG_PPC64) || defined(CONFIG_ARM64)
#error "DEFAULT_MAP_WINDOW is gone: what bounds mmap() without a hint now?"
#else
	info->mmap_window = TASK_SIZE;
#endif
	/* <linux/uaccess.h> defines it where copy_from_user() may mask */
#ifdef can_do_masked_user_access
	if (can_do_masked_user_access())
		info->flags |= SETFS_INFO_MASKED_USER_COPY;
#endif
	return 0;
}

/* Every structure an ioctl of the table can carry. */
union setfs_ctl_arg {
	struct setfs_ctl_info info;
	struct setfs_ctl_rw rw;
	struct setfs_ctl_uaccess uaccess;
	struct setfs_ctl_nofault nofault;
	struct setfs_ctl_bench bench;
};

struct setfs_ctl_cmd {
	unsigned int cmd;
	const char *name;
	long (*handler)(void *arg);
};

static const struct setfs_ctl_cmd setfs_ctl_cmds[] = {
	{ SETFS_IOC_INFO, "info", setfs_ctl_info },
	{ SETFS_IOC_KERNEL_READ, "kernel_read", setfs_ctl_kernel_read },
	{ SETFS_IOC_KERNEL_WRITE, "kernel_write", setfs_ctl_kernel_write },
	{ SETFS_IOC_UACCESS, "uaccess", setfs_ctl_uaccess },
	{ SETFS_IOC_NOFAULT, "nofault", setfs_ctl_nofault },
	{ SETFS_IOC_BENCH_KERNEL_READ, "bench_kernel_read",
	  setfs_ctl_bench_kernel_read },
	{ SETFS_IOC_PROC_RECREATE, "proc_recreate", setfs_ctl_proc_recreate },
};

static long setfs_ctl_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	const struct setfs_ctl_cmd *c = NULL;
	union setfs_ctl_arg karg;
	size_t size = _IOC_SIZE(cmd);
	size_t i;
	long ret;

	for (i = 0; i < ARRAY_SIZE(setfs_ctl_cmds); i++) {
		if (setfs_ctl_cmds[i].cmd == cmd) {
			c = &setfs_ctl_cmds[i];
			break;
		}
	}
	if (!c)
		return -ENOTTY;
	BUILD_BUG_ON(sizeof(karg) > _IOC_SIZEMASK);
	if (WARN_ON_ONCE(size > sizeof(karg)))
		return -ENOTTY;

	memset(&karg, 0, sizeof(karg));
	if ((_IOC_DIR(cmd) & _IOC_WRITE) && copy_from_user(&karg, uarg, size))
		return -EFAULT;
	ret = c->handler(&karg);
	pr_debug("%s: %ld\n", c->name, ret);
	if (ret)
		return ret;
	if ((_IOC_DIR(cmd) & _IOC_READ) && copy_to_user(uarg, &karg, size))
		return -EFAULT;
	return 0;
}

static const struct file_operations setfs_ctl_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= setfs_ctl_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice setfs_ctl_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= SETFS_CTL_NAME,
	.fops	= &setfs_ctl_fops,
	.mode	= 0600,
};

int setfs_ctl_init(void)
{
	size_t i;

	for (i = 0; i < sizeof(setfs_kbuf); i++)
		setfs_kbuf[i] = setfs_pattern_byte(i);
	return misc_register(&setfs_ctl_dev);
}

void setfs_ctl_exit(void)
{
	misc_deregister(&setfs_ctl_dev);
}
