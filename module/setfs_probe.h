/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SETFS_PROBE_H
#define _SETFS_PROBE_H

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/types.h>
#include <linux/uio.h>

#include "setfs_probe_api.h"

/* The fixture contents shared by every file of the module (core.c). */
extern const u8 *setfs_data;
extern size_t setfs_data_size;

ssize_t setfs_data_read_iter(struct kiocb *iocb, struct iov_iter *to);
loff_t setfs_data_llseek(struct file *file, loff_t offset, int whence);

/*
 * One area of the probe (proc.c, ...): what it creates at load and
 * removes at unload.  The table in core.c is the index of the module.
 */
struct setfs_area {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
};

/* proc.c: /proc/setfs_probe and, with ->proc_read, /proc/setfs_probe_legacy */
int setfs_proc_init(void);
void setfs_proc_exit(void);
#ifdef SETFS_HAVE_PROC_READ
int setfs_proc_legacy_init(void);
void setfs_proc_legacy_exit(void);
#endif

/* dev.c: the three fixture devices and the store their writes fill */
int setfs_dev_init(void);
void setfs_dev_exit(void);
u64 setfs_store_checksum(void);

/* nofault.c: the address classes of SETFS_IOC_NOFAULT */
int setfs_nofault_init(void);
void setfs_nofault_exit(void);

/* ctl.c: the control device and its ioctl table */
int setfs_ctl_init(void);
void setfs_ctl_exit(void);

/* One handler per ioctl of the control device; @arg is its structure. */
long setfs_ctl_kernel_read(void *arg);
long setfs_ctl_kernel_write(void *arg);
long setfs_ctl_uaccess(void *arg);
long setfs_ctl_nofault(void *arg);
long setfs_ctl_bench_kernel_read(void *arg);
long setfs_ctl_proc_recreate(void *arg);

#endif /* _SETFS_PROBE_H */
