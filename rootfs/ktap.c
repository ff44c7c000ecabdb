// SPDX-License-Identifier: GPL-2.0
/*
 * The KTAP writer of setfs_user (see ktap.h).  Output is line buffered
 * and flushed before every case, so a crash still leaves every finished
 * result on stdout.
 *
 * Each group runs in a child process, as kselftest_harness.h runs each
 * test: a case that crashes (a signal), exits or hangs past
 * setfs_case_timeout fails with the cause named, and a new child goes on
 * with the next case, so the rest of the group and the later groups still
 * report.  The child tells the parent where it is through a shared page.
 */
#define _GNU_SOURCE	/* strchrnul(), sigabbrev_np() */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"

static const char *skip_reason;

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("    # ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

enum case_result ktap_skip(const char *reason)
{
	skip_reason = reason;
	return CASE_SKIP;
}

enum case_result run_test_case(const void *row)
{
	const struct test_case *c = row;

	return c->run();
}

static const char *filter;

void ktap_set_filter(const char *f)
{
	filter = f && *f ? f : NULL;
}

bool ktap_selected(const char *suite, const char *name)
{
	const char *p = filter, *end;
	char glob[256], *dot;
	size_t len;

	if (!p)
		return true;
	while (*p) {
		end = strchrnul(p, ',');
		len = (size_t)(end - p);
		if (len >= sizeof(glob))
			len = sizeof(glob) - 1;
		memcpy(glob, p, len);
		glob[len] = '\0';
		p = *end ? end + 1 : end;
		dot = strchr(glob, '.');
		if (dot)
			*dot++ = '\0';
		if (fnmatch(glob, suite, 0))
			continue;
		if (!name || !dot || !fnmatch(dot, name, 0))
			return true;
	}
	return false;
}

static const char *row_name(const struct ktap_table *tab, unsigned int i)
{
	const void *row = (const char *)tab->rows + i * tab->row_size;

	return *(const char * const *)row;
}

static unsigned int selected_count(const struct ktap_group *g)
{
	unsigned int t, i, n = 0;

	for (t = 0; t < g->ntables; t++)
		for (i = 0; i < g->tables[t].count; i++) {
			const char *name = row_name(&g->tables[t], i);

			n += name && ktap_selected(g->name, name);
		}
	return n;
}

unsigned int ktap_group_select(const struct ktap_group *g)
{
	if (!ktap_selected(g->name, NULL))
		return 0;
	if (g->prepare)
		g->prepare();
	return selected_count(g);
}

static void ktap_result(unsigned int n, const char *name, enum case_result r)
{
	const char *reason = skip_reason;

	if (r == CASE_SKIP) {
		if (!reason)
			reason = "no reason given";
		printf("    ok %u %s # SKIP %s\n", n, name, reason);
	} else {
		printf("    %s %u %s\n", r == CASE_PASS ? "ok" : "not ok", n,
		       name);
	}
	fflush(stdout);
}

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void ktap_list_group(const struct ktap_group *g)
{
	unsigned int t, i;

	printf("%s\n", g->name);
	for (t = 0; t < g->ntables; t++)
		for (i = 0; i < g->tables[t].count; i++) {
			const char *name = row_name(&g->tables[t], i);

			if (name && ktap_selected(g->name, name))
				printf("%s.%s\n", g->name, name);
		}
}

/*
 * Where a group's process is, for its parent (MAP_SHARED).  The child
 * sets @started, then publishes @running (release); the parent reads
 * @running first (acquire).  Both are ints: no torn 64-bit stores on
 * 32-bit targets.
 */
struct group_progress {
	unsigned int next;	/* the first row (flat index) not yet run */
	unsigned int running;	/* the row running, IN_SETUP or NOT_RUNNING */
	unsigned int n;		/* results printed */
	unsigned int failed;
	unsigned int started;	/* when @running started: ms since @base */
	int done;		/* the group's process got to its end */
	double base;		/* monotonic seconds when the group started */
};

#define NOT_RUNNING UINT_MAX
#define IN_SETUP (UINT_MAX - 1)	/* in the group's setup or teardown */

/* When the running case (or setup) is killed, in this process; 0: never. */
static double kill_deadline;

static void set_running(struct group_progress *p, unsigned int row)
{
	double now = monotonic_seconds();
	unsigned int timeout = ktap_case_timeout();

	p->started = (unsigned int)((now - p->base) * 1000);
	kill_deadline = row != NOT_RUNNING && timeout ? now + timeout : 0;
	__atomic_store_n(&p->running, row, __ATOMIC_RELEASE);
}

double ktap_case_deadline(void)
{
	return kill_deadline;
}

/* The row at flat index @k of @g (tables one after the other). */
static const void *flat_row(const struct ktap_group *g, unsigned int k,
			    const struct ktap_table **tabp, const char **namep)
{
	unsigned int t;

	*tabp = NULL;
	*namep = NULL;
	for (t = 0; t < g->ntables; t++) {
		const struct ktap_table *tab = &g->tables[t];

		if (k < tab->count) {
			*tabp = tab;
			*namep = row_name(tab, k);
			return (const char *)tab->rows + k * tab->row_size;
		}
		k -= tab->count;
	}
	return NULL;
}

static unsigned int flat_count(const struct ktap_group *g)
{
	unsigned int t, n = 0;

	for (t = 0; t < g->ntables; t++)
		n += g->tables[t].count;
	return n;
}

/* The group from row p->next on, in this process: setup, cases, teardown. */
static void run_rows(const struct ktap_group *g, struct group_progress *p)
{
	const char *setup_err = NULL;
	unsigned int k, total = flat_count(g);

	set_running(p, IN_SETUP);
	if (g->setup)
		setup_err = g->setup();
	set_running(p, NOT_RUNNING);
	for (k = p->next; k < total; k++) {
		const struct ktap_table *tab;
		const char *name;
		const void *row = flat_row(g, k, &tab, &name);
		enum case_result r;

		if (!name || !ktap_selected(g->name, name)) {
			p->next = k + 1;
			continue;
		}
		skip_reason = NULL;
		set_running(p, k);
		if (setup_err) {
			diag("group setup failed: %s", setup_err);
			r = CASE_FAIL;
		} else {
			r = tab->run(row);
		}
		ktap_result(++p->n, name, r);
		p->failed += r == CASE_FAIL;
		set_running(p, NOT_RUNNING);
		p->next = k + 1;
	}
	set_running(p, IN_SETUP);
	if (g->teardown && !setup_err)
		g->teardown();
	fflush(stdout);
	set_running(p, NOT_RUNNING);
	p->done = 1;
}

/*
 * setfs_case_timeout=SECONDS (0: none); a case taking longer is killed.
 * Read once: ktap_run_group() asks first, before any case runs.
 */
unsigned int ktap_case_timeout(void)
{
	static unsigned int value;
	static bool parsed;
	const char *s = getenv("setfs_case_timeout");
	unsigned long long v;
	char *end;

	if (parsed)
		return value;
	parsed = true;
	value = KTAP_CASE_TIMEOUT;
	if (!s || !*s)
		return value;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT_MAX)
		printf("# setfs_case_timeout=%s is not a number of seconds; using %u\n",
		       s, KTAP_CASE_TIMEOUT);
	else
		value = v;
	return value;
}

/* What the watchdogs of setfs_user do too: blocked tasks to the console. */
static void dump_blocked_tasks(void)
{
	FILE *f = fopen("/proc/sysrq-trigger", "w");

	if (f) {
		fputc('w', f);
		fclose(f);
	}
}

static void describe_status(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(status));

		snprintf(buf, len, "killed by SIG%s (signal %d)",
			 abbrev ? abbrev : "?", WTERMSIG(status));
	} else {
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	}
}

/*
 * Wait for the group's process @pid; a case running longer than @timeout
 * seconds (0: no limit) is killed.  Returns the wait status and sets
 * *@timed_out.
 */
static int wait_group(pid_t pid, struct group_progress *p, unsigned int timeout,
		      bool *timed_out)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	int status;
	pid_t got;

	*timed_out = false;
	for (;;) {
		got = waitpid(pid, &status, timeout ? WNOHANG : 0);
		if (got == pid)
			return status;
		if (got < 0 && errno != EINTR) {
			printf("    # waitpid: %s\n", strerror(errno));
			return 0;
		}
		if (timeout && !*timed_out &&
		    __atomic_load_n(&p->running, __ATOMIC_ACQUIRE) != NOT_RUNNING &&
		    (monotonic_seconds() - p->base) * 1000 - p->started > timeout * 1000.0) {
			*timed_out = true;
			dump_blocked_tasks();
			kill(pid, SIGKILL);
		}
		if (got == 0)
			nanosleep(&tick, NULL);
	}
}

unsigned int ktap_run_group(const struct ktap_group *g, unsigned int number)
{
	unsigned int timeout = ktap_case_timeout(), total = flat_count(g), k;
	double t0 = monotonic_seconds();
	struct group_progress *p, local = { .running = NOT_RUNNING, .base = t0 };
	bool broken = false;
	unsigned int failed;

	printf("    KTAP version 1\n    # Subtest: %s\n    1..%u\n", g->name,
	       selected_count(g));
	fflush(stdout);
	p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("    # mmap: %s: the group runs without isolation\n",
		       strerror(errno));
		p = NULL;
	} else {
		*p = local;
	}
	while (p && !p->done) {
		char why[64];
		bool timed_out;
		const struct ktap_table *tab;
		const char *name;
		pid_t pid, parent;
		int status;

		fflush(stdout);
		parent = getpid();
		pid = fork();
		if (pid < 0) {
			printf("    # fork: %s: the rest of the group runs without isolation\n",
			       strerror(errno));
			local = *p;
			munmap(p, sizeof(*p));
			p = NULL;
			break;
		}
		if (pid == 0) {
			/* a group must not outlive setfs_user (killed by a timeout) */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			run_rows(g, p);
			_exit(0);
		}
		status = wait_group(pid, p, timeout, &timed_out);
		if (p->done && !timed_out && WIFEXITED(status) && !WEXITSTATUS(status))
			break;
		if (timed_out)
			snprintf(why, sizeof(why), "timed out after %u s (setfs_case_timeout)",
				 timeout);
		else
			describe_status(status, why, sizeof(why));
		if (p->running == NOT_RUNNING || p->running == IN_SETUP) {
			/* outside a case: in setup or teardown */
			printf("    # the group's process %s outside a case (%s)\n", why,
			       p->running == IN_SETUP ? "in setup or teardown" : "between cases");
			broken = true;
			break;
		}
		flat_row(g, p->running, &tab, &name);
		diag("%s: %s", name, why);
		ktap_result(++p->n, name, CASE_FAIL);
		p->failed++;
		p->next = p->running + 1;
		p->running = NOT_RUNNING;
	}
	if (!p) {
		/* no shared page or no fork: in this process, from where it got */
		p = &local;
		run_rows(g, p);
	}
	/* rows never reached (the process died outside a case) still count */
	for (k = p->next; broken && k < total; k++) {
		const struct ktap_table *tab;
		const char *name;

		flat_row(g, k, &tab, &name);
		if (!name || !ktap_selected(g->name, name))
			continue;
		diag("not run: the group's process died before it");
		ktap_result(++p->n, name, CASE_FAIL);
		p->failed++;
	}
	failed = p->failed + broken;
	if (p != &local)
		munmap(p, sizeof(*p));
	printf("%s %u %s\n", failed ? "not ok" : "ok", number, g->name);
	/* how long the group took: report_target() in run.sh tabulates it */
	printf("# setfs-time: %s %.2f\n", g->name, monotonic_seconds() - t0);
	fflush(stdout);
	return failed;
}
