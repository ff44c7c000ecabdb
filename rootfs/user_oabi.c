// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_oabi: the old-ABI system calls of 32-bit ARM that the seed
 * "ARM: remove set_fs callers and implementation" reworked without
 * set_fs() (arch/arm/kernel/sys_oabi-compat.c, fs/eventpoll.c's
 * epoll_put_uevent()): epoll_wait, epoll_pwait and epoll_ctl with the
 * packed 12-byte OABI struct epoll_event; semop, semtimedop and
 * ipc(SEMTIMEDOP) with the 8-byte OABI struct sembuf; fcntl64's lock
 * commands with the packed 24-byte OABI struct flock64.
 *
 * An EABI binary makes an OABI call with "swi #(0x900000 + nr)" from ARM
 * code (arch_oabi_syscall(), arch.c) on a kernel with CONFIG_OABI_COMPAT.
 * Each case makes the call both ways and checks the OABI one byte for
 * byte against the EABI one's result written in the OABI layout, that
 * the kernel wrote nothing past the OABI record, and EFAULT for NULL and
 * a kernel address (the seed's copies must still refuse them).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <unistd.h>

#include "setfs_user.h"

/* arch/arm/kernel/sys_oabi-compat.c */
struct oabi_epoll_event {
	__u32 events;
	__u64 data;
} __packed __aligned(4);

struct oabi_sembuf {
	unsigned short sem_num;
	short sem_op;
	short sem_flg;
	unsigned short pad;
};

struct oabi_flock64 {
	short l_type;
	short l_whence;
	__s64 l_start;
	__s64 l_len;
	__s32 l_pid;
} __packed __aligned(4);

static_assert(sizeof(struct oabi_epoll_event) == 12, "OABI epoll_event");
static_assert(sizeof(struct oabi_sembuf) == 8, "OABI sembuf");
static_assert(sizeof(struct oabi_flock64) == 24, "OABI flock64");

/* include/uapi/linux/ipc.h: ipc(2) call numbers */
#define IPC_CALL_SEMOP		1
#define IPC_CALL_SEMTIMEDOP	4
/* include/uapi/asm-generic/fcntl.h: the 32-bit numbers OABI calls take */
#define K_F_GETLK64		12
#define K_F_SETLK64		13

#define DATA_PIPE	0x1122334455667788ULL
#define DATA_EVENTFD	0xdeadbeefcafef00dULL
#define FILL		0xa5

static long oabi(unsigned int nr, long a, long b, long c, long d, long e,
		 long f)
{
	return arch_oabi_syscall(nr, a, b, c, d, e, f);
}

/* a mapped kernel address: the probe's buffer (0 if it cannot be asked) */
static long kaddr(void)
{
	const struct setfs_ctl_info *k = kernel_facts();

	return k ? (long)k->kbuf_addr : 0;
}

/* The kernel result @got against @want (0 or -errno), said in a diag. */
static bool check_res(const char *what, long got, long want)
{
	return check_kret(what, got, want);
}

/* Whether @len bytes of @buf from @from on are all FILL. */
static bool untouched(const char *what, const unsigned char *buf,
		      size_t from, size_t len)
{
	size_t i;

	for (i = from; i < len; i++)
		if (buf[i] != FILL) {
			diag("%s: byte %zu written (0x%02x), past the OABI records",
			     what, i, buf[i]);
			return false;
		}
	return true;
}

/* ------------------------------------------------------------ epoll */

struct ep_fixture {
	int epfd, p[2], efd;
};

static void ep_close(struct ep_fixture *ep)
{
	close_if_open(ep->epfd);
	close_if_open(ep->p[0]);
	close_if_open(ep->p[1]);
	close_if_open(ep->efd);
}

/*
 * An epoll instance watching a pipe (registered the EABI way, data
 * DATA_PIPE) that has a byte to read, and an eventfd not yet registered.
 */
static bool ep_open(struct ep_fixture *ep)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = DATA_PIPE };

	ep->p[0] = -1;
	ep->p[1] = -1;
	ep->efd = -1;
	ep->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ep->epfd >= 0 && !pipe2(ep->p, O_CLOEXEC))
		ep->efd = eventfd(1, EFD_CLOEXEC);
	if (ep->efd < 0 || write(ep->p[1], "x", 1) != 1 ||
	    epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->p[0], &ev)) {
		diag("epoll fixture: %s", strerror(errno));
		ep_close(ep);
		return false;
	}
	return true;
}

/* The OABI record the EABI event @ev is. */
static struct oabi_epoll_event to_oabi(const struct epoll_event *ev)
{
	struct oabi_epoll_event o = { .events = ev->events,
				      .data = ev->data.u64 };

	return o;
}

/*
 * epoll_wait (@pwait: epoll_pwait with no signal mask) the OABI way into
 * a filled buffer: one 12-byte record, what EABI epoll_wait reports.
 */
static enum case_result epoll_wait_one(int pwait)
{
	unsigned char buf[4 * sizeof(struct epoll_event)];
	struct oabi_epoll_event want;
	struct epoll_event ev;
	struct ep_fixture ep;
	bool ok;
	long ret;

	if (!ep_open(&ep))
		return CASE_FAIL;
	ok = epoll_wait(ep.epfd, &ev, 1, 0) == 1;
	if (!ok)
		diag("EABI epoll_wait: not 1 event (%s)", strerror(errno));
	want = to_oabi(&ev);
	memset(buf, FILL, sizeof(buf));
	if (pwait)
		ret = oabi(OABI_NR_EPOLL_PWAIT, ep.epfd, (long)buf, 4, 0, 0,
			   8);
	else
		ret = oabi(OABI_NR_EPOLL_WAIT, ep.epfd, (long)buf, 4, 0, 0, 0);
	ok &= check_res("OABI epoll_wait", ret, 1);
	ok &= check_mem("OABI epoll_event", buf, &want, sizeof(want));
	ok &= untouched("OABI epoll_event", buf, sizeof(want), sizeof(buf));
	ep_close(&ep);
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * Two ready descriptors: two records at 12-byte stride (the EABI stride is
 * 16), in the order EABI epoll_wait reports them.
 */
static enum case_result oabi_epoll_wait_two_events_stride(void)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = DATA_EVENTFD };
	unsigned char buf[4 * sizeof(struct epoll_event)];
	struct oabi_epoll_event want[2];
	struct epoll_event got[2];
	struct ep_fixture ep;
	bool ok;
	long ret;

	if (!ep_open(&ep))
		return CASE_FAIL;
	if (epoll_ctl(ep.epfd, EPOLL_CTL_ADD, ep.efd, &ev)) {
		diag("epoll_ctl: %s", strerror(errno));
		ep_close(&ep);
		return CASE_FAIL;
	}
	ok = epoll_wait(ep.epfd, got, 2, 0) == 2;
	if (!ok)
		diag("EABI epoll_wait: not 2 events");
	want[0] = to_oabi(&got[0]);
	want[1] = to_oabi(&got[1]);
	memset(buf, FILL, sizeof(buf));
	ret = oabi(OABI_NR_EPOLL_WAIT, ep.epfd, (long)buf, 4, 0, 0, 0);
	ok &= check_res("OABI epoll_wait", ret, 2);
	ok &= check_mem("OABI epoll_events", buf, want, sizeof(want));
	ok &= untouched("OABI epoll_events", buf, sizeof(want), sizeof(buf));
	ep_close(&ep);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* epoll_ctl the OABI way: the packed record's data comes back (EABI). */
static enum case_result oabi_epoll_ctl_packed_event(void)
{
	struct oabi_epoll_event oev = { .events = EPOLLIN,
					.data = DATA_EVENTFD };
	struct epoll_event got[2];
	struct ep_fixture ep;
	bool ok, found = false;
	long ret;
	int n, i;

	if (!ep_open(&ep))
		return CASE_FAIL;
	ret = oabi(OABI_NR_EPOLL_CTL, ep.epfd, EPOLL_CTL_ADD, ep.efd,
		   (long)&oev, 0, 0);
	ok = check_res("OABI epoll_ctl", ret, 0);
	n = epoll_wait(ep.epfd, got, 2, 0);
	for (i = 0; i < n; i++)
		if (got[i].data.u64 == DATA_EVENTFD &&
		    got[i].events == EPOLLIN)
			found = true;
	if (!found) {
		diag("EABI epoll_wait: no EPOLLIN event with data 0x%llx among %d",
		     DATA_EVENTFD, n);
		ok = false;
	}
	ep_close(&ep);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* Ready events and a destination the kernel must refuse. */
static enum case_result epoll_wait_efault(long dest)
{
	struct ep_fixture ep;
	bool ok;

	if (!ep_open(&ep))
		return CASE_FAIL;
	ok = check_res("OABI epoll_wait",
		       oabi(OABI_NR_EPOLL_WAIT, ep.epfd, dest, 4, 0, 0, 0),
		       -EFAULT);
	ok &= check_res("OABI epoll_pwait",
			oabi(OABI_NR_EPOLL_PWAIT, ep.epfd, dest, 4, 0, 0, 8),
			-EFAULT);
	ep_close(&ep);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result oabi_epoll_wait_null_efault(void)
{
	return epoll_wait_efault(0);
}

static enum case_result oabi_epoll_wait_kernel_address_efault(void)
{
	return epoll_wait_efault(kaddr());
}

static enum case_result oabi_epoll_ctl_kernel_address_efault(void)
{
	struct ep_fixture ep;
	bool ok;

	if (!ep_open(&ep))
		return CASE_FAIL;
	ok = check_res("OABI epoll_ctl",
		       oabi(OABI_NR_EPOLL_CTL, ep.epfd, EPOLL_CTL_ADD, ep.efd,
			    kaddr(), 0, 0), -EFAULT);
	ep_close(&ep);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* -------------------------------------------------------------- sem */

/* A private set of two semaphores at 0; -1 (said why) on failure. */
static int sem_open2(void)
{
	int id = semget(IPC_PRIVATE, 2, 0600);

	if (id < 0)
		diag("semget: %s", strerror(errno));
	return id;
}

static bool sem_values(int id, int want0, int want1)
{
	bool ok = check_ll("semaphore 0", semctl(id, 0, GETVAL), want0);

	return check_ll("semaphore 1", semctl(id, 1, GETVAL), want1) && ok;
}

/*
 * semop, semtimedop and ipc(SEMOP/SEMTIMEDOP) the OABI way with two 8-byte
 * records: +3 on semaphore 0, +5 on semaphore 1; the values EABI semctl
 * reads back.  Then a would-block -100: EAGAIN from IPC_NOWAIT in the
 * record (sem_flg at its offset 4) or from a 10 ms timeout.
 */
enum sem_how { SEM_SEMOP, SEM_SEMTIMEDOP, SEM_IPC };

static long sem_call_once(enum sem_how how, int id, struct oabi_sembuf *ops,
			  unsigned int n, const __s32 *timeout)
{
	switch (how) {
	case SEM_SEMOP:
		return oabi(OABI_NR_SEMOP, id, (long)ops, n, 0, 0, 0);
	case SEM_SEMTIMEDOP:
		return oabi(OABI_NR_SEMTIMEDOP, id, (long)ops, n,
			    (long)timeout, 0, 0);
	case SEM_IPC:
		return oabi(OABI_NR_IPC, timeout ? IPC_CALL_SEMTIMEDOP :
			    IPC_CALL_SEMOP, id, n, 0, (long)ops,
			    (long)timeout);
	}
	return -EOPNOTSUPP;
}

/*
 * A wait may end in -EINTR without a signal this process handles:
 * signal_pending() is also true for TIF_NOTIFY_SIGNAL, which io_uring's
 * task work sets, and semtimedop returns -EINTR then.  Seen once in five
 * armv7 runs, right after setfs_user_iouring closed its rings; the cause
 * is a guess.  A program retries; so do we, a few times, saying so.
 */
/* set by SIGALRM; read after system calls, which the compiler cannot see through */
static sig_atomic_t sem_alarmed;

static void sem_on_alarm(int sig)
{
	(void)sig;
	sem_alarmed = 1;
}

static long sem_call(enum sem_how how, int id, struct oabi_sembuf *ops,
		     unsigned int n, const __s32 *timeout)
{
	long ret = sem_call_once(how, id, ops, n, timeout);
	int tries;

	for (tries = 0; ret == -EINTR && !sem_alarmed && tries < 3; tries++) {
		diag("OABI sem call: EINTR, retried");
		ret = sem_call_once(how, id, ops, n, timeout);
	}
	return ret;
}

static enum case_result sem_case(int how)
{
	struct oabi_sembuf ops[2] = {
		{ .sem_num = 0, .sem_op = 3 }, { .sem_num = 1, .sem_op = 5 },
	};
	struct oabi_sembuf block = { .sem_num = 0, .sem_op = -100,
				     .sem_flg = IPC_NOWAIT };
	const __s32 ten_ms[2] = { 0, 10 * 1000 * 1000 };
	int id = sem_open2();
	bool ok;

	if (id < 0)
		return CASE_FAIL;
	ok = check_res("OABI semop +3 +5", sem_call(how, id, ops, 2, NULL), 0);
	ok &= sem_values(id, 3, 5);
	if (how == SEM_SEMOP) {
		ok &= check_res("OABI semop -100, IPC_NOWAIT",
				sem_call(how, id, &block, 1, NULL), -EAGAIN);
	} else {
		/*
		 * A timeout the OABI path lost would block for ever: SIGALRM
		 * (no SA_RESTART) ends the wait after 2 s and fails the case.
		 */
		struct sigaction sa = { .sa_handler = sem_on_alarm }, old;
		long ret;

		block.sem_flg = 0;
		sem_alarmed = 0;
		sigaction(SIGALRM, &sa, &old);
		alarm(2);
		ret = sem_call(how, id, &block, 1, ten_ms);
		alarm(0);
		sigaction(SIGALRM, &old, NULL);
		if (sem_alarmed) {
			diag("OABI semtimedop -100: still waiting 2 s after its 10 ms timeout");
			ok = false;
		} else {
			ok &= check_res("OABI semtimedop -100, 10 ms", ret,
					-EAGAIN);
		}
	}
	ok &= sem_values(id, 3, 5);
	semctl(id, 0, IPC_RMID);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result oabi_semtimedop_kernel_address_efault(void)
{
	int id = sem_open2();
	bool ok;

	if (id < 0)
		return CASE_FAIL;
	ok = check_res("OABI semtimedop, ops at a kernel address",
		       oabi(OABI_NR_SEMTIMEDOP, id, kaddr(), 1, 0, 0, 0),
		       -EFAULT);
	ok &= check_res("OABI semtimedop, NULL ops",
			oabi(OABI_NR_SEMTIMEDOP, id, 0, 1, 0, 0, 0), -EFAULT);
	ok &= sem_values(id, 0, 0);
	semctl(id, 0, IPC_RMID);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* ---------------------------------------------------------- fcntl64 */

struct lock_fixture {
	int fd;
	pid_t child;
	int go[2];	/* parent -> child: exit now */
};

/*
 * A tmpfs file on which a child process holds a write lock on bytes
 * [100, 200), taken the EABI way; the child waits until lock_close().
 */
static bool lock_open(struct lock_fixture *lf)
{
	char path[] = "/tmp/setfs-oabi-XXXXXX";
	int ready[2];
	char c;

	lf->child = -1;
	lf->go[0] = -1;
	lf->go[1] = -1;
	lf->fd = mkostemp(path, O_CLOEXEC);
	if (lf->fd < 0) {
		diag("lock fixture: mkostemp: %s", strerror(errno));
		return false;
	}
	unlink(path);
	if (pipe2(ready, O_CLOEXEC)) {
		diag("lock fixture: pipe2: %s", strerror(errno));
		return false;
	}
	if (pipe2(lf->go, O_CLOEXEC)) {
		diag("lock fixture: pipe2: %s", strerror(errno));
		close(ready[0]);
		close(ready[1]);
		return false;
	}
	lf->child = fork();
	if (lf->child == 0) {
		struct flock64 l = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				     .l_start = 100, .l_len = 100 };

		/* only the parent may hold go's write end: EOF ends us */
		close(lf->go[1]);
		close(ready[0]);
		/* EABI: glibc's fcntl64 system call, its struct flock64 */
		c = fcntl(lf->fd, F_SETLK64, &l) ? 'e' : 'k';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		if (read(lf->go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	if (lf->child < 0) {
		diag("lock fixture: fork: %s", strerror(errno));
		close(ready[0]);
		return false;
	}
	if (read(ready[0], &c, 1) != 1 || c != 'k') {
		diag("the child could not take its lock");
		close(ready[0]);
		return false;
	}
	close(ready[0]);
	return true;
}

/* Undoes what lock_open() did, whatever it got to. */
static void lock_close(struct lock_fixture *lf)
{
	if (lf->go[1] >= 0)
		close(lf->go[1]);
	if (lf->child > 0)
		waitpid(lf->child, NULL, 0);
	if (lf->go[0] >= 0)
		close(lf->go[0]);
	if (lf->fd >= 0)
		close(lf->fd);
}

static struct oabi_flock64 flock_to_oabi(const struct flock64 *e)
{
	struct oabi_flock64 o = {
		.l_type = e->l_type, .l_whence = e->l_whence,
		.l_start = e->l_start, .l_len = e->l_len, .l_pid = e->l_pid,
	};

	return o;
}

/*
 * F_GETLK64 or F_OFD_GETLK on [0, EOF) the OABI way: the child's lock in
 * the OABI layout, as EABI fcntl64 reports it.
 */
static enum case_result getlk(int cmd, unsigned int kcmd, const char *what)
{
	struct flock64 e = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	struct oabi_flock64 o = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	/*
	 * The record, then a fence: a kernel that wrote EABI's longer
	 * struct flock64 there would overwrite the fence.
	 */
	unsigned char rec[sizeof(o) + 16], fence[16];
	struct oabi_flock64 want;
	struct lock_fixture lf;
	bool ok;

	if (!lock_open(&lf)) {
		lock_close(&lf);
		return CASE_FAIL;
	}
	ok = check_ll("EABI fcntl", fcntl(lf.fd, cmd, &e), 0);
	/* the child's POSIX lock: its pid, for F_OFD_GETLK too */
	ok &= check_ll("EABI l_pid", e.l_pid, lf.child);
	want = flock_to_oabi(&e);
	memset(fence, 0xa5, sizeof(fence));
	memcpy(rec, &o, sizeof(o));
	memcpy(rec + sizeof(o), fence, sizeof(fence));
	ok &= check_res(what, oabi(OABI_NR_FCNTL64, lf.fd, kcmd, (long)rec, 0,
				   0, 0), 0);
	ok &= check_mem("OABI flock64", rec, &want, sizeof(want));
	ok &= check_mem("the bytes after the OABI flock64", rec + sizeof(o),
			fence, sizeof(fence));
	lock_close(&lf);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result oabi_fcntl64_getlk64_packed(void)
{
	return getlk(F_GETLK64, K_F_GETLK64, "OABI fcntl64(F_GETLK64)");
}

static enum case_result oabi_fcntl64_ofd_getlk_packed(void)
{
	return getlk(F_OFD_GETLK, F_OFD_GETLK, "OABI fcntl64(F_OFD_GETLK)");
}

/*
 * F_SETLK64 and F_OFD_SETLK the OABI way: a write lock on [150, 160)
 * conflicts with the child's [100, 200) (EAGAIN), one on [250, 260) does
 * not.  Read in the EABI layout, the start would be other bytes.
 */
static enum case_result setlk(unsigned int cmd, const char *what)
{
	struct oabi_flock64 o = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				  .l_start = 150, .l_len = 10 };
	struct lock_fixture lf;
	bool ok;

	if (!lock_open(&lf)) {
		lock_close(&lf);
		return CASE_FAIL;
	}
	ok = check_res(what, oabi(OABI_NR_FCNTL64, lf.fd, cmd, (long)&o, 0, 0,
				  0), -EAGAIN);
	o.l_start = 250;
	ok &= check_res(what, oabi(OABI_NR_FCNTL64, lf.fd, cmd, (long)&o, 0,
				   0, 0), 0);
	lock_close(&lf);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result oabi_fcntl64_setlk64_packed(void)
{
	return setlk(K_F_SETLK64, "OABI fcntl64(F_SETLK64)");
}

static enum case_result oabi_fcntl64_ofd_setlk_packed(void)
{
	return setlk(F_OFD_SETLK, "OABI fcntl64(F_OFD_SETLK)");
}

static enum case_result oabi_fcntl64_kernel_address_efault(void)
{
	struct lock_fixture lf;
	bool ok;

	if (!lock_open(&lf)) {
		lock_close(&lf);
		return CASE_FAIL;
	}
	ok = check_res("OABI F_GETLK64 at a kernel address",
		       oabi(OABI_NR_FCNTL64, lf.fd, K_F_GETLK64, kaddr(), 0, 0,
			    0), -EFAULT);
	ok &= check_res("OABI F_SETLK64 from a kernel address",
			oabi(OABI_NR_FCNTL64, lf.fd, K_F_SETLK64, kaddr(), 0,
			     0, 0), -EFAULT);
	ok &= check_res("OABI F_GETLK64 at NULL",
			oabi(OABI_NR_FCNTL64, lf.fd, K_F_GETLK64, 0, 0, 0, 0),
			-EFAULT);
	lock_close(&lf);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* ------------------------------------------------------------ traps */

/* "udf #0": no undef hook of the kernel's (ptrace, kgdb, uprobes) takes it */
#define UDF_0		0xe7f000f0u
static const __u32 code_before[4] = {
	0x11111111, 0x22222222, 0x33333333, 0x44444444,
};

/* Whether /proc/cmdline has user_debug= with UDBG_UNDEFINED (1) set. */
static bool user_debug_undefined(void)
{
	char line[1024], *p;
	ssize_t n;

	if (!read_once("/proc/cmdline", line, sizeof(line) - 1, &n) || n < 0)
		return false;
	line[n] = '\0';
	p = strstr(line, "user_debug=");
	return p && (strtoul(p + strlen("user_debug="), NULL, 0) & 1);
}

/*
 * A child executes UDF_0 (ARM mode) after four known words.  With
 * CONFIG_DEBUG_USER and user_debug=1 the kernel logs the instruction
 * with dump_instr(), which the seed moved to get_user() for user mode:
 * "Code: 11111111 22222222 33333333 44444444 (e7f000f0)", read back from
 * /dev/kmsg.  The child must die of SIGILL.
 */
static enum case_result undefined_instruction_code_line(void)
{
	char want[80], rec[1024];
	__u32 *page;
	bool found = false;
	int fd, status;
	pid_t pid;
	ssize_t n;

	if (kconfig("DEBUG_USER") != 'y')
		return ktap_skip("the kernel has no CONFIG_DEBUG_USER");
	if (!user_debug_undefined())
		return ktap_skip("no user_debug=1 on the kernel command line");
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		diag("mmap: %s", strerror(errno));
		return CASE_FAIL;
	}
	memcpy(page, code_before, sizeof(code_before));
	page[4] = UDF_0;
	__builtin___clear_cache((char *)page, (char *)(page + 5));
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || lseek(fd, 0, SEEK_END) < 0) {
		diag("/dev/kmsg: %s", strerror(errno));
		munmap(page, 4096);
		return CASE_FAIL;
	}
	pid = fork();
	if (pid == 0) {
		/* an even address: blx enters ARM mode */
		((void (*)(void))(uintptr_t)(page + 4))();
		_exit(0);
	}
	munmap(page, 4096);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		diag("fork/waitpid: %s", strerror(errno));
		close(fd);
		return CASE_FAIL;
	}
	snprintf(want, sizeof(want), "Code: %08x %08x %08x %08x (%08x)",
		 code_before[0], code_before[1], code_before[2],
		 code_before[3], UDF_0);
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || errno == EPIPE) {
		if (n <= 0)
			continue;	/* EPIPE: records were overwritten */
		rec[n] = '\0';
		if (strstr(rec, want))
			found = true;
	}
	close(fd);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGILL) {
		diag("the child did not die of SIGILL (status 0x%x)", status);
		return CASE_FAIL;
	}
	if (!found) {
		diag("no \"%s\" in the kernel log", want);
		return CASE_FAIL;
	}
	return CASE_PASS;
}

/* -------------------------------------------------------------- rows */

/* A case: run(), or run_arg(arg) for the cases that share a body. */
struct oabi_row {
	const char *name;
	enum case_result (*run)(void);
	enum case_result (*run_arg)(int arg);
	int arg;
};

static enum case_result run_oabi_row(const void *row)
{
	const struct oabi_row *r = row;

	if (!ARCH_OABI)
		return ktap_skip("OABI system calls exist only on 32-bit ARM");
	if (kconfig("OABI_COMPAT") != 'y')
		return ktap_skip("the kernel has no CONFIG_OABI_COMPAT");
	return r->run ? r->run() : r->run_arg(r->arg);
}

/* A case whose function has the case's name. */
#define OABI_CASE(fn)	{ #fn, fn, NULL, 0 }

static const struct oabi_row oabi_rows[] = {
	{ "oabi_epoll_wait_packed_event", NULL, epoll_wait_one, false },
	{ "oabi_epoll_pwait_packed_event", NULL, epoll_wait_one, true },
	OABI_CASE(oabi_epoll_wait_two_events_stride),
	OABI_CASE(oabi_epoll_ctl_packed_event),
	OABI_CASE(oabi_epoll_wait_null_efault),
	OABI_CASE(oabi_epoll_wait_kernel_address_efault),
	OABI_CASE(oabi_epoll_ctl_kernel_address_efault),
	{ "oabi_semop_sembuf", NULL, sem_case, SEM_SEMOP },
	{ "oabi_semtimedop_sembuf_timeout", NULL, sem_case, SEM_SEMTIMEDOP },
	{ "oabi_ipc_semtimedop_sembuf_timeout", NULL, sem_case, SEM_IPC },
	OABI_CASE(oabi_semtimedop_kernel_address_efault),
	OABI_CASE(oabi_fcntl64_getlk64_packed),
	OABI_CASE(oabi_fcntl64_ofd_getlk_packed),
	OABI_CASE(oabi_fcntl64_setlk64_packed),
	OABI_CASE(oabi_fcntl64_ofd_setlk_packed),
	OABI_CASE(oabi_fcntl64_kernel_address_efault),
	/* not OABI, but 32-bit ARM only too: the seed's traps.c change */
	OABI_CASE(undefined_instruction_code_line),
};

/* One skipped case where OABI cannot exist, the rows where it can. */
static const struct oabi_row no_oabi_rows[] = {
	{ "oabi_syscalls", NULL, NULL, 0 },
};

static const struct ktap_table oabi_tables[] = {
	KTAP_TABLE(oabi_rows, run_oabi_row),
	KTAP_TABLE(no_oabi_rows, run_oabi_row),
};

/* The cases hand the kernel its own address: without it they prove nothing. */
static const char *oabi_setup(void)
{
	return kernel_facts() ? NULL :
	       "SETFS_IOC_INFO cannot be asked: no kernel address to pass";
}

KTAP_GROUP(oabi_group) = {
	.name = "setfs_user_oabi",
	.order = 140,
	.tables = &oabi_tables[ARCH_OABI ? 0 : 1],
	.ntables = 1,
	.setup = oabi_setup,
};
