/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arch.h: what the user test binary knows about the architecture it is
 * compiled for, and cannot ask the running kernel (SETFS_IOC_INFO,
 * /proc/cpuinfo, /root/kernel.config) or the target record (setfs_*
 * words on the kernel command line).  The only #if chains on the
 * architecture in rootfs/ are here: paging detection and ARM's old ABI.
 * A new architecture needs nothing here: without a branch its paging
 * mode is the record's, and it has no old ABI.
 */
#ifndef _SETFS_ARCH_H
#define _SETFS_ARCH_H

#include <errno.h>
#include <stdbool.h>

/*
 * arch_paging(): the paging mode the CPU and kernel run, by what
 * /proc/cpuinfo shows, and the TASK_SIZE_MAX that mode gives; NULL when
 * it cannot tell.  ARCH_PAGING_VISIBLE: whether it can on this
 * architecture (else the record's setfs_task_size_max is all the paging
 * group checks, and a NULL on an architecture where it can is a failure).
 * What the kernel knows (the nofault rows' layout, how short of a fault
 * a user copy may stop, ...) it says itself: SETFS_IOC_INFO.
 */
#if defined(__x86_64__) || defined(__powerpc64__) || \
	(defined(__riscv) && __riscv_xlen == 64)
#define ARCH_PAGING_VISIBLE	1
#else
#define ARCH_PAGING_VISIBLE	0
#endif

const char *arch_paging(unsigned long long page_size, unsigned long long *want);

/*
 * 32-bit ARM kernels with CONFIG_OABI_COMPAT take a system call made with
 * "swi #(0x900000 + nr)" from ARM code as an old-ABI call, with the old
 * ABI's struct layouts.  ARCH_OABI: this binary can make such calls;
 * arch_oabi_syscall() makes one of the calls user_oabi.c uses (-EOPNOTSUPP
 * for any other number, or without ARCH_OABI), returning what the
 * kernel returns (-errno on failure).
 */
#if defined(__arm__) && !defined(__aarch64__)
#define ARCH_OABI		1
#else
#define ARCH_OABI		0
#endif
#define OABI_NR_IPC		117
#define OABI_NR_FCNTL64		221
#define OABI_NR_EPOLL_CTL	251
#define OABI_NR_EPOLL_WAIT	252
#define OABI_NR_SEMOP		298
#define OABI_NR_SEMTIMEDOP	312
#define OABI_NR_EPOLL_PWAIT	346
long arch_oabi_syscall(unsigned int nr, long a, long b, long c, long d,
		       long e, long f);

#endif /* _SETFS_ARCH_H */
