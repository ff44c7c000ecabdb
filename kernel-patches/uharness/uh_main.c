// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space side of uharness: a model of user memory behind an
 * iov_iter, copy_to_iter() with the kernel's semantics, and a row runner
 * whose child process runs rows until one kills it (a sanitizer report),
 * so that a report ends that row only.
 *
 *   uh info            variants, their images and records
 *   uh run < rows      one row per line:
 *                      ID VARIANT POS TYPE SEGS FAULT
 *     TYPE  u (ITER_UBUF, read/pread), v (ITER_IOVEC, readv/preadv),
 *           k (ITER_KVEC, kernel_read() and vfs_iter_read() of a kvec) or
 *           b (ITER_BVEC, an array of pages: what copy_splice_read()
 *           hands the method for splice(2) and sendfile(2));
 *           U and V as u and v, after the pristine method read the same
 *           (UH_OLD)
 *     SEGS  LEN[@MAPPED|@null] separated by commas: a segment of LEN
 *           bytes of which the first MAPPED can be written (default: all,
 *           at most UH_MAP_MAX); @null makes the base address NULL and
 *           nothing writable
 *     FAULT -1, or k: every write after the first k bytes faults
 *
 * For each row the output is "begin ID", the child's lines (ret, pos,
 * adv, out, warn, and whatever a sanitizer printed), "end ID STATUS".
 */
#include "uh.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdint.h>
#include <sys/mman.h>

#define UH_MAP_MAX (1UL << 18)	/* writable bytes per segment at most */
#define UH_OUT_MAX (1UL << 20)	/* bytes recorded */
#define UH_SEGS_MAX 1024	/* UIO_MAXIOV */

ssize_t uh_last_ret;
char uh_last_type;
int uh_lock_depth;
long uh_allocs;

#ifdef UH_SEG_CORE
int uh_method_calls;
static int uh_cur_variant;

static size_t out_written(void);

/*
 * fs/proc/inode.c's call of ->proc_read_iter, for the extracted core,
 * which advances the caller's iterator by what the method returns and
 * drops the method's own: so each call's iterator is checked here.
 */
ssize_t proc_reg_read_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	size_t count = iter->count, written = out_written();
	ssize_t nr;

	uh_method_calls++;
	nr = uh_read(uh_cur_variant, iocb, iter);
	if (nr >= 0 && (count - iter->count != (size_t)nr ||
			out_written() - written != (size_t)nr))
		uh_warn("a call returned %zd but advanced its iterator by %zu and wrote %zu",
			nr, count - iter->count, out_written() - written);
	return nr;
}
#endif

struct uh_seg {
	size_t len;
	size_t mapped;
};

static struct uh_seg segs[UH_SEGS_MAX];
static struct iovec iov[UH_SEGS_MAX];
static unsigned long nsegs;
static long long fault_budget;	/* bytes that may still be written, -1: no limit */
static unsigned char *out;	/* what reached user memory, in order */
/* Bytes given back with iov_iter_revert(): written, no longer counted. */
static size_t out_reverted;
static size_t out_len;
static size_t out_total;
static int warned;

/* what reached the destination and still counts */
static size_t out_written(void)
{
	return out_total - out_reverted;
}

void uh_warn(const char *fmt, ...)
{
	va_list ap;

	warned++;
	printf("warn ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* spinlocks held: a user copy may fault and sleep, not under one */
static int uh_spin_depth;

void uh_lock(int *held, const char *what)
{
	if (*held)
		uh_warn("%s taken twice (deadlock)", what);
	*held = 1;
	uh_lock_depth++;
	uh_spin_depth += !strcmp(what, "spinlock");
}

void uh_unlock(int *held, const char *what)
{
	if (!*held)
		uh_warn("%s released but not held", what);
	*held = 0;
	uh_lock_depth--;
	uh_spin_depth -= !strcmp(what, "spinlock");
}

void uh_hex(const char *tag, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i;

	printf("%s ", tag);
	for (i = 0; i < len; i++)
		printf("%02x", p[i]);
	printf("\n");
}

/*
 * copyout() of lib/iov_iter.c: write len bytes at offset skip of segment
 * seg; return how many were NOT written.  The source is read in full, as
 * raw_copy_to_user() would read it, so an over-read shows in ASan.
 */
static size_t uh_copyout(unsigned long seg, size_t skip, const void *from, size_t len)
{
	const unsigned char *src = from;
	size_t ok = 0, n;
	volatile unsigned char sink = 0;

	if (skip < segs[seg].mapped)
		ok = segs[seg].mapped - skip;
	if (ok > len)
		ok = len;
	if (fault_budget >= 0 && (unsigned long long)fault_budget < ok)
		ok = fault_budget;
	for (n = 0; n < ok; n++) {
		sink ^= src[n];
		if (out_len < UH_OUT_MAX)
			out[out_len++] = src[n];
	}
	(void)sink;
	out_total += ok;
	if (fault_budget >= 0)
		fault_budget -= ok;
	return len - ok;
}

/*
 * Segment k's fake user address is uh_fake_base + (k << UH_SEG_SHIFT)
 * (parse_segs()), NULL for a @null one.  64-bit: far above anything
 * mapped.  32-bit: inside a PROT_NONE reservation (uh_reserve()), so that
 * a method that dereferences one crashes instead of hitting the heap; a
 * segment's window (256 KiB) is UH_MAP_MAX, all that can be written.
 */
#if UINTPTR_MAX > 0xffffffffUL
#define UH_SEG_SHIFT 32
static uintptr_t uh_fake_base = 0x100000000000UL;
static void uh_reserve(void) { }
#else
#define UH_SEG_SHIFT 18
static uintptr_t uh_fake_base;

/* below i386's TASK_SIZE_MAX (3 GiB), which access_ok() checks */
static void uh_reserve(void)
{
	size_t len = (size_t)UH_SEGS_MAX << UH_SEG_SHIFT;
	uintptr_t hint;

	for (hint = 0x40000000; hint + len <= UH_TASK_SIZE_MAX; hint += 0x8000000) {
		void *p = mmap((void *)hint, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			       MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);

		if (p == (void *)hint) {
			uh_fake_base = hint;
			return;
		}
		if (p != MAP_FAILED)	/* a kernel without MAP_FIXED_NOREPLACE */
			munmap(p, len);
	}
	fprintf(stderr, "uh: no room for the fake user addresses below %#lx\n",
		(unsigned long)UH_TASK_SIZE_MAX);
	exit(2);
}
#endif

/*
 * The segment a user address lies in.  A ubuf iterator is read(2)'s
 * buffer (segment 0) or, behind proc_reg_read_iter_seg(), one segment of
 * a readv(2) vector.
 */
static unsigned long uh_seg_of(const void __user *addr, size_t *skip)
{
	uintptr_t a = (uintptr_t)addr;
	unsigned long k;

	if (a < uh_fake_base) {
		/* NULL, or a pristine method's pointer walked from NULL */
		for (k = 0; k < nsegs; k++)
			if (!iov[k].iov_base)
				break;
		*skip = a;
	} else {
		k = (a - uh_fake_base) >> UH_SEG_SHIFT;
		*skip = (a - uh_fake_base) & (((uintptr_t)1 << UH_SEG_SHIFT) - 1);
	}
	if (k >= nsegs) {
		uh_warn("copy_to_iter: %p is no segment's address", addr);
		exit(3);
	}
	return k;
}

#ifdef UH_OLD
/* raw_copy_to_user() on the model: the bytes not copied */
unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	size_t skip;
	unsigned long seg;

	if (!n)
		return 0;
	if (uh_spin_depth)
		uh_warn("copy_to_user() with a spinlock held");
	seg = uh_seg_of(to, &skip);
	return uh_copyout(seg, skip, from, n);
}
#endif

/*
 * iterate_and_advance() for ITER_UBUF and ITER_IOVEC, copying; ITER_KVEC
 * and ITER_BVEC as ITER_IOVEC over memory that cannot fault (a bvec's
 * segments are its pages, held in iov[] like the others).
 */
size_t _copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i)
{
	const char *from = addr;
	size_t done = 0;

	if (WARN_ON_ONCE(i->data_source))
		return 0;
	if (bytes > i->count)
		bytes = i->count;
	if (!bytes)
		return 0;
	if (uh_spin_depth && i->user_backed)
		uh_warn("copy_to_iter() to user memory with a spinlock held");
	if (i->iter_type == ITER_UBUF) {
		size_t skip;
		unsigned long seg = uh_seg_of(i->ubuf, &skip);
		size_t left = uh_copyout(seg, skip + i->iov_offset, from, bytes);

		done = bytes - left;
		i->iov_offset += done;
	} else if (i->iter_type == ITER_IOVEC || i->iter_type == ITER_KVEC ||
		   i->iter_type == ITER_BVEC) {
		/* kvec and bvec segments are kernel memory: all mapped */
		const struct iovec *p = i->iov;
		size_t skip = i->iov_offset;

		do {
			size_t len = p->iov_len - skip;

			if (len > bytes - done)
				len = bytes - done;
			if (len) {
				size_t left = uh_copyout(p - iov, skip, from + done, len);

				done += len - left;
				skip += len - left;
				if (skip < p->iov_len)
					break;	/* short copy, or bytes used up */
			}
			p++;
			skip = 0;
		} while (done < bytes);
		i->nr_segs -= p - i->iov;
		i->iov = p;
		i->iov_offset = skip;
	} else {
		uh_warn("copy_to_iter: iterator type %d not modelled", i->iter_type);
		return 0;
	}
	i->count -= done;
	return done;
}

/*
 * lib/iov_iter.c of 6.1 for ITER_UBUF and ITER_IOVEC: give back @unroll
 * bytes of what was advanced over (the bytes stay in the destination, and
 * in the recorded output).
 */
void iov_iter_revert(struct iov_iter *i, size_t unroll)
{
	const struct iovec *p;

	if (!unroll)
		return;
	if (WARN_ON_ONCE(unroll > MAX_RW_COUNT))
		return;
	i->count += unroll;
	out_reverted += unroll;
	if (i->iter_type == ITER_UBUF) {
		if (WARN_ON_ONCE(unroll > i->iov_offset))
			return;
		i->iov_offset -= unroll;
		return;
	}
	if (i->iter_type != ITER_IOVEC && i->iter_type != ITER_KVEC &&
	    i->iter_type != ITER_BVEC) {
		uh_warn("iov_iter_revert: iterator type %d not modelled", i->iter_type);
		return;
	}
	if (unroll <= i->iov_offset) {
		i->iov_offset -= unroll;
		return;
	}
	unroll -= i->iov_offset;
	p = i->iov;
	for (;;) {
		size_t n = (--p)->iov_len;

		i->nr_segs++;
		if (unroll <= n) {
			i->iov = p;
			i->iov_offset = n - unroll;
			return;
		}
		unroll -= n;
	}
}

/*
 * lib/iov_iter.c: iov_iter_iovec_advance() moves past every segment that
 * the bytes use up, and past zero-length ones, also for 0 bytes (which
 * proc_reg_read_iter_seg() relies on to leave a zero-length segment).
 */
/*
 * mm/gup.c's fault-in of the first size bytes of a destination: the
 * bytes that cannot be written (past a segment's writable prefix, or past
 * the fault budget), as fault_in_safe_writeable() finds them page by page.
 */
size_t fault_in_iov_iter_writeable(const struct iov_iter *i, size_t size)
{
	size_t ok = 0, skip, w;
	unsigned long k;

	if (size > i->count)
		size = i->count;
	if (!i->user_backed)
		return 0;
	if (i->iter_type == ITER_UBUF) {
		k = uh_seg_of(i->ubuf, &skip);
		skip += i->iov_offset;
		ok = skip < segs[k].mapped ? segs[k].mapped - skip : 0;
		if (ok > size)
			ok = size;
	} else {
		const struct iovec *p = i->iov;

		for (skip = i->iov_offset; ok < size; p++, skip = 0) {
			size_t len = p->iov_len - skip;

			if (len > size - ok)
				len = size - ok;
			if (!len)
				continue;
			k = p - iov;
			w = skip < segs[k].mapped ? segs[k].mapped - skip : 0;
			if (w < len) {
				ok += w;
				break;
			}
			ok += len;
		}
	}
	if (fault_budget >= 0 && (unsigned long long)fault_budget < ok)
		ok = fault_budget;
	return size - ok;
}

void iov_iter_advance(struct iov_iter *i, size_t bytes)
{
	const struct iovec *p, *end;
	size_t left;

	if (bytes > i->count)
		bytes = i->count;
	if (i->iter_type == ITER_UBUF) {
		i->iov_offset += bytes;
		i->count -= bytes;
		return;
	}
	if (!i->count)
		return;
	i->count -= bytes;
	left = bytes + i->iov_offset;
	for (p = i->iov, end = p + i->nr_segs; p < end; p++) {
		if (left < p->iov_len)
			break;
		left -= p->iov_len;
	}
	i->nr_segs -= p - i->iov;
	i->iov = p;
	i->iov_offset = left;
}

static unsigned long long parse_ull(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s) {
		fprintf(stderr, "uh: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

/* A length: it must fit in this build's size_t (rows are per word size). */
static size_t parse_size(const char *s)
{
	unsigned long long v = parse_ull(s);

	if (v > SIZE_MAX) {
		fprintf(stderr, "uh: %s does not fit in a %zu-bit size_t\n", s,
			8 * sizeof(size_t));
		exit(2);
	}
	return v;
}

/* Fill segs/iov from "LEN[@MAPPED|@null],..."; return the total length. */
static size_t parse_segs(char *spec)
{
	char *tok, *save = NULL;
	size_t total = 0;

	nsegs = 0;
	for (tok = strtok_r(spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *at = strchr(tok, '@');
		struct uh_seg *s = &segs[nsegs];
		bool null = false;

		if (nsegs == UH_SEGS_MAX) {
			fprintf(stderr, "uh: more than %d segments\n", UH_SEGS_MAX);
			exit(2);
		}
		if (at)
			*at++ = 0;
		s->len = parse_size(tok);
		if (at && !strcmp(at, "null"))
			null = true;
		s->mapped = null ? 0 : at ? parse_size(at) : s->len;
		if (s->mapped > s->len)
			s->mapped = s->len;
		if (s->mapped > UH_MAP_MAX)
			s->mapped = UH_MAP_MAX;
		/* Distinct fake user addresses: the code must never touch them. */
		iov[nsegs].iov_base = null ? NULL :
			(void *)(uh_fake_base + ((uintptr_t)nsegs << UH_SEG_SHIFT));
		iov[nsegs].iov_len = s->len;
		if (total + s->len < total) {
			fprintf(stderr, "uh: the segments' total does not fit in size_t\n");
			exit(2);
		}
		total += s->len;
		nsegs++;
	}
	return total;
}

static void run_row(int variant, long long pos, char type, char *spec, long long fault)
{
	static struct inode inode;
	static struct file file;
	struct kiocb iocb;
	struct iov_iter to;
	size_t total;
	ssize_t ret;

	/* Rows run one after the other in one process: start from nothing. */
	out_len = 0;
	out_total = 0;
	out_reverted = 0;
	uh_lock_depth = 0;
	uh_spin_depth = 0;
	uh_allocs = 0;
	total = parse_segs(spec);
	fault_budget = fault;
	out = malloc(UH_OUT_MAX);
	memset(&to, 0, sizeof(to));
	/* U, V: the same, and the pristine method first (UH_OLD) */
	to.iter_type = type == 'u' || type == 'U' ? ITER_UBUF :
		       type == 'k' ? ITER_KVEC :
		       type == 'b' ? ITER_BVEC : ITER_IOVEC;
	to.user_backed = type != 'k' && type != 'b';
	to.data_source = false;
	to.count = total;
	if (to.iter_type == ITER_UBUF) {
		if (nsegs != 1) {
			fprintf(stderr, "uh: a ubuf iterator has one segment\n");
			exit(2);
		}
		to.ubuf = iov[0].iov_base;
		to.nr_segs = 1;
	} else {
		to.iov = iov;
		to.nr_segs = nsegs;
	}
	file.f_inode = &inode;
#ifdef UH_OLD
	/*
	 * The pristine method first, on the rows read(2) and readv(2) can
	 * make (rw_verify_area() and MAX_RW_COUNT): one call, or one per
	 * segment as do_loop_readv_writev() made them.
	 */
	/*
	 * vfs_read() and import_iovec() refuse a user range access_ok()
	 * refuses (-EFAULT) before either method: no comparison then (on a
	 * 32-bit build, a count near MAX_RW_COUNT past TASK_SIZE_MAX).
	 */
	for (size_t k = 0; k < nsegs && (type == 'U' || type == 'V'); k++)
		if (!access_ok(iov[k].iov_base, iov[k].iov_len))
			type = type == 'U' ? 'u' : 'v';
	if (type == 'U' || type == 'V') {
		loff_t opos = pos;
		size_t left = total;
		ssize_t oret = 0, nr;
		unsigned long k;

		file.f_flags = 0;
		uh_setup(variant, &file);
		/*
		 * read(2) calls ->read for 0 bytes too; readv(2) does not
		 * (its loop runs while the iterator has bytes), but it does
		 * call it for an empty first segment, and iov_iter_advance()
		 * skips every empty segment after a call.
		 */
		for (k = 0; k < nsegs && (left || type == 'U'); k++) {
			if (k && !iov[k].iov_len)
				continue;
			nr = uh_read_old(variant, &file, iov[k].iov_base,
					 iov[k].iov_len, &opos);
			if (nr < 0) {
				if (!oret)
					oret = nr;
				break;
			}
			oret += nr;
			if ((size_t)nr != iov[k].iov_len)
				break;
			left -= nr;
		}
		printf("old_ret %zd\n", oret);
		printf("old_pos %lld\n", opos);
		uh_hex("old_out", out, out_len);
		out_len = 0;
		out_total = 0;
		out_reverted = 0;
		fault_budget = fault;
		uh_lock_depth = 0;
	uh_spin_depth = 0;
		uh_allocs = 0;
	}
#endif
	file.f_flags = 0;
	uh_setup(variant, &file);
	memset(&iocb, 0, sizeof(iocb));
	iocb.ki_filp = &file;
	iocb.ki_pos = pos;

#ifdef UH_SEG_CORE
	{
		/*
		 * io_uring's inline try of a file that is not O_NONBLOCK:
		 * -EAGAIN, without a call of the method and without moving
		 * anything (fs/proc/inode.c, "proc: make whole-iterator reads of
		 * ->proc_read_iter entries opt-in", patch 3 of v6).
		 */
		struct kiocb nowait = iocb;
		struct iov_iter copy = to;

		nowait.ki_flags |= IOCB_NOWAIT;
		uh_cur_variant = variant;
		uh_method_calls = 0;
		if (!(file.f_flags & O_NONBLOCK)) {
			/* nothing ran: the row goes on with the same state */
			ret = uh_read_seg(&nowait, &copy);
			if (ret != -EAGAIN || uh_method_calls || out_total ||
			    copy.count != to.count || nowait.ki_pos != iocb.ki_pos)
				uh_warn("IOCB_NOWAIT read: %zd, %d method call(s), %zu byte(s) written",
					ret, uh_method_calls, out_total);
		}
	}
	ret = uh_read_seg(&iocb, &to);
#else
	ret = uh_read(variant, &iocb, &to);
#endif

	printf("ret %zd\n", ret);
	printf("pos %lld\n", iocb.ki_pos);
	printf("adv %zu\n", total - to.count);
	printf("wrote %zu\n", out_total);
	uh_hex("out", out, out_len);
#ifdef UH_SEG_CORE
	/*
	 * A vector is read a segment per call, and a call that fails after
	 * writing part of its segment (ALSA's -EFAULT) ends it: those bytes
	 * are in user memory, as they were with ->read, but not counted.
	 */
	if (to.iter_type == ITER_IOVEC ? total - to.count > out_total - out_reverted :
			  total - to.count != out_total - out_reverted)
#else
	if (total - to.count != out_total - out_reverted)
#endif
		uh_warn("iterator advanced by %zu but %zu bytes were written (less %zu reverted)",
			total - to.count, out_total, out_reverted);
	if (uh_lock_depth)
		uh_warn("%d lock(s) still held on return", uh_lock_depth);
	if (uh_allocs)
		uh_warn("%ld allocation(s) not freed on return (leak)", uh_allocs);
	uh_last_ret = ret;
	uh_last_type = type;
	uh_check(variant);
	free(out);
	fflush(stdout);
}

/* Record files (net/atm) give their records; the others have none. */
__attribute__((weak)) size_t uh_record(int variant, int index,
				       const unsigned char **rec)
{
	(void)variant;
	(void)index;
	*rec = NULL;
	return 0;
}

static void cmd_info(void)
{
	int v, r;

	for (v = 0; v < uh_nvariants; v++) {
		static struct inode inode;
		static struct file file;
		const unsigned char *img;
		size_t n;

		file.f_inode = &inode;
		uh_setup(v, &file);
		n = uh_image(v, &img);
		printf("variant %d %s %zu\n", v, uh_variants[v].name, n);
		uh_hex("image", img, n);
		for (r = 0; r < 64; r++) {
			const unsigned char *rec;
			size_t len = uh_record(v, r, &rec);

			if (!len)
				break;
			uh_hex("record", rec, len);
		}
	}
}

/* Read all rows first: a child must not share a stdin buffer in use. */
static char *slurp_stdin(void)
{
	size_t len = 0, cap = 1 << 20;
	char *all = malloc(cap + 1);
	size_t n;

	while ((n = fread(all + len, 1, cap - len, stdin)) > 0) {
		len += n;
		if (len == cap)
			all = realloc(all, (cap *= 2) + 1);
	}
	all[len] = 0;
	return all;
}

struct uh_row {
	char id[64];
	int variant;
	long long pos;
	char type;
	char *spec;
	long long fault;
};

static struct uh_row *parse_rows(char *all, int *nrows)
{
	struct uh_row *rows = NULL;
	char *save = NULL, *line;
	int n = 0, cap = 0;

	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct uh_row *r;
		char type[4];
		int len;

		if (n == cap)
			rows = realloc(rows, sizeof(*rows) * (cap = cap ? 2 * cap : 256));
		r = &rows[n];
		r->spec = malloc(strlen(line) + 1);
		if (sscanf(line, "%63s %d %lld %3s %s %lld%n", r->id, &r->variant,
			   &r->pos, type, r->spec, &r->fault, &len) != 6 ||
		    r->variant < 0 || r->variant >= uh_nvariants ||
		    !strchr("uvkbUV", type[0]) || !type[0] || type[1]) {
			fprintf(stderr, "uh: bad row: %s\n", line);
			exit(2);
		}
		r->type = type[0];
		n++;
	}
	*nrows = n;
	return rows;
}

/*
 * One child runs the rows in order and brackets each with begin/end.  A
 * row that kills it (a sanitizer report, a crash, the 20 s alarm) is
 * closed here with the child's status, and a new child goes on with the
 * next row.
 */
static void cmd_run(void)
{
	int nrows, next = 0;
	struct uh_row *rows = parse_rows(slurp_stdin(), &nrows);

	while (next < nrows) {
		int fds[2], status, open_row = -1;
		char *line = NULL;
		size_t cap = 0;
		FILE *in;
		pid_t pid;

		fflush(stdout);
		if (pipe(fds)) {
			perror("pipe");
			exit(2);
		}
		pid = fork();
		if (pid < 0) {
			perror("fork");
			exit(2);
		}
		if (!pid) {
			int i;

			close(fds[0]);
			dup2(fds[1], 1);
			dup2(fds[1], 2);
			close(fds[1]);
			for (i = next; i < nrows; i++) {
				struct uh_row *r = &rows[i];

				printf("begin %s\n", r->id);
				fflush(stdout);
				alarm(20);
				run_row(r->variant, r->pos, r->type, r->spec, r->fault);
				printf("\nend %s exit 0\n", r->id);
				fflush(stdout);
			}
			_exit(0);
		}
		close(fds[1]);
		in = fdopen(fds[0], "r");
		while (getline(&line, &cap, in) > 0) {
			fputs(line, stdout);
			if (!strncmp(line, "begin ", 6)) {
				open_row = next;
			} else if (!strncmp(line, "end ", 4)) {
				open_row = -1;
				next++;
			}
		}
		fclose(in);
		free(line);
		waitpid(pid, &status, 0);
		if (open_row >= 0) {
			if (WIFEXITED(status))
				printf("\nend %s exit %d\n", rows[open_row].id,
				       WEXITSTATUS(status));
			else
				printf("\nend %s signal %d\n", rows[open_row].id, WTERMSIG(status));
			next++;
		} else if (next < nrows) {
			fprintf(stderr, "uh: the runner died between rows\n");
			exit(2);
		}
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "info")) {
		cmd_info();
	} else if (argc == 2 && !strcmp(argv[1], "run")) {
		uh_reserve();
		cmd_run();
	} else {
		fprintf(stderr, "usage: %s info|run\n", argv[0]);
		return 2;
	}
	return 0;
}
