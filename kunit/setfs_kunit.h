/* SPDX-License-Identifier: GPL-2.0 */
/*
 * setfs_kunit: helpers shared by the suites of the module (common.c).
 * Every suite lives in its own file; common.c lists and runs them.
 */
#ifndef _SETFS_KUNIT_H
#define _SETFS_KUNIT_H

#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/types.h>

#include "setfs_probe_api.h"

/*
 * The module's suites, one per file.  common.c lists them in the order
 * they run and runs them from the module's init, after its filter_glob
 * parameter has removed what it does not select.  kunit_test_suites() is
 * not used for the module: in 6.1 it leaves a module's suites to KUnit's
 * module notifier, which runs them at MODULE_STATE_COMING, before the
 * module's parameters are parsed, so no parameter could filter them.
 * Built into the kernel (run.sh's "builtin" targets) common.c hands the
 * same list to kunit_test_suites(), and KUnit's executor runs them.
 */
extern struct kunit_suite setfs_kernel_rw_suite;
extern struct kunit_suite setfs_splice_suite;
extern struct kunit_suite setfs_proc_suite;
extern struct kunit_suite setfs_sysctl_suite;
extern struct kunit_suite setfs_nofault_suite;
extern struct kunit_suite setfs_access_ok_suite;
extern struct kunit_suite setfs_sockptr_suite;
extern struct kunit_suite setfs_uaccess_kbuf_suite;

/*
 * More than MAX_RW_COUNT, so read and write paths have to clamp it, and
 * not more than SSIZE_MAX, which rw_verify_area() refuses: on 32-bit
 * kernels MAX_RW_COUNT + PAGE_SIZE is 2^31, a negative ssize_t.
 */
#define SETFS_OVER_MAX_RW_WANT	((size_t)MAX_RW_COUNT + PAGE_SIZE)
#define SETFS_OVER_MAX_RW						\
	(SETFS_OVER_MAX_RW_WANT > (size_t)SSIZE_MAX ? (size_t)SSIZE_MAX :	\
	 SETFS_OVER_MAX_RW_WANT)

/*
 * A kernel address passed as a user pointer is copied, not refused:
 * without an MMU there is one address space, access_ok() lets every range
 * through (include/asm-generic/access_ok.h) and the user copies are
 * memcpy() (riscv: CONFIG_UACCESS_MEMCPY).  With one, access_ok() refuses
 * it.
 */
#define SETFS_USER_COPIES_KERNEL	(!IS_ENABLED(CONFIG_MMU))

/* Skip the running case with the reason unless @cond holds. */
#define SETFS_REQUIRES(test, cond) do {					\
	if (!(cond))							\
		kunit_skip((test), "requires " #cond);			\
} while (0)

/*
 * SETFS_PARAM_ARRAY(id) - KUNIT_ARRAY_PARAM() for the table
 * setfs_<id>_cases, whose rows start with "const char *name": defines
 * setfs_<id>_gen_params(), under which every row shows up by its name in
 * the KTAP output.
 */
#define SETFS_PARAM_ARRAY(id)						\
static void setfs_##id##_desc(typeof(setfs_##id##_cases + 0) row,	\
			      char *desc)				\
{									\
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);		\
}									\
KUNIT_ARRAY_PARAM(setfs_##id, setfs_##id##_cases, setfs_##id##_desc)

struct file *setfs_kunit_open(struct kunit *test, const char *path,
			      int flags, umode_t mode);
struct file *setfs_kunit_open_fixture(struct kunit *test, const char *path,
				      int flags);
struct file *setfs_kunit_tmpfile(struct kunit *test, int flags);
struct file *setfs_kunit_anon_file(struct kunit *test,
				   const struct file_operations *fops,
				   void *priv, int flags);
size_t setfs_kunit_span(loff_t pos, size_t count, size_t size);
void setfs_kunit_fill_pattern(u8 *buf, loff_t pos, size_t len);
void setfs_kunit_expect_pattern(struct kunit *test, const u8 *buf,
				loff_t pos, size_t len);
void setfs_kunit_flush_fput(struct kunit_suite *suite);
u64 setfs_kunit_load(const void *p, size_t size);
void setfs_kunit_own_user_space(struct kunit *test);
int setfs_kunit_own_user_space_init(struct kunit *test);
ssize_t setfs_kunit_iter_write(struct file *file, struct iov_iter *iter,
			       loff_t *pos);
long setfs_kunit_splice_direct(struct file *in, loff_t *pos, struct file *out,
			       loff_t *opos, size_t len);

#endif /* _SETFS_KUNIT_H */
