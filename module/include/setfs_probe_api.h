/* SPDX-License-Identifier: GPL-2.0 */
/*
 * setfs_probe: what the probe module exports to other modules (the KUnit
 * suite in kunit/).
 */
#ifndef _SETFS_PROBE_API_H
#define _SETFS_PROBE_API_H

#include <linux/errno.h>
#include <linux/types.h>

#include "setfs_probe_uapi.h"

size_t setfs_probe_size(void);

/*
 * Facts of the kernel the module and the KUnit suites are built against,
 * stated once here; SETFS_IOC_INFO reports them to user space.
 *
 * SETFS_NF_USER_RET: copy_from_kernel_nofault() first asks
 * copy_from_kernel_nofault_allowed().  x86 (arch/x86/mm/maccess.c)
 * refuses addresses below TASK_SIZE_MAX + PAGE_SIZE and, on x86_64,
 * non-canonical ones; powerpc (arch/powerpc/mm/maccess.c) anything
 * !is_kernel_addr(); arm, mips, loongarch and parisc refuse low addresses
 * too.  These give -ERANGE without touching memory.  Elsewhere (arm64,
 * riscv, s390, ...) the __weak default in mm/maccess.c allows everything,
 * and a user address (NULL too) faults: -EFAULT.
 */
#if defined(CONFIG_X86) || defined(CONFIG_PPC) || \
	(defined(CONFIG_ARM) && defined(CONFIG_MMU)) || defined(CONFIG_MIPS) || \
	defined(CONFIG_LOONGARCH) || defined(CONFIG_PARISC)
#define SETFS_NF_USER_RET	(-ERANGE)
#else
#define SETFS_NF_USER_RET	(-EFAULT)
#endif

/*
 * SETFS_SEPARATE_USER_SPACE: user space is an address space of its own
 * (CONFIG_ALTERNATE_USER_ADDRESS_SPACE: s390, parisc, sparc64).  Two
 * consequences the tests see:
 * - access_ok() lets every range through (include/asm-generic/access_ok.h),
 *   as it does without an MMU (SETFS_ACCESS_OK_ALL): the user copy faults
 *   on whatever is not mapped in the user address space;
 * - copy_from_kernel_nofault() reads a user address's number as a kernel
 *   address (NULL is s390's lowcore), so SETFS_NF_USER_RET holds for no
 *   user address, and SETFS_NF_USER_NA says why the rows that use one
 *   cannot be.
 */
#define SETFS_SEPARATE_USER_SPACE					\
	IS_ENABLED(CONFIG_ALTERNATE_USER_ADDRESS_SPACE)
#define SETFS_ACCESS_OK_ALL						\
	(SETFS_SEPARATE_USER_SPACE || !IS_ENABLED(CONFIG_MMU))
#define SETFS_NF_USER_NA						\
	(SETFS_SEPARATE_USER_SPACE ?					\
	 "user space is an address space of its own: the kernel reads a user address as its own" : \
	 NULL)

/* SETFS_INFO_CLEAR_USER_WHOLE: arch/arm/lib/clear_user.S's fixup */
#ifdef CONFIG_ARM
#define SETFS_CLEAR_USER_WHOLE	true
#else
#define SETFS_CLEAR_USER_WHOLE	false
#endif

#endif /* _SETFS_PROBE_API_H */
