/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * setfs_probe: what user space and the KUnit suite share with the probe
 * module.  Included by the module, by kunit/ and by the user test binary.
 */
#ifndef _SETFS_PROBE_UAPI_H
#define _SETFS_PROBE_UAPI_H

#include <linux/types.h>

/*
 * Fixtures.  Every one holds setfs_pattern_byte(pos) at offset pos and
 * seeks like a file of "size" bytes (SETFS_SIZE_PARAM).
 *
 * SETFS_PROC_PATH: ->proc_read_iter and ->proc_lseek.
 * SETFS_PROC_LEGACY_PATH: the same bytes through the old ->proc_read; only
 *	built against kernels whose struct proc_ops still has ->proc_read.
 * SETFS_DEV_PATH: misc device with ->read_iter and ->write_iter, no
 *	->splice_read or ->splice_write.
 * SETFS_DEV_LEGACY_PATH: misc device with ->read and ->write only.
 * SETFS_DEV_BOTH_PATH: misc device with ->read, ->read_iter, ->write and
 *	->write_iter, the combination __kernel_read() and __kernel_write()
 *	refuse with -EINVAL.
 *
 * Reads of the three devices return the pattern, whatever was written.
 * Writes to any of them store the bytes at the file position into one
 * store shared by the three devices, a copy of the pattern made at load
 * time; the control device reports its checksum.  A write is short when it
 * reaches the end of the store and fails with -ENOSPC when it starts at
 * or beyond the end.  ->write_iter stores what it could copy (a fault
 * part way makes a short write, -EFAULT when nothing was copied); ->write
 * stores all or nothing (-EFAULT).
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

/*
 * setfs_checksum() - 64-bit FNV-1a of @len bytes at @buf.
 *
 * The checksum the control device reports for kernel buffers, so that
 * user space can compute the expected value itself.
 */
static inline __u64 setfs_checksum(const void *buf, unsigned long len)
{
	const unsigned char *p = (const unsigned char *)buf;
	__u64 sum = 0xcbf29ce484222325ULL;

	while (len--) {
		sum ^= *p++;
		sum *= 0x100000001b3ULL;
	}
	return sum;
}

#endif /* _SETFS_PROBE_UAPI_H */
