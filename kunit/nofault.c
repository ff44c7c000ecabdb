// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite setfs_nofault: copy_from_kernel_nofault(), get_kernel_nofault()
 * and __put_kernel_nofault(), the kernel-pointer accessors that replaced
 * probe_kernel_read() under set_fs(KERNEL_DS), after "uaccess: add
 * infrastructure for kernel builds with set_fs()" and "mm/maccess: fix
 * unaligned copy_{from,to}_kernel_nofault" (the ARM series): every length
 * at every alignment, from mapped memory, from the unmapped guard page
 * after a vmalloc() area and from NULL.
 */
#include <linux/bits.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "setfs_kunit.h"

/*
 * SETFS_NA(x86_64, ppc64): why a row cannot exist on the architecture the
 * suite is built for (NULL: it runs), one reason per layout (SETFS_LAYOUT
 * of setfs_probe_api.h, which user space gets from SETFS_IOC_INFO).
 */
#define SETFS_NA(x86_64, ppc64)						\
	SETFS_LAYOUT_PICK(x86_64, ppc64, SETFS_LAYOUT_NA)

/*
 * SETFS_MMU_NA: why a row that needs unmapped kernel memory cannot exist
 * without an MMU (NULL: it can).  vmalloc() has no guard page there, and
 * include/asm-generic/uaccess.h makes __get_kernel_nofault() a plain load:
 * address 0 is an access fault nothing fixes up (an Oops on riscv64-nommu,
 * measured).
 */
#define SETFS_MMU_NA							\
	(IS_ENABLED(CONFIG_MMU) ? NULL :				\
	 "nommu: no unmapped kernel memory, and nofault reads are plain loads")

/* SETFS_NULL_NA: why the rows that read NULL cannot exist (NULL: they can) */
#define SETFS_NULL_NA	(SETFS_SEPARATE_USER_SPACE ? SETFS_NF_USER_NA : SETFS_MMU_NA)

#define SETFS_COPY_MAX_LEN	17
#define SETFS_COPY_ALIGNS		8
#define SETFS_COPY_BUF		(2 * SETFS_COPY_ALIGNS + SETFS_COPY_MAX_LEN + 7)
#define SETFS_COPY_FILL		0xa5

/* One vmalloc() page; the page after it is its unmapped guard page. */
static u8 *setfs_nf_area;

static int setfs_nofault_suite_init(struct kunit_suite *suite)
{
	setfs_nf_area = vmalloc(PAGE_SIZE);
	if (!setfs_nf_area)
		return -ENOMEM;
	setfs_kunit_fill_pattern(setfs_nf_area, 0, PAGE_SIZE);
	return 0;
}

static void setfs_nofault_suite_exit(struct kunit_suite *suite)
{
	vfree(setfs_nf_area);
	setfs_nf_area = NULL;
}

static u8 *setfs_nf_guard(void)
{
	return setfs_nf_area + PAGE_SIZE;
}

/*
 * Rows len1_align0 .. len17_align7: the param is a slot of this array,
 * its index says the length and the alignment.
 */
static const u8 setfs_nf_slots[SETFS_COPY_MAX_LEN * SETFS_COPY_ALIGNS];

static size_t setfs_nf_len(const void *slot)
{
	return ((const u8 *)slot - setfs_nf_slots) / SETFS_COPY_ALIGNS + 1;
}

static size_t setfs_nf_align(const void *slot)
{
	return ((const u8 *)slot - setfs_nf_slots) % SETFS_COPY_ALIGNS;
}

static const void *setfs_nf_gen_params(const void *prev, char *desc)
{
	const u8 *slot = prev ? (const u8 *)prev + 1 : setfs_nf_slots;

	if (slot - setfs_nf_slots >= ARRAY_SIZE(setfs_nf_slots))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "len%zu_align%zu",
		 setfs_nf_len(slot), setfs_nf_align(slot));
	return slot;
}

/* Bytes of @dst outside [@off, @off + @len) still hold the fill byte. */
static void setfs_nf_expect_untouched(struct kunit *test, const u8 *dst,
				      size_t off, size_t len)
{
	size_t i;

	for (i = 0; i < SETFS_COPY_BUF; i++) {
		if (i >= off && i < off + len)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, dst[i], SETFS_COPY_FILL,
				    "byte %zu outside the copy was written", i);
	}
}

static void setfs_copy_from_kernel_nofault(struct kunit *test)
{
	size_t len = setfs_nf_len(test->param_value);
	size_t align = setfs_nf_align(test->param_value);
	u8 src[SETFS_COPY_BUF] __aligned(8), dst[SETFS_COPY_BUF] __aligned(8);
	const u8 *tail = setfs_nf_guard() - SETFS_COPY_ALIGNS + align;

	/* Mapped: the bytes, and nothing beyond them. */
	setfs_kunit_fill_pattern(src, 0, sizeof(src));
	memset(dst, SETFS_COPY_FILL, sizeof(dst));
	KUNIT_EXPECT_EQ(test, copy_from_kernel_nofault(dst + align, src + align, len),
			0L);
	KUNIT_EXPECT_EQ(test, memcmp(dst + align, src + align, len), 0);
	setfs_nf_expect_untouched(test, dst, align, len);

	/* The rest reads unmapped memory, which only an MMU has (SETFS_MMU_NA). */
	if (!IS_ENABLED(CONFIG_MMU))
		return;

	/* Unmapped: the guard page after the vmalloc() area. */
	KUNIT_EXPECT_EQ(test, copy_from_kernel_nofault(dst, setfs_nf_guard() + align,
						       len), -EFAULT);

	/*
	 * From the last 8 - align bytes of the area: the copy succeeds when
	 * it ends inside the area and faults when it runs into the guard.
	 */
	memset(dst, SETFS_COPY_FILL, sizeof(dst));
	if (align + len <= SETFS_COPY_ALIGNS) {
		KUNIT_EXPECT_EQ(test, copy_from_kernel_nofault(dst, tail, len), 0L);
		KUNIT_EXPECT_EQ(test, memcmp(dst, tail, len), 0);
	} else {
		KUNIT_EXPECT_EQ(test, copy_from_kernel_nofault(dst, tail, len),
				-EFAULT);
	}
}

/*
 * NULL + align, every length and alignment: refused or faulting
 * (SETFS_NF_USER_RET), and nothing written outside the @len bytes.
 * Inside them the architecture may store: riscv's __get_kernel_nofault()
 * zeroes the destination of the access that faults (its fixup is
 * _ASM_EXTABLE_UACCESS_ERR_ZERO, and the value is stored after it;
 * measured); arm64 on 6.12 jumps past the store (asm goto with outputs
 * where the compiler has them, else an error test before it), as x86
 * does with CONFIG_CC_HAS_ASM_GOTO_OUTPUT, and x86 refuses NULL before
 * any access anyway.  A case of its own, so that where it cannot be
 * (SETFS_NULL_NA) it says so.
 */
static void setfs_copy_from_kernel_nofault_null(struct kunit *test)
{
	u8 dst[SETFS_COPY_BUF] __aligned(8);
	size_t len, align, i;

	if (SETFS_NULL_NA)
		kunit_skip(test, "%s", SETFS_NULL_NA);
	for (len = 1; len <= SETFS_COPY_MAX_LEN; len++) {
		for (align = 0; align < SETFS_COPY_ALIGNS; align++) {
			memset(dst, SETFS_COPY_FILL, sizeof(dst));
			KUNIT_EXPECT_EQ_MSG(test,
					    copy_from_kernel_nofault(dst, (void *)align, len),
					    (long)SETFS_NF_USER_RET, "len %zu align %zu",
					    len, align);
			for (i = len; i < sizeof(dst); i++) {
				if (dst[i] == SETFS_COPY_FILL)
					continue;
				KUNIT_FAIL(test, "len %zu align %zu: byte %zu written",
					   len, align, i);
				break;
			}
		}
	}
}

/*
 * copy_to_kernel_nofault() has no EXPORT_SYMBOL in 6.1's mm/maccess.c;
 * symbol_get() finds it only where a kernel exports it.  Built in, the
 * suite calls it directly.  No NULL rows:
 * it does not ask copy_from_kernel_nofault_allowed(), and a kernel write
 * to a user address oopses under SMAP instead of faulting cleanly.
 */
static void setfs_copy_to_kernel_nofault(struct kunit *test)
{
	long (*copy_to)(void *dst, const void *src, size_t size);
	u8 src[SETFS_COPY_BUF] __aligned(8), dst[SETFS_COPY_BUF] __aligned(8);
	size_t len, align;

#ifdef MODULE
	copy_to = symbol_get(copy_to_kernel_nofault);
	if (!copy_to)
		kunit_skip(test, "copy_to_kernel_nofault() is not exported to modules");
#else
	copy_to = copy_to_kernel_nofault;	/* built in: no export needed */
#endif

	setfs_kunit_fill_pattern(src, 0, sizeof(src));
	for (len = 1; len <= SETFS_COPY_MAX_LEN; len++) {
		for (align = 0; align < SETFS_COPY_ALIGNS; align++) {
			memset(dst, SETFS_COPY_FILL, sizeof(dst));
			KUNIT_EXPECT_EQ_MSG(test, copy_to(dst + align, src, len), 0L,
					    "len %zu align %zu", len, align);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(dst + align, src, len), 0,
					    "len %zu align %zu", len, align);
			setfs_nf_expect_untouched(test, dst, align, len);
			/* no guard page without an MMU (SETFS_MMU_NA) */
			if (!IS_ENABLED(CONFIG_MMU))
				continue;
			KUNIT_EXPECT_EQ_MSG(test,
					    copy_to(setfs_nf_guard() + align, src, len),
					    -EFAULT, "len %zu align %zu", len, align);
		}
	}
#ifdef MODULE
	symbol_put(copy_to_kernel_nofault);
#endif
}

/* get_kernel_nofault() and __put_kernel_nofault() of one type. */
enum setfs_kaddr {
	SETFS_KADDR_MAPPED,	/* a stack buffer at offset off */
	SETFS_KADDR_GUARD,		/* the vmalloc() guard page */
	SETFS_KADDR_NULL,		/* address 0 */
	SETFS_KADDR_NONCANONICAL,	/* the first address above the low half */
};

struct setfs_nf_typed_case {
	const char *name;
	bool put;
	size_t size;
	enum setfs_kaddr target;
	size_t off;
	long ret;
	const char *na;		/* SETFS_NA(): skipped, and why */
};

static const struct setfs_nf_typed_case setfs_nf_typed_cases[] = {
	{ "get_u8",            false, 1, SETFS_KADDR_MAPPED, 0, 0 },
	{ "get_u16",           false, 2, SETFS_KADDR_MAPPED, 0, 0 },
	{ "get_u32",           false, 4, SETFS_KADDR_MAPPED, 0, 0 },
	{ "get_u64",           false, 8, SETFS_KADDR_MAPPED, 0, 0 },
	{ "get_u16_unaligned", false, 2, SETFS_KADDR_MAPPED, 1, 0 },
	{ "get_u32_unaligned", false, 4, SETFS_KADDR_MAPPED, 3, 0 },
	{ "get_u64_unaligned", false, 8, SETFS_KADDR_MAPPED, 5, 0 },
	{ "get_u8_guard",      false, 1, SETFS_KADDR_GUARD, 0, -EFAULT, SETFS_MMU_NA },
	{ "get_u16_guard",     false, 2, SETFS_KADDR_GUARD, 0, -EFAULT, SETFS_MMU_NA },
	{ "get_u32_guard",     false, 4, SETFS_KADDR_GUARD, 0, -EFAULT, SETFS_MMU_NA },
	{ "get_u64_guard",     false, 8, SETFS_KADDR_GUARD, 0, -EFAULT, SETFS_MMU_NA },
	{ "get_u8_null",       false, 1, SETFS_KADDR_NULL, 0, SETFS_NF_USER_RET, SETFS_NULL_NA },
	{ "get_u16_null",      false, 2, SETFS_KADDR_NULL, 0, SETFS_NF_USER_RET, SETFS_NULL_NA },
	{ "get_u32_null",      false, 4, SETFS_KADDR_NULL, 0, SETFS_NF_USER_RET, SETFS_NULL_NA },
	{ "get_u64_null",      false, 8, SETFS_KADDR_NULL, 0, SETFS_NF_USER_RET, SETFS_NULL_NA },
	/* refused by __is_canonical_address() before any access */
	{ "get_u64_noncanonical", false, 8, SETFS_KADDR_NONCANONICAL, 0, -ERANGE,
	  SETFS_NA(NULL, "powerpc64 has no canonical form: bits 63:62 pick a quadrant") },
	{ "put_u8",            true, 1, SETFS_KADDR_MAPPED, 0, 0 },
	{ "put_u16",           true, 2, SETFS_KADDR_MAPPED, 0, 0 },
	{ "put_u32",           true, 4, SETFS_KADDR_MAPPED, 0, 0 },
	{ "put_u64",           true, 8, SETFS_KADDR_MAPPED, 0, 0 },
	{ "put_u8_guard",      true, 1, SETFS_KADDR_GUARD, 0, -EFAULT, SETFS_MMU_NA },
	{ "put_u16_guard",     true, 2, SETFS_KADDR_GUARD, 0, -EFAULT, SETFS_MMU_NA },
	{ "put_u32_guard",     true, 4, SETFS_KADDR_GUARD, 0, -EFAULT, SETFS_MMU_NA },
	{ "put_u64_guard",     true, 8, SETFS_KADDR_GUARD, 0, -EFAULT, SETFS_MMU_NA },
};

/*
 * 6.1 prints a parameter's result without its SKIP directive (the "%s %d
 * %s" in kunit_run_tests()), so kunit.py would count a skipped row as a
 * pass: a row that cannot exist here carries the directive in its name.
 */
static void setfs_nf_typed_desc(const struct setfs_nf_typed_case *c,
				char *desc)
{
	if (c->na)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s # SKIP %s", c->name,
			 c->na);
	else
		strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(setfs_nf_typed, setfs_nf_typed_cases, setfs_nf_typed_desc);

/* get_kernel_nofault() into a variable of @size bytes, returned in @val. */
static long setfs_get_nofault(const void *src, size_t size, u64 *val)
{
	u8 v8 = 0;
	u16 v16 = 0;
	u32 v32 = 0;
	u64 v64 = 0;
	long ret;

	switch (size) {
	case 1:
		ret = get_kernel_nofault(v8, (const u8 *)src);
		*val = v8;
		break;
	case 2:
		ret = get_kernel_nofault(v16, (const u16 *)src);
		*val = v16;
		break;
	case 4:
		ret = get_kernel_nofault(v32, (const u32 *)src);
		*val = v32;
		break;
	default:
		ret = get_kernel_nofault(v64, (const u64 *)src);
		*val = v64;
		break;
	}
	return ret;
}

/* The arch primitive under copy_to_kernel_nofault(); needs no export. */
static long setfs_put_nofault(void *dst, size_t size, u64 val)
{
	u8 v8 = val;
	u16 v16 = val;
	u32 v32 = val;

	pagefault_disable();
	switch (size) {
	case 1:
		__put_kernel_nofault(dst, &v8, u8, efault);
		break;
	case 2:
		__put_kernel_nofault(dst, &v16, u16, efault);
		break;
	case 4:
		__put_kernel_nofault(dst, &v32, u32, efault);
		break;
	default:
		__put_kernel_nofault(dst, &val, u64, efault);
		break;
	}
	pagefault_enable();
	return 0;

efault:
	pagefault_enable();
	return -EFAULT;
}

static void *setfs_nf_address(const struct setfs_nf_typed_case *c, u8 *buf)
{
	switch (c->target) {
	case SETFS_KADDR_MAPPED:
		return buf + c->off;
	case SETFS_KADDR_GUARD:
		return setfs_nf_guard() + c->off;
	case SETFS_KADDR_NONCANONICAL:
		return (void *)(1UL << (BITS_PER_LONG - 1));
	case SETFS_KADDR_NULL:
		break;
	}
	return NULL;
}

static void setfs_nofault_typed(struct kunit *test)
{
	const struct setfs_nf_typed_case *c = test->param_value;
	const u64 val = 0x8877665544332211ULL;
	u8 buf[SETFS_COPY_BUF] __aligned(8);
	u8 *addr = setfs_nf_address(c, buf);
	u64 got = 0;

	if (c->na)
		kunit_skip(test, "%s", c->na);

	if (c->put) {
		memset(buf, SETFS_COPY_FILL, sizeof(buf));
		KUNIT_EXPECT_EQ(test, setfs_put_nofault(addr, c->size, val),
				c->ret);
		if (c->ret)
			return;
		KUNIT_EXPECT_EQ(test, setfs_kunit_load(addr, c->size),
				val & GENMASK_ULL(8 * c->size - 1, 0));
		setfs_nf_expect_untouched(test, buf, c->off, c->size);
		return;
	}

	setfs_kunit_fill_pattern(buf, 0x1234, sizeof(buf));
	KUNIT_EXPECT_EQ(test, setfs_get_nofault(addr, c->size, &got), c->ret);
	if (!c->ret)
		KUNIT_EXPECT_EQ(test, got, setfs_kunit_load(addr, c->size));
	/*
	 * -ERANGE comes before any access, so the variable keeps its value.
	 * After -EFAULT it is unspecified: built with asm goto outputs
	 * (x86_64, gcc 12), the fault paths of copy_from_kernel_nofault()
	 * still store the register of the failed 2-, 4- or 8-byte load.
	 */
	if (c->ret == -ERANGE)
		KUNIT_EXPECT_EQ(test, got, 0ULL);
}

static struct kunit_case setfs_nofault_test_cases[] = {
	KUNIT_CASE_PARAM(setfs_copy_from_kernel_nofault, setfs_nf_gen_params),
	KUNIT_CASE(setfs_copy_from_kernel_nofault_null),
	KUNIT_CASE(setfs_copy_to_kernel_nofault),
	KUNIT_CASE_PARAM(setfs_nofault_typed, setfs_nf_typed_gen_params),
	{}
};

struct kunit_suite setfs_nofault_suite = {
	.name = "setfs_nofault",
	.suite_init = setfs_nofault_suite_init,
	.suite_exit = setfs_nofault_suite_exit,
	.test_cases = setfs_nofault_test_cases,
};
