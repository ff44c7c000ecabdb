/* SPDX-License-Identifier: GPL-2.0 */
/*
 * setfs_user: helpers every group of the user test binary shares
 * (setfs_user.c) and the groups themselves (user_*.c).
 */
#ifndef _SETFS_USER_H
#define _SETFS_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "arch.h"
#include "ktap.h"
#include "setfs_probe_uapi.h"

/* The probe's files by the short names the groups' tables use. */
#define PROC		SETFS_PROC_PATH
#define PROC_LEGACY	SETFS_PROC_LEGACY_PATH
#define DEV		SETFS_DEV_PATH
#define DEV_LEGACY	SETFS_DEV_LEGACY_PATH
#define DEV_BOTH	SETFS_DEV_BOTH_PATH
/* A sysctl file with ->read_iter, the same on every kernel. */
#define OSTYPE		"/proc/sys/kernel/ostype"

/* The groups, in the order they run. */

/* "setfs_user bench": the measurements of bench.c; the exit status. */
int bench_main(void);

/* close(@fd) unless it is negative (a descriptor never opened). */
void close_if_open(int fd);

/* "setfs_user series": real /proc files, for ./run.sh bench series. */
int series_main(void);

/*
 * profile.c: samples of the kernel's instruction pointer while this task
 * runs (a perf software clock event), counted per kernel symbol.
 */
#define KPROF_MAX_SYMS	256
struct kprof_sym {
	const char *name;
	unsigned long count;
};

struct kprof {
	int fd;
	void *map;
	unsigned char *data;
	size_t map_size, data_size;
	unsigned long samples, other;
	unsigned long long lost;
	struct kprof_sym syms[KPROF_MAX_SYMS];
	size_t nsyms;
};

/* 0, or -errno: no perf events, no readable /proc/kallsyms (-ENOENT). */
int kprof_open(struct kprof *kp);
void kprof_enable(struct kprof *kp, bool on);
/* Count the samples taken so far; call often enough not to lose any. */
void kprof_drain(struct kprof *kp);
/* "SAMPLES|LOST|symbol:count,...\n", the @top symbols, most first. */
void kprof_print(struct kprof *kp, unsigned int top);
void kprof_close(struct kprof *kp);

/* Bytes in every fixture (the module's "size" parameter), 0 if unknown. */
size_t fixture_size(void);

/* The fixture pattern: fill, compare, allocate a copy. */
void fill_pattern(unsigned char *buf, size_t len, off_t pos);
bool check_pattern(const char *what, const unsigned char *buf, size_t len,
		   off_t pos);
unsigned char *pattern_copy(size_t len, off_t pos);

/* Comparisons that say what differed in a diagnostic line. */
bool check_ll(const char *what, long long got, long long want);
bool check_hex(const char *what, unsigned long long got,
	       unsigned long long want);
bool check_oct(const char *what, unsigned long long got,
	       unsigned long long want);
bool check_mem(const char *what, const void *got, const void *want,
	       size_t len);
/* A syscall result: @ret must be -1 with @err (saved errno) == @want. */
bool check_errno(const char *what, long long ret, int err, int want);
/* A kernel result (-errno or a count) against @want, errno-aware. */
bool check_kret(const char *what, long long got, long long want);
const char *errno_name(int err);

int open_path(const char *path, int flags);

/* Bytes waiting in a pipe, read into @buf (at most @max). */
ssize_t drain_pipe(int fd, unsigned char *buf, size_t max);

/*
 * The control device (SETFS_CTL_PATH), opened once.  ctl_ioctl() returns
 * 0 or the errno of the ioctl; ctl_call() says why in a diagnostic line.
 */
int ctl_ioctl(unsigned long cmd, void *arg);
bool ctl_call(unsigned long cmd, void *arg, const char *what);
bool ctl_info(struct setfs_ctl_info *info);
/*
 * SETFS_IOC_INFO once per process: what the kernel states about itself
 * (nf_user_ret, section_size_bits, SETFS_INFO_CLEAR_USER_WHOLE, a mapped
 * kernel address in kbuf_addr).  NULL when it cannot be asked (said in a
 * diagnostic); the cases that need it then fail.
 */
const struct setfs_ctl_info *kernel_facts(void);
/*
 * How many bytes short of a fault a user copy may stop: the kernel's
 * uaccess_slack, or 0, the strictest, when it cannot be asked (a failed
 * SETFS_IOC_INFO never loosens an expectation; the cases that use it
 * fail on kernel_facts() first).
 */
unsigned long long uaccess_slack(void);

/*
 * Whether the kernel has the procfs series for 6.12, where a converted
 * proc file keeps refusing splice(2) and sendfile(2) with EINVAL unless
 * its proc_ops set PROC_ENTRY_ITER_WHOLE (SETFS_INFO_PROC_ITER_WHOLE).
 * False when the module cannot be asked (SETFS_IOC_INFO's diagnostic
 * says so).
 */
bool proc_splice_opt_in(void);

/*
 * Whether the converted proc file @path reads as its ->proc_read did (one
 * call per readv(2) segment, no splice): with the 6.12 series, every one
 * but /proc/config.gz, the one converted entry with PROC_ENTRY_ITER_WHOLE.
 */
bool proc_reads_as_read(const char *path);

struct iovec;
/*
 * One IORING_OP_READ of @len bytes into @buf (@iov NULL) or one
 * IORING_OP_READV of the @len segments of @iov, of @fd at its file
 * position, waited for up to @wait_s seconds: the completion's result (a
 * count or -errno), -ETIME when none came (closing the ring cancels the
 * read), or -EPROTO with a diagnostic when io_uring is missing.
 * user_iouring.c.
 */
int uring_read_once(int fd, void *buf, const struct iovec *iov,
		    unsigned int len, unsigned int wait_s);
/* Closes it, so that it no longer pins the module (setfs_user_unload). */
void ctl_close(void);

/*
 * Options: "name=value" arguments of setfs_user, else the environment
 * variable setfs_<name> (kernel command line words reach init, and so
 * setfs_user, as environment variables), else @def.
 */
unsigned long long option_ull(const char *name, unsigned long long def);

/*
 * A hang must fail in the guest, not at the host's timeout: after
 * watchdog_arm(), if watchdog_disarm() does not come within @seconds, a
 * thread prints what was running (@what, then @describe() if not NULL),
 * asks the kernel for the blocked tasks (sysrq w) and ends the process
 * with status 3, which init reports as a failure.  A deadline past the
 * case's own (ktap_case_deadline()) is moved to WATCHDOG_MARGIN seconds
 * before it (at most half the case timeout, at least 1 s from now): the
 * case timeout would otherwise kill the case first and say less.
 */
void watchdog_arm(unsigned int seconds, const char *what,
		  void (*describe)(void));
void watchdog_disarm(void);
#define WATCHDOG_MARGIN 5

/*
 * splitmix64: the next number of the sequence whose state is *@state
 * (seeded by the caller), which it advances.  Cheap, and the same
 * sequence on every run, so a failing case can be run again.
 */
unsigned long long splitmix64(unsigned long long *state);

/* Seconds since an arbitrary point, for durations. */
double now_seconds(void);

/*
 * Whether /proc/setfs_probe_legacy exists: CASE_PASS when the file and
 * SETFS_INFO_PROC_LEGACY both say so, CASE_SKIP (with the reason) when
 * both say it does not, CASE_FAIL when they disagree.
 */
enum case_result proc_legacy_state(void);

/*
 * Whether a case can use the probe file @path: proc_legacy_state() for
 * SETFS_PROC_LEGACY_PATH, which not every kernel builds; else CASE_PASS.
 */
enum case_result probe_file_state(const char *path);

/*
 * Whether the kernel has kernel-patches/ applied: run.sh boots kernels
 * without it (a distribution's) with setfs_series=none.
 */
bool series_applied(void);

/*
 * Whether the running kernel (uname's release) is @major.@minor or later.
 * For behaviour that changed upstream between the bases and that no
 * header, config option or SETFS_IOC_INFO fact tells; each caller names
 * the commit that changed it.
 */
bool kernel_at_least(int major, int minor);

/* Writes the pattern back into the devices' store and checks its sum. */
bool store_restore(void);

/* ------------------------------------------- the converted proc files */

/* The running kernel's .config, put into the guest by run.sh. */
#define KERNEL_CONFIG	"/root/kernel.config"

/* 'y', 'm' or 'n' for CONFIG_@sym in KERNEL_CONFIG. */
char kconfig(const char *sym);

bool exists(const char *path);

/*
 * Whether a case can go on with @path: CASE_PASS when it exists and
 * CONFIG_@sym (if any) says it should, a skip naming the option when
 * neither does, CASE_FAIL when they disagree.
 */
enum case_result need_file(const char *path, const char *sym);

/*
 * The value of the first "key : value" line of /proc/cpuinfo whose key is
 * @key, into @buf; false when there is none.
 */
bool cpuinfo_value(const char *key, char *buf, size_t len);

/* Writes @s to @path in one write(2); says why not in a diagnostic. */
bool write_str(const char *path, const char *s);

/*
 * One read(2) of at most @len bytes from the start of @path: false (said
 * why) when @path cannot be opened, else true with what read(2) returned
 * in *@ret, for the caller to check.
 */
bool read_once(const char *path, void *buf, size_t len, ssize_t *ret);

/*
 * All of @path by read(2) in @step-sized steps (read_all: 1000), at most
 * @max bytes; the byte count or -errno.
 */
ssize_t read_all_step(const char *path, int oflags, unsigned char *buf,
		      size_t max, size_t step);
ssize_t read_all(const char *path, int oflags, unsigned char *buf,
		 size_t max);

/*
 * A proc file whose proc_ops part 1 of kernel-patches/ converts from
 * seq_read to seq_read_iter: the table is in user_procfiles.c.
 */
struct procfile_row {
	const char *name;
	const char *path;	/* a glob: the first match is used */
	const char *ops;	/* the converted proc_ops, for the diagnostics */
	bool stable;		/* same bytes on every read */
	bool may_be_empty;
	const char *kconfig;	/* CONFIG_<this> creates it, if not always on */
};

extern const struct procfile_row procfile_rows[];
extern const unsigned int procfile_nrows;

/*
 * Whether @r exists in this guest: CASE_PASS with the path in @path, a
 * skip (the kernel is configured without it) or CASE_FAIL (missing).
 */
enum case_result procfile_locate(const struct procfile_row *r, char *path,
				 size_t len);

/* The PCI device files (part 2) with their sysfs config files. */
#define PCI_MAX_DEVICES	32

struct pci_dev {
	char proc[64];	/* /proc/bus/pci/00/01.0 */
	char sysfs[96];	/* /sys/bus/pci/devices/0000:00:01.0/config */
};

/* Fills @devs; 0 with @res a skip or a failure when there are none. */
int pci_devices(struct pci_dev *devs, int max, enum case_result *res);

/* The files of /proc/asound the owner may read (at most ASOUND_MAX). */
#define ASOUND		"/proc/asound"
#define ASOUND_MAX	256

struct asound_entry {
	char path[128];
};

void asound_walk(const char *dir, struct asound_entry *paths, int *n);

#endif /* _SETFS_USER_H */
