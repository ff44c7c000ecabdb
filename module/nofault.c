// SPDX-License-Identifier: GPL-2.0
/*
 * SETFS_IOC_NOFAULT: get_kernel_nofault() and copy_from_kernel_nofault(),
 * the helpers that replaced probe_kernel_read() and its set_fs(KERNEL_DS),
 * on classes of addresses.  Which of them may be read is the business of
 * copy_from_kernel_nofault_allowed() (arch/x86/mm/maccess.c on x86,
 * arch/powerpc/mm/maccess.c, is_kernel_addr(), on powerpc); the
 * ones it allows are read with page faults disabled, so an unmapped one
 * gives -EFAULT instead of an oops.
 */
#include "setfs_probe.h"

#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

static const u64 setfs_nf_global = SETFS_NF_MAGIC;

/*
 * One page of vmalloc space.  vmalloc() reserves a guard page after every
 * allocation (no VM_NO_GUARD) and never maps it, so the page after this
 * one is a kernel address that is certain to be unmapped.
 */
static void *setfs_nf_page;

int setfs_nofault_init(void)
{
	setfs_nf_page = vmalloc(PAGE_SIZE);
	return setfs_nf_page ? 0 : -ENOMEM;
}

void setfs_nofault_exit(void)
{
	vfree(setfs_nf_page);
	setfs_nf_page = NULL;
}

long setfs_ctl_nofault(void *arg)
{
	struct setfs_ctl_nofault *nf = arg;
	const void *src;
	u64 val = 0;

	switch (nf->target) {
	case SETFS_NF_GLOBAL:
		src = &setfs_nf_global;
		break;
	case SETFS_NF_NULL:
		src = NULL;
		break;
	case SETFS_NF_VMALLOC_GUARD:
		src = setfs_nf_page + PAGE_SIZE;
		break;
	case SETFS_NF_ADDR:
		src = (const void *)(unsigned long)nf->addr;
		break;
	default:
		return -EINVAL;
	}

	switch (nf->op) {
	case SETFS_NF_GET:
		nf->ret = get_kernel_nofault(val, (const u64 *)src);
		break;
	case SETFS_NF_COPY:
		if (!nf->size || nf->size > sizeof(val))
			return -EINVAL;
		nf->ret = copy_from_kernel_nofault(&val, src, nf->size);
		break;
	default:
		return -EINVAL;
	}
	nf->addr = (unsigned long)src;
	/*
	 * On failure the destination is undefined: with asm goto outputs
	 * (x86 __get_kernel_nofault()) it receives whatever the register
	 * held when the load faulted.  Report nothing rather than that.
	 */
	nf->value = nf->ret ? 0 : val;
	return 0;
}
