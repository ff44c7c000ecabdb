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

/*
 * SETFS_NF_TOP_ALLOWED: arm's copy_from_kernel_nofault_allowed() allows
 * every address from TASK_SIZE up (SETFS_INFO_NF_TOP_ALLOWED).
 */
#if defined(CONFIG_ARM) && defined(CONFIG_MMU)
#define SETFS_NF_TOP_ALLOWED	true
#else
#define SETFS_NF_TOP_ALLOWED	false
#endif

/*
 * SETFS_LAYOUT: the kernel layout the nofault rows with fixed addresses
 * are written for (setfs_ctl_info.nf_layout).  x86_64: canonical form
 * (copy_from_kernel_nofault_allowed() refuses the rest), the vsyscall
 * page, the guard hole at the start of the kernel half
 * (Documentation/arch/x86/x86_64/mm.rst).  powerpc64: bits 63:62 pick a
 * quadrant, and is_kernel_addr() is PAGE_OFFSET (0xc000000000000000) and
 * up.  SETFS_LAYOUT_PICK(x86_64, ppc64, other) is the argument for this
 * layout; SETFS_LAYOUT_NA says why those rows cannot be elsewhere.
 */
#define SETFS_LAYOUT_PICK(x86_64, ppc64, other)			\
	(IS_ENABLED(CONFIG_X86_64) ? (x86_64) :				\
	 IS_ENABLED(CONFIG_PPC64) ? (ppc64) : (other))
#define SETFS_LAYOUT							\
	SETFS_LAYOUT_PICK(SETFS_LAYOUT_X86_64, SETFS_LAYOUT_PPC64,	\
			  SETFS_LAYOUT_OTHER)

#if defined(CONFIG_ARM)
#define SETFS_LAYOUT_NA							\
	"an x86_64/powerpc64 layout row: every 32-bit value is an address"
#elif defined(CONFIG_RISCV) || defined(CONFIG_ARM64) || defined(CONFIG_S390)
/* copy_from_kernel_nofault_allowed() is mm/maccess.c's __weak default */
#define SETFS_LAYOUT_NA							\
	"an x86_64/powerpc64 layout row: every kernel address is tried here"
#else
#define SETFS_LAYOUT_NA		"an x86_64/powerpc64 layout row: no expectation here"
#endif

/*
 * SETFS_UACCESS_SLACK: how many bytes short of a fault a user copy may
 * stop (setfs_ctl_info.uaccess_slack).  include/linux/uaccess.h allows
 * stopping short ("not storing anything at all ... should happen only
 * when nothing could be copied") and names no bound.  Measured up to the
 * byte: x86_64, powerpc64, s390 (MVCOS, retried up to the faulting page),
 * and ARM and riscv with kernel-patches/uaccess/ (without it a
 * copy_from_user() of 16 bytes with 8 readable returned 16 on armv7, and
 * riscv's uaccess.S counted a faulting block of eight registers as not
 * copied: a tree without the series, --keep-tree, fails those rows,
 * which is what they are for).  arm64 stops short: 15 bytes in the
 * uaccess rows, 48 in a pwrite(2) of the full fuzz (its copy loop in
 * arch/arm64/lib/copy_template.S loads ahead of its stores, and the
 * fixup counts from the last store); no bound is proven, so it and the
 * architectures nobody measured get 4096 bytes, whatever the page size.
 */
#if defined(CONFIG_X86_64) || defined(CONFIG_PPC64) || defined(CONFIG_S390) || \
	defined(CONFIG_ARM) || defined(CONFIG_RISCV)
#define SETFS_UACCESS_SLACK	0
#else
#define SETFS_UACCESS_SLACK	4096
#endif

#endif /* _SETFS_PROBE_API_H */
