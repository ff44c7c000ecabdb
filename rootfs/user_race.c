// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_race: "race_threads" threads (default 4) each run
 * "race_iterations" random operations (default 10000) on the same probe
 * files at once, on one descriptor they share and on their own: read,
 * pread, readv, lseek, splice and sendfile into their own pipe, pwrite.
 *
 * What must hold whatever the interleaving:
 * - a read returns bytes of the pattern: at the offset asked for (pread,
 *   splice and sendfile with an offset, the thread's own descriptor), or
 *   for the shared descriptor a contiguous run of the pattern at some
 *   offset (devices have no FMODE_ATOMIC_POS, so two reads may overlap);
 * - counts are exact where the offset is known, never beyond the file;
 * - splice from files without ->splice_read fails with EINVAL, writes to
 *   proc files with EIO;
 * - writes: thread t writes only its own slice of the devices' store, so
 *   the store checksum at the end is known exactly although the writes
 *   raced with each other and with the reads;
 * - nothing hangs: a watchdog (setfs_user.c) fails the run after 120 s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#include "setfs_user.h"

#define RACE_THREADS	4
#define RACE_ITERATIONS	10000
#define RACE_MAX_THREADS 64
#define RACE_SEED	0x7ace5eedULL

enum {
	RF_PROC		= 1 << 0,	/* writes: EIO */
	RF_SPLICE	= 1 << 1,	/* ->splice_read */
	RF_LEGACY	= 1 << 2,	/* may be absent */
};

static const struct race_file {
	const char *path;
	unsigned int fl;
} race_files[] = {
	{ SETFS_PROC_PATH, RF_PROC | RF_SPLICE },
	{ SETFS_PROC_LEGACY_PATH, RF_PROC | RF_LEGACY },
	{ SETFS_DEV_PATH, 0 },
	{ SETFS_DEV_LEGACY_PATH, 0 },
	{ SETFS_DEV_BOTH_PATH, 0 },
};

#define NFILES ARRAY_SIZE(race_files)

struct race_row {
	const char *name;
	int file;		/* index in race_files, -1: all of them */
};

static const struct race_row race_rows[] = {
	{ "race_proc", 0 },
	{ "race_proc_legacy", 1 },
	{ "race_dev", 2 },
	{ "race_dev_legacy", 3 },
	{ "race_dev_both", 4 },
	{ "race_all_files", -1 },
};

enum race_op { R_READ, R_PREAD, R_READV, R_LSEEK, R_SPLICE, R_SENDFILE,
	       R_PWRITE, R_NOPS };

static const char *const race_op_names[] = {
	"read", "pread", "readv", "lseek", "splice", "sendfile", "pwrite",
};

struct race_thread {
	pthread_t tid;
	int id;
	unsigned long long rng;
	int own[NFILES];
	long long own_pos[NFILES];
	int p[2];
	unsigned char *buf;
	unsigned char *pipe_buf;
	size_t slice_off, slice_len;	/* its part of the store */
	unsigned long done;
	int cur_op, cur_file;	/* for the watchdog's report */
	bool cur_shared;
	char why[320];
};

static struct {
	unsigned int threads;
	unsigned long iterations;
	size_t size, page;
	unsigned char *pattern;
	unsigned char *store;	/* model: pattern + every slice's last write */
	int shared[NFILES];
	bool present[NFILES];
	const struct race_row *row;
	struct race_thread *t;
	bool stop;		/* __atomic_*: set by the watchdog and main */
} rc;

static bool race_stopped(void)
{
	return __atomic_load_n(&rc.stop, __ATOMIC_RELAXED);
}

static unsigned long long below(struct race_thread *t, unsigned long long n)
{
	return n ? splitmix64(&t->rng) % n : 0;
}

static bool race_fail(struct race_thread *t, const char *fmt, ...)
	__printf(2, 3);

static bool race_fail(struct race_thread *t, const char *fmt, ...)
{
	int n;
	va_list ap;

	n = snprintf(t->why, sizeof(t->why), "thread %d op %lu %s on %s (%s fd): ",
		     t->id, t->done, race_op_names[t->cur_op],
		     race_files[t->cur_file].path,
		     t->cur_shared ? "shared" : "own");
	va_start(ap, fmt);
	vsnprintf(t->why + n, sizeof(t->why) - n, fmt, ap);
	va_end(ap);
	__atomic_store_n(&rc.stop, true, __ATOMIC_RELAXED);
	return false;
}

/* @len bytes of the pattern at @pos, or at some offset when @pos < 0. */
static bool race_check(struct race_thread *t, const unsigned char *buf,
		       size_t len, long long pos)
{
	size_t p;

	if (!len)
		return true;
	if (pos >= 0) {
		if (pos + len <= rc.size && !memcmp(buf, rc.pattern + pos, len))
			return true;
		return race_fail(t, "%zu bytes at %lld are not the pattern",
				 len, pos);
	}
	for (p = 0; p + len <= rc.size; p++)
		if (rc.pattern[p] == buf[0] &&
		    !memcmp(buf, rc.pattern + p, len))
			return true;
	return race_fail(t, "%zu bytes are no run of the pattern", len);
}

static bool race_count(struct race_thread *t, const char *what, ssize_t ret,
		       long long want)
{
	if (ret == want)
		return true;
	if (ret < 0)
		return race_fail(t, "%s failed with %s, expected %lld", what,
				 errno_name(errno), want);
	return race_fail(t, "%s returned %zd, expected %lld", what, ret, want);
}

static bool race_errno(struct race_thread *t, const char *what, ssize_t ret,
		       int want)
{
	if (ret == -1 && errno == want)
		return true;
	if (ret == -1)
		return race_fail(t, "%s failed with %s, expected %s", what,
				 errno_name(errno), errno_name(want));
	return race_fail(t, "%s returned %zd, expected %s", what, ret,
			 errno_name(want));
}

static size_t expect_at(long long pos, size_t count)
{
	size_t avail = pos >= (long long)rc.size ? 0 : rc.size - pos;

	return count < avail ? count : avail;
}

static bool race_pipe(struct race_thread *t, size_t want, long long pos)
{
	ssize_t got = 0, r;
	int avail;

	if (ioctl(t->p[0], FIONREAD, &avail) < 0 || avail != (int)want)
		return race_fail(t, "the pipe holds %d bytes, expected %zu",
				 avail, want);
	while (got < avail) {
		r = read(t->p[0], t->pipe_buf + got, avail - got);
		if (r <= 0)
			return race_fail(t, "read from the pipe: %s",
					 strerror(errno));
		got += r;
	}
	return race_check(t, t->pipe_buf, want, pos);
}

static bool race_op(struct race_thread *t, int f)
{
	const struct race_file *rf = &race_files[f];
	bool shared = below(t, 2);
	int fd = shared ? rc.shared[f] : t->own[f];
	long long *mpos = shared ? NULL : &t->own_pos[f];
	size_t count = below(t, 4) ? below(t, 2 * rc.page + 2) :
		       below(t, rc.size + 2);
	long long pos = below(t, rc.size + 2);
	struct iovec iov[2];
	loff_t off = pos;
	ssize_t ret;
	size_t i;

	t->cur_op = below(t, R_NOPS);
	t->cur_file = f;
	t->cur_shared = shared;
	switch (t->cur_op) {
	case R_READ:
	case R_READV:
		iov[0].iov_base = t->buf;
		iov[0].iov_len = count / 2;
		iov[1].iov_base = t->buf + count / 2;
		iov[1].iov_len = count - count / 2;
		ret = t->cur_op == R_READ ? read(fd, t->buf, count) :
		      readv(fd, iov, 2);
		if (mpos) {
			if (!race_count(t, "read", ret, expect_at(*mpos, count)))
				return false;
			if (!race_check(t, t->buf, ret, *mpos))
				return false;
			*mpos += ret;
			return true;
		}
		if (ret < 0 || (size_t)ret > count)
			return race_count(t, "read", ret, count);
		return race_check(t, t->buf, ret, -1);
	case R_PREAD:
		ret = pread(fd, t->buf, count, pos);
		return race_count(t, "pread", ret, expect_at(pos, count)) &&
		       race_check(t, t->buf, ret, pos);
	case R_LSEEK:
		pos = below(t, rc.size + 1);
		ret = lseek(fd, pos, SEEK_SET);
		if (mpos && ret == pos)
			*mpos = pos;
		return race_count(t, "lseek", ret, pos);
	case R_SPLICE:
	case R_SENDFILE:
		if (!count)
			count = 1;
		ret = t->cur_op == R_SPLICE ?
		      splice(fd, &off, t->p[1], NULL, count, 0) :
		      sendfile(t->p[1], fd, &off, count);
		if (!(rf->fl & RF_SPLICE))
			return race_errno(t, "splice", ret, EINVAL) &&
			       race_pipe(t, 0, pos);
		return race_count(t, "splice", ret, expect_at(pos, count)) &&
		       race_count(t, "offset afterwards", off, pos + ret) &&
		       race_pipe(t, ret, pos);
	default:
		count = below(t, t->slice_len + 1);
		pos = t->slice_off + below(t, t->slice_len - count + 1);
		for (i = 0; i < count; i++)
			t->buf[i] = splitmix64(&t->rng);
		ret = pwrite(fd, t->buf, count, pos);
		if (rf->fl & RF_PROC)
			return race_errno(t, "pwrite", ret, EIO);
		if (!race_count(t, "pwrite", ret, count))
			return false;
		memcpy(rc.store + pos, t->buf, count);	/* its own slice */
		return true;
	}
}

static void *race_thread_fn(void *arg)
{
	struct race_thread *t = arg;
	int f;

	for (t->done = 0; t->done < rc.iterations && !race_stopped(); t->done++) {
		f = rc.row->file;
		if (f < 0) {
			do {
				f = below(t, NFILES);
			} while (!rc.present[f]);
		}
		if (!race_op(t, f))
			break;
	}
	return NULL;
}

static void race_describe(void)
{
	unsigned int i;

	for (i = 0; i < rc.threads; i++)
		diag("race: thread %u at op %lu: %s on %s (%s fd)", i,
		     rc.t[i].done, race_op_names[rc.t[i].cur_op],
		     race_files[rc.t[i].cur_file].path,
		     rc.t[i].cur_shared ? "shared" : "own");
}

static void race_close(void)
{
	unsigned int i, f;

	for (i = 0; i < rc.threads; i++) {
		struct race_thread *t = &rc.t[i];

		for (f = 0; f < NFILES; f++)
			if (t->own[f] >= 0)
				close(t->own[f]);
		if (t->p[0] >= 0) {
			close(t->p[0]);
			close(t->p[1]);
		}
		free(t->buf);
		free(t->pipe_buf);
	}
	for (f = 0; f < NFILES; f++) {
		if (rc.shared[f] >= 0)
			close(rc.shared[f]);
		rc.shared[f] = -1;
	}
	free(rc.t);
	rc.t = NULL;
}

static bool race_open(void)
{
	size_t slice = rc.size / rc.threads;
	unsigned int i, f;

	rc.t = calloc(rc.threads, sizeof(*rc.t));
	if (!rc.t)
		return false;
	for (f = 0; f < NFILES; f++) {
		rc.shared[f] = -1;
		if (!rc.present[f])
			continue;
		rc.shared[f] = open_path(race_files[f].path, O_RDWR | O_CLOEXEC);
		if (rc.shared[f] < 0)
			return false;
	}
	for (i = 0; i < rc.threads; i++) {
		struct race_thread *t = &rc.t[i];

		t->id = i;
		t->rng = RACE_SEED + i;
		t->p[0] = -1;
		t->slice_off = i * slice;
		t->slice_len = slice;
		for (f = 0; f < NFILES; f++)
			t->own[f] = -1;
		t->buf = malloc(rc.size + 2 * rc.page + 2);
		t->pipe_buf = malloc(rc.size + 2 * rc.page + 2);
		if (!t->buf || !t->pipe_buf || pipe(t->p)) {
			diag("out of memory or pipes");
			return false;
		}
		for (f = 0; f < NFILES; f++) {
			if (!rc.present[f])
				continue;
			t->own[f] = open_path(race_files[f].path,
					      O_RDWR | O_CLOEXEC);
			if (t->own[f] < 0)
				return false;
		}
	}
	return true;
}

static enum case_result run_race_row(const void *data)
{
	const struct race_row *r = data;
	enum case_result res = CASE_FAIL;
	struct setfs_ctl_info info;
	unsigned int i, started = 0;
	double t0;

	if (r->file == 1) {
		res = proc_legacy_state();
		if (res != CASE_PASS)
			return res;
		res = CASE_FAIL;
	}
	rc.row = r;
	__atomic_store_n(&rc.stop, false, __ATOMIC_RELAXED);
	fill_pattern(rc.store, rc.size, 0);
	if (!store_restore() || !race_open())
		goto out;
	printf("    # race: threads=%u iterations=%lu\n", rc.threads,
	       rc.iterations);
	watchdog_arm(120, r->name, race_describe);
	t0 = now_seconds();
	for (i = 0; i < rc.threads; i++) {
		if (pthread_create(&rc.t[i].tid, NULL, race_thread_fn, &rc.t[i])) {
			diag("pthread_create: %s", strerror(errno));
			__atomic_store_n(&rc.stop, true, __ATOMIC_RELAXED);
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(rc.t[i].tid, NULL);
	watchdog_disarm();
	diag("race %s: %u threads x %lu operations in %.2f s", r->name,
	     started, rc.iterations, now_seconds() - t0);
	res = started == rc.threads ? CASE_PASS : CASE_FAIL;
	for (i = 0; i < started; i++) {
		if (rc.t[i].why[0]) {
			diag("%s", rc.t[i].why);
			res = CASE_FAIL;
		}
	}
	if (res == CASE_PASS &&
	    (!ctl_info(&info) ||
	     !check_hex("store checksum against the slices written",
			info.store_sum, setfs_checksum(rc.store, rc.size))))
		res = CASE_FAIL;
out:
	race_close();
	if (!store_restore())
		res = CASE_FAIL;
	return res;
}

static const char *race_setup(void)
{
	unsigned int f;

	rc.threads = option_ull("race_threads", RACE_THREADS);
	rc.iterations = option_ull("race_iterations", RACE_ITERATIONS);
	if (!rc.threads || rc.threads > RACE_MAX_THREADS)
		return "race_threads must be 1..64";
	rc.size = fixture_size();
	rc.page = sysconf(_SC_PAGESIZE);
	if (!rc.size)
		return "no fixture size";
	rc.pattern = pattern_copy(rc.size, 0);
	rc.store = malloc(rc.size);
	if (!rc.pattern || !rc.store)
		return "out of memory";
	for (f = 0; f < NFILES; f++)
		rc.present[f] = !(race_files[f].fl & RF_LEGACY) ||
				access(race_files[f].path, F_OK) == 0;
	return NULL;
}

static void race_teardown(void)
{
	free(rc.pattern);
	free(rc.store);
}

KTAP_GROUP(race_group) = {
	.name = "setfs_user_race",
	.order = 160,
	KTAP_TABLES(KTAP_TABLE(race_rows, run_race_row)),
	.setup = race_setup,
	.teardown = race_teardown,
};
