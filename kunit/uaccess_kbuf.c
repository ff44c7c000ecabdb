// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite setfs_uaccess_kbuf: the user accessors given a kernel
 * buffer as the user pointer, with no set_fs(KERNEL_DS) left to make that
 * legal.
 *
 * With an MMU, access_ok() refuses a kernel address: get_user() and
 * put_user() give -EFAULT (get_user() zeroes its variable),
 * copy_from_user() copies nothing and zero-fills its destination,
 * copy_to_user() and clear_user() report every byte not done, and
 * strncpy_from_user() gives -EFAULT; the kernel buffer is never written.
 *
 * Without an MMU (riscv64-nommu) there is one address space: "remove
 * set_fs for riscv v2" moved riscv's nommu port to
 * include/asm-generic/uaccess.h with CONFIG_UACCESS_MEMCPY, where
 * raw_copy_{from,to}_user() are memcpy(), __get_user_fn()/__put_user_fn()
 * load and store 1, 2, 4 or 8 bytes with get_unaligned()/put_unaligned(),
 * and access_ok() lets every range through (asm-generic/access_ok.h).
 * The same calls then copy.
 *
 * Where user space is an address space of its own (s390), access_ok()
 * lets the number through and it names a user address: each case gets an
 * empty user address space first (setfs_kunit_own_user_space()), where
 * the copies fault as above.
 *
 * Each case runs at every alignment 0..7 and checks the result, the bytes
 * and that nothing around the range was written.
 */
#include <linux/string.h>
#include <linux/uaccess.h>

#include "setfs_kunit.h"

#define SETFS_UK_LEN	64
#define SETFS_UK_FILL	0x5a

/* true: the accessors copy (nommu); false: they refuse kernel memory */
#define SETFS_UK_COPIES	SETFS_USER_COPIES_KERNEL

static void __user *setfs_uk_user(void *p)
{
	return (void __force __user *)p;
}

/*
 * @buf: SETFS_UK_FILL except [@off, @off + @len), which holds @want (or
 * SETFS_UK_FILL too when @want is NULL).
 */
static void setfs_uk_expect(struct kunit *test, const u8 *buf, size_t off,
			    const u8 *want, size_t len, const char *what)
{
	size_t i;

	for (i = 0; i < SETFS_UK_LEN; i++) {
		u8 exp = want && i >= off && i < off + len ? want[i - off] :
			 SETFS_UK_FILL;

		KUNIT_EXPECT_EQ_MSG(test, buf[i], exp,
				    "%s: byte %zu, range of %zu at offset %zu",
				    what, i, len, off);
	}
}

static void setfs_uk_pattern(u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = 0x11 + 7 * i;
}

/*
 * get_user() of @size bytes at @src: the value there, or -EFAULT and 0;
 * the width is get_user()'s, from the type of the variable it stores to.
 */
static void setfs_uk_get(struct kunit *test, const u8 *src, size_t size)
{
	const void __user *p = setfs_uk_user((void *)src);
	u64 want, got;
	int err;
	u8 v8 = 0xff;
	u16 v16 = 0xffff;
	u32 v32 = ~0U;
	u64 v64 = ~0ULL;

	switch (size) {
	case 1:
		err = get_user(v8, (const u8 __user *)p);
		got = v8;
		want = *src;
		break;
	case 2:
		err = get_user(v16, (const u16 __user *)p);
		got = v16;
		want = setfs_kunit_load(src, sizeof(u16));
		break;
	case 4:
		err = get_user(v32, (const u32 __user *)p);
		got = v32;
		want = setfs_kunit_load(src, sizeof(u32));
		break;
	default:
		err = get_user(v64, (const u64 __user *)p);
		got = v64;
		want = setfs_kunit_load(src, sizeof(u64));
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, err, SETFS_UK_COPIES ? 0 : -EFAULT,
			    "get_user of %zu bytes", size);
	KUNIT_EXPECT_EQ_MSG(test, got, SETFS_UK_COPIES ? want : 0,
			    "get_user of %zu bytes", size);
}

/* get_user() of each size at each alignment. */
static void setfs_uaccess_kbuf_get_user(struct kunit *test)
{
	static u8 src[SETFS_UK_LEN];
	size_t off, size;

	setfs_uk_pattern(src, sizeof(src));
	for (off = 0; off < 8; off++)
		for (size = 1; size <= 8; size *= 2)
			setfs_uk_get(test, src + off, size);
}

/*
 * put_user() of @size bytes taken from @val to @off in a filled buffer:
 * 0 and exactly those bytes written, or -EFAULT and nothing written.
 */
static void setfs_uk_put(struct kunit *test, const u8 *val, size_t off,
			 size_t size)
{
	static u8 dst[SETFS_UK_LEN];
	void __user *p = setfs_uk_user(dst + off);
	int err;

	memset(dst, SETFS_UK_FILL, sizeof(dst));
	switch (size) {
	case 1:
		err = put_user(*val, (u8 __user *)p);
		break;
	case 2:
		err = put_user((u16)setfs_kunit_load(val, sizeof(u16)),
			       (u16 __user *)p);
		break;
	case 4:
		err = put_user((u32)setfs_kunit_load(val, sizeof(u32)),
			       (u32 __user *)p);
		break;
	default:
		err = put_user((u64)setfs_kunit_load(val, sizeof(u64)),
			       (u64 __user *)p);
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, err, SETFS_UK_COPIES ? 0 : -EFAULT,
			    "put_user of %zu bytes", size);
	setfs_uk_expect(test, dst, off, SETFS_UK_COPIES ? val : NULL, size,
			"put_user");
}

/* put_user() of each size at each alignment. */
static void setfs_uaccess_kbuf_put_user(struct kunit *test)
{
	static u8 val[8];
	size_t off, size;

	setfs_uk_pattern(val, sizeof(val));
	for (off = 0; off < 8; off++)
		for (size = 1; size <= 8; size *= 2)
			setfs_uk_put(test, val, off, size);
}

/*
 * copy_from_user(), copy_to_user() and clear_user() of 0..17 bytes at each
 * alignment: done, or every byte reported not done, nothing written to
 * the kernel buffer posing as user memory, and copy_from_user()'s
 * destination range zero-filled (_copy_from_user()).
 */
static void setfs_uaccess_kbuf_copies(struct kunit *test)
{
	static const u8 zero[SETFS_UK_LEN];
	static u8 src[SETFS_UK_LEN], dst[SETFS_UK_LEN];
	unsigned long fail;
	size_t off, len;

	setfs_uk_pattern(src, sizeof(src));
	for (off = 0; off < 8; off++) {
		for (len = 0; len <= 17; len++) {
			void __user *from = setfs_uk_user(src + 8 - off);
			void __user *to = setfs_uk_user(dst + off);

			fail = SETFS_UK_COPIES ? 0 : len;
			memset(dst, SETFS_UK_FILL, sizeof(dst));
			KUNIT_EXPECT_EQ(test, copy_from_user(dst + off, from, len), fail);
			setfs_uk_expect(test, dst, off,
					SETFS_UK_COPIES ? src + 8 - off : zero,
					len, "copy_from_user");
			memset(dst, SETFS_UK_FILL, sizeof(dst));
			KUNIT_EXPECT_EQ(test, copy_to_user(to, src + off, len), fail);
			setfs_uk_expect(test, dst, off,
					SETFS_UK_COPIES ? src + off : NULL, len,
					"copy_to_user");
			memset(dst, SETFS_UK_FILL, sizeof(dst));
			KUNIT_EXPECT_EQ(test, clear_user(to, len), fail);
			setfs_uk_expect(test, dst, off,
					SETFS_UK_COPIES ? zero : NULL, len,
					"clear_user");
		}
	}
}

/*
 * strncpy_from_user(): the length of the string when it fits, with its
 * NUL copied, and the count when it does not; or -EFAULT.  Only the bytes
 * it must copy are checked: the word-at-a-time copy of
 * lib/strncpy_from_user.c may also store the zeroes after the NUL in the
 * same word.
 */
static void setfs_uaccess_kbuf_strncpy_from_user(struct kunit *test)
{
	static const char str[] = "set_fs";
	static char src[SETFS_UK_LEN], dst[SETFS_UK_LEN];
	long n = sizeof(str) - 1;
	size_t off;

	for (off = 0; off < 8; off++) {
		const char __user *from = setfs_uk_user(src + off);

		memset(src, 'x', sizeof(src));
		memcpy(src + off, str, sizeof(str));
		memset(dst, SETFS_UK_FILL, sizeof(dst));
		KUNIT_EXPECT_EQ(test, strncpy_from_user(dst, from, SETFS_UK_LEN - 8),
				SETFS_UK_COPIES ? n : -EFAULT);
		if (SETFS_UK_COPIES)
			KUNIT_EXPECT_STREQ_MSG(test, dst, str, "offset %zu", off);
		KUNIT_EXPECT_EQ(test, strncpy_from_user(dst, from, 3),
				SETFS_UK_COPIES ? 3 : -EFAULT);
		if (SETFS_UK_COPIES)
			KUNIT_EXPECT_EQ_MSG(test, memcmp(dst, str, 3), 0,
					    "offset %zu", off);
	}
}

static struct kunit_case setfs_uaccess_kbuf_test_cases[] = {
	KUNIT_CASE(setfs_uaccess_kbuf_get_user),
	KUNIT_CASE(setfs_uaccess_kbuf_put_user),
	KUNIT_CASE(setfs_uaccess_kbuf_copies),
	KUNIT_CASE(setfs_uaccess_kbuf_strncpy_from_user),
	{}
};

struct kunit_suite setfs_uaccess_kbuf_suite = {
	.name = "setfs_uaccess_kbuf",
	.init = setfs_kunit_own_user_space_init,
	.test_cases = setfs_uaccess_kbuf_test_cases,
};
