// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_edges: every converted proc file present in the guest, read
 * at hostile edges.  The files are those of setfs_user_procfiles (part 1
 * of kernel-patches/, its table), of setfs_user_procread (part 2, the
 * hand-written ->proc_read methods) and the ALSA text entries; the edges
 * are one table; the cases are their product, "edges.<file>.<edge>".
 *
 * What each read must give comes from the file, not from a list of
 * results: the group takes the file's bytes by sequential read(2) first,
 * then a read of n bytes at offset off must give content[off, off + n)
 * (0 at and past the end), a vector must scatter those bytes over its
 * segments in order, a buffer the kernel cannot write gives EFAULT, or a
 * short count when some bytes went in, and leaves the file position
 * alone.  The system call's own checks come first (fs/read_write.c of
 * 6.1): a negative offset is EINVAL, pread on a stream is ESPIPE, an
 * offset plus a count beyond LLONG_MAX is EINVAL (rw_verify_area()).
 *
 * IORING_OP_READ and IORING_OP_READV at the file position must give what
 * read(2) and readv(2) give (not for /proc/kmsg, which io_uring waits for
 * with poll: setfs_user_iouring).  Each vector row on a file with fixed
 * bytes prints its result ("vector FILE.EDGE RESULT") for comparing two
 * kernels line by line.
 *
 * A kernel whose struct proc_ops still has ->proc_read (Debian's, the
 * "before" side) reads part 1 files through seq_read() and part 2 files
 * through their ->proc_read, and some of those differ by design; each
 * such difference is in model() with the line of 6.1 that makes it.
 *
 * Files whose bytes change from one read to the next (slabinfo, PSI,
 * snmp, the kpage* records, the profile counters, the time in systemcfg)
 * are compared in their stable leading bytes only, and by count where
 * their size is fixed.  /proc/kmsg consumes what it returns and ignores
 * the offset: the group empties the log (O_NONBLOCK) before every case,
 * and then either reads it empty ("kmsg_empty": EAGAIN) or with one
 * record it wrote to /dev/kmsg ("kmsg"), whose bytes it knows but for
 * the time stamp's digits.
 *
 * Not here: the kfifo samples (loaded by setfs_user_procread only), the
 * ALSA binary entries (no driver in the guests has one), the RTAS flash
 * and error_log files of ppc64le (record files whose reads wait or need
 * a whole record; setfs_user_procread checks them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "setfs_user.h"

#define COUNT		64		/* bytes of the pread and read edges */
#define HUGE_COUNT	(1024UL * 1024 * 1024)
#define CONTENT_MAX	(64UL << 20)	/* more than /proc/profile */
#define FAR_OFFSET	(1024LL * 1024)	/* past the end of every changing file */
#define CANARY		0xa5
#define STRADDLE	16		/* bytes mapped before the hole */
#define MAX_FILES	128
#define ROW_TIMEOUT	20		/* seconds before SIGALRM ends a read */
#define ALL		SIZE_MAX

/* How a file reads. */
enum kind {
	K_SEQ,		/* seq_file: short reads allowed, at least one byte */
	K_BLOB,		/* all that is asked for, up to the end */
	K_KPAGE,	/* K_BLOB in 8-byte records (fs/proc/page.c) */
	K_STREAM,	/* nonseekable_open(): no pread */
	K_KMSG,		/* /proc/kmsg with O_NONBLOCK and an empty log */
	K_KMSG_REC,	/* the same with one record */
};

struct edge_file {
	char name[64];
	char path[128];
	enum kind kind;
	bool legacy;		/* read through struct proc_ops ->proc_read */
	/*
	 * A vector is read one call per segment: ->proc_read
	 * (do_loop_readv_writev()), and with the 6.12 series every
	 * converted file but /proc/config.gz (no PROC_ENTRY_ITER_WHOLE)
	 */
	bool seg_vector;
	bool pci;		/* proc_bus_pci_read(): see model() */
	bool narrows;		/* part2_file.narrows */
	bool fixed;		/* the size does not change */
	bool may_be_empty;
	size_t stable;		/* leading bytes that do not change */
	/* Not present: how to find out again why (a skip or a failure). */
	const struct procfile_row *row;
	const char *sym;
	bool absent;
	/* The bytes by sequential read(2), at first use. */
	unsigned char *data;
	size_t size;
	bool loaded;
	bool load_failed;
	double seconds;		/* spent in its cases */
};

/* ------------------------------------------------------------- the edges */

/*
 * OP_URING_READ and OP_URING_READV: IORING_OP_READ/READV at the file
 * position, which must give what read(2)/readv(2) give (io_uring reads a
 * converted file from its worker, as it read the ->proc_read file).
 */
enum op { OP_PREAD, OP_READ, OP_READV, OP_PREADV2, OP_URING_READ,
	  OP_URING_READV };

enum buf {
	BUF_GOOD,
	BUF_NULL,
	BUF_UNMAPPED,	/* a page unmapped again */
	BUF_READONLY,	/* a PROT_READ page */
	BUF_STRADDLE,	/* STRADDLE bytes before an unmapped page */
	BUF_HUGE,	/* HUGE_COUNT bytes of MAP_NORESERVE */
};

enum off_base { OFF_ABS, OFF_SIZE };

/* A segment of a vector: its length, and whether it is NULL. */
struct seg {
	size_t len;
	bool null;
};

#define SEGS_MAX	1024

struct edge {
	const char *name;
	enum op op;
	enum off_base base;
	long long off;		/* OFF_SIZE: added to the size */
	size_t count;		/* OP_PREAD, OP_READ */
	enum buf buf;
	const struct seg *segs;	/* OP_READV, OP_PREADV2; NULL: seg1024 */
	unsigned int nsegs;
	int flags;		/* OP_PREADV2 */
};

#define SEG(n)		{ .len = (n) }

static const struct seg seg64[] = { SEG(64) };
static const struct seg seg13_51[] = { SEG(13), SEG(51) };
static const struct seg seg0_64[] = { SEG(0), SEG(64) };
/* three segments, one empty, that split any record of 8 bytes */
static const struct seg seg7_0_57[] = { SEG(7), SEG(0), SEG(57) };
static const struct seg seg32_32[] = { SEG(32), SEG(32) };
static const struct seg seg_bad[] = { SEG(16), { .len = 16, .null = true }, SEG(32) };
/* Filled in by the setup: 0, 1, 2, 5 over and over (2048 bytes). */
static struct seg seg1024[SEGS_MAX];

#define PREAD(n, o) \
	{ .name = n, .op = OP_PREAD, .off = (o), .count = COUNT }
#define PREAD_S(n, o) \
	{ .name = n, .op = OP_PREAD, .base = OFF_SIZE, .off = (o), .count = COUNT }
#define READ(n, c, b) \
	{ .name = n, .op = OP_READ, .count = (c), .buf = (b) }
#define READV(n, s) \
	{ .name = n, .op = OP_READV, .segs = (s), \
	  .nsegs = sizeof(s) / sizeof((s)[0]) }
#define READV1024(n, o, f) \
	{ .name = n, .op = (o), .off = 8, .nsegs = SEGS_MAX, .flags = (f) }
#define URING_READ(n, c) \
	{ .name = n, .op = OP_URING_READ, .count = (c), .buf = BUF_GOOD }
#define URING_READV(n, s) \
	{ .name = n, .op = OP_URING_READV, .segs = (s), \
	  .nsegs = sizeof(s) / sizeof((s)[0]) }
#define PREADV2(n, o, s, f) \
	{ .name = n, .op = OP_PREADV2, .off = (o), .segs = (s), \
	  .nsegs = sizeof(s) / sizeof((s)[0]), .flags = (f) }

/*
 * A RWF_* bit no kernel defines (0x40 is RWF_ATOMIC from 6.11 on):
 * EOPNOTSUPP everywhere.
 */
#define RWF_UNKNOWN	0x40000000	/* bit 30 */

static const struct edge edges[] = {
	PREAD("pread_0", 0),
	PREAD_S("pread_size_m1", -1),
	PREAD_S("pread_size", 0),
	PREAD("pread_2p31_m1", (1LL << 31) - 1),
	PREAD("pread_2p31", 1LL << 31),
	PREAD("pread_2p32", 1LL << 32),
	PREAD("pread_2p63_m1", LLONG_MAX),
	PREAD("pread_llmax_m_count", LLONG_MAX - COUNT),
	PREAD("pread_neg", -1),
	READ("count_0", 0, BUF_GOOD),
	READ("count_1", 1, BUF_GOOD),
	READ("count_huge", HUGE_COUNT, BUF_HUGE),
	READV("readv_1", seg64),
	READV("readv_2", seg13_51),
	READV("readv_2_zero", seg0_64),
	READV("readv_3", seg7_0_57),
	READV1024("readv_1024", OP_READV, 0),
	PREADV2("preadv2_1", 8, seg64, 0),
	READV1024("preadv2_1024", OP_PREADV2, 0),
	PREADV2("preadv2_pos", -1, seg13_51, 0),
	PREADV2("preadv2_dsync", 8, seg32_32, RWF_DSYNC),
	PREADV2("preadv2_hipri", 8, seg32_32, RWF_HIPRI),
	PREADV2("preadv2_append", 8, seg32_32, RWF_APPEND),
	PREADV2("preadv2_nowait", 8, seg32_32, RWF_NOWAIT),
	PREADV2("preadv2_unknown", 8, seg32_32, RWF_UNKNOWN),
	READ("buf_null", COUNT, BUF_NULL),
	READ("buf_unmapped", COUNT, BUF_UNMAPPED),
	READ("buf_readonly", COUNT, BUF_READONLY),
	READ("buf_straddle", COUNT, BUF_STRADDLE),
	READV("readv_bad_seg", seg_bad),
	URING_READ("uring_read", COUNT),
	URING_READV("uring_readv_2", seg13_51),
	URING_READV("uring_readv_3", seg7_0_57),
};

/* ------------------------------------------------------------- the files */

/*
 * Part 2: the files of setfs_user_procread, with what their source says
 * about them.  A glob may match several files (one per cache).
 */
struct part2_file {
	const char *name;	/* NULL: from the path */
	const char *glob;
	const char *sym;	/* CONFIG_<sym> creates it */
	enum kind kind;
	bool fixed;
	size_t stable;
	bool narrows;	/* the ->proc_read narrows *ppos: see model() */
};

static const struct part2_file part2_files[] = {
	/* kernel/configs.c: the gzip image, simple_read_from_buffer() */
	{ "config_gz", "/proc/config.gz", "IKCONFIG_PROC", K_BLOB,
	  true, ALL, false },
	/* fs/proc/page.c: one u64 per PFN up to get_max_dump_pfn() */
	{ "kpagecount", "/proc/kpagecount", "PROC_PAGE_MONITOR",
	  K_KPAGE, true, 0, true },
	{ "kpageflags", "/proc/kpageflags", "PROC_PAGE_MONITOR",
	  K_KPAGE, true, 0, true },
	{ "kpagecgroup", "/proc/kpagecgroup", "MEMCG", K_KPAGE, true,
	  0, true },
	/* fs/proc/kmsg.c, kernel/printk/printk.c: syslog_print() */
	{ "kmsg_empty", "/proc/kmsg", NULL, K_KMSG, true, 0, false },
	{ "kmsg", "/proc/kmsg", NULL, K_KMSG_REC, true, ALL,
	  false },
	/* kernel/profile.c: the sample step, then counters that tick */
	{ "profile", "/proc/profile", "PROFILING", K_BLOB, true,
	  sizeof(unsigned int), true },
	/* net/sunrpc/cache.c: no upcall pending, so empty; and "%llu\n" */
	{ NULL, "/proc/net/rpc/*/channel", "SUNRPC", K_STREAM, true,
	  ALL, false },
	{ NULL, "/proc/net/rpc/*/flush", "SUNRPC", K_STREAM, true,
	  ALL, false },
	/* net/sunrpc/auth_gss/svcauth_gss.c: "%d\n" */
	{ "rpc_use_gss_proxy", "/proc/net/rpc/use-gss-proxy", "SUNRPC_GSS",
	  K_STREAM, true, ALL, false },
	/* fs/lockd/procfs.c: "Y\n" and the NUL */
	{ "lockd_nlm_end_grace", "/proc/fs/lockd/nlm_end_grace", "LOCKD",
	  K_BLOB, true, ALL, false },
	/* arch/powerpc/kernel/proc_powerpc.c: the vDSO data page */
	{ "ppc64_systemcfg", "/proc/ppc64/systemcfg", "PPC64", K_BLOB,
	  true, 0x30, false },
};

static struct edge_file *files;
static unsigned int nfiles;

/* The cases: a file and an edge (NULL: the file is not here). */
struct edge_row {
	const char *name;
	struct edge_file *file;
	const struct edge *edge;
};

static struct edge_row *rows;
static unsigned int nrows;
static struct ktap_table edges_tables[1];

static bool have_proc_read;	/* SETFS_INFO_PROC_OPS_READ */
/* /proc/kmsg: whether EFAULT leaves the record in the log (see above) */
static bool kmsg_kept_on_efault;
static double started;
static size_t page_size;
static unsigned char *good;	/* the buffer of the good reads */
static size_t good_size;
static unsigned char *hole;	/* a page, then an unmapped one */
static unsigned char *ro_page;
/*
 * BUF_HUGE: mapped once, at setup.  A mapping per case fails on 32-bit
 * user space after a few dozen files: the files' buffers land in the
 * hole each munmap() leaves, and no gigabyte of addresses stays free.
 */
static unsigned char *huge;

/* @s with every run of characters other than [a-z0-9] made one '_'. */
static void ktap_word(char *out, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++) {
		char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			out[n++] = c;
		else if (c >= 'A' && c <= 'Z')
			out[n++] = c - 'A' + 'a';
		else if (n && out[n - 1] != '_')
			out[n++] = '_';
	}
	while (n && out[n - 1] == '_')
		n--;
	out[n] = '\0';
}

static struct edge_file *add_file(const char *name, const char *path,
				  enum kind kind, bool legacy)
{
	struct edge_file *f;

	if (nfiles == MAX_FILES)
		return NULL;
	f = &files[nfiles++];
	memset(f, 0, sizeof(*f));
	ktap_word(f->name, sizeof(f->name), name);
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->kind = kind;
	f->legacy = legacy;
	f->seg_vector = legacy || proc_reads_as_read(path);
	f->fixed = true;
	f->stable = ALL;
	return f;
}

/* Part 1: the table of setfs_user_procfiles, read through seq_read_iter. */
static void add_part1(bool legacy)
{
	const struct procfile_row *r;
	struct edge_file *f;
	char path[128];
	unsigned int i;

	for (i = 0; i < procfile_nrows; i++) {
		r = &procfile_rows[i];
		f = add_file(r->name, "", K_SEQ, legacy);
		if (!f)
			return;
		if (procfile_locate(r, path, sizeof(path)) != CASE_PASS) {
			f->absent = true;
			f->row = r;
			continue;
		}
		snprintf(f->path, sizeof(f->path), "%s", path);
		f->fixed = r->stable;
		f->stable = r->stable ? ALL : 0;
		f->may_be_empty = r->may_be_empty;
	}
}

/*
 * The ALSA text entries (snd_info_text_entry_ops, converted by part 1).
 * The substreams of a PCM all have the same entries: sub0's stand for
 * the others.
 */
static void add_asound(bool legacy)
{
	struct asound_entry *paths = calloc(ASOUND_MAX, sizeof(*paths));
	const char *sub;
	int i, n = 0;

	if (!paths)
		return;
	asound_walk(ASOUND, paths, &n);
	for (i = 0; i < n; i++) {
		sub = strstr(paths[i].path, "/sub");
		if (sub && strncmp(sub, "/sub0/", 6))
			continue;
		add_file(paths[i].path + strlen("/proc/"), paths[i].path, K_SEQ, legacy);
	}
	free(paths);
}

static void add_part2(bool legacy)
{
	const struct part2_file *p;
	struct edge_file *f;
	enum case_result res;
	char name[128];
	glob_t g;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(part2_files); i++) {
		p = &part2_files[i];
		if (glob(p->glob, 0, NULL, &g)) {
			f = add_file(p->name ? p->name : p->glob + 6, p->glob,
				     p->kind, legacy);
			if (!f)
				return;
			f->absent = true;
			f->sym = p->sym;
			continue;
		}
		for (j = 0; j < g.gl_pathc; j++) {
			snprintf(name, sizeof(name), "%s",
				 p->name ? p->name : g.gl_pathv[j] + 6);
			f = add_file(name, g.gl_pathv[j], p->kind, legacy);
			if (!f)
				break;
			f->fixed = p->fixed;
			f->stable = p->stable;
			f->narrows = p->narrows;
		}
		globfree(&g);
	}
	/* drivers/pci/proc.c: one file per device, its config space. */
	{
		struct pci_dev devs[PCI_MAX_DEVICES];
		int k, n = pci_devices(devs, PCI_MAX_DEVICES, &res);

		if (!n) {
			f = add_file("pci", "/proc/bus/pci", K_BLOB, legacy);
			if (f) {
				f->absent = true;
				f->pci = true;
			}
		}
		for (k = 0; k < n; k++) {
			snprintf(name, sizeof(name), "pci_%s",
				 devs[k].proc + strlen("/proc/bus/pci/"));
			f = add_file(name, devs[k].proc, K_BLOB, legacy);
			if (f)
				f->pci = true;
		}
	}
}

/* ------------------------------------------------------------ the model */

/* What an edge must give: an errno, or a count in [lo, hi]. */
struct expect {
	int err;
	size_t lo, hi;
	bool or_efault;		/* a partial copy may also be EFAULT */
	long long data_off;	/* where the bytes come from */
	const char *why;	/* for the diagnostics */
};

static bool is_vector(const struct edge *e)
{
	return e->op == OP_READV || e->op == OP_PREADV2 ||
	       e->op == OP_URING_READV;
}

static const struct seg *edge_segs(const struct edge *e)
{
	return e->segs ? e->segs : seg1024;
}

static size_t edge_total(const struct edge *e)
{
	const struct seg *s = edge_segs(e);
	size_t i, total = 0;

	if (!is_vector(e))
		return e->count;
	for (i = 0; i < e->nsegs; i++)
		total += s[i].len;
	return total;
}

/* The bytes the buffer takes before the first one the kernel cannot write. */
static size_t edge_good_bytes(const struct edge *e)
{
	const struct seg *s = edge_segs(e);
	size_t i, n = 0;

	if (!is_vector(e)) {
		switch (e->buf) {
		case BUF_NULL:
		case BUF_UNMAPPED:
		case BUF_READONLY:
			return 0;
		case BUF_STRADDLE:
			return STRADDLE;
		default:
			return e->count;
		}
	}
	for (i = 0; i < e->nsegs && !s[i].null; i++)
		n += s[i].len;
	return n;
}

/* -1 for OP_READ and OP_READV, which read at the position of a fresh open. */
static long long edge_offset(const struct edge_file *f, const struct edge *e)
{
	if (e->op == OP_READ || e->op == OP_READV || e->op == OP_URING_READ ||
	    e->op == OP_URING_READV)
		return -1;
	if (e->base == OFF_SIZE)
		return (long long)f->size + e->off;
	return e->off;
}

static void expect_err(struct expect *x, int err, const char *why)
{
	x->err = err;
	x->why = why;
}

/*
 * fs/proc/page.c of 6.1, kpagecount_read() and its two siblings, line 57:
 * "if (src & KPMMASK || count & KPMMASK) return -EINVAL;" applies to the
 * count of one ->proc_read call, and do_loop_readv_writev()
 * (fs/read_write.c:743) makes one call per segment.  Returns the count
 * the vector reads before a segment that is not whole records, and
 * whether there is one.
 */
static bool legacy_kpage_vector(const struct edge *e, size_t avail,
				size_t *done)
{
	const struct seg *s = edge_segs(e);
	size_t i;

	*done = 0;
	for (i = 0; i < e->nsegs; i++) {
		if (s[i].len % 8)
			return true;
		if (s[i].len > avail - *done) {
			*done = avail;
			return false;
		}
		*done += s[i].len;
	}
	return false;
}

static void model(const struct edge_file *f, const struct edge *e,
		  struct expect *x)
{
	long long off = edge_offset(f, e);
	long long at = off < 0 ? 0 : off;
	size_t total = edge_total(e);
	size_t good_bytes = edge_good_bytes(e);
	size_t avail, want;

	memset(x, 0, sizeof(*x));
	x->data_off = at;

	/* The system calls: ksys_pread64(), do_preadv(), rw_verify_area(). */
	if (off < 0 && (e->op == OP_PREAD ||
			(e->op == OP_PREADV2 && off != -1)))
		return expect_err(x, EINVAL, "a negative offset");
	if (off >= 0 && f->kind == K_STREAM)
		return expect_err(x, ESPIPE, "pread on a nonseekable file");
	if (is_vector(e) && !total)
		return;	/* do_iter_read(): nothing to read, 0 */
	if ((unsigned long long)at + total > LLONG_MAX)
		return expect_err(x, EINVAL, "offset + count beyond LLONG_MAX");
	if (e->op == OP_PREADV2 && e->flags) {
		/*
		 * ->proc_read: do_loop_readv_writev() takes RWF_HIPRI only
		 * (fs/read_write.c:748); ->read_iter: kiocb_set_rw_flags()
		 * (include/linux/fs.h:3576) refuses unknown flags and
		 * RWF_NOWAIT without FMODE_NOWAIT, which no proc file has.
		 */
		if (f->legacy ? e->flags & ~RWF_HIPRI :
				e->flags & (RWF_NOWAIT | RWF_UNKNOWN))
			return expect_err(x, EOPNOTSUPP, "the RWF_ flags");
	}
	if (f->kind == K_KMSG)
		return expect_err(x, EAGAIN, "O_NONBLOCK and an empty log");
	if (f->kind == K_KMSG_REC) {
		/*
		 * kernel/printk/printk.c of 6.1, line 1673, in do_syslog():
		 * "if (!buf || len < 0) return -EINVAL;", and the record
		 * stays.  kmsg_read() reads from where the log is, whatever
		 * the offset.
		 */
		if (f->legacy && !is_vector(e) && e->buf == BUF_NULL)
			return expect_err(x, EINVAL, "do_syslog() refuses NULL");
		/*
		 * With the series, do_syslog_read_iter() refuses a buffer
		 * whose first byte cannot be written before anything is
		 * consumed (fault_in_iov_iter_writeable()): the record stays.
		 */
		kmsg_kept_on_efault = !f->legacy && !good_bytes;
		at = 0;
	}

	if (f->kind == K_KPAGE && at % 8)
		return expect_err(x, EINVAL, "an offset inside a record");
	if (f->kind == K_KPAGE && total % 8 && !(f->seg_vector && is_vector(e)))
		return expect_err(x, EINVAL, "a count of part of a record");

	/*
	 * drivers/pci/proc.c of 6.1, proc_bus_pci_read(), line 35:
	 * "unsigned int pos = *ppos;" reads offset 2^32 + n as n.
	 */
	if (f->legacy && f->pci)
		at = (unsigned int)at;
	/*
	 * fs/proc/page.c, kpagecount_read() and its two siblings, and
	 * kernel/profile.c, read_profile(): "unsigned long src = *ppos;"
	 * (and "p") narrow the position to 32 bits on a 32-bit kernel, so
	 * offset 2^32 + n reads n.  The series' conversions compare it as
	 * a loff_t first.  sizeof(long) here is the kernel's: the user
	 * binary is built for the guest's own word size.
	 */
	if (f->legacy && f->narrows && sizeof(long) < sizeof(long long))
		at = (unsigned long)at;
	x->data_off = at;
	/* as unsigned long long: size_t has 32 bits on 32-bit user space */
	avail = (unsigned long long)at >= f->size ? 0 : f->size - at;
	want = total < avail ? total : avail;
	if (f->kind == K_KPAGE && f->seg_vector && is_vector(e) &&
	    legacy_kpage_vector(e, avail, &want) && !want)
		return expect_err(x, EINVAL, "a segment of part of a record");
	x->lo = want;
	x->hi = want;
	if (!f->fixed) {
		/* The size changes: nothing past FAR_OFFSET, else up to total. */
		x->lo = 0;
		x->hi = at >= FAR_OFFSET ? 0 : total;
		if (at == 0 && total && !f->may_be_empty)
			x->lo = 1;
		want = x->hi;
	} else if (f->kind == K_SEQ && want) {
		x->lo = 1;	/* one seq_file buffer at a time */
	}
	x->why = "the file's bytes";

	if (want <= good_bytes)
		return;
	if (!x->lo) {
		x->or_efault = true;	/* maybe nothing to copy, maybe some */
		return;
	}
	if (f->legacy && f->pci) {
		/*
		 * drivers/pci/proc.c of 6.1, lines 70, 79, 88, 98 and 107:
		 * the results of __put_user() are ignored, and line 114
		 * returns the count it meant to copy.
		 */
		x->why = "legacy PCI ignores __put_user() failures";
	} else if (!good_bytes) {
		expect_err(x, EFAULT, "a buffer it cannot write");
	} else {
		/*
		 * Some bytes went in: their count, or EFAULT (fs/proc/page.c
		 * of 6.1, line 76, and kernel/profile.c, line 409, give
		 * EFAULT after a partial copy).  page.c, line 87, then moves
		 * *ppos past the records written, but ksys_read()
		 * (fs/read_write.c:614) stores the position only for a
		 * count: it stays.
		 */
		x->or_efault = true;
		x->lo = 1;
		x->hi = good_bytes < x->hi ? good_bytes : x->hi;
		x->why = "a copy cut short by the buffer";
	}
}

/* ---------------------------------------------------------- running one */

/* Reads all of @f into f->data, once. */
static bool load(struct edge_file *f)
{
	unsigned char *buf;
	ssize_t n;

	if (f->loaded || f->load_failed)
		return f->loaded;
	f->load_failed = true;
	if (f->kind == K_KMSG || f->kind == K_KMSG_REC) {
		f->loaded = true;	/* the record is written for each case */
		f->load_failed = false;
		return true;
	}
	buf = malloc(CONTENT_MAX);
	if (!buf)
		return false;
	n = read_all_step(f->path, O_RDONLY, buf, CONTENT_MAX, 65536);
	if (n < 0 || (size_t)n == CONTENT_MAX) {
		diag("read(2) of %s: %s", f->path,
		     n < 0 ? errno_name(-n) : "larger than CONTENT_MAX");
		free(buf);
		return false;
	}
	f->data = realloc(buf, n ? n : 1);
	if (!f->data)
		f->data = buf;
	f->size = n;
	f->loaded = true;
	f->load_failed = false;
	return true;
}

/* Empties the kernel log behind /proc/kmsg: read until EAGAIN. */
static bool kmsg_drain(int fd)
{
	ssize_t ret;
	int i;

	for (i = 0; i < 1024; i++) {
		ret = read(fd, good, 65536);
		if (ret < 0 && errno == EAGAIN)
			return true;
		if (ret <= 0)
			break;
	}
	diag("cannot empty the log: %s", ret < 0 ? strerror(errno) : "EOF");
	return false;
}

/*
 * Writes a record of level LOG_DEBUG, facility LOG_USER ("<15>", off the
 * console) to /dev/kmsg and puts what /proc/kmsg must return for it in
 * f->data: record_print_text() with syslog prefix, the time stamp when
 * printk.time is on ("[%5lu.%06lu] ", its digits '?') and the newline.
 * The guests have no CONFIG_PRINTK_CALLER.
 */
static bool kmsg_record(struct edge_file *f)
{
	static unsigned int seq;
	char marker[48], line[64], time = 'N';
	FILE *t;

	t = fopen("/sys/module/printk/parameters/time", "r");
	if (t) {
		if (fscanf(t, " %c", &time) != 1)
			time = 'N';
		fclose(t);
	}
	snprintf(marker, sizeof(marker), "setfs-edges %d.%u", getpid(),
		 ++seq);
	snprintf(line, sizeof(line), "<15>%s\n", marker);
	if (!write_str("/dev/kmsg", line))
		return false;
	free(f->data);
	f->data = malloc(sizeof(line) + 32);
	if (!f->data)
		return false;
	f->size = sprintf((char *)f->data, "<15>%s%s\n",
			  time == 'Y' ? "[?????.??????] " : "", marker);
	return true;
}

/*
 * Segment i of a vector goes at @good + i * (its length + 8), so that
 * the canary between two segments shows a byte written out of place.
 */
static unsigned int build_iov(const struct edge *e, struct iovec *iov)
{
	const struct seg *s = edge_segs(e);
	size_t at = 0;
	unsigned int i;

	for (i = 0; i < e->nsegs; i++) {
		iov[i].iov_base = s[i].null ? NULL : good + at;
		iov[i].iov_len = s[i].len;
		if (!s[i].null)
			at += s[i].len + 8;
	}
	return e->nsegs;
}

/* The first @n bytes the vector received, gathered into @out. */
static void gather(const struct iovec *iov, unsigned int nseg, size_t n,
		   unsigned char *out)
{
	unsigned int i;
	size_t take;

	for (i = 0; i < nseg && n; i++) {
		take = iov[i].iov_len < n ? iov[i].iov_len : n;
		if (take)
			memcpy(out, iov[i].iov_base, take);
		out += take;
		n -= take;
	}
}

/* Every byte of @good outside what a read of @n bytes may write is CANARY. */
static bool canary_intact(const struct edge *e, const struct iovec *iov,
			  unsigned int nseg, size_t n)
{
	size_t i, from, len;
	unsigned int s;

	if (!is_vector(e)) {
		if (e->buf != BUF_GOOD)
			return true;
		for (i = n; i < e->count + 64 && i < good_size; i++)
			if (good[i] != CANARY)
				goto bad;
		return true;
	}
	for (s = 0; s < nseg; s++) {
		if (!iov[s].iov_base)
			continue;
		len = iov[s].iov_len < n ? iov[s].iov_len : n;
		n -= len;
		from = (unsigned char *)iov[s].iov_base - good;
		for (i = from + len; i < from + iov[s].iov_len + 8; i++)
			if (good[i] != CANARY)
				goto bad;
	}
	return true;
bad:
	diag("byte %zu of the buffer was written, outside the bytes returned",
	     i);
	return false;
}

static unsigned char *edge_buffer(const struct edge *e)
{
	switch (e->buf) {
	case BUF_NULL:
		return NULL;
	case BUF_UNMAPPED:
		return hole + page_size;
	case BUF_READONLY:
		return ro_page;
	case BUF_STRADDLE:
		return hole + page_size - STRADDLE;
	case BUF_HUGE:
		return huge;
	default:
		return good;
	}
}

/* The bytes in [@from, @from + @n) of the file that must match. */
static bool check_bytes(const struct edge_file *f, const unsigned char *got,
			long long from, size_t n)
{
	size_t stable = f->stable, len = n;

	if ((unsigned long long)from >= stable)
		return true;
	if (len > stable - from)
		len = stable - from;
	if ((size_t)from + len > f->size) {
		diag("%zu bytes at %lld, the file has %zu", len, from, f->size);
		return false;
	}
	if (f->kind == K_KMSG_REC) {
		const unsigned char *w = f->data + from;
		size_t i;

		for (i = 0; i < len; i++) {
			bool digit = got[i] == ' ' ||
				     (got[i] >= '0' && got[i] <= '9');

			if (w[i] == '?' ? digit : got[i] == w[i])
				continue;
			diag("byte %zu of the record is 0x%02x, expected '%c'",
			     (size_t)from + i, got[i], w[i]);
			return false;
		}
		return true;
	}
	return check_mem("bytes against the file's", got, f->data + from, len);
}

/* The count or errno against @x. */
static bool check_result(const struct expect *x, ssize_t ret, int err)
{
	if (x->err) {
		if (ret < 0 && err == x->err)
			return true;
		if (ret < 0)
			diag("failed with %s, expected %s (%s)", errno_name(err),
			     errno_name(x->err), x->why);
		else
			diag("returned %zd, expected %s (%s)", ret,
			     errno_name(x->err), x->why);
		return false;
	}
	if (ret < 0 && x->or_efault && err == EFAULT)
		return true;
	if (ret >= 0 && (size_t)ret >= x->lo && (size_t)ret <= x->hi)
		return true;
	if (ret < 0)
		diag("failed with %s, expected %zu..%zu bytes (%s)",
		     errno_name(err), x->lo, x->hi, x->why);
	else
		diag("returned %zd, expected %zu..%zu bytes (%s)", ret, x->lo,
		     x->hi, x->why);
	return false;
}

/*
 * /proc/kmsg: the position stays 0; what is left of the record is what
 * the read did not return, all of it after EINVAL, nothing after EFAULT
 * (syslog_print() moves syslog_seq past the record before it copies).
 */
static bool kmsg_after(struct edge_file *f, int fd, ssize_t ret, int err)
{
	unsigned char next[COUNT];
	size_t done = ret > 0 ? ret : 0;
	ssize_t n;

	if (ret < 0 && (err == EINVAL || kmsg_kept_on_efault))
		done = 0;
	else if (ret < 0)
		done = f->size;
	if (!check_ll("lseek SEEK_CUR after the read", lseek(fd, 0, SEEK_CUR),
		      0))
		return false;
	n = read(fd, next, sizeof(next));
	if (done >= f->size)
		return check_errno("read(2) after, the record gone", n, errno,
				   EAGAIN);
	if (n < 0) {
		diag("read(2) after: %s", strerror(errno));
		return false;
	}
	return check_ll("read(2) after: the rest of the record", n,
			f->size - done) &&
	       check_bytes(f, next, done, n);
}

/*
 * After a read(2) or readv(2) on a fresh open: the position is where the
 * bytes returned end, and for files with stable bytes the next read(2)
 * gives what follows.
 */
static bool check_after(struct edge_file *f, int fd, ssize_t ret, int err)
{
	long long pos = ret > 0 ? ret : 0, cur;
	unsigned char next[COUNT];
	ssize_t n;

	if (f->kind == K_KMSG)
		return true;
	if (f->kind == K_KMSG_REC)
		return kmsg_after(f, fd, ret, err);
	if (f->kind != K_STREAM) {
		cur = lseek(fd, 0, SEEK_CUR);
		if (!check_ll("lseek SEEK_CUR after the read", cur, pos))
			return false;
	}
	if (!f->fixed || f->stable != ALL)
		return true;
	n = read(fd, next, sizeof(next));
	if (n < 0) {
		diag("read(2) after: %s", strerror(errno));
		return false;
	}
	if ((unsigned long long)pos >= f->size)
		return check_ll("read(2) after, at the end", n, 0);
	if (n == 0 || (size_t)n > f->size - pos) {
		diag("read(2) after gave %zd bytes at %lld of %zu", n, pos,
		     f->size);
		return false;
	}
	return check_mem("read(2) after", next, f->data + pos, n);
}

static enum case_result absent_file(const struct edge_file *f)
{
	enum case_result res;
	char path[128];

	if (f->row)
		return procfile_locate(f->row, path, sizeof(path));
	if (f->pci) {
		struct pci_dev devs[1];
		enum case_result res;

		if (!pci_devices(devs, 1, &res))
			return res;
		diag("/proc/bus/pci has devices now");
		return CASE_FAIL;
	}
	res = need_file(f->path, f->sym);
	if (res == CASE_PASS) {
		diag("%s is here now", f->path);
		return CASE_FAIL;
	}
	return res;
}

/*
 * io_uring's wait for a read that polls not ready.  6.12's io_uring tries
 * a pollable file that is not O_NONBLOCK inline with IOCB_NOWAIT
 * (f7c913438533); a ->proc_read file answers -EAGAIN there (its
 * loop_rw_iter(), and the series' per-segment read keeps that answer),
 * and io_uring then polls the file, as 6.1's did too.  Files whose
 * ->proc_poll is not ready (a SUNRPC channel until an upcall is queued,
 * /proc/bus/input/devices, whose poll reports a change since the last
 * poll) do not complete, on Debian's pristine 6.12.118 as with the
 * series.
 */
#define URING_WAIT_S	4	/* for a completion that must come */
#define URING_IDLE_S	1	/* for one that must not */

/*
 * Whether @fd polls readable.  Asked twice: a ->proc_poll that reports
 * a change since the file's last poll (/proc/bus/input/devices) is ready
 * once after open(2), and io_uring's own poll comes after its first try.
 */
static bool polls_ready(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 0) < 0)
		return true;
	p.revents = 0;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLRDNORM));
}

static enum case_result run_edge(struct edge_file *f, const struct edge *e)
{
	struct iovec *iov = NULL;
	unsigned char *buf, *seen = NULL;
	unsigned int nseg = 0;
	struct expect x;
	long long off;
	bool ok = false, kmsg, waits;
	ssize_t ret;
	int fd, err;

	if (!load(f))
		return CASE_FAIL;
	off = edge_offset(f, e);
	kmsg = f->kind == K_KMSG || f->kind == K_KMSG_REC;
	fd = open_path(f->path, O_RDONLY | (kmsg ? O_NONBLOCK : 0));
	if (fd < 0)
		return CASE_FAIL;
	if (kmsg && !kmsg_drain(fd))
		goto out;
	if (f->kind == K_KMSG_REC && !kmsg_record(f))
		goto out;
	model(f, e, &x);
	memset(good, CANARY, good_size);
	buf = edge_buffer(e);
	if (e->buf == BUF_HUGE && !huge) {
		diag("no buffer of %lu bytes: the mmap() at setup failed",
		     HUGE_COUNT);
		goto out;
	}
	if (is_vector(e)) {
		iov = calloc(e->nsegs, sizeof(*iov));
		if (!iov)
			goto out;
		nseg = build_iov(e, iov);
	}
	alarm(ROW_TIMEOUT);
	switch (e->op) {
	case OP_PREAD:
		ret = pread(fd, buf, e->count, off);
		break;
	case OP_READ:
		ret = read(fd, buf, e->count);
		break;
	case OP_READV:
		ret = readv(fd, iov, nseg);
		break;
	case OP_URING_READ:
	case OP_URING_READV:
		waits = !polls_ready(fd);
		ret = uring_read_once(fd, buf, e->op == OP_URING_READV ? iov :
				      NULL, e->op == OP_URING_READV ? nseg :
				      e->count, waits ? URING_IDLE_S : URING_WAIT_S);
		if (waits) {
			/* no completion is the right answer */
			ok = ret == -ETIME;
			if (ok)
				diag("%s: polls not ready, io_uring waits for it", f->path);
			else
				diag("%s polls not ready, yet io_uring completed: %zd",
				     f->path, ret);
			goto out;
		}
		if (ret < 0) {
			errno = -ret;	/* EPROTO: said why; no model has it */
			ret = -1;
		}
		break;
	default:
		ret = preadv2(fd, iov, nseg, off, e->flags);
		break;
	}
	err = errno;
	alarm(0);
	/*
	 * What a vector read of a file with fixed bytes returned, one line
	 * per row: the same rows on a kernel without the series and with it
	 * must print the same lines (issue 26: readv keeps its segment
	 * boundaries); the harness collects them ("vector results").
	 */
	if (is_vector(e) && f->fixed && f->stable == ALL)
		diag("vector %s.%s %zd%s%s", f->name, e->name, ret,
		     ret < 0 ? " " : "", ret < 0 ? errno_name(err) : "");
	if (!check_result(&x, ret, err))
		goto out;
	ok = true;
	if (ret > 0 && f->kind != K_KMSG) {
		if (is_vector(e)) {
			/* Legacy PCI "returns" bytes it could not write. */
			size_t n = (size_t)ret < edge_good_bytes(e) ?
				   (size_t)ret : edge_good_bytes(e);

			seen = malloc(n + 1);
			if (!seen) {
				ok = false;
				goto out;
			}
			gather(iov, nseg, n, seen);
			ok = check_bytes(f, seen, x.data_off, n);
		} else if (e->buf == BUF_GOOD || e->buf == BUF_HUGE ||
			   e->buf == BUF_STRADDLE) {
			size_t n = e->buf == BUF_STRADDLE &&
				   (size_t)ret > STRADDLE ? STRADDLE : ret;

			ok = check_bytes(f, buf, x.data_off, n);
		}
	}
	/*
	 * With the series, syslog_print() may have copied part of a chunk
	 * before the fault and then failed: those bytes are in the buffer
	 * but not counted (as with copy_to_user() before).
	 */
	if (!(f->kind == K_KMSG_REC && !f->legacy && ret < 0))
		ok = ok && canary_intact(e, iov, nseg, ret > 0 ? ret : 0);
	if (ok && (e->op == OP_READ || e->op == OP_READV ||
		   e->op == OP_URING_READ || e->op == OP_URING_READV))
		ok = check_after(f, fd, ret, err);
out:
	if (!ok)
		diag("%s: %s", f->path, e->name);
	free(seen);
	free(iov);
	/* Give back the pages the read touched; the addresses stay. */
	if (e->buf == BUF_HUGE && huge)
		madvise(huge, HUGE_COUNT, MADV_DONTNEED);
	close(fd);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result run_edge_row(const void *data)
{
	const struct edge_row *r = data;
	double t0 = now_seconds();
	enum case_result res;

	if (!r->edge)
		return absent_file(r->file);
	res = run_edge(r->file, r->edge);
	r->file->seconds += now_seconds() - t0;
	return res;
}

/* ------------------------------------------------------------ the group */

static void on_alarm(int sig)
{
	(void)sig;
}

static bool add_row(struct edge_file *f, const struct edge *e)
{
	char name[160];

	if (e)
		snprintf(name, sizeof(name), "edges.%s.%s", f->name, e->name);
	else
		snprintf(name, sizeof(name), "edges.%s", f->name);
	rows[nrows].name = strdup(name);
	rows[nrows].file = f;
	rows[nrows].edge = e;
	if (!rows[nrows].name)
		return false;
	nrows++;
	return true;
}

/*
 * Which files are here decides the rows, so the table is built before the
 * group's plan line; what this prints goes before the group's header.
 */
static void edges_prepare(void)
{
	struct setfs_ctl_info info;
	unsigned int i, j;
	bool part1_legacy = !series_applied();

	files = calloc(MAX_FILES, sizeof(*files));
	if (!files)
		return;
	if (ctl_info(&info))
		have_proc_read = info.flags & SETFS_INFO_PROC_OPS_READ;
	add_part1(part1_legacy);
	add_asound(part1_legacy);
	add_part2(have_proc_read);
	rows = calloc(nfiles * ARRAY_SIZE(edges), sizeof(*rows));
	if (!rows)
		return;
	for (i = 0; i < nfiles; i++) {
		if (files[i].absent) {
			if (!add_row(&files[i], NULL))
				break;
			continue;
		}
		for (j = 0; j < ARRAY_SIZE(edges); j++) {
			/*
			 * io_uring waits for /proc/kmsg with poll, whatever
			 * the file's O_NONBLOCK: setfs_user_iouring checks it.
			 */
			if ((edges[j].op == OP_URING_READ ||
			     edges[j].op == OP_URING_READV) &&
			    (files[i].kind == K_KMSG ||
			     files[i].kind == K_KMSG_REC))
				continue;
			if (!add_row(&files[i], &edges[j]))
				break;
		}
	}
	edges_tables[0] = (struct ktap_table){ rows, sizeof(*rows), nrows,
					       run_edge_row };
}

static const char *edges_setup(void)
{
	static const size_t cycle[] = { 0, 1, 2, 5 };
	struct sigaction sa = { .sa_handler = on_alarm };
	unsigned int i;

	if (!rows)
		return "out of memory";
	page_size = sysconf(_SC_PAGESIZE);
	for (i = 0; i < SEGS_MAX; i++)
		seg1024[i].len = cycle[i % ARRAY_SIZE(cycle)];
	good_size = 65536;
	good = malloc(good_size);
	hole = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro_page = mmap(NULL, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (!good || hole == MAP_FAILED || ro_page == MAP_FAILED)
		return "out of memory";
	if (munmap(hole + page_size, page_size))
		return "munmap failed";
	huge = mmap(NULL, HUGE_COUNT, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (huge == MAP_FAILED) {
		/* the count_huge cases fail and say so */
		diag("mmap of %lu bytes: %s", HUGE_COUNT, strerror(errno));
		huge = NULL;
	}
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL))	/* no SA_RESTART: EINTR */
		return "sigaction(SIGALRM) failed";
	started = now_seconds();
	diag("struct proc_ops %s ->proc_read; part 1 files read through %s",
	     have_proc_read ? "has" : "has no",
	     series_applied() ? "seq_read_iter" : "seq_read");
	return NULL;
}

static void edges_teardown(void)
{
	struct edge_file *slow = NULL;
	unsigned int i;

	signal(SIGALRM, SIG_DFL);
	for (i = 0; i < nfiles; i++)
		if (!slow || files[i].seconds > slow->seconds)
			slow = &files[i];
	printf("    # %u files, %u cases in %.1f s; the slowest file: %s, %.1f s\n",
	       nfiles, nrows, now_seconds() - started,
	       slow ? slow->path : "none", slow ? slow->seconds : 0.0);
	for (i = 0; i < nfiles; i++)
		free(files[i].data);
	for (i = 0; i < nrows; i++)
		free((char *)rows[i].name);
	free(files);
	free(rows);
	free(good);
	munmap(hole, page_size);
	munmap(ro_page, page_size);
	if (huge)
		munmap(huge, HUGE_COUNT);
}

KTAP_GROUP(edges_group) = {
	.name = "setfs_user_edges",
	.order = 120,
	.tables = edges_tables,
	.ntables = ARRAY_SIZE(edges_tables),
	.prepare = edges_prepare,
	.setup = edges_setup,
	.teardown = edges_teardown,
};
