// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_proc: /proc/setfs_probe, served by ->proc_read_iter alone
 * (seed "proc: add a read_iter method to proc proc_ops"), reads like any
 * file through every read system call and seeks like a file of "size"
 * bytes; /proc/setfs_probe_legacy, served by the old ->proc_read, returns
 * the same bytes.
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

#define LEGACY	SETFS_PROC_LEGACY_PATH

/* Reads the whole file in odd-sized read() calls until EOF. */
static ssize_t read_whole(const char *path, unsigned char *buf, size_t max)
{
	size_t got = 0;
	ssize_t ret;
	int fd;

	fd = open_path(path, O_RDONLY);
	if (fd < 0)
		return -1;
	do {
		size_t step = max - got < 777 ? max - got : 777;

		ret = read(fd, buf + got, step);
		if (ret > 0)
			got += ret;
	} while (ret > 0 && got < max);
	if (ret < 0)
		diag("read %s: %s", path, strerror(errno));
	close(fd);
	return ret < 0 ? -1 : (ssize_t)got;
}

static enum case_result proc_read_whole_file(void)
{
	size_t size = fixture_size();
	unsigned char *buf = malloc(size + 1);
	bool ok;

	if (!buf)
		return CASE_FAIL;
	/* One byte of room more than the file: EOF must come at size. */
	ok = check_ll("bytes read until EOF", read_whole(PROC, buf, size + 1),
		      size) &&
	     check_pattern(PROC, buf, size, 0);
	free(buf);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result proc_legacy_same_bytes_as_iter(void)
{
	size_t size = fixture_size();
	unsigned char *iter = malloc(size + 1), *legacy = malloc(size + 1);
	enum case_result res = proc_legacy_state();

	if (res != CASE_PASS || !iter || !legacy)
		goto out;
	res = CASE_FAIL;
	if (check_ll("bytes read from " PROC, read_whole(PROC, iter, size + 1),
		     size) &&
	    check_ll("bytes read from " LEGACY,
		     read_whole(LEGACY, legacy, size + 1), size) &&
	    check_mem(LEGACY " against " PROC, legacy, iter, size) &&
	    check_pattern(LEGACY, legacy, size, 0))
		res = CASE_PASS;
out:
	free(iter);
	free(legacy);
	return res;
}

static enum case_result check_stat(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		diag("stat %s: %s", path, strerror(errno));
		return CASE_FAIL;
	}
	return check_ll("st_size", st.st_size, fixture_size()) &&
	       check_ll("st_mode", st.st_mode, S_IFREG | 0444) ?
	       CASE_PASS : CASE_FAIL;
}

static enum case_result proc_stat_size_and_mode(void)
{
	return check_stat(PROC);
}

static enum case_result proc_legacy_stat_size_and_mode(void)
{
	enum case_result res = proc_legacy_state();

	return res == CASE_PASS ? check_stat(LEGACY) : res;
}

static const struct test_case proc_fn_cases[] = {
	{ "proc_read_whole_file", proc_read_whole_file },
	{ "proc_stat_size_and_mode", proc_stat_size_and_mode },
	{ "proc_legacy_same_bytes_as_iter", proc_legacy_same_bytes_as_iter },
	{ "proc_legacy_stat_size_and_mode", proc_legacy_stat_size_and_mode },
};

/*
 * One read at a position: the count returned, the bytes and the file
 * position afterwards (moved by read/readv/preadv2(-1), untouched by
 * pread/preadv2(pos)) are all checked.
 */
enum read_how {
	HOW_READ,		/* lseek(pos), read() */
	HOW_PREAD,		/* pread(pos) */
	HOW_READV,		/* lseek(pos), readv() of three iovecs */
	HOW_PREADV2,		/* preadv2(pos) of three iovecs */
	HOW_PREADV2_CUR,	/* lseek(pos), preadv2(-1): the file position */
};

struct read_row {
	const char *name;
	const char *path;
	enum read_how how;
	off_t pos;
	bool from_end;		/* pos counts from the end of the file */
	size_t count;
};

static const struct read_row read_rows[] = {
	{ "proc_pread_start",		   PROC, HOW_PREAD, 0, false, 100 },
	{ "proc_pread_mid_page",	   PROC, HOW_PREAD, 1000, false, 333 },
	{ "proc_pread_cross_page",	   PROC, HOW_PREAD, 4091, false, 10 },
	{ "proc_pread_cross_two_pages",	   PROC, HOW_PREAD, 4000, false, 4500 },
	{ "proc_pread_last_byte_short",	   PROC, HOW_PREAD, -1, true, 16 },
	{ "proc_pread_at_eof",		   PROC, HOW_PREAD, 0, true, 16 },
	{ "proc_pread_past_eof",	   PROC, HOW_PREAD, 4096, true, 16 },
	{ "proc_read_after_lseek_mid_page", PROC, HOW_READ, 2000, false, 100 },
	{ "proc_readv_cross_page",	   PROC, HOW_READV, 4000, false, 300 },
	{ "proc_readv_at_eof",		   PROC, HOW_READV, 0, true, 300 },
	{ "proc_preadv2_cross_page",	   PROC, HOW_PREADV2, 8000, false, 300 },
	{ "proc_preadv2_tail_short",	   PROC, HOW_PREADV2, -50, true, 300 },
	{ "proc_preadv2_current_position", PROC, HOW_PREADV2_CUR, 4090, false, 12 },
	{ "proc_legacy_pread_cross_page",  LEGACY, HOW_PREAD, 4091, false, 10 },
	{ "proc_legacy_readv_cross_page",  LEGACY, HOW_READV, 4000, false, 300 },
	{ "proc_legacy_pread_at_eof",	   LEGACY, HOW_PREAD, 0, true, 16 },
};

static ssize_t do_read(int fd, enum read_how how, unsigned char *buf,
		       size_t count, off_t pos)
{
	size_t third = count / 3;
	struct iovec iov[3] = {
		{ buf, third },
		{ buf + third, third },
		{ buf + 2 * third, count - 2 * third },
	};

	if ((how == HOW_READ || how == HOW_READV || how == HOW_PREADV2_CUR) &&
	    lseek(fd, pos, SEEK_SET) != pos) {
		diag("lseek(%lld, SEEK_SET): %s", (long long)pos,
		     strerror(errno));
		return -2;
	}
	switch (how) {
	case HOW_READ:
		return read(fd, buf, count);
	case HOW_PREAD:
		return pread(fd, buf, count, pos);
	case HOW_READV:
		return readv(fd, iov, 3);
	case HOW_PREADV2:
		return preadv2(fd, iov, 3, pos, 0);
	case HOW_PREADV2_CUR:
		return preadv2(fd, iov, 3, -1, 0);
	}
	return -2;
}

static enum case_result run_read_row(const void *data)
{
	const struct read_row *r = data;
	size_t size = fixture_size();
	off_t pos = r->from_end ? (off_t)size + r->pos : r->pos;
	size_t expect = pos >= (off_t)size ? 0 : size - pos;
	enum case_result res = probe_file_state(r->path);
	bool moves = r->how == HOW_READ || r->how == HOW_READV ||
		     r->how == HOW_PREADV2_CUR;
	unsigned char *buf;
	ssize_t ret;
	int fd;

	if (res != CASE_PASS)
		return res;
	res = CASE_FAIL;
	if (expect > r->count)
		expect = r->count;
	buf = malloc(r->count);
	fd = open_path(r->path, O_RDONLY);
	if (!buf || fd < 0)
		goto out;
	ret = do_read(fd, r->how, buf, r->count, pos);
	if (ret == -2)
		goto out;
	if (ret < 0) {
		diag("read of %zu bytes at %lld: %s", r->count, (long long)pos,
		     strerror(errno));
		goto out;
	}
	if (check_ll("bytes read", ret, expect) &&
	    check_pattern(r->path, buf, expect, pos) &&
	    check_ll("file position afterwards", lseek(fd, 0, SEEK_CUR),
		     moves ? pos + (off_t)expect : 0))
		res = CASE_PASS;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return res;
}

/* lseek() from a start position: the result or the errno, and where the
 * file position is afterwards (unchanged by a failed lseek).
 */
struct lseek_row {
	const char *name;
	const char *path;
	off_t start;
	off_t offset;
	bool offset_plus_size;
	int whence;
	off_t expect;
	bool expect_plus_size;
	int err;
};

static const struct lseek_row lseek_rows[] = {
	{ .name = "proc_lseek_set_mid_page",
	  .path = PROC, .offset = 1000, .whence = SEEK_SET, .expect = 1000 },
	{ .name = "proc_lseek_set_to_size",
	  .path = PROC, .offset = 0, .offset_plus_size = true,
	  .whence = SEEK_SET, .expect = 0, .expect_plus_size = true },
	{ .name = "proc_lseek_cur_forward",
	  .path = PROC, .start = 1000, .offset = 500, .whence = SEEK_CUR,
	  .expect = 1500 },
	{ .name = "proc_lseek_cur_back_to_start",
	  .path = PROC, .start = 1000, .offset = -1000, .whence = SEEK_CUR,
	  .expect = 0 },
	{ .name = "proc_lseek_end",
	  .path = PROC, .offset = 0, .whence = SEEK_END, .expect = 0,
	  .expect_plus_size = true },
	{ .name = "proc_lseek_end_back",
	  .path = PROC, .offset = -10, .whence = SEEK_END, .expect = -10,
	  .expect_plus_size = true },
	{ .name = "proc_lseek_set_past_end_einval",
	  .path = PROC, .offset = 1, .offset_plus_size = true,
	  .whence = SEEK_SET, .err = EINVAL },
	{ .name = "proc_lseek_set_negative_einval",
	  .path = PROC, .offset = -1, .whence = SEEK_SET, .err = EINVAL },
	{ .name = "proc_lseek_cur_before_start_einval",
	  .path = PROC, .start = 100, .offset = -101, .whence = SEEK_CUR,
	  .err = EINVAL },
	{ .name = "proc_lseek_end_forward_einval",
	  .path = PROC, .offset = 1, .whence = SEEK_END, .err = EINVAL },
	{ .name = "proc_lseek_data_einval",
	  .path = PROC, .offset = 0, .whence = SEEK_DATA, .err = EINVAL },
	{ .name = "proc_legacy_lseek_end",
	  .path = LEGACY, .offset = 0, .whence = SEEK_END, .expect = 0,
	  .expect_plus_size = true },
};

static enum case_result run_lseek_row(const void *data)
{
	const struct lseek_row *r = data;
	off_t size = fixture_size();
	off_t offset = r->offset + (r->offset_plus_size ? size : 0);
	off_t expect = r->expect + (r->expect_plus_size ? size : 0);
	enum case_result res = probe_file_state(r->path);
	off_t ret;
	int fd, err;

	if (res != CASE_PASS)
		return res;
	res = CASE_FAIL;
	fd = open_path(r->path, O_RDONLY);
	if (fd < 0)
		return CASE_FAIL;
	if (!check_ll("lseek to the start position",
		      lseek(fd, r->start, SEEK_SET), r->start))
		goto out;
	ret = lseek(fd, offset, r->whence);
	err = errno;
	if (r->err ? !check_errno("lseek", ret, err, r->err) :
		     !check_ll("lseek", ret, expect))
		goto out;
	if (check_ll("file position afterwards", lseek(fd, 0, SEEK_CUR),
		     r->err ? r->start : expect))
		res = CASE_PASS;
out:
	close(fd);
	return res;
}

KTAP_GROUP(proc_group) = {
	.name = "setfs_user_proc",
	.order = 20,
	KTAP_TABLES(KTAP_TABLE(proc_fn_cases, run_test_case),
		    KTAP_TABLE(read_rows, run_read_row),
		    KTAP_TABLE(lseek_rows, run_lseek_row)),
};
