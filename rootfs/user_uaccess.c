// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_uaccess: the uaccess helpers at the top of the user address
 * space, run by the control device on addresses of this process.  Seed
 * "x86: remove address space overrides using set_fs()" made the limit the
 * constant TASK_SIZE_MAX (x86_64, 4-level paging: 2^47 - PAGE_SIZE):
 *
 * - get_user()/put_user() of n bytes (arch/x86/lib/getuser.S, putuser.S)
 *   compare the address with TASK_SIZE_MAX - (n - 1) and fail with
 *   -EFAULT at or above it: the last n bytes below TASK_SIZE_MAX work,
 *   one byte higher does not, and a fault on an unmapped user page is
 *   -EFAULT from the exception table.
 * - access_ok(addr, size) is asm-generic __access_ok(): size <= limit &&
 *   addr <= limit - size, so size 0 is fine up to and including the limit
 *   and no size or address can wrap around.
 * - copy_{from,to}_user() and clear_user() refuse the whole range when
 *   access_ok() fails and return the bytes not copied (copy_from_user()
 *   zeroes them in the kernel buffer); on a fault the x86 copy loops fall
 *   back to bytes, so a copy that runs into an unmapped page is exact.
 * - strncpy_from_user() stops at TASK_SIZE_MAX: -EFAULT when it gets
 *   there before the NUL and before count bytes.
 *
 * powerpc64 (arch/powerpc/include/asm/uaccess.h) gives every row the same
 * answer by other means: TASK_SIZE_MAX is TASK_SIZE_USER64 (2^52 with 64K
 * pages), access_ok() is the same asm-generic __access_ok(), get_user()
 * and put_user() check access_ok(ptr, n) before the access (so the last n
 * bytes work and one byte higher is -EFAULT) and zero the value on a
 * fault; __copy_tofrom_user() and __arch_clear_user() redo a faulting
 * copy byte by byte, so they are exact too.
 *
 * s390 (user space is an address space of its own, TASK_SIZE_MAX is
 * -PAGE_SIZE) has access_ok() accept every range (SETFS_INFO_ACCESS_OK_ALL):
 * its rows say yes, and a copy across TASK_SIZE_MAX copies up to it and
 * faults there (ua_want()).
 *
 * Every address derives from TASK_SIZE_MAX and PAGE_SIZE as INFO reports
 * them: with 5-level paging (x86_64-la57) the rows run at 2^56, on
 * powerpc64 at 2^52 with 64K pages.  A MAP_FIXED_NOREPLACE mapping above
 * 2^47 needs no opt-in, unlike a hint (setfs_user_paging).
 *
 * The mappings: the highest user page (MAP_FIXED_NOREPLACE at
 * TASK_SIZE_MAX - PAGE_SIZE), the page below it unmapped (the hole), and
 * elsewhere a page followed by an unmapped one (the edge).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "setfs_user.h"

static struct {
	unsigned long top;	/* TASK_SIZE_MAX */
	unsigned long page;
	unsigned char *last;	/* the highest user page */
	unsigned char *hole;	/* the page below it, unmapped */
	unsigned char *low;	/* a page followed by an unmapped one... */
	unsigned char *edge;	/* ...which starts here */
	unsigned long kbuf;	/* kernel address of the module's buffer */
} ua;

/* What the two mapped pages must hold after a case. */
static unsigned char *model_last, *model_low;

static const char *uaccess_setup(void)
{
	struct setfs_ctl_info info;
	void *p;

	if (!ctl_info(&info))
		return "SETFS_IOC_INFO failed";
	ua.top = info.task_size_max;
	ua.page = info.page_size;
	ua.kbuf = info.kbuf_addr;
	ua.last = (unsigned char *)(ua.top - ua.page);
	ua.hole = ua.last - ua.page;

	p = mmap(ua.last, ua.page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != ua.last)
		return "mmap of the highest user page failed (already mapped?)";
	/* Proves the hole was free, then keeps it free. */
	p = mmap(ua.hole, ua.page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED_NOREPLACE, -1, 0);
	if (p != ua.hole)
		return "the page below the highest user page is mapped";
	munmap(ua.hole, ua.page);

	p = mmap(NULL, 2 * ua.page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return "mmap of two pages failed";
	ua.low = p;
	ua.edge = ua.low + ua.page;
	munmap(ua.edge, ua.page);

	model_last = malloc(ua.page);
	model_low = malloc(ua.page);
	if (!model_last || !model_low)
		return "out of memory";
	return NULL;
}

static void uaccess_teardown(void)
{
	munmap(ua.last, ua.page);
	munmap(ua.low, ua.page);
	free(model_last);
	free(model_low);
}

/* Fresh contents for both pages, and the same in their models. */
static void refill(void)
{
	size_t i;

	for (i = 0; i < ua.page; i++) {
		ua.last[i] = 0x40 + (i & 0x3f);
		ua.low[i] = 0x80 + (i & 0x3f);
	}
	memcpy(model_last, ua.last, ua.page);
	memcpy(model_low, ua.low, ua.page);
}

/* The model byte for user address @addr, NULL outside the two pages. */
static unsigned char *model_at(unsigned long addr)
{
	unsigned long last = (unsigned long)ua.last;
	unsigned long low = (unsigned long)ua.low;

	if (addr >= last && addr < last + ua.page)
		return model_last + (addr - last);
	if (addr >= low && addr < low + ua.page)
		return model_low + (addr - low);
	return NULL;
}

/* Copies between the model and @buf, byte by byte, for @len bytes. */
static void model_read(unsigned long addr, unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = model_at(addr + i) ? *model_at(addr + i) : 0;
}

static void model_write(unsigned long addr, const unsigned char *buf,
			size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (model_at(addr + i))
			*model_at(addr + i) = buf[i];
}

enum ua_base {
	AT_TOP,		/* TASK_SIZE_MAX */
	AT_LAST,	/* the highest user page */
	AT_HOLE,	/* the unmapped page below it */
	AT_EDGE,	/* the unmapped page after a mapped one */
	AT_KBUF,	/* a kernel address (module global) */
	AT_ZERO,	/* off is the address */
};

enum ua_size {
	SZ_BYTES,	/* size as given */
	SZ_PAGE,	/* PAGE_SIZE + size */
	SZ_TOP,		/* TASK_SIZE_MAX + size */
};

/*
 * Which copy_from_user() a row is for (SETFS_INFO_MASKED_USER_COPY): the
 * row of the other kind skips, saying so.
 */
enum ua_copy {
	UA_COPY_ANY,
	UA_COPY_ACCESS_OK,	/* access_ok() on the whole range first */
	UA_COPY_MASKED,		/* mask_user_address(), then copy to the fault */
};

struct ua_row {
	const char *name;
	unsigned int op;
	enum ua_base base;
	long long off;
	unsigned long long size;
	enum ua_size unit;
	long long ret;
	const char *place;	/* placed at the address first... */
	size_t place_len;	/* ...this many bytes of it */
	enum ua_copy copy;
};

/*
 * A row of SETFS_UA_<OP> (the edges of GET_PUT_ROWS() and COPY_ROWS()).
 * The table is written in sets of rows (KTAP_TABLE_SETS()): the macros
 * below give a set each.
 */
#define UA(n, OP, b, o, s, r) \
	{ n, SETFS_UA_##OP, b, o, s, SZ_BYTES, r, NULL, 0, UA_COPY_ANY }
#define UA_SET_MAX 14
#define CLR(n, b, o, s, r) \
	{ { n, SETFS_UA_CLEAR_USER, b, o, s, SZ_BYTES, r, NULL, 0, UA_COPY_ANY } }
#define STR(n, b, o, s, r, p, l) \
	{ { n, SETFS_UA_STRNCPY_FROM_USER, b, o, s, SZ_BYTES, r, p, l, \
	    UA_COPY_ANY } }
#define UAC(n, OP, b, o, s, r, c) \
	{ { n, SETFS_UA_##OP, b, o, s, SZ_BYTES, r, NULL, 0, c } }
#define AOK(n, b, o, s, u, r) \
	{ { n, SETFS_UA_ACCESS_OK, b, o, s, u, r, NULL, 0, UA_COPY_ANY } }

/*
 * get_user() and put_user() meet the same edges, with the same results:
 * op_user_... rows of SETFS_UA_OP_USER.
 */
#define GET_PUT_ROWS(op, OP) {						\
	UA(#op "_user_1_last_byte", OP##_USER,				\
	   AT_TOP, -1, 1, 0),						\
	UA(#op "_user_2_last_bytes", OP##_USER,				\
	   AT_TOP, -2, 2, 0),						\
	UA(#op "_user_4_last_bytes", OP##_USER,				\
	   AT_TOP, -4, 4, 0),						\
	UA(#op "_user_8_last_bytes", OP##_USER,				\
	   AT_TOP, -8, 8, 0),						\
	UA(#op "_user_2_straddles_task_size_max", OP##_USER,		\
	   AT_TOP, -1, 2, -EFAULT),					\
	UA(#op "_user_4_straddles_task_size_max", OP##_USER,		\
	   AT_TOP, -3, 4, -EFAULT),					\
	UA(#op "_user_8_straddles_task_size_max", OP##_USER,		\
	   AT_TOP, -7, 8, -EFAULT),					\
	UA(#op "_user_1_at_task_size_max", OP##_USER,			\
	   AT_TOP, 0, 1, -EFAULT),					\
	UA(#op "_user_2_at_task_size_max", OP##_USER,			\
	   AT_TOP, 0, 2, -EFAULT),					\
	UA(#op "_user_4_at_task_size_max", OP##_USER,			\
	   AT_TOP, 0, 4, -EFAULT),					\
	UA(#op "_user_8_at_task_size_max", OP##_USER,			\
	   AT_TOP, 0, 8, -EFAULT),					\
	UA(#op "_user_8_kernel_address", OP##_USER,			\
	   AT_KBUF, 0, 8, -EFAULT),					\
	UA(#op "_user_8_unmapped_page", OP##_USER,			\
	   AT_HOLE, 0, 8, -EFAULT),					\
	UA(#op "_user_4_null", OP##_USER,				\
	   AT_ZERO, 0, 4, -EFAULT) }

/* copy_from_user() and copy_to_user(): the same edges, the same counts. */
#define COPY_ROWS(op, OP) {						\
	UA(#op "_user_last_16_bytes", OP##_USER,			\
	   AT_TOP, -16, 16, 0),						\
	UA(#op "_user_zero_bytes_at_task_size_max", OP##_USER,		\
	   AT_TOP, 0, 0, 0),						\
	UA(#op "_user_partial_before_unmapped", OP##_USER,		\
	   AT_EDGE, -8, 16, 8),						\
	UA(#op "_user_kernel_address", OP##_USER,			\
	   AT_KBUF, 0, 16, 16) }

static const struct ua_row ua_rows[][UA_SET_MAX] = {
	GET_PUT_ROWS(get, GET),
	GET_PUT_ROWS(put, PUT),
	COPY_ROWS(copy_from, COPY_FROM),
	COPY_ROWS(copy_to, COPY_TO),
	/*
	 * 16 bytes from TASK_SIZE_MAX - 8: copy_to_user() asks access_ok()
	 * and refuses the range whole.  copy_from_user() did too until
	 * x86-64 6.12 masks the address instead (2865baf54077, "x86:
	 * support user address masking instead of non-speculative
	 * conditional"): there it copies the 8 user bytes and faults at
	 * TASK_SIZE_MAX, and the kernel says which it does.
	 */
	UAC("copy_to_user_straddles_task_size_max", COPY_TO_USER, AT_TOP, -8,
	    16, 16, UA_COPY_ANY),
	UAC("copy_from_user_straddles_task_size_max_refused", COPY_FROM_USER,
	    AT_TOP, -8, 16, 16, UA_COPY_ACCESS_OK),
	UAC("copy_from_user_straddles_task_size_max_masked_copies_8",
	    COPY_FROM_USER, AT_TOP, -8, 16, 8, UA_COPY_MASKED),
	STR("strncpy_from_user_nul_before_task_size_max", AT_TOP, -4, 16, 3,
	    "abc", 4),
	STR("strncpy_from_user_no_nul_before_task_size_max", AT_TOP, -4, 16,
	    -EFAULT, "abcd", 4),
	STR("strncpy_from_user_count_reached_at_task_size_max", AT_TOP, -4, 4,
	    4, "abcd", 4),
	STR("strncpy_from_user_at_task_size_max", AT_TOP, 0, 16, -EFAULT,
	    NULL, 0),
	STR("strncpy_from_user_kernel_address", AT_KBUF, 0, 16, -EFAULT,
	    NULL, 0),
	STR("strncpy_from_user_unmapped_page", AT_HOLE, 0, 16, -EFAULT,
	    NULL, 0),
	STR("strncpy_from_user_no_nul_before_unmapped", AT_EDGE, -4, 16,
	    -EFAULT, "abcd", 4),
	CLR("clear_user_last_16_bytes", AT_TOP, -16, 16, 0),
	CLR("clear_user_straddles_task_size_max", AT_TOP, -8, 16, 16),
	CLR("clear_user_partial_before_unmapped", AT_EDGE, -8, 16, 8),
	CLR("clear_user_kernel_address", AT_KBUF, 0, 16, 16),
	/*
	 * 2 GiB from an address in the unmapped page 0: access_ok() lets
	 * it through on every target, and the first store faults, so
	 * nothing is cleared.  A size of 2^31 or more is negative to a
	 * signed compare: 32-bit ARM's arm_clear_user() ("cmp r1, #4;
	 * blt") then returns 0, all cleared, having stored nothing.
	 */
	CLR("clear_user_2g_from_page_0", AT_ZERO, 0x10, 1ULL << 31, 1ULL << 31),
	AOK("access_ok_last_byte", AT_TOP, -1, 1, SZ_BYTES, 1),
	AOK("access_ok_at_task_size_max", AT_TOP, 0, 1, SZ_BYTES, 0),
	AOK("access_ok_straddles_task_size_max", AT_TOP, -1, 2, SZ_BYTES, 0),
	AOK("access_ok_zero_size_at_task_size_max", AT_TOP, 0, 0, SZ_BYTES, 1),
	AOK("access_ok_last_page", AT_LAST, 0, 0, SZ_PAGE, 1),
	AOK("access_ok_last_page_and_a_byte", AT_LAST, 0, 1, SZ_PAGE, 0),
	AOK("access_ok_null_zero_size", AT_ZERO, 0, 0, SZ_BYTES, 1),
	AOK("access_ok_whole_user_space", AT_ZERO, 0, 0, SZ_TOP, 1),
	AOK("access_ok_beyond_user_space", AT_ZERO, 0, 1, SZ_TOP, 0),
	AOK("access_ok_wrapping_size", AT_ZERO, 1, ~0ULL, SZ_BYTES, 0),
	AOK("access_ok_wrapping_address", AT_ZERO, -1, 1, SZ_BYTES, 0),
	AOK("access_ok_kernel_address", AT_KBUF, 0, 1, SZ_BYTES, 0),
};

static unsigned long row_addr(const struct ua_row *r)
{
	unsigned long base = 0;

	switch (r->base) {
	case AT_TOP:
		base = ua.top;
		break;
	case AT_LAST:
		base = (unsigned long)ua.last;
		break;
	case AT_HOLE:
		base = (unsigned long)ua.hole;
		break;
	case AT_EDGE:
		base = (unsigned long)ua.edge;
		break;
	case AT_KBUF:
		base = ua.kbuf;
		break;
	case AT_ZERO:
		break;
	}
	return base + r->off;
}

/*
 * The value get_user() of N bytes (1, 2, 4 or 8) at B gives, and the bytes
 * put_user() of the low N bytes of V stores: in the machine's byte order
 * (s390 is big-endian).
 */
static unsigned long long native_value(const unsigned char *b, size_t n)
{
	__u8 v1;
	__u16 v2;
	__u32 v4;
	__u64 v8;

	switch (n) {
	case 1:
		memcpy(&v1, b, 1);
		return v1;
	case 2:
		memcpy(&v2, b, 2);
		return v2;
	case 4:
		memcpy(&v4, b, 4);
		return v4;
	default:
		memcpy(&v8, b, 8);
		return v8;
	}
}

static void native_bytes(unsigned long long v, size_t n, unsigned char *b)
{
	__u8 v1 = v;
	__u16 v2 = v;
	__u32 v4 = v;
	__u64 v8 = v;

	switch (n) {
	case 1:
		memcpy(b, &v1, 1);
		break;
	case 2:
		memcpy(b, &v2, 2);
		break;
	case 4:
		memcpy(b, &v4, 4);
		break;
	default:
		memcpy(b, &v8, 8);
		break;
	}
}

/* Checks the kernel buffer of a copy: copied bytes, zeroes, fill. */
static bool check_ua_data(const struct ua_row *r, long long ret,
			  const struct setfs_ctl_uaccess *c,
			  unsigned long addr)
{
	unsigned char want[SETFS_UA_DATA_MAX];
	size_t copied = r->size - ret, n = r->size;

	memset(want, SETFS_UA_FILL, sizeof(want));
	if (r->op == SETFS_UA_COPY_FROM_USER) {
		model_read(addr, want, copied);
		memset(want + copied, 0, n - copied);
	} else if (ret >= 0) {
		/* strncpy_from_user(): the string and its NUL if it got there. */
		copied = ret < (long long)n ? (size_t)ret + 1 : n;
		model_read(addr, want, copied);
	} else {
		return true;	/* -EFAULT: "some data may have been copied" */
	}
	return check_mem("kernel buffer", c->data, want, sizeof(want));
}

/*
 * What the row's result must be, given what the kernel returned: r->ret,
 * or, for a copy or clear that runs into an unmapped page, anything from
 * r->ret (every byte before the fault) to uaccess_slack() more bytes
 * left (the kernel says how many).  A copy must still store something
 * when something could be stored (include/linux/uaccess.h): at most
 * size - 1 left.
 * clear_user() has no such rule, and where the kernel says
 * SETFS_INFO_CLEAR_USER_WHOLE (arm's fixup) it returns the whole size on
 * any fault: up to size.
 */
static long long ua_want(const struct ua_row *r, long long got)
{
	bool partial = r->base == AT_EDGE && r->ret > 0 &&
		       r->ret < (long long)r->size &&
		       (r->op == SETFS_UA_COPY_FROM_USER ||
			r->op == SETFS_UA_COPY_TO_USER ||
			r->op == SETFS_UA_CLEAR_USER);
	long long max = r->op == SETFS_UA_CLEAR_USER ? (long long)r->size :
			(long long)r->size - 1;
	const struct setfs_ctl_info *k = kernel_facts();
	bool whole = k && (k->flags & SETFS_INFO_CLEAR_USER_WHOLE);
	long long hi = r->op == SETFS_UA_CLEAR_USER && whole ?
		       max : r->ret + (long long)uaccess_slack();

	bool all = k && (k->flags & SETFS_INFO_ACCESS_OK_ALL);

	/*
	 * access_ok() accepts every range (SETFS_INFO_ACCESS_OK_ALL, s390):
	 * it says yes, and a copy across TASK_SIZE_MAX copies up to it and
	 * faults there, leaving the bytes at and above it.
	 */
	if (all && r->op == SETFS_UA_ACCESS_OK)
		return 1;
	if (all && r->base == AT_TOP && r->off < 0 &&
	    r->off + (long long)r->size > 0 &&
	    (r->op == SETFS_UA_COPY_FROM_USER ||
	     r->op == SETFS_UA_COPY_TO_USER || r->op == SETFS_UA_CLEAR_USER))
		return r->off + (long long)r->size;
	if (hi > max)
		hi = max;
	if (!partial || got == r->ret || got < r->ret || got > hi)
		return r->ret;
	diag("%lld of %llu bytes left, %lld up to the fault: %s",
	     got, r->size, r->ret, r->op == SETFS_UA_CLEAR_USER ?
	     "SETFS_INFO_CLEAR_USER_WHOLE" : "within uaccess_slack()");
	return got;
}

static enum case_result run_ua_row(const void *data)
{
	const struct ua_row *r = data;
	unsigned long addr = row_addr(r);
	struct setfs_ctl_info before, after;
	struct setfs_ctl_uaccess c = { 0 };
	unsigned char bytes[SETFS_UA_DATA_MAX];
	long long want;
	size_t i;
	bool ok;

	refill();
	if (r->place) {
		memcpy((void *)addr, r->place, r->place_len);
		model_write(addr, (const unsigned char *)r->place,
			    r->place_len);
	}
	c.op = r->op;
	c.addr = addr;
	c.size = r->size;
	if (r->unit == SZ_PAGE)
		c.size += ua.page;
	else if (r->unit == SZ_TOP)
		c.size += ua.top;
	c.value = 0x8877665544332211ULL;
	for (i = 0; i < sizeof(c.data); i++)
		c.data[i] = 0xc0 + i;
	if (r->copy != UA_COPY_ANY) {
		bool masked, want_masked = r->copy == UA_COPY_MASKED;

		if (!ctl_info(&before))
			return CASE_FAIL;
		masked = before.flags & SETFS_INFO_MASKED_USER_COPY;
		if ((before.flags & SETFS_INFO_ACCESS_OK_ALL) && !want_masked)
			return ktap_skip("access_ok() accepts every range here");
		masked |= before.flags & SETFS_INFO_ACCESS_OK_ALL;
		if (masked && !want_masked)
			return ktap_skip("copy_from_user() masks the address here");
		if (!masked && want_masked)
			return ktap_skip("copy_from_user() asks access_ok() here");
	}
	if (!ctl_info(&before) ||
	    !ctl_call(SETFS_IOC_UACCESS, &c, "SETFS_IOC_UACCESS") ||
	    !ctl_info(&after))
		return CASE_FAIL;

	want = ua_want(r, c.ret);
	ok = check_kret("result", c.ret, want);
	switch (r->op) {
	case SETFS_UA_GET_USER:
		model_read(addr, bytes, r->size);
		ok = ok && check_hex("value read", c.value,
				     r->ret ? 0 : native_value(bytes, r->size));
		break;
	case SETFS_UA_PUT_USER:
		if (!r->ret) {
			native_bytes(c.value, r->size, bytes);
			model_write(addr, bytes, r->size);
		}
		break;
	case SETFS_UA_COPY_TO_USER:
		model_write(addr, c.data, r->size - want);
		break;
	case SETFS_UA_CLEAR_USER:
		memset(bytes, 0, sizeof(bytes));
		model_write(addr, bytes, r->size - want);
		/*
		 * Stopped short (SETFS_INFO_CLEAR_USER_WHOLE): arm's clear_user()
		 * returns the whole size on a fault, after clearing what it
		 * could.  Each byte it says it did not clear is as it was or
		 * 0; the model takes what is there.
		 */
		for (i = r->size - want; i < (size_t)(r->size - r->ret); i++) {
			unsigned char *p = (unsigned char *)addr + i;
			unsigned char *m = model_at(addr + i);

			if (!m)
				continue;
			if (*p && *p != *m) {
				diag("byte %zu: 0x%02x, neither 0 nor what it was",
				     i, *p);
				ok = false;
			}
			*m = *p;
		}
		break;
	case SETFS_UA_COPY_FROM_USER:
	case SETFS_UA_STRNCPY_FROM_USER:
		ok = ok && check_ua_data(r, want, &c, addr);
		break;
	}
	ok = ok && check_mem("highest user page", ua.last, model_last, ua.page) &&
	     check_mem("page before the unmapped one", ua.low, model_low,
		       ua.page) &&
	     check_hex("kernel buffer checksum", after.kbuf_sum,
		       before.kbuf_sum);
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * The same partial copy through a file: write(2) and read(2) at offset 0
 * of a tmpfs file, the buffer ending at the unmapped page with only
 * @readable bytes before it.  generic_perform_write() copies with page
 * faults disabled; when that copies nothing it faults the buffer in and
 * tries again, and stops with -EFAULT only when
 * fault_in_iov_iter_readable() finds nothing readable.  Here some bytes
 * are, so an architecture whose copy stores none of them (against
 * include/linux/uaccess.h) makes write(2) retry until a fatal signal,
 * and read(2) fail with EFAULT.  The call runs in a child with SIGALRM
 * after FILE_SECONDS; the parent reports what it returned, or that it
 * never did.  Expected: @readable bytes, or down to uaccess_slack()
 * fewer, but never none.  16 bytes with 8 readable is less than one
 * block of ARM's copy loop; 256 with 40 readable starts riscv's word
 * loop, eight 8-byte registers at a time; 1024 is above riscv's vector
 * threshold (768 by default, from 6.5 on), whose fault hands the rest to
 * the same word loop.
 */
#define FILE_PATH	"/tmp/setfs_uaccess_file"
#define FILE_SECONDS	10
#define FILE_MAX	1024

struct file_row {
	const char *name;
	bool write;
	size_t size;
	size_t readable;
};

static const struct file_row file_rows[] = {
	{ "file_write_partial_before_unmapped", true, 16, 8 },
	{ "file_read_partial_before_unmapped", false, 16, 8 },
	{ "file_write_256_with_40_before_unmapped", true, 256, 40 },
	{ "file_read_256_with_40_before_unmapped", false, 256, 40 },
	{ "file_write_1024_with_40_before_unmapped", true, FILE_MAX, 40 },
	{ "file_read_1024_with_40_before_unmapped", false, FILE_MAX, 40 },
};

static enum case_result file_fail(const char *what, int fd)
{
	int err = errno;

	diag("%s: %s", what, strerror(err));
	if (fd >= 0)
		close(fd);
	return CASE_FAIL;
}

/*
 * In the child: the call, its result down the pipe, then for a read the
 * bytes it says it read (the parent cannot see the child's memory).
 * SIGALRM is made fatal here whatever the parent's groups did with it.
 */
static void file_child(const struct file_row *r, int fd, int out)
{
	unsigned char *buf = ua.edge - r->readable;
	long long ret;
	sigset_t set;

	signal(SIGALRM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	alarm(FILE_SECONDS);
	ret = r->write ? pwrite(fd, buf, r->size, 0) :
			 pread(fd, buf, r->size, 0);
	if (ret < 0)
		ret = -errno;
	if (write(out, &ret, sizeof(ret)) != sizeof(ret))
		_exit(1);
	if (!r->write && ret > 0 && write(out, buf, ret) != ret)
		_exit(1);
	_exit(0);
}

/* The bytes the call moved are what they should be: 'b' written, 'f' read. */
static bool file_bytes_ok(const struct file_row *r, int fd, int in,
			  long long ret)
{
	unsigned char got[FILE_MAX], want[FILE_MAX];
	struct stat st;

	if (ret <= 0)
		return true;
	memset(want, r->write ? 'b' : 'f', ret);
	if (r->write) {
		if (fstat(fd, &st) || st.st_size != ret) {
			diag("write(2) returned %lld, the file has %lld bytes",
			     ret, (long long)st.st_size);
			return false;
		}
		if (pread(fd, got, ret, 0) != ret) {
			diag("reading the file back: %s", strerror(errno));
			return false;
		}
	} else if (read(in, got, ret) != ret) {
		diag("the child's bytes did not come");
		return false;
	}
	return check_mem("bytes moved", got, want, ret);
}

static enum case_result run_file_row(const void *data)
{
	const struct file_row *r = data;
	const char *what = r->write ? "write(2)" : "read(2)";
	long long ret = 0, lo = (long long)r->readable - (long long)uaccess_slack();
	unsigned char bytes[FILE_MAX];
	int fd, pfd[2], status;
	bool ok;
	pid_t pid, w;

	if (!kernel_facts()) {
		diag("no kernel facts: SETFS_IOC_INFO failed");
		return CASE_FAIL;
	}
	memset(bytes, 'f', sizeof(bytes));
	memset(ua.edge - r->readable, 'b', r->readable);
	fd = open(FILE_PATH, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return file_fail("open " FILE_PATH, -1);
	unlink(FILE_PATH);
	if (!r->write && pwrite(fd, bytes, r->size, 0) != (ssize_t)r->size)
		return file_fail("pwrite of the file's bytes", fd);
	if (pipe(pfd))
		return file_fail("pipe", fd);
	pid = fork();
	if (pid == 0)
		file_child(r, fd, pfd[1]);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return file_fail("fork", fd);
	}
	do
		w = waitpid(pid, &status, 0);
	while (w < 0 && errno == EINTR);
	if (w != pid) {
		kill(pid, SIGKILL);
		close(pfd[0]);
		return file_fail("waitpid", fd);
	}
	if (WIFSIGNALED(status)) {
		if (WTERMSIG(status) == SIGALRM)
			diag("%s of %zu bytes, %zu before an unmapped page: no return in %d s",
			     what, r->size, r->readable, FILE_SECONDS);
		else
			diag("%s: the child died of signal %d", what,
			     WTERMSIG(status));
		close(pfd[0]);
		close(fd);
		return CASE_FAIL;
	}
	if (read(pfd[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = LLONG_MIN;
	if (lo < 1)
		lo = 1;
	ok = ret >= lo && ret <= (long long)r->readable;
	if (!ok)
		diag("%s of %zu bytes, %zu before an unmapped page: %lld, expected %lld..%zu",
		     what, r->size, r->readable, ret, lo, r->readable);
	else if (ret != (long long)r->readable)
		diag("%s: %lld of the %zu bytes before the fault (uaccess_slack())",
		     what, ret, r->readable);
	ok = ok && file_bytes_ok(r, fd, pfd[0], ret);
	close(pfd[0]);
	close(fd);
	return ok ? CASE_PASS : CASE_FAIL;
}

KTAP_GROUP(uaccess_group) = {
	.name = "setfs_user_uaccess",
	.order = 60,
	KTAP_TABLES(KTAP_TABLE_SETS(ua_rows, run_ua_row),
		    KTAP_TABLE(file_rows, run_file_row)),
	.setup = uaccess_setup,
	.teardown = uaccess_teardown,
};
