// SPDX-License-Identifier: GPL-2.0
/*
 * SETFS_IOC_UACCESS: the uaccess helpers on a user address the caller
 * picks, so that user space can probe the limits the seed patch "x86:
 * remove address space overrides using set_fs()" set: access_ok() and
 * get_user()/put_user() check against TASK_SIZE_MAX, a constant, instead
 * of the thread's addr_limit.
 */
#include "setfs_probe.h"

#include <linux/string.h>
#include <linux/uaccess.h>

/* get_user() of one value of ua->size bytes; 0 in value on error. */
static long setfs_ua_get_user(struct setfs_ctl_uaccess *ua, void __user *uptr)
{
	u8 v1;
	u16 v2;
	u32 v4;
	u64 v8;

	switch (ua->size) {
	case 1:
		ua->ret = get_user(v1, (u8 __user *)uptr);
		ua->value = v1;
		return 0;
	case 2:
		ua->ret = get_user(v2, (u16 __user *)uptr);
		ua->value = v2;
		return 0;
	case 4:
		ua->ret = get_user(v4, (u32 __user *)uptr);
		ua->value = v4;
		return 0;
	case 8:
		ua->ret = get_user(v8, (u64 __user *)uptr);
		ua->value = v8;
		return 0;
	default:
		return -EINVAL;
	}
}

/* put_user() of the low ua->size bytes of value. */
static long setfs_ua_put_user(struct setfs_ctl_uaccess *ua, void __user *uptr)
{
	switch (ua->size) {
	case 1:
		ua->ret = put_user((u8)ua->value, (u8 __user *)uptr);
		return 0;
	case 2:
		ua->ret = put_user((u16)ua->value, (u16 __user *)uptr);
		return 0;
	case 4:
		ua->ret = put_user((u32)ua->value, (u32 __user *)uptr);
		return 0;
	case 8:
		ua->ret = put_user((u64)ua->value, (u64 __user *)uptr);
		return 0;
	default:
		return -EINVAL;
	}
}

long setfs_ctl_uaccess(void *arg)
{
	struct setfs_ctl_uaccess *ua = arg;
	void __user *uptr = u64_to_user_ptr(ua->addr);
	bool bounded = ua->size <= sizeof(ua->data);

	switch (ua->op) {
	case SETFS_UA_GET_USER:
		return setfs_ua_get_user(ua, uptr);
	case SETFS_UA_PUT_USER:
		return setfs_ua_put_user(ua, uptr);
	case SETFS_UA_COPY_FROM_USER:
		if (!bounded)
			return -EINVAL;
		memset(ua->data, SETFS_UA_FILL, sizeof(ua->data));
		ua->ret = copy_from_user(ua->data, uptr, ua->size);
		return 0;
	case SETFS_UA_COPY_TO_USER:
		if (!bounded)
			return -EINVAL;
		ua->ret = copy_to_user(uptr, ua->data, ua->size);
		return 0;
	case SETFS_UA_STRNCPY_FROM_USER:
		if (!bounded)
			return -EINVAL;
		memset(ua->data, SETFS_UA_FILL, sizeof(ua->data));
		ua->ret = strncpy_from_user((char *)ua->data, uptr, ua->size);
		return 0;
	case SETFS_UA_CLEAR_USER:
		ua->ret = clear_user(uptr, ua->size);
		return 0;
	case SETFS_UA_ACCESS_OK:
		ua->ret = access_ok(uptr, ua->size) ? 1 : 0;
		return 0;
	default:
		return -EINVAL;
	}
}
