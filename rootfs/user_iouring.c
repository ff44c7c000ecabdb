// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring reads of /proc files that wait for data.
 *
 * io_uring reads a regular file with IOCB_NOWAIT first (a /proc file
 * counts as one that supports it), and takes a short read of a regular
 * file for a partial one: it polls and reads on until the buffer is full.
 * For a ->proc_read file the first read never reached the method:
 * io_uring's loop_rw_iter() returned -EAGAIN unless the file was
 * O_NONBLOCK, and the read ended up in io_uring's worker, which may wait
 * and completes with what one read returns.  A ->proc_read_iter method
 * that waits for data must return -EAGAIN under IOCB_NOWAIT without
 * O_NONBLOCK, data or not.  Series v3 ignored IOCB_NOWAIT in kmsg_read(),
 * rtas_log_read() and the ia64 salinfo event file (IORING_OP_READ waited
 * inside io_uring_enter(2)); a first v4 treated it like O_NONBLOCK (the
 * read of /proc/kmsg then waited for messages until the buffer was full).
 *
 * The cases talk to io_uring with the raw system calls and the rings'
 * layout from <linux/io_uring.h> (no liburing in the guest).  Each wait
 * is bounded by alarm(2), which interrupts a waiting read, so a bug
 * fails the case instead of hanging the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "setfs_user.h"

/* Longer than any prompt return, shorter than the guest's patience. */
#define SUBMIT_LIMIT_S	1.0
#define WAIT_ALARM_S	4

struct uring {
	int fd;
	void *sq_ring, *cq_ring;
	size_t sq_size, cq_size, sqes_size;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
};

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_alarm(int sig)
{
	(void)sig;	/* only interrupts the waiting system call */
}

static void uring_exit(struct uring *r)
{
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_size);
	if (r->cq_ring && r->cq_ring != MAP_FAILED && r->cq_ring != r->sq_ring)
		munmap(r->cq_ring, r->cq_size);
	if (r->sq_ring && r->sq_ring != MAP_FAILED)
		munmap(r->sq_ring, r->sq_size);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* A ring of 4 entries; false (and a diagnostic) when io_uring is missing. */
static bool uring_init(struct uring *r)
{
	struct io_uring_params p;
	unsigned char *sq, *cq;

	memset(r, 0, sizeof(*r));
	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0) {
		diag("io_uring_setup: %s", strerror(errno));
		return false;
	}
	r->sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_size > r->sq_size)
			r->sq_size = r->cq_size;
		r->cq_size = r->sq_size;
	}
	r->sq_ring = mmap(NULL, r->sq_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (r->sq_ring == MAP_FAILED)
		goto fail;
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		r->cq_ring = r->sq_ring;
	else
		r->cq_ring = mmap(NULL, r->cq_size, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_POPULATE, r->fd,
				  IORING_OFF_CQ_RING);
	if (r->cq_ring == MAP_FAILED)
		goto fail;
	r->sqes_size = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL, r->sqes_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		goto fail;
	sq = r->sq_ring;
	cq = r->cq_ring;
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return true;
fail:
	diag("mmap of the io_uring rings: %s", strerror(errno));
	uring_exit(r);
	return false;
}

/*
 * Queues a read of @fd at @off ((__u64)-1: the file position): @op
 * IORING_OP_READ of @len bytes into @addr, or IORING_OP_READV of the @len
 * segments of the iovec array at @addr.
 */
static void uring_queue(struct uring *r, int fd, __u8 op, const void *addr,
			unsigned int len, __u64 off)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = op;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)addr;
	sqe->len = len;
	sqe->off = off;
	sqe->user_data = 1;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

/* The next completion's result into @res; false when there is none. */
static bool uring_reap(struct uring *r, int *res)
{
	unsigned int head = *r->cq_head;

	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return false;
	*res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return true;
}

static int uring_enter(struct uring *r, unsigned int submit,
		       unsigned int min_complete)
{
	return syscall(__NR_io_uring_enter, r->fd, submit, min_complete,
		       min_complete ? IORING_ENTER_GETEVENTS : 0, NULL, 0);
}

int uring_read_once(int fd, void *buf, const struct iovec *iov,
		    unsigned int len, unsigned int wait_s)
{
	struct sigaction sa, old;
	struct uring r;
	int ret, res;
	double t0;

	if (!uring_init(&r))
		return -EPROTO;
	/* at the file position, as read(2) and readv(2) */
	if (iov)
		uring_queue(&r, fd, IORING_OP_READV, iov, len, (__u64)-1);
	else
		uring_queue(&r, fd, IORING_OP_READ, buf, len, (__u64)-1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old);
	t0 = seconds();
	alarm(wait_s);
	ret = uring_enter(&r, 1, 1);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	if (!uring_reap(&r, &res)) {
		if (ret < 0 && errno != EINTR)
			diag("io_uring_enter: %s", strerror(errno));
		else
			diag("no completion within %.1f s", seconds() - t0);
		res = ret < 0 && errno != EINTR ? -EPROTO : -ETIME;
	}
	uring_exit(&r);
	return res;
}

/* Reads what @path has now, O_NONBLOCK, until -EAGAIN (or an error). */
static void drain(const char *path)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/*
 * Submits a read of @path, which has no data: io_uring_enter(2) must
 * return at once, the read pending.  Then @produce (if any) makes data
 * and the read must complete with it, containing @want.
 */
static enum case_result nowait_read(const char *path, bool (*produce)(void),
				    const char *want)
{
	static char buf[8192];
	struct sigaction sa, old;
	enum case_result res = CASE_FAIL;
	struct uring r;
	double t0, took;
	int fd, ret, cres;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		diag("open %s: %s", path, strerror(errno));
		return CASE_FAIL;
	}
	if (!uring_init(&r)) {
		close(fd);
		return CASE_FAIL;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old);

	drain(path);
	uring_queue(&r, fd, IORING_OP_READ, buf, sizeof(buf) - 1, 0);
	alarm(WAIT_ALARM_S);
	t0 = seconds();
	ret = uring_enter(&r, 1, 0);
	took = seconds() - t0;
	alarm(0);
	if (ret != 1) {
		diag("io_uring_enter(submit 1): %d (%s)", ret,
		     ret < 0 ? strerror(errno) : "not submitted");
		goto out;
	}
	if (took > SUBMIT_LIMIT_S) {
		diag("io_uring_enter(2) took %.2f s: IOCB_NOWAIT ignored", took);
		goto out;
	}
	if (uring_reap(&r, &cres)) {
		/* a message raced in: not the case under test, but fine */
		diag("the read completed at once with %d", cres);
		res = cres > 0 ? CASE_PASS : CASE_FAIL;
		goto out;
	}
	if (!produce) {
		res = CASE_PASS;
		goto out;
	}
	if (!produce())
		goto out;
	alarm(WAIT_ALARM_S);
	ret = uring_enter(&r, 0, 1);
	alarm(0);
	if (ret < 0 || !uring_reap(&r, &cres)) {
		diag("no completion after the data came (%s)",
		     ret < 0 ? strerror(errno) : "none reaped");
		goto out;
	}
	if (cres <= 0) {
		diag("the read completed with %d (%s)", cres,
		     cres ? strerror(-cres) : "EOF");
		goto out;
	}
	buf[cres] = '\0';
	if (!strstr(buf, want)) {
		diag("the %d bytes read lack \"%s\"", cres, want);
		goto out;
	}
	res = CASE_PASS;
out:
	/* closing the ring cancels a read still pending */
	uring_exit(&r);
	close(fd);
	sigaction(SIGALRM, &old, NULL);
	return res;
}

#define KMSG_MARK "setfs-iouring-kmsg"

/* A KERN_DEBUG message: in the log, below the console's level. */
static bool kmsg_produce(void)
{
	static const char msg[] = "<7>" KMSG_MARK "\n";
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0) {
		diag("open /dev/kmsg: %s", strerror(errno));
		return false;
	}
	ok = write(fd, msg, sizeof(msg) - 1) == (ssize_t)(sizeof(msg) - 1);
	if (!ok)
		diag("write /dev/kmsg: %s", strerror(errno));
	close(fd);
	return ok;
}

static enum case_result kmsg_read_nowait(void)
{
	return nowait_read("/proc/kmsg", kmsg_produce, KMSG_MARK);
}

/*
 * Submits a read of @len bytes of @fd and waits (bounded) for its
 * completion; false, with a diagnostic, when none came.
 */
static bool read_and_wait(int fd, void *buf, unsigned int len, int *cres)
{
	struct sigaction sa, old;
	struct uring r;
	bool got;
	int ret;

	if (!uring_init(&r))
		return false;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old);
	uring_queue(&r, fd, IORING_OP_READ, buf, len, 0);
	alarm(WAIT_ALARM_S);
	ret = uring_enter(&r, 1, 1);
	alarm(0);
	got = uring_reap(&r, cres);
	if (!got)
		diag("no completion of a read of %u bytes (io_uring_enter: %s)",
		     len, ret < 0 ? strerror(errno) : "returned");
	uring_exit(&r);
	sigaction(SIGALRM, &old, NULL);
	return got;
}

/*
 * Two messages are unread when the read is submitted: it completes with
 * both, and does not wait for more to fill the rest of the buffer.
 */
static enum case_result kmsg_read_ready(void)
{
	static char buf[8192];
	int fd, cres;
	bool got;

	fd = open("/proc/kmsg", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		diag("open /proc/kmsg: %s", strerror(errno));
		return CASE_FAIL;
	}
	drain("/proc/kmsg");
	if (!kmsg_produce() || !kmsg_produce()) {
		close(fd);
		return CASE_FAIL;
	}
	got = read_and_wait(fd, buf, sizeof(buf) - 1, &cres);
	close(fd);
	if (!got)
		return CASE_FAIL;
	if (cres <= 0) {
		diag("the read completed with %d (%s)", cres,
		     cres ? strerror(-cres) : "EOF");
		return CASE_FAIL;
	}
	buf[cres] = '\0';
	if (!strstr(buf, KMSG_MARK) ||
	    !strstr(strstr(buf, KMSG_MARK) + 1, KMSG_MARK)) {
		diag("the %d bytes read lack the two \"%s\" messages", cres,
		     KMSG_MARK);
		return CASE_FAIL;
	}
	return CASE_PASS;
}

/*
 * The RTAS error log: no event can be made on purpose, so only the first
 * half (io_uring_enter(2) returns at once).  With logging disabled the
 * read ends at once with -ENODATA, which proves nothing: skipped then.
 */
static enum case_result rtas_error_log_nowait(void)
{
	static const char path[] = "/proc/powerpc/rtas/error_log";

	if (access(path, R_OK))
		return ktap_skip("no /proc/powerpc/rtas/error_log (pseries only)");
	return nowait_read(path, NULL, NULL);
}

static const struct test_case iouring_cases[] = {
	{ "kmsg_read_nowait", kmsg_read_nowait },
	{ "kmsg_read_ready", kmsg_read_ready },
	{ "rtas_error_log_nowait", rtas_error_log_nowait },
};

KTAP_GROUP(iouring_group) = {
	.name = "setfs_user_iouring",
	.order = 130,
	KTAP_TABLES(KTAP_TABLE(iouring_cases, run_test_case)),
};
