// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user: the user-space half of setfs-probe.  Runs in the guest after
 * setfs_probe.ko is loaded and checks, with exact values and errnos, what
 * the set_fs() removal series promised user space.  Prints KTAP: one
 * subtest per group (user_*.c), one result per case.  Exit status: 0 when
 * every case passed or skipped, 1 otherwise.  "setfs_user bench" prints
 * measurements instead (bench.c).
 *
 * This file holds main() and the helpers the groups share.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "setfs_user.h"

#define MAX_GROUPS	64

static const struct ktap_group *groups[MAX_GROUPS];
static unsigned int ngroups;

static int group_cmp(const void *a, const void *b)
{
	const struct ktap_group *x = *(const struct ktap_group *const *)a;
	const struct ktap_group *y = *(const struct ktap_group *const *)b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The registered groups in their order; exits on a table it cannot hold. */
static void collect_groups(void)
{
	const struct ktap_group *const *p;

	for (p = __start_setfs_groups; p < __stop_setfs_groups; p++) {
		if (ngroups == MAX_GROUPS) {
			fprintf(stderr, "setfs_user: more than %d groups\n", MAX_GROUPS);
			exit(2);
		}
		if ((*p)->order <= 0) {
			fprintf(stderr, "setfs_user: group %s has no .order (KTAP_GROUP)\n",
				(*p)->name);
			exit(2);
		}
		groups[ngroups++] = *p;
	}
	qsort(groups, ngroups, sizeof(groups[0]), group_cmp);
}

size_t fixture_size(void)
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

void fill_pattern(unsigned char *buf, size_t len, off_t pos)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = setfs_pattern_byte(pos + i);
}

bool check_pattern(const char *what, const unsigned char *buf, size_t len,
		   off_t pos)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != setfs_pattern_byte(pos + i)) {
			diag("%s: byte at offset %lld is 0x%02x, the pattern has 0x%02x",
			     what, (long long)(pos + i), buf[i],
			     setfs_pattern_byte(pos + i));
			return false;
		}
	}
	return true;
}

unsigned char *pattern_copy(size_t len, off_t pos)
{
	unsigned char *buf = malloc(len ? len : 1);

	if (buf)
		fill_pattern(buf, len, pos);
	else
		diag("out of memory");
	return buf;
}

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EIO, "EIO" },
	{ EBADF, "EBADF" }, { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },
	{ EACCES, "EACCES" }, { EFAULT, "EFAULT" }, { EEXIST, "EEXIST" },
	{ EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" }, { ESPIPE, "ESPIPE" },
	{ ERANGE, "ERANGE" }, { ENOTTY, "ENOTTY" },
	{ ENAMETOOLONG, "ENAMETOOLONG" }, { ENODEV, "ENODEV" },
	{ ENXIO, "ENXIO" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	{ EOVERFLOW, "EOVERFLOW" }, { EBUSY, "EBUSY" },
	{ EINTR, "EINTR" },
};

void close_if_open(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* The name of @err, or "errno N" (in a buffer the next call reuses). */
const char *errno_name(int err)
{
	static char other[32];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(other, sizeof(other), "errno %d", err);
	return other;
}

enum check_base { CHECK_DEC, CHECK_HEX, CHECK_OCT };

/* check_ll(), check_hex() and check_oct(): how the values are printed. */
static bool check_num(const char *what, unsigned long long got,
		      unsigned long long want, enum check_base base)
{
	if (got == want)
		return true;
	if (base == CHECK_DEC)
		diag("%s: got %lld, expected %lld", what, (long long)got,
		     (long long)want);
	else if (base == CHECK_HEX)
		diag("%s: got 0x%llx, expected 0x%llx", what, got, want);
	else
		diag("%s: got 0%llo, expected 0%llo", what, got, want);
	return false;
}

bool check_ll(const char *what, long long got, long long want)
{
	return check_num(what, got, want, CHECK_DEC);
}

bool check_hex(const char *what, unsigned long long got,
	       unsigned long long want)
{
	return check_num(what, got, want, CHECK_HEX);
}

bool check_oct(const char *what, unsigned long long got,
	       unsigned long long want)
{
	return check_num(what, got, want, CHECK_OCT);
}

bool check_mem(const char *what, const void *got, const void *want,
	       size_t len)
{
	const unsigned char *g = got, *w = want;
	size_t i;

	for (i = 0; i < len; i++) {
		if (g[i] != w[i]) {
			diag("%s: byte %zu is 0x%02x, expected 0x%02x", what, i,
			     g[i], w[i]);
			return false;
		}
	}
	return true;
}

bool series_applied(void)
{
	const char *s = getenv("setfs_series");

	return !s || strcmp(s, "none");
}

bool kernel_at_least(int major, int minor)
{
	static int have_major = -1, have_minor;
	struct utsname u;

	if (have_major < 0) {
		if (uname(&u) || sscanf(u.release, "%d.%d", &have_major,
					&have_minor) != 2) {
			fprintf(stderr, "setfs_user: cannot read the kernel's release\n");
			exit(2);
		}
	}
	return have_major > major ||
	       (have_major == major && have_minor >= minor);
}

bool check_errno(const char *what, long long ret, int err, int want)
{
	if (ret == -1 && err == want)
		return true;
	if (ret == -1)
		diag("%s: failed with %s (%d), expected %s", what,
		     errno_name(err), err, errno_name(want));
	else
		diag("%s: returned %lld, expected -1 with %s", what, ret,
		     errno_name(want));
	return false;
}

bool check_kret(const char *what, long long got, long long want)
{
	if (got == want)
		return true;
	if (got < 0 && want < 0)
		diag("%s: got -%s, expected -%s", what, errno_name(-got),
		     errno_name(-want));
	else if (got < 0)
		diag("%s: got -%s (%lld), expected %lld", what,
		     errno_name(-got), got, want);
	else if (want < 0)
		diag("%s: got %lld, expected -%s", what, got,
		     errno_name(-want));
	else
		diag("%s: got %lld, expected %lld", what, got, want);
	return false;
}

int open_path(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0)
		diag("open %s: %s", path, strerror(errno));
	return fd;
}

ssize_t drain_pipe(int fd, unsigned char *buf, size_t max)
{
	size_t got = 0;
	ssize_t ret;
	int avail;

	if (ioctl(fd, FIONREAD, &avail) < 0) {
		diag("FIONREAD: %s", strerror(errno));
		return -1;
	}
	if ((size_t)avail > max) {
		diag("pipe holds %d bytes, more than the %zu expected", avail,
		     max);
		return -1;
	}
	while (got < (size_t)avail) {
		ret = read(fd, buf + got, avail - got);
		if (ret <= 0) {
			diag("read from pipe: %s",
			     ret < 0 ? strerror(errno) : "EOF");
			return -1;
		}
		got += ret;
	}
	return got;
}

static int ctl_fd = -1;

int ctl_ioctl(unsigned long cmd, void *arg)
{
	int err;

	if (ctl_fd < 0) {
		ctl_fd = open(SETFS_CTL_PATH, O_RDWR | O_CLOEXEC);
		if (ctl_fd < 0) {
			err = errno;
			diag("open %s: %s", SETFS_CTL_PATH, strerror(err));
			return err;
		}
	}
	return ioctl(ctl_fd, cmd, arg) < 0 ? errno : 0;
}

bool ctl_call(unsigned long cmd, void *arg, const char *what)
{
	int err = ctl_ioctl(cmd, arg);

	if (err)
		diag("ioctl %s: %s", what, strerror(err));
	return !err;
}

bool ctl_info(struct setfs_ctl_info *info)
{
	return ctl_call(SETFS_IOC_INFO, info, "SETFS_IOC_INFO");
}

const struct setfs_ctl_info *kernel_facts(void)
{
	static struct setfs_ctl_info info;
	static int have = -1;

	if (have < 0)
		have = ctl_info(&info);
	return have ? &info : NULL;
}

unsigned long long uaccess_slack(void)
{
	const struct setfs_ctl_info *k = kernel_facts();

	return k ? k->uaccess_slack : 0;
}

bool proc_splice_opt_in(void)
{
	/* kernel_facts() said why it failed; the cases then fail */
	const struct setfs_ctl_info *k = kernel_facts();

	return k && (k->flags & SETFS_INFO_PROC_ITER_WHOLE);
}

bool proc_reads_as_read(const char *path)
{
	return proc_splice_opt_in() && strcmp(path, "/proc/config.gz");
}

void ctl_close(void)
{
	if (ctl_fd >= 0)
		close(ctl_fd);
	ctl_fd = -1;
}

unsigned long long option_ull(const char *name, unsigned long long def)
{
	char var[64];
	const char *v;
	char *end;
	unsigned long long n;

	snprintf(var, sizeof(var), "setfs_%s", name);
	v = getenv(var);
	if (!v || !*v)
		return def;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || *end) {
		printf("# ignoring %s=%s: not a number\n", var, v);
		return def;
	}
	return n;
}

unsigned long long splitmix64(unsigned long long *state)
{
	unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started;
	bool armed;
	double deadline;
	double seconds;
	bool cut;		/* moved before the case timeout */
	const char *what;
	void (*describe)(void);
} wd = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static void *watchdog_thread(void *arg)
{
	struct timespec ts;
	int fd;

	(void)arg;
	pthread_mutex_lock(&wd.lock);
	for (;;) {
		while (!wd.armed)
			pthread_cond_wait(&wd.cond, &wd.lock);
		if (now_seconds() >= wd.deadline)
			break;
		/* Poll: the deadline may move while we sleep. */
		ts.tv_sec = 0;
		ts.tv_nsec = 200 * 1000 * 1000;
		pthread_mutex_unlock(&wd.lock);
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&wd.lock);
	}
	diag("watchdog: %s did not finish within %.0f s%s", wd.what, wd.seconds,
	     wd.cut ? " (cut to end before setfs_case_timeout)" : "");
	if (wd.describe)
		wd.describe();
	fflush(stdout);
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "w", 1) < 0)
			diag("watchdog: sysrq w: %s", strerror(errno));
		close(fd);
	}
	_exit(3);
	return NULL;
}

void watchdog_arm(unsigned int seconds, const char *what,
		  void (*describe)(void))
{
	double now = now_seconds(), deadline = now + seconds;
	double kill_at = ktap_case_deadline();
	double margin = ktap_case_timeout() / 2.0;
	bool cut = false;
	pthread_t t;

	if (margin > WATCHDOG_MARGIN)
		margin = WATCHDOG_MARGIN;
	if (kill_at && deadline > kill_at - margin) {
		deadline = kill_at - margin;
		if (deadline < now + 1)
			deadline = now + 1;
		cut = true;
	}
	pthread_mutex_lock(&wd.lock);
	if (!wd.started &&
	    pthread_create(&t, NULL, watchdog_thread, NULL) == 0) {
		pthread_detach(t);
		wd.started = true;
	}
	wd.seconds = deadline - now;
	wd.cut = cut;
	wd.deadline = deadline;
	wd.what = what;
	wd.describe = describe;
	wd.armed = true;
	pthread_cond_signal(&wd.cond);
	pthread_mutex_unlock(&wd.lock);
}

void watchdog_disarm(void)
{
	pthread_mutex_lock(&wd.lock);
	wd.armed = false;
	pthread_mutex_unlock(&wd.lock);
}

enum case_result proc_legacy_state(void)
{
	struct setfs_ctl_info info;
	struct stat st;
	bool flag, file;

	if (!ctl_info(&info))
		return CASE_FAIL;
	flag = info.flags & SETFS_INFO_PROC_LEGACY;
	file = stat(SETFS_PROC_LEGACY_PATH, &st) == 0;
	if (flag && file)
		return CASE_PASS;
	if (!flag && !file)
		return ktap_skip("struct proc_ops has no ->proc_read in this kernel: "
				 SETFS_PROC_LEGACY_PATH " is not built");
	diag("%s %s but the module says it was %sbuilt",
	     SETFS_PROC_LEGACY_PATH, file ? "exists" : "is missing",
	     flag ? "" : "not ");
	return CASE_FAIL;
}

enum case_result probe_file_state(const char *path)
{
	return strcmp(path, SETFS_PROC_LEGACY_PATH) ? CASE_PASS :
						      proc_legacy_state();
}

bool store_restore(void)
{
	size_t size = fixture_size();
	struct setfs_ctl_info info;
	unsigned char *pattern = pattern_copy(size, 0);
	bool ok = false;
	ssize_t ret;
	int fd;

	if (!pattern)
		return false;
	fd = open_path(SETFS_DEV_PATH, O_WRONLY);
	if (fd < 0)
		goto out;
	ret = pwrite(fd, pattern, size, 0);
	close(fd);
	if (!check_ll("restoring the store: pwrite", ret, size) ||
	    !ctl_info(&info))
		goto out;
	ok = check_hex("store checksum after restoring the pattern",
		       info.store_sum, setfs_checksum(pattern, size));
out:
	free(pattern);
	return ok;
}

/* "name=value" arguments become setfs_<name> in the environment. */
static void options_from_args(int argc, char **argv)
{
	char var[64];
	char *eq;
	int i;

	for (i = 1; i < argc; i++) {
		eq = strchr(argv[i], '=');
		if (!eq || eq == argv[i] ||
		    (size_t)(eq - argv[i]) >= sizeof(var) - 7) {
			fprintf(stderr, "setfs_user: ignoring '%s' (not name=value)\n",
				argv[i]);
			continue;
		}
		snprintf(var, sizeof(var), "setfs_%.*s", (int)(eq - argv[i]),
			 argv[i]);
		setenv(var, eq + 1, 1);
	}
}

int main(int argc, char **argv)
{
	bool selected[MAX_GROUPS];
	unsigned int i, n = 0, failed = 0;
	bool list;

	if (argc == 2 && !strcmp(argv[1], "bench"))
		return bench_main();
	if (argc == 2 && !strcmp(argv[1], "series"))
		return series_main();
	list = argc >= 2 && !strcmp(argv[1], "list");
	for (i = 1 + list; i < (unsigned int)argc; i++) {
		if (!strchr(argv[i], '=')) {
			fprintf(stderr, "usage: %s [bench | series | [list] name=value...]\n",
				argv[0]);
			return 2;
		}
	}
	options_from_args(argc - list, argv + list);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* filter=GLOB[,GLOB...] or setfs_filter: see ktap_set_filter() */
	ktap_set_filter(getenv("setfs_filter"));
	collect_groups();
	for (i = 0; i < ngroups; i++) {
		selected[i] = ktap_group_select(groups[i]) > 0;
		n += selected[i];
	}
	/*
	 * The groups run in child processes (ktap_run_group()); a control
	 * device the prepare steps opened here would stay open in this process
	 * and pin setfs_probe, which setfs_user_unload removes.
	 */
	ctl_close();
	if (list) {
		/* the cases a run would report, as kunit.action=list prints them */
		for (i = 0; i < ngroups; i++)
			if (selected[i])
				ktap_list_group(groups[i]);
		return 0;
	}
	printf("KTAP version 1\n1..%u\n", n);
	if (!fixture_size())
		printf("# cannot read %s: is setfs_probe.ko loaded?\n",
		       SETFS_SIZE_PARAM);
	for (i = 0, n = 0; i < ngroups; i++) {
		if (selected[i])
			failed += ktap_run_group(groups[i], ++n);
	}
	return failed ? 1 : 0;
}

/* ------------------------------------------- the converted proc files */

char kconfig(const char *sym)
{
	char line[512];
	size_t len = strlen(sym);
	char val = 'n';
	FILE *f;

	f = fopen(KERNEL_CONFIG, "r");
	if (!f) {
		diag("open %s: %s", KERNEL_CONFIG, strerror(errno));
		return 'n';
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CONFIG_", 7) && !strncmp(line + 7, sym, len) &&
		    line[7 + len] == '=') {
			val = line[8 + len];
			break;
		}
	}
	fclose(f);
	return val;
}

bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

enum case_result need_file(const char *path, const char *sym)
{
	bool want = !sym || kconfig(sym) != 'n';
	bool have = exists(path);

	if (want && have)
		return CASE_PASS;
	if (!have && sym && !exists(KERNEL_CONFIG)) {
		diag("%s is missing, and so is %s: cannot tell whether CONFIG_%s is set",
		     path, KERNEL_CONFIG, sym);
		return CASE_FAIL;
	}
	if (!want && !have) {
		static char reason[128];

		snprintf(reason, sizeof(reason), "CONFIG_%s is not set: no %s",
			 sym, path);
		return ktap_skip(reason);
	}
	diag("%s %s, but CONFIG_%s is %s", path, have ? "exists" : "is missing",
	     sym ? sym : "?", want ? "set" : "not set");
	return CASE_FAIL;
}

bool write_str(const char *path, const char *s)
{
	ssize_t ret;
	int fd;

	fd = open_path(path, O_WRONLY);
	if (fd < 0)
		return false;
	ret = write(fd, s, strlen(s));
	if (ret < 0)
		diag("write %s: %s", path, strerror(errno));
	close(fd);
	return ret == (ssize_t)strlen(s);
}

bool read_once(const char *path, void *buf, size_t len, ssize_t *ret)
{
	int fd = open_path(path, O_RDONLY);

	if (fd < 0)
		return false;
	*ret = read(fd, buf, len);
	close(fd);
	return true;
}

ssize_t read_all_step(const char *path, int oflags, unsigned char *buf,
		      size_t max, size_t step)
{
	size_t got = 0;
	ssize_t ret = 0;
	int fd, err;

	fd = open(path, oflags);
	if (fd < 0)
		return -errno;
	while (got < max &&
	       (ret = read(fd, buf + got, step < max - got ? step : max - got)) > 0)
		got += ret;
	err = errno;
	close(fd);
	return ret < 0 ? -err : (ssize_t)got;
}

ssize_t read_all(const char *path, int oflags, unsigned char *buf,
		 size_t max)
{
	return read_all_step(path, oflags, buf, max, 1000);
}

/* The first path the glob matches, in @out. */
static bool resolve(const char *pattern, char *out, size_t len)
{
	glob_t g;
	bool ok;

	if (glob(pattern, 0, NULL, &g))
		return false;
	ok = g.gl_pathc > 0 && strlen(g.gl_pathv[0]) < len;
	if (ok)
		strcpy(out, g.gl_pathv[0]);
	globfree(&g);
	return ok;
}

/*
 * The value of the first "key : value" line of /proc/cpuinfo whose key is
 * @key, into @buf; false when there is none.
 */
bool cpuinfo_value(const char *key, char *buf, size_t len)
{
	char line[4096];
	bool found = false;
	FILE *f;

	f = fopen("/proc/cpuinfo", "r");
	if (!f) {
		diag("cannot open /proc/cpuinfo");
		return false;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		size_t klen = strlen(key);

		if (!colon || strncmp(line, key, klen) ||
		    !strchr(" \t:", line[klen]))
			continue;
		colon++;
		colon += strspn(colon, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		found = true;
	}
	fclose(f);
	return found;
}

enum case_result procfile_locate(const struct procfile_row *r, char *path,
				 size_t len)
{
	if (resolve(r->path, path, len))
		return CASE_PASS;
	if (r->kconfig && !exists(KERNEL_CONFIG)) {
		diag("%s is missing: cannot tell whether CONFIG_%s is set",
		     KERNEL_CONFIG, r->kconfig);
		return CASE_FAIL;
	}
	if (r->kconfig && kconfig(r->kconfig) == 'n') {
		diag("CONFIG_%s is not set in %s", r->kconfig, KERNEL_CONFIG);
		return ktap_skip("the kernel is configured without the file");
	}
	diag("%s does not exist (kernel config?)", r->path);
	return CASE_FAIL;
}

/*
 * Every device file under /proc/bus/pci with its sysfs config file.  A
 * record whose machine always has devices says so with setfs_pci=required
 * (QEMU -M pc: the i440FX host bridge and the PIIX3); a pseries guest with
 * -nodefaults may have none.
 */
int pci_devices(struct pci_dev *devs, int max, enum case_result *res)
{
	const char *bus, *slot;
	glob_t g;
	size_t i;
	int n = 0;

	*res = need_file("/proc/bus/pci", "PCI");
	if (*res != CASE_PASS)
		return 0;
	if (glob("/proc/bus/pci/*/*", 0, NULL, &g)) {
		const char *want = getenv("setfs_pci");

		if (want && strcmp(want, "required")) {
			diag("setfs_pci=%s: the record may say only setfs_pci=required",
			     want);
			*res = CASE_FAIL;
		} else if (want) {
			diag("no device under /proc/bus/pci, and the record says %s",
			     "setfs_pci=required");
			*res = CASE_FAIL;
		} else {
			*res = ktap_skip("no PCI device exists in this guest");
		}
		return 0;
	}
	for (i = 0; i < g.gl_pathc && n < max; i++, n++) {
		snprintf(devs[n].proc, sizeof(devs[n].proc), "%s",
			 g.gl_pathv[i]);
		bus = g.gl_pathv[i] + strlen("/proc/bus/pci/");
		slot = strchr(bus, '/') + 1;
		snprintf(devs[n].sysfs, sizeof(devs[n].sysfs),
			 "/sys/bus/pci/devices/%s%.*s:%s/config",
			 memchr(bus, ':', slot - bus) ? "" : "0000:",
			 (int)(slot - bus - 1), bus, slot);
	}
	globfree(&g);
	return n;
}

/* Depth first. */
void asound_walk(const char *dir, struct asound_entry *paths, int *n)
{
	char path[sizeof(paths->path)];
	struct dirent *d;
	struct stat st;
	DIR *dp;

	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp)) && *n < ASOUND_MAX) {
		if (d->d_name[0] == '.' ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     d->d_name) >= sizeof(path) ||
		    lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			asound_walk(path, paths, n);
		else if (S_ISREG(st.st_mode) && (st.st_mode & 0400))
			strcpy(paths[(*n)++].path, path);
	}
	closedir(dp);
}
