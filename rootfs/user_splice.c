// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_splice: after seed "fs: don't allow splice read/write without
 * explicit ops" there is no default splice: files with ->splice_read (proc
 * files with ->proc_read_iter, sysctl files) splice, sendfile and tee like
 * before; files without it (the probe devices, ->proc_read files) get
 * -EINVAL, and so does splicing into a file without ->splice_write.  Plain
 * read() and write() of those files still work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "setfs_user.h"

#define SYSCTL_VERSION	"/proc/sys/kernel/version"
#define SYSCTL_NR_OPEN	"/proc/sys/fs/nr_open"
#define SYSCTL_HOSTNAME	"/proc/sys/kernel/hostname"

/* What every case of this group works with; closed by splice_close(). */
struct splice_ctx {
	int fd;
	int out;
	int p[2];
	int q[2];
	unsigned char *buf;
};

static bool splice_open(struct splice_ctx *c, const char *path, int flags,
			bool two_pipes, size_t bufsize)
{
	c->fd = -1;
	c->out = -1;
	c->p[0] = -1;
	c->p[1] = -1;
	c->q[0] = -1;
	c->q[1] = -1;
	c->buf = malloc(bufsize ? bufsize : 1);
	if (!c->buf) {
		diag("out of memory");
		return false;
	}
	if (pipe(c->p) < 0 || (two_pipes && pipe(c->q) < 0)) {
		diag("pipe: %s", strerror(errno));
		return false;
	}
	if (path) {
		c->fd = open_path(path, flags);
		if (c->fd < 0)
			return false;
	}
	return true;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

static void splice_close(struct splice_ctx *c)
{
	close_fd(c->fd);
	close_fd(c->out);
	close_fd(c->p[0]);
	close_fd(c->p[1]);
	close_fd(c->q[0]);
	close_fd(c->q[1]);
	free(c->buf);
}

/* An unlinked file in /tmp (tmpfs, which has ->splice_write). */
static int tmpfs_file(void)
{
	char name[] = "/tmp/setfs_user.XXXXXX";
	int fd = mkstemp(name);

	if (fd < 0) {
		diag("mkstemp: %s", strerror(errno));
		return -1;
	}
	unlink(name);
	return fd;
}

/* The tmpfs file c->out holds the whole pattern, @size bytes. */
static bool check_tmpfs_copy(struct splice_ctx *c, size_t size)
{
	return check_ll("pread of the copy", pread(c->out, c->buf, size, 0),
			size) &&
	       check_pattern("copy", c->buf, size, 0);
}

/* Splices from c->fd at *off (or the file position when NULL) to EOF. */
static ssize_t splice_all(struct splice_ctx *c, loff_t *off, size_t max)
{
	size_t total = 0;
	ssize_t ret;

	while ((ret = splice(c->fd, off, c->p[1], NULL, max - total, 0)) > 0)
		total += ret;
	if (ret < 0) {
		diag("splice after %zu bytes: %s", total, strerror(errno));
		return -1;
	}
	return total;
}

static bool check_pipe_pattern(int fd, unsigned char *buf, size_t len,
			       off_t pos)
{
	return check_ll("bytes in the pipe", drain_pipe(fd, buf, len), len) &&
	       check_pattern("pipe", buf, len, pos);
}

/*
 * A case on a struct splice_ctx: run_ctx_row() opens @path for reading
 * with a buffer of @bufsize bytes (0: the fixture's size), a second pipe
 * and a tmpfs file in c->out if asked, runs @run with the fixture's size
 * and closes everything after it.
 */
struct ctx_row {
	const char *name;
	bool (*run)(struct splice_ctx *c, size_t size);
	const char *path;
	size_t bufsize;
	bool two_pipes;
	bool tmpfs;
};

static enum case_result run_ctx_row(const void *data)
{
	const struct ctx_row *r = data;
	size_t size = fixture_size();
	enum case_result res = CASE_FAIL;
	struct splice_ctx c;

	if (!splice_open(&c, r->path, O_RDONLY, r->two_pipes,
			 r->bufsize ? r->bufsize : size))
		goto out;
	if (r->tmpfs) {
		c.out = tmpfs_file();
		if (c.out < 0)
			goto out;
	}
	if (r->run(&c, size))
		res = CASE_PASS;
out:
	splice_close(&c);
	return res;
}

static bool splice_proc_to_pipe_whole_file(struct splice_ctx *c, size_t size)
{
	loff_t off = 0;

	return check_ll("bytes spliced", splice_all(c, &off, size + 100), size) &&
	       check_ll("off_in afterwards", off, size) &&
	       check_ll("file position (off_in given)", lseek(c->fd, 0, SEEK_CUR), 0) &&
	       check_pipe_pattern(c->p[0], c->buf, size, 0);
}

static bool splice_proc_to_pipe_cross_page(struct splice_ctx *c, size_t size)
{
	loff_t off = 4090;

	(void)size;
	return check_ll("splice", splice(c->fd, &off, c->p[1], NULL, 100, 0), 100) &&
	       check_ll("off_in afterwards", off, 4190) &&
	       check_pipe_pattern(c->p[0], c->buf, 100, 4090);
}

static bool splice_proc_to_pipe_file_position(struct splice_ctx *c,
					      size_t size)
{
	(void)size;
	return check_ll("lseek", lseek(c->fd, 5000, SEEK_SET), 5000) &&
	       check_ll("splice", splice(c->fd, NULL, c->p[1], NULL, 100, 0), 100) &&
	       check_ll("file position afterwards", lseek(c->fd, 0, SEEK_CUR), 5100) &&
	       check_pipe_pattern(c->p[0], c->buf, 100, 5000);
}

static bool splice_proc_to_pipe_at_eof(struct splice_ctx *c, size_t size)
{
	loff_t off = size;

	return check_ll("splice", splice(c->fd, &off, c->p[1], NULL, 100, 0), 0) &&
	       check_ll("bytes in the pipe", drain_pipe(c->p[0], c->buf, 0), 0);
}

static bool sendfile_proc_to_pipe(struct splice_ctx *c, size_t size)
{
	size_t total = 0;
	off_t off = 0;
	ssize_t ret;

	while ((ret = sendfile(c->p[1], c->fd, &off, size - total)) > 0)
		total += ret;
	if (ret < 0) {
		diag("sendfile: %s", strerror(errno));
		return false;
	}
	return check_ll("bytes sent", total, size) &&
	       check_ll("offset afterwards", off, size) &&
	       check_pipe_pattern(c->p[0], c->buf, size, 0);
}

static bool sendfile_proc_to_tmpfs_file(struct splice_ctx *c, size_t size)
{
	size_t total = 0;
	ssize_t ret;

	while ((ret = sendfile(c->out, c->fd, NULL, size + 100 - total)) > 0)
		total += ret;
	if (ret < 0) {
		diag("sendfile: %s", strerror(errno));
		return false;
	}
	return check_ll("bytes sent", total, size) &&
	       check_ll("file position of the proc file", lseek(c->fd, 0, SEEK_CUR),
			size) &&
	       check_tmpfs_copy(c, size);
}

static bool tee_proc_pipe_duplicates(struct splice_ctx *c, size_t size)
{
	loff_t off = 0;

	return check_ll("bytes spliced", splice_all(c, &off, size), size) &&
	       check_ll("tee", tee(c->p[0], c->q[1], size, 0), size) &&
	       check_pipe_pattern(c->q[0], c->buf, size, 0) &&
	       check_pipe_pattern(c->p[0], c->buf, size, 0);
}

/* On the proc file, with a buffer of @bs bytes (0: the fixture's size). */
#define PROC_ROW(n, fn, bs)	{ .name = n, .run = fn, .path = PROC, .bufsize = bs }

static const struct ctx_row proc_rows[] = {
	PROC_ROW("splice_proc_to_pipe_whole_file", splice_proc_to_pipe_whole_file, 0),
	PROC_ROW("splice_proc_to_pipe_cross_page", splice_proc_to_pipe_cross_page, 100),
	PROC_ROW("splice_proc_to_pipe_file_position",
		 splice_proc_to_pipe_file_position, 100),
	PROC_ROW("splice_proc_to_pipe_at_eof", splice_proc_to_pipe_at_eof, 1),
	PROC_ROW("sendfile_proc_to_pipe", sendfile_proc_to_pipe, 0),
	{ .name = "sendfile_proc_to_tmpfs_file", .run = sendfile_proc_to_tmpfs_file,
	  .path = PROC, .tmpfs = true },
	{ .name = "tee_proc_pipe_duplicates", .run = tee_proc_pipe_duplicates,
	  .path = PROC, .two_pipes = true },
};

/* The whole of a sysctl file through splice, checked against @want. */
static bool splice_sysctl(const char *path, const char *want)
{
	size_t len = strlen(want);
	struct splice_ctx c;
	bool ok = false;

	if (splice_open(&c, path, O_RDONLY, false, 4096) &&
	    check_ll("splice", splice(c.fd, NULL, c.p[1], NULL, 4096, 0), len) &&
	    check_ll("bytes in the pipe", drain_pipe(c.p[0], c.buf, 4096), len))
		ok = check_mem(path, c.buf, want, len);
	splice_close(&c);
	return ok;
}

static enum case_result splice_sysctl_kernel_version(void)
{
	struct utsname u;
	char want[sizeof(u.version) + 1];

	if (uname(&u) < 0) {
		diag("uname: %s", strerror(errno));
		return CASE_FAIL;
	}
	snprintf(want, sizeof(want), "%s\n", u.version);
	return splice_sysctl(SYSCTL_VERSION, want) ? CASE_PASS : CASE_FAIL;
}

static enum case_result splice_sysctl_fs_nr_open(void)
{
	char want[64] = "";
	ssize_t len;

	if (!read_once(SYSCTL_NR_OPEN, want, sizeof(want) - 1, &len))
		return CASE_FAIL;
	/* The kernel's default, nothing in the guest changes it. */
	if (!check_ll("read of " SYSCTL_NR_OPEN, len, 8) ||
	    !check_mem(SYSCTL_NR_OPEN, want, "1048576\n", 8))
		return CASE_FAIL;
	return splice_sysctl(SYSCTL_NR_OPEN, want) ? CASE_PASS : CASE_FAIL;
}

/* sysctl files have ->splice_write (iter_file_splice_write) as well. */
static enum case_result splice_pipe_to_sysctl_hostname(void)
{
	static const char name[] = "setfs-splice";
	enum case_result res = CASE_FAIL;
	struct utsname before, after;
	struct splice_ctx c;
	ssize_t len = sizeof(name) - 1;

	if (!splice_open(&c, SYSCTL_HOSTNAME, O_WRONLY, false, 1))
		goto out;
	if (uname(&before) < 0) {
		diag("uname: %s", strerror(errno));
		goto out;
	}
	if (check_ll("write to pipe", write(c.p[1], name, len), len) &&
	    check_ll("splice", splice(c.p[0], NULL, c.fd, NULL, len, 0), len) &&
	    uname(&after) == 0 &&
	    check_mem("uname nodename", after.nodename, name, sizeof(name)))
		res = CASE_PASS;
	if (sethostname(before.nodename, strlen(before.nodename)) < 0) {
		diag("restoring the hostname: %s", strerror(errno));
		res = CASE_FAIL;
	}
out:
	splice_close(&c);
	return res;
}

static const struct test_case sysctl_cases[] = {
	{ "splice_sysctl_kernel_version", splice_sysctl_kernel_version },
	{ "splice_sysctl_fs_nr_open", splice_sysctl_fs_nr_open },
	{ "splice_pipe_to_sysctl_hostname", splice_pipe_to_sysctl_hostname },
};

/*
 * Splices the kernel refuses with -EINVAL for want of ->splice_read or
 * ->splice_write.  Nothing moves: the pipe keeps what it held and the
 * devices' store keeps the pattern.
 */
enum einval_how {
	FILE_TO_PIPE,		/* splice(file, pipe): needs ->splice_read */
	SENDFILE_TO_PIPE,	/* sendfile(pipe, file): the same */
	SENDFILE_TO_TMPFS,	/* sendfile(tmpfs file, regular file): the same */
	PIPE_TO_FILE,		/* splice(pipe, file): needs ->splice_write */
};

struct einval_row {
	const char *name;
	enum einval_how how;
	const char *path;
};

static const struct einval_row einval_rows[] = {
	{ "splice_dev_to_pipe_einval",		FILE_TO_PIPE, DEV },
	{ "splice_dev_legacy_to_pipe_einval",	FILE_TO_PIPE, DEV_LEGACY },
	{ "splice_dev_both_to_pipe_einval",	FILE_TO_PIPE, DEV_BOTH },
	{ "splice_proc_legacy_to_pipe_einval",	FILE_TO_PIPE, PROC_LEGACY },
	{ "sendfile_dev_to_pipe_einval",	SENDFILE_TO_PIPE, DEV },
	{ "sendfile_dev_legacy_to_pipe_einval",	SENDFILE_TO_PIPE, DEV_LEGACY },
	{ "sendfile_proc_legacy_to_tmpfs_einval", SENDFILE_TO_TMPFS, PROC_LEGACY },
	{ "splice_pipe_to_dev_einval",		PIPE_TO_FILE, DEV },
	{ "splice_pipe_to_dev_legacy_einval",	PIPE_TO_FILE, DEV_LEGACY },
	{ "splice_pipe_to_dev_both_einval",	PIPE_TO_FILE, DEV_BOTH },
	{ "splice_pipe_to_proc_einval",		PIPE_TO_FILE, PROC },
};

static enum case_result run_einval_row(const void *data)
{
	const struct einval_row *r = data;
	size_t size = fixture_size();
	enum case_result res = probe_file_state(r->path);
	struct setfs_ctl_info info;
	unsigned char *pattern = NULL;
	size_t queued = 0;
	struct splice_ctx c;
	ssize_t ret;
	int err;

	if (res != CASE_PASS)
		return res;
	res = CASE_FAIL;
	if (!splice_open(&c, r->path, r->how == PIPE_TO_FILE ? O_WRONLY : O_RDONLY,
			 false, size))
		goto out;
	pattern = pattern_copy(size, 0);
	if (!pattern)
		goto out;
	switch (r->how) {
	case FILE_TO_PIPE:
		ret = splice(c.fd, NULL, c.p[1], NULL, 100, 0);
		break;
	case SENDFILE_TO_PIPE:
		ret = sendfile(c.p[1], c.fd, NULL, 100);
		break;
	case SENDFILE_TO_TMPFS:
		c.out = tmpfs_file();
		if (c.out < 0)
			goto out;
		ret = sendfile(c.out, c.fd, NULL, 100);
		break;
	case PIPE_TO_FILE:
		queued = 100;
		if (!check_ll("write to pipe", write(c.p[1], pattern, queued),
			      queued))
			goto out;
		ret = splice(c.p[0], NULL, c.fd, NULL, queued, 0);
		break;
	default:
		goto out;
	}
	err = errno;
	if (check_errno(r->how == FILE_TO_PIPE || r->how == PIPE_TO_FILE ?
			"splice" : "sendfile", ret, err, EINVAL) &&
	    check_ll("bytes left in the pipe", drain_pipe(c.p[0], c.buf, size),
		     queued) &&
	    check_mem("pipe", c.buf, pattern, queued) &&
	    check_ll("file position", lseek(c.fd, 0, SEEK_CUR), 0) &&
	    ctl_info(&info) &&
	    check_hex("store checksum", info.store_sum,
		      setfs_checksum(pattern, size)))
		res = CASE_PASS;
out:
	splice_close(&c);
	free(pattern);
	return res;
}

/* Without splice, read() and write() still copy a device to a file. */
static bool read_write_copy(struct splice_ctx *c, size_t size)
{
	unsigned char chunk[1000];
	size_t total = 0;
	ssize_t ret;

	while ((ret = read(c->fd, chunk, sizeof(chunk))) > 0) {
		if (!check_ll("write", write(c->out, chunk, ret), ret))
			return false;
		total += ret;
	}
	if (ret < 0) {
		diag("read after %zu bytes: %s", total, strerror(errno));
		return false;
	}
	return check_ll("bytes copied", total, size) &&
	       check_tmpfs_copy(c, size);
}

/* A device read into a tmpfs file. */
#define COPY_ROW(n, p)	{ .name = n, .run = read_write_copy, .path = p, .tmpfs = true }

static const struct ctx_row copy_rows[] = {
	COPY_ROW("read_write_copy_dev_to_tmpfs", DEV),
	COPY_ROW("read_write_copy_dev_legacy_to_tmpfs", DEV_LEGACY),
	COPY_ROW("read_write_copy_dev_both_to_tmpfs", DEV_BOTH),
};

/* write() stores into the store; reads still return the pattern. */
static enum case_result write_dev_stores_reads_pattern(void)
{
	size_t size = fixture_size();
	enum case_result res = CASE_FAIL;
	unsigned char data[64], back[64];
	struct setfs_ctl_info info;
	unsigned char *model = pattern_copy(size, 0);
	int fd = -1;

	if (!model)
		return CASE_FAIL;
	memset(data, 0x5a, sizeof(data));
	memcpy(model + 100, data, sizeof(data));
	fd = open_path(DEV, O_RDWR);
	if (fd >= 0 &&
	    check_ll("pwrite", pwrite(fd, data, sizeof(data), 100), sizeof(data)) &&
	    ctl_info(&info) &&
	    check_hex("store checksum", info.store_sum, setfs_checksum(model, size)) &&
	    check_ll("pread", pread(fd, back, sizeof(back), 100), sizeof(back)) &&
	    check_pattern("read after the write", back, sizeof(back), 100))
		res = CASE_PASS;
	close_fd(fd);
	if (!store_restore())
		res = CASE_FAIL;
	free(model);
	return res;
}

static const struct test_case splice_rw_cases[] = {
	{ "write_dev_stores_reads_pattern", write_dev_stores_reads_pattern },
};

KTAP_GROUP(splice_group) = {
	.name = "setfs_user_splice",
	.order = 30,
	KTAP_TABLES(KTAP_TABLE(proc_rows, run_ctx_row),
		    KTAP_TABLE(sysctl_cases, run_test_case),
		    KTAP_TABLE(einval_rows, run_einval_row),
		    KTAP_TABLE(copy_rows, run_ctx_row),
		    KTAP_TABLE(splice_rw_cases, run_test_case)),
};
