// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite setfs_sysctl: sysctl files after the seed patch "sysctl:
 * Convert to iter interfaces".  proc_sys_file_operations has ->read_iter
 * and ->write_iter, so kernel_read() and kernel_write() reach the
 * handlers with a kernel buffer, and the handlers behave as for a
 * read()/write() from user space.
 *
 * Each case registers /proc/sys/setfs_kunit/{int,str}: an int in
 * [-100, 100] through proc_dointvec_minmax() starting at 10, a string of
 * at most 15 characters through proc_dostring() starting at "hello".
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysctl.h>

#include "setfs_kunit.h"

#define SETFS_SYSCTL_DIR	"setfs_kunit"
#define SETFS_SYSCTL_INT	"/proc/sys/" SETFS_SYSCTL_DIR "/int"
#define SETFS_SYSCTL_STR	"/proc/sys/" SETFS_SYSCTL_DIR "/str"
#define SETFS_SYSCTL_STRICT	"/proc/sys/kernel/sysctl_writes_strict"
#define SETFS_STR_MAX		16
#define SETFS_SYSCTL_ENTRIES	2

struct setfs_sysctl {
	/* the entries and one more, zeroed: see setfs_sysctl_register() */
	struct ctl_table table[SETFS_SYSCTL_ENTRIES + 1];
	struct ctl_table_header *header;
	int min;
	int max;
	int ival;
	char str[SETFS_STR_MAX];
};

/*
 * register_sysctl() of the entries of s->table.  6.1's walks the table up
 * to an entry without a procname, the zeroed one after the entries.  Since
 * "sysctl: Add size to register_sysctl" (6.6) it is a macro that passes
 * ARRAY_SIZE() of its argument instead, and since commit d7a76ec87195
 * ("sysctl: Remove check for sentinel element in ctl_table arrays", 6.11)
 * every entry counted must be a real one: the zeroed entry fails with
 * "procname is null".  Viewing s->table as an array of the entries alone
 * serves both: ARRAY_SIZE() counts the entries, and 6.1 still finds the
 * zeroed entry behind them, inside s->table.
 */
static struct ctl_table_header *setfs_sysctl_register(struct setfs_sysctl *s)
{
	struct ctl_table (*entries)[SETFS_SYSCTL_ENTRIES] = (void *)s->table;

	return register_sysctl(SETFS_SYSCTL_DIR, *entries);
}

static int setfs_sysctl_init(struct kunit *test)
{
	struct setfs_sysctl *s;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->min = -100;
	s->max = 100;
	s->ival = 10;
	strscpy(s->str, "hello", sizeof(s->str));
	s->table[0] = (struct ctl_table) {
		.procname	= "int",
		.data		= &s->ival,
		.maxlen		= sizeof(s->ival),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &s->min,
		.extra2		= &s->max,
	};
	s->table[1] = (struct ctl_table) {
		.procname	= "str",
		.data		= s->str,
		.maxlen		= sizeof(s->str),
		.mode		= 0644,
		.proc_handler	= proc_dostring,
	};
	/* table[SETFS_SYSCTL_ENTRIES] stays zero */
	s->header = setfs_sysctl_register(s);
	if (!s->header)
		return -ENOMEM;
	test->priv = s;
	return 0;
}

static void setfs_sysctl_exit(struct kunit *test)
{
	struct setfs_sysctl *s = test->priv;

	if (s)
		unregister_sysctl_table(s->header);
}

/*
 * A read (input NULL) of count bytes or a write of input (count bytes, or
 * strlen(input) when count is 0) at pos.  ret is what kernel_read() or
 * kernel_write() returns, new_pos where *pos ends, output the bytes a read
 * returns and value the entry's value afterwards, as text.
 */
struct setfs_sysctl_case {
	const char *name;
	const char *path;
	loff_t pos;
	const char *input;
	size_t count;
	ssize_t ret;
	loff_t new_pos;
	const char *output;
	const char *value;
};

#define SETFS_LONG_STR	"abcdefghijklmnopqrstuvwxyz"

static const struct setfs_sysctl_case setfs_sysctl_cases[] = {
	/* proc_dointvec_minmax() */
	{ "int_write",            SETFS_SYSCTL_INT, 0, "42", 0, 2, 2, NULL, "42" },
	{ "int_write_newline",    SETFS_SYSCTL_INT, 0, "42\n", 0, 3, 3, NULL, "42" },
	{ "int_write_min",        SETFS_SYSCTL_INT, 0, "-100", 0, 4, 4, NULL, "-100" },
	{ "int_write_max",        SETFS_SYSCTL_INT, 0, "100", 0, 3, 3, NULL, "100" },
	{ "int_write_above_max",  SETFS_SYSCTL_INT, 0, "101", 0, -EINVAL, 0, NULL, "10" },
	{ "int_write_below_min",  SETFS_SYSCTL_INT, 0, "-101", 0, -EINVAL, 0, NULL, "10" },
	{ "int_write_overflow",   SETFS_SYSCTL_INT, 0, "4294967296", 0, -EINVAL, 0, NULL, "10" },
	{ "int_write_not_number", SETFS_SYSCTL_INT, 0, "abc", 0, -EINVAL, 0, NULL, "10" },
	{ "int_write_hex",        SETFS_SYSCTL_INT, 0, "0x20", 0, 4, 4, NULL, "32" },
	{ "int_write_spaces",     SETFS_SYSCTL_INT, 0, "\t7\n ", 0, 4, 4, NULL, "7" },
	/* one value fits: the write stops after it, short */
	{ "int_write_two_values", SETFS_SYSCTL_INT, 0, "7 8", 0, 2, 2, NULL, "7" },
	/* SYSCTL_WRITES_STRICT: a write at pos != 0 is consumed and ignored */
	{ "int_write_at_pos",     SETFS_SYSCTL_INT, 1, "42", 0, 2, 3, NULL, "10" },
	{ "int_write_empty",      SETFS_SYSCTL_INT, 0, "", 0, 0, 0, NULL, "10" },
	{ "int_read",             SETFS_SYSCTL_INT, 0, NULL, 32, 3, 3, "10\n", "10" },
	{ "int_read_one_byte",    SETFS_SYSCTL_INT, 0, NULL, 1, 1, 1, "1", "10" },
	{ "int_read_at_pos",      SETFS_SYSCTL_INT, 1, NULL, 32, 0, 1, "", "10" },
	/* proc_dostring() */
	{ "str_write",            SETFS_SYSCTL_STR, 0, "world", 0, 5, 5, NULL, "world" },
	{ "str_write_newline",    SETFS_SYSCTL_STR, 0, "world\n", 0, 6, 6, NULL, "world" },
	{ "str_write_nul",        SETFS_SYSCTL_STR, 0, "ab\0cd", 5, 5, 5, NULL, "ab" },
	{ "str_write_max_len",    SETFS_SYSCTL_STR, 0, "abcdefghijklmno", 0, 15, 15,
	  NULL, "abcdefghijklmno" },
	/* too long: truncated to maxlen - 1, yet every byte counts as written */
	{ "str_write_too_long",   SETFS_SYSCTL_STR, 0, SETFS_LONG_STR, 0, 26, 26,
	  NULL, "abcdefghijklmno" },
	/* SYSCTL_WRITES_STRICT: strings honour pos up to their length */
	{ "str_write_append",     SETFS_SYSCTL_STR, 5, "XY", 0, 2, 7, NULL, "helloXY" },
	{ "str_write_overwrite",  SETFS_SYSCTL_STR, 2, "ZZ", 0, 2, 4, NULL, "heZZ" },
	{ "str_write_append_too_long", SETFS_SYSCTL_STR, 5, SETFS_LONG_STR, 0, 26, 31,
	  NULL, "helloabcdefghij" },
	{ "str_write_past_end",   SETFS_SYSCTL_STR, 6, "XY", 0, 2, 6, NULL, "hello" },
	{ "str_read",             SETFS_SYSCTL_STR, 0, NULL, 32, 6, 6, "hello\n", "hello" },
	{ "str_read_short",       SETFS_SYSCTL_STR, 0, NULL, 3, 3, 3, "hel", "hello" },
	{ "str_read_from_pos",    SETFS_SYSCTL_STR, 2, NULL, 32, 4, 6, "llo\n", "hello" },
	{ "str_read_at_end",      SETFS_SYSCTL_STR, 5, NULL, 32, 1, 6, "\n", "hello" },
	{ "str_read_past_end",    SETFS_SYSCTL_STR, 6, NULL, 32, 0, 6, "", "hello" },
};

SETFS_PARAM_ARRAY(sysctl);

/* The rows above assume the default kernel.sysctl_writes_strict = 1. */
static bool setfs_sysctl_writes_strict(struct kunit *test)
{
	struct file *file;
	char buf[8] = {};
	loff_t pos = 0;

	file = setfs_kunit_open_fixture(test, SETFS_SYSCTL_STRICT, O_RDONLY);
	KUNIT_ASSERT_GT(test, kernel_read(file, buf, sizeof(buf) - 1, &pos), 0);
	return !strcmp(buf, "1\n");
}

static void setfs_sysctl_value(struct setfs_sysctl *s, const char *path,
			       char *buf, size_t size)
{
	if (!strcmp(path, SETFS_SYSCTL_INT))
		snprintf(buf, size, "%d", s->ival);
	else
		strscpy(buf, s->str, size);
}

static void setfs_sysctl_kernel_rw(struct kunit *test)
{
	const struct setfs_sysctl_case *c = test->param_value;
	struct setfs_sysctl *s = test->priv;
	char value[SETFS_STR_MAX + 16];
	struct file *file;
	loff_t pos = c->pos;
	ssize_t ret;
	size_t count;
	char *buf;

	if (c->pos && !setfs_sysctl_writes_strict(test))
		kunit_skip(test, "kernel.sysctl_writes_strict is not 1 (SYSCTL_WRITES_STRICT)");

	file = setfs_kunit_open_fixture(test, c->path, O_RDWR);
	if (c->input) {
		count = c->count ? c->count : strlen(c->input);
		ret = kernel_write(file, c->input, count, &pos);
	} else {
		buf = kunit_kzalloc(test, c->count + 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		ret = kernel_read(file, buf, c->count, &pos);
		if (ret >= 0)
			KUNIT_EXPECT_STREQ(test, buf, c->output);
	}
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, pos, c->new_pos);

	setfs_sysctl_value(s, c->path, value, sizeof(value));
	KUNIT_EXPECT_STREQ(test, value, c->value);
}

/* What the handler stored is what a later read of the file returns. */
static void setfs_sysctl_round_trip(struct kunit *test)
{
	static const char * const paths[] = { SETFS_SYSCTL_INT, SETFS_SYSCTL_STR };
	static const char * const values[] = { "-37", "round trip" };
	char buf[SETFS_STR_MAX + 16];
	struct file *file;
	size_t i, len;
	loff_t pos;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		len = strlen(values[i]);
		file = setfs_kunit_open_fixture(test, paths[i], O_RDWR);
		pos = 0;
		KUNIT_ASSERT_EQ(test, kernel_write(file, values[i], len, &pos),
				(ssize_t)len);

		memset(buf, 0, sizeof(buf));
		pos = 0;
		KUNIT_ASSERT_EQ(test, kernel_read(file, buf, sizeof(buf) - 1, &pos),
				(ssize_t)len + 1);
		KUNIT_EXPECT_EQ(test, buf[len], '\n');
		buf[len] = '\0';
		KUNIT_EXPECT_STREQ(test, buf, values[i]);
	}
}

static struct kunit_case setfs_sysctl_test_cases[] = {
	KUNIT_CASE_PARAM(setfs_sysctl_kernel_rw, setfs_sysctl_gen_params),
	KUNIT_CASE(setfs_sysctl_round_trip),
	{}
};

struct kunit_suite setfs_sysctl_suite = {
	.name = "setfs_sysctl",
	.init = setfs_sysctl_init,
	.exit = setfs_sysctl_exit,
	.test_cases = setfs_sysctl_test_cases,
	.suite_exit = setfs_kunit_flush_fput,
};
