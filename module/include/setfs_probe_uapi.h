/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * setfs_probe: what user space and the KUnit suite share with the probe
 * module.  Included by the module, by kunit/ and by the user test binary.
 */
#ifndef _SETFS_PROBE_UAPI_H
#define _SETFS_PROBE_UAPI_H

/*
 * Fixtures.  Every one holds setfs_pattern_byte(pos) at offset pos and
 * seeks like a file of "size" bytes (SETFS_SIZE_PARAM).
 *
 * SETFS_PROC_PATH: ->proc_read_iter and ->proc_lseek.
 * SETFS_PROC_LEGACY_PATH: the same bytes through the old ->proc_read; only
 *	built against kernels whose struct proc_ops still has ->proc_read.
 */
#define SETFS_PROC_NAME		"setfs_probe"
#define SETFS_PROC_PATH		"/proc/" SETFS_PROC_NAME
#define SETFS_PROC_LEGACY_NAME	"setfs_probe_legacy"
#define SETFS_PROC_LEGACY_PATH	"/proc/" SETFS_PROC_LEGACY_NAME
#define SETFS_DEV_NAME		"setfs_probe"
#define SETFS_DEV_PATH		"/dev/" SETFS_DEV_NAME
#define SETFS_DEV_LEGACY_NAME	"setfs_probe_legacy"
#define SETFS_DEV_LEGACY_PATH	"/dev/" SETFS_DEV_LEGACY_NAME
#define SETFS_DEV_BOTH_NAME	"setfs_probe_both"
#define SETFS_DEV_BOTH_PATH	"/dev/" SETFS_DEV_BOTH_NAME
#define SETFS_CTL_NAME		"setfs_probe_ctl"
#define SETFS_CTL_PATH		"/dev/" SETFS_CTL_NAME
#define SETFS_SIZE_PARAM	"/sys/module/setfs_probe/parameters/size"

/*
 * setfs_pattern_byte() - the byte every fixture holds at offset @pos.
 *
 * Position dependent within a page and from page to page, so a read at a
 * wrong offset cannot return the expected bytes by accident.
 */
static inline unsigned char setfs_pattern_byte(unsigned long long pos)
{
	return (unsigned char)(pos ^ (pos >> 8) ^ (pos >> 16));
}

#endif /* _SETFS_PROBE_UAPI_H */
