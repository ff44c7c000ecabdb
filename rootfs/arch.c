// SPDX-License-Identifier: GPL-2.0
/*
 * arch.c: the functions of arch.h, one branch per architecture.
 */
#include <errno.h>
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
#elif defined(__riscv) && __riscv_xlen == 64
/*
 * "mmu : sv39/sv48/sv57" (arch/riscv/kernel/cpu.c print_mmu()); the
 * kernel picks the deepest the CPU has at boot.  TASK_SIZE_MAX is
 * TASK_SIZE (no arch value): half of what the top level maps, 2^38, 2^47
 * or 2^56 (arch/riscv/include/asm/pgtable.h TASK_SIZE_64).
 */
const char *arch_paging(unsigned long long page_size, unsigned long long *want)
{
	static const struct { const char *mode; unsigned int bits; } sv[] = {
		{ "sv39", 38 }, { "sv48", 47 }, { "sv57", 56 },
	};
	char mmu[16];
	size_t i;

	(void)page_size;
	if (!cpuinfo_value("mmu", mmu, sizeof(mmu))) {
		diag("/proc/cpuinfo has no mmu line");
		return NULL;
	}
	for (i = 0; i < ARRAY_SIZE(sv); i++)
		if (!strcmp(mmu, sv[i].mode)) {
			*want = 1ULL << sv[i].bits;
			return sv[i].mode;
		}
	diag("/proc/cpuinfo: unknown mmu \"%s\"", mmu);
	return NULL;
}
#else
/*
 * Elsewhere nothing in /proc/cpuinfo tells the mode: 32-bit ARM's 2-level
 * from LPAE tables, arm64's levels, s390's (which grow on demand).
 */
const char *arch_paging(unsigned long long page_size, unsigned long long *want)
{
	(void)page_size;
	(void)want;
	return NULL;
}
#endif

#if ARCH_OABI
/*
 * One function per number: the number is the swi's immediate.  ARM code,
 * even in a Thumb-2 binary (Debian's armhf default): a Thumb "svc" has
 * only 8 bits of immediate, and vector_swi takes a Thumb caller's number
 * from r7, as an EABI call.
 */
#define OABI_FN(nr)							\
static noinline long __attribute__((target("arm")))			\
oabi_##nr(long a, long b, long c, long d, long e, long f)		\
{									\
	register long r0 asm("r0") = a;					\
	register long r1 asm("r1") = b;					\
	register long r2 asm("r2") = c;					\
	register long r3 asm("r3") = d;					\
	register long r4 asm("r4") = e;					\
	register long r5 asm("r5") = f;					\
									\
	asm volatile("swi %[n]"						\
		     : "+r" (r0)					\
		     : [n] "i" (0x900000 + (nr)), "r" (r1), "r" (r2),	\
		       "r" (r3), "r" (r4), "r" (r5)			\
		     : "memory");					\
	return r0;							\
}

OABI_FN(117)
OABI_FN(221)
OABI_FN(251)
OABI_FN(252)
OABI_FN(298)
OABI_FN(312)
OABI_FN(346)

long arch_oabi_syscall(unsigned int nr, long a, long b, long c, long d,
		       long e, long f)
{
	static const struct {
		unsigned int nr;
		long (*call)(long a, long b, long c, long d, long e, long f);
	} calls[] = {
		{ OABI_NR_IPC, oabi_117 },
		{ OABI_NR_FCNTL64, oabi_221 },
		{ OABI_NR_EPOLL_CTL, oabi_251 },
		{ OABI_NR_EPOLL_WAIT, oabi_252 },
		{ OABI_NR_SEMOP, oabi_298 },
		{ OABI_NR_SEMTIMEDOP, oabi_312 },
		{ OABI_NR_EPOLL_PWAIT, oabi_346 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(calls); i++)
		if (calls[i].nr == nr)
			return calls[i].call(a, b, c, d, e, f);
	return -EOPNOTSUPP;
}
#else
long arch_oabi_syscall(unsigned int nr, long a, long b, long c, long d,
		       long e, long f)
{
	(void)nr, (void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	return -EOPNOTSUPP;
}
#endif
