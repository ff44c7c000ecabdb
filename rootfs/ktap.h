/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP writer for the user test binary, in the kselftest style:
 * every group is a subtest of the document, every case a result in it.
 *
 * Cases are rows of tables.  A row is any structure whose first member is
 * the case name (const char *); the table's run() gets a pointer to the
 * row.  Plain functions are rows of struct test_case, run by
 * run_test_case().  Adding a case is adding a row.
 */
#ifndef _SETFS_KTAP_H
#define _SETFS_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The kernel's name for it (compiler_attributes.h is not for user space). */
#ifndef __printf
#define __printf(a, b) __attribute__((	\
	format(printf, a, b)))
#endif
#ifndef __packed
#define __packed __attribute__((	\
	packed))
#endif
#ifndef __aligned
#define __aligned(n) __attribute__((	\
	aligned(n)))
#endif
#ifndef noinline
#define noinline __attribute__((	\
	noinline))
#endif

enum case_result { CASE_PASS, CASE_FAIL, CASE_SKIP };

struct ktap_table {
	const void *rows;
	size_t row_size;
	unsigned int count;
	enum case_result (*run)(const void *row);
};

/* ARRAY_SIZE() spelt out: @r only appears once outside sizeof. */
#define KTAP_TABLE(r, fn) \
	{ (r), sizeof((r)[0]), sizeof(r) / sizeof((r)[0]), (fn) }

/*
 * A table written as sets of rows, an array of arrays of rows, so that a
 * macro can give several rows as one braced initializer.  The rows a set
 * leaves out are padding: their name is NULL, and they are neither
 * counted nor run.
 */
#define KTAP_TABLE_SETS(r, fn) \
	{ (r), sizeof((r)[0][0]), sizeof(r) / sizeof((r)[0][0]), (fn) }

/*
 * The .tables and .ntables of a struct ktap_group: its KTAP_TABLE()s, in
 * the order they run.  The array is a compound literal, which has static
 * storage at file scope; the one under sizeof() is not evaluated.
 */
#define KTAP_TABLES(...)						\
	.tables = (const struct ktap_table[]){ __VA_ARGS__ },		\
	.ntables = sizeof((const struct ktap_table[]){ __VA_ARGS__ }) /	\
		   sizeof(struct ktap_table)

struct ktap_group {
	const char *name;
	/* where it runs: groups run in increasing order (ties by name) */
	int order;
	const struct ktap_table *tables;
	unsigned int ntables;
	/*
	 * Optional: fills in tables whose rows depend on the guest, before
	 * the filter and the plan lines count them.  It runs before the
	 * top-level plan line: what it prints (a diag() when the probe
	 * cannot be asked) lands there, outside any group.
	 */
	void (*prepare)(void);
	/* Optional: NULL on success, else why every case of the group fails. */
	const char *(*setup)(void);
	void (*teardown)(void);
};

/*
 * KTAP_GROUP(name) = { ... };  defines the group and registers it: its
 * address goes into the setfs_groups section, which setfs_user runs (in
 * .order).  A group is declared here and nowhere else.
 */
#define KTAP_GROUP(sym)							\
	extern const struct ktap_group sym;				\
	static const struct ktap_group *const sym##_entry		\
	__attribute__((used, section("setfs_groups"),			\
		       aligned(sizeof(void *)))) = &sym;			\
	const struct ktap_group sym

/* The setfs_groups section's bounds, which the linker defines. */
extern const struct ktap_group *const __start_setfs_groups[];
extern const struct ktap_group *const __stop_setfs_groups[];

/* A case that is just a function. */
struct test_case {
	const char *name;
	enum case_result (*run)(void);
};

enum case_result run_test_case(const void *row);

/* Diagnostic line inside the current case ("    # ..."). */
void diag(const char *fmt, ...) __printf(1, 2);

/* Ends the current case as skipped, with @reason on its result line. */
enum case_result ktap_skip(const char *reason);

/*
 * kunit.py's filter: @filter is a comma-separated list of globs, each
 * SUITE or SUITE.CASE (split at the first dot, fnmatch(3) patterns).  A
 * group is a suite, its rows are cases.  NULL or "" selects everything.
 */
void ktap_set_filter(const char *filter);

/* Whether @suite.@name is selected; for @name NULL, whether a case may be. */
bool ktap_selected(const char *suite, const char *name);

/*
 * Runs @g's prepare() if the filter may select it; then the number of its
 * cases the filter selects (0: the group is left out of the report).
 */
unsigned int ktap_group_select(const struct ktap_group *g);

/*
 * Runs the selected cases of @g as subtest @number (after
 * ktap_group_select()) in a child process, and a new one after each case
 * that crashes, exits or times out (that case fails, the cause named);
 * returns the failures.
 */
unsigned int ktap_run_group(const struct ktap_group *g, unsigned int number);

/*
 * Prints @g's name and "SUITE.CASE" for each selected case (after
 * ktap_group_select()), as KUnit's kunit.action=list does, running none.
 */
void ktap_list_group(const struct ktap_group *g);

/*
 * A case that runs longer than this many seconds is killed and fails:
 * setfs_case_timeout=SECONDS (0 for none; run.sh passes a third of its
 * guest timeout, 100 s by default), else KTAP_CASE_TIMEOUT, below the
 * host's default guest timeout (300 s).  The longest group takes under a
 * minute under TCG with the full soak.
 */
#define KTAP_CASE_TIMEOUT 250
unsigned int ktap_case_timeout(void);

/*
 * The CLOCK_MONOTONIC second at which the running case is killed (counted
 * from its start, as the group's parent counts), or 0 when it will not
 * be: outside a case, or without a case timeout.
 */
double ktap_case_deadline(void);

#endif /* _SETFS_KTAP_H */
