// SPDX-License-Identifier: GPL-2.0
/*
 * Where a read spends its time in the kernel, with the kernel's own
 * means: a perf software event (PERF_COUNT_SW_CPU_CLOCK) on this task,
 * kernel mode only, sampling the instruction pointer; the samples are
 * read from the event's ring buffer and named with /proc/kallsyms.
 *
 * The x86_64 guest kernels have CONFIG_PERF_EVENTS=y and no high
 * resolution timers (a TCG guest runs on the jiffies clocksource), so the
 * sampling timer fires at most once a tick (HZ=250): about 250 samples a
 * second, enough for the shares of the top symbols to a few percent.
 * init runs this as root, so perf_event_paranoid and kptr_restrict do not
 * hide the kernel's addresses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "setfs_user.h"

/* Data pages of the ring buffer: 64 KiB, a few seconds of samples. */
#define KPROF_DATA_PAGES	16
#define KPROF_PERIOD_NS		1000000

struct ksym {
	unsigned long long addr;
	char name[128];
};

static struct ksym *ksyms;
static size_t nksyms;

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The kernel's text symbols, sorted by address; false when unreadable. */
static bool load_ksyms(void)
{
	size_t cap = 0;
	char line[256], type, name[128];
	unsigned long long addr;
	FILE *f;

	if (ksyms)
		return true;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		/* modules' symbols have a " [module]" after the name */
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3 ||
		    (type != 't' && type != 'T') || !addr)
			continue;
		if (nksyms == cap) {
			struct ksym *n;

			cap = cap ? 2 * cap : 4096;
			n = realloc(ksyms, cap * sizeof(*n));
			if (!n)
				break;
			ksyms = n;
		}
		ksyms[nksyms].addr = addr;
		snprintf(ksyms[nksyms].name, sizeof(ksyms[nksyms].name), "%s",
			 name);
		nksyms++;
	}
	fclose(f);
	if (!nksyms) {
		/* all addresses 0: kptr_restrict hides them */
		free(ksyms);
		ksyms = NULL;
		return false;
	}
	qsort(ksyms, nksyms, sizeof(*ksyms), cmp_ksym);
	return true;
}

/* The symbol @ip lies in (the last one at or below it), "?" if none. */
static const char *ksym_name(unsigned long long ip)
{
	size_t lo = 0, hi = nksyms;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ksyms[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	return nksyms && ksyms[lo].addr <= ip ? ksyms[lo].name : "?";
}

int kprof_open(struct kprof *kp)
{
	struct perf_event_attr attr;
	long page = sysconf(_SC_PAGESIZE);

	memset(kp, 0, sizeof(*kp));
	kp->fd = -1;
	if (!load_ksyms())
		return -ENOENT;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = KPROF_PERIOD_NS;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.disabled = 1;
	attr.exclude_user = 1;
	attr.exclude_hv = 1;
	kp->fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
			 PERF_FLAG_FD_CLOEXEC);
	if (kp->fd < 0)
		return -errno;
	kp->data_size = KPROF_DATA_PAGES * page;
	kp->map_size = kp->data_size + page;
	kp->map = mmap(NULL, kp->map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       kp->fd, 0);
	if (kp->map == MAP_FAILED) {
		int err = errno;

		close(kp->fd);
		kp->fd = -1;
		kp->map = NULL;
		return -err;
	}
	kp->data = (unsigned char *)kp->map + page;
	return 0;
}

void kprof_enable(struct kprof *kp, bool on)
{
	ioctl(kp->fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

static void kprof_add(struct kprof *kp, unsigned long long ip)
{
	const char *name = ksym_name(ip);
	size_t i;

	kp->samples++;
	for (i = 0; i < kp->nsyms; i++)
		if (kp->syms[i].name == name) {
			kp->syms[i].count++;
			return;
		}
	if (kp->nsyms == KPROF_MAX_SYMS) {
		kp->other++;
		return;
	}
	kp->syms[kp->nsyms].name = name;
	kp->syms[kp->nsyms].count = 1;
	kp->nsyms++;
}

/*
 * Takes the records the kernel has written since the last call out of the
 * ring buffer (the protocol of struct perf_event_mmap_page: read
 * data_head, then the records, then publish data_tail).
 */
void kprof_drain(struct kprof *kp)
{
	struct perf_event_mmap_page *mp = kp->map;
	__u64 head, tail = mp->data_tail;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header hdr;
		unsigned char rec[64];
		size_t off = tail % kp->data_size, i;

		/* a record may wrap around the end of the buffer */
		for (i = 0; i < sizeof(hdr); i++)
			((unsigned char *)&hdr)[i] =
				kp->data[(off + i) % kp->data_size];
		if (hdr.size < sizeof(hdr) || tail + hdr.size > head)
			break;
		for (i = 0; i < hdr.size && i < sizeof(rec); i++)
			rec[i] = kp->data[(off + i) % kp->data_size];
		if (hdr.type == PERF_RECORD_SAMPLE &&
		    hdr.size >= sizeof(hdr) + sizeof(__u64)) {
			__u64 ip;

			memcpy(&ip, rec + sizeof(hdr), sizeof(ip));
			kprof_add(kp, ip);
		} else if (hdr.type == PERF_RECORD_LOST &&
			   hdr.size >= sizeof(hdr) + 2 * sizeof(__u64)) {
			__u64 lost;

			memcpy(&lost, rec + sizeof(hdr) + sizeof(__u64),
			       sizeof(lost));
			kp->lost += lost;
		}
		tail += hdr.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static int cmp_count(const void *a, const void *b)
{
	const struct kprof_sym *x = a, *y = b;

	return x->count > y->count ? -1 : x->count < y->count;
}

/* "SAMPLES|LOST|name:count,..." for the @top symbols with most samples. */
void kprof_print(struct kprof *kp, unsigned int top)
{
	size_t i;

	qsort(kp->syms, kp->nsyms, sizeof(kp->syms[0]), cmp_count);
	printf("%lu|%llu|", kp->samples, (unsigned long long)kp->lost);
	for (i = 0; i < kp->nsyms && i < top; i++)
		printf("%s%s:%lu", i ? "," : "", kp->syms[i].name,
		       kp->syms[i].count);
	printf("\n");
}

void kprof_close(struct kprof *kp)
{
	if (kp->map)
		munmap(kp->map, kp->map_size);
	if (kp->fd >= 0)
		close(kp->fd);
	kp->map = NULL;
	kp->fd = -1;
}
