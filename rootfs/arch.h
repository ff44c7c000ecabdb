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

#include <stdbool.h>

/*
 * ARCH_NAME: the target name of the files only this architecture has
 * (the .arch of the proc file tables).
 * ARCH_KERNEL_ADDR: an address of mapped kernel memory, for the cases
 * that hand the kernel one of its own addresses as a user pointer.
 * ARCH_SECTION_SIZE_BITS: the memory section size of SPARSEMEM kernels
 * (arch/<arch>/include/asm/sparsemem.h), where /proc/kpage* end.
 * ARCH_PICK(x86_64, ppc64, other): one of three expressions (the nofault
 * rows' expectations, user_nofault.c).
 * arch_paging(): the paging mode the CPU and kernel run, by what
 * /proc/cpuinfo shows, and the TASK_SIZE_MAX that mode gives; NULL when
 * it cannot tell.  ARCH_PAGING_VISIBLE: whether it can on this
 * architecture (else the record's setfs_task_size_max is all the paging
 * group checks, and a NULL on an architecture where it can is a failure).
 */
#if defined(__x86_64__)
#define ARCH_NAME		"x86_64"
#define ARCH_KERNEL_ADDR	0xffff888000000000UL	/* the direct map */
#define ARCH_SECTION_SIZE_BITS	27
#define ARCH_PICK(x86_64, ppc64, other)	(x86_64)
#define ARCH_PAGING_VISIBLE	1
#elif defined(__powerpc64__)
#define ARCH_NAME		"ppc64le"
#define ARCH_KERNEL_ADDR	0xc000000000000000UL	/* the linear map */
#define ARCH_SECTION_SIZE_BITS	24
#define ARCH_PICK(x86_64, ppc64, other)	(ppc64)
#define ARCH_PAGING_VISIBLE	1
#else
#define ARCH_NAME		"other"
/* above any TASK_SIZE; maybe not mapped, which the cases also allow */
#define ARCH_KERNEL_ADDR	(~0UL - 0xfffff)
/* 0: the kpage* cases take the end from max_pfn alone (FLATMEM) */
#define ARCH_SECTION_SIZE_BITS	0
#define ARCH_PICK(x86_64, ppc64, other)	(other)
#define ARCH_PAGING_VISIBLE	0
#endif

const char *arch_paging(unsigned long long page_size, unsigned long long *want);

#endif /* _SETFS_ARCH_H */
