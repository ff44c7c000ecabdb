// SPDX-License-Identifier: GPL-2.0
/*
 * arch.c: the functions of arch.h, one branch per architecture.
 */
#include <stdio.h>
#include <string.h>

#include "setfs_user.h"

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

/*
 * 5-level paging when the CPU has LA57 (the kernel then uses it,
 * CONFIG_X86_5LEVEL=y; a 5LEVEL=n kernel hides the flag); TASK_SIZE_MAX
 * is 2^47 or 2^56 less the guard page.
 */
const char *arch_paging(unsigned long long page_size, unsigned long long *want)
{
	static char flags[4096];

	if (!cpuinfo_value("flags", flags, sizeof(flags))) {
		diag("/proc/cpuinfo has no flags line");
		return NULL;
	}
	if (has_word(flags, "la57")) {
		*want = (1ULL << 56) - page_size;
		return "5-level";
	}
	*want = (1ULL << 47) - page_size;
	return "4-level";
}
#elif defined(__powerpc64__)
/*
 * Book3S-64: "MMU : Radix" or "Hash" (arch/powerpc/platforms/pseries/
 * setup.c); TASK_SIZE_MAX is 2^52 with 64K pages, 2^46 with 4K pages,
 * hash or radix alike.
 */
const char *arch_paging(unsigned long long page_size, unsigned long long *want)
{
	char mmu[64];

	if (!cpuinfo_value("MMU", mmu, sizeof(mmu))) {
		diag("/proc/cpuinfo has no MMU line");
		return NULL;
	}
	*want = page_size == 65536 ? 1ULL << 52 : 1ULL << 46;
	return !strcmp(mmu, "Radix") ? "radix" : "hash";
}
#else
const char *arch_paging(unsigned long long page_size, unsigned long long *want)
{
	(void)page_size;
	(void)want;
	return NULL;
}
#endif
