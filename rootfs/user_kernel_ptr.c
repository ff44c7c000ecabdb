// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_kernel_ptr: with set_fs() gone no system call can be talked
 * into using a kernel address as its user buffer.  read(), write() and
 * their vector forms on every probe file fail with EFAULT when the buffer
 * is the kernel address of a module global (SETFS_IOC_INFO) or NULL, and
 * nothing moves: the global's checksum, the devices' store and the file
 * position stay as they were.  Kernel addresses are refused by
 * access_ok() before the file is called; NULL passes access_ok() and
 * faults in the copy, in the ->read_iter/->write_iter (iov_iter) or
 * ->read/->write (copy_to_user()) of the file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "setfs_user.h"

#define TMPFS		"/tmp"		/* opened with O_TMPFILE */

enum kp_how { KP_READ, KP_PREAD, KP_READV, KP_PREADV2, KP_WRITE, KP_PWRITE,
	      KP_WRITEV };
enum kp_buf { KP_KBUF, KP_NULL };

struct kp_row {
	const char *name;
	const char *path;
	enum kp_how how;
	enum kp_buf buf;
};

static const struct kp_row kp_rows[] = {
	{ "read_proc_into_kernel_address_efault", PROC, KP_READ, KP_KBUF },
	{ "pread_proc_into_kernel_address_efault", PROC, KP_PREAD, KP_KBUF },
	{ "readv_proc_into_kernel_address_efault", PROC, KP_READV, KP_KBUF },
	{ "read_proc_legacy_into_kernel_address_efault", PROC_LEGACY, KP_READ, KP_KBUF },
	{ "read_dev_into_kernel_address_efault", DEV, KP_READ, KP_KBUF },
	{ "preadv2_dev_into_kernel_address", DEV, KP_PREADV2, KP_KBUF },
	{ "read_dev_legacy_into_kernel_address_efault", DEV_LEGACY, KP_READ, KP_KBUF },
	{ "read_dev_both_into_kernel_address_efault", DEV_BOTH, KP_READ, KP_KBUF },
	{ "read_sysctl_into_kernel_address_efault", OSTYPE, KP_READ, KP_KBUF },
	{ "read_proc_into_null_efault", PROC, KP_READ, KP_NULL },
	{ "read_proc_legacy_into_null_efault", PROC_LEGACY, KP_READ, KP_NULL },
	{ "readv_dev_into_null_efault", DEV, KP_READV, KP_NULL },
	{ "read_dev_legacy_into_null_efault", DEV_LEGACY, KP_READ, KP_NULL },
	{ "write_dev_from_kernel_address_efault", DEV, KP_WRITE, KP_KBUF },
	{ "pwrite_dev_from_kernel_address_efault", DEV, KP_PWRITE, KP_KBUF },
	{ "writev_dev_from_kernel_address_efault", DEV, KP_WRITEV, KP_KBUF },
	{ "write_dev_legacy_from_kernel_address_efault", DEV_LEGACY, KP_WRITE, KP_KBUF },
	{ "write_dev_both_from_kernel_address_efault", DEV_BOTH, KP_WRITE, KP_KBUF },
	{ "write_dev_from_null_efault", DEV, KP_WRITE, KP_NULL },
	{ "write_dev_legacy_from_null_efault", DEV_LEGACY, KP_WRITE, KP_NULL },
	{ "write_tmpfs_from_kernel_address_efault", TMPFS, KP_WRITE, KP_KBUF },
	{ "write_tmpfs_from_null_efault", TMPFS, KP_WRITE, KP_NULL },
};

static ssize_t kp_call(int fd, enum kp_how how, void *buf, size_t count)
{
	struct iovec iov = { buf, count };

	switch (how) {
	case KP_READ:
		return read(fd, buf, count);
	case KP_PREAD:
		return pread(fd, buf, count, 0);
	case KP_READV:
		return readv(fd, &iov, 1);
	case KP_PREADV2:
		return preadv2(fd, &iov, 1, 0, 0);
	case KP_WRITE:
		return write(fd, buf, count);
	case KP_PWRITE:
		return pwrite(fd, buf, count, 0);
	case KP_WRITEV:
		return writev(fd, &iov, 1);
	}
	errno = EINVAL;
	return -1;
}

static enum case_result run_kp_row(const void *data)
{
	const struct kp_row *r = data;
	bool writes = r->how == KP_WRITE || r->how == KP_PWRITE ||
		      r->how == KP_WRITEV;
	struct setfs_ctl_info before, after;
	enum case_result res = probe_file_state(r->path);
	unsigned char *pattern;
	struct stat st;
	void *buf;
	ssize_t ret;
	int fd, err;

	if (res != CASE_PASS)
		return res;
	res = CASE_FAIL;
	if (!ctl_info(&before))
		return CASE_FAIL;
	buf = r->buf == KP_KBUF ? (void *)(unsigned long)before.kbuf_addr : NULL;
	if (!strcmp(r->path, TMPFS))
		fd = open(TMPFS, O_TMPFILE | O_RDWR, 0600);
	else
		fd = open(r->path, writes ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		diag("open %s: %s", r->path, strerror(errno));
		return CASE_FAIL;
	}
	ret = kp_call(fd, r->how, buf, 64);
	err = errno;
	pattern = pattern_copy(fixture_size(), 0);
	if (pattern &&
	    check_errno("the call", ret, err, EFAULT) &&
	    ctl_info(&after) &&
	    check_hex("kernel buffer checksum", after.kbuf_sum,
		      before.kbuf_sum) &&
	    check_hex("store checksum", after.store_sum,
		      setfs_checksum(pattern, fixture_size())) &&
	    check_ll("file position", lseek(fd, 0, SEEK_CUR), 0) &&
	    fstat(fd, &st) == 0 &&
	    (strcmp(r->path, TMPFS) || check_ll("tmpfs file size", st.st_size, 0)))
		res = CASE_PASS;
	close(fd);
	free(pattern);
	return res;
}

KTAP_GROUP(kernel_ptr_group) = {
	.name = "setfs_user_kernel_ptr",
	.order = 70,
	KTAP_TABLES(KTAP_TABLE(kp_rows, run_kp_row)),
};
