// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_kunit: helpers shared by the suites.  Files opened through them are
 * KUnit resources: they are closed when the case ends, however it ends.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/glob.h>
#include <linux/init.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/splice.h>
#include <linux/string.h>
#include <linux/uio.h>

#include "setfs_kunit.h"

#ifndef MODULE
/* init_syscalls.h uses what the headers above declare */
#include <linux/init_syscalls.h>
#endif

static int setfs_file_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void setfs_file_res_free(struct kunit_resource *res)
{
	filp_close(res->data, NULL);
}

static struct file *setfs_kunit_track(struct kunit *test, struct file *file)
{
	if (IS_ERR(file))
		return file;
	if (!kunit_alloc_resource(test, setfs_file_res_init,
				  setfs_file_res_free, GFP_KERNEL, file)) {
		filp_close(file, NULL);
		return ERR_PTR(-ENOMEM);
	}
	return file;
}

/**
 * setfs_kunit_open() - open a file for the duration of a test case
 * @test: the test case
 * @path: absolute path in the guest
 * @flags: open flags
 * @mode: mode for O_CREAT and O_TMPFILE
 *
 * Return: the file, or an ERR_PTR() with the errno of filp_open().
 */
struct file *setfs_kunit_open(struct kunit *test, const char *path,
			      int flags, umode_t mode)
{
	return setfs_kunit_track(test, filp_open(path, flags, mode));
}

/**
 * setfs_kunit_open_fixture() - open a file the case cannot do without
 * @test: the test case
 * @path: absolute path in the guest
 * @flags: open flags
 *
 * Fails the case, naming the path and the errno, when the file cannot be
 * opened (a fixture the probe module does not provide yet, for one).
 * Skips it for /proc/setfs_probe_legacy where the kernel has no
 * ->proc_read, so the probe cannot build that fixture.
 *
 * Return: the file.
 */
struct file *setfs_kunit_open_fixture(struct kunit *test, const char *path,
				      int flags)
{
	struct file *file;

#ifndef SETFS_HAVE_PROC_READ
	if (!strcmp(path, SETFS_PROC_LEGACY_PATH))
		kunit_skip(test, "struct proc_ops has no ->proc_read: no %s",
			   path);
#endif
	file = setfs_kunit_open(test, path, flags, 0600);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "open %s: %d", path,
			       PTR_ERR_OR_ZERO(file));
	return file;
}

/**
 * setfs_kunit_tmpfile() - an unnamed read-write file on the guest's /tmp
 * @test: the test case
 * @flags: open flags besides O_TMPFILE | O_RDWR (O_APPEND, say)
 *
 * /tmp is tmpfs in the guest, whose files have ->read_iter, ->write_iter,
 * ->splice_read and ->splice_write.  The file is gone once closed.  Fails
 * the case when it cannot be created.
 *
 * Return: the file.
 */
struct file *setfs_kunit_tmpfile(struct kunit *test, int flags)
{
	return setfs_kunit_open_fixture(test, "/tmp",
					O_TMPFILE | O_RDWR | flags);
}

/**
 * setfs_kunit_anon_file() - a file with exactly the given file operations
 * @test: the test case
 * @fops: the methods; nothing is added to them
 * @priv: becomes file->private_data
 * @flags: O_RDONLY, O_WRONLY or O_RDWR
 *
 * Return: the file, or an ERR_PTR().
 */
struct file *setfs_kunit_anon_file(struct kunit *test,
				   const struct file_operations *fops,
				   void *priv, int flags)
{
	return setfs_kunit_track(test, anon_inode_getfile("[setfs_kunit]", fops,
							  priv, flags));
}

/**
 * setfs_kunit_span() - bytes a read or write of @count at @pos covers
 * @pos: file position
 * @count: bytes asked for
 * @size: file size
 *
 * Return: min(@count, @size - @pos), or 0 at and past the end.
 */
size_t setfs_kunit_span(loff_t pos, size_t count, size_t size)
{
	if (pos < 0 || pos >= size)
		return 0;
	return min_t(size_t, count, size - pos);
}

/**
 * setfs_kunit_fill_pattern() - the fixture bytes of [@pos, @pos + @len)
 * @buf: destination
 * @pos: file position of @buf[0]
 * @len: bytes to fill
 */
void setfs_kunit_fill_pattern(u8 *buf, loff_t pos, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = setfs_pattern_byte(pos + i);
}

/**
 * setfs_kunit_expect_pattern() - fail on the first byte that is not the
 *	fixture byte of its file position
 * @test: the test case
 * @buf: bytes read
 * @pos: file position of @buf[0]
 * @len: bytes to check
 */
void setfs_kunit_expect_pattern(struct kunit *test, const u8 *buf,
				loff_t pos, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != setfs_pattern_byte(pos + i)) {
			KUNIT_FAIL(test, "byte at file offset %lld is %#x, expected %#x",
				   pos + (loff_t)i, buf[i],
				   setfs_pattern_byte(pos + i));
			return;
		}
	}
}

/**
 * setfs_kunit_load() - the integer of @size bytes at @p, which may be
 *	unaligned
 * @p: its first byte
 * @size: 1, 2, 4 or 8
 *
 * What get_unaligned() gives, through memcpy(): get_unaligned() comes from
 * <asm/unaligned.h> up to 6.11 and from <linux/unaligned.h> since 6.12
 * (commit 5f60d5f6bbc1, "move asm/unaligned.h to linux/unaligned.h"), and
 * neither header is in both.
 *
 * Return: the value, in CPU byte order.
 */
u64 setfs_kunit_load(const void *p, size_t size)
{
	u16 v16;
	u32 v32;
	u64 v64;

	switch (size) {
	case 1:
		return *(const u8 *)p;
	case 2:
		memcpy(&v16, p, sizeof(v16));
		return v16;
	case 4:
		memcpy(&v32, p, sizeof(v32));
		return v32;
	default:
		memcpy(&v64, p, sizeof(v64));
		return v64;
	}
}

/**
 * setfs_kunit_own_user_space() - an empty user address space for the case
 * @test: the running case
 *
 * For cases that pass a kernel address as a user pointer.  Where user
 * space is an address space of its own (SETFS_SEPARATE_USER_SPACE: s390),
 * that number is a user address, and the user address space of a kernel
 * thread is whatever mm it borrowed lazily: the last process's (s390's
 * switch_mm_irqs_off() sets the user ASCE, a kthread does not switch).  A
 * copy from it may read, and a copy to it may write, that process's
 * memory, depending on what ran before.  kunit_vm_mmap() attaches a new
 * mm to the case's thread with one anonymous PROT_NONE page (just below
 * the mmap base, which on s390 is in the range of the kernel's own
 * addresses), so that the number names nothing accessible and the copies
 * fault.
 * Elsewhere the kernel address is refused by access_ok() (or, without an
 * MMU, copied), whatever the mm: nothing to do.
 */
void setfs_kunit_own_user_space(struct kunit *test)
{
#ifdef SETFS_HAVE_KUNIT_VM_MMAP
	unsigned long addr;

	if (!SETFS_SEPARATE_USER_SPACE)
		return;
	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_NONE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, !addr || IS_ERR_VALUE(addr),
			       "kunit_vm_mmap(): %ld", (long)addr);
#else
	if (SETFS_SEPARATE_USER_SPACE)
		kunit_skip(test,
			   "separate user space: needs kunit_vm_mmap() (6.10)");
#endif
}

/* setfs_kunit_own_user_space() as a suite's init: for every case. */
int setfs_kunit_own_user_space_init(struct kunit *test)
{
	setfs_kunit_own_user_space(test);
	return 0;
}

/**
 * setfs_kunit_flush_fput() - a suite_exit that finishes deferred closes
 * @suite: the suite that ends
 *
 * Cases run in kernel threads, whose last fput() is deferred to a work
 * item.  Finish those before the next suite runs and before the module
 * can be unloaded.
 */
void setfs_kunit_flush_fput(struct kunit_suite *suite)
{
	flush_delayed_fput();
}

/*
 * Who takes the freeze protection of the file written to (file_start_write(),
 * sb_start_write() for a regular file) around vfs_iter_write() and
 * do_splice_direct(): the caller up to 6.7, as do_sendfile() and overlayfs
 * did; the functions themselves from 6.8 on.  Taking it there as well would
 * nest it, which lockdep reports as recursive locking and which can deadlock
 * against a freeze that starts between the two.
 *
 * 6.8: commit 269aed7014b3 ("fs: move file_start_write() into
 * vfs_iter_write()") and commit da40448ce4eb ("fs: move file_start_write()
 * into direct_splice_actor()"), Amir Goldstein's series.  kunit/Kbuild
 * tells by the tree's version (SETFS_VFS_STARTS_WRITE): the change is in
 * fs/read_write.c and fs/splice.c, which no header shows.
 */
#ifdef SETFS_VFS_STARTS_WRITE
#define SETFS_CALLER_STARTS_WRITE	false
#else
#define SETFS_CALLER_STARTS_WRITE	true
#endif

/**
 * setfs_kunit_iter_write() - vfs_iter_write() as its callers must call it
 * @file: the file, open for writing
 * @iter: the bytes
 * @pos: file position, advanced by the bytes written
 *
 * Return: what vfs_iter_write() returns.
 */
ssize_t setfs_kunit_iter_write(struct file *file, struct iov_iter *iter,
			       loff_t *pos)
{
	ssize_t ret;

	if (SETFS_CALLER_STARTS_WRITE)
		file_start_write(file);
	ret = vfs_iter_write(file, iter, pos, 0);
	if (SETFS_CALLER_STARTS_WRITE)
		file_end_write(file);
	return ret;
}

/**
 * setfs_kunit_splice_direct() - do_splice_direct() as sendfile(2) calls it
 * @in: the file spliced from
 * @pos: position in @in, advanced by the bytes spliced
 * @out: the file spliced to
 * @opos: position in @out, advanced by the bytes spliced
 * @len: bytes to splice
 *
 * do_sendfile() checks both ranges with rw_verify_area() first, which
 * do_splice_direct() leaves to its callers since 6.8 (it checked the
 * output range itself before).
 *
 * Return: what rw_verify_area() or do_splice_direct() returns.
 */
long setfs_kunit_splice_direct(struct file *in, loff_t *pos, struct file *out,
			       loff_t *opos, size_t len)
{
	long ret;

	ret = rw_verify_area(READ, in, pos, len);
	if (!ret)
		ret = rw_verify_area(WRITE, out, opos, len);
	if (ret)
		return ret;
	if (SETFS_CALLER_STARTS_WRITE)
		file_start_write(out);
	ret = do_splice_direct(in, pos, out, opos, len, 0);
	if (SETFS_CALLER_STARTS_WRITE)
		file_end_write(out);
	return ret;
}

#ifdef MODULE
/*
 * filter_glob: what kunit.py's filter_glob selects for built-in suites, for
 * this module's suites, with several globs: "SUITE" or "SUITE.CASE" (split
 * at the first dot, as kunit.py splits it), comma-separated.
 */
static char *filter_glob;
module_param(filter_glob, charp, 0444);
MODULE_PARM_DESC(filter_glob,
		 "run only matching suites and cases: SUITE[.CASE] globs, comma-separated");

/*
 * action=list: print the selected suites and cases, as KUnit's executor
 * does with kunit.action=list ("SUITE" then "SUITE.CASE" lines), and run
 * nothing (./run.sh kunit --list_tests).
 */
static char *action;
module_param(action, charp, 0444);
MODULE_PARM_DESC(action, "list: print the selected suites and cases instead of running them");

#define SETFS_GLOB_MAX 128

static bool setfs_filter_match(const char *suite, const char *test)
{
	const char *p = filter_glob, *end, *dot;
	char glob[SETFS_GLOB_MAX];
	size_t len;

	while (*p) {
		end = strchrnul(p, ',');
		len = min_t(size_t, end - p, sizeof(glob) - 1);
		memcpy(glob, p, len);
		glob[len] = '\0';
		p = *end ? end + 1 : end;
		dot = strchr(glob, '.');
		if (dot)
			glob[dot - glob] = '\0';
		if (glob_match(glob, suite) &&
		    (!dot || glob_match(glob + (dot - glob) + 1, test)))
			return true;
	}
	return false;
}

/* Keeps the selected cases of @suite, in order; false if none is. */
static bool setfs_filter_suite(struct kunit_suite *suite)
{
	struct kunit_case *c, *kept = suite->test_cases;

	for (c = suite->test_cases; c->run_case; c++) {
		if (setfs_filter_match(suite->name, c->name))
			*kept++ = *c;
	}
	if (kept == suite->test_cases)
		return false;
	memset(kept, 0, sizeof(*kept));
	return true;
}

/*
 * The order of the KTAP report; a new suite is added here and to the
 * kunit_test_suites() of the built-in case below.
 */
static struct kunit_suite *setfs_suites[] = {
	&setfs_kernel_rw_suite, &setfs_splice_suite, &setfs_proc_suite,
	&setfs_sysctl_suite, &setfs_nofault_suite, &setfs_access_ok_suite,
	&setfs_sockptr_suite, &setfs_uaccess_kbuf_suite,
};

static struct kunit_suite *setfs_selected[ARRAY_SIZE(setfs_suites)];
static int setfs_nselected;

static int __init setfs_kunit_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(setfs_suites); i++) {
		if (!filter_glob || !*filter_glob ||
		    setfs_filter_suite(setfs_suites[i]))
			setfs_selected[setfs_nselected++] = setfs_suites[i];
	}
	if (action && !strcmp(action, "list")) {
		struct kunit_case *c;

		for (i = 0; i < setfs_nselected; i++) {
			pr_info("%s\n", setfs_selected[i]->name);
			for (c = setfs_selected[i]->test_cases; c->run_case; c++)
				pr_info("%s.%s\n", setfs_selected[i]->name, c->name);
		}
		setfs_nselected = 0;	/* nothing to exit either */
		return 0;
	}
	if (action && *action) {
		pr_err("setfs_kunit: unknown action '%s' (list or none)\n", action);
		return -EINVAL;
	}
	return __kunit_test_suites_init(setfs_selected, setfs_nselected);
}
module_init(setfs_kunit_init);

static void __exit setfs_kunit_exit(void)
{
	__kunit_test_suites_exit(setfs_selected, setfs_nselected);
}
module_exit(setfs_kunit_exit);

#else /* built in: run.sh's "builtin" targets (riscv64-nommu) */

/*
 * No user space runs before the suites, so nothing has mounted what they
 * open: /proc (the probe's entries, sysctl), /dev (its devices) and /tmp
 * (O_TMPFILE files).  Mount them after the probe's device_initcall and
 * before KUnit's executor runs the built-in suites, which init/main.c
 * does after the last initcall (kunit_run_all_tests() after
 * do_basic_setup()).  The executor's kunit.filter_glob selects cases.
 */
static void __init setfs_builtin_mount(const char *dir, const char *type)
{
	int err = init_mkdir(dir, 0755);

	if (err && err != -EEXIST)
		pr_err("setfs_kunit: mkdir %s: %d\n", dir, err);
	err = init_mount(type, dir, type, 0, NULL);
	if (err)
		pr_err("setfs_kunit: mount %s on %s: %d\n", type, dir, err);
}

static int __init setfs_builtin_init(void)
{
	setfs_builtin_mount("/proc", "proc");
	setfs_builtin_mount("/dev", "devtmpfs");
	setfs_builtin_mount("/tmp", "tmpfs");
	return 0;
}
late_initcall(setfs_builtin_init);

/* the order of setfs_suites[] above */
kunit_test_suites(&setfs_kernel_rw_suite, &setfs_splice_suite,
		  &setfs_proc_suite, &setfs_sysctl_suite, &setfs_nofault_suite,
		  &setfs_access_ok_suite, &setfs_sockptr_suite,
		  &setfs_uaccess_kbuf_suite);
#endif

MODULE_DESCRIPTION("KUnit tests for the set_fs() removal");
MODULE_LICENSE("GPL");
