// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_paging: the limit every boundary case of setfs_user_uaccess
 * is relative to, TASK_SIZE_MAX from SETFS_IOC_INFO, is the one the
 * running kernel's page tables imply, and user space can reach it.
 *
 * x86_64 (arch/x86/include/asm/page_64_types.h): TASK_SIZE_MAX =
 *   2^__VIRTUAL_MASK_SHIFT - PAGE_SIZE, 2^47 - 4096 with 4-level and
 *   2^56 - 4096 with 5-level paging.  6.1 clears X86_FEATURE_LA57 when
 *   the kernel does not run 5-level (early_identify_cpu() in
 *   arch/x86/kernel/cpu/common.c), so the "la57" flag in /proc/cpuinfo
 *   says 5-level paging is active, not just that the CPU has it.
 * powerpc64 Book3S (arch/powerpc/include/asm/task_size_64.h): TASK_SIZE_MAX
 *   = TASK_SIZE_USER64, 2^52 (4 PB) with 64K pages, 2^46 (64 TB) with 4K
 *   pages, hash or radix MMU alike; /proc/cpuinfo says which MMU runs
 *   ("MMU : Radix", arch/powerpc/platforms/pseries/setup.c).
 *
 * mmap() without a hint maps below the architecture's DEFAULT_MAP_WINDOW
 * (x86_64: 2^47 - 4096; powerpc64 and, from 6.6 on, riscv64: 2^47;
 * arm64 with 48-bit addresses: 2^48), a hint above it reaches the rest up to
 * TASK_SIZE_MAX.  The module reports the window it was built with
 * (SETFS_IOC_INFO mmap_window; TASK_SIZE where there is none).
 *
 * The target record's expectations (guest.paging and guest.task_size_max
 * in targets/NAME.toml), which run.sh passes on the kernel command line
 * as setfs_paging= and setfs_task_size_max= (environment variables of
 * init and so of this program), are checked as well: a record that asks
 * for 5-level paging on a CPU without LA57 fails here instead of passing
 * at 2^47.  How the mode shows in /proc/cpuinfo is in arch.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "setfs_user.h"

/* A hint above every DEFAULT_MAP_WINDOW. */
static const unsigned long long high_hint = 1ULL << 50;

/*
 * TASK_SIZE_MAX as the probe reports it, against the target record's
 * (guest.task_size_max, passed as setfs_task_size_max=) and, where
 * arch_paging() can tell the paging mode from /proc/cpuinfo, against the
 * value of that mode; the mode against the record's (setfs_paging=).
 */
static enum case_result task_size_max_matches_paging(void)
{
	const char *mode, *expect, *rec;
	unsigned long long want, rec_want;
	struct setfs_ctl_info info;
	bool ok = true, checked = false;
	char *end;

	if (!ctl_info(&info))
		return CASE_FAIL;
	mode = arch_paging(info.page_size, &want);
	if (!mode && ARCH_PAGING_VISIBLE)
		return CASE_FAIL;	/* arch_paging() said why */
	diag("paging: %s, TASK_SIZE_MAX 0x%llx, PAGE_SIZE %llu",
	     mode ?: "(not visible to user space here)",
	     (unsigned long long)info.task_size_max,
	     (unsigned long long)info.page_size);
	if (mode) {
		ok &= check_hex("TASK_SIZE_MAX", info.task_size_max, want);
		checked = true;
	}
	rec = getenv("setfs_task_size_max");
	if (rec) {
		errno = 0;
		rec_want = strtoull(rec, &end, 0);
		if (errno || end == rec || *end) {
			diag("setfs_task_size_max=%s is not a number", rec);
			return CASE_FAIL;
		}
		ok &= check_hex("TASK_SIZE_MAX (target record)",
				info.task_size_max, rec_want);
		checked = true;
	}
	expect = getenv("setfs_paging");
	if (mode && expect && strcmp(expect, mode)) {
		diag("target %s: the record expects %s paging, the kernel runs %s",
		     getenv("setfs_target") ?: "?", expect, mode);
		ok = false;
	}
	if (!checked) {
		diag("no expectation: no paging mode from arch.h, no setfs_task_size_max");
		return CASE_FAIL;
	}
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result mmap_without_hint_in_default_window(void)
{
	struct setfs_ctl_info info;
	unsigned char *p;
	bool ok;

	if (!ctl_info(&info))
		return CASE_FAIL;
	if (info.mmap_window >= info.task_size_max)
		return ktap_skip("no window: mmap() may use all of TASK_SIZE here");
	p = mmap(NULL, info.page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		diag("mmap failed");
		return CASE_FAIL;
	}
	ok = (unsigned long)p + info.page_size <= info.mmap_window;
	if (!ok)
		diag("mapped at %p, above the window 0x%llx", (void *)p,
		     (unsigned long long)info.mmap_window);
	munmap(p, info.page_size);
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * A hint of 2^50 is honoured where TASK_SIZE_MAX is above it (5-level
 * x86_64, powerpc64 with 64K pages) and ignored for an address in the
 * window where it is not (4-level x86_64: mmap_address_hint_valid()
 * fails; arm64 with 48-bit addresses).
 */
static enum case_result mmap_hint_above_default_window(void)
{
	struct setfs_ctl_info info;
	unsigned char *p;
	bool high, ok;

	if (sizeof(long) < 8)
		return ktap_skip("a 32-bit process has no address above 2^32 to hint");
	if (!ctl_info(&info))
		return CASE_FAIL;
	high = info.task_size_max > high_hint;
	p = mmap((void *)(unsigned long)high_hint, info.page_size,
		 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		diag("mmap failed");
		return CASE_FAIL;
	}
	p[0] = 1;	/* the page is usable */
	if (high)
		ok = (unsigned long)p == high_hint;
	else
		ok = (unsigned long)p + info.page_size <= info.mmap_window;
	if (!ok)
		diag("TASK_SIZE_MAX 0x%llx, window 0x%llx, hint 0x%llx: mapped at %p",
		     (unsigned long long)info.task_size_max,
		     (unsigned long long)info.mmap_window, high_hint,
		     (void *)p);
	munmap(p, info.page_size);
	return ok ? CASE_PASS : CASE_FAIL;
}

static const struct test_case paging_cases[] = {
	{ "task_size_max_matches_paging", task_size_max_matches_paging },
	{ "mmap_without_hint_in_default_window",
	  mmap_without_hint_in_default_window },
	{ "mmap_hint_above_default_window", mmap_hint_above_default_window },
};

static const struct ktap_table paging_tables[] = {
	KTAP_TABLE(paging_cases, run_test_case),
};

KTAP_GROUP(paging_group) = {
	.name = "setfs_user_paging",
	.order = 50,
	.tables = paging_tables,
	.ntables = ARRAY_SIZE(paging_tables),
};
