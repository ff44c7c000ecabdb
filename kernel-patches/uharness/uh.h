/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The smallest kernel API that the converted ->proc_read_iter
 * methods need, in user space.  The function bodies themselves are never
 * copied here: uharness.py extracts them from the prepared kernel tree.
 *
 * What matters is kernel semantics, not kernel code: copy_to_iter() stops
 * at the first byte of the destination that faults and returns what it
 * copied, refuses more than INT_MAX bytes with a WARN, and an iovec
 * iterator skips zero-length segments.  Each of these is modelled in
 * uh_main.c from the description in include/linux/uio.h and
 * lib/iov_iter.c of the 6.1 tree.
 */
#ifndef UH_H
#define UH_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* The kernel's loff_t is long long; glibc's is long.  Use the kernel's. */
#define loff_t uh_kernel_loff_t
typedef long long loff_t;

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef u8 __u8;
typedef s8 __s8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef u16 __le16;
typedef u32 __le32;
typedef u16 __be16;
typedef u32 __be32;
typedef unsigned int gfp_t;
typedef u64 resource_size_t;

#define __user
#define __iomem
#define __force
#define __must_check
#define __init
#define __initdata
#define __maybe_unused __attribute__((unused))
/* 6.12's flexible-array annotation: nothing to check in user space */
#define __counted_by(member)
#define __packed __attribute__((packed))
#define noinline __attribute__((noinline))
#define likely(x) __builtin_expect(!!(x), 1)
/* One load of @x, as <asm-generic/rwonce.h> has it for scalars. */
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define unlikely(x) __builtin_expect(!!(x), 0)

#define GFP_KERNEL 0u
#define PAGE_SIZE 4096UL
#define MAX_RW_COUNT (INT_MAX & ~(PAGE_SIZE - 1))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* min()/max() as strict as the kernel's: both sides of one type. */
#define __uh_cmp(x, y, op) ({				\
	typeof(x) __x = (x);				\
	typeof(y) __y = (y);				\
	(void)(&__x == &__y);				\
	__x op __y ? __x : __y; })
#define min(x, y) __uh_cmp(x, y, <)
#define max(x, y) __uh_cmp(x, y, >)
#define min_t(t, x, y) ({ t __a = (x); t __b = (y); __a < __b ? __a : __b; })
#define max_t(t, x, y) ({ t __a = (x); t __b = (y); __a > __b ? __a : __b; })
/* <linux/wordpart.h> */
#define lower_32_bits(n) ((u32)((n) & 0xffffffff))

/* The harness is built and run on little-endian hosts only. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "uharness models a little-endian CPU"
#endif
#define cpu_to_le16(x) ((__le16)(u16)(x))
#define cpu_to_le32(x) ((__le32)(u32)(x))

/* <linux/unaligned.h>: byte by byte, any alignment, any host order */
static inline void put_unaligned_le16(u16 val, void *p)
{
	u8 *b = p;

	b[0] = val;
	b[1] = val >> 8;
}

static inline void put_unaligned_le32(u32 val, void *p)
{
	put_unaligned_le16(val, p);
	put_unaligned_le16(val >> 16, (u8 *)p + 2);
}
#define le16_to_cpu(x) ((u16)(x))
#define le32_to_cpu(x) ((u32)(x))
#define cpu_to_be16(x) ((__be16)__builtin_bswap16((u16)(x)))
#define cpu_to_be32(x) ((__be32)__builtin_bswap32((u32)(x)))

/* Anything the stubs find wrong is a "warn" line: the row fails. */
void uh_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define WARN_ON(c) ({						\
	bool __c = !!(c);						\
	if (__c)							\
		uh_warn("WARN_ON(%s) at %s:%d", #c, __FILE__, __LINE__);	\
	__c; })
#define WARN_ON_ONCE(c) WARN_ON(c)
#define BUG_ON(c) do { if (c) { uh_warn("BUG_ON(%s)", #c); abort(); } } while (0)

static inline void might_sleep(void) { }
static inline void cond_resched(void) { }

/*
 * ---- memory ----
 * uh_allocs counts what the code under test allocated and did not free:
 * it must be back to 0 when the method returns (cheaper per row than
 * LeakSanitizer, which is off).
 */
extern long uh_allocs;
static inline void *uh_alloc(void *p)
{
	if (p)
		uh_allocs++;
	return p;
}

static inline void uh_free(const void *p)
{
	if (p) {
		uh_allocs--;
		free((void *)p);
	}
}

static inline void *kmalloc(size_t n, gfp_t gfp) { (void)gfp; return uh_alloc(malloc(n ? n : 1)); }
static inline void *kzalloc(size_t n, gfp_t gfp)
{
	(void)gfp;
	return uh_alloc(calloc(1, n ? n : 1));
}

static inline void kfree(const void *p) { uh_free(p); }
static inline void *vmalloc(unsigned long n) { return uh_alloc(malloc(n ? n : 1)); }
static inline void vfree(const void *p) { uh_free(p); }
static inline unsigned long get_zeroed_page(gfp_t gfp)
{
	(void)gfp;
	return (unsigned long)uh_alloc(calloc(1, PAGE_SIZE));
}

static inline void free_page(unsigned long addr) { uh_free((void *)addr); }

static inline void memcpy_fromio(void *dst, const void __iomem *src, size_t n)
{
	memcpy(dst, (const void *)src, n);
}

/* ---- locks: only their balance is checked (uh_lock_depth back to 0) ---- */
extern int uh_lock_depth;
struct mutex { int held; };
typedef struct { int held; } spinlock_t;
#define DEFINE_MUTEX(name) struct mutex name = { 0 }
#define DEFINE_SPINLOCK(name) spinlock_t name = { 0 }
void uh_lock(int *held, const char *what);
void uh_unlock(int *held, const char *what);
#define mutex_lock(m) uh_lock(&(m)->held, "mutex")
#define mutex_unlock(m) uh_unlock(&(m)->held, "mutex")
#define spin_lock(l) uh_lock(&(l)->held, "spinlock")
#define spin_unlock(l) uh_unlock(&(l)->held, "spinlock")
#define spin_lock_irqsave(l, f) do { (f) = 0; uh_lock(&(l)->held, "spinlock"); } while (0)
#define spin_unlock_irqrestore(l, f) do { (void)(f); uh_unlock(&(l)->held, "spinlock"); } while (0)
static inline int mutex_lock_interruptible(struct mutex *m) { mutex_lock(m); return 0; }

/* ---- strings ---- */
static inline int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return (size_t)n >= size ? (int)(size - 1) : n;
}

/* ---- VFS: inode, file, kiocb, procfs ---- */
struct inode { void *i_private; };
struct file {
	struct inode *f_inode;
	void *private_data;
	unsigned int f_flags;
	loff_t f_pos;
};

struct kiocb {
	struct file *ki_filp;
	loff_t ki_pos;
	void (*ki_complete)(struct kiocb *iocb, long ret);
	int ki_flags;
};

/* include/linux/fs.h: read(2) and readv(2) pass a sync kiocb */
static inline bool is_sync_kiocb(struct kiocb *kiocb) { return !kiocb->ki_complete; }

/* include/linux/fs.h: RWF_NOWAIT; io_uring's first try of a read */
#define IOCB_NOWAIT 0x00000008
/* include/uapi/asm-generic/fcntl.h (the file's f_flags) */
#define O_NONBLOCK 00004000

static inline struct inode *file_inode(const struct file *f) { return f->f_inode; }

/* The PDE's ->data; the fixture sets inode->i_private. */
static inline void *pde_data(const struct inode *inode) { return inode->i_private; }

/* ---- iov_iter, as include/linux/uio.h of 6.1 lays it out ---- */
enum iter_type {
	ITER_IOVEC,
	ITER_KVEC,
	ITER_BVEC,
	ITER_PIPE,
	ITER_XARRAY,
	ITER_DISCARD,
	ITER_UBUF,
};

#define ITER_SOURCE 1
#define ITER_DEST 0

struct iov_iter {
	u8 iter_type;
	bool nofault;
	bool data_source;
	bool user_backed;
	size_t iov_offset;
	size_t count;
	union {
		const struct iovec *iov;
		void __user *ubuf;
	};
	unsigned long nr_segs;
};

static inline size_t iov_iter_count(const struct iov_iter *i) { return i->count; }
static inline bool iter_is_ubuf(const struct iov_iter *i) { return i->iter_type == ITER_UBUF; }
static inline bool iter_is_iovec(const struct iov_iter *i) { return i->iter_type == ITER_IOVEC; }
static inline bool iov_iter_is_kvec(const struct iov_iter *i) { return i->iter_type == ITER_KVEC; }
static inline bool iov_iter_is_bvec(const struct iov_iter *i) { return i->iter_type == ITER_BVEC; }
static inline bool user_backed_iter(const struct iov_iter *i) { return i->user_backed; }
/* include/linux/uio.h of 6.12: the current segment of a user iterator */
static inline void __user *iter_iov_addr(const struct iov_iter *i)
{
	if (i->iter_type == ITER_UBUF)
		return (char __user *)i->ubuf + i->iov_offset;
	return (char __user *)i->iov->iov_base + i->iov_offset;
}

static inline size_t iter_iov_len(const struct iov_iter *i)
{
	if (i->iter_type == ITER_UBUF)
		return i->count;
	return i->iov->iov_len - i->iov_offset;
}

static inline void iov_iter_ubuf(struct iov_iter *i, unsigned int direction,
				 void __user *buf, size_t count)
{
	memset(i, 0, sizeof(*i));
	i->iter_type = ITER_UBUF;
	i->data_source = direction;
	i->user_backed = true;
	i->ubuf = buf;
	i->count = count;
	i->nr_segs = 1;
}

size_t _copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i);
void iov_iter_advance(struct iov_iter *i, size_t bytes);
size_t fault_in_iov_iter_writeable(const struct iov_iter *i, size_t size);
void iov_iter_revert(struct iov_iter *i, size_t bytes);

/* include/linux/uio.h: check_copy_size() first, then the copy. */
#define copy_to_iter(addr, bytes, i) ({					\
	const void *__a = (addr);					\
	size_t __n = (bytes);						\
	long __sz = (long)__builtin_object_size(addr, 0);		\
	size_t __r = 0;							\
	if (__sz >= 0 && (size_t)__sz < __n)				\
		uh_warn("copy_to_iter: copy_overflow(%ld, %zu)", __sz, __n); \
	else if (__n > INT_MAX)						\
		uh_warn("copy_to_iter: WARN_ON_ONCE(bytes > INT_MAX), bytes %zu", __n); \
	else								\
		__r = _copy_to_iter(__a, __n, (i));			\
	__r; })

/* ---- what each fixture provides (fixtures/<name>.c) ---- */
struct uh_variant {
	const char *name;
	int arg;
};

extern const struct uh_variant uh_variants[];
extern const int uh_nvariants;
/* Set the fixture up for a variant: globals, pde data, file. */
void uh_setup(int variant, struct file *file);
/* The content the file must show for this variant (its semantics). */
size_t uh_image(int variant, const unsigned char **image);
/* Record files: record index (0 = end); weak default in uh_main.c. */
size_t uh_record(int variant, int index, const unsigned char **rec);
/* Call the converted method. */
ssize_t uh_read(int variant, struct kiocb *iocb, struct iov_iter *to);
/* After the call: the fixture's own checks (uh_warn on failure). */
void uh_check(int variant);
/* What the row's read returned, and its TYPE letter, for uh_check(). */
extern ssize_t uh_last_ret;
extern char uh_last_type;

void uh_hex(const char *tag, const void *buf, size_t len);

ssize_t simple_read_from_buffer_iter(struct iov_iter *to, loff_t *ppos,
				     const void *from, size_t available);

/*
 * Series v5 (6.12): an entry without PROC_ENTRY_ITER_WHOLE is read through
 * fs/proc/inode.c's proc_reg_read_iter_seg(), extracted from the tree into
 * the libfs unit when the tree has it (uharness.py defines UH_SEG_CORE);
 * its proc_reg_read_iter() is the fixture's uh_read(), counted.
 */
#ifdef UH_SEG_CORE
extern int uh_method_calls;
ssize_t proc_reg_read_iter(struct kiocb *iocb, struct iov_iter *iter);
/* the extracted static function, called from uh_main.c */
ssize_t uh_read_seg(struct kiocb *iocb, struct iov_iter *iter);
#endif

/*
 * access_ok()'s limit: TASK_SIZE_MAX of x86_64 with 4-level paging, or
 * of i386 with the default 3G/1G split.
 */
#if UINTPTR_MAX > 0xffffffffUL
#define UH_TASK_SIZE_MAX 0x7ffffffff000UL
#else
#define UH_TASK_SIZE_MAX 0xc0000000UL
#endif

/*
 * The differential (uharness.py defines UH_OLD when the fixture has
 * uh-extract-old lines and the tree has its "pristine" tag): the
 * pristine ->proc_read methods, renamed old_NAME, read the same rows
 * through the user-memory model, as the VFS called them before the
 * series (one call per readv(2) segment).
 */
#ifdef UH_OLD
unsigned long copy_to_user(void __user *to, const void *from, unsigned long n);
#define access_ok(addr, size)						\
	((unsigned long)(size) <= UH_TASK_SIZE_MAX &&			\
	 (unsigned long)(addr) <= UH_TASK_SIZE_MAX - (unsigned long)(size))
#define put_user(x, ptr) ({						\
	__typeof__(*(ptr)) __pu_v = (x);				\
	copy_to_user((ptr), &__pu_v, sizeof(__pu_v)) ? -EFAULT : 0; })
#define __put_user(x, ptr) put_user(x, ptr)
ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos,
				const void *from, size_t available);
/* the fixture's call of the pristine method */
ssize_t uh_read_old(int variant, struct file *file, char __user *buf,
		    size_t count, loff_t *ppos);
#endif

#endif /* UH_H */
