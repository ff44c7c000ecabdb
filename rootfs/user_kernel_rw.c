// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_kernel_rw: kernel_read() and kernel_write(), run by the
 * control device in this process's context, after seed "fs: don't allow
 * kernel reads and writes without iter ops": files with ->read_iter
 * (->write_iter) and no ->read (->write) are served with the right bytes
 * and an advanced position, sysctl files too (seed "sysctl: Convert to
 * iter interfaces"); files with only the old methods, or with both kinds,
 * get -EINVAL.  SETFS_IOC_BENCH_KERNEL_READ, the loop "setfs_user bench"
 * times, keeps the same contract and its bounds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "setfs_user.h"

#define HOSTNAME	"/proc/sys/kernel/hostname"

/*
 * One kernel_read() or kernel_write().  On a fixture (text NULL) the
 * expected count is what fits between pos and the end, the bytes are the
 * pattern (read) or the inverted pattern, which must land in the store
 * (write).  With text, a read must return exactly text and a write writes
 * text.  err, when not 0, is the expected -errno of the call (open_err: of
 * filp_open()); the position must then stay where it was.
 */
struct krw_row {
	const char *name;
	bool write;
	const char *path;
	long long pos;
	bool from_end;
	size_t count;
	const char *text;
	long long err;
	long long open_err;
};

static const struct krw_row krw_rows[] = {
	{ .name = "kernel_read_proc_start",
	  .path = PROC, .count = 100 },
	{ .name = "kernel_read_proc_cross_page",
	  .path = PROC, .pos = 4090, .count = 100 },
	{ .name = "kernel_read_proc_whole_file",
	  .path = PROC, .count = SETFS_CTL_RW_MAX },
	{ .name = "kernel_read_proc_tail_short",
	  .path = PROC, .pos = -10, .from_end = true, .count = 100 },
	{ .name = "kernel_read_proc_at_eof",
	  .path = PROC, .from_end = true, .count = 100 },
	{ .name = "kernel_read_proc_negative_pos_einval",
	  .path = PROC, .pos = -1, .count = 100, .err = -EINVAL },
	{ .name = "kernel_read_dev_start",
	  .path = DEV, .count = 100 },
	{ .name = "kernel_read_dev_cross_page",
	  .path = DEV, .pos = 8100, .count = 200 },
	{ .name = "kernel_read_dev_whole_file",
	  .path = DEV, .count = SETFS_CTL_RW_MAX },
	{ .name = "kernel_read_dev_legacy_einval",
	  .path = DEV_LEGACY, .count = 100, .err = -EINVAL },
	{ .name = "kernel_read_dev_both_einval",
	  .path = DEV_BOTH, .count = 100, .err = -EINVAL },
	{ .name = "kernel_read_proc_legacy_einval",
	  .path = PROC_LEGACY, .count = 100, .err = -EINVAL },
	{ .name = "kernel_read_sysctl_ostype",
	  .path = OSTYPE, .count = 64, .text = "Linux\n" },
	{ .name = "kernel_read_sysctl_ostype_at_2",
	  .path = OSTYPE, .pos = 2, .count = 64, .text = "nux\n" },
	{ .name = "kernel_read_missing_file_enoent",
	  .path = PROC "_missing", .count = 100, .open_err = -ENOENT },
	{ .name = "kernel_write_dev_start",
	  .write = true, .path = DEV, .count = 64 },
	{ .name = "kernel_write_dev_cross_page",
	  .write = true, .path = DEV, .pos = 4090, .count = 100 },
	{ .name = "kernel_write_dev_tail_short",
	  .write = true, .path = DEV, .pos = -10, .from_end = true,
	  .count = 64 },
	{ .name = "kernel_write_dev_at_end_enospc",
	  .write = true, .path = DEV, .from_end = true, .count = 64,
	  .err = -ENOSPC },
	{ .name = "kernel_write_dev_legacy_einval",
	  .write = true, .path = DEV_LEGACY, .count = 64, .err = -EINVAL },
	{ .name = "kernel_write_dev_both_einval",
	  .write = true, .path = DEV_BOTH, .count = 64, .err = -EINVAL },
	{ .name = "kernel_write_proc_einval",
	  .write = true, .path = PROC, .count = 64, .err = -EINVAL },
	{ .name = "kernel_write_proc_legacy_einval",
	  .write = true, .path = PROC_LEGACY, .count = 64, .err = -EINVAL },
	{ .name = "kernel_write_sysctl_hostname",
	  .write = true, .path = HOSTNAME, .text = "setfs-kernel-write" },
};

static bool is_fixture(const char *path)
{
	return !strcmp(path, PROC) || !strcmp(path, PROC_LEGACY) ||
	       !strcmp(path, DEV) || !strcmp(path, DEV_LEGACY) ||
	       !strcmp(path, DEV_BOTH);
}

/* The expected result of the call itself, from the row. */
static long long krw_expect(const struct krw_row *r, long long pos,
			    size_t count)
{
	long long size = fixture_size(), left = size - pos;

	if (r->err)
		return r->err;
	if (r->text)
		return strlen(r->text);
	if (r->write && pos >= size)
		return -ENOSPC;
	if (left <= 0)
		return 0;
	return (long long)count < left ? (long long)count : left;
}

static bool krw_check_data(const struct krw_row *r, const unsigned char *buf,
			   long long pos, long long ret)
{
	size_t size = fixture_size();
	struct setfs_ctl_info info;
	unsigned char *model;
	struct utsname u;
	bool ok;

	if (!r->write && r->text)
		return check_mem(r->path, buf, r->text, ret);
	if (!r->write)
		return check_pattern(r->path, buf, ret, pos);
	if (r->text)
		return uname(&u) == 0 &&
		       check_mem("uname nodename", u.nodename, r->text,
				 strlen(r->text) + 1);
	/* A write to a fixture device: the store holds what was written. */
	model = pattern_copy(size, 0);
	if (!model || !ctl_info(&info)) {
		free(model);
		return false;
	}
	if (ret > 0)
		memcpy(model + pos, buf, ret);
	ok = check_hex("store checksum", info.store_sum,
		       setfs_checksum(model, size));
	free(model);
	return ok;
}

static enum case_result run_krw_row(const void *data)
{
	const struct krw_row *r = data;
	size_t size = fixture_size();
	long long pos = r->from_end ? (long long)size + r->pos : r->pos;
	size_t count = r->text && r->write ? strlen(r->text) : r->count;
	size_t bufsize = count < size + 1 ? count : size + 1;
	enum case_result res = probe_file_state(r->path);
	struct setfs_ctl_rw rw = { 0 };
	struct utsname before;
	unsigned char *buf;
	long long expect;
	size_t i;

	if (res != CASE_PASS)
		return res;
	res = CASE_FAIL;
	if (uname(&before) < 0)
		return CASE_FAIL;
	buf = calloc(1, bufsize ? bufsize : 1);
	if (!buf)
		return CASE_FAIL;
	if (r->write && r->text)
		memcpy(buf, r->text, count);
	else if (r->write)
		for (i = 0; i < bufsize; i++)
			buf[i] = ~setfs_pattern_byte(pos + i);

	if ((size_t)snprintf(rw.path, sizeof(rw.path), "%s", r->path) >=
	    sizeof(rw.path)) {
		diag("path too long: %s", r->path);
		goto out;
	}
	rw.buf = (unsigned long)buf;
	rw.count = count;
	rw.pos = pos;
	if (!ctl_call(r->write ? SETFS_IOC_KERNEL_WRITE : SETFS_IOC_KERNEL_READ,
		      &rw, r->write ? "KERNEL_WRITE" : "KERNEL_READ"))
		goto out;
	if (!check_kret("filp_open", rw.open_ret, r->open_err))
		goto out;
	if (r->open_err) {
		res = CASE_PASS;
		goto out;
	}
	expect = krw_expect(r, pos, count);
	if (check_kret(r->write ? "kernel_write" : "kernel_read", rw.ret,
		       expect) &&
	    check_ll("position afterwards", rw.pos,
		     expect > 0 ? pos + expect : pos) &&
	    ((expect < 0 && !is_fixture(r->path)) ||
	     krw_check_data(r, buf, pos, expect < 0 ? 0 : expect)))
		res = CASE_PASS;
out:
	if (r->write && r->text &&
	    sethostname(before.nodename, strlen(before.nodename)) < 0) {
		diag("restoring the hostname: %s", strerror(errno));
		res = CASE_FAIL;
	}
	if (r->write && is_fixture(r->path) && !store_restore())
		res = CASE_FAIL;
	free(buf);
	return res;
}

/*
 * SETFS_IOC_BENCH_KERNEL_READ: calls kernel_read() calls of count bytes
 * at position 0.  ioctl_err, when not 0, is the errno of the ioctl itself
 * (a request outside the bounds); err and open_err as for krw_row.  With
 * timed, the time must be above 0: only for a loop long enough to span a
 * tick of the coarsest clocksource (jiffies, on a two-CPU TCG guest).
 */
struct kbench_row {
	const char *name;
	const char *path;
	unsigned long long count;
	unsigned long long calls;
	bool timed;
	int ioctl_err;
	long long err;
	long long open_err;
};

static const struct kbench_row kbench_rows[] = {
	{ .name = "bench_kernel_read_proc",
	  .path = PROC, .count = 4096, .calls = 100 },
	{ .name = "bench_kernel_read_proc_most_calls_timed",
	  .path = PROC, .count = 1, .calls = SETFS_CTL_BENCH_CALLS_MAX,
	  .timed = true },
	{ .name = "bench_kernel_read_dev_largest_count",
	  .path = DEV, .count = SETFS_CTL_BENCH_COUNT_MAX, .calls = 10 },
	{ .name = "bench_kernel_read_proc_legacy_einval",
	  .path = PROC_LEGACY, .count = 64, .calls = 10, .err = -EINVAL },
	{ .name = "bench_kernel_read_dev_legacy_einval",
	  .path = DEV_LEGACY, .count = 64, .calls = 10, .err = -EINVAL },
	{ .name = "bench_kernel_read_dev_both_einval",
	  .path = DEV_BOTH, .count = 64, .calls = 10, .err = -EINVAL },
	{ .name = "bench_kernel_read_missing_file_enoent",
	  .path = PROC "_missing", .count = 64, .calls = 10,
	  .open_err = -ENOENT },
	{ .name = "bench_kernel_read_too_many_calls_einval",
	  .path = PROC, .count = 1, .calls = SETFS_CTL_BENCH_CALLS_MAX + 1,
	  .ioctl_err = EINVAL },
	{ .name = "bench_kernel_read_zero_calls_einval",
	  .path = PROC, .count = 64, .calls = 0, .ioctl_err = EINVAL },
	{ .name = "bench_kernel_read_count_too_large_einval",
	  .path = PROC, .count = SETFS_CTL_BENCH_COUNT_MAX + 1, .calls = 1,
	  .ioctl_err = EINVAL },
	{ .name = "bench_kernel_read_zero_count_einval",
	  .path = PROC, .count = 0, .calls = 1, .ioctl_err = EINVAL },
	{ .name = "bench_kernel_read_too_many_bytes_einval",
	  .path = PROC, .count = SETFS_CTL_BENCH_COUNT_MAX,
	  .calls = SETFS_CTL_BENCH_BYTES_MAX / SETFS_CTL_BENCH_COUNT_MAX + 1,
	  .ioctl_err = EINVAL },
};

static enum case_result run_kbench_row(const void *data)
{
	const struct kbench_row *r = data;
	unsigned long long size = fixture_size();
	unsigned long long per_call = r->count < size ? r->count : size;
	struct setfs_ctl_bench b = { 0 };
	enum case_result res = probe_file_state(r->path);
	int err;

	if (res != CASE_PASS)
		return res;
	snprintf(b.path, sizeof(b.path), "%s", r->path);
	b.count = r->count;
	b.calls = r->calls;
	err = ctl_ioctl(SETFS_IOC_BENCH_KERNEL_READ, &b);
	if (r->ioctl_err)
		return check_errno("SETFS_IOC_BENCH_KERNEL_READ", err ? -1 : 0,
				   err, r->ioctl_err) ? CASE_PASS : CASE_FAIL;
	if (err) {
		diag("SETFS_IOC_BENCH_KERNEL_READ: %s", strerror(err));
		return CASE_FAIL;
	}
	if (!check_kret("filp_open", b.open_ret, r->open_err))
		return CASE_FAIL;
	if (r->open_err)
		return check_ll("calls", b.calls, 0) ? CASE_PASS : CASE_FAIL;
	if (r->err)
		return check_kret("kernel_read", b.ret, r->err) &&
		       check_ll("calls that succeeded", b.calls, 0) &&
		       check_ll("bytes", b.bytes, 0) ? CASE_PASS : CASE_FAIL;
	if (!check_kret("last kernel_read", b.ret, per_call) ||
	    !check_ll("calls", b.calls, r->calls) ||
	    !check_ll("bytes", b.bytes, r->calls * per_call))
		return CASE_FAIL;
	if (r->timed && !b.ns) {
		diag("ns: got 0 for %llu calls, expected more", r->calls);
		return CASE_FAIL;
	}
	return CASE_PASS;
}

KTAP_GROUP(kernel_rw_group) = {
	.name = "setfs_user_kernel_rw",
	.order = 40,
	KTAP_TABLES(KTAP_TABLE(krw_rows, run_krw_row),
		    KTAP_TABLE(kbench_rows, run_kbench_row)),
};
