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
 * Both map at most 2^47 bytes unless asked (DEFAULT_MAP_WINDOW, 128 TB):
 * mmap() without a hint stays below 2^47, a hint above it reaches the
 * rest, up to TASK_SIZE_MAX.
 *
 * The target record's expectation (guest.paging in targets/NAME.toml),
 * which run.sh passes on the kernel command line as setfs_paging=... (an
 * environment variable of init and so of this program), is checked as
 * well: a record that asks for 5-level paging on a CPU without LA57
 * fails here instead of passing at 2^47.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "setfs_user.h"

/* DEFAULT_MAP_WINDOW, rounded up to 2^47, and a hint above it. */
static const unsigned long long low_window = 1ULL << 47;
static const unsigned long long high_hint = 1ULL << 50;

/*
 * The value of the first "key : value" line of /proc/cpuinfo whose key is
 * @key, into @buf; false when there is none.
 */
static bool cpuinfo_value(const char *key, char *buf, size_t len)
{
	char line[4096];
	bool found = false;
	FILE *f;

	f = fopen("/proc/cpuinfo", "r");
	if (!f) {
		diag("cannot open /proc/cpuinfo");
		return false;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		size_t klen = strlen(key);

		if (!colon || strncmp(line, key, klen) ||
		    !strchr(" \t:", line[klen]))
			continue;
		colon++;
		colon += strspn(colon, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		found = true;
	}
	fclose(f);
	return found;
}

#if defined(__x86_64__)
/* Whether the space-separated @list holds the word @word. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}
#endif

/*
 * The TASK_SIZE_MAX the running kernel must have, in @want, and what the
 * paging mode is called, in @mode (also the target's expectation).
 */
static bool expected_limit(const struct setfs_ctl_info *info,
			   unsigned long long *want, const char **mode)
{
	static char value[4096];

#if defined(__x86_64__)
	if (!cpuinfo_value("flags", value, sizeof(value))) {
		diag("/proc/cpuinfo has no flags line");
		return false;
	}
	if (has_word(value, "la57")) {
		*mode = "5-level";
		*want = (1ULL << 56) - info->page_size;
	} else {
		*mode = "4-level";
		*want = (1ULL << 47) - info->page_size;
	}
	return true;
#elif defined(__powerpc64__)
	if (!cpuinfo_value("MMU", value, sizeof(value))) {
		diag("/proc/cpuinfo has no MMU line");
		return false;
	}
	*mode = !strcmp(value, "Radix") ? "radix" : "hash";
	*want = info->page_size == 65536 ? 1ULL << 52 : 1ULL << 46;
	return true;
#else
	(void)info;
	(void)want;
	(void)mode;
	diag("no paging expectations for this architecture");
	return false;
#endif
}

static enum case_result task_size_max_matches_paging(void)
{
	struct setfs_ctl_info info;
	unsigned long long want;
	const char *mode, *expect;
	bool ok;

	if (!ctl_info(&info) || !expected_limit(&info, &want, &mode))
		return CASE_FAIL;
	diag("paging: %s, TASK_SIZE_MAX 0x%llx, PAGE_SIZE %llu", mode,
	     (unsigned long long)info.task_size_max,
	     (unsigned long long)info.page_size);
	ok = check_hex("TASK_SIZE_MAX", info.task_size_max, want);
	expect = getenv("setfs_paging");
	if (!expect) {
		diag("no setfs_paging on the kernel command line: the record's expectation not checked");
		return ok ? CASE_PASS : CASE_FAIL;
	}
	if (strcmp(expect, mode)) {
		diag("target %s: the record expects %s paging, the kernel runs %s",
		     getenv("setfs_target") ?: "?", expect, mode);
		return CASE_FAIL;
	}
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result mmap_without_hint_below_2_47(void)
{
	struct setfs_ctl_info info;
	unsigned char *p;
	bool ok;

	if (!ctl_info(&info))
		return CASE_FAIL;
	p = mmap(NULL, info.page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		diag("mmap failed");
		return CASE_FAIL;
	}
	ok = (unsigned long)p + info.page_size <= low_window;
	if (!ok)
		diag("mapped at %p, above 2^47", (void *)p);
	munmap(p, info.page_size);
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * A hint of 2^50 is honoured where TASK_SIZE_MAX is above it (5-level
 * x86_64, powerpc64 with 64K pages) and ignored for an address below 2^47
 * where it is not (4-level x86_64: mmap_address_hint_valid() fails).
 */
static enum case_result mmap_hint_above_2_47(void)
{
	struct setfs_ctl_info info;
	unsigned char *p;
	bool high, ok;

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
		ok = (unsigned long)p + info.page_size <= low_window;
	if (!ok)
		diag("TASK_SIZE_MAX 0x%llx, hint 0x%llx: mapped at %p",
		     (unsigned long long)info.task_size_max, high_hint,
		     (void *)p);
	munmap(p, info.page_size);
	return ok ? CASE_PASS : CASE_FAIL;
}

static const struct test_case paging_cases[] = {
	{ "task_size_max_matches_paging", task_size_max_matches_paging },
	{ "mmap_without_hint_below_2_47", mmap_without_hint_below_2_47 },
	{ "mmap_hint_above_2_47", mmap_hint_above_2_47 },
};

static const struct ktap_table paging_tables[] = {
	KTAP_TABLE(paging_cases, run_test_case),
};

const struct ktap_group paging_group = {
	.name = "setfs_user_paging",
	.tables = paging_tables,
	.ntables = ARRAY_SIZE(paging_tables),
};
