// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite setfs_access_ok: access_ok() after "x86: remove address space
 * overrides using set_fs()" and "powerpc: remove address space overrides
 * using set_fs()".  With no addr_limit left, access_ok() is arithmetic on
 * TASK_SIZE_MAX alone.  In 6.1 both x86 and powerpc use the generic
 * __access_ok() of include/asm-generic/access_ok.h:
 *
 *	size <= TASK_SIZE_MAX && addr <= TASK_SIZE_MAX - size
 *
 * which cannot wrap; without an MMU, or where user space is an address
 * space of its own (s390), it lets every range through
 * (SETFS_ACCESS_OK_ALL).  x86_64 has its own __access_ok() since 6.4
 * (arch/x86/include/asm/uaccess_64.h, see SETFS_TSM_BYTE_OK): for a size
 * the compiler does not know it is
 *
 *	addr + size <= USER_PTR_MAX && addr + size >= addr
 *
 * with USER_PTR_MAX == TASK_SIZE_MAX in 6.12, the same answers for every
 * row of the table below.  Addresses are given relative to TASK_SIZE_MAX read
 * at run time: on x86_64 it is 2^47 - PAGE_SIZE, or 2^56 - PAGE_SIZE when
 * the CPU runs 5-level page tables (la57); on powerpc64 (Book3S) it is
 * TASK_SIZE_USER64, 2^52 with 64K pages.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "setfs_kunit.h"

enum setfs_base {
	SETFS_ZERO,
	SETFS_TSM,		/* TASK_SIZE_MAX */
	SETFS_HALF_TSM,		/* TASK_SIZE_MAX / 2 */
	SETFS_TOP,		/* ULONG_MAX */
	SETFS_KERNEL,		/* a kernel address: this module's code */
};

/* access_ok((void __user *)(addr_base + addr), size_base + size) == ok */
struct setfs_access_ok_case {
	const char *name;
	enum setfs_base addr_base;
	long addr;
	enum setfs_base size_base;
	long size;
	bool ok;
};

static const struct setfs_access_ok_case setfs_access_ok_cases[] = {
	{ "null_zero_size",          SETFS_ZERO, 0, SETFS_ZERO, 0, true },
	{ "null_one_byte",           SETFS_ZERO, 0, SETFS_ZERO, 1, true },
	{ "null_one_page",           SETFS_ZERO, 0, SETFS_ZERO, PAGE_SIZE, true },
	{ "whole_user_range",        SETFS_ZERO, 0, SETFS_TSM, 0, true },
	{ "whole_user_range_plus_1", SETFS_ZERO, 0, SETFS_TSM, 1, false },
	{ "from_1_tsm_bytes",        SETFS_ZERO, 1, SETFS_TSM, 0, false },
	{ "last_byte",               SETFS_TSM, -1, SETFS_ZERO, 1, true },
	{ "last_page",               SETFS_TSM, -(long)PAGE_SIZE, SETFS_ZERO, PAGE_SIZE, true },
	{ "last_page_plus_1",        SETFS_TSM, -(long)PAGE_SIZE, SETFS_ZERO, PAGE_SIZE + 1,
	  false },
	{ "two_bytes_across_tsm",    SETFS_TSM, -1, SETFS_ZERO, 2, false },
	{ "tsm_zero_size",           SETFS_TSM, 0, SETFS_ZERO, 0, true },
	{ "tsm_one_byte",            SETFS_TSM, 0, SETFS_ZERO, 1, false },
	{ "tsm_plus_1_zero_size",    SETFS_TSM, 1, SETFS_ZERO, 0, false },
	{ "upper_half",              SETFS_HALF_TSM, 0, SETFS_HALF_TSM, 0, true },
	{ "upper_half_plus_1",       SETFS_HALF_TSM, 1, SETFS_HALF_TSM, 0, false },
	/* addr + size wraps past ULONG_MAX: a naive sum would pass */
	{ "wrap_to_zero",            SETFS_ZERO, 1, SETFS_TOP, 0, false },
	{ "wrap_from_page",          SETFS_ZERO, PAGE_SIZE, SETFS_TOP, -(long)PAGE_SIZE + 1,
	  false },
	{ "wrap_last_two_bytes",     SETFS_TOP, -1, SETFS_ZERO, 2, false },
	{ "top_one_byte",            SETFS_TOP, 0, SETFS_ZERO, 1, false },
	{ "top_zero_size",           SETFS_TOP, 0, SETFS_ZERO, 0, false },
	{ "null_size_max",           SETFS_ZERO, 0, SETFS_TOP, 0, false },
	{ "kernel_address",          SETFS_KERNEL, 0, SETFS_ZERO, 1, false },
	{ "kernel_address_zero_size", SETFS_KERNEL, 0, SETFS_ZERO, 0, false },
};

SETFS_PARAM_ARRAY(access_ok);

static unsigned long setfs_base_value(enum setfs_base base)
{
	switch (base) {
	case SETFS_TSM:
		return TASK_SIZE_MAX;
	case SETFS_HALF_TSM:
		return TASK_SIZE_MAX / 2;
	case SETFS_TOP:
		return ULONG_MAX;
	case SETFS_KERNEL:
		return (unsigned long)setfs_base_value;
	case SETFS_ZERO:
		break;
	}
	return 0;
}

static void setfs_access_ok_range(struct kunit *test)
{
	const struct setfs_access_ok_case *c = test->param_value;
	unsigned long addr = setfs_base_value(c->addr_base) + c->addr;
	unsigned long size = setfs_base_value(c->size_base) + c->size;

	KUNIT_EXPECT_EQ_MSG(test, !!access_ok((void __user *)addr, size),
			    c->ok || SETFS_ACCESS_OK_ALL,
			    "access_ok(%#lx, %#lx), TASK_SIZE_MAX %#lx",
			    addr, size, (unsigned long)TASK_SIZE_MAX);
}

/* The limit the rows are relative to, per architecture. */
static void setfs_access_ok_task_size_max(struct kunit *test)
{
#if defined(CONFIG_X86_64)
	unsigned int bits = pgtable_l5_enabled() ? 56 : 47;

	KUNIT_EXPECT_EQ_MSG(test, TASK_SIZE_MAX, BIT(bits) - PAGE_SIZE,
			    "%u-level page tables", pgtable_l5_enabled() ? 5 : 4);
#elif defined(CONFIG_PPC64)
	/*
	 * TASK_SIZE_USER64 (asm/task_size_64.h): 4 PB with 64K pages, 64 TB
	 * with 4K pages, whichever MMU (hash or radix) runs.
	 */
	unsigned int bits = IS_ENABLED(CONFIG_PPC_64K_PAGES) ? 52 : 46;

	KUNIT_EXPECT_EQ_MSG(test, TASK_SIZE_MAX, BIT(bits),
			    "%s MMU, %lu-byte pages",
			    radix_enabled() ? "radix" : "hash", PAGE_SIZE);
#elif defined(CONFIG_ARM) && defined(CONFIG_MMU)
	/*
	 * asm/memory.h: TASK_SIZE is PAGE_OFFSET less the 16 MiB module
	 * area, which starts right there: copy_from_kernel_nofault_allowed()
	 * (arch/arm/mm/fault.c) lets TASK_SIZE and up through.  With KASAN
	 * TASK_SIZE is KASAN_SHADOW_START, and a Thumb-2 kernel's module
	 * area is 8 MiB: other layouts, not checked here.
	 */
	if (IS_ENABLED(CONFIG_KASAN) || IS_ENABLED(CONFIG_THUMB2_KERNEL))
		kunit_skip(test, "ARM with KASAN or Thumb-2: another layout");
	KUNIT_EXPECT_EQ_MSG(test, TASK_SIZE_MAX,
			    (unsigned long)PAGE_OFFSET - SZ_16M,
			    "PAGE_OFFSET %#lx", (unsigned long)PAGE_OFFSET);
	KUNIT_EXPECT_EQ(test, (unsigned long)MODULES_VADDR, TASK_SIZE_MAX);
#elif defined(CONFIG_RISCV) && defined(CONFIG_64BIT) && defined(CONFIG_MMU)
	/* Half the page table's reach: sv39 2^38, sv48 2^47, sv57 2^56. */
	unsigned int bits = pgtable_l5_enabled ? 56 : pgtable_l4_enabled ? 47 : 38;

	KUNIT_EXPECT_EQ_MSG(test, TASK_SIZE_MAX, BIT(bits), "sv%u",
			    bits == 56 ? 57 : bits == 47 ? 48 : 39);
#elif defined(CONFIG_RISCV) && !defined(CONFIG_MMU)
	/* asm/pgtable.h: one address space, TASK_SIZE is all of it */
	KUNIT_EXPECT_EQ(test, TASK_SIZE_MAX, ULONG_MAX);
#elif defined(CONFIG_ARM64)
	/*
	 * TASK_SIZE_MAX is BIT(VA_BITS); a 64-bit task's TASK_SIZE is what
	 * TTBR0 reaches at run time (vabits_actual, from TCR_EL1 where 52-bit
	 * addresses may be off).  With 48 bits both are 2^48.
	 */
	if (VA_BITS > 48)
		kunit_skip(test, "VA_BITS %d: TTBR0 may reach less", VA_BITS);
	KUNIT_EXPECT_EQ_MSG(test, TASK_SIZE_MAX, TASK_SIZE_64, "VA_BITS %d", VA_BITS);
#else
	/* setfs_user_paging compares it with the target record's */
	kunit_skip(test, "no second source for TASK_SIZE_MAX here");
#endif
}

/*
 * access_ok() of one byte at TASK_SIZE_MAX, a size the compiler knows.
 * The generic __access_ok() refuses it.  x86_64's own, since commit
 * 6014bc27561f ("x86-64: make access_ok() independent of LAM"), checks
 * the start address alone for a constant size of at most PAGE_SIZE, and
 * TASK_SIZE_MAX passes: up to 6.11 the check is the sign bit; in 6.12
 * (arch/x86/include/asm/uaccess_64.h:56, arch/x86/kernel/cpu/common.c:2486)
 * it is addr <= USER_PTR_MAX, which is TASK_SIZE_MAX.  Such an access can
 * reach no further than the guard page at TASK_SIZE_MAX, which is never
 * mapped.  kunit/Kbuild looks for that __access_ok() in the headers built
 * against (SETFS_HAVE_X86_64_ACCESS_OK) rather than at the version.
 */
#if defined(CONFIG_X86_64) && defined(SETFS_HAVE_X86_64_ACCESS_OK)
#define SETFS_TSM_BYTE_OK	true
#define SETFS_TSM_BYTE_RULE	"x86_64 __access_ok(): a constant size up to PAGE_SIZE checks addr <= USER_PTR_MAX alone"
#else
#define SETFS_TSM_BYTE_OK	SETFS_ACCESS_OK_ALL
#define SETFS_TSM_BYTE_RULE	"generic __access_ok(): addr <= TASK_SIZE_MAX - size"
#endif

/*
 * A KUnit case runs in a kernel thread without an mm: access_ok() gives
 * the same answers there, it looks at neither current->mm nor any
 * per-thread limit.
 */
static void setfs_access_ok_without_mm(struct kunit *test)
{
	KUNIT_ASSERT_NULL(test, current->mm);
	KUNIT_EXPECT_TRUE(test, access_ok((void __user *)0, PAGE_SIZE));
	KUNIT_EXPECT_TRUE(test, access_ok((void __user *)(TASK_SIZE_MAX - 1), 1));
	KUNIT_EXPECT_EQ_MSG(test, !!access_ok((void __user *)TASK_SIZE_MAX, 1),
			    SETFS_TSM_BYTE_OK, "access_ok(TASK_SIZE_MAX, 1), %s",
			    SETFS_TSM_BYTE_RULE);
}

static struct kunit_case setfs_access_ok_test_cases[] = {
	KUNIT_CASE_PARAM(setfs_access_ok_range, setfs_access_ok_gen_params),
	KUNIT_CASE(setfs_access_ok_task_size_max),
	KUNIT_CASE(setfs_access_ok_without_mm),
	{}
};

struct kunit_suite setfs_access_ok_suite = {
	.name = "setfs_access_ok",
	.test_cases = setfs_access_ok_test_cases,
};
