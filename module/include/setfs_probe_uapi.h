/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * setfs_probe: what user space and the KUnit suite share with the probe
 * module.  Included by the module, by kunit/ and by the user test binary.
 */
#ifndef _SETFS_PROBE_UAPI_H
#define _SETFS_PROBE_UAPI_H

#define SETFS_PROC_NAME		"setfs_probe"
#define SETFS_PROC_PATH		"/proc/" SETFS_PROC_NAME
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
