// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user bench: what the iter read paths cost against the ones they
 * replace, measured in the guest (rootfs/init, setfs_mode=bench).  Prints
 * plain-text tables, not KTAP:
 *
 *  1. read() of /proc/setfs_probe (->proc_read_iter) against
 *     /proc/setfs_probe_legacy (->proc_read);
 *  2. read() of /dev/setfs_probe (->read_iter) against
 *     /dev/setfs_probe_legacy (->read), /dev/zero as a reference;
 *  3. sendfile()/splice() from /proc/setfs_probe against a read()+write()
 *     copy of the same bytes;
 *  4. kernel_read() in the module (SETFS_IOC_BENCH_KERNEL_READ), timed
 *     with ktime_get_ns() around the loop.
 *
 * Method: every measurement is a loop of calls of one kind.  A repetition
 * runs it for about BENCH_REP_NS, from a clock tick edge and in chunks
 * sized by a calibration run (op_rep()); the variants compared in a row
 * run their repetitions in turn (A B C A B C ...), so that a drift of the
 * machine hits all of them alike.  Each table gives the minimum and the
 * median over BENCH_REPS repetitions of the time per call
 * (CLOCK_MONOTONIC; the module's ktime_get_ns() for kernel_read()), the
 * throughput they give (MB = 10^6 bytes, over the bytes the calls
 * returned) and the ratio of the throughputs within the row.
 *
 * The exit status is 0 when every measurement ran (targets missed are
 * reported, not failed), 1 when one could not run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "setfs_user.h"

#define BENCH_REPS	5
#define BENCH_REP_NS	150000000.0	/* one repetition: 150 ms */
#define BENCH_KREP_NS	300000000.0	/* of kernel_read(): 300 ms, see op_rep() */
#define BENCH_VARIANTS	3		/* most variants compared in a row */
#define BENCH_BUF	(64 * 1024)

/* The read() request sizes of tables 1, 2 and 4. */
static const size_t read_sizes[] = { 1, 64, 4096, 64 * 1024 };
/* The sizes of table 3. */
static const size_t splice_sizes[] = { 4096, 64 * 1024 };

struct bench_op;

/* One call of the measured kind: bytes it moved, or -1 (op->err says why). */
typedef ssize_t (*bench_step_fn)(struct bench_op *op);

struct bench_op {
	const char *label;
	/* Why it is not measured (then it prints this instead of numbers). */
	const char *na;
	bench_step_fn step;
	/* SETFS_IOC_BENCH_KERNEL_READ instead of a loop of steps. */
	const char *kpath;
	int fd;
	int out;
	int p[2];
	size_t req;
	off_t off;
	off_t wrap;
	unsigned char *buf;
	double rep_ns;			/* length of one repetition */
	unsigned long calls;		/* per repetition (kernel variants) */
	unsigned long chunk;		/* calls between two clock readings */
	/* Results. */
	unsigned long long done;	/* calls of every repetition together */
	unsigned long long bytes;	/* bytes they moved */
	double ns[BENCH_REPS];		/* per call */
	double min, median;
	char err[160];
};

static size_t fsize;
static unsigned int failures;
static unsigned char *buffer;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void op_error(struct bench_op *op, const char *what, int err)
{
	snprintf(op->err, sizeof(op->err), "%s: %s", what, strerror(err));
}

static void op_init(struct bench_op *op, const char *label, size_t req)
{
	memset(op, 0, sizeof(*op));
	op->label = label;
	op->fd = -1;
	op->out = -1;
	op->p[0] = -1;
	op->p[1] = -1;
	op->req = req;
	op->wrap = fsize;
	op->buf = buffer;
	op->rep_ns = BENCH_REP_NS;
}

static void op_close(struct bench_op *op)
{
	close_if_open(op->fd);
	close_if_open(op->out);
	close_if_open(op->p[0]);
	close_if_open(op->p[1]);
}

/* Advances the position of a loop over the whole file by @ret bytes. */
static ssize_t op_advance(struct bench_op *op, ssize_t ret, const char *what)
{
	if (ret <= 0) {
		if (ret == 0)
			snprintf(op->err, sizeof(op->err),
				 "%s at offset %lld: unexpected EOF", what,
				 (long long)op->off);
		else
			op_error(op, what, errno);
		return -1;
	}
	op->off += ret;
	if (op->off >= op->wrap)
		op->off = 0;
	return ret;
}

/* pread() of the next op->req bytes, wrapping to 0 at the end. */
static ssize_t step_pread(struct bench_op *op)
{
	return op_advance(op, pread(op->fd, op->buf, op->req, op->off),
			  "pread");
}

/* The same bytes, then write() to op->out (/dev/null). */
static ssize_t step_pread_write(struct bench_op *op)
{
	ssize_t ret = pread(op->fd, op->buf, op->req, op->off);

	if (ret > 0 && write(op->out, op->buf, ret) != ret) {
		op_error(op, "write", errno);
		return -1;
	}
	return op_advance(op, ret, "pread");
}

/* The same bytes, then pwrite() at the same offset of op->out (tmpfs). */
static ssize_t step_pread_pwrite(struct bench_op *op)
{
	ssize_t ret = pread(op->fd, op->buf, op->req, op->off);

	if (ret > 0 && pwrite(op->out, op->buf, ret, op->off) != ret) {
		op_error(op, "pwrite", errno);
		return -1;
	}
	return op_advance(op, ret, "pread");
}

/* sendfile() of the next op->req bytes to op->out (/dev/null). */
static ssize_t step_sendfile(struct bench_op *op)
{
	off_t off = op->off;

	return op_advance(op, sendfile(op->out, op->fd, &off, op->req),
			  "sendfile");
}

/*
 * splice() of the next op->req bytes into a pipe, then splice() of them
 * from the pipe to the same offset of op->out (tmpfs): the two-call
 * splice counterpart of step_pread_pwrite().
 */
static ssize_t step_splice_pipe(struct bench_op *op)
{
	loff_t in = op->off, out = op->off;
	ssize_t ret, left, n;

	ret = splice(op->fd, &in, op->p[1], NULL, op->req, 0);
	for (left = ret; left > 0; left -= n) {
		n = splice(op->p[0], NULL, op->out, &out, left, 0);
		if (n <= 0) {
			op_error(op, "splice from the pipe",
				 n ? errno : EPIPE);
			return -1;
		}
	}
	return op_advance(op, ret, "splice into the pipe");
}

static bool op_open(struct bench_op *op, const char *path, bench_step_fn step)
{
	op->step = step;
	op->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (op->fd < 0) {
		op_error(op, path, errno);
		return false;
	}
	return true;
}

/* An unlinked file in /tmp (tmpfs). */
static int tmpfs_fd(struct bench_op *op)
{
	char name[] = "/tmp/setfs_bench.XXXXXX";
	int fd = mkstemp(name);

	if (fd < 0) {
		op_error(op, "mkstemp", errno);
		return -1;
	}
	unlink(name);
	return fd;
}

/*
 * Runs @calls kernel_read() calls through the control device, in chunks
 * within the ioctl's bounds; *ns is the sum of the kernel's own times.
 */
static bool kernel_batch(struct bench_op *op, unsigned long calls, double *ns,
			 unsigned long long *bytes)
{
	unsigned long long cap = SETFS_CTL_BENCH_BYTES_MAX / op->req;
	struct setfs_ctl_bench b;
	int err;

	if (cap > SETFS_CTL_BENCH_CALLS_MAX)
		cap = SETFS_CTL_BENCH_CALLS_MAX;
	*ns = 0;
	*bytes = 0;
	while (calls) {
		memset(&b, 0, sizeof(b));
		snprintf(b.path, sizeof(b.path), "%s", op->kpath);
		b.count = op->req;
		b.calls = calls < cap ? calls : cap;
		err = ctl_ioctl(SETFS_IOC_BENCH_KERNEL_READ, &b);
		if (err) {
			op_error(op, "SETFS_IOC_BENCH_KERNEL_READ", err);
			return false;
		}
		if (b.open_ret) {
			op_error(op, "filp_open", (int)-b.open_ret);
			return false;
		}
		if (b.ret < 0) {
			snprintf(op->err, sizeof(op->err),
				 "refused: kernel_read() returned -%s after %llu calls",
				 errno_name((int)-b.ret),
				 (unsigned long long)b.calls);
			return false;
		}
		*ns += b.ns;
		*bytes += b.bytes;
		calls -= b.calls;
	}
	return true;
}

/* @calls calls of op->step; false with op->err set on failure. */
static bool op_steps(struct bench_op *op, unsigned long calls,
		     unsigned long long *bytes)
{
	unsigned long i;
	ssize_t ret;

	for (i = 0; i < calls; i++) {
		ret = op->step(op);
		if (ret < 0)
			return false;
		*bytes += ret;
	}
	return true;
}

/* @calls calls, timed (the kernel's time for kernel_read()). */
static bool op_batch(struct bench_op *op, unsigned long calls, double *ns,
		     unsigned long long *bytes)
{
	double t0;

	if (op->kpath)
		return kernel_batch(op, calls, ns, bytes);
	*bytes = 0;
	t0 = now_ns();
	if (!op_steps(op, calls, bytes))
		return false;
	*ns = now_ns() - t0;
	return true;
}

/* The first reading of the clock after it next moves: a tick edge. */
static double next_tick(void)
{
	double t0 = now_ns(), t;

	while ((t = now_ns()) == t0)
		;
	return t;
}

/*
 * One repetition of a user-space variant, robust to a coarse clock (the
 * jiffies clocksource of a TCG guest moves in 4 ms steps): it starts on a
 * tick edge and runs chunks of op->chunk calls until op->rep_ns have
 * passed, so the time is exact to one chunk (about 1/200 of it) instead
 * of one tick.  Kernel variants run op->calls calls in one go, timed by
 * the module.
 */
static bool op_rep(struct bench_op *op, double *ns_per_call,
		   unsigned long long *bytes, unsigned long *calls)
{
	double start, t, ns;

	*bytes = 0;
	if (op->kpath) {
		*calls = op->calls;
		if (!kernel_batch(op, op->calls, &ns, bytes))
			return false;
		*ns_per_call = ns / op->calls;
		return true;
	}
	*calls = 0;
	start = next_tick();
	do {
		if (!op_steps(op, op->chunk, bytes))
			return false;
		*calls += op->chunk;
		t = now_ns();
	} while (t - start < op->rep_ns);
	*ns_per_call = (t - start) / *calls;
	return true;
}

/*
 * Sizes a repetition: the calls that take about op->rep_ns (kernel
 * variants) or 1/200 of it (the chunks of user-space variants), from a
 * batch of at least rep_ns / 5, long enough for a 4 ms clock.
 */
static bool op_calibrate(struct bench_op *op)
{
	unsigned long long bytes;
	unsigned long calls = 1;
	double ns, per_call;

	for (;;) {
		if (!op_batch(op, calls, &ns, &bytes))
			return false;
		if (ns >= op->rep_ns / 5 || calls >= 1UL << 30)
			break;
		calls *= ns < op->rep_ns / 100 ? 16 : 2;
	}
	per_call = ns / calls;
	op->calls = op->rep_ns / per_call + 1;
	op->chunk = op->rep_ns / 200 / per_call + 1;
	return true;
}

static bool op_ok(const struct bench_op *op)
{
	return !op->na && !op->err[0];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Measures the @n variants of one row: calibrates each, then runs their
 * repetitions in turn.  A variant that fails keeps its reason in err (or
 * was not available: na) and is left out of the rest of the row.
 */
static void measure_row(struct bench_op *ops, size_t n)
{
	double sorted[BENCH_REPS], ns;
	unsigned long long bytes;
	unsigned long calls;
	unsigned int rep;
	size_t i;

	for (i = 0; i < n; i++)
		if (op_ok(&ops[i]) && !op_calibrate(&ops[i]))
			failures++;
	for (rep = 0; rep < BENCH_REPS; rep++) {
		for (i = 0; i < n; i++) {
			struct bench_op *op = &ops[i];

			if (!op_ok(op))
				continue;
			if (!op_rep(op, &ns, &bytes, &calls)) {
				failures++;
				continue;
			}
			op->ns[rep] = ns;
			op->bytes += bytes;
			op->done += calls;
		}
	}
	for (i = 0; i < n; i++) {
		if (!op_ok(&ops[i]))
			continue;
		memcpy(sorted, ops[i].ns, sizeof(sorted));
		qsort(sorted, BENCH_REPS, sizeof(sorted[0]), cmp_double);
		ops[i].min = sorted[0];
		ops[i].median = sorted[BENCH_REPS / 2];
	}
}

static double op_bytes_per_call(const struct bench_op *op)
{
	return (double)op->bytes / op->done;
}

/* MB/s (10^6 bytes per second) at @ns per call. */
static double op_mbs(const struct bench_op *op, double ns)
{
	return op_bytes_per_call(op) / ns * 1e3;
}

static const char *size_name(size_t size)
{
	static char name[4][24];
	static unsigned int next;
	char *s = name[next++ % 4];

	if (size >= 1024 && !(size % 1024))
		snprintf(s, sizeof(name[0]), "%zu KiB", size / 1024);
	else
		snprintf(s, sizeof(name[0]), "%zu B", size);
	return s;
}

static void print_header(void)
{
	printf("  %-8s %-36s %9s %10s %10s %10s %9s %9s\n", "request",
	       "file (method)", "B/call", "calls/rep", "ns min", "ns median",
	       "MB/s max", "MB/s med");
}

static void print_op(const struct bench_op *op)
{
	printf("  %-8s %-36s ", size_name(op->req), op->label);
	if (op->na)
		printf("n/a (%s)\n", op->na);
	else if (op->err[0])
		printf("%s\n", op->err);
	else
		printf("%9.0f %10llu %10.0f %10.0f %9.1f %9.1f\n",
		       op_bytes_per_call(op), op->done / BENCH_REPS, op->min,
		       op->median,
		       op_mbs(op, op->min), op_mbs(op, op->median));
}

/*
 * The throughput of @a over that of @b, from the medians and from the
 * minimums; against @target when it is not 0.
 */
static void print_ratio(const char *name, const struct bench_op *a,
			const struct bench_op *b, double target)
{
	double med, min;

	printf("  %-8s %-36s ", "", name);
	if (!op_ok(a) || !op_ok(b)) {
		printf("n/a\n");
		return;
	}
	med = b->median / a->median;
	min = b->min / a->min;
	printf("%.3f (median), %.3f (min)", med, min);
	if (target > 0)
		printf("   target >= %.2f: %s", target,
		       med >= target ? "met" :
		       min >= target ? "met on min only" : "MISSED");
	printf("\n");
}

static void print_context(void)
{
	char clock[64] = "?";
	struct timespec res;
	struct utsname u;
	struct stat st;
	FILE *f;

	uname(&u);
	clock_getres(CLOCK_MONOTONIC, &res);
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  "r");
	if (f) {
		if (fgets(clock, sizeof(clock), f))
			clock[strcspn(clock, "\n")] = 0;
		fclose(f);
	}
	printf("setfs_user bench\n");
	printf("  kernel       %s (%s %s)\n", u.release, u.machine, u.version);
	printf("  series       %s\n", series_applied() ?
	       "kernel-patches/ applied" : "none (distribution kernel)");
	printf("  cpus         %ld online, %ld configured\n",
	       sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_CONF));
	printf("  clock        CLOCK_MONOTONIC, resolution %ld ns, clocksource %s\n",
	       res.tv_sec * 1000000000L + res.tv_nsec, clock);
	printf("  fixture      %zu bytes (module parameter size", fsize);
	if (stat(SETFS_SIZE_PARAM, &st) == 0)
		printf(", mode %03o: %s", st.st_mode & 0777,
		       st.st_mode & 0222 ? "writable" :
		       "read-only, so the default the init loaded it with");
	printf(")\n");
	printf("  method       %d repetitions per variant, interleaved with the other variants of\n"
	       "               the row; a repetition runs ~%.0f ms from a clock tick edge, in chunks\n"
	       "               of ~1/200 of it (kernel_read(): %.0f ms timed by the module);\n"
	       "               ns per call min/median over the repetitions; MB/s = 10^6 B/s over\n"
	       "               the bytes returned (a request larger than the fixture returns at most\n"
	       "               %zu bytes per call); ratios are throughput ratios within the row\n",
	       BENCH_REPS, BENCH_REP_NS / 1e6, BENCH_KREP_NS / 1e6, fsize);
}

/* Tables 1 and 2: pread() over the whole file at each request size. */
static void bench_read_table(const char *title, const char *const paths[],
			     const char *const labels[], size_t n,
			     const char *legacy_na, double target)
{
	struct bench_op ops[BENCH_VARIANTS];
	size_t s, i;

	printf("\n%s\n", title);
	print_header();
	for (s = 0; s < ARRAY_SIZE(read_sizes); s++) {
		for (i = 0; i < n; i++) {
			op_init(&ops[i], labels[i], read_sizes[s]);
			if (i == 1 && legacy_na)
				ops[i].na = legacy_na;
			else if (!op_open(&ops[i], paths[i], step_pread))
				failures++;
		}
		measure_row(ops, n);
		for (i = 0; i < n; i++)
			print_op(&ops[i]);
		print_ratio("ratio iter/legacy", &ops[0], &ops[1], target);
		if (n > 2)
			print_ratio("ratio iter/dev_zero", &ops[0], &ops[2], 0);
		for (i = 0; i < n; i++)
			op_close(&ops[i]);
	}
}

static void bench_proc(void)
{
	static const char *const paths[] = {
		SETFS_PROC_PATH, SETFS_PROC_LEGACY_PATH,
	};
	static const char *const labels[] = {
		SETFS_PROC_PATH " (proc_read_iter)",
		SETFS_PROC_LEGACY_PATH " (proc_read)",
	};
	struct stat st;

	bench_read_table("1. read() of /proc: pread() over the whole file, back to 0 at EOF",
			 paths, labels, ARRAY_SIZE(paths),
			 stat(SETFS_PROC_LEGACY_PATH, &st) ?
			 "kernel has no ->proc_read" : NULL, 0.95);
}

static void bench_dev(void)
{
	static const char *const paths[] = {
		SETFS_DEV_PATH, SETFS_DEV_LEGACY_PATH, "/dev/zero",
	};
	static const char *const labels[] = {
		SETFS_DEV_PATH " (read_iter)",
		SETFS_DEV_LEGACY_PATH " (read)",
		"/dev/zero (reference)",
	};

	bench_read_table("2. read() of /dev: pread() over the whole file, back to 0 at EOF",
			 paths, labels, ARRAY_SIZE(paths), NULL, 0.95);
}

/*
 * Table 3.  Two sinks, each with the splice way and the read()+write()
 * way of moving the same bytes from /proc/setfs_probe:
 *   /dev/null: sendfile() (one call; the bytes go through the internal
 *	pipe of do_splice_direct()) against pread() + write();
 *   tmpfs: splice() into a pipe + splice() from it to the same offset of
 *	an unlinked /tmp file (two calls) against pread() + pwrite().
 */
static void bench_splice(void)
{
	struct bench_op ops[4];
	size_t s, i;

	printf("\n3. sendfile()/splice() from " SETFS_PROC_PATH " against a read()+write() copy\n"
	       "   /dev/null sink: sendfile(null, proc) vs pread(proc) + write(null);\n"
	       "   tmpfs sink: splice(proc -> pipe) + splice(pipe -> tmpfs file at the same offset)\n"
	       "   vs pread(proc) + pwrite(tmpfs file at the same offset); one call = one chunk\n");
	print_header();
	for (s = 0; s < ARRAY_SIZE(splice_sizes); s++) {
		size_t req = splice_sizes[s];

		op_init(&ops[0], "sendfile -> /dev/null", req);
		op_init(&ops[1], "pread+write -> /dev/null", req);
		op_init(&ops[2], "splice+splice -> tmpfs", req);
		op_init(&ops[3], "pread+pwrite -> tmpfs", req);
		op_open(&ops[0], SETFS_PROC_PATH, step_sendfile);
		op_open(&ops[1], SETFS_PROC_PATH, step_pread_write);
		op_open(&ops[2], SETFS_PROC_PATH, step_splice_pipe);
		op_open(&ops[3], SETFS_PROC_PATH, step_pread_pwrite);
		ops[0].out = open("/dev/null", O_WRONLY | O_CLOEXEC);
		ops[1].out = open("/dev/null", O_WRONLY | O_CLOEXEC);
		ops[2].out = tmpfs_fd(&ops[2]);
		ops[3].out = tmpfs_fd(&ops[3]);
		if (pipe2(ops[2].p, O_CLOEXEC) < 0)
			op_error(&ops[2], "pipe2", errno);
		for (i = 0; i < 4; i++) {
			if (ops[i].out < 0 && !ops[i].err[0])
				op_error(&ops[i], "open /dev/null", errno);
			if (ops[i].err[0])
				failures++;
		}
		measure_row(ops, 4);
		for (i = 0; i < 4; i++)
			print_op(&ops[i]);
		print_ratio("ratio splice/readwrite, null", &ops[0], &ops[1],
			    req == 64 * 1024 ? 1.0 : 0);
		print_ratio("ratio splice/readwrite, tmpfs", &ops[2], &ops[3],
			    req == 64 * 1024 ? 1.0 : 0);
		for (i = 0; i < 4; i++)
			op_close(&ops[i]);
	}
}

/* Table 4: kernel_read() inside the module, count bytes at position 0. */
static void bench_kernel(void)
{
	static const struct {
		const char *path;
		const char *label;
	} files[] = {
		{ SETFS_PROC_PATH, SETFS_PROC_PATH " (proc_read_iter)" },
		{ SETFS_DEV_PATH, SETFS_DEV_PATH " (read_iter)" },
		{ SETFS_PROC_LEGACY_PATH, SETFS_PROC_LEGACY_PATH " (proc_read)" },
		{ SETFS_DEV_LEGACY_PATH, SETFS_DEV_LEGACY_PATH " (read)" },
	};
	struct bench_op ops[ARRAY_SIZE(files)];
	struct stat st;
	size_t s, i;

	printf("\n4. kernel_read() in the module (SETFS_IOC_BENCH_KERNEL_READ): count bytes at\n"
	       "   position 0 each call, ktime_get_ns() around the loop; the legacy files are\n"
	       "   refused with -EINVAL since \"fs: don't allow kernel reads and writes without\n"
	       "   iter ops\", which is the point of the series\n");
	print_header();
	for (s = 0; s < ARRAY_SIZE(read_sizes); s++) {
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			op_init(&ops[i], files[i].label, read_sizes[s]);
			ops[i].kpath = files[i].path;
			ops[i].rep_ns = BENCH_KREP_NS;
			if (!strcmp(files[i].path, SETFS_PROC_LEGACY_PATH) &&
			    stat(files[i].path, &st))
				ops[i].na = "kernel has no ->proc_read";
		}
		measure_row(ops, 2);
		/* The legacy files: one call, which must be refused. */
		for (i = 2; i < ARRAY_SIZE(files); i++) {
			double ns;
			unsigned long long bytes;

			if (ops[i].na)
				continue;
			if (kernel_batch(&ops[i], 1, &ns, &bytes)) {
				snprintf(ops[i].err, sizeof(ops[i].err),
					 "kernel_read() succeeded: expected -EINVAL");
				failures++;
			} else if (!strstr(ops[i].err, "-EINVAL")) {
				failures++;
			}
		}
		for (i = 0; i < ARRAY_SIZE(files); i++)
			print_op(&ops[i]);
		print_ratio("ratio proc/dev", &ops[0], &ops[1], 0);
	}
}

int bench_main(void)
{
	double t0 = now_ns();

	setvbuf(stdout, NULL, _IOLBF, 0);
	fsize = fixture_size();
	buffer = malloc(BENCH_BUF);
	if (!fsize || !buffer) {
		printf("setfs_user bench: no %s (setfs_probe.ko not loaded?) or no memory\n",
		       SETFS_SIZE_PARAM);
		return 1;
	}
	print_context();
	bench_proc();
	bench_dev();
	bench_splice();
	bench_kernel();
	printf("\n%u measurement(s) failed; bench time %.1f s\n", failures,
	       (now_ns() - t0) / 1e9);
	free(buffer);
	return failures ? 1 : 0;
}

/*
 * "setfs_user series" (./run.sh bench series): what reading real /proc
 * files costs, the same way on the pristine and on the patched kernel, so
 * that run.sh can set one against the other.  Every variant reads a file
 * from its start with read(2), sendfile(2) to /dev/null or splice(2)
 * through a pipe to /dev/null, @req bytes per call, and starts over at
 * EOF (the rewinding read counts with the call that needed it).  Prints
 * one machine-readable line per variant (SERIES_LINE), the same columns
 * as the tables above.  init loads each kernel's own build of the probe
 * first, only so that /proc/modules is not empty.
 */
#define SERIES_LINE "series|%s|%zu|%s|"

static const struct {
	const char *path;
	size_t min_req;		/* kpage*: whole 8-byte entries only */
	const char *why;	/* what the series changed about it */
} series_files[] = {
	{ "/proc/kallsyms", 1, "seq_read -> seq_read_iter" },
	{ "/proc/modules", 1, "seq_read -> seq_read_iter" },
	{ "/proc/slabinfo", 1, "seq_read -> seq_read_iter" },
	{ "/proc/config.gz", 1, "->proc_read -> simple_read_from_buffer_iter()" },
	{ "/proc/kpagecount", 8, "->proc_read -> ->proc_read_iter" },
	{ "/proc/bus/pci/00/00.0", 1, "->proc_read -> ->proc_read_iter" },
	{ "/proc/net/pnp", 1, "DEFINE_PROC_SHOW_ATTRIBUTE(): seq_read_iter" },
	{ "/proc/net/sockstat", 1, "/proc/net single file: seq_read_iter" },
	{ "/proc/net/dev", 1, "/proc/net seq file: seq_read_iter" },
	{ "/proc/self/limits", 1, "unchanged (control)" },
};

static const size_t series_sizes[] = { 1, 4096, 64 * 1024 };

static ssize_t call_read(struct bench_op *op)
{
	return read(op->fd, op->buf, op->req);
}

static ssize_t call_sendfile(struct bench_op *op)
{
	return sendfile(op->out, op->fd, NULL, op->req);
}

static ssize_t call_splice_in(struct bench_op *op)
{
	return splice(op->fd, NULL, op->p[1], NULL, op->req, 0);
}

/*
 * One call of @call from the file position; at EOF back to 0 and call
 * again, so that the loop goes over the file forever.  -1 with op->err
 * set when it fails or the file is empty.
 */
static ssize_t from_start_at_eof(struct bench_op *op,
				 ssize_t (*call)(struct bench_op *op),
				 const char *what)
{
	ssize_t ret = call(op);

	if (ret == 0) {
		if (lseek(op->fd, 0, SEEK_SET) < 0) {
			op_error(op, "lseek", errno);
			return -1;
		}
		ret = call(op);
		if (ret == 0) {
			snprintf(op->err, sizeof(op->err), "empty file");
			return -1;
		}
	}
	if (ret < 0)
		op_error(op, what, errno);
	return ret;
}

/* The next @req bytes with read(2). */
static ssize_t step_read_seq(struct bench_op *op)
{
	return from_start_at_eof(op, call_read, "read");
}

/* sendfile(2) of the next @req bytes to /dev/null. */
static ssize_t step_sendfile_seq(struct bench_op *op)
{
	return from_start_at_eof(op, call_sendfile, "sendfile");
}

/* splice(2) of the next @req bytes into a pipe, then to /dev/null. */
static ssize_t step_splice_seq(struct bench_op *op)
{
	ssize_t ret, left, n;

	ret = from_start_at_eof(op, call_splice_in, "splice");
	if (ret < 0)
		return -1;
	for (left = ret; left > 0; left -= n) {
		n = splice(op->p[0], NULL, op->out, NULL, left, 0);
		if (n <= 0) {
			op_error(op, "splice from the pipe", n ? errno : EPIPE);
			return -1;
		}
	}
	return ret;
}

static void series_print(const char *file, const struct bench_op *op,
			 const char *path)
{
	printf(SERIES_LINE, file, op->req, path);
	if (op->na)
		printf("na|%s\n", op->na);
	else if (op->err[0])
		printf("err|%s\n", op->err);
	else
		printf("ok|%.1f|%.1f|%.0f\n", op->min, op->median,
		       op_bytes_per_call(op));
}

/* Seconds a profiled row reads: about 375 samples at HZ=250. */
#define SERIES_PROFILE_NS	1.5e9
/* Symbols a series-profile line names, most samples first. */
#define SERIES_PROFILE_TOP	8

/*
 * Where @op's reads spend their kernel time: @op reads on for
 * SERIES_PROFILE_NS under a kprof (profile.c), then one line
 * "series-profile|file|req|path|samples|lost|symbol:count,...", or
 * "...|0|0|error:REASON" when the kernel cannot be sampled.
 */
static void series_profile(const char *file, struct bench_op *op,
			   const char *path)
{
	unsigned long long bytes = 0;
	struct kprof *kp;
	double t0;
	int err;

	printf("series-profile|%s|%zu|%s|", file, op->req, path);
	kp = malloc(sizeof(*kp));
	if (!kp) {
		printf("0|0|error:out of memory\n");
		return;
	}
	err = kprof_open(kp);
	if (err) {
		printf("0|0|error:%s\n", err == -ENOENT ?
		       "no kernel addresses in /proc/kallsyms" :
		       strerror(-err));
		free(kp);
		return;
	}
	kprof_enable(kp, true);
	t0 = now_ns();
	while (now_ns() - t0 < SERIES_PROFILE_NS) {
		if (!op_steps(op, op->chunk, &bytes))
			break;
		kprof_drain(kp);
	}
	kprof_enable(kp, false);
	kprof_drain(kp);
	kprof_print(kp, SERIES_PROFILE_TOP);
	kprof_close(kp);
	free(kp);
}

static void series_file(size_t f)
{
	static const char *const paths[] = { "read", "sendfile", "splice" };
	static const bench_step_fn steps[] = {
		step_read_seq, step_sendfile_seq, step_splice_seq,
	};
	const char *file = series_files[f].path;
	struct bench_op ops[ARRAY_SIZE(paths)];
	size_t s, i, req;

	for (s = 0; s < ARRAY_SIZE(series_sizes); s++) {
		req = series_sizes[s];
		if (req < series_files[f].min_req)
			req = series_files[f].min_req;
		for (i = 0; i < ARRAY_SIZE(paths); i++) {
			op_init(&ops[i], paths[i], req);
			/* splice and sendfile: whole pages only */
			if (i && req < 4096) {
				ops[i].na = "measured at 4 KiB and 64 KiB";
				continue;
			}
			if (!op_open(&ops[i], file, steps[i]))
				continue;
			if (i)
				ops[i].out = open("/dev/null", O_WRONLY | O_CLOEXEC);
			if (i == 2 && pipe2(ops[i].p, O_CLOEXEC) < 0)
				op_error(&ops[i], "pipe2", errno);
			/* one call first: refused paths are "err", not timed */
			if (op_ok(&ops[i]) && ops[i].step(&ops[i]) >= 0)
				lseek(ops[i].fd, 0, SEEK_SET);
		}
		measure_row(ops, ARRAY_SIZE(paths));
		for (i = 0; i < ARRAY_SIZE(paths); i++)
			series_print(file, &ops[i], paths[i]);
		/* the 4 KiB read(2): where its time goes */
		if (req == 4096 && op_ok(&ops[0]))
			series_profile(file, &ops[0], paths[0]);
		for (i = 0; i < ARRAY_SIZE(paths); i++)
			op_close(&ops[i]);
	}
}

int series_main(void)
{
	double t0 = now_ns();
	size_t f;

	setvbuf(stdout, NULL, _IOLBF, 0);
	buffer = malloc(BENCH_BUF);
	if (!buffer)
		return 1;
	/* what each file is, for the table run.sh prints */
	for (f = 0; f < ARRAY_SIZE(series_files); f++)
		printf("series-file|%s|%s\n", series_files[f].path,
		       series_files[f].why);
	for (f = 0; f < ARRAY_SIZE(series_files); f++)
		series_file(f);
	printf("series-done|%.1f\n", (now_ns() - t0) / 1e9);
	free(buffer);
	return 0;
}
