// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_fuzz: hostile input to every probe file, seeded and
 * reproducible.  Each case runs "fuzz_ops" random operations (default
 * 100000) on one file: read, pread, readv, preadv2, write, pwrite, lseek,
 * splice both ways, sendfile, tee and ioctl, with sizes from 0 to SIZE_MAX,
 * offsets from LLONG_MIN to LLONG_MAX and buffers that are fine, NULL,
 * kernel addresses, unmapped, read-only, or run into an unmapped page or
 * into TASK_SIZE_MAX part way.
 *
 * Every result is predicted, not merely tolerated: a model of the file
 * (its position, the devices' store) and of the VFS paths of 6.1 and
 * 6.12 (fs/read_write.c, fs/splice.c, lib/iov_iter.c) gives one expected
 * result per call, either a count or an errno, except where two errors
 * race by design (listed in fz_expect_*).  Where the two differ, the
 * kernel tells which path it takes (SETFS_IOC_INFO), or its release does
 * (the commits are named in fuzz_setup()); each case says which model it
 * ran.  Read bytes are compared with the fixture pattern at their
 * offset; the store checksum the module reports is compared with the
 * model's at the end of the case.  The first difference fails the case
 * with the operation, its arguments and the seed;
 * "setfs_user fuzz_seed=S fuzz_ops=N" (or setfs_fuzz_seed=S on the
 * kernel command line) replays it.
 *
 * The documented results, by file (see setfs_probe_uapi.h):
 *
 *   everywhere        EBADF: fd not open for that direction
 *                     EFAULT: buffer fails access_ok() (kernel address,
 *                       crosses TASK_SIZE_MAX), or nothing could be copied
 *                     short count: the copy ran into an unmapped or
 *                       read-only page (exactly the bytes before it)
 *                     EINVAL: negative pread offset, offset + count
 *                       beyond LLONG_MAX, iovec length above SSIZE_MAX,
 *                       lseek outside [0, size] or whence not SET/CUR/END
 *                     0: count 0, or at/after the end of the file
 *                     EOPNOTSUPP: preadv2 flags the path refuses
 *   proc files        write: EIO (no ->proc_write); FIONREAD: size - pos
 *   /proc/setfs_probe splice/sendfile to a pipe: the bytes; tee: a copy;
 *                     sendfile at offset 2^31 - 1 or more: EOVERFLOW
 *                     (procfs's s_maxbytes)
 *   other files       splice/sendfile from them: EINVAL (no ->splice_read;
 *                       sendfile of 0 bytes: 0 since 6.5),
 *                     sendfile at 2^44 - 4096 or more on 32-bit kernels:
 *                     EOVERFLOW first (MAX_LFS_FILESIZE)
 *   every file        splice into it: EINVAL (no ->splice_write)
 *   devices           write: ENOSPC at/after the end, else stored
 *                     (->write_iter: what could be copied; ->write: all or
 *                     EFAULT); ioctl: ENOTTY
 *   control device    see fz_ctl_op(); uaccess helpers exact except
 *                     clear_user() on x86-64 (expect_uaccess())
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "setfs_user.h"

#define FUZZ_SEED	0x5e7f5a11c0ffeeULL
#define FUZZ_OPS	100000ULL
#define FUZZ_MAX_FAILS	3	/* diagnosed failures before a case stops */

/* From the kernel headers of 6.1 (not all in the uapi). */
#define K_MAX_RW_COUNT	(INT_MAX & ~(fz.page - 1))
#define K_UIO_MAXIOV	1024
#define K_SPLICE_F_ALL	0xfU
#define K_PIPE_SLOTS	16	/* a new pipe's max_usage */
#define K_MAX_NON_LFS	((1LL << 31) - 1)	/* procfs's s_maxbytes */

#ifndef RWF_HIPRI
#define RWF_HIPRI	0x01
#define RWF_DSYNC	0x02
#define RWF_SYNC	0x04
#define RWF_NOWAIT	0x08
#endif
#define K_RWF_SUPPORTED	0x1f	/* HIPRI DSYNC SYNC NOWAIT APPEND */
#define K_RWF_NOAPPEND	0x20	/* 6.9 */
#define K_RWF_ATOMIC	0x40	/* 6.11, writes only */

/* What a file does with each kind of call (file methods, fs/proc/inode.c). */
enum {
	F_PROC		= 1 << 0,	/* S_ISREG: FIONREAD, FIOQSIZE work */
	F_READ_ITER	= 1 << 1,	/* ->read_iter */
	F_READ		= 1 << 2,	/* ->read (read/pread use it if set) */
	F_SPLICE	= 1 << 3,	/* ->splice_read */
	F_WRITE_EIO	= 1 << 4,	/* writes fail with EIO (proc) */
	F_WRITE_ITER	= 1 << 5,	/* ->write_iter into the store */
	F_WRITE		= 1 << 6,	/* ->write into the store (preferred) */
	F_LEGACY	= 1 << 7,	/* /proc/setfs_probe_legacy: may be absent */
	F_CTL		= 1 << 8,	/* the control device: ioctls only */
};

struct fuzz_row {
	const char *name;
	const char *path;
	unsigned int flags;
};

static const struct fuzz_row fuzz_rows[] = {
	{ "fuzz_proc", SETFS_PROC_PATH,
	  F_PROC | F_READ_ITER | F_SPLICE | F_WRITE_EIO },
	{ "fuzz_proc_legacy", SETFS_PROC_LEGACY_PATH,
	  F_PROC | F_READ | F_WRITE_EIO | F_LEGACY },
	{ "fuzz_dev", SETFS_DEV_PATH, F_READ_ITER | F_WRITE_ITER },
	{ "fuzz_dev_legacy", SETFS_DEV_LEGACY_PATH, F_READ | F_WRITE },
	{ "fuzz_dev_both", SETFS_DEV_BOTH_PATH,
	  F_READ | F_READ_ITER | F_WRITE | F_WRITE_ITER },
	{ "fuzz_ctl_ioctl", SETFS_CTL_PATH, F_CTL },
};

/* Where a buffer points. */
enum buf_kind {
	B_GOOD,		/* heap, room for any transfer */
	B_NULL,		/* page 0 */
	B_KERNEL,	/* above TASK_SIZE_MAX */
	B_UNMAPPED,	/* a munmap()ed page */
	B_RO,		/* PROT_READ */
	B_EDGE,		/* k bytes before an unmapped page */
	B_TOP,		/* k bytes before TASK_SIZE_MAX */
	B_NKINDS,
};

static const char *const buf_kind_names[] = {
	"good", "null", "kernel", "unmapped", "read-only", "edge", "top",
};

struct fbuf {
	enum buf_kind kind;
	unsigned long addr;
	size_t wr;	/* bytes the kernel can write from addr on */
	size_t rd;	/* bytes it can read */
};

enum fz_op {
	OP_READ, OP_PREAD, OP_READV, OP_PREADV2, OP_WRITE, OP_PWRITE,
	OP_LSEEK, OP_SPLICE_IN, OP_SPLICE_OUT, OP_SENDFILE, OP_TEE,
	OP_IOCTL, OP_NOPS,
};

static const char *const op_names[] = {
	"read", "pread", "readv", "preadv2", "write", "pwrite", "lseek",
	"splice(file->pipe)", "splice(pipe->file)", "sendfile(pipe<-file)",
	"tee", "ioctl",
};

/* An offset argument passed by pointer (splice, sendfile). */
enum off_kind { OFF_NONE, OFF_GOOD, OFF_RO, OFF_BAD };

struct fop {
	unsigned long long n;	/* index in the case */
	enum fz_op op;
	int fdi;		/* 0: O_RDONLY, 1: O_WRONLY, 2: O_RDWR */
	struct fbuf buf;
	size_t count;
	long long pos;		/* pread/pwrite/preadv2 offset, lseek offset */
	unsigned int whence;
	unsigned int flags;
	int vlen;
	size_t seg[3];
	unsigned long iov_addr;
	enum off_kind off;
	unsigned long off_addr;
	long long off_val;
	unsigned long cmd;
	int ctl_what;
	long long fpos;		/* model file position before the call */
};

/* One expected result: a count, or failure with one of a few errnos. */
struct fexp {
	long long ret;		/* >= 0: this count; -1: an errno of err[] */
	int err[3];
	/*
	 * ret >= 0: the lowest count that also passes (uaccess_slack(),
	 * below ok_to_fault()), and err[0] the errno that does, if any.
	 */
	long long lo;
};

static struct {
	unsigned long long seed, ops;
	size_t size, page;
	unsigned long top, kbuf;
	size_t kbuf_size;
	unsigned char *pattern;	/* the fixture, and more, from offset 0 */
	unsigned char *good;
	size_t good_len;
	unsigned char *ro;	/* read-only, random bytes */
	size_t ro_len;
	unsigned char *edge;	/* end of a mapping, unmapped page after */
	size_t edge_len;
	unsigned char *unmapped;
	unsigned char *top_page;	/* the highest user page, or NULL */
	unsigned char *store;	/* model of the devices' store */
	unsigned char *scratch;
	struct iovec *iov;
	long long *offp;	/* a good loff_t */
	long long *ro_offs;	/* read-only loff_t values */
	size_t n_ro_offs;
	int fd[3];
	long long fpos[3];
	int p[2], q[2];
	unsigned long long rng;
	unsigned int fails;
	const struct fuzz_row *row;
	const struct fop *cur;	/* for the watchdog */
	/* The running kernel's paths where 6.1 and 6.12 differ: fuzz_setup() */
	bool masked_copy;	/* copy_from_user() masks, copies to the fault */
	bool nf_overlap;	/* SETFS_INFO_SEPARATE_USER_SPACE */
	bool nf_top_allowed;	/* SETFS_INFO_NF_TOP_ALLOWED */
	bool access_ok_all;	/* SETFS_INFO_ACCESS_OK_ALL */
	bool readv_mode_first;	/* vfs_readv(): FMODE_READ before the iovecs */
	bool iov_ubuf;		/* one iovec: import_ubuf(), clamped first */
	bool splice_whole;	/* splice(2): rw_verify_area() of the whole len */
	bool splice_len0;	/* a len of 0 is 0 before ->splice_read is asked */
	unsigned int rwf_read;	/* RWF_* kiocb_set_rw_flags() takes on a read */
} fz;

static unsigned long long rnd(void)
{
	return splitmix64(&fz.rng);
}

static unsigned long long rnd_below(unsigned long long n)
{
	return n ? rnd() % n : 0;
}

/* include/asm-generic/access_ok.h, or every range (SETFS_INFO_ACCESS_OK_ALL) */
static bool access_ok_model(unsigned long addr, unsigned long size)
{
	return fz.access_ok_all || (size <= fz.top && addr <= fz.top - size);
}

/* A count: mostly small, sometimes at page and file edges, or absurd. */
static size_t pick_count(void)
{
	size_t page = fz.page, size = fz.size;

	switch (rnd_below(16)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return page - 1 + rnd_below(3);
	case 3:
		return size - 1 + rnd_below(3);
	case 4:
		return (size_t)1 << (31 + rnd_below(10));
	case 5:
		return K_MAX_RW_COUNT + rnd_below(2);
	case 6:
		return SIZE_MAX - rnd_below(2);
	case 7:
		return LLONG_MAX - rnd_below(2);
	case 8:
		return fz.top - rnd_below(2);
	case 9:
	case 10:
		return rnd_below(2 * page + 1);
	default:
		return rnd_below(300);
	}
}

/* An offset: inside the file mostly, else past it, negative, huge. */
static long long pick_pos(void)
{
	long long size = fz.size;

	switch (rnd_below(12)) {
	case 0:
		return 0;
	case 1:
		return size - 1 + (long long)rnd_below(3);
	case 2:
		return (long long)fz.page - 1 + (long long)rnd_below(3);
	case 3:
		return -1 - (long long)rnd_below(2);
	case 4:
		return LLONG_MIN + (long long)rnd_below(2);
	case 5:
		return LLONG_MAX - (long long)rnd_below(3);
	case 6:
		return size + (long long)rnd_below(1ULL << 40);
	default:
		return rnd_below(size + 1);
	}
}

static struct fbuf pick_buf(void)
{
	struct fbuf b = { .kind = B_GOOD };
	size_t k;

	switch (rnd_below(20)) {
	case 0:
		b.kind = B_NULL;
		break;
	case 1:
		b.kind = B_KERNEL;
		break;
	case 2:
		b.kind = B_UNMAPPED;
		break;
	case 3:
	case 4:
		b.kind = B_RO;
		break;
	case 5:
	case 6:
	case 7:
		b.kind = B_EDGE;
		break;
	case 8:
	case 9:
		b.kind = fz.top_page ? B_TOP : B_EDGE;
		break;
	default:
		break;
	}
	switch (b.kind) {
	case B_GOOD:
		b.addr = (unsigned long)fz.good + rnd_below(64);
		b.wr = SIZE_MAX;
		b.rd = SIZE_MAX;
		break;
	case B_NULL:
		b.addr = rnd_below(2) ? 0 : rnd_below(fz.page);
		break;
	case B_KERNEL:
		b.addr = fz.kbuf;
		if (rnd_below(2))
			b.addr += rnd_below(4096);
		break;
	case B_UNMAPPED:
		b.addr = (unsigned long)fz.unmapped + rnd_below(fz.page);
		break;
	case B_RO:
		k = rnd_below(fz.page);
		b.addr = (unsigned long)fz.ro + k;
		b.rd = fz.ro_len - k;
		break;
	case B_EDGE:
		k = rnd_below(4) ? rnd_below(65) : rnd_below(fz.edge_len + 1);
		b.addr = (unsigned long)fz.edge - k;
		b.wr = k;
		b.rd = k;
		break;
	case B_TOP:
		k = rnd_below(4) ? rnd_below(65) : rnd_below(fz.page + 1);
		b.addr = fz.top - k;
		b.wr = k;
		b.rd = k;
		break;
	default:
		break;
	}
	return b;
}

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

static struct fexp ok_n(long long n)
{
	return (struct fexp){ .ret = n, .lo = n };
}

/*
 * @n bytes (n > 0), the last of them just before a fault in the user
 * buffer: the architecture may stop up to uaccess_slack() bytes short
 * (the kernel says), and with nothing copied the call fails with EFAULT.
 */
static struct fexp ok_to_fault(size_t n)
{
	struct fexp e = ok_n(n);
	unsigned long long slack = uaccess_slack();

	if (n > slack) {
		e.lo = n - slack;
	} else {
		e.lo = 1;
		e.err[0] = EFAULT;
	}
	return e;
}

static struct fexp fail1(int e)
{
	return (struct fexp){ .ret = -1, .err = { e } };
}

static bool fd_reads(int fdi)
{
	return fdi != 1;
}

static bool fd_writes(int fdi)
{
	return fdi != 0;
}

/* pos + count beyond LLONG_MAX (rw_verify_area()'s EINVAL). */
static bool pos_overflows(long long pos, size_t count)
{
	return (ssize_t)count < 0 || (unsigned long long)pos + count > LLONG_MAX;
}

/* Bytes a read of @n at @pos gives, with the fault model of @b. */
static struct fexp read_result(long long pos, size_t n, const struct fbuf *b)
{
	size_t avail = pos >= (long long)fz.size ? 0 : fz.size - pos;
	size_t want = min_sz(n, avail);

	if (!want)
		return ok_n(0);
	if (!min_sz(want, b->wr))
		return fail1(EFAULT);
	return b->wr < want ? ok_to_fault(b->wr) : ok_n(want);
}

static void describe_op(const struct fop *o, char *s, size_t len)
{
	snprintf(s, len,
		 "op #%llu %s fd=%s buf=%s:0x%lx count=%zu pos=%lld whence=%u flags=0x%x vlen=%d seg=%zu,%zu,%zu iov=0x%lx off=%d:0x%lx:%lld cmd=0x%lx what=%d fpos=%lld",
		 o->n, op_names[o->op],
		 o->fdi == 0 ? "ro" : o->fdi == 1 ? "wo" : "rw",
		 buf_kind_names[o->buf.kind], o->buf.addr, o->count, o->pos,
		 o->whence, o->flags, o->vlen, o->seg[0], o->seg[1], o->seg[2],
		 o->iov_addr, o->off, o->off_addr, o->off_val, o->cmd,
		 o->ctl_what, o->fpos);
}

static void fz_describe_current(void)
{
	char s[512];

	if (!fz.cur)
		return;
	describe_op(fz.cur, s, sizeof(s));
	diag("fuzz %s: seed=0x%llx, running %s", fz.row->name, fz.seed, s);
}

static bool fz_fail(const struct fop *o, const char *fmt, ...) __printf(2, 3);

static bool fz_fail(const struct fop *o, const char *fmt, ...)
{
	char what[256], s[512];
	va_list ap;

	if (++fz.fails > FUZZ_MAX_FAILS)
		return false;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	describe_op(o, s, sizeof(s));
	diag("fuzz %s: seed=0x%llx %s: %s", fz.row->name, fz.seed, s, what);
	return false;
}

static bool check_result(const struct fop *o, const struct fexp *e,
			 long long ret, int err)
{
	int i;

	if (e->ret >= 0) {
		if (ret == e->ret || (ret >= e->lo && ret < e->ret))
			return true;
		if (ret == -1 && e->err[0] && err == e->err[0])
			return true;
		if (ret < 0)
			return fz_fail(o, "failed with %s (%d), expected %lld",
				       errno_name(err), err, e->ret);
		return fz_fail(o, "returned %lld, expected %lld", ret, e->ret);
	}
	if (ret == -1) {
		for (i = 0; i < 3 && e->err[i]; i++)
			if (err == e->err[i])
				return true;
	}
	if (ret == -1)
		return fz_fail(o, "failed with %s (%d), expected %s%s%s",
			       errno_name(err), err, errno_name(e->err[0]),
			       e->err[1] ? " or " : "",
			       e->err[1] ? errno_name(e->err[1]) : "");
	return fz_fail(o, "returned %lld, expected -1 with %s%s%s", ret,
		       errno_name(e->err[0]), e->err[1] ? " or " : "",
		       e->err[1] ? errno_name(e->err[1]) : "");
}

static bool check_bytes(const struct fop *o, const void *got, long long pos,
			size_t len)
{
	const unsigned char *g = got;
	size_t i;

	if (!len || !memcmp(g, fz.pattern + pos, len))
		return true;
	for (i = 0; g[i] == fz.pattern[pos + i]; i++)
		;
	return fz_fail(o, "byte at file offset %lld is 0x%02x, the pattern has 0x%02x",
		       pos + (long long)i, g[i], fz.pattern[pos + i]);
}

/* Reads everything a pipe holds into fz.scratch; the count or -1. */
static ssize_t fz_drain(int fd)
{
	size_t got = 0;
	ssize_t ret;
	int avail;

	if (ioctl(fd, FIONREAD, &avail) < 0)
		return -1;
	while (got < (size_t)avail) {
		ret = read(fd, fz.scratch + got, avail - got);
		if (ret <= 0)
			return -1;
		got += ret;
	}
	return got;
}

static bool check_pipe(const struct fop *o, int fd, long long pos,
		       size_t want)
{
	ssize_t got = fz_drain(fd);

	if (got != (ssize_t)want)
		return fz_fail(o, "the pipe holds %zd bytes, expected %zu", got,
			       want);
	return check_bytes(o, fz.scratch, pos, want);
}

/* --------------------------------------------------------------- reads */

/* Splits count into vlen contiguous segments of the buffer. */
static void pick_segments(struct fop *o)
{
	size_t left = o->count, cut;
	int i;

	o->vlen = 1 + rnd_below(3);
	for (i = 0; i < o->vlen; i++) {
		cut = i == o->vlen - 1 ? left : rnd_below(2) ? left / 2 :
		      rnd_below(min_sz(left, 2 * fz.page) + 1);
		o->seg[i] = cut;
		left -= cut;
	}
	o->iov_addr = (unsigned long)fz.iov;
	switch (rnd_below(40)) {
	case 0:
		o->vlen = 0;
		break;
	case 1:
		o->vlen = K_UIO_MAXIOV + 1;
		break;
	case 2:
		o->iov_addr = 0;
		break;
	case 3:
		o->iov_addr = fz.kbuf;
		break;
	default:
		break;
	}
}

/*
 * The iovec part of readv/preadv2: import_iovec() (lib/iov_iter.c); 0 or
 * -errno.  access_ok() of each whole segment, except for a single one
 * where the kernel imports it as ITER_UBUF (fz.iov_ubuf): import_ubuf()
 * clamps it to MAX_RW_COUNT first.
 */
static int iov_import_error(const struct fop *o, size_t *total)
{
	unsigned long addr = o->buf.addr;
	size_t tot = 0, len;
	int i;

	*total = 0;
	if (o->vlen > K_UIO_MAXIOV)
		return -EINVAL;
	if (!o->vlen)
		return 0;
	if (o->iov_addr != (unsigned long)fz.iov)
		return -EFAULT;
	for (i = 0; i < o->vlen; i++)
		if ((ssize_t)o->seg[i] < 0)
			return -EINVAL;
	if (fz.iov_ubuf && o->vlen == 1) {
		len = min_sz(o->seg[0], K_MAX_RW_COUNT);
		if (!access_ok_model(addr, len))
			return -EFAULT;
		*total = len;
		return 0;
	}
	for (i = 0; i < o->vlen; i++) {
		len = o->seg[i];
		if (!access_ok_model(addr, len))
			return -EFAULT;
		addr += len;
		if (len > K_MAX_RW_COUNT - tot)
			len = K_MAX_RW_COUNT - tot;
		tot += len;
	}
	*total = tot;
	return 0;
}

/*
 * The checks vfs_read() and vfs_write() make before the file is called,
 * in their order: the file's mode (@fd_ok: open for this direction),
 * access_ok() of the buffer, rw_verify_area().  0 or -errno.
 */
static int rw_refused(const struct fop *o, bool fd_ok, long long pos)
{
	if (!fd_ok)
		return -EBADF;
	if (!access_ok_model(o->buf.addr, o->count))
		return -EFAULT;
	if (pos_overflows(pos, o->count))
		return -EINVAL;
	return 0;
}

static struct fexp fz_expect_read(const struct fop *o, unsigned int fl)
{
	bool vec = o->op == OP_READV || o->op == OP_PREADV2;
	bool at_pos = o->op == OP_PREAD ||
		      (o->op == OP_PREADV2 && o->pos != -1);
	long long pos = at_pos ? o->pos : o->fpos;
	size_t n;
	int err;

	if (at_pos && o->pos < 0)
		return fail1(EINVAL);
	if (!vec) {
		/* vfs_read() */
		err = rw_refused(o, fd_reads(o->fdi), pos);
		if (err)
			return fail1(-err);
		n = min_sz(o->count, K_MAX_RW_COUNT);
		return read_result(pos, n, &o->buf);
	}
	/*
	 * vfs_readv(): the file's mode, then the iovecs where
	 * fz.readv_mode_first; else the iovecs, then do_iter_read()'s mode
	 */
	if (fz.readv_mode_first && !fd_reads(o->fdi))
		return fail1(EBADF);
	err = iov_import_error(o, &n);
	if (err)
		return fail1(-err);
	if (!fd_reads(o->fdi))
		return fail1(EBADF);
	if (!n)
		return ok_n(0);
	if (pos_overflows(pos, n))
		return fail1(EINVAL);
	if (fl & F_READ_ITER) {
		/*
		 * kiocb_set_rw_flags(): what the kernel knows and takes on a
		 * read (fz.rwf_read); no FMODE_NOWAIT on these files
		 */
		if (o->flags & (~fz.rwf_read | RWF_NOWAIT))
			return fail1(EOPNOTSUPP);
	} else if (o->flags & ~RWF_HIPRI) {
		return fail1(EOPNOTSUPP);	/* do_loop_readv_writev() */
	}
	return read_result(pos, n, &o->buf);
}

static long long fz_do_read(struct fop *o)
{
	int fd = fz.fd[o->fdi];
	unsigned long a = o->buf.addr;
	int i;

	for (i = 0; i < 3; i++) {
		fz.iov[i].iov_base = (void *)a;
		fz.iov[i].iov_len = o->seg[i];
		a += o->seg[i];
	}
	switch (o->op) {
	case OP_READ:
		return read(fd, (void *)o->buf.addr, o->count);
	case OP_PREAD:
		return pread(fd, (void *)o->buf.addr, o->count, o->pos);
	case OP_READV:
		return readv(fd, (struct iovec *)o->iov_addr, o->vlen);
	default:
		return preadv2(fd, (struct iovec *)o->iov_addr, o->vlen, o->pos,
			       o->flags);
	}
}

/* Not what a read one byte too long would put at file offset @pos. */
static unsigned char canary_byte(long long pos)
{
	if (pos >= 0 && pos < (long long)fz.size)
		return ~fz.pattern[pos];
	return 0xa5;	/* past the fixture: the slack of its vmalloc() */
}

static bool fz_read(struct fop *o, unsigned int fl)
{
	static const unsigned int flag_choices[] = {
		0, 0, 0, RWF_HIPRI, RWF_DSYNC, RWF_SYNC, RWF_NOWAIT, 0x10,
		K_RWF_NOAPPEND, K_RWF_ATOMIC, 0x80000000U,
	};
	struct fexp e;
	long long ret;
	bool moves, canary;
	int err;

	o->buf = pick_buf();
	o->count = pick_count();
	o->pos = pick_pos();
	if (o->op == OP_PREADV2 && rnd_below(3) == 0)
		o->pos = -1;
	if (o->op == OP_READV || o->op == OP_PREADV2)
		pick_segments(o);
	if (o->op == OP_PREADV2)
		o->flags = flag_choices[rnd_below(ARRAY_SIZE(flag_choices))];
	moves = o->op == OP_READ || o->op == OP_READV ||
		(o->op == OP_PREADV2 && o->pos == -1);
	e = fz_expect_read(o, fl);
	/* A canary after the expected end: a read writes nothing beyond. */
	canary = o->buf.kind == B_GOOD && e.ret >= 0 &&
		 (size_t)e.ret < o->count;
	if (canary)
		((unsigned char *)o->buf.addr)[e.ret] =
			canary_byte((moves ? o->fpos : o->pos) + e.ret);
	errno = 0;
	ret = fz_do_read(o);
	err = errno;
	if (!check_result(o, &e, ret, err))
		return false;
	if (canary && ((unsigned char *)o->buf.addr)[ret] !=
		      canary_byte((moves ? o->fpos : o->pos) + ret))
		return fz_fail(o, "the byte after the %lld read was overwritten",
			       ret);
	if (ret > 0) {
		if (!check_bytes(o, (void *)o->buf.addr, moves ? o->fpos : o->pos,
				 ret))
			return false;
		if (moves)
			fz.fpos[o->fdi] += ret;
	}
	return true;
}

/* -------------------------------------------------------------- writes */

static struct fexp fz_expect_write(const struct fop *o, unsigned int fl)
{
	bool at_pos = o->op == OP_PWRITE;
	long long pos = at_pos ? o->pos : o->fpos;
	size_t n, room;
	int err;

	if (at_pos && o->pos < 0)
		return fail1(EINVAL);
	/* vfs_write() */
	err = rw_refused(o, fd_writes(o->fdi), pos);
	if (err)
		return fail1(-err);
	if (fl & F_WRITE_EIO)
		return fail1(EIO);
	n = min_sz(o->count, K_MAX_RW_COUNT);
	if (!n)
		return ok_n(0);
	if (pos >= (long long)fz.size)
		return fail1(ENOSPC);
	room = min_sz(n, fz.size - pos);
	if (fl & F_WRITE)	/* memdup_user(): all or nothing */
		return o->buf.rd >= room ? ok_n(room) : fail1(EFAULT);
	if (!min_sz(room, o->buf.rd))
		return fail1(EFAULT);
	return o->buf.rd < room ? ok_to_fault(o->buf.rd) : ok_n(room);
}

static bool fz_write(struct fop *o, unsigned int fl)
{
	int fd = fz.fd[o->fdi];
	long long ret, pos;
	struct fexp e;
	size_t i;
	int err;

	o->buf = pick_buf();
	o->count = pick_count();
	o->pos = pick_pos();
	if (o->buf.kind == B_GOOD)
		for (i = 0; i < 16; i++)
			fz.good[rnd_below(fz.size)] = rnd();
	e = fz_expect_write(o, fl);
	errno = 0;
	if (o->op == OP_WRITE)
		ret = write(fd, (void *)o->buf.addr, o->count);
	else
		ret = pwrite(fd, (void *)o->buf.addr, o->count, o->pos);
	err = errno;
	if (!check_result(o, &e, ret, err))
		return false;
	if (ret > 0) {
		pos = o->op == OP_WRITE ? o->fpos : o->pos;
		memcpy(fz.store + pos, (void *)o->buf.addr, ret);
		if (o->op == OP_WRITE)
			fz.fpos[o->fdi] += ret;
	}
	return true;
}

/* --------------------------------------------------------------- lseek */

static bool fz_lseek(struct fop *o)
{
	static const unsigned int whences[] = {
		SEEK_SET, SEEK_SET, SEEK_CUR, SEEK_CUR, SEEK_END, SEEK_END,
		SEEK_DATA, SEEK_HOLE, 5, UINT_MAX,
	};
	long long np = 0, ret;
	struct fexp e;
	bool valid = true;
	int err;

	o->whence = whences[rnd_below(ARRAY_SIZE(whences))];
	o->pos = rnd_below(2) ? pick_pos() : (long long)rnd_below(2 * fz.size) -
					     (long long)fz.size;
	/* fixed_size_llseek(); the kernel's additions wrap (-fwrapv) */
	switch (o->whence) {
	case SEEK_SET:
		np = o->pos;
		break;
	case SEEK_CUR:
		np = (long long)((unsigned long long)o->fpos + o->pos);
		if (!o->pos)
			np = o->fpos;
		break;
	case SEEK_END:
		np = (long long)((unsigned long long)fz.size + o->pos);
		break;
	default:
		valid = false;
		break;
	}
	if (valid && np >= 0 && np <= (long long)fz.size)
		e = ok_n(np);
	else
		e = fail1(EINVAL);
	errno = 0;
	ret = lseek(fz.fd[o->fdi], o->pos, o->whence);
	err = errno;
	if (!check_result(o, &e, ret, err))
		return false;
	if (ret >= 0)
		fz.fpos[o->fdi] = ret;
	return true;
}

/* -------------------------------------------------------------- splice */

/* Picks the offset argument; returns the file position the call starts at. */
static long long pick_off(struct fop *o)
{
	switch (rnd_below(8)) {
	case 0:
	case 1:
	case 2:
		o->off = OFF_NONE;
		o->off_addr = 0;
		break;
	case 3:
		o->off = OFF_RO;
		o->off_val = fz.ro_offs[rnd_below(fz.n_ro_offs)];
		break;
	case 4:
		o->off = OFF_BAD;
		o->off_addr = rnd_below(2) ? fz.kbuf :
			      (unsigned long)fz.unmapped;
		break;
	default:
		o->off = OFF_GOOD;
		o->off_val = pick_pos();
		*fz.offp = o->off_val;
		o->off_addr = (unsigned long)fz.offp;
		break;
	}
	if (o->off == OFF_RO) {
		size_t i;

		for (i = 0; i < fz.n_ro_offs; i++)
			if (fz.ro_offs[i] == o->off_val)
				break;
		o->off_addr = (unsigned long)&fz.ro_offs[i];
	}
	return o->off == OFF_NONE ? o->fpos : o->off_val;
}

/*
 * The inner result of splice/sendfile from the file into an empty pipe:
 * do_splice_to() clamps len to the pipe's room first, then
 * rw_verify_area(), then needs ->splice_read; since 6.5 a len of 0 is
 * 0 before all of that (fz.splice_len0).  @whole: splice(2) where
 * do_splice() calls rw_verify_area() on the len asked for, before the
 * clamps (fz.splice_whole); sendfile(2) verified its count already.
 */
static struct fexp splice_to_pipe(long long pos, size_t len, unsigned int fl,
				  bool whole)
{
	size_t avail;

	if (whole && (pos < 0 || pos_overflows(pos, len)))
		return fail1(EINVAL);
	if (!len && fz.splice_len0)
		return ok_n(0);
	len = min_sz(len, (size_t)K_PIPE_SLOTS * fz.page);
	if (pos < 0 || pos_overflows(pos, len))
		return fail1(EINVAL);
	len = min_sz(len, K_MAX_RW_COUNT);
	if (!(fl & F_SPLICE))
		return fail1(EINVAL);
	avail = pos >= (long long)fz.size ? 0 : fz.size - pos;
	return ok_n(min_sz(len, avail));
}

/*
 * What sys_splice() and __do_splice() refuse before the file is called,
 * in their order: true with @e set then.  @fd_ok: the file is open the
 * way the splice uses it (for reading in, for writing out).
 */
static bool splice_refused(const struct fop *o, bool fd_ok, struct fexp *e)
{
	if (!o->count)
		*e = ok_n(0);
	else if (o->flags & ~K_SPLICE_F_ALL)
		*e = fail1(EINVAL);
	else if (o->off == OFF_BAD)
		*e = fail1(EFAULT);
	else if (!fd_ok)
		*e = fail1(EBADF);
	else
		return false;
	return true;
}

/*
 * After a splice or sendfile from the file into fz.p, @inner being what
 * the file gave: the result, what the pipe holds and the file position,
 * which only moves without an offset argument.
 */
static bool check_into_pipe(const struct fop *o, const struct fexp *e,
			    long long ret, int err, long long pos,
			    const struct fexp *inner)
{
	long long moved = inner->ret > 0 ? inner->ret : 0;

	if (!check_result(o, e, ret, err) ||
	    !check_pipe(o, fz.p[0], pos, moved))
		return false;
	if (moved && o->off == OFF_NONE)
		fz.fpos[o->fdi] += moved;
	return true;
}

static bool fz_splice_in(struct fop *o, unsigned int fl)
{
	static const unsigned int flag_choices[] = { 0, 0, 1, 2, 4, 8, 0x10 };
	long long pos, ret;
	struct fexp inner, e;
	int err;

	o->count = pick_count();
	o->flags = flag_choices[rnd_below(ARRAY_SIZE(flag_choices))];
	pos = pick_off(o);
	/* sys_splice(), __do_splice(), do_splice() */
	if (!splice_refused(o, fd_reads(o->fdi), &inner))
		inner = splice_to_pipe(pos, o->count, fl, fz.splice_whole);
	e = inner;
	if (o->count && o->off == OFF_RO && inner.ret >= 0)
		e = fail1(EFAULT);	/* copy_to_user() of the new offset */
	errno = 0;
	ret = splice(fz.fd[o->fdi], o->off == OFF_NONE ? NULL :
		     (loff_t *)o->off_addr, fz.p[1], NULL, o->count, o->flags);
	err = errno;
	if (!check_into_pipe(o, &e, ret, err, pos, &inner))
		return false;
	if (o->off == OFF_GOOD && *fz.offp != pos + (inner.ret > 0 ? inner.ret : 0))
		return fz_fail(o, "off_in is %lld afterwards, expected %lld",
			       *fz.offp, pos + (inner.ret > 0 ? inner.ret : 0));
	return true;
}

static bool fz_splice_out(struct fop *o)
{
	long long pos, ret;
	struct fexp e;
	size_t queued = 1 + rnd_below(100), i;
	int err;

	o->count = pick_count();
	o->flags = rnd_below(4) ? 0 : 1U << rnd_below(5);
	pos = pick_off(o);
	for (i = 0; i < queued; i++)
		fz.good[i] = rnd();
	if (write(fz.p[1], fz.good, queued) != (ssize_t)queued)
		return fz_fail(o, "write to pipe: %s", strerror(errno));
	if (!splice_refused(o, fd_writes(o->fdi), &e))
		e = fail1(EINVAL);	/* rw_verify_area() or no ->splice_write */
	(void)pos;
	errno = 0;
	ret = splice(fz.p[0], NULL, fz.fd[o->fdi], o->off == OFF_NONE ? NULL :
		     (loff_t *)o->off_addr, o->count, o->flags);
	err = errno;
	if (!check_result(o, &e, ret, err))
		return false;
	if (fz_drain(fz.p[0]) != (ssize_t)queued ||
	    memcmp(fz.scratch, fz.good, queued))
		return fz_fail(o, "the pipe lost its %zu bytes", queued);
	return true;
}

/*
 * do_sendfile() stops at the smaller s_maxbytes of the two files: procfs
 * leaves the default MAX_NON_LFS, pipefs and devtmpfs allow
 * MAX_LFS_FILESIZE (LLONG_MAX on 64-bit kernels, ULONG_MAX pages on
 * 32-bit ones, where an unsigned long indexes the page cache).  So
 * sendfile() gives EOVERFLOW when it would go beyond that limit from
 * there or later, and stops there when it starts below.  The user
 * binary is as wide as the kernel on every target.
 */
static long long sendfile_max(unsigned int fl)
{
	if (fl & F_PROC)
		return K_MAX_NON_LFS;
	return sizeof(long) == 8 ? LLONG_MAX :
	       (long long)ULONG_MAX * (long long)fz.page;
}

static size_t sendfile_count(long long pos, size_t count, unsigned int fl)
{
	long long max = sendfile_max(fl);

	count = min_sz(count, K_MAX_RW_COUNT);
	if (pos + (long long)count > max)
		count = max - pos;
	return count;
}

static bool fz_sendfile(struct fop *o, unsigned int fl)
{
	long long pos, ret;
	struct fexp inner, e;
	int err;

	o->count = pick_count();
	pos = pick_off(o);
	/* sys_sendfile64(), do_sendfile() */
	if (o->off == OFF_BAD)
		inner = fail1(EFAULT);
	else if (!fd_reads(o->fdi))
		inner = fail1(EBADF);
	else if (pos < 0 || pos_overflows(pos, o->count))
		inner = fail1(EINVAL);
	else if (pos > sendfile_max(fl) ||
		 (pos == sendfile_max(fl) && o->count))
		inner = fail1(EOVERFLOW);
	else
		inner = splice_to_pipe(pos, sendfile_count(pos, o->count, fl),
				       fl, false);
	e = inner;
	if (o->off == OFF_RO)
		e = fail1(EFAULT);	/* put_user() of the offset, always */
	errno = 0;
	ret = sendfile(fz.p[1], fz.fd[o->fdi], o->off == OFF_NONE ? NULL :
		       (off_t *)o->off_addr, o->count);
	err = errno;
	return check_into_pipe(o, &e, ret, err, pos, &inner);
}

/* tee() of what a splice put in one pipe into another; tee() of the file. */
static bool fz_tee(struct fop *o, unsigned int fl)
{
	long long pos = fz.fpos[o->fdi], ret, in;
	size_t len;
	struct fexp e;
	int err;

	o->count = pick_count();
	o->flags = rnd_below(4) ? SPLICE_F_NONBLOCK : 0x10;
	if (!fd_reads(o->fdi) || !(fl & F_SPLICE) || rnd_below(4) == 0) {
		/* sys_tee(): flags, then len; do_tee(): modes, then pipes */
		e = (o->flags & ~K_SPLICE_F_ALL) ? fail1(EINVAL) :
		    !o->count ? ok_n(0) : !fd_reads(o->fdi) ? fail1(EBADF) :
		    fail1(EINVAL);
		errno = 0;
		ret = tee(fz.fd[o->fdi], fz.q[1], o->count, o->flags);
		err = errno;
		return check_result(o, &e, ret, err);
	}
	len = 1 + rnd_below(2 * fz.page);
	in = splice(fz.fd[o->fdi], NULL, fz.p[1], NULL, len, 0);
	if (in < 0)
		return fz_fail(o, "splice before tee: %s", strerror(errno));
	fz.fpos[o->fdi] += in;
	if (o->flags & ~K_SPLICE_F_ALL)
		e = fail1(EINVAL);
	else if (!o->count)
		e = ok_n(0);
	else if (!in)
		e = fail1(EAGAIN);	/* empty pipe, SPLICE_F_NONBLOCK */
	else
		e = ok_n(min_sz(o->count, in));
	errno = 0;
	ret = tee(fz.p[0], fz.q[1], o->count, o->flags);
	err = errno;
	if (!check_result(o, &e, ret, err) ||
	    !check_pipe(o, fz.q[0], pos, e.ret > 0 ? e.ret : 0) ||
	    !check_pipe(o, fz.p[0], pos, in))
		return false;
	return true;
}

/* ---------------------------------------------------- ioctl, probe files */

static unsigned long random_cmd(void)
{
	return _IOC(rnd_below(4), SETFS_IOC_MAGIC, rnd_below(256),
		    rnd_below(1U << 14));
}

static bool is_ctl_cmd(unsigned long cmd)
{
	return cmd == SETFS_IOC_INFO || cmd == SETFS_IOC_KERNEL_READ ||
	       cmd == SETFS_IOC_KERNEL_WRITE || cmd == SETFS_IOC_UACCESS ||
	       cmd == SETFS_IOC_NOFAULT || cmd == SETFS_IOC_PROC_RECREATE;
}

static bool fz_ioctl_file(struct fop *o, unsigned int fl)
{
	long long ret, value = -1;
	struct fexp e;
	int err;

	o->buf = pick_buf();
	switch (rnd_below(3)) {
	case 0:
		o->cmd = FIONREAD;
		break;
	case 1:
		o->cmd = FIOQSIZE;
		break;
	default:
		o->cmd = random_cmd();
		break;
	}
	if (o->buf.kind == B_GOOD)
		memset((void *)o->buf.addr, 0xee, 8);
	if (o->cmd == FIONREAD && (fl & F_PROC)) {
		/* put_user(i_size - f_pos, (int __user *)arg) */
		e = o->buf.wr >= sizeof(int) &&
		    access_ok_model(o->buf.addr, sizeof(int)) ?
		    ok_n(0) : fail1(EFAULT);
		value = (int)(fz.size - o->fpos);
	} else if (o->cmd == FIOQSIZE && (fl & F_PROC)) {
		e = o->buf.wr >= 8 && access_ok_model(o->buf.addr, 8) ?
		    ok_n(0) : fail1(EFAULT);
		value = 0;	/* no blocks */
	} else {
		e = fail1(ENOTTY);
	}
	errno = 0;
	ret = ioctl(fz.fd[o->fdi], o->cmd, o->buf.addr);
	err = errno;
	if (!check_result(o, &e, ret, err))
		return false;
	if (!ret && o->buf.kind == B_GOOD) {
		long long got = o->cmd == FIONREAD ?
				*(int *)o->buf.addr : *(long long *)o->buf.addr;

		if (got != value)
			return fz_fail(o, "the ioctl stored %lld, expected %lld",
				       got, value);
	}
	return true;
}

/* ------------------------------------------------------- control device */

enum ctl_what { CTL_INFO, CTL_KREAD, CTL_KWRITE, CTL_UACCESS, CTL_NOFAULT,
		CTL_UNKNOWN };

/* Where the argument structure is. */
enum arg_kind { ARG_GOOD, ARG_RO, ARG_STRADDLE, ARG_BAD };

union ctl_args {
	struct setfs_ctl_info info;
	struct setfs_ctl_rw rw;
	struct setfs_ctl_uaccess ua;
	struct setfs_ctl_nofault nf;
};

static const char *const kpaths[] = {
	SETFS_DEV_PATH, SETFS_PROC_PATH, SETFS_DEV_LEGACY_PATH,
	SETFS_DEV_BOTH_PATH, SETFS_PROC_LEGACY_PATH, "/nonexistent/setfs",
	NULL,	/* no NUL in the whole path field */
};

static bool legacy_proc_exists(void)
{
	return access(SETFS_PROC_LEGACY_PATH, F_OK) == 0;
}

/*
 * SETFS_IOC_KERNEL_READ/WRITE (kernel_rw.c): the handler's own result (0
 * or -errno) in *hret, what it leaves in the structure in *r.
 */
static void expect_kernel_rw(struct setfs_ctl_rw *r, bool write, int path,
			     const struct fbuf *b, long *hret)
{
	size_t avail, room;
	long long pos = r->pos;

	*hret = 0;
	r->ret = 0;
	if (!kpaths[path]) {
		*hret = -ENAMETOOLONG;
		return;
	}
	if (r->count > SETFS_CTL_RW_MAX) {
		*hret = -EINVAL;
		return;
	}
	if (path == 5 || (path == 4 && !legacy_proc_exists())) {
		r->open_ret = -ENOENT;
		return;
	}
	r->open_ret = 0;
	if (write && r->count && (b->rd < r->count ||
				  !access_ok_model(b->addr, r->count))) {
		*hret = -EFAULT;
		return;
	}
	if (pos < 0 || pos_overflows(pos, r->count)) {
		r->ret = -EINVAL;
		return;
	}
	if (path != 0 && !(path == 1 && !write)) {
		r->ret = -EINVAL;	/* ->read or ->write, or no *_iter */
		return;
	}
	if (!write) {
		avail = pos >= (long long)fz.size ? 0 : fz.size - pos;
		r->ret = min_sz(r->count, avail);
		if (r->ret > 0 && (b->wr < (size_t)r->ret ||
				   !access_ok_model(b->addr, r->ret))) {
			*hret = -EFAULT;
			return;
		}
	} else if (!r->count) {
		r->ret = 0;
	} else if (pos >= (long long)fz.size) {
		r->ret = -ENOSPC;
	} else {
		room = min_sz(r->count, fz.size - pos);
		r->ret = room;
	}
	if (r->ret > 0)
		r->pos = pos + r->ret;
}

#define UA_ANY		LLONG_MIN	/* -EFAULT or 0..size */
#define UA_RANGE	(LLONG_MIN + 1)	/* value..size, cleared bytes zero */

static void expect_uaccess(struct setfs_ctl_uaccess *u, const struct fbuf *b,
			   long *hret)
{
	bool ok = access_ok_model(u->addr, u->size);
	size_t wr = ok ? min_sz(b->wr, u->size) : 0;
	size_t rd = ok ? min_sz(b->rd, u->size) : 0;

	*hret = 0;
	switch (u->op) {
	case SETFS_UA_GET_USER:
	case SETFS_UA_PUT_USER:
		if (u->size != 1 && u->size != 2 && u->size != 4 &&
		    u->size != 8) {
			*hret = -EINVAL;
			return;
		}
		u->ret = (u->op == SETFS_UA_GET_USER ? rd : wr) == u->size ?
			 0 : -EFAULT;
		return;
	case SETFS_UA_COPY_FROM_USER:
	case SETFS_UA_COPY_TO_USER:
	case SETFS_UA_STRNCPY_FROM_USER:
		if (u->size > SETFS_UA_DATA_MAX) {
			*hret = -EINVAL;
			return;
		}
		/*
		 * A range crossing TASK_SIZE_MAX: access_ok() refuses it
		 * whole, a masked copy_from_user() (fz.masked_copy) copies
		 * the user bytes below it and faults there.
		 */
		if (u->op == SETFS_UA_COPY_FROM_USER && fz.masked_copy)
			u->ret = u->size - min_sz(b->rd, u->size);
		else if (u->op == SETFS_UA_COPY_FROM_USER)
			u->ret = u->size - rd;
		else if (u->op == SETFS_UA_COPY_TO_USER)
			u->ret = u->size - wr;
		else
			u->ret = UA_ANY;	/* -EFAULT or 0..size */
		if (uaccess_slack() && u->ret > 0 && u->ret != UA_ANY) {
			/* may stop short of the fault: uaccess_slack() */
			u->value = u->ret;
			u->ret = UA_RANGE;
		}
		return;
	case SETFS_UA_CLEAR_USER:
		/*
		 * Not exact on x86-64: clear_user_original (CPUs without
		 * REP_GOOD, such as qemu64) stores qwords and stops at the
		 * first one that faults, so up to 7 bytes before an unmapped
		 * page count as not cleared.  Never fewer than the truth.
		 */
		u->ret = UA_RANGE;
		u->value = u->size - wr;	/* lowest allowed */
		return;
	case SETFS_UA_ACCESS_OK:
		u->ret = ok;
		return;
	default:
		*hret = -EINVAL;
		return;
	}
}

/* expect_nofault()'s ret when no single one is right */
#define NF_FAILS	LLONG_MIN	/* -EFAULT or -ERANGE, nothing read */
#define NF_ANY		(LLONG_MIN + 1)	/* that, or read whatever is there */
#define NF_KERNEL	(LLONG_MIN + 2)	/* read whatever is there, or -EFAULT */

static void expect_nofault(struct setfs_ctl_nofault *nf, long *hret)
{
	unsigned long long magic = SETFS_NF_MAGIC, v = 0;

	*hret = 0;
	if (nf->target > SETFS_NF_ADDR || nf->op > SETFS_NF_COPY ||
	    (nf->op == SETFS_NF_COPY && (!nf->size || nf->size > 8))) {
		*hret = -EINVAL;
		return;
	}
	if (nf->target == SETFS_NF_GLOBAL) {
		memcpy(&v, &magic, nf->op == SETFS_NF_COPY ? nf->size : 8);
		nf->ret = 0;
		nf->value = v;
	} else if (nf->target == SETFS_NF_ADDR && nf->addr >= fz.kbuf &&
		   nf->addr + 8 <= fz.kbuf + fz.kbuf_size) {
		fill_pattern((unsigned char *)&v, nf->op == SETFS_NF_COPY ?
			     nf->size : 8, nf->addr - fz.kbuf);
		nf->ret = 0;
		nf->value = v;
	} else if (fz.nf_overlap && nf->target != SETFS_NF_VMALLOC_GUARD) {
		/* s390: the kernel reads the address as its own, maybe mapped */
		nf->ret = NF_ANY;
		nf->value = 0;
	} else if (fz.nf_top_allowed && nf->target == SETFS_NF_ADDR &&
		   nf->addr >= fz.top && nf->addr + 8 <= 0x100000000ULL) {
		/*
		 * arm (32-bit): TASK_SIZE and up is kernel space (modules),
		 * allowed, maybe mapped: read, or fault; never -ERANGE.
		 */
		nf->ret = NF_KERNEL;
		nf->value = 0;
	} else {
		nf->ret = NF_FAILS;	/* -EFAULT or -ERANGE, per arch */
		nf->value = 0;
	}
}

/* A uaccess op's result that is not the one expected (@expect says what). */
static bool ua_fail(const struct fop *o, const union ctl_args *got,
		    const char *expect)
{
	return fz_fail(o, "uaccess op %llu size %llu at 0x%llx: ret %lld, expected %s",
		       (unsigned long long)got->ua.op,
		       (unsigned long long)got->ua.size,
		       (unsigned long long)got->ua.addr,
		       (long long)got->ua.ret, expect);
}

static bool check_ctl_out(const struct fop *o, enum ctl_what w,
			  const union ctl_args *got, const union ctl_args *want,
			  const struct fbuf *b)
{
	char expect[96];

	switch (w) {
	case CTL_INFO:
		if (got->info.size != fz.size || got->info.page_size != fz.page ||
		    got->info.task_size_max != fz.top ||
		    got->info.kbuf_addr != fz.kbuf)
			return fz_fail(o, "SETFS_IOC_INFO reports other constants");
		if (got->info.store_sum != setfs_checksum(fz.store, fz.size))
			return fz_fail(o, "store checksum 0x%llx, the model's 0x%llx",
				       (unsigned long long)got->info.store_sum,
				       (unsigned long long)setfs_checksum(fz.store, fz.size));
		return true;
	case CTL_KREAD:
	case CTL_KWRITE:
		if (got->rw.ret != want->rw.ret || got->rw.pos != want->rw.pos ||
		    got->rw.open_ret != want->rw.open_ret)
			return fz_fail(o,
			       "ret %lld pos %lld open_ret %lld, expected %lld %lld %lld",
				       (long long)got->rw.ret, (long long)got->rw.pos,
				       (long long)got->rw.open_ret,
				       (long long)want->rw.ret, (long long)want->rw.pos,
				       (long long)want->rw.open_ret);
		if (w == CTL_KREAD && got->rw.ret > 0 && b->kind == B_GOOD)
			return check_bytes(o, (void *)b->addr, got->rw.pos -
					   got->rw.ret, got->rw.ret);
		return true;
	case CTL_UACCESS:
		if (want->ua.ret == UA_RANGE) {
			/*
			 * Bytes not cleared or copied, an unsigned long in
			 * ret: clear_user() anything up to the size (arm's
			 * returns it on any fault), a copy up to
			 * uaccess_slack() more than the truth.  The fuzz
			 * lets a copy store nothing within the slack, to go on
			 * with the ops after it; the uaccess and file cases
			 * do not.
			 */
			unsigned long long left = got->ua.ret, n, i;
			unsigned long long hi = got->ua.size;

			if (got->ua.op != SETFS_UA_CLEAR_USER &&
			    want->ua.value + uaccess_slack() < hi)
				hi = want->ua.value + uaccess_slack();
			n = got->ua.size - left;
			if (left < want->ua.value || left > hi) {
				snprintf(expect, sizeof(expect), "%llu..%llu",
					 (unsigned long long)want->ua.value, hi);
				return ua_fail(o, got, expect);
			}
			for (i = 0; got->ua.op == SETFS_UA_CLEAR_USER && i < n; i++)
				if (((unsigned char *)(unsigned long)got->ua.addr)[i])
					return fz_fail(o,
					       "clear_user says it cleared %llu bytes, byte %llu is not 0",
						       n, i);
			return true;
		}
		if (want->ua.ret == UA_ANY ?
		    !(got->ua.ret == -EFAULT ||
		      (got->ua.ret >= 0 && (unsigned long long)got->ua.ret <= got->ua.size)) :
		    got->ua.ret != want->ua.ret) {
			if (want->ua.ret == UA_ANY)
				snprintf(expect, sizeof(expect), "-EFAULT or 0..size");
			else
				snprintf(expect, sizeof(expect), "%lld%s",
					 (long long)want->ua.ret,
					 got->ua.op == SETFS_UA_COPY_FROM_USER &&
					 fz.masked_copy ?
					 " (copy_from_user() masks the address)" :
					 "");
			return ua_fail(o, got, expect);
		}
		return true;
	case CTL_NOFAULT:
		if (want->nf.ret == NF_KERNEL ?
		    !(got->nf.ret == 0 ||
		      (got->nf.ret == -EFAULT && !got->nf.value)) :
		    want->nf.ret == NF_FAILS || want->nf.ret == NF_ANY ?
		    !((got->nf.ret == -EFAULT || got->nf.ret == -ERANGE) &&
		      !got->nf.value) &&
		    !(want->nf.ret == NF_ANY && !got->nf.ret) :
		    got->nf.ret != want->nf.ret || got->nf.value != want->nf.value)
			return fz_fail(o,
			       "nofault op %llu target %llu at 0x%llx: ret %lld value 0x%llx, expected %lld 0x%llx",
				       (unsigned long long)got->nf.op,
				       (unsigned long long)got->nf.target,
				       (unsigned long long)got->nf.addr,
				       (long long)got->nf.ret,
				       (unsigned long long)got->nf.value,
				       (long long)want->nf.ret,
				       (unsigned long long)want->nf.value);
		return true;
	default:
		return true;
	}
}

/* An address for the uaccess and nofault helpers: never the heap. */
static struct fbuf pick_ua_target(void)
{
	struct fbuf b;

	do {
		b = pick_buf();
	} while (b.kind == B_GOOD);
	return b;
}

/*
 * The control device (ctl.c): unknown commands ENOTTY; the structure is
 * copied in (EFAULT), the handler runs (its -errno), the structure is
 * copied out (EFAULT, after the handler did its work: a read-only
 * structure still gets a KERNEL_WRITE stored).
 */
static bool fz_ctl_op(struct fop *o)
{
	static const unsigned long cmds[] = {
		SETFS_IOC_INFO, SETFS_IOC_KERNEL_READ, SETFS_IOC_KERNEL_WRITE,
		SETFS_IOC_UACCESS, SETFS_IOC_NOFAULT,
	};
	union ctl_args in, want, *arg;
	enum arg_kind ak;
	struct fbuf b = { 0 };
	struct fexp e;
	unsigned long addr;
	long long ret;
	long hret = 0;
	int path = 0, err;
	size_t sz;

	o->ctl_what = rnd_below(6);
	if (o->ctl_what == CTL_UNKNOWN) {
		do {
			o->cmd = random_cmd();
		} while (is_ctl_cmd(o->cmd));
	} else {
		o->cmd = cmds[o->ctl_what];
	}
	sz = _IOC_SIZE(o->cmd);
	memset(&in, 0, sizeof(in));
	switch (o->ctl_what) {
	case CTL_KREAD:
	case CTL_KWRITE:
		path = rnd_below(ARRAY_SIZE(kpaths));
		if (kpaths[path])
			strcpy(in.rw.path, kpaths[path]);
		else
			memset(in.rw.path, 'a', sizeof(in.rw.path));
		b = pick_buf();
		in.rw.buf = b.addr;
		in.rw.count = rnd_below(3) ? rnd_below(2 * fz.page) :
			      pick_count();
		in.rw.pos = pick_pos();
		if (o->ctl_what == CTL_KWRITE && b.kind == B_GOOD)
			fz.good[rnd_below(fz.size)] = rnd();
		o->buf = b;
		o->count = in.rw.count;
		o->pos = in.rw.pos;
		break;
	case CTL_UACCESS:
		b = pick_ua_target();
		in.ua.op = rnd_below(8);
		in.ua.addr = b.addr;
		in.ua.size = rnd_below(3) ? rnd_below(80) : pick_count();
		in.ua.value = rnd();
		o->buf = b;
		o->count = in.ua.size;
		break;
	case CTL_NOFAULT:
		in.nf.op = rnd_below(3);
		in.nf.target = rnd_below(5);
		in.nf.size = rnd_below(10);
		if (rnd_below(2)) {
			in.nf.addr = fz.kbuf + rnd_below(fz.kbuf_size - 7);
		} else {
			b = pick_ua_target();
			in.nf.addr = b.kind == B_KERNEL ? 0 : b.addr;
		}
		break;
	default:
		break;
	}
	want = in;
	switch (o->ctl_what) {
	case CTL_KREAD:
	case CTL_KWRITE:
		expect_kernel_rw(&want.rw, o->ctl_what == CTL_KWRITE, path, &b,
				 &hret);
		break;
	case CTL_UACCESS:
		expect_uaccess(&want.ua, &b, &hret);
		break;
	case CTL_NOFAULT:
		expect_nofault(&want.nf, &hret);
		break;
	default:
		break;
	}

	/* Where the structure goes. */
	ak = o->ctl_what == CTL_UNKNOWN ? ARG_GOOD : rnd_below(10) < 7 ?
	     ARG_GOOD : (enum arg_kind)(1 + rnd_below(3));
	switch (ak) {
	case ARG_RO:
		if (mprotect(fz.ro, fz.page, PROT_READ | PROT_WRITE))
			return fz_fail(o, "mprotect: %s", strerror(errno));
		memcpy(fz.ro, &in, sizeof(in));
		mprotect(fz.ro, fz.page, PROT_READ);
		addr = (unsigned long)fz.ro;
		break;
	case ARG_STRADDLE:
		addr = (unsigned long)fz.edge - 1 - rnd_below(sz ? sz - 1 : 1);
		memcpy((void *)addr, &in, fz.edge - (unsigned char *)addr);
		break;
	case ARG_BAD:
		addr = rnd_below(2) ? fz.kbuf : (unsigned long)fz.unmapped;
		break;
	default:
		arg = (union ctl_args *)fz.scratch;
		*arg = in;
		addr = (unsigned long)arg;
		break;
	}
	o->off_addr = addr;
	o->off = (enum off_kind)ak;

	if (o->ctl_what == CTL_UNKNOWN) {
		e = fail1(ENOTTY);
	} else if (ak == ARG_BAD ||
		   (ak == ARG_STRADDLE && (_IOC_DIR(o->cmd) & _IOC_WRITE))) {
		e = fail1(EFAULT);	/* copy_from_user() of the structure */
		hret = 0;
		o->ctl_what = -o->ctl_what - 1;	/* the handler did not run */
	} else if (hret) {
		e = fail1(-hret);
	} else if (ak != ARG_GOOD) {
		e = fail1(EFAULT);	/* copy_to_user() of the structure */
	} else {
		e = ok_n(0);
	}
	errno = 0;
	ret = ioctl(fz.fd[2], o->cmd, addr);
	err = errno;
	if (!check_result(o, &e, ret, err))
		return false;
	/* The handler ran: a kernel write stored its bytes. */
	if (o->ctl_what == CTL_KWRITE && !hret && want.rw.ret > 0)
		memcpy(fz.store + in.rw.pos, (void *)b.addr, want.rw.ret);
	if (ret == 0 && ak == ARG_GOOD)
		return check_ctl_out(o, o->ctl_what, (union ctl_args *)addr,
				     &want, &b);
	return true;
}

/* ---------------------------------------------------------------- cases */

static bool fz_one(unsigned long long n, unsigned int fl)
{
	struct fop o = { .n = n };

	if (fl & F_CTL) {
		o.op = OP_IOCTL;
		o.fdi = 2;
		fz.cur = &o;
		return fz_ctl_op(&o);
	}
	o.op = rnd_below(OP_NOPS);
	o.fdi = rnd_below(3);
	o.fpos = fz.fpos[o.fdi];
	fz.cur = &o;
	switch (o.op) {
	case OP_READ:
	case OP_PREAD:
	case OP_READV:
	case OP_PREADV2:
		return fz_read(&o, fl);
	case OP_WRITE:
	case OP_PWRITE:
		return fz_write(&o, fl);
	case OP_LSEEK:
		return fz_lseek(&o);
	case OP_SPLICE_IN:
		return fz_splice_in(&o, fl);
	case OP_SPLICE_OUT:
		return fz_splice_out(&o);
	case OP_SENDFILE:
		return fz_sendfile(&o, fl);
	case OP_TEE:
		return fz_tee(&o, fl);
	default:
		return fz_ioctl_file(&o, fl);
	}
}

static void fz_close_fds(void)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (fz.fd[i] >= 0)
			close(fz.fd[i]);
		fz.fd[i] = -1;
	}
}

/* The store as the module reports it, against the model. */
static bool fz_check_store(void)
{
	struct setfs_ctl_info info;

	if (!ctl_info(&info))
		return false;
	return check_hex("store checksum against the model", info.store_sum,
			 setfs_checksum(fz.store, fz.size));
}

static enum case_result run_fuzz_row(const void *data)
{
	static const int modes[3] = { O_RDONLY, O_WRONLY, O_RDWR };
	const struct fuzz_row *r = data;
	enum case_result res = CASE_FAIL;
	unsigned long long i, seed;
	double t0;
	int m;

	if (r->flags & F_LEGACY) {
		res = proc_legacy_state();
		if (res != CASE_PASS)
			return res;
		res = CASE_FAIL;
	}
	/* Each case its own stream: replay one without the others. */
	seed = fz.seed ^ (0x9e3779b97f4a7c15ULL * (r - fuzz_rows + 1));
	fz.rng = seed;
	fz.fails = 0;
	fz.row = r;
	fz.cur = NULL;
	if (!store_restore())
		return CASE_FAIL;
	fill_pattern(fz.store, fz.size, 0);
	for (m = 0; m < 3; m++) {
		fz.fpos[m] = 0;
		fz.fd[m] = (r->flags & F_CTL) && m != 2 ? -1 :
			   open_path(r->path, modes[m] | O_CLOEXEC);
		if (fz.fd[m] < 0 && (!(r->flags & F_CTL) || m == 2))
			goto out;
	}
	printf("    # fuzz: seed=0x%llx ops=%llu file=%s\n", fz.seed, fz.ops,
	       r->path);
	diag("fuzz model: copy_from_user() %s; readv: %s; one iovec: %s",
	     fz.masked_copy ? "masks the address" : "asks access_ok()",
	     fz.readv_mode_first ? "mode first" : "iovecs first",
	     fz.iov_ubuf ? "ITER_UBUF, clamped, then access_ok()" :
	     "ITER_IOVEC, access_ok() of all of it");
	diag("fuzz model: splice(2) verifies %s; a len of 0 %s; preadv2 RWF_NOAPPEND: %s",
	     fz.splice_whole ? "the whole len" : "the clamped len",
	     fz.splice_len0 ? "is 0" : "needs ->splice_read",
	     fz.rwf_read & K_RWF_NOAPPEND ? "taken" : "EOPNOTSUPP");
	watchdog_arm(60 + fz.ops / 1000, r->name, fz_describe_current);
	t0 = now_seconds();
	for (i = 0; i < fz.ops; i++)
		if (!fz_one(i, r->flags))
			break;
	watchdog_disarm();
	fz.cur = NULL;
	diag("fuzz %s: %llu of %llu operations as predicted in %.2f s",
	     r->name, i, fz.ops, now_seconds() - t0);
	if (i == fz.ops && fz_check_store())
		res = CASE_PASS;
	else if (i == fz.ops)
		diag("fuzz %s: seed=0x%llx: the store differs from the model",
		     r->name, fz.seed);
out:
	fz_close_fds();
	if (!store_restore())
		res = CASE_FAIL;
	return res;
}

static void *map_pages(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static const char *fuzz_setup(void)
{
	struct setfs_ctl_info info;
	size_t i, span;
	void *p;
	long long offs[] = { 0, 1, -1, LLONG_MAX, LLONG_MIN, 0, 0, 0 };

	fz.seed = option_ull("fuzz_seed", FUZZ_SEED);
	fz.ops = option_ull("fuzz_ops", FUZZ_OPS);
	if (!ctl_info(&info))
		return "SETFS_IOC_INFO failed";
	fz.size = info.size;
	fz.page = info.page_size;
	fz.top = info.task_size_max;
	fz.kbuf = info.kbuf_addr;
	fz.kbuf_size = info.kbuf_size;
	fz.masked_copy = info.flags & SETFS_INFO_MASKED_USER_COPY;
	fz.nf_overlap = info.flags & SETFS_INFO_SEPARATE_USER_SPACE;
	fz.nf_top_allowed = info.flags & SETFS_INFO_NF_TOP_ALLOWED;
	fz.access_ok_all = info.flags & SETFS_INFO_ACCESS_OK_ALL;
	/*
	 * What no header or SETFS_IOC_INFO fact tells, by the release:
	 * b8e1425bae85 ("fs: move permission hook out of do_iter_read()"),
	 * 6.8: vfs_readv() checks FMODE_READ before import_iovec().
	 */
	fz.readv_mode_first = kernel_at_least(6, 8);
	/*
	 * 3b2deb0e46da ("iov_iter: import single vector iovecs as
	 * ITER_UBUF"), 6.4: one iovec goes through import_ubuf().
	 */
	fz.iov_ubuf = kernel_at_least(6, 4);
	/*
	 * b70d8e2b8ce5 ("splice: move permission hook out of
	 * splice_file_to_pipe()"), 6.8: do_splice() verifies len before
	 * do_splice_read() clamps it.
	 */
	fz.splice_whole = kernel_at_least(6, 8);
	/*
	 * "splice: Check for zero count in vfs_splice_read()" (David
	 * Howells), 6.5: sendfile(2) of 0 bytes from a file without
	 * ->splice_read returns 0 where 6.1 says EINVAL.
	 */
	fz.splice_len0 = kernel_at_least(6, 5);
	/*
	 * 73fa7547c70b ("vfs: add RWF_NOAPPEND flag for pwritev2"), 6.9:
	 * RWF_SUPPORTED takes RWF_NOAPPEND, reads too.  RWF_ATOMIC is
	 * EOPNOTSUPP on a read everywhere: unknown before c34fc6f26ab8
	 * ("fs: Initial atomic write support"), 6.11, refused for reads
	 * since.
	 */
	fz.rwf_read = K_RWF_SUPPORTED |
		      (kernel_at_least(6, 9) ? K_RWF_NOAPPEND : 0);
	offs[5] = fz.size;
	offs[6] = fz.size - 1;
	offs[7] = fz.page + 1;
	span = (fz.size + 2 * fz.page) & ~(fz.page - 1);

	fz.pattern = malloc(span);
	fz.good_len = span + 64;
	fz.good = malloc(fz.good_len);
	fz.store = malloc(fz.size);
	fz.scratch = malloc(K_PIPE_SLOTS * fz.page + span);
	fz.iov = calloc(3, sizeof(*fz.iov));
	fz.offp = malloc(sizeof(*fz.offp));
	if (!fz.pattern || !fz.good || !fz.store || !fz.scratch || !fz.iov ||
	    !fz.offp)
		return "out of memory";
	fill_pattern(fz.pattern, span, 0);
	for (i = 0; i < fz.good_len; i++)
		fz.good[i] = rnd();

	/* Read-only: random bytes, then the loff_t values splice reads. */
	fz.ro_len = span;
	fz.ro = map_pages(span + fz.page, PROT_READ | PROT_WRITE);
	if (!fz.ro)
		return "mmap failed";
	for (i = 0; i < span; i++)
		fz.ro[i] = rnd();
	fz.ro_offs = (long long *)(fz.ro + span);
	fz.n_ro_offs = ARRAY_SIZE(offs);
	memcpy(fz.ro_offs, offs, sizeof(offs));
	if (mprotect(fz.ro, span + fz.page, PROT_READ))
		return "mprotect failed";
	fz.ro_len = span + fz.page;

	/* span bytes before an unmapped page, which is the unmapped buffer. */
	p = map_pages(span + fz.page, PROT_READ | PROT_WRITE);
	if (!p)
		return "mmap failed";
	fz.edge = (unsigned char *)p + span;
	fz.edge_len = span;
	munmap(fz.edge, fz.page);
	fz.unmapped = fz.edge;
	for (i = 0; i < span; i++)
		fz.edge[(long)i - (long)span] = rnd();

	p = mmap((void *)(fz.top - fz.page), fz.page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	fz.top_page = p == (void *)(fz.top - fz.page) ? p : NULL;
	if (!fz.top_page) {
		printf("    # fuzz: the page below TASK_SIZE_MAX is taken: %s\n",
		       "using the edge buffer instead");
		if (p != MAP_FAILED)
			munmap(p, fz.page);
	}

	if (pipe(fz.p) || pipe(fz.q))
		return "pipe failed";
	for (i = 0; i < 3; i++)
		fz.fd[i] = -1;
	return NULL;
}

static void fuzz_teardown(void)
{
	size_t span = (fz.size + 2 * fz.page) & ~(fz.page - 1);

	if (fz.top_page)
		munmap(fz.top_page, fz.page);
	munmap(fz.ro, span + fz.page);
	munmap(fz.edge - span, span);
	close(fz.p[0]);
	close(fz.p[1]);
	close(fz.q[0]);
	close(fz.q[1]);
	free(fz.pattern);
	free(fz.good);
	free(fz.store);
	free(fz.scratch);
	free(fz.iov);
	free(fz.offp);
}

KTAP_GROUP(fuzz_group) = {
	.name = "setfs_user_fuzz",
	.order = 150,
	KTAP_TABLES(KTAP_TABLE(fuzz_rows, run_fuzz_row)),
	.setup = fuzz_setup,
	.teardown = fuzz_teardown,
};
