// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user: the user-space half of setfs-probe.  Runs in the guest after
 * setfs_probe.ko is loaded and checks, with exact values and errnos, what
 * the set_fs() removal series promised user space.  Prints KTAP: one
 * subtest per group, one result per case.  Exit status: 0 when every case
 * passed or skipped, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ktap.h"
#include "setfs_probe_uapi.h"

const char *skip_reason;

static size_t fixture_size(void)
{
	static size_t size;
	FILE *f;

	if (size)
		return size;
	f = fopen(SETFS_SIZE_PARAM, "r");
	if (!f || fscanf(f, "%zu", &size) != 1)
		size = 0;
	if (f)
		fclose(f);
	return size;
}

/* The first offset in [0, len) where buf differs from the pattern at pos. */
static long pattern_mismatch(const unsigned char *buf, size_t len, off_t pos)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != setfs_pattern_byte(pos + i))
			return (long)i;
	return -1;
}

static int open_fixture(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		diag("open %s: %s", path, strerror(errno));
	return fd;
}

/* pread() of count bytes at pos returns exactly what the pattern says. */
static enum case_result check_pread(const char *path, off_t pos, size_t count)
{
	size_t size = fixture_size();
	size_t expect = pos >= (off_t)size ? 0 : size - pos;
	enum case_result res = CASE_FAIL;
	unsigned char *buf;
	ssize_t ret;
	long bad;
	int fd;

	if (expect > count)
		expect = count;
	buf = malloc(count ? count : 1);
	fd = open_fixture(path);
	if (!buf || fd < 0)
		goto out;
	ret = pread(fd, buf, count, pos);
	if (ret != (ssize_t)expect) {
		diag("pread(%zu at %lld) = %zd (%s), expected %zu", count,
		     (long long)pos, ret, ret < 0 ? strerror(errno) : "ok",
		     expect);
		goto out;
	}
	bad = pattern_mismatch(buf, expect, pos);
	if (bad >= 0) {
		diag("byte %lld differs from the pattern", (long long)pos + bad);
		goto out;
	}
	res = CASE_PASS;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return res;
}

static enum case_result proc_read_whole(void)
{
	size_t size = fixture_size();
	enum case_result res = CASE_FAIL;
	unsigned char *buf = malloc(size + 1);
	size_t got = 0;
	ssize_t ret;
	int fd;

	fd = open_fixture(SETFS_PROC_PATH);
	if (!buf || fd < 0)
		goto out;
	/* read() in odd-sized steps until EOF. */
	while ((ret = read(fd, buf + got, got + 777 > size + 1 ? size + 1 - got : 777)) > 0)
		got += ret;
	if (ret < 0) {
		diag("read: %s", strerror(errno));
		goto out;
	}
	if (got != size) {
		diag("read %zu bytes, expected %zu", got, size);
		goto out;
	}
	if (pattern_mismatch(buf, size, 0) >= 0) {
		diag("content differs from the pattern");
		goto out;
	}
	res = CASE_PASS;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return res;
}

static enum case_result proc_pread_start(void)
{
	return check_pread(SETFS_PROC_PATH, 0, 100);
}

static enum case_result proc_pread_mid_page(void)
{
	return check_pread(SETFS_PROC_PATH, 1000, 333);
}

static enum case_result proc_pread_cross_page(void)
{
	return check_pread(SETFS_PROC_PATH, 4096 - 5, 10);
}

static enum case_result proc_pread_at_eof(void)
{
	return check_pread(SETFS_PROC_PATH, fixture_size(), 16);
}

static enum case_result proc_pread_past_eof(void)
{
	return check_pread(SETFS_PROC_PATH, fixture_size() + 4096, 16);
}

static enum case_result proc_lseek_end(void)
{
	int fd = open_fixture(SETFS_PROC_PATH);
	off_t off;

	if (fd < 0)
		return CASE_FAIL;
	off = lseek(fd, 0, SEEK_END);
	close(fd);
	if (off != (off_t)fixture_size()) {
		diag("lseek(0, SEEK_END) = %lld, expected %zu", (long long)off,
		     fixture_size());
		return CASE_FAIL;
	}
	return CASE_PASS;
}

static const struct test_case proc_cases[] = {
	{ "proc_read_whole_file", proc_read_whole },
	{ "proc_pread_start", proc_pread_start },
	{ "proc_pread_mid_page", proc_pread_mid_page },
	{ "proc_pread_cross_page", proc_pread_cross_page },
	{ "proc_pread_at_eof", proc_pread_at_eof },
	{ "proc_pread_past_eof", proc_pread_past_eof },
	{ "proc_lseek_end", proc_lseek_end },
};

static const struct test_group groups[] = {
	{ "setfs_user_proc", proc_cases, ARRAY_SIZE(proc_cases) },
};

static int run_group(const struct test_group *g, unsigned int number)
{
	unsigned int i, failed = 0;

	printf("    KTAP version 1\n    # Subtest: %s\n    1..%u\n", g->name,
	       g->count);
	for (i = 0; i < g->count; i++) {
		enum case_result r;

		skip_reason = NULL;
		fflush(stdout);
		r = g->cases[i].run();
		if (r == CASE_SKIP)
			printf("    ok %u %s # SKIP %s\n", i + 1, g->cases[i].name,
			       skip_reason ? skip_reason : "no reason given");
		else
			printf("    %s %u %s\n", r == CASE_PASS ? "ok" : "not ok",
			       i + 1, g->cases[i].name);
		failed += r == CASE_FAIL;
	}
	printf("%s %u %s\n", failed ? "not ok" : "ok", number, g->name);
	return failed;
}

int main(void)
{
	unsigned int i, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%zu\n", ARRAY_SIZE(groups));
	if (!fixture_size())
		printf("# cannot read %s: is setfs_probe.ko loaded?\n",
		       SETFS_SIZE_PARAM);
	for (i = 0; i < ARRAY_SIZE(groups); i++)
		failed += run_group(&groups[i], i + 1);
	return failed ? 1 : 0;
}
