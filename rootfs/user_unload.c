// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_unload: the probe files go away under their readers.
 *
 * Reader threads keep /proc/setfs_probe (and /proc/setfs_probe_legacy
 * when built) open and read it with pread and splice, while the main
 * thread removes the entries and creates them again:
 *
 * - unload_proc_recreate_under_readers: "unload_cycles" (default 200)
 *   SETFS_IOC_PROC_RECREATE ioctls; the module stays loaded.
 * - unload_rmmod_insmod_under_readers: "unload_module_cycles" (default
 *   50) delete_module()/finit_module() of setfs_probe.ko itself, with a
 *   thread opening, reading and closing /dev/setfs_probe as well.
 *
 * What must hold (fs/proc/inode.c, drivers/char/misc.c, kernel/module/):
 * - a read of a proc file returns the pattern bytes or fails with EIO
 *   once its entry was removed (use_pde() fails); the file then stays
 *   stale: the next read is EIO again and lseek is EINVAL;
 * - opening a proc file succeeds or fails with ENOENT;
 * - an open proc file does not pin the module (struct proc_ops has no
 *   owner since 5.6): delete_module() succeeds under its readers;
 * - an open /dev file does (fops .owner): delete_module() fails with
 *   EWOULDBLOCK (EAGAIN) then; opening /dev/setfs_probe while the module
 *   is gone fails with ENOENT (no node) or ENODEV (misc_open() found no
 *   device or could not get the module);
 * - no splat and no hang: the host checks the console, a watchdog here
 *   fails the run when a removal does not return (proc_remove() waits for
 *   the readers inside the methods).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "setfs_user.h"

#define UNLOAD_CYCLES		200
#define UNLOAD_MODULE_CYCLES	50
#define UNLOAD_READERS		3	/* per proc file */
#define UNLOAD_MAX_READERS	8
#define PROBE_KO		"/root/setfs_probe.ko"
#define PROBE_MODULE		"setfs_probe"
#define KUNIT_MODULE_DIR	"/sys/module/setfs_kunit"

struct reader {
	pthread_t tid;
	const char *path;
	bool dev;		/* opens, reads, closes: pins the module a while */
	unsigned long long rng;
	unsigned long reads, stale, enoent, opens;
	unsigned char *buf, *pipe_buf;
	int p[2];
	char why[256];
};

static struct {
	size_t size;
	unsigned char *pattern;
	struct reader r[UNLOAD_MAX_READERS];
	unsigned int nr;
	bool stop;		/* __atomic_*: readers poll it */
	const char *phase;	/* what the main thread does, for the watchdog */
	unsigned long cycle;
} ul;

static bool readers_stopped(void)
{
	return __atomic_load_n(&ul.stop, __ATOMIC_RELAXED);
}

static void *reader_fail(struct reader *r, const char *what, ssize_t ret,
			 int err)
{
	if (ret < 0)
		snprintf(r->why, sizeof(r->why), "%s %s: failed with %s (%d)",
			 r->path, what, errno_name(err), err);
	else
		snprintf(r->why, sizeof(r->why), "%s %s: returned %zd",
			 r->path, what, ret);
	__atomic_store_n(&ul.stop, true, __ATOMIC_RELAXED);
	return NULL;
}

static void pause_us(long us)
{
	struct timespec ts = { 0, us * 1000 };

	nanosleep(&ts, NULL);
}

/* After the first EIO: the file stays stale. */
static bool stays_stale(struct reader *r, int fd)
{
	ssize_t ret;

	ret = pread(fd, r->buf, 1, 0);
	if (ret != -1 || errno != EIO) {
		reader_fail(r, "pread after EIO", ret, errno);
		return false;
	}
	ret = lseek(fd, 0, SEEK_SET);
	if (ret != -1 || errno != EINVAL) {
		reader_fail(r, "lseek after EIO", ret, errno);
		return false;
	}
	return true;
}

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	size_t count, want;
	long long pos;
	loff_t off;
	ssize_t ret, got;
	int fd = -1, err, n = 0;
	bool use_splice;

	while (!readers_stopped()) {
		if (fd < 0) {
			fd = open(r->path, O_RDONLY | O_CLOEXEC);
			err = errno;
			if (fd < 0) {
				if (err != ENOENT && !(r->dev && err == ENODEV))
					return reader_fail(r, "open", -1, err);
				r->enoent++;
				pause_us(200);
				continue;
			}
			r->opens++;
			n = 0;
		}
		use_splice = r->p[0] >= 0 && splitmix64(&r->rng) % 3 == 0;
		pos = splitmix64(&r->rng) % (ul.size + 1);
		count = splitmix64(&r->rng) % (ul.size + 1);
		if (use_splice && !count)
			count = 1;	/* splice of 0 bytes returns at once */
		want = pos >= (long long)ul.size ? 0 : ul.size - pos;
		want = count < want ? count : want;
		if (use_splice) {
			off = pos;
			ret = splice(fd, &off, r->p[1], NULL, count, 0);
			err = errno;
			if (ret > 0) {
				got = read(r->p[0], r->pipe_buf, ret);
				if (got != ret)
					return reader_fail(r, "read from pipe", got, errno);
				memcpy(r->buf, r->pipe_buf, ret);
			}
		} else {
			ret = pread(fd, r->buf, count, pos);
			err = errno;
		}
		if (ret == -1 && err == EIO && !r->dev) {
			r->stale++;
			if (!stays_stale(r, fd))
				return NULL;
			close(fd);
			fd = -1;
			continue;
		}
		if (ret < 0 || (size_t)ret != want)
			return reader_fail(r, "read", ret, err);
		if (memcmp(r->buf, ul.pattern + pos, ret))
			return reader_fail(r, "read: bytes are not the pattern",
					   ret, 0);
		r->reads++;
		/* A device reader lets go now and then, so rmmod can win. */
		if (r->dev && ++n >= 50) {
			close(fd);
			fd = -1;
			pause_us(500);
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void unload_describe(void)
{
	diag("unload: main thread: %s, cycle %lu", ul.phase ? ul.phase : "?",
	     ul.cycle);
}

static bool readers_start(bool with_dev)
{
	const char *paths[2] = { SETFS_PROC_PATH, SETFS_PROC_LEGACY_PATH };
	unsigned int i, f, nfiles;

	nfiles = access(SETFS_PROC_LEGACY_PATH, F_OK) == 0 ? 2 : 1;
	__atomic_store_n(&ul.stop, false, __ATOMIC_RELAXED);
	ul.nr = 0;
	memset(ul.r, 0, sizeof(ul.r));
	for (f = 0; f < nfiles; f++)
		for (i = 0; i < UNLOAD_READERS; i++)
			ul.r[ul.nr++].path = paths[f];
	if (with_dev) {
		ul.r[ul.nr].path = SETFS_DEV_PATH;
		ul.r[ul.nr++].dev = true;
	}
	for (i = 0; i < ul.nr; i++) {
		struct reader *r = &ul.r[i];

		r->rng = 0x0dd5eed + i;
		r->p[0] = -1;
		r->p[1] = -1;
		r->buf = malloc(ul.size + 1);
		r->pipe_buf = malloc(ul.size + 1);
		if (!r->buf || !r->pipe_buf) {
			diag("out of memory");
			return false;
		}
		/* splice needs ->splice_read: the iter file only */
		if (r->path == paths[0] && pipe(r->p)) {
			diag("pipe: %s", strerror(errno));
			return false;
		}
	}
	for (i = 0; i < ul.nr; i++) {
		if (pthread_create(&ul.r[i].tid, NULL, reader_fn, &ul.r[i])) {
			diag("pthread_create: %s", strerror(errno));
			ul.nr = i;
			return false;
		}
	}
	return true;
}

/* Stops the readers; false if one of them saw something undocumented. */
static bool readers_stop(void)
{
	unsigned long reads = 0, stale = 0, enoent = 0, opens = 0;
	bool ok = true;
	unsigned int i;

	__atomic_store_n(&ul.stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < ul.nr; i++)
		pthread_join(ul.r[i].tid, NULL);
	for (i = 0; i < ul.nr; i++) {
		struct reader *r = &ul.r[i];

		if (r->why[0]) {
			diag("reader %u: %s", i, r->why);
			ok = false;
		}
		reads += r->reads;
		stale += r->stale;
		enoent += r->enoent;
		opens += r->opens;
		if (r->p[0] >= 0) {
			close(r->p[0]);
			close(r->p[1]);
		}
		free(r->buf);
		free(r->pipe_buf);
	}
	diag("unload: %u readers: %lu pattern reads, %lu EIO, %lu opens, %lu ENOENT/ENODEV",
	     ul.nr, reads, stale, opens, enoent);
	return ok;
}

/* After the storm: the entry is there again and reads in full. */
static bool proc_reads_pattern(void)
{
	unsigned char *buf = malloc(ul.size + 1);
	bool ok = false;
	int fd;

	fd = open_path(SETFS_PROC_PATH, O_RDONLY);
	if (buf && fd >= 0)
		ok = check_ll("pread of the whole file afterwards",
			      pread(fd, buf, ul.size + 1, 0), ul.size) &&
		     check_pattern(SETFS_PROC_PATH, buf, ul.size, 0);
	if (fd >= 0)
		close(fd);
	free(buf);
	return ok;
}

static enum case_result unload_proc_recreate_under_readers(void)
{
	unsigned long cycles = option_ull("unload_cycles", UNLOAD_CYCLES);
	struct setfs_ctl_info info;
	bool ok = true;
	double t0;

	if (!ctl_info(&info))
		return CASE_FAIL;
	printf("    # unload: cycles=%lu (SETFS_IOC_PROC_RECREATE)\n", cycles);
	watchdog_arm(120, "unload_proc_recreate_under_readers", unload_describe);
	t0 = now_seconds();
	if (!readers_start(false))
		ok = false;
	ul.phase = "SETFS_IOC_PROC_RECREATE";
	for (ul.cycle = 0; ok && ul.cycle < cycles && !readers_stopped(); ul.cycle++) {
		if (!ctl_call(SETFS_IOC_PROC_RECREATE, NULL,
			      "SETFS_IOC_PROC_RECREATE"))
			ok = false;
		pause_us(1000);
	}
	ok = readers_stop() && ok;
	watchdog_disarm();
	diag("unload: %lu recreations in %.2f s", ul.cycle, now_seconds() - t0);
	return ok && proc_reads_pattern() ? CASE_PASS : CASE_FAIL;
}

static long delete_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}

static enum case_result unload_rmmod_refused_while_dev_open(void)
{
	struct stat st;
	long ret;
	int fd, err;
	bool ok;

	if (stat(KUNIT_MODULE_DIR, &st) == 0)
		return ktap_skip("setfs_kunit is loaded and uses setfs_probe");
	fd = open_path(SETFS_DEV_PATH, O_RDONLY);
	if (fd < 0)
		return CASE_FAIL;
	ctl_close();
	ret = delete_module(PROBE_MODULE);
	err = errno;
	ok = check_errno("delete_module(setfs_probe) with /dev/setfs_probe open",
			 ret, err, EWOULDBLOCK);
	ok = check_ll("/proc/setfs_probe still there",
		      stat(SETFS_PROC_PATH, &st), 0) && ok;
	close(fd);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* delete_module() until no device reader pins the module; 0 or -errno. */
static long unload_probe(unsigned long *pinned)
{
	unsigned int tries;
	long ret;

	for (tries = 0; tries < 5000; tries++) {
		ret = delete_module(PROBE_MODULE);
		if (!ret)
			return 0;
		if (errno != EWOULDBLOCK)
			return -errno;
		(*pinned)++;
		pause_us(200);
	}
	return -EWOULDBLOCK;
}

static enum case_result unload_rmmod_insmod_under_readers(void)
{
	unsigned long cycles = option_ull("unload_module_cycles",
					  UNLOAD_MODULE_CYCLES);
	unsigned long pinned = 0;
	struct stat st;
	long ret;
	bool ok = true;
	double t0;
	int ko, err;

	if (stat(KUNIT_MODULE_DIR, &st) == 0)
		return ktap_skip("setfs_kunit is loaded and uses setfs_probe");
	ko = open(PROBE_KO, O_RDONLY | O_CLOEXEC);
	if (ko < 0)
		return ktap_skip(PROBE_KO " is not there (not the test guest?)");
	ctl_close();	/* the control device would pin the module */
	printf("    # unload: cycles=%lu (rmmod/insmod setfs_probe)\n", cycles);
	watchdog_arm(240, "unload_rmmod_insmod_under_readers", unload_describe);
	t0 = now_seconds();
	if (!readers_start(true))
		ok = false;
	for (ul.cycle = 0; ok && ul.cycle < cycles && !readers_stopped(); ul.cycle++) {
		ul.phase = "delete_module";
		ret = unload_probe(&pinned);
		if (ret) {
			diag("cycle %lu: delete_module(setfs_probe): %s", ul.cycle,
			     errno_name(-ret));
			ok = false;
			break;
		}
		ret = stat(SETFS_PROC_PATH, &st);
		err = errno;
		ok = check_errno("stat /proc/setfs_probe after rmmod", ret, err,
				 ENOENT);
		pause_us(2000);
		ul.phase = "finit_module";
		ret = syscall(SYS_finit_module, ko, "", 0);
		if (ret) {
			diag("cycle %lu: finit_module(setfs_probe.ko): %s",
			     ul.cycle, strerror(errno));
			ok = false;
			break;
		}
		pause_us(2000);
	}
	ul.phase = "stopping the readers";
	ok = readers_stop() && ok;
	watchdog_disarm();
	diag("unload: %lu rmmod/insmod cycles in %.2f s, rmmod refused %lu times (/dev open)",
	     ul.cycle, now_seconds() - t0, pinned);
	close(ko);
	if (stat("/sys/module/" PROBE_MODULE, &st)) {
		diag("setfs_probe is not loaded any more");
		return CASE_FAIL;
	}
	return ok && proc_reads_pattern() &&
	       check_ll("fixture size after reloading", fixture_size(),
			ul.size) ? CASE_PASS : CASE_FAIL;
}

static const struct test_case unload_cases[] = {
	{ "unload_proc_recreate_under_readers",
	  unload_proc_recreate_under_readers },
	{ "unload_rmmod_refused_while_dev_open",
	  unload_rmmod_refused_while_dev_open },
	{ "unload_rmmod_insmod_under_readers",
	  unload_rmmod_insmod_under_readers },
};

static const char *unload_setup(void)
{
	ul.size = fixture_size();
	if (!ul.size)
		return "no fixture size";
	ul.pattern = pattern_copy(ul.size, 0);
	return ul.pattern ? NULL : "out of memory";
}

static void unload_teardown(void)
{
	free(ul.pattern);
}

KTAP_GROUP(unload_group) = {
	.name = "setfs_user_unload",
	.order = 170,
	KTAP_TABLES(KTAP_TABLE(unload_cases, run_test_case)),
	.setup = unload_setup,
	.teardown = unload_teardown,
};
