// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_nofault: get_kernel_nofault() and copy_from_kernel_nofault()
 * (mm/maccess.c), which replaced probe_kernel_read() and its set_fs().
 * copy_from_kernel_nofault() first asks copy_from_kernel_nofault_allowed()
 * and returns -ERANGE when it says no; otherwise it reads with page faults
 * disabled and returns -EFAULT when a read faults, 0 when all went well.
 * get_kernel_nofault() is copy_from_kernel_nofault() of sizeof(val).
 *
 * x86_64 (arch/x86/mm/maccess.c) allows an address only when it is
 *   - not below TASK_SIZE_MAX + PAGE_SIZE (user space and the guard page
 *     after it: NULL and every user address, mapped or not, are -ERANGE);
 *   - not in the vsyscall page (-ERANGE although above TASK_SIZE_MAX);
 *   - canonical for the CPU's virtual address bits (-ERANGE otherwise).
 *
 * powerpc64 (arch/powerpc/mm/maccess.c) allows is_kernel_addr() only:
 * addresses at or above PAGE_OFFSET (0xc000000000000000, quadrant 3).
 * Everything below, user space and quadrants 1 and 2 alike, is -ERANGE.
 * It has neither a vsyscall page nor non-canonical addresses (the top two
 * bits of an effective address select a quadrant), and its kernel map has
 * no hypervisor guard hole: those rows are x86_64's and skip there.
 */
#include <errno.h>
#include <string.h>

#include "setfs_user.h"

enum nf_addr {
	NF_NONE,		/* the target needs no address */
	NF_USER,		/* a mapped, readable user variable */
	NF_KBUF,		/* INFO's kernel buffer */
	NF_TOP,			/* TASK_SIZE_MAX */
	NF_TOP_GUARD_END,	/* the last 8 bytes of the page after it */
	NF_NON_CANONICAL,	/* 1 << 63 */
	NF_VSYSCALL,		/* the vsyscall page, 0xffffffffff600000 */
	NF_KERNEL_HOLE,		/* -(TASK_SIZE_MAX + PAGE_SIZE), see below */
	NF_BELOW_PAGE_OFFSET,	/* 0xbffffffffffffff8 */
};

/*
 * Where a row can be (struct nf_where): everywhere (NF_ANYWHERE); only
 * where TASK_SIZE_MAX is a refused user address (NF_TOP_REFUSED: not
 * where the kernel says SETFS_INFO_NF_TOP_ALLOWED); or, for a row with
 * a fixed address of one kernel layout, NF_NA(x86_64, ppc64): why not on
 * that layout (NULL: it runs there), and on any other not at all.  The
 * kernel says which layout it has (SETFS_IOC_INFO nf_layout).
 */
struct nf_where {
	bool layout;
	bool top_refused;
	const char *x86_64;
	const char *ppc64;
};

#define NF_ANYWHERE		{ false, false, NULL, NULL }
#define NF_TOP_REFUSED		{ false, true, NULL, NULL }
#define NF_NA(x86_64, ppc64)	{ true, false, (x86_64), (ppc64) }

enum nf_value {
	NF_ZERO,		/* nothing read */
	NF_MAGIC,		/* SETFS_NF_MAGIC, its first size bytes */
	NF_KBUF_BYTES,		/* the pattern at the start of the buffer */
};

/* A row's ret: what the kernel says a user address gives (see below) */
#define NF_RET_USER	1LL

struct nf_row {
	const char *name;
	unsigned int op;
	unsigned int target;
	enum nf_addr addr;
	unsigned long long size;	/* SETFS_NF_COPY */
	long long ret;
	enum nf_value value;
	struct nf_where where;
};

static const struct nf_row nf_rows[] = {
	/* A module global is mapped kernel memory: read, 0. */
	{ "get_kernel_nofault_module_global", SETFS_NF_GET, SETFS_NF_GLOBAL,
	  NF_NONE, 0, 0, NF_MAGIC, NF_ANYWHERE },
	{ "copy_from_kernel_nofault_module_global_8", SETFS_NF_COPY,
	  SETFS_NF_GLOBAL, NF_NONE, 8, 0, NF_MAGIC, NF_ANYWHERE },
	{ "copy_from_kernel_nofault_module_global_3", SETFS_NF_COPY,
	  SETFS_NF_GLOBAL, NF_NONE, 3, 0, NF_MAGIC, NF_ANYWHERE },
	/* The same for the buffer whose address INFO gives user space. */
	{ "get_kernel_nofault_info_kernel_buffer", SETFS_NF_GET, SETFS_NF_ADDR,
	  NF_KBUF, 0, 0, NF_KBUF_BYTES, NF_ANYWHERE },
	/*
	 * NULL is below TASK_SIZE_MAX + PAGE_SIZE: refused, no access.  Here
	 * and below, get_kernel_nofault() and copy_from_kernel_nofault() of
	 * the same address fail the same way: nothing is read.  Where user
	 * addresses are not refused (arm64, riscv), the
	 * read is tried and faults: -EFAULT.  The kernel says which
	 * (SETFS_IOC_INFO nf_user_ret, SETFS_NF_USER_RET of
	 * module/include/setfs_probe_api.h): NF_RET_USER.  Where user space
	 * is an address space of its own (s390), these rows cannot be: the
	 * kernel reads the number in its own.
	 */
	{ "get_kernel_nofault_null_erange", SETFS_NF_GET,
	  SETFS_NF_NULL, NF_NONE, 0, NF_RET_USER, NF_ZERO, NF_ANYWHERE },
	{ "copy_from_kernel_nofault_null_erange", SETFS_NF_COPY,
	  SETFS_NF_NULL, NF_NONE, 1, NF_RET_USER, NF_ZERO, NF_ANYWHERE },
	/*
	 * The guard page after a vmalloc() area is a canonical kernel
	 * address, so allowed, and never mapped: the read faults, -EFAULT.
	 */
	{ "get_kernel_nofault_vmalloc_guard_efault", SETFS_NF_GET,
	  SETFS_NF_VMALLOC_GUARD, NF_NONE, 0, -EFAULT, NF_ZERO, NF_ANYWHERE },
	{ "copy_from_kernel_nofault_vmalloc_guard_efault", SETFS_NF_COPY,
	  SETFS_NF_VMALLOC_GUARD, NF_NONE, 1, -EFAULT, NF_ZERO, NF_ANYWHERE },
	/*
	 * A user address is refused even when it is mapped and readable:
	 * the nofault helpers read kernel memory only.
	 */
	{ "get_kernel_nofault_user_address_erange", SETFS_NF_GET,
	  SETFS_NF_ADDR, NF_USER, 0, NF_RET_USER, NF_ZERO, NF_ANYWHERE },
	{ "copy_from_kernel_nofault_user_address_erange", SETFS_NF_COPY,
	  SETFS_NF_ADDR, NF_USER, 8, NF_RET_USER, NF_ZERO, NF_ANYWHERE },
	/* TASK_SIZE_MAX and the page after it: the user guard page. */
	{ "get_kernel_nofault_task_size_max_erange", SETFS_NF_GET,
	  SETFS_NF_ADDR, NF_TOP, 0, NF_RET_USER, NF_ZERO,
	  NF_TOP_REFUSED },
	{ "get_kernel_nofault_end_of_user_guard_page_erange", SETFS_NF_GET,
	  SETFS_NF_ADDR, NF_TOP_GUARD_END, 0, NF_RET_USER, NF_ZERO,
	  NF_TOP_REFUSED },
	/* Not canonical with 48 (or 57) virtual address bits. */
	{ "get_kernel_nofault_non_canonical_erange", SETFS_NF_GET,
	  SETFS_NF_ADDR, NF_NON_CANONICAL, 0, -ERANGE, NF_ZERO,
	  NF_NA(NULL,
		"powerpc64 has no canonical form: bits 63:62 pick a quadrant") },
	/* Above TASK_SIZE_MAX but counted as user space. */
	{ "get_kernel_nofault_vsyscall_page_erange", SETFS_NF_GET,
	  SETFS_NF_ADDR, NF_VSYSCALL, 0, -ERANGE, NF_ZERO,
	  NF_NA(NULL, "powerpc64 has no vsyscall page, only the vDSO") },
	/*
	 * The first canonical kernel address starts the guard hole that
	 * Documentation/x86/x86_64/mm.rst reserves for hypervisors and
	 * Linux never maps (0xffff800000000000 with 4-level paging,
	 * 0xff00000000000000 with 5-level): allowed, and the read faults.
	 */
	{ "get_kernel_nofault_kernel_guard_hole_efault", SETFS_NF_GET,
	  SETFS_NF_ADDR, NF_KERNEL_HOLE, 0, -EFAULT, NF_ZERO,
	  NF_NA(NULL,
		"x86_64 layout; powerpc64 kernel space starts at PAGE_OFFSET") },
	/*
	 * The last 8 bytes below 0xc000000000000000: x86_64 refuses them as
	 * non-canonical, powerpc64 as below PAGE_OFFSET (quadrant 2, not
	 * is_kernel_addr()).  Either way -ERANGE without an access.
	 */
	{ "get_kernel_nofault_below_page_offset_erange", SETFS_NF_GET,
	  SETFS_NF_ADDR, NF_BELOW_PAGE_OFFSET, 0, -ERANGE, NF_ZERO,
	  NF_NA(NULL, NULL) },
};

static const char nf_top_allowed_na[] =
	"the kernel allows TASK_SIZE and up (arm: its module area starts there)";
static const char nf_layout_na[] =
	"an x86_64/powerpc64 layout row (canonical form, vsyscall page, guard hole, quadrants)";

/* Why the row cannot be on this kernel, or NULL. */
static const char *nf_na(const struct nf_row *r,
			 const struct setfs_ctl_info *info)
{
	if (r->where.top_refused && (info->flags & SETFS_INFO_NF_TOP_ALLOWED))
		return nf_top_allowed_na;
	if (!r->where.layout)
		return NULL;
	switch (info->nf_layout) {
	case SETFS_LAYOUT_X86_64:
		return r->where.x86_64;
	case SETFS_LAYOUT_PPC64:
		return r->where.ppc64;
	}
	return nf_layout_na;
}

static const char nf_overlap_na[] =
	"user space is an address space of its own: the kernel reads a user address as its own";

static const unsigned long long nf_user_var = 0x0123456789abcdefULL;

static unsigned long long nf_address(const struct nf_row *r,
				     const struct setfs_ctl_info *info)
{
	switch (r->addr) {
	case NF_NONE:
		return 0;
	case NF_USER:
		return (unsigned long)&nf_user_var;
	case NF_KBUF:
		return info->kbuf_addr;
	case NF_TOP:
		return info->task_size_max;
	case NF_TOP_GUARD_END:
		return info->task_size_max + info->page_size - 8;
	case NF_NON_CANONICAL:
		return 1ULL << 63;
	case NF_VSYSCALL:
		return 0xffffffffff600000ULL;
	case NF_KERNEL_HOLE:
		/* The kernel half starts where the user half ends, mirrored. */
		return -(info->task_size_max + info->page_size);
	case NF_BELOW_PAGE_OFFSET:
		return 0xbffffffffffffff8ULL;
	}
	return 0;
}

/*
 * What the module's u64 holds after reading the row's first bytes into it:
 * the low bytes on a little-endian machine, the high ones on s390.
 */
static unsigned long long nf_expected_value(const struct nf_row *r)
{
	unsigned char src[8];
	unsigned long long v = 0, magic = SETFS_NF_MAGIC;
	unsigned int i, n = r->op == SETFS_NF_GET ? 8 : r->size;

	switch (r->value) {
	case NF_ZERO:
		return 0;
	case NF_MAGIC:
		memcpy(src, &magic, sizeof(src));
		break;
	case NF_KBUF_BYTES:
		for (i = 0; i < sizeof(src); i++)
			src[i] = setfs_pattern_byte(i);
		break;
	}
	memcpy(&v, src, n);
	return v;
}

static enum case_result run_nf_row(const void *data)
{
	const struct nf_row *r = data;
	struct setfs_ctl_nofault c = { 0 };
	struct setfs_ctl_info info;
	const char *na;

	if (!ctl_info(&info))
		return CASE_FAIL;
	if (info.nf_layout > SETFS_LAYOUT_PPC64) {
		diag("SETFS_IOC_INFO nf_layout %u: not a SETFS_LAYOUT_* this binary knows",
		     info.nf_layout);
		return CASE_FAIL;
	}
	na = nf_na(r, &info);
	if (na)
		return ktap_skip(na);
	if (r->ret == NF_RET_USER && (info.flags & SETFS_INFO_SEPARATE_USER_SPACE))
		return ktap_skip(nf_overlap_na);
	c.op = r->op;
	c.target = r->target;
	c.addr = nf_address(r, &info);
	c.size = r->size;
	if (!ctl_call(SETFS_IOC_NOFAULT, &c, "SETFS_IOC_NOFAULT"))
		return CASE_FAIL;
	if (check_kret("result", c.ret,
		       r->ret == NF_RET_USER ? info.nf_user_ret : r->ret) &&
	    check_hex("value read", c.value, nf_expected_value(r)))
		return CASE_PASS;
	diag("address used: 0x%llx", (unsigned long long)c.addr);
	return CASE_FAIL;
}

KTAP_GROUP(nofault_group) = {
	.name = "setfs_user_nofault",
	.order = 80,
	KTAP_TABLES(KTAP_TABLE(nf_rows, run_nf_row)),
};
