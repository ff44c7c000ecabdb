/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arch.h: what the user test binary knows about the architecture it is
 * compiled for, and cannot ask the running kernel (SETFS_IOC_INFO,
 * /proc/cpuinfo, /root/kernel.config) or the target record (setfs_*
 * words on the kernel command line).  The only #if chains on the
 * architecture in rootfs/ are here.  A new architecture adds a branch;
 * without one, the #else below says what the cases that need the facts
 * do instead.
 */
#ifndef _SETFS_ARCH_H
#define _SETFS_ARCH_H

#include <errno.h>
#include <stdbool.h>

/*
 * ARCH_PICK(x86_64, ppc64, other): one of three expressions (the nofault
 * rows' expectations, user_nofault.c).
 * arch_paging(): the paging mode the CPU and kernel run, by what
 * /proc/cpuinfo shows, and the TASK_SIZE_MAX that mode gives; NULL when
 * it cannot tell.  ARCH_PAGING_VISIBLE: whether it can on this
 * architecture (else the record's setfs_task_size_max is all the paging
 * group checks, and a NULL on an architecture where it can is a failure).
 * ARCH_UACCESS_SLACK: how many bytes short of a fault a user copy may
 * stop (copy_{to,from}_user(), clear_user(), and so read(2) and write(2)
 * into a buffer that ends at an unmapped page).  include/linux/uaccess.h
 * allows stopping short, "not storing anything at all ... should happen
 * only when nothing could be copied".  x86_64 and powerpc64 copy up to
 * the byte, and so do ARM and riscv with kernel-patches/uaccess/
 * (without it, a copy_from_user() of 16 bytes with 8 readable returned 16
 * on armv7, measured): 0 everywhere, kept so that a port that may stop
 * short says by how much.
 * ARCH_NF_TOP_NA: NULL, or why TASK_SIZE_MAX and the page after it are
 * not a refused user address on this architecture.
 */
#if defined(__x86_64__)
#define ARCH_PICK(x86_64, ppc64, other)	(x86_64)
#define ARCH_PAGING_VISIBLE	1
#define ARCH_UACCESS_SLACK	0
#define ARCH_NF_TOP_NA		NULL
#elif defined(__powerpc64__)
#define ARCH_PICK(x86_64, ppc64, other)	(ppc64)
#define ARCH_PAGING_VISIBLE	1
#define ARCH_UACCESS_SLACK	0
#define ARCH_NF_TOP_NA		NULL
#elif defined(__arm__)
#define ARCH_PICK(x86_64, ppc64, other)	(other)
#define ARCH_PAGING_VISIBLE	0
#define ARCH_UACCESS_SLACK	0
#define ARCH_NF_TOP_NA							\
	"arm allows TASK_SIZE and up (arch/arm/mm/fault.c), where its module area starts"
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH_PICK(x86_64, ppc64, other)	(other)
#define ARCH_PAGING_VISIBLE	1
/*
 * arch/riscv/lib/uaccess.S counts a faulting block of eight registers as
 * not copied; kernel-patches/uaccess/ copies the rest of it bytewise
 */
#define ARCH_UACCESS_SLACK	0
#define ARCH_NF_TOP_NA		NULL
#elif defined(__s390x__)
#define ARCH_PICK(x86_64, ppc64, other)	(other)
#define ARCH_PAGING_VISIBLE	0
/*
 * s390's copies (MVCOS, retried up to the faulting page) stop at the
 * byte that faults: measured, the partial rows and the full fuzz with no
 * slack.  arm64 does not (its 16-byte stores stop up to 15 bytes short,
 * measured), and stays with the rule below.
 */
#define ARCH_UACCESS_SLACK	0
#define ARCH_NF_TOP_NA		NULL
#else
#define ARCH_PICK(x86_64, ppc64, other)	(other)
#define ARCH_PAGING_VISIBLE	0
/* unknown: the rule of include/linux/uaccess.h only */
#define ARCH_UACCESS_SLACK	4096
#define ARCH_NF_TOP_NA		NULL
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
