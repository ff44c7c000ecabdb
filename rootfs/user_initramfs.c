// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_initramfs: what init-time code wrote with kernel pointers.
 * The initramfs unpacker (init/initramfs.c) creates, chowns, chmods and
 * links every entry through the init_* helpers that took the place of
 * the set_fs() calls, and fills files with kernel_write(); run.sh puts a
 * fixture under /setfs whose every attribute is checked here.  The probe
 * devices created at module load by devtmpfs are checked too, against
 * the numbers sysfs gives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "setfs_user.h"

#define FILE_PATH	"/setfs/a/b/file"
#define HARDLINK	"/setfs/hardlink"
#define SYMLINK		"/setfs/symlink"
#define SYMLINK_TARGET	"a/b/file"
#define CHARDEV		"/setfs/chardev"
#define CONTENT		"setfs fixture\n"
#define FIXTURE_MTIME	1600000000

/* One entry: lstat() must give exactly these (-1: not checked). */
struct node_row {
	const char *name;
	const char *path;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	long long size;
	long long nlink;
	long long rdev;
};

static const struct node_row node_rows[] = {
	{ "setfs_dir_mode_owner", "/setfs", S_IFDIR | 0755, 0, 0, -1, 3, -1 },
	{ "setfs_a_dir_mode_owner", "/setfs/a", S_IFDIR | 0750, 1000, 1000,
	  -1, 3, -1 },
	{ "setfs_a_b_dir_mode_owner", "/setfs/a/b", S_IFDIR | 0700, 0, 0,
	  -1, 2, -1 },
	{ "setfs_file_mode_owner_size_nlink", FILE_PATH, S_IFREG | 0640,
	  1000, 100, sizeof(CONTENT) - 1, 2, -1 },
	{ "setfs_hardlink_mode_owner_size_nlink", HARDLINK, S_IFREG | 0640,
	  1000, 100, sizeof(CONTENT) - 1, 2, -1 },
	{ "setfs_symlink_lstat", SYMLINK, S_IFLNK | 0777, 0, 0,
	  sizeof(SYMLINK_TARGET) - 1, 1, -1 },
	{ "setfs_chardev_mode_owner_rdev", CHARDEV, S_IFCHR | 0600, 0, 0,
	  -1, 1, 0x103 },
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
	struct stat st;

	if (!do_lstat(r->path, &st, false))
		return CASE_FAIL;
	return check_oct("st_mode", st.st_mode, r->mode) &&
	       check_ll("st_uid", st.st_uid, r->uid) &&
	       check_ll("st_gid", st.st_gid, r->gid) &&
	       (r->size < 0 || check_ll("st_size", st.st_size, r->size)) &&
	       (r->nlink < 0 || check_ll("st_nlink", st.st_nlink, r->nlink)) &&
	       (r->rdev < 0 ||
		check_hex("st_rdev", st.st_rdev,
			  makedev(r->rdev >> 8, r->rdev & 0xff))) ?
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
	char target[64];
	ssize_t len = readlink(SYMLINK, target, sizeof(target));

	if (len < 0) {
		diag("readlink %s: %s", SYMLINK, strerror(errno));
		return CASE_FAIL;
	}
	return check_ll("readlink length", len, sizeof(SYMLINK_TARGET) - 1) &&
	       check_mem("readlink", target, SYMLINK_TARGET, len) ?
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

	if (!read_once(HARDLINK, buf, sizeof(buf), &len))
		return CASE_FAIL;
	return check_ll("bytes read", len, sizeof(CONTENT) - 1) &&
	       check_mem("content", buf, CONTENT, len) ?
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

/* Unpacking keeps the archive's mtimes (CONFIG_INITRAMFS_PRESERVE_MTIME). */
static enum case_result setfs_entries_mtime(void)
{
	static const char * const paths[] = {
		"/setfs", "/setfs/a", "/setfs/a/b", FILE_PATH, HARDLINK,
		SYMLINK, CHARDEV,
	};
	bool ok = true;
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (!do_lstat(paths[i], &st, false)) {
			ok = false;
		} else if (st.st_mtime != FIXTURE_MTIME) {
			diag("%s: mtime %lld, expected %d", paths[i],
			     (long long)st.st_mtime, FIXTURE_MTIME);
			ok = false;
		}
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

const struct ktap_group initramfs_group = {
	.name = "setfs_user_initramfs",
	KTAP_TABLES(KTAP_TABLE(node_rows, run_node_row),
		    KTAP_TABLE(setfs_fn_cases, run_test_case),
		    KTAP_TABLE(misc_rows, run_misc_row)),
};
