/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * setfs_probe: what user space and the KUnit suite share with the probe
 * module.  Included by the module, by kunit/ and by the user test binary.
 */
#ifndef _SETFS_PROBE_UAPI_H
#define _SETFS_PROBE_UAPI_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * Fixtures.  Every one holds setfs_pattern_byte(pos) at offset pos and
 * seeks like a file of "size" bytes (SETFS_SIZE_PARAM).
 *
 * SETFS_PROC_PATH: ->proc_read_iter and ->proc_lseek.
 * SETFS_PROC_LEGACY_PATH: the same bytes through the old ->proc_read; only
 *	built against kernels whose struct proc_ops still has ->proc_read
 *	(SETFS_INFO_PROC_LEGACY says whether it exists).
 * SETFS_DEV_PATH: misc device with ->read_iter and ->write_iter, no
 *	->splice_read or ->splice_write.
 * SETFS_DEV_LEGACY_PATH: misc device with ->read and ->write only.
 * SETFS_DEV_BOTH_PATH: misc device with ->read, ->read_iter, ->write and
 *	->write_iter, the combination __kernel_read() and __kernel_write()
 *	refuse with -EINVAL.
 *
 * Reads of the three devices return the pattern, whatever was written.
 * Writes to any of them store the bytes at the file position into one
 * store shared by the three devices, a copy of the pattern made at load
 * time; SETFS_IOC_INFO reports its checksum.  A write is short when it
 * reaches the end of the store and fails with -ENOSPC when it starts at
 * or beyond the end.  ->write_iter stores what it could copy (a fault
 * part way makes a short write, -EFAULT when nothing was copied); ->write
 * stores all or nothing (-EFAULT).
 */
#define SETFS_PROC_NAME		"setfs_probe"
#define SETFS_PROC_PATH		"/proc/" SETFS_PROC_NAME
#define SETFS_PROC_LEGACY_NAME	"setfs_probe_legacy"
#define SETFS_PROC_LEGACY_PATH	"/proc/" SETFS_PROC_LEGACY_NAME
#define SETFS_DEV_NAME		"setfs_probe"
#define SETFS_DEV_PATH		"/dev/" SETFS_DEV_NAME
#define SETFS_DEV_LEGACY_NAME	"setfs_probe_legacy"
#define SETFS_DEV_LEGACY_PATH	"/dev/" SETFS_DEV_LEGACY_NAME
#define SETFS_DEV_BOTH_NAME	"setfs_probe_both"
#define SETFS_DEV_BOTH_PATH	"/dev/" SETFS_DEV_BOTH_NAME
#define SETFS_CTL_NAME		"setfs_probe_ctl"
#define SETFS_CTL_PATH		"/dev/" SETFS_CTL_NAME
#define SETFS_SIZE_PARAM	"/sys/module/setfs_probe/parameters/size"

/*
 * setfs_pattern_byte() - the byte every fixture holds at offset @pos.
 *
 * Position dependent within a page and from page to page, so a read at a
 * wrong offset cannot return the expected bytes by accident.
 */
static inline unsigned char setfs_pattern_byte(unsigned long long pos)
{
	return (unsigned char)(pos ^ (pos >> 8) ^ (pos >> 16));
}

/*
 * setfs_checksum() - 64-bit FNV-1a of @len bytes at @buf.
 *
 * The checksum SETFS_IOC_INFO reports for kernel buffers, so that user
 * space can compute the expected value itself.
 */
static inline __u64 setfs_checksum(const void *buf, unsigned long len)
{
	const unsigned char *p = (const unsigned char *)buf;
	__u64 sum = 0xcbf29ce484222325ULL;

	while (len--) {
		sum ^= *p++;
		sum *= 0x100000001b3ULL;
	}
	return sum;
}

/*
 * The control device SETFS_CTL_PATH (root only).  Every ioctl runs in the
 * context of the calling task, so uaccess helpers see the caller's address
 * space and kernel_read()/kernel_write() open files as the caller.  An
 * ioctl returns 0 when it could run the operation, whatever the operation
 * returned (that is in the structure), and -1 with errno set when its
 * argument is malformed: EFAULT (structure or buffer not accessible),
 * EINVAL (unknown op or target, size out of range), ENAMETOOLONG (path not
 * NUL-terminated), ENOMEM, ENOTTY (unknown command).
 */
#define SETFS_IOC_MAGIC		0xf5

/* SETFS_IOC_INFO: constants of the running kernel and the module. */
#define SETFS_INFO_PROC_LEGACY	_BITULL(0)	/* SETFS_PROC_LEGACY_PATH exists */
/*
 * SETFS_INFO_PROC_OPS_READ: the kernel the module was built against has the
 * member ->proc_read in struct proc_ops, so a proc file may still read only
 * through it: read(2) works, but splice(2), sendfile(2) and kernel_read()
 * fail with EINVAL.  Without it every proc file has ->proc_read_iter.
 */
#define SETFS_INFO_PROC_OPS_READ	_BITULL(1)
/*
 * SETFS_INFO_MASKED_USER_COPY: copy_from_user() clamps the user address
 * with mask_user_address() instead of asking access_ok() for the whole
 * range (can_do_masked_user_access(): x86-64 from 6.12 on), so a range
 * that crosses TASK_SIZE_MAX copies the user bytes below it, up to the
 * fault, where access_ok() refused it whole.
 */
#define SETFS_INFO_MASKED_USER_COPY	_BITULL(2)
/*
 * SETFS_INFO_PROC_ITER_WHOLE: the kernel has the procfs series for 6.12,
 * where a ->proc_read_iter entry gets splice(2) and one call per readv(2)
 * only with PROC_ENTRY_ITER_WHOLE (SETFS_PROC_PATH sets it); the entries
 * it converts read one readv(2) segment per call and refuse splice(2)
 * and sendfile(2) with EINVAL, as their ->proc_read did.
 */
#define SETFS_INFO_PROC_ITER_WHOLE	_BITULL(3)
/*
 * SETFS_INFO_CLEAR_USER_WHOLE: clear_user() reports the whole size as not
 * cleared after a fault, having cleared what it could (arm's fixup in
 * arch/arm/lib/clear_user.S), where other architectures report the bytes
 * left from the fault on.
 */
#define SETFS_INFO_CLEAR_USER_WHOLE	_BITULL(4)
/*
 * SETFS_INFO_SEPARATE_USER_SPACE: user space is an address space of its
 * own (s390): copy_from_kernel_nofault() reads a user address as a
 * kernel one, and nf_user_ret holds for none (SETFS_SEPARATE_USER_SPACE).
 * SETFS_INFO_ACCESS_OK_ALL: access_ok() accepts every range, there or
 * without an MMU (SETFS_ACCESS_OK_ALL).
 */
#define SETFS_INFO_SEPARATE_USER_SPACE	_BITULL(5)
#define SETFS_INFO_ACCESS_OK_ALL	_BITULL(6)
/*
 * SETFS_INFO_NF_TOP_ALLOWED: copy_from_kernel_nofault_allowed() allows
 * TASK_SIZE and up, TASK_SIZE_MAX and the page after it included (arm,
 * arch/arm/mm/fault.c: its module area starts there), so they are not a
 * refused user address (SETFS_NF_TOP_ALLOWED).
 */
#define SETFS_INFO_NF_TOP_ALLOWED	_BITULL(7)

/*
 * setfs_ctl_info.nf_layout: whose kernel address-space layout the nofault
 * rows with fixed addresses (non-canonical, vsyscall page, guard hole,
 * below PAGE_OFFSET) are written for (SETFS_LAYOUT).
 */
#define SETFS_LAYOUT_OTHER	0	/* neither: those rows cannot be */
#define SETFS_LAYOUT_X86_64	1	/* canonical form, vsyscall page */
#define SETFS_LAYOUT_PPC64	2	/* quadrants, PAGE_OFFSET 0xc000... */

struct setfs_ctl_info {
	__u64 task_size_max;	/* TASK_SIZE_MAX: first address access_ok() refuses */
	__u64 page_size;	/* PAGE_SIZE */
	__u64 size;		/* bytes in every fixture */
	__u64 kbuf_addr;	/* kernel address of a module buffer of kbuf_size bytes */
	__u64 kbuf_size;
	__u64 kbuf_sum;		/* setfs_checksum() of that buffer now */
	__u64 store_sum;	/* setfs_checksum() of the devices' store now */
	__u64 flags;		/* SETFS_INFO_* */
	/*
	 * What copy_from_kernel_nofault() gives for a user address (NULL
	 * too): -ERANGE where copy_from_kernel_nofault_allowed() refuses it,
	 * -EFAULT where the read is tried and faults (SETFS_NF_USER_RET).
	 */
	__s64 nf_user_ret;
	/* SECTION_SIZE_BITS with CONFIG_SPARSEMEM (where /proc/kpage* end), else 0 */
	__u64 section_size_bits;
	/*
	 * Where mmap() without a hint maps for the caller: below
	 * DEFAULT_MAP_WINDOW where the architecture defines one (a hint
	 * above it reaches the rest, up to TASK_SIZE), else below TASK_SIZE.
	 */
	__u64 mmap_window;
	__u32 nf_layout;	/* SETFS_LAYOUT_* */
	/*
	 * How many bytes short of a fault a user copy may stop (copy_{to,
	 * from}_user(), clear_user(), and so read(2) and write(2) into a
	 * buffer that ends at an unmapped page): SETFS_UACCESS_SLACK.
	 */
	__u32 uaccess_slack;
};

/*
 * SETFS_IOC_KERNEL_READ, SETFS_IOC_KERNEL_WRITE: filp_open(path) read-only
 * (write-only), then kernel_read() (kernel_write()) of count bytes at pos
 * between a kernel buffer and the user buffer buf.
 */
#define SETFS_CTL_PATH_MAX	256
#define SETFS_CTL_RW_MAX	(1024 * 1024)	/* largest count */

struct setfs_ctl_rw {
	char path[SETFS_CTL_PATH_MAX];	/* in: NUL-terminated */
	__u64 buf;		/* in: user buffer, destination (read) or source (write) */
	__u64 count;		/* in: bytes, at most SETFS_CTL_RW_MAX */
	__s64 pos;		/* in: file position; out: position after the call */
	__s64 open_ret;		/* out: 0, or -errno of filp_open() (then ret is 0) */
	__s64 ret;		/* out: bytes read (copied to buf) or written, or -errno */
};

/*
 * SETFS_IOC_UACCESS: one uaccess helper on the user address addr.
 *
 *   op                         size            ret                  value/data
 *   SETFS_UA_GET_USER          1, 2, 4, 8      get_user()           out: value (0 on error)
 *   SETFS_UA_PUT_USER          1, 2, 4, 8      put_user()           in: value
 *   SETFS_UA_COPY_FROM_USER    0..64           bytes not copied     out: data (tail zeroed)
 *   SETFS_UA_COPY_TO_USER      0..64           bytes not copied     in: data
 *   SETFS_UA_STRNCPY_FROM_USER 0..64 (count)   strncpy_from_user()  out: data
 *   SETFS_UA_CLEAR_USER        any             bytes not cleared    -
 *   SETFS_UA_ACCESS_OK         any             access_ok(): 1 or 0  -
 *
 * Kernel buffers start filled with SETFS_UA_FILL so that bytes a helper
 * did not write are visible.
 */
#define SETFS_UA_DATA_MAX	64
#define SETFS_UA_FILL		0xa5

enum setfs_ua_op {
	SETFS_UA_GET_USER,
	SETFS_UA_PUT_USER,
	SETFS_UA_COPY_FROM_USER,
	SETFS_UA_COPY_TO_USER,
	SETFS_UA_STRNCPY_FROM_USER,
	SETFS_UA_CLEAR_USER,
	SETFS_UA_ACCESS_OK,
};

struct setfs_ctl_uaccess {
	__u64 op;		/* in: enum setfs_ua_op */
	__u64 addr;		/* in: user address */
	__u64 size;		/* in: bytes */
	__u64 value;		/* in/out: see the table */
	__s64 ret;		/* out: see the table */
	__u8 data[SETFS_UA_DATA_MAX];	/* in/out: see the table */
};

/*
 * SETFS_IOC_NOFAULT: get_kernel_nofault() of a u64 (SETFS_NF_GET) or
 * copy_from_kernel_nofault() of size bytes, 1..8 (SETFS_NF_COPY), at an
 * address of the class target.  addr returns the address used, value the
 * bytes read, or 0 when the helper failed (its destination is undefined
 * then, so the module does not pass it on).
 */
enum setfs_nf_op {
	SETFS_NF_GET,
	SETFS_NF_COPY,
};

enum setfs_nf_target {
	SETFS_NF_GLOBAL,	/* a module global holding SETFS_NF_MAGIC */
	SETFS_NF_NULL,		/* address 0 */
	SETFS_NF_VMALLOC_GUARD,	/* the guard page after a vmalloc(PAGE_SIZE) */
	SETFS_NF_ADDR,		/* addr as given: user, hole, vsyscall... */
};

#define SETFS_NF_MAGIC		0x5e7f5a11c0ffee01ULL

struct setfs_ctl_nofault {
	__u64 op;		/* in: enum setfs_nf_op */
	__u64 target;		/* in: enum setfs_nf_target */
	__u64 addr;		/* in: for SETFS_NF_ADDR; out: the address used */
	__u64 size;		/* in: for SETFS_NF_COPY */
	__s64 ret;		/* out: 0, -EFAULT or -ERANGE */
	__u64 value;		/* out */
};

/*
 * SETFS_IOC_BENCH_KERNEL_READ: filp_open(path) read-only, then a loop of
 * "calls" kernel_read() calls of count bytes into a kernel buffer, each
 * at position 0, timed with ktime_get_ns() around the loop (the open, the
 * buffer allocation and the close are not timed).  The loop stops at the
 * first call that returns an error: ret is then that -errno and calls the
 * number of calls that succeeded before it; otherwise calls is the calls
 * asked for and ret the byte count of the last call.  A fatal signal
 * stops the loop with ret -EINTR.  Files kernel_read() refuses (->read
 * only, or ->read and ->read_iter) give ret -EINVAL and calls 0.
 *
 * Bounds, so that one ioctl cannot keep the task busy for long: calls is
 * 1..SETFS_CTL_BENCH_CALLS_MAX, count 1..SETFS_CTL_BENCH_COUNT_MAX and
 * calls * count at most SETFS_CTL_BENCH_BYTES_MAX; anything else is
 * EINVAL from the ioctl itself.  The loop calls cond_resched() between
 * calls.  ns has the resolution of the clocksource: a jiffies one (a
 * TCG guest with two CPUs) gives 0 for a loop shorter than a tick.
 */
#define SETFS_CTL_BENCH_CALLS_MAX	1000000
#define SETFS_CTL_BENCH_COUNT_MAX	(64 * 1024)
#define SETFS_CTL_BENCH_BYTES_MAX	_BITULL(32)

struct setfs_ctl_bench {
	char path[SETFS_CTL_PATH_MAX];	/* in: NUL-terminated */
	__u64 count;		/* in: bytes per kernel_read() */
	__u64 calls;		/* in: kernel_read() calls to make; out: calls that succeeded */
	__u64 ns;		/* out: ktime_get_ns() around the loop */
	__u64 bytes;		/* out: bytes read by all the calls */
	__s64 open_ret;		/* out: 0, or -errno of filp_open() (then calls is 0) */
	__s64 ret;		/* out: bytes of the last call, or the -errno that stopped it */
};

/*
 * SETFS_IOC_PROC_RECREATE: removes SETFS_PROC_PATH and, if built,
 * SETFS_PROC_LEGACY_PATH with proc_remove(), which waits until no reader
 * is inside their methods, then creates them again.  Files opened before
 * stay stale (fs/proc/inode.c, use_pde()): read, splice and sendfile fail
 * with EIO, lseek with EINVAL.  An open between removal and creation
 * fails with ENOENT.  Returns 0, or -1 with ENOMEM if an entry could not
 * be created again (it is absent then).
 */
#define SETFS_IOC_INFO		_IOR(SETFS_IOC_MAGIC, 0, struct setfs_ctl_info)
#define SETFS_IOC_KERNEL_READ	_IOWR(SETFS_IOC_MAGIC, 1, struct setfs_ctl_rw)
#define SETFS_IOC_KERNEL_WRITE	_IOWR(SETFS_IOC_MAGIC, 2, struct setfs_ctl_rw)
#define SETFS_IOC_UACCESS	_IOWR(SETFS_IOC_MAGIC, 3, struct setfs_ctl_uaccess)
#define SETFS_IOC_NOFAULT	_IOWR(SETFS_IOC_MAGIC, 4, struct setfs_ctl_nofault)
#define SETFS_IOC_BENCH_KERNEL_READ	_IOWR(SETFS_IOC_MAGIC, 8, struct setfs_ctl_bench)
#define SETFS_IOC_PROC_RECREATE	_IO(SETFS_IOC_MAGIC, 5)

#endif /* _SETFS_PROBE_UAPI_H */
