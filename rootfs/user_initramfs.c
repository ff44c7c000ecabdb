// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_initramfs: what init-time code wrote with kernel pointers.
 * The initramfs unpacker (init/initramfs.c) creates, chowns, chmods and
 * links every entry through the init_* helpers that took the place of
 * the set_fs() calls, and fills files with kernel_write().  The fixture
 * under /setfs is rootfs/fixture.list, which the harness puts in the
 * initramfs (gen_init_cpio's lines, or the dracut module's) and in
 * /root: every attribute it names is checked here, against the list.
 * The probe devices created at module load by devtmpfs are checked too,
 * against the numbers sysfs gives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "setfs_user.h"

#define FIXTURE_LIST	"/root/fixture.list"
#define FILE_PATH	"/setfs/a/b/file"
#define HARDLINK	"/setfs/hardlink"
#define SYMLINK		"/setfs/symlink"
#define CHARDEV		"/setfs/chardev"

/* One line of the list: dir, file, slink or nod. */
struct fx_entry {
	char path[64];
	char arg[64];		/* file: its hard link ("" if none); slink: target */
	mode_t mode;		/* type and permissions */
	unsigned int uid, gid;
	unsigned int major, minor;
};

static struct {
	int state;		/* 0 not read, 1 read, -1 unusable */
	long long mtime;
	char content[64];
	struct fx_entry e[16];
	size_t n;
} fx;

static bool fx_line(const char *line)
{
	struct fx_entry *e = &fx.e[fx.n];
	char type[8], src[64], dev;
	unsigned int mode;
	int got;

	if (sscanf(line, "@mtime %lld", &fx.mtime) == 1)
		return true;
	if (!strncmp(line, "@content ", 9)) {
		size_t len = strlen(line + 9);

		if (len + 2 > sizeof(fx.content))
			return false;
		memcpy(fx.content, line + 9, len);
		memcpy(fx.content + len, "\n", 2);
		return true;
	}
	if (fx.n == ARRAY_SIZE(fx.e) || sscanf(line, "%7s", type) != 1)
		return false;
	memset(e, 0, sizeof(*e));
	if (!strcmp(type, "dir")) {
		got = sscanf(line, "dir %63s %o %u %u", e->path, &mode, &e->uid, &e->gid) == 4;
		e->mode = S_IFDIR | mode;
	} else if (!strcmp(type, "file")) {
		got = sscanf(line, "file %63s %63s %o %u %u %63s", e->path, src, &mode,
			     &e->uid, &e->gid, e->arg) >= 5;
		e->mode = S_IFREG | mode;
	} else if (!strcmp(type, "slink")) {
		got = sscanf(line, "slink %63s %63s %o %u %u", e->path, e->arg, &mode,
			     &e->uid, &e->gid) == 5;
		e->mode = S_IFLNK | mode;
	} else if (!strcmp(type, "nod")) {
		got = sscanf(line, "nod %63s %o %u %u %c %u %u", e->path, &mode, &e->uid,
			     &e->gid, &dev, &e->major, &e->minor) == 7 && dev == 'c';
		e->mode = S_IFCHR | mode;
	} else {
		return false;
	}
	fx.n += got;
	return got;
}

/* The list, read once; false (and a diagnostic) when it is unusable. */
static bool fx_load(void)
{
	char line[256];
	FILE *f;

	if (fx.state)
		return fx.state > 0;
	fx.state = -1;
	f = fopen(FIXTURE_LIST, "r");
	if (!f) {
		diag("open %s: %s", FIXTURE_LIST, strerror(errno));
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (!fx_line(line)) {
			diag("%s: cannot use '%s'", FIXTURE_LIST, line);
			fclose(f);
			return false;
		}
	}
	fclose(f);
	if (!fx.mtime || !fx.content[0] || !fx.n) {
		diag("%s: no @mtime, @content or entry", FIXTURE_LIST);
		return false;
	}
	fx.state = 1;
	return true;
}

/* The entry that makes PATH (a file's hard link is its file's). */
static const struct fx_entry *fx_find(const char *path)
{
	size_t i;

	if (!fx_load())
		return NULL;
	for (i = 0; i < fx.n; i++)
		if (!strcmp(fx.e[i].path, path) ||
		    (S_ISREG(fx.e[i].mode) && !strcmp(fx.e[i].arg, path)))
			return &fx.e[i];
	diag("%s names no %s", FIXTURE_LIST, path);
	return NULL;
}

/* What the list makes of E: st_nlink and st_size (-1: not checked). */
static long long fx_nlink(const struct fx_entry *e)
{
	size_t i, len = strlen(e->path);
	long long n = 2;

	if (!S_ISDIR(e->mode))
		return S_ISREG(e->mode) && e->arg[0] ? 2 : 1;
	for (i = 0; i < fx.n; i++)	/* ".." of each subdirectory */
		if (S_ISDIR(fx.e[i].mode) && !strncmp(fx.e[i].path, e->path, len) &&
		    fx.e[i].path[len] == '/' && !strchr(fx.e[i].path + len + 1, '/'))
			n++;
	return n;
}

static long long fx_size(const struct fx_entry *e)
{
	if (S_ISREG(e->mode))
		return strlen(fx.content);
	return S_ISLNK(e->mode) ? (long long)strlen(e->arg) : -1;
}

/* One entry: lstat() must give what the list says. */
struct node_row {
	const char *name;
	const char *path;
};

static const struct node_row node_rows[] = {
	{ "setfs_dir_mode_owner", "/setfs" },
	{ "setfs_a_dir_mode_owner", "/setfs/a" },
	{ "setfs_a_b_dir_mode_owner", "/setfs/a/b" },
	{ "setfs_file_mode_owner_size_nlink", FILE_PATH },
	{ "setfs_hardlink_mode_owner_size_nlink", HARDLINK },
	{ "setfs_symlink_lstat", SYMLINK },
	{ "setfs_chardev_mode_owner_rdev", CHARDEV },
};

static bool do_lstat(const char *path, struct stat *st, bool follow)
{
	if ((follow ? stat(path, st) : lstat(path, st)) == 0)
		return true;
	diag("%s %s: %s", follow ? "stat" : "lstat", path, strerror(errno));
	return false;
}

static enum case_result run_node_row(const void *data)
{
	const struct node_row *r = data;
	const struct fx_entry *e = fx_find(r->path);
	long long size;
	struct stat st;

	if (!e || !do_lstat(r->path, &st, false))
		return CASE_FAIL;
	size = fx_size(e);
	return check_oct("st_mode", st.st_mode, e->mode) &&
	       check_ll("st_uid", st.st_uid, e->uid) &&
	       check_ll("st_gid", st.st_gid, e->gid) &&
	       (size < 0 || check_ll("st_size", st.st_size, size)) &&
	       check_ll("st_nlink", st.st_nlink, fx_nlink(e)) &&
	       (!S_ISCHR(e->mode) ||
		check_hex("st_rdev", st.st_rdev, makedev(e->major, e->minor))) ?
	       CASE_PASS : CASE_FAIL;
}

static enum case_result setfs_hardlink_same_inode_as_file(void)
{
	struct stat file, link;

	return do_lstat(FILE_PATH, &file, false) &&
	       do_lstat(HARDLINK, &link, false) &&
	       check_ll("st_dev", link.st_dev, file.st_dev) &&
	       check_ll("st_ino", link.st_ino, file.st_ino) ?
	       CASE_PASS : CASE_FAIL;
}

static enum case_result setfs_symlink_target(void)
{
	const struct fx_entry *e = fx_find(SYMLINK);
	char target[64];
	ssize_t len;

	if (!e)
		return CASE_FAIL;
	len = readlink(SYMLINK, target, sizeof(target));
	if (len < 0) {
		diag("readlink %s: %s", SYMLINK, strerror(errno));
		return CASE_FAIL;
	}
	return check_ll("readlink length", len, strlen(e->arg)) &&
	       check_mem("readlink", target, e->arg, len) ?
	       CASE_PASS : CASE_FAIL;
}

static enum case_result setfs_symlink_resolves_to_file(void)
{
	struct stat file, via;

	return do_lstat(FILE_PATH, &file, false) &&
	       do_lstat(SYMLINK, &via, true) &&
	       check_ll("st_ino through the symlink", via.st_ino,
			file.st_ino) ?
	       CASE_PASS : CASE_FAIL;
}

static enum case_result setfs_file_content(void)
{
	char buf[64];
	ssize_t len;

	if (!fx_load() || !read_once(HARDLINK, buf, sizeof(buf), &len))
		return CASE_FAIL;
	return check_ll("bytes read", len, strlen(fx.content)) &&
	       check_mem("content", buf, fx.content, len) ?
	       CASE_PASS : CASE_FAIL;
}

/* c 1 3 is the null device: reads give EOF, writes are swallowed. */
static enum case_result setfs_chardev_is_null_device(void)
{
	char buf[16];
	bool ok;
	int fd;

	fd = open_path(CHARDEV, O_RDWR);
	if (fd < 0)
		return CASE_FAIL;
	ok = check_ll("read", read(fd, buf, sizeof(buf)), 0) &&
	     check_ll("write", write(fd, "x", 1), 1);
	close(fd);
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * Unpacking keeps the archive's mtimes (CONFIG_INITRAMFS_PRESERVE_MTIME):
 * every entry of the list, and the hard link, has its @mtime.  (The case
 * name keeps the value the list has had since the case was written.)
 */
static bool mtime_ok(const char *path)
{
	struct stat st;

	if (!do_lstat(path, &st, false))
		return false;
	if (st.st_mtime == fx.mtime)
		return true;
	diag("%s: mtime %lld, expected %lld", path, (long long)st.st_mtime, fx.mtime);
	return false;
}

static enum case_result setfs_entries_mtime(void)
{
	bool ok = true;
	size_t i;

	if (!fx_load())
		return CASE_FAIL;
	for (i = 0; i < fx.n; i++) {
		ok = mtime_ok(fx.e[i].path) && ok;
		if (S_ISREG(fx.e[i].mode) && fx.e[i].arg[0])
			ok = mtime_ok(fx.e[i].arg) && ok;
	}
	return ok ? CASE_PASS : CASE_FAIL;
}

static const struct test_case setfs_fn_cases[] = {
	{ "setfs_hardlink_same_inode_as_file", setfs_hardlink_same_inode_as_file },
	{ "setfs_symlink_target", setfs_symlink_target },
	{ "setfs_symlink_resolves_to_file", setfs_symlink_resolves_to_file },
	{ "setfs_file_content", setfs_file_content },
	{ "setfs_chardev_is_null_device", setfs_chardev_is_null_device },
	{ "setfs_entries_mtime_1600000000", setfs_entries_mtime },
};

/* A misc device of the probe, as devtmpfs made it at module load. */
struct misc_row {
	const char *name;
	const char *dev;	/* its name in /dev and /sys/class/misc */
	mode_t mode;
};

static const struct misc_row misc_rows[] = {
	{ "dev_setfs_probe_misc_node", SETFS_DEV_NAME, 0666 },
	{ "dev_setfs_probe_legacy_misc_node", SETFS_DEV_LEGACY_NAME, 0666 },
	{ "dev_setfs_probe_both_misc_node", SETFS_DEV_BOTH_NAME, 0666 },
	{ "dev_setfs_probe_ctl_misc_node", SETFS_CTL_NAME, 0600 },
};

static enum case_result run_misc_row(const void *data)
{
	const struct misc_row *r = data;
	unsigned int major, minor;
	char path[128];
	struct stat st;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/class/misc/%s/dev", r->dev);
	f = fopen(path, "r");
	if (!f) {
		diag("open %s: %s", path, strerror(errno));
		return CASE_FAIL;
	}
	n = fscanf(f, "%u:%u", &major, &minor);
	fclose(f);
	if (n != 2) {
		diag("%s does not hold major:minor", path);
		return CASE_FAIL;
	}
	snprintf(path, sizeof(path), "/dev/%s", r->dev);
	if (!do_lstat(path, &st, false))
		return CASE_FAIL;
	return check_ll("sysfs major (MISC_MAJOR)", major, 10) &&
	       check_oct("st_mode", st.st_mode, S_IFCHR | r->mode) &&
	       check_ll("major of st_rdev", major(st.st_rdev), 10) &&
	       check_ll("minor of st_rdev", minor(st.st_rdev), minor) ?
	       CASE_PASS : CASE_FAIL;
}

KTAP_GROUP(initramfs_group) = {
	.name = "setfs_user_initramfs",
	.order = 90,
	KTAP_TABLES(KTAP_TABLE(node_rows, run_node_row),
		    KTAP_TABLE(setfs_fn_cases, run_test_case),
		    KTAP_TABLE(misc_rows, run_misc_row)),
};
