// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_procread: the proc files whose hand-written ->proc_read part 2
 * of kernel-patches/ converts to ->proc_read_iter, checked byte for byte.
 *
 * read(2) and pread(2) must give what the source of each file says
 * (fs/proc/page.c, kernel/configs.c, kernel/profile.c, fs/proc/kmsg.c,
 * drivers/pci/proc.c, net/sunrpc/cache.c, net/sunrpc/auth_gss/
 * svcauth_gss.c, fs/lockd/procfs.c, samples/kfifo/, arch/powerpc/kernel/
 * proc_powerpc.c, rtas_flash.c, rtasd.c), on every kernel.  splice(2)
 * into a pipe, sendfile(2) into a tmpfs file and kernel_read() through the
 * probe's control device (the *_splice, *_sendfile and *_kernel_read
 * cases) depend on the kernel: while struct proc_ops has ->proc_read
 * (SETFS_INFO_PROC_OPS_READ) they must fail with EINVAL and change
 * nothing; once it is gone they must give what read(2) gives, errors
 * included.  Files whose bytes change between two reads are compared in
 * the parts that do not change; files that consume what they return
 * (/proc/kmsg, the kfifo samples) are checked for the exact bytes each
 * path consumed.
 *
 * ALSA: no /proc/asound entry of snd-dummy uses the binary
 * (SNDRV_INFO_CONTENT_DATA) path through snd_info_entry_read(); its only
 * users are the opl4, gus, cs4281, cs46xx, mixart and emu10k1 drivers.
 * The asound_* cases check that every entry reads through the text path
 * (converted by part 1) and that /proc/asound/cards and version say what
 * sound/core/ prints.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/kernel-page-flags.h>

#include "setfs_user.h"

#define BIG		(1024 * 1024)	/* more than any read of this group */
#define CASE_TIMEOUT	30		/* seconds before SIGALRM ends a hang */

/* From SETFS_IOC_INFO, set by the group's setup. */
static bool have_proc_read;
static size_t page_size;

static void on_alarm(int sig)
{
	(void)sig;
}

/* A skip naming CONFIG_@sym when the running kernel does not have it. */
static enum case_result need_kconfig(const char *sym)
{
	static char reason[96];

	if (!exists(KERNEL_CONFIG)) {
		diag("%s is missing: cannot tell whether CONFIG_%s is set",
		     KERNEL_CONFIG, sym);
		return CASE_FAIL;
	}
	if (kconfig(sym) != 'n')
		return CASE_PASS;
	snprintf(reason, sizeof(reason), "CONFIG_%s is not set in this kernel", sym);
	return ktap_skip(reason);
}

/* read(2) (@pos < 0) or pread(2) of @count bytes on a fresh open; -errno. */
static ssize_t read_at(const char *path, int oflags, off_t pos,
		       unsigned char *buf, size_t count)
{
	ssize_t ret;
	int fd, err;

	fd = open(path, oflags);
	if (fd < 0)
		return -errno;
	ret = pos < 0 ? read(fd, buf, count) : pread(fd, buf, count, pos);
	err = errno;
	close(fd);
	return ret < 0 ? -err : ret;
}

/*
 * The three paths that need ->read_iter.  A stream keeps the file (and
 * the pipe, or the tmpfs file) open across reads, for files that consume
 * what they return; kernel_read() opens the file anew on every call.
 */
enum via { VIA_NONE, VIA_SPLICE, VIA_SENDFILE, VIA_KERNEL_READ };

#define CONFIG_GZ	"/proc/config.gz"

static const char *const via_names[] = {
	[VIA_NONE] = "read", [VIA_SPLICE] = "splice",
	[VIA_SENDFILE] = "sendfile", [VIA_KERNEL_READ] = "kernel_read",
};

struct stream {
	enum via via;
	const char *path;
	int fd;
	int pipe[2];
	int out;
	off_t out_pos;
	bool nonseekable;	/* sendfile(2) into s->pipe, not s->out */
};

#define STREAM_CLOSED	{ .fd = -1, .pipe = { -1, -1 }, .out = -1 }

static bool stream_open(struct stream *s, enum via v, const char *path,
			int oflags)
{
	char tmp[] = "/tmp/setfs_procread.XXXXXX";

	*s = (struct stream){ .via = v, .path = path, .fd = -1,
			      .pipe = { -1, -1 }, .out = -1 };
	if (v == VIA_KERNEL_READ)
		return true;
	s->fd = open_path(path, oflags);
	if (s->fd < 0)
		return false;
	/*
	 * sendfile(2) into a regular file goes through
	 * splice_direct_to_actor(), which wants a seekable input
	 * (FMODE_LSEEK) and gives EINVAL otherwise, whatever the read
	 * method: from a stream-like file (sunrpc channel and flush,
	 * use-gss-proxy) it sends into a pipe instead.
	 */
	if (v == VIA_SENDFILE && lseek(s->fd, 0, SEEK_CUR) < 0 &&
	    errno == ESPIPE)
		s->nonseekable = true;
	if ((v == VIA_SPLICE || s->nonseekable) && pipe(s->pipe)) {
		diag("pipe: %s", strerror(errno));
		return false;
	}
	if (v == VIA_SENDFILE && !s->nonseekable) {
		s->out = mkstemp(tmp);
		if (s->out < 0) {
			diag("mkstemp: %s", strerror(errno));
			return false;
		}
		unlink(tmp);
	}
	return true;
}

static void stream_close(struct stream *s)
{
	close_if_open(s->fd);
	close_if_open(s->pipe[0]);
	close_if_open(s->pipe[1]);
	close_if_open(s->out);
	*s = (struct stream)STREAM_CLOSED;
}

/*
 * One splice(2), sendfile(2) or kernel_read() of at most @count bytes at
 * @pos (< 0: at the file position; kernel_read() then reads at 0) into
 * @buf.  Returns the byte count or -errno; -EPROTO when the call itself
 * misbehaved (said why in a diagnostic).
 */
static ssize_t stream_read(struct stream *s, off_t pos, unsigned char *buf,
			   size_t count)
{
	struct setfs_ctl_rw rw = { 0 };
	loff_t off = pos;
	ssize_t ret = -EPROTO, n;

	switch (s->via) {
	case VIA_NONE:
		ret = pos < 0 ? read(s->fd, buf, count) :
				pread(s->fd, buf, count, pos);
		if (ret < 0)
			return -errno;
		off = pos < 0 ? pos : pos + ret;
		break;
	case VIA_SPLICE:
		ret = splice(s->fd, pos < 0 ? NULL : &off, s->pipe[1], NULL,
			     count, 0);
		if (ret < 0)
			return -errno;
		n = drain_pipe(s->pipe[0], buf, count);
		if (n != ret) {
			diag("splice returned %zd, the pipe held %zd", ret, n);
			return -EPROTO;
		}
		break;
	case VIA_SENDFILE:
		if (s->nonseekable) {
			ret = sendfile(s->pipe[1], s->fd, NULL, count);
			if (ret < 0)
				return -errno;
			n = drain_pipe(s->pipe[0], buf, count);
			if (n != ret) {
				diag("sendfile returned %zd, the pipe held %zd",
				     ret, n);
				return -EPROTO;
			}
			break;
		}
		ret = sendfile(s->out, s->fd, pos < 0 ? NULL : &off, count);
		if (ret < 0)
			return -errno;
		n = pread(s->out, buf, ret, s->out_pos);
		if (n != ret) {
			diag("sendfile returned %zd, the tmpfs file has %zd",
			     ret, n);
			return -EPROTO;
		}
		s->out_pos += ret;
		break;
	case VIA_KERNEL_READ:
		if ((size_t)snprintf(rw.path, sizeof(rw.path), "%s", s->path) >=
		    sizeof(rw.path) || count > SETFS_CTL_RW_MAX) {
			diag("%s, %zu bytes: too much for the ioctl", s->path,
			     count);
			return -EPROTO;
		}
		rw.buf = (unsigned long)buf;
		rw.count = count;
		rw.pos = pos < 0 ? 0 : pos;
		if (!ctl_call(SETFS_IOC_KERNEL_READ, &rw,
			      "SETFS_IOC_KERNEL_READ"))
			return -EPROTO;
		if (rw.open_ret) {
			diag("filp_open %s: %s", s->path,
			     errno_name((int)-rw.open_ret));
			return -EPROTO;
		}
		ret = rw.ret;
		off = rw.pos;
		if (ret < 0)
			return ret;
		/*
		 * From "the file position" (a stream: kmsg, the kfifo
		 * samples), whose read(2) leaves f_pos alone: nothing to
		 * check, as for the other ways.
		 */
		if (pos < 0)
			return ret;
		break;
	}
	if (pos >= 0 && off != pos + ret) {
		diag("%s moved the position from %lld to %lld for %zd bytes",
		     via_names[s->via], (long long)pos, (long long)off, ret);
		return -EPROTO;
	}
	return ret;
}

/* stream_read() on a stream of its own. */
static ssize_t via_read(enum via v, const char *path, int oflags, off_t pos,
			unsigned char *buf, size_t count)
{
	struct stream s;
	ssize_t ret = -EPROTO;

	if (stream_open(&s, v, path, oflags))
		ret = stream_read(&s, pos, buf, count);
	stream_close(&s);
	return ret;
}

/*
 * Whether @v must fail with EINVAL on the converted file @path: every way
 * while struct proc_ops has ->proc_read; with the 6.12 series splice(2)
 * and sendfile(2), except on /proc/config.gz, the one file here whose
 * proc_ops ask for them (PROC_ENTRY_ITER_WHOLE).
 */
static bool via_refused(enum via v, const char *path)
{
	if (have_proc_read)
		return true;
	return (v == VIA_SPLICE || v == VIA_SENDFILE) &&
	       proc_reads_as_read(path);
}

/*
 * @got (bytes in @buf, or -errno) from @v on @path against what the
 * kernel must give: EINVAL where via_refused(), else @want (@wlen bytes;
 * -errno when read(2) fails too; @want NULL: the length only).
 */
static bool expect_via(const char *path, const char *what, enum via v,
		       ssize_t got, const unsigned char *buf,
		       const unsigned char *want, ssize_t wlen)
{
	char name[192];

	snprintf(name, sizeof(name), "%s: %s", via_names[v], what);
	if (via_refused(v, path))
		return check_kret(name, got, -EINVAL);
	if (!check_kret(name, got, wlen))
		return false;
	return got <= 0 || !want || check_mem(name, buf, want, got);
}

/* A piece of a file; pos < 0: from the position of a fresh open. */
struct slice {
	off_t pos;
	size_t count;
	bool len_only;	/* the bytes change from read to read */
};

#define SL(p, c)	{ (p), (c), false }
#define SL_LEN(p, c)	{ (p), (c), true }

/*
 * @v on every slice of @path gives what read(2)/pread(2) gives on a fresh
 * open (bytes or errno), or EINVAL while struct proc_ops has ->proc_read.
 */
static bool expect_slices(enum via v, const char *path, int oflags,
			  const struct slice *sl, size_t n)
{
	unsigned char *want = malloc(BIG), *got = malloc(BIG);
	bool ok = want && got;
	ssize_t wlen, glen;
	char what[160];
	size_t i;

	for (i = 0; ok && i < n; i++) {
		wlen = read_at(path, oflags, sl[i].pos, want, sl[i].count);
		glen = via_read(v, path, oflags, sl[i].pos, got, sl[i].count);
		snprintf(what, sizeof(what), "%s at %lld, %zu bytes", path,
			 (long long)sl[i].pos, sl[i].count);
		if (!expect_via(path, what, v, glen, got,
				sl[i].len_only ? NULL : want, wlen))
			ok = false;
	}
	free(want);
	free(got);
	return ok;
}

/* pread(2) of @count at @pos must give @wlen bytes (-errno) equal to @want. */
static bool expect_pread(int fd, off_t pos, size_t count,
			 const unsigned char *want, ssize_t wlen)
{
	unsigned char *buf = malloc(count ? count : 1);
	char what[96];
	ssize_t ret;
	bool ok;

	if (!buf)
		return false;
	ret = pread(fd, buf, count, pos);
	if (ret < 0)
		ret = -errno;
	snprintf(what, sizeof(what), "pread of %zu bytes at %lld", count,
		 (long long)pos);
	ok = check_kret(what, ret, wlen) &&
	     (ret <= 0 || !want || check_mem(what, buf, want, ret));
	free(buf);
	return ok;
}

/* ------------------------------------------------------------ the switch */

/*
 * SETFS_INFO_PROC_OPS_READ decides what the *_splice, *_sendfile and
 * *_kernel_read cases expect; it must agree with the legacy fixture, which
 * the module builds exactly when the member exists.
 */
static enum case_result proc_ops_read_flag(enum via v)
{
	struct setfs_ctl_info info;
	bool legacy_file = exists(SETFS_PROC_LEGACY_PATH);
	bool flag;

	(void)v;
	if (!ctl_info(&info))
		return CASE_FAIL;
	flag = info.flags & SETFS_INFO_PROC_OPS_READ;
	diag("struct proc_ops %s ->proc_read: splice, sendfile and kernel_read() %s",
	     flag ? "has" : "has no",
	     flag ? "must fail with EINVAL" : "must give the bytes read(2) gives");
	if (flag != !!(info.flags & SETFS_INFO_PROC_LEGACY) ||
	    flag != legacy_file) {
		diag("flag %d, SETFS_INFO_PROC_LEGACY %d, %s %s", flag,
		     !!(info.flags & SETFS_INFO_PROC_LEGACY),
		     SETFS_PROC_LEGACY_PATH, legacy_file ? "exists" : "missing");
		return CASE_FAIL;
	}
	return flag == have_proc_read ? CASE_PASS : CASE_FAIL;
}

/* ------------------------------------------------------ /proc/config.gz */

/* The file by read(2), into a buffer of BIG bytes; NULL on failure. */
static unsigned char *config_gz(ssize_t *len)
{
	unsigned char *buf = malloc(BIG);

	if (!buf)
		return NULL;
	*len = read_all(CONFIG_GZ, O_RDONLY, buf, BIG);
	if (*len <= 0 || *len == BIG) {
		diag("read(2) of %s gave %zd", CONFIG_GZ, *len);
		free(buf);
		return NULL;
	}
	return buf;
}

/* st_size is the size of kernel/config_data.gz, and it is gzip. */
static enum case_result config_gz_size_and_magic(enum via v)
{
	enum case_result res = need_file(CONFIG_GZ, "IKCONFIG_PROC");
	static const unsigned char magic[] = { 0x1f, 0x8b, 0x08 };
	unsigned char *buf;
	struct stat st;
	ssize_t len;
	bool ok;

	(void)v;
	if (res != CASE_PASS)
		return res;
	buf = config_gz(&len);
	if (!buf)
		return CASE_FAIL;
	ok = stat(CONFIG_GZ, &st) == 0 &&
	     check_ll("st_size against the bytes read(2) gives", st.st_size,
		      len) &&
	     check_mem("gzip magic", buf, magic, sizeof(magic));
	free(buf);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* zcat of what read(2) gives is the .config the kernel was built from. */
static enum case_result config_gz_is_kernel_config(enum via v)
{
	enum case_result res = need_file(CONFIG_GZ, "IKCONFIG_PROC");
	static const char tmp[] = "/tmp/setfs_config.gz";
	unsigned char *gz, *want = NULL, *got = NULL;
	ssize_t len, wlen, glen = 0, n;
	bool ok = false;
	FILE *p;
	int fd;

	(void)v;
	if (res != CASE_PASS)
		return res;
	gz = config_gz(&len);
	want = malloc(BIG);
	got = malloc(BIG);
	if (!gz || !want || !got)
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, gz, len) != len) {
		diag("writing %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	p = popen("zcat /tmp/setfs_config.gz", "r");
	if (!p) {
		diag("popen zcat: %s", strerror(errno));
		goto out_unlink;
	}
	while (glen < BIG && (n = fread(got + glen, 1, BIG - glen, p)) > 0)
		glen += n;
	if (pclose(p)) {
		diag("zcat failed: %s is not a gzip file", CONFIG_GZ);
		goto out_unlink;
	}
	wlen = read_all(KERNEL_CONFIG, O_RDONLY, want, BIG);
	if (wlen <= 0) {
		diag("read %s: %s", KERNEL_CONFIG, errno_name(-wlen));
		goto out_unlink;
	}
	diag("%zd bytes of gzip, %zd bytes of .config", len, glen);
	ok = check_ll("length of the uncompressed config", glen, wlen) &&
	     check_mem("uncompressed config against " KERNEL_CONFIG, got,
		       want, wlen);
out_unlink:
	unlink(tmp);
out:
	free(gz);
	free(want);
	free(got);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* pread(2) anywhere gives the slice of the file there, 0 at and past EOF. */
static enum case_result config_gz_pread_offsets(enum via v)
{
	enum case_result res = need_file(CONFIG_GZ, "IKCONFIG_PROC");
	unsigned char *gz;
	ssize_t len;
	bool ok = true;
	size_t i;
	int fd;

	(void)v;
	if (res != CASE_PASS)
		return res;
	gz = config_gz(&len);
	if (!gz)
		return CASE_FAIL;
	fd = open_path(CONFIG_GZ, O_RDONLY);
	if (fd < 0) {
		free(gz);
		return CASE_FAIL;
	}
	{
		const off_t pos[] = { 0, 1, 4095, 4096, len - 1, len,
				      len + 100 };

		for (i = 0; i < ARRAY_SIZE(pos); i++) {
			ssize_t w = pos[i] >= len ? 0 :
				    len - pos[i] < 4096 ? len - pos[i] : 4096;

			ok &= expect_pread(fd, pos[i], 4096,
					   pos[i] < len ? gz + pos[i] : NULL, w);
		}
	}
	ok &= expect_pread(fd, 0, 0, NULL, 0);
	ok &= check_ll("lseek SEEK_END", lseek(fd, 0, SEEK_END), len);
	close(fd);
	free(gz);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result config_gz_via(enum via v)
{
	enum case_result res = need_file(CONFIG_GZ, "IKCONFIG_PROC");
	struct stat st;
	off_t size;

	if (res != CASE_PASS)
		return res;
	if (stat(CONFIG_GZ, &st))
		return CASE_FAIL;
	size = st.st_size;
	{
		const struct slice sl[] = {
			SL(0, BIG), SL(1, 4096), SL(4095, 4096),
			SL(4096, 4096), SL(size - 1, 4096), SL(size, 4096),
			SL(size + 100, 4096),
		};

		return expect_slices(v, CONFIG_GZ, O_RDONLY, sl, ARRAY_SIZE(sl)) ?
		       CASE_PASS : CASE_FAIL;
	}
}

/* ---------------------------- /proc/kpagecount, kpageflags, kpagecgroup */

#define KPAGECOUNT	"/proc/kpagecount"
#define KPAGEFLAGS	"/proc/kpageflags"
#define KPAGECGROUP	"/proc/kpagecgroup"
#define KPM		8	/* KPMSIZE: one u64 per PFN */

/* A private anonymous page of ours, written once, and its PFN. */
static unsigned char *own_page;
static unsigned long long own_pfn;

static bool own_page_map(void)
{
	__u64 entry;
	ssize_t ret;
	int fd;

	own_page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (own_page == MAP_FAILED) {
		own_page = NULL;
		return false;
	}
	memset(own_page, 0x5a, page_size);
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return false;
	ret = pread(fd, &entry, sizeof(entry),
		    (unsigned long)own_page / page_size * sizeof(entry));
	close(fd);
	if (ret != sizeof(entry) || !(entry >> 63))
		return false;
	own_pfn = entry & ((1ULL << 55) - 1);
	return own_pfn != 0;
}

/* Top-level "System RAM" of /proc/iomem: the end (exclusive) and the sum. */
static bool iomem_ram(unsigned long long *end, unsigned long long *total)
{
	unsigned long long a, b;
	char line[256], name[128];
	FILE *f;

	*end = *total = 0;
	f = fopen("/proc/iomem", "r");
	if (!f) {
		diag("open /proc/iomem: %s", strerror(errno));
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == ' ' ||
		    sscanf(line, "%llx-%llx : %127[^\n]", &a, &b, name) != 3 ||
		    strcmp(name, "System RAM"))
			continue;
		*total += b + 1 - a;
		if (b + 1 > *end)
			*end = b + 1;
	}
	fclose(f);
	if (!*end)
		diag("no System RAM in /proc/iomem");
	return *end != 0;
}

/*
 * get_max_dump_pfn() (fs/proc/page.c): max_pfn, the end of RAM, rounded up
 * to a memory section with CONFIG_SPARSEMEM.
 */
static bool want_max_dump_pfn(unsigned long long *pfn)
{
	unsigned long long end, total, per_section;

	if (!iomem_ram(&end, &total))
		return false;
	*pfn = end / page_size;
	if (kconfig("SPARSEMEM") == 'y') {
		const struct setfs_ctl_info *k = kernel_facts();

		if (!k || !k->section_size_bits) {
			diag("SPARSEMEM, but the probe reports no SECTION_SIZE_BITS");
			return false;
		}
		per_section = (1ULL << k->section_size_bits) / page_size;
		*pfn = (*pfn + per_section - 1) / per_section * per_section;
	}
	return true;
}

/*
 * The first PFN the file has no record for, found by pread(2).  On a
 * 32-bit kernel the ->proc_read of an unpatched tree narrows the position
 * to 32 bits (see model() in user_edges.c), so the search stays below
 * 4 GiB there: 2^29 - 1 PFNs are more than any 32-bit machine's RAM.
 */
static bool file_max_dump_pfn(const char *path, unsigned long long *pfn)
{
	unsigned long long lo = 0, mid;
	unsigned long long hi = sizeof(long) < sizeof(long long) ?
				(1ULL << 29) - 1 : 1ULL << 40;
	__u64 rec;
	int fd;

	fd = open_path(path, O_RDONLY);
	if (fd < 0)
		return false;
	if (pread(fd, &rec, KPM, 0) != KPM ||
	    pread(fd, &rec, KPM, hi * KPM) != 0) {
		diag("%s: no record for PFN 0, or one for PFN 0x%llx", path,
		     hi);
		close(fd);
		return false;
	}
	while (hi - lo > 1) {	/* lo has a record, hi has none */
		mid = lo + (hi - lo) / 2;
		if (pread(fd, &rec, KPM, mid * KPM) == KPM)
			lo = mid;
		else
			hi = mid;
	}
	close(fd);
	*pfn = hi;
	return true;
}

static enum case_result need_kpage(const char *path)
{
	return need_file(path, strcmp(path, KPAGECGROUP) ? "PROC_PAGE_MONITOR" :
			 "MEMCG");
}

/* The file ends at get_max_dump_pfn(): 8 bytes per PFN below, 0 from there. */
static enum case_result kpage_ends_at_max_pfn(const void *file, enum via v)
{
	const char *path = file;
	enum case_result res = need_kpage(path);
	unsigned long long got, want;

	(void)v;
	if (res != CASE_PASS)
		return res;
	if (!file_max_dump_pfn(path, &got) || !want_max_dump_pfn(&want))
		return CASE_FAIL;
	diag("%s has records for PFNs 0..0x%llx", path, got - 1);
	return check_hex("first PFN without a record", got, want) ?
	       CASE_PASS : CASE_FAIL;
}

/*
 * The rules of kpagecount_read() and friends: the offset and the count
 * must be multiples of 8 (checked first, even past the end), the count is
 * clamped at the end, reads there give 0; lseek has SEEK_SET and
 * SEEK_CUR only (mem_lseek()).
 */
static enum case_result kpage_alignment(const void *file, enum via v)
{
	const char *path = file;
	enum case_result res = need_kpage(path);
	unsigned long long end;
	unsigned char rec[2 * KPM];
	bool ok = true;
	int fd;

	(void)v;
	if (res != CASE_PASS)
		return res;
	if (!file_max_dump_pfn(path, &end))
		return CASE_FAIL;
	fd = open_path(path, O_RDONLY);
	if (fd < 0)
		return CASE_FAIL;
	ok &= expect_pread(fd, 0, KPM, NULL, KPM);
	ok &= expect_pread(fd, 0, 0, NULL, 0);
	ok &= expect_pread(fd, 4, KPM, NULL, -EINVAL);
	ok &= expect_pread(fd, 1, 0, NULL, -EINVAL);
	ok &= expect_pread(fd, 0, 7, NULL, -EINVAL);
	ok &= expect_pread(fd, 0, 12, NULL, -EINVAL);
	ok &= expect_pread(fd, (end - 1) * KPM, 2 * KPM, NULL, KPM);
	ok &= expect_pread(fd, end * KPM, KPM, NULL, 0);
	ok &= expect_pread(fd, end * KPM + 4, KPM, NULL, -EINVAL);
	ok &= expect_pread(fd, (end + 12345) * KPM, 2 * KPM, NULL, 0);
	ok &= check_ll("read(2) of 16 bytes at 0", read(fd, rec, 2 * KPM),
		       2 * KPM);
	ok &= check_ll("read(2) of 8 more bytes", read(fd, rec, KPM), KPM);
	ok &= check_ll("lseek SEEK_CUR after 24 bytes", lseek(fd, 0, SEEK_CUR),
		       3 * KPM);
	ok &= check_errno("lseek SEEK_END", lseek(fd, 0, SEEK_END), errno,
			  EINVAL);
	close(fd);
	return ok ? CASE_PASS : CASE_FAIL;
}

static bool kpage_record(const char *path, unsigned long long pfn,
			 __u64 *rec)
{
	ssize_t ret = read_at(path, O_RDONLY, pfn * KPM, (void *)rec, KPM);

	if (ret == KPM)
		return true;
	diag("%s: pread of PFN 0x%llx gave %zd", path, pfn, ret);
	return false;
}

/*
 * Our own page is mapped once: page_mapcount() 1; once more in a forked
 * child that does not touch it: 2, the page is shared until written.
 */
static enum case_result kpagecount_own_page(enum via v)
{
	enum case_result res = need_kpage(KPAGECOUNT);
	int sync[2], status;
	__u64 rec;
	bool ok;
	pid_t pid;
	char c;

	(void)v;
	if (res != CASE_PASS)
		return res;
	diag("our page is PFN 0x%llx", own_pfn);
	if (!kpage_record(KPAGECOUNT, own_pfn, &rec) ||
	    !check_ll("mapcount of our page", rec, 1))
		return CASE_FAIL;
	if (pipe(sync))
		return CASE_FAIL;
	pid = fork();
	if (pid == 0) {
		close(sync[1]);
		_exit(read(sync[0], &c, 1) == 0 ? 0 : 1);
	}
	close(sync[0]);
	ok = pid > 0 && kpage_record(KPAGECOUNT, own_pfn, &rec) &&
	     check_ll("mapcount of our page shared with a child", rec, 2);
	close(sync[1]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	ok = ok && kpage_record(KPAGECOUNT, own_pfn, &rec) &&
	     check_ll("mapcount after the child exited", rec, 1);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* Our own page: mapped, anonymous, a real page, not slab. */
static enum case_result kpageflags_own_page(enum via v)
{
	enum case_result res = need_kpage(KPAGEFLAGS);
	const __u64 mask = 1ULL << KPF_MMAP | 1ULL << KPF_ANON |
			      1ULL << KPF_NOPAGE | 1ULL << KPF_SLAB;
	__u64 rec;

	(void)v;
	if (res != CASE_PASS)
		return res;
	if (!kpage_record(KPAGEFLAGS, own_pfn, &rec))
		return CASE_FAIL;
	diag("flags of our page (PFN 0x%llx): 0x%llx", own_pfn,
	     (unsigned long long)rec);
	return check_hex("MMAP, ANON, NOPAGE, SLAB of our page", rec & mask,
			 1ULL << KPF_MMAP | 1ULL << KPF_ANON) ?
	       CASE_PASS : CASE_FAIL;
}

/*
 * The slices where the records do not change (our page's mapcount, PFN 0,
 * a reserved page), the end, the EINVAL cases; elsewhere the length.
 */
static enum case_result kpage_via(const void *file, enum via v)
{
	const char *path = file;
	enum case_result res = need_kpage(path);
	unsigned long long end;
	bool own = !strcmp(path, KPAGECOUNT);

	if (res != CASE_PASS)
		return res;
	if (!file_max_dump_pfn(path, &end))
		return CASE_FAIL;
	{
		const struct slice sl[] = {
			SL(0, KPM), SL_LEN((end - 1) * KPM, 2 * KPM),
			SL(end * KPM, KPM), SL(4, KPM), SL(0, 12),
			SL(end * KPM + 4, KPM),
			{ own_pfn * KPM, KPM, !own },
			SL_LEN(0, 4096 * KPM),
		};

		return expect_slices(v, path, O_RDONLY, sl, ARRAY_SIZE(sl)) ?
		       CASE_PASS : CASE_FAIL;
	}
}

/* ---------------------------------------------- /proc/bus/pci/<bus>/<devfn> */

/* As root: the whole config space, and every small unaligned piece of it. */
static enum case_result pci_config_matches_sysfs(enum via v)
{
	static const off_t pos[] = { 0, 1, 2, 3, 4, 0x3e };
	unsigned char want[4096], got[4096];
	struct pci_dev devs[PCI_MAX_DEVICES];
	enum case_result res;
	ssize_t wlen, glen;
	size_t p, c;
	bool ok = true;
	int i, n;

	(void)v;
	n = pci_devices(devs, PCI_MAX_DEVICES, &res);
	if (!n)
		return res;
	for (i = 0; i < n; i++) {
		diag("%s against %s", devs[i].proc, devs[i].sysfs);
		wlen = read_all(devs[i].sysfs, O_RDONLY, want, sizeof(want));
		glen = read_all(devs[i].proc, O_RDONLY, got, sizeof(got));
		if (!check_kret("size of the config space", glen, wlen) ||
		    !check_mem("config space", got, want, glen)) {
			ok = false;
			continue;
		}
		if (glen != 256 && glen != 4096) {
			diag("%s has %zd bytes, not 256 or 4096", devs[i].proc,
			     glen);
			ok = false;
		}
		for (p = 0; p < ARRAY_SIZE(pos); p++) {
			for (c = 1; c <= 4; c++) {
				int fd = open_path(devs[i].proc, O_RDONLY);

				if (fd < 0)
					return CASE_FAIL;
				ok &= expect_pread(fd, pos[p], c, want + pos[p],
						   c);
				close(fd);
			}
		}
	}
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * Without CAP_SYS_ADMIN the opener sees the standard header only: 64
 * bytes, 128 for a CardBus bridge (header type 2).
 */
static enum case_result pci_config_unprivileged_header_only(enum via v)
{
	struct pci_dev devs[PCI_MAX_DEVICES];
	unsigned char buf[4096];
	enum case_result res;
	int n, status;
	ssize_t len, want;
	pid_t pid;

	(void)v;
	n = pci_devices(devs, PCI_MAX_DEVICES, &res);
	if (!n)
		return res;
	if (read_at(devs[0].proc, O_RDONLY, 0, buf, 64) != 64)
		return CASE_FAIL;
	want = (buf[0x0e] & 0x7f) == 2 ? 128 : 64;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534)) {
			diag("setuid: %s", strerror(errno));
			_exit(2);
		}
		len = read_all(devs[0].proc, O_RDONLY, buf, sizeof(buf));
		diag("%s read as uid 65534: %zd bytes", devs[0].proc, len);
		fflush(stdout);
		_exit(len == want ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return CASE_FAIL;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ?
	       CASE_PASS : CASE_FAIL;
}

/*
 * pwrite(2) past the end of the config space writes nothing and returns
 * 0, however far past.  proc_bus_pci_write() narrowed the position to an
 * int before comparing it with the size: at 2^32 + 0x3c it wrote
 * register 0x3c, at 2^32 - 4 it handed offset -4 to the config
 * accessors.  The 6.12 series fixes it in its second patch.  A kernel
 * without that patch (the 6.1 series, a distribution's) either narrows
 * or has the fix in review upstream, which refuses positions above
 * INT_MAX with -EINVAL; there the case writes register 0x3c's own bytes
 * back at 2^32 + 0x3c, which changes nothing, takes 4 (narrowed) or
 * -EINVAL and says which, so that it still tells the kernels apart.
 * Only a host bridge (class 06/00) is written, and its config space must
 * be what it was afterwards.  On a broken kernel 2^31 and 2^31 + 0x3c
 * give a negative count, which access_ok() refuses on 64-bit; a 32-bit
 * one can write register 0x3c (restored) and the read-only register 0.
 * Reads at 2^32 are pread_2p32 of setfs_user_edges.
 */
static enum case_result pci_config_pwrite_past_end(enum via v)
{
	static const long long pos[] = {
		(1LL << 32) + 0x3c, (1LL << 32) - 4, 1LL << 31,
		(1LL << 31) + 0x3c, 1LL << 40, 4096, 65536,
	};
	static const unsigned char junk[4] = { 0x5a, 0x5a, 0x5a, 0x5a };
	bool fixed = series_applied() && kernel_at_least(6, 12);
	unsigned char before[4096], after[4096];
	struct pci_dev devs[PCI_MAX_DEVICES];
	const char *path = NULL;
	enum case_result res;
	ssize_t blen = 0, alen, ret;
	bool ok = true;
	int i, n, fd;

	(void)v;
	n = pci_devices(devs, PCI_MAX_DEVICES, &res);
	if (!n)
		return res;
	for (i = 0; i < n && !path; i++) {
		blen = read_all(devs[i].proc, O_RDONLY, before, sizeof(before));
		if (blen >= 64 && before[0x0b] == 0x06 && before[0x0a] == 0x00)
			path = devs[i].proc;
	}
	if (!path)
		return ktap_skip("no PCI host bridge (class 06/00) to write to");
	fd = open_path(path, O_WRONLY);
	if (fd < 0)
		return CASE_FAIL;
	if (!fixed) {
		errno = 0;
		ret = pwrite(fd, before + 0x3c, 4, (1LL << 32) + 0x3c);
		if (ret == 4) {
			diag("%s: this kernel narrows the position:", path);
			diag("2^32 + 0x3c wrote register 0x3c");
		} else if (ret < 0 && errno == EINVAL) {
			diag("%s: this kernel refuses 2^32 + 0x3c with EINVAL", path);
			diag("(the fix in review upstream)");
		} else {
			diag("pwrite(4 bytes at 2^32 + 0x3c) = %zd (%s), want 4 or EINVAL",
			     ret, ret < 0 ? strerror(errno) : "a count");
			ok = false;
		}
	}
	for (i = 0; fixed && i <= (int)ARRAY_SIZE(pos); i++) {
		long long at = i < (int)ARRAY_SIZE(pos) ? pos[i] : blen;

		errno = 0;
		ret = pwrite(fd, junk, sizeof(junk), at);
		if (ret != 0) {
			diag("%s: pwrite(4 bytes at %#llx) = %zd (%s), want 0",
			     path, at, ret, ret < 0 ? strerror(errno) : "a count");
			ok = false;
		}
	}
	alen = read_all(path, O_RDONLY, after, sizeof(after));
	if (!check_kret("size of the config space after", alen, blen) ||
	    !check_mem("config space after the writes", after, before, blen)) {
		ok = false;
		/* put back what a wrong write may have changed */
		if (pwrite(fd, before + 0x3c, 4, 0x3c) != 4)
			diag("could not restore register 0x3c: %s", strerror(errno));
	}
	close(fd);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result pci_config_via(enum via v)
{
	static const struct slice sl[] = {
		SL(0, 4096), SL(1, 1), SL(1, 2), SL(1, 3), SL(2, 2), SL(3, 4),
		SL(0x3e, 2), SL(0x3e, 4096), SL(255, 1), SL(256, 16),
		SL(4096, 16),
	};
	struct pci_dev devs[PCI_MAX_DEVICES];
	enum case_result res;
	bool ok = true;
	int i, n;

	n = pci_devices(devs, PCI_MAX_DEVICES, &res);
	if (!n)
		return res;
	for (i = 0; i < n; i++)
		ok &= expect_slices(v, devs[i].proc, O_RDONLY, sl,
				    ARRAY_SIZE(sl));
	return ok ? CASE_PASS : CASE_FAIL;
}

/* ------------------------------------------------------------ /proc/kmsg */

#define KMSG		"/proc/kmsg"
#define KMSG_CHUNK	65536

/*
 * Writes a new marker line to /dev/kmsg at LOG_USER/LOG_DEBUG ("<15>"),
 * which stays off the console; /proc/kmsg returns it as "<15>"
 * [timestamp] marker "\n".
 */
static bool kmsg_mark(char *marker, size_t len)
{
	static unsigned int seq;
	char line[96];

	snprintf(marker, len, "setfs-procread marker %d.%u", getpid(), ++seq);
	snprintf(line, sizeof(line), "<15>%s\n", marker);
	return write_str("/dev/kmsg", line);
}

/* Whether @buf holds the marker's record, exactly as syslog formats it. */
static bool kmsg_has(const unsigned char *buf, size_t len, const char *marker,
		     bool *bad)
{
	const char *start = (const char *)buf, *end = start + len;
	const char *hit = memmem(start, len, marker, strlen(marker));
	bool time = kconfig("PRINTK_TIME") == 'y';
	const char *line, *after;

	if (!hit)
		return false;
	for (line = hit; line > start && line[-1] != '\n'; line--)
		;
	after = hit + strlen(marker);
	if (strncmp(line, "<15>", 4) || after >= end || *after != '\n' ||
	    (time ? line[4] != '[' : hit != line + 4)) {
		diag("the marker's record is not \"<15>%s%s\\n\": \"%.*s\"",
		     time ? "[time] " : "", marker, (int)(after - line), line);
		*bad = true;
	}
	return true;
}

/*
 * Reads through @s until the marker's record turns up, at most @max
 * reads: the first read of the log gets the whole boot log.  Whether it
 * did, in @found; false on a failed read.
 */
static bool kmsg_read_to(struct stream *s, const char *marker, bool *found)
{
	unsigned char *buf = malloc(KMSG_CHUNK);
	bool bad = false;
	unsigned int i;
	ssize_t ret = 0;

	*found = false;
	for (i = 0; buf && !*found && i < 1024; i++) {
		ret = stream_read(s, -1, buf, KMSG_CHUNK);
		if (ret <= 0)
			break;
		*found = kmsg_has(buf, ret, marker, &bad);
	}
	free(buf);
	if (ret <= 0)
		diag("%s of %s before the marker: %s", via_names[s->via], KMSG,
		     ret ? errno_name(-ret) : "EOF");
	return buf && ret > 0 && !bad;
}

/*
 * Reads through @s (O_NONBLOCK) until the log is empty: EAGAIN, twice in
 * a row.  @marker, when not NULL, must not be in what is left.
 */
static bool kmsg_drain(struct stream *s, const char *marker)
{
	unsigned char *buf = malloc(KMSG_CHUNK);
	bool bad = false;
	unsigned int i;
	ssize_t ret = 0;

	for (i = 0; buf && i < 1024; i++) {
		ret = stream_read(s, -1, buf, KMSG_CHUNK);
		if (ret <= 0)
			break;
		if (marker && kmsg_has(buf, ret, marker, &bad)) {
			diag("the marker is still in the log");
			ret = 0;
			break;
		}
	}
	free(buf);
	if (!buf || !check_kret("reading the empty log with O_NONBLOCK", ret,
				-EAGAIN))
		return false;
	buf = malloc(16);
	ret = buf ? stream_read(s, -1, buf, 16) : 0;
	free(buf);
	return check_kret("reading it again", ret, -EAGAIN);
}

static enum case_result kmsg_read_marker(enum via v)
{
	enum case_result res = need_file(KMSG, NULL);
	char marker[64];
	struct stream s = STREAM_CLOSED;
	bool ok, found = false;

	(void)v;
	if (res != CASE_PASS)
		return res;
	ok = stream_open(&s, VIA_NONE, KMSG, O_RDONLY | O_NONBLOCK) &&
	     kmsg_mark(marker, sizeof(marker)) &&
	     kmsg_read_to(&s, marker, &found);
	if (ok && !found)
		diag("read(2) of %s did not return the marker", KMSG);
	stream_close(&s);
	return ok && found ? CASE_PASS : CASE_FAIL;
}

static enum case_result kmsg_nonblock_empty_eagain(enum via v)
{
	enum case_result res = need_file(KMSG, NULL);
	struct stream s = STREAM_CLOSED;
	bool ok;

	(void)v;
	if (res != CASE_PASS)
		return res;
	ok = stream_open(&s, VIA_NONE, KMSG, O_RDONLY | O_NONBLOCK) &&
	     kmsg_drain(&s, NULL);
	stream_close(&s);
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * read(2) into a buffer the kernel cannot write: with ->proc_read,
 * do_syslog() refuses NULL with EINVAL before consuming anything, while
 * an unmapped buffer fails with EFAULT after the chunk was consumed
 * (kernel/printk/printk.c: syslog_print() advances syslog_seq, then
 * copy_to_user() fails).  After the series do_syslog_read_iter() checks
 * the first byte with fault_in_iov_iter_writeable(): EFAULT for both,
 * and the marker is still in the log.
 */
/* NULL, hidden from the compiler's nonnull checks on read(2). */
static __attribute__((noipa)) void *null_ptr(void)
{
	return NULL;
}

static enum case_result kmsg_bad_buffer(enum via v)
{
	enum case_result res = need_file(KMSG, NULL);
	struct stream s = STREAM_CLOSED;
	char marker[64];
	bool ok, found = false;
	void *gone;
	ssize_t ret;
	int fd;

	(void)v;
	if (res != CASE_PASS)
		return res;
	gone = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (gone == MAP_FAILED || munmap(gone, page_size))
		return CASE_FAIL;
	ok = stream_open(&s, VIA_NONE, KMSG, O_RDONLY | O_NONBLOCK) &&
	     kmsg_drain(&s, NULL) && kmsg_mark(marker, sizeof(marker));
	fd = s.fd;
	if (ok) {
		/* read() before errno: argument order is unspecified */
		ret = read(fd, null_ptr(), 64);
		ok = check_errno("read(2) into NULL", ret, errno,
				 have_proc_read ? EINVAL : EFAULT);
	}
	if (ok) {
		ret = read(fd, gone, 64);
		ok = check_errno("read(2) into an unmapped page", ret, errno,
				 EFAULT);
	}
	if (ok && !have_proc_read) {
		ok = kmsg_read_to(&s, marker, &found);
		if (ok && !found)
			diag("a refused read consumed the marker");
		ok = ok && found;
	}
	stream_close(&s);
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * A fresh marker through @v: EINVAL and still in the log for read(2) to
 * find; or it comes through @v, and then the log is empty (EAGAIN with
 * O_NONBLOCK; kernel_read() cannot ask for that, read(2) checks).
 * splice(2) and sendfile(2) give EINVAL on every kernel: the series
 * marks /proc/kmsg PROC_ENTRY_NO_SPLICE, because kmsg_read() waits for
 * messages and splice would wait with the pipe locked.
 */
static enum case_result kmsg_via(enum via v)
{
	enum case_result res = need_file(KMSG, NULL);
	unsigned char buf[16];
	struct stream s = STREAM_CLOSED, r = STREAM_CLOSED;
	char marker[64];
	bool ok, found = false;

	if (res != CASE_PASS)
		return res;
	ok = stream_open(&r, VIA_NONE, KMSG, O_RDONLY | O_NONBLOCK) &&
	     kmsg_drain(&r, NULL) && kmsg_mark(marker, sizeof(marker)) &&
	     stream_open(&s, v, KMSG, O_RDONLY | O_NONBLOCK);
	if (ok && (have_proc_read || v != VIA_KERNEL_READ)) {
		ok = check_kret(KMSG, stream_read(&s, -1, buf, sizeof(buf)),
				-EINVAL) &&
		     kmsg_read_to(&r, marker, &found);
		if (ok && !found)
			diag("the marker is gone from the log after EINVAL");
	} else if (ok) {
		ok = kmsg_read_to(&s, marker, &found);
		if (ok && !found)
			diag("%s did not return the marker", via_names[v]);
		ok = ok && found &&
		     (v == VIA_KERNEL_READ || kmsg_drain(&s, NULL)) &&
		     kmsg_drain(&r, marker);
	}
	stream_close(&s);
	stream_close(&r);
	return ok && found ? CASE_PASS : CASE_FAIL;
}

/* --------------------------------------------------------- /proc/profile */

#define PROFILE		"/proc/profile"

/*
 * The geometry kernel/profile.c gives the file with profile=<shift> on
 * the command line: prof_len = (_etext - _stext) >> shift counters after
 * one word holding the sample step, 1 << shift.
 */
struct profile_geom {
	unsigned int shift;
	unsigned long long size;
};

static bool kallsyms_addr(const char *sym, unsigned long long *addr)
{
	char line[256], name[128], type;
	unsigned long long a;
	FILE *f;

	*addr = 0;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &a, &type, name) == 3 &&
		    !strcmp(name, sym)) {
			*addr = a;
			break;
		}
	}
	fclose(f);
	if (!*addr)
		diag("no address for %s in /proc/kallsyms", sym);
	return *addr != 0;
}

static enum case_result need_profile(struct profile_geom *g)
{
	unsigned long long stext, etext;
	static unsigned int said;
	char cmdline[1024], *p;
	ssize_t n;

	n = read_at("/proc/cmdline", O_RDONLY, 0, (void *)cmdline,
		    sizeof(cmdline) - 1);
	if (n < 0)
		return CASE_FAIL;
	cmdline[n] = '\0';
	p = strstr(cmdline, "profile=");
	if (!p || sscanf(p, "profile=%u", &g->shift) != 1) {
		if (exists(PROFILE)) {
			diag("%s exists without profile=<shift>", PROFILE);
			return CASE_FAIL;
		}
		return ktap_skip("no profile=<shift> on the kernel command line: no /proc/profile");
	}
	if (need_file(PROFILE, "PROFILING") != CASE_PASS) {
		diag("profile=%u but no %s", g->shift, PROFILE);
		return CASE_FAIL;
	}
	if (!kallsyms_addr("_stext", &stext) ||
	    !kallsyms_addr("_etext", &etext))
		return CASE_FAIL;
	g->size = (((etext - stext) >> g->shift) + 1) * sizeof(unsigned int);
	if (!said++)
		diag("profile=%u, kernel text 0x%llx bytes: %llu bytes expected",
		     g->shift, etext - stext, g->size);
	return CASE_PASS;
}

static enum case_result profile_size(enum via v)
{
	struct profile_geom g;
	enum case_result res = need_profile(&g);
	unsigned char *buf;
	struct stat st;
	ssize_t len;
	bool ok;

	(void)v;
	if (res != CASE_PASS)
		return res;
	buf = malloc(g.size + 4096);
	if (!buf || stat(PROFILE, &st)) {
		free(buf);
		return CASE_FAIL;
	}
	len = read_all_step(PROFILE, O_RDONLY, buf, g.size + 4096, 65536);
	ok = check_ll("st_size", st.st_size, g.size) &&
	     check_ll("bytes read(2) gives", len, g.size);
	free(buf);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* The first word is the step, the counters follow; nothing at and past the end. */
static enum case_result profile_pread(enum via v)
{
	struct profile_geom g;
	enum case_result res = need_profile(&g);
	unsigned int step;
	bool ok = true;
	int fd;

	(void)v;
	if (res != CASE_PASS)
		return res;
	step = 1U << g.shift;
	fd = open_path(PROFILE, O_RDONLY);
	if (fd < 0)
		return CASE_FAIL;
	ok &= expect_pread(fd, 0, sizeof(step), (void *)&step, sizeof(step));
	ok &= expect_pread(fd, 1, 3, (unsigned char *)&step + 1, 3);
	ok &= expect_pread(fd, 2, 2, (unsigned char *)&step + 2, 2);
	ok &= expect_pread(fd, 0, 0, NULL, 0);
	ok &= expect_pread(fd, g.size - 1, 16, NULL, 1);
	ok &= expect_pread(fd, g.size - 8, 16, NULL, 8);
	ok &= expect_pread(fd, g.size, 16, NULL, 0);
	ok &= expect_pread(fd, g.size + 100, 16, NULL, 0);
	ok &= check_ll("lseek SEEK_END", lseek(fd, 0, SEEK_END), g.size);
	close(fd);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* The step word exactly; the counters, which tick, by their length. */
static enum case_result profile_via(enum via v)
{
	struct profile_geom g;
	enum case_result res = need_profile(&g);

	if (res != CASE_PASS)
		return res;
	{
		const struct slice sl[] = {
			SL(0, 4), SL(1, 3), SL_LEN(0, 65536),
			SL_LEN(g.size - 1, 16), SL_LEN(g.size - 8, 16),
			SL(g.size, 16), SL(g.size + 100, 16),
		};

		return expect_slices(v, PROFILE, O_RDONLY, sl, ARRAY_SIZE(sl)) ?
		       CASE_PASS : CASE_FAIL;
	}
}

/* ----------------------------------------------------------- /proc/asound */

static enum case_result asound_text(const char *path, const char *sym,
				    const char *want)
{
	enum case_result res = need_file(path, sym);
	char got[512];
	ssize_t n;

	if (res != CASE_PASS)
		return res;
	n = read_all(path, O_RDONLY, (void *)got, sizeof(got));
	if (!check_kret(path, n, strlen(want)) ||
	    !check_mem(path, got, want, n)) {
		diag("%s: \"%.*s\"", path, (int)(n > 0 ? n : 0), got);
		return CASE_FAIL;
	}
	return CASE_PASS;
}

/* sound/core/init.c: "%2i [%-15s]: %s - %s\n" and the long name. */
static enum case_result asound_cards(enum via v)
{
	(void)v;
	return asound_text(ASOUND "/cards", "SND_DUMMY",
			   " 0 [Dummy          ]: Dummy - Dummy\n"
			   "                      Dummy 1\n");
}

/* sound/core/info.c: snd_info_version_read(). */
static enum case_result asound_version(enum via v)
{
	char want[160];
	struct utsname u;

	(void)v;
	if (uname(&u))
		return CASE_FAIL;
	snprintf(want, sizeof(want),
		 "Advanced Linux Sound Architecture Driver Version k%s.\n",
		 u.release);
	return asound_text(ASOUND "/version", "SND", want);
}

/*
 * Every readable entry gives through @v what read(2) gives, on every
 * kernel: they all read through seq_read_iter() since part 1.  An entry
 * on the binary path (SNDRV_INFO_CONTENT_DATA) would fail here with
 * EINVAL while struct proc_ops has ->proc_read; snd-dummy has none.
 */
static enum case_result asound_entries_via(enum via v)
{
	enum case_result res = need_file(ASOUND, "SND");
	unsigned char *want = malloc(65536), *got = malloc(65536);
	struct asound_entry *paths = calloc(ASOUND_MAX, sizeof(*paths));
	ssize_t wlen, glen;
	bool ok = want && got && paths;
	int i, n = 0;

	if (res != CASE_PASS || !ok)
		goto out;
	asound_walk(ASOUND, paths, &n);
	diag("%d readable entries under %s", n, ASOUND);
	ok = n > 0;
	for (i = 0; i < n; i++) {
		if (v == VIA_SPLICE)
			diag("%s", paths[i].path);
		wlen = read_all(paths[i].path, O_RDONLY, want, 65536);
		glen = via_read(v, paths[i].path, O_RDONLY, 0, got, 65536);
		/*
		 * Text entries: seq_read_iter since part 1 of the series;
		 * a kernel without it (setfs_series=none) still has
		 * ->proc_read = seq_read there, so EINVAL.
		 */
		if (!series_applied() || via_refused(v, paths[i].path)) {
			if (!check_kret(paths[i].path, glen, -EINVAL))
				ok = false;
			continue;
		}
		if (!check_kret(paths[i].path, glen, wlen) ||
		    (glen > 0 && !check_mem(paths[i].path, got, want, glen)))
			ok = false;
	}
out:
	free(want);
	free(got);
	free(paths);
	if (res != CASE_PASS)
		return res;
	return ok ? CASE_PASS : CASE_FAIL;
}

/* ------------------------------------------------ /proc/net/rpc, lockd */

#define RPC		"/proc/net/rpc"
#define GSS_PROXY	RPC "/use-gss-proxy"
#define NLM_END_GRACE	"/proc/fs/lockd/nlm_end_grace"
#define RPC_MAX		16

/* The caches' files named @leaf ("channel", "flush"); 0 and a skip if none. */
static int rpc_files(const char *leaf, char (*paths)[96], enum case_result *res)
{
	char pattern[64];
	glob_t g;
	size_t i;
	int n = 0;

	*res = need_file(RPC, "SUNRPC");
	if (*res != CASE_PASS)
		return 0;
	snprintf(pattern, sizeof(pattern), RPC "/*/%s", leaf);
	if (glob(pattern, 0, NULL, &g)) {
		diag("no %s: sunrpc registers auth.unix.ip and auth.unix.gid",
		     pattern);
		*res = CASE_FAIL;
		return 0;
	}
	for (i = 0; i < g.gl_pathc && n < RPC_MAX; i++)
		snprintf(paths[n++], sizeof(paths[0]), "%s", g.gl_pathv[i]);
	globfree(&g);
	return n;
}

/* cache_read() with no upcall pending: 0, whatever the count. */
static enum case_result rpc_channel_empty(enum via v)
{
	char paths[RPC_MAX][96];
	unsigned char buf[64];
	enum case_result res;
	bool ok = true;
	int i, n;

	(void)v;
	n = rpc_files("channel", paths, &res);
	if (!n)
		return res;
	for (i = 0; i < n; i++) {
		diag("%s", paths[i]);
		ok &= check_kret(paths[i],
				 read_at(paths[i], O_RDONLY, -1, buf, sizeof(buf)),
				 0);
	}
	return ok ? CASE_PASS : CASE_FAIL;
}

/* The slices @sl of every cache's @leaf file, through @v. */
static enum case_result rpc_files_via(const char *leaf, enum via v,
				      const struct slice *sl, size_t nsl)
{
	char paths[RPC_MAX][96];
	enum case_result res;
	bool ok = true;
	int i, n;

	n = rpc_files(leaf, paths, &res);
	if (!n)
		return res;
	for (i = 0; i < n; i++)
		ok &= expect_slices(v, paths[i], O_RDONLY, sl, nsl);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result rpc_channel_via(enum via v)
{
	static const struct slice sl[] = { SL(-1, 64) };

	return rpc_files_via("channel", v, sl, ARRAY_SIZE(sl));
}

/* "%llu\n" exactly; the number in @val. */
static bool rpc_flush_value(const char *path, unsigned long long *val)
{
	char buf[32], nl;
	ssize_t n;

	n = read_at(path, O_RDONLY, -1, (void *)buf, sizeof(buf) - 1);
	if (n <= 0)
		diag("read %s: %s", path, n ? errno_name(-n) : "EOF");
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (sscanf(buf, "%llu%c", val, &nl) != 2 || nl != '\n' ||
	    buf[n - 1] != '\n' || strchr(buf, '\n') != buf + n - 1 ||
	    buf[0] < '0' || buf[0] > '9') {
		diag("%s: \"%s\" is not \"%%llu\\n\"", path, buf);
		return false;
	}
	return true;
}

/*
 * getboottime64()'s seconds: CLOCK_REALTIME - CLOCK_BOOTTIME, between
 * two samples of the realtime clock.
 */
static void boot_seconds(long long *lo, long long *hi)
{
	struct timespec r1, b, r2;

	clock_gettime(CLOCK_REALTIME, &r1);
	clock_gettime(CLOCK_BOOTTIME, &b);
	clock_gettime(CLOCK_REALTIME, &r2);
	*lo = (r1.tv_sec * 1000000000LL + r1.tv_nsec -
	       (b.tv_sec * 1000000000LL + b.tv_nsec)) / 1000000000LL;
	*hi = (r2.tv_sec * 1000000000LL + r2.tv_nsec -
	       (b.tv_sec * 1000000000LL + b.tv_nsec)) / 1000000000LL;
}

/*
 * read_flush(): convert_to_wallclock(flush_time), the boot time in
 * seconds while nothing was flushed (flush_time 0); pread is ESPIPE
 * (nonseekable_open()).
 */
static enum case_result rpc_flush_read(enum via v)
{
	char paths[RPC_MAX][96];
	unsigned long long val;
	unsigned char c;
	enum case_result res;
	long long lo, hi;
	bool ok = true;
	int i, n;

	(void)v;
	n = rpc_files("flush", paths, &res);
	if (!n)
		return res;
	boot_seconds(&lo, &hi);
	for (i = 0; i < n; i++) {
		if (!rpc_flush_value(paths[i], &val)) {
			ok = false;
			continue;
		}
		diag("%s: %llu, booted at %lld", paths[i], val, lo);
		if ((long long)val != lo && (long long)val != hi) {
			diag("%s is not the boot time (was it flushed before?)",
			     paths[i]);
			ok = false;
		}
		ok &= check_kret("pread", read_at(paths[i], O_RDONLY, 0, &c, 1),
				 -ESPIPE);
	}
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * write_flush() sets flush_time to now (seconds since boot), or one more
 * than it was: the file then reads max(now, before + 1) in wall-clock
 * seconds.  Runs after rpc_flush_read and the *_via cases of flush.
 */
static enum case_result rpc_flush_write(enum via v)
{
	char paths[RPC_MAX][96];
	unsigned long long before, after, lo, hi;
	enum case_result res;
	time_t t0, t1;
	bool ok = true;
	int i, n;

	(void)v;
	n = rpc_files("flush", paths, &res);
	if (!n)
		return res;
	for (i = 0; i < n; i++) {
		if (!rpc_flush_value(paths[i], &before))
			return CASE_FAIL;
		t0 = time(NULL);
		if (!write_str(paths[i], "1\n"))
			return CASE_FAIL;
		t1 = time(NULL);
		if (!rpc_flush_value(paths[i], &after))
			return CASE_FAIL;
		lo = (unsigned long long)t0;
		hi = (unsigned long long)t1;
		if (lo < before + 1)
			lo = before + 1;
		if (hi < before + 1)
			hi = before + 1;
		if (after < lo || after > hi) {
			diag("%s after the flush: %llu, expected %llu..%llu",
			     paths[i], after, lo, hi);
			ok = false;
		}
	}
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result rpc_flush_via(enum via v)
{
	static const struct slice sl[] = { SL(-1, 64), SL(-1, 3) };

	return rpc_files_via("flush", v, sl, ARRAY_SIZE(sl));
}

/*
 * read_gssp(): "%d\n" of use_gss_proxy, -1 until gssproxy writes 1 (6.1
 * does not wait for it); a nonseekable_open() file.
 */
static enum case_result rpc_use_gss_proxy_read(enum via v)
{
	enum case_result res = need_file(GSS_PROXY, "SUNRPC_GSS");
	unsigned char buf[16];
	bool ok;

	(void)v;
	if (res != CASE_PASS)
		return res;
	ok = check_kret("read(2)", read_at(GSS_PROXY, O_RDONLY, -1, buf,
					   sizeof(buf)), 3) &&
	     check_mem("read(2)", buf, "-1\n", 3) &&
	     check_kret("read(2) of 2 bytes",
			read_at(GSS_PROXY, O_RDONLY, -1, buf, 2), 2) &&
	     check_mem("read(2) of 2 bytes", buf, "-1", 2) &&
	     check_kret("pread", read_at(GSS_PROXY, O_RDONLY, 0, buf, 3),
			-ESPIPE);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result rpc_use_gss_proxy_via(enum via v)
{
	static const struct slice sl[] = { SL(-1, 16), SL(-1, 1) };
	enum case_result res = need_file(GSS_PROXY, "SUNRPC_GSS");

	if (res != CASE_PASS)
		return res;
	return expect_slices(v, GSS_PROXY, O_RDONLY, sl, ARRAY_SIZE(sl)) ?
	       CASE_PASS : CASE_FAIL;
}

/*
 * nlm_end_grace_read(): 'Y' while lockd has no grace period running (no
 * NFS mount started it), then '\n' and, as sizeof(resp) says, the NUL.
 */
static enum case_result lockd_nlm_end_grace_read(enum via v)
{
	enum case_result res = need_file(NLM_END_GRACE, "LOCKD");
	static const unsigned char want[] = "Y\n";
	bool ok = true;
	int fd;

	(void)v;
	if (res != CASE_PASS)
		return res;
	fd = open_path(NLM_END_GRACE, O_RDONLY);
	if (fd < 0)
		return CASE_FAIL;
	ok &= expect_pread(fd, 0, 64, want, 3);
	ok &= expect_pread(fd, 1, 64, want + 1, 2);
	ok &= expect_pread(fd, 2, 1, want + 2, 1);
	ok &= expect_pread(fd, 3, 64, NULL, 0);
	close(fd);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result lockd_nlm_end_grace_via(enum via v)
{
	static const struct slice sl[] = {
		SL(0, 64), SL(1, 1), SL(2, 64), SL(3, 64), SL(-1, 64),
	};
	enum case_result res = need_file(NLM_END_GRACE, "LOCKD");

	if (res != CASE_PASS)
		return res;
	return expect_slices(v, NLM_END_GRACE, O_RDONLY, sl, ARRAY_SIZE(sl)) ?
	       CASE_PASS : CASE_FAIL;
}

/* ---------------------------------------------------------- samples/kfifo */

/*
 * The modules of samples/kfifo (CONFIG_SAMPLE_KFIFO=m), installed under
 * /lib/modules.  Each runs its self test at load time and then serves a
 * fifo through /proc: a write queues what fits, a read dequeues.
 */
/* One write(2) or read(2) on a fresh open and what it must return. */
struct fifo_op {
	bool write;
	const char *data;	/* written, or expected (NULL: ignore) */
	size_t count;
	ssize_t ret;
};

#define FW(d, c, r)	{ true, (d), (c), (r) }
#define FR(d, c, r)	{ false, (d), (c), (r) }

/* 256 bytes of letters and digits, filled in by the group's setup. */
static char fifo_bytes[256];

struct kfifo_sample {
	const char *module;	/* name for delete_module() */
	const char *ko;
	const char *proc;
	/* The *_read_write case: its steps, in order. */
	const struct fifo_op *ops;
	size_t nops;
};

/* 32 bytes (FIFO_SIZE); a write takes what fits, a read what is there. */
static const struct fifo_op bytestream_ops[] = {
	FR(NULL, 100, 0),
	FW(fifo_bytes, 40, 32), FW(fifo_bytes, 1, 0),
	FR(fifo_bytes, 100, 32), FR(NULL, 100, 0),
	FW("hello", 5, 5), FR("he", 2, 2), FR("llo", 100, 3),
	FR(NULL, 1, 0),
};

static const struct kfifo_sample kfifo_bytestream = {
	"bytestream_example", "bytestream-example.ko", "/proc/bytestream-fifo",
	bytestream_ops, ARRAY_SIZE(bytestream_ops),
};

/* 32 ints: counts are rounded down to whole ints, both ways. */
static const struct fifo_op int_ops[] = {
	FR(NULL, 100, 0),
	FW(fifo_bytes, 10, 8), FW(fifo_bytes, 3, 0),
	FR(fifo_bytes, 6, 4), FR(NULL, 3, 0), FR(fifo_bytes + 4, 100, 4),
	FW(fifo_bytes, 200, 128), FR(fifo_bytes, 200, 128),
	FR(NULL, 100, 0),
};

static const struct kfifo_sample kfifo_int = {
	"inttype_example", "inttype-example.ko", "/proc/int-fifo",
	int_ops, ARRAY_SIZE(int_ops),
};

/*
 * 128 bytes of records with a 1-byte length: a write is one record or
 * nothing; a read returns one record, cut to the count (the rest of it
 * is dropped).
 */
static const struct fifo_op record_ops[] = {
	FR(NULL, 100, 0),
	FW(fifo_bytes, 200, 0),
	FW("abc", 3, 3), FW("defgh", 5, 5),
	FR("ab", 2, 2), FR("defgh", 100, 5), FR(NULL, 100, 0),
	FW(fifo_bytes, 127, 127), FW("x", 1, 0),
	FR(fifo_bytes, 200, 127), FR(NULL, 100, 0),
};

static const struct kfifo_sample kfifo_record = {
	"record_example", "record-example.ko", "/proc/record-fifo",
	record_ops, ARRAY_SIZE(record_ops),
};

static enum case_result kfifo_load(const struct kfifo_sample *k)
{
	char path[192];
	struct utsname u;
	int fd;

	if (kconfig("SAMPLE_KFIFO") != 'm')
		return ktap_skip("CONFIG_SAMPLE_KFIFO is not m: no kfifo sample modules");
	if (uname(&u))
		return CASE_FAIL;
	snprintf(path, sizeof(path), "/lib/modules/%s/kernel/samples/kfifo/%s",
		 u.release, k->ko);
	fd = open_path(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return CASE_FAIL;
	if (syscall(SYS_finit_module, fd, "", 0)) {
		diag("finit_module %s: %s", path, strerror(errno));
		close(fd);
		return CASE_FAIL;
	}
	close(fd);
	return exists(k->proc) ? CASE_PASS : CASE_FAIL;
}

static bool kfifo_unload(const struct kfifo_sample *k)
{
	if (syscall(SYS_delete_module, k->module, O_NONBLOCK)) {
		diag("delete_module %s: %s", k->module, strerror(errno));
		return false;
	}
	if (exists(k->proc)) {
		diag("%s is still there after rmmod", k->proc);
		return false;
	}
	return true;
}

static bool fifo_ops(const char *path, const struct fifo_op *ops, size_t n)
{
	unsigned char buf[512];
	char what[96];
	ssize_t ret;
	size_t i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = open_path(path, ops[i].write ? O_WRONLY : O_RDONLY);
		if (fd < 0)
			return false;
		ret = ops[i].write ? write(fd, ops[i].data, ops[i].count) :
				     read(fd, buf, ops[i].count);
		if (ret < 0)
			ret = -errno;
		close(fd);
		snprintf(what, sizeof(what), "step %zu: %s of %zu bytes", i + 1,
			 ops[i].write ? "write" : "read", ops[i].count);
		if (!check_kret(what, ret, ops[i].ret) ||
		    (!ops[i].write && ret > 0 && ops[i].data &&
		     !check_mem(what, buf, ops[i].data, ret)))
			return false;
	}
	return true;
}

/* The sample's steps (k->ops) between loading and unloading it. */
static enum case_result kfifo_read_write(const void *sample, enum via v)
{
	const struct kfifo_sample *k = sample;
	enum case_result res = kfifo_load(k);
	bool ok;

	(void)v;
	if (res != CASE_PASS)
		return res;
	ok = fifo_ops(k->proc, k->ops, k->nops);
	ok &= kfifo_unload(k);
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * @v takes from the fifo exactly what one read(2) of @count would; with
 * ->proc_read it fails with EINVAL and takes nothing, which the read(2)
 * steps of @after_einval then find.
 */
static enum case_result kfifo_via(enum via v, const struct kfifo_sample *k,
				  const struct fifo_op *fill, size_t nfill,
				  const char *want, ssize_t wlen,
				  const struct fifo_op *after, size_t nafter,
				  const struct fifo_op *after_einval,
				  size_t nafter_einval)
{
	enum case_result res = kfifo_load(k);
	unsigned char buf[256];
	ssize_t got;
	bool ok;

	if (res != CASE_PASS)
		return res;
	ok = fifo_ops(k->proc, fill, nfill);
	if (ok) {
		got = via_read(v, k->proc, O_RDONLY, -1, buf, 64);
		ok = expect_via(k->proc, k->proc, v, got, buf,
				(const void *)want, wlen);
	}
	if (ok && via_refused(v, k->proc))
		ok = fifo_ops(k->proc, after_einval, nafter_einval);
	else if (ok)
		ok = fifo_ops(k->proc, after, nafter);
	ok &= kfifo_unload(k);
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result kfifo_bytestream_via(enum via v)
{
	static const struct fifo_op fill[] = { FW("setfs-bytestream", 16, 16) };
	static const struct fifo_op after[] = { FR(NULL, 100, 0) };
	static const struct fifo_op einval[] = {
		FR("setfs-bytestream", 100, 16), FR(NULL, 100, 0),
	};

	return kfifo_via(v, &kfifo_bytestream, fill, ARRAY_SIZE(fill),
			 "setfs-bytestream", 16, after, ARRAY_SIZE(after),
			 einval, ARRAY_SIZE(einval));
}

static enum case_result kfifo_int_via(enum via v)
{
	static const struct fifo_op fill[] = { FW(fifo_bytes, 10, 8) };
	static const struct fifo_op after[] = { FR(NULL, 100, 0) };
	static const struct fifo_op einval[] = {
		FR(fifo_bytes, 100, 8), FR(NULL, 100, 0),
	};

	return kfifo_via(v, &kfifo_int, fill, ARRAY_SIZE(fill), fifo_bytes, 8,
			 after, ARRAY_SIZE(after), einval, ARRAY_SIZE(einval));
}

/*
 * splice and kernel_read() make one ->proc_read_iter call: one record.
 * sendfile loops (splice_direct_to_actor()) until a read returns 0: all.
 */
static enum case_result kfifo_record_via(enum via v)
{
	static const struct fifo_op fill[] = {
		FW("abc", 3, 3), FW("defgh", 5, 5),
	};
	static const struct fifo_op after_one[] = {
		FR("defgh", 100, 5), FR(NULL, 100, 0),
	};
	static const struct fifo_op after_all[] = { FR(NULL, 100, 0) };
	static const struct fifo_op einval[] = {
		FR("abc", 100, 3), FR("defgh", 100, 5), FR(NULL, 100, 0),
	};

	if (v == VIA_SENDFILE)
		return kfifo_via(v, &kfifo_record, fill, ARRAY_SIZE(fill),
				 "abcdefgh", 8, after_all,
				 ARRAY_SIZE(after_all), einval,
				 ARRAY_SIZE(einval));
	return kfifo_via(v, &kfifo_record, fill, ARRAY_SIZE(fill), "abc", 3,
			 after_one, ARRAY_SIZE(after_one), einval,
			 ARRAY_SIZE(einval));
}

/* ------------------------------------------------------------ powerpc64 */

#define SYSTEMCFG	"/proc/ppc64/systemcfg"
#define DT_RTAS		"/sys/firmware/devicetree/base/rtas/"
#define RTAS_DIR	"/proc/powerpc/rtas/"
#define ERROR_LOG	RTAS_DIR "error_log"

/* The start of struct vdso_arch_data (arch/powerpc/include/asm/vdso_datapage.h). */
struct systemcfg {
	__u8 eye_catcher[16];
	__u32 major, minor;
	__u32 platform;
	__u32 processor;
	__u64 processor_count;
	__u64 physical_memory_size;
	__u64 tb_orig_stamp;
	__u64 tb_ticks_per_sec;
};

/* A big-endian u32 device-tree property, or -1. */
static long long dt_u32(const char *path)
{
	unsigned char b[4];

	if (read_at(path, O_RDONLY, 0, b, 4) != 4)
		return -1;
	return (long long)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
}

/* /proc/cpuinfo: processors, the timebase and the PVR of the first CPU. */
static bool cpuinfo_ppc(unsigned long long *cpus, unsigned long long *tb,
			unsigned long long *pvr)
{
	unsigned int hi, lo;
	char line[256], *p;
	FILE *f;

	*cpus = *tb = *pvr = 0;
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "processor", 9))
			(*cpus)++;
		if (!strncmp(line, "timebase", 8))
			sscanf(line, "timebase : %llu", tb);
		p = strstr(line, "(pvr ");
		if (p && !*pvr && sscanf(p, "(pvr %x %x)", &hi, &lo) == 2)
			*pvr = (unsigned long long)hi << 16 | lo;
	}
	fclose(f);
	if (!*cpus || !*tb || !*pvr)
		diag("/proc/cpuinfo: %llu processors, timebase %llu, pvr 0x%llx",
		     *cpus, *tb, *pvr);
	return *cpus && *tb && *pvr;
}

/*
 * page_map_read() serves the vDSO data page, PAGE_SIZE bytes, whose start
 * is the old systemcfg layout that vdso_init() and setup fill in.
 */
static enum case_result ppc64_systemcfg_read(enum via v)
{
	enum case_result res = need_kconfig("PPC64");
	unsigned long long cpus, tb, pvr, ram_end, ram;
	unsigned char *buf = NULL;
	struct systemcfg cfg;
	bool ok = false, lpar;
	struct stat st;
	ssize_t len;
	int fd;

	(void)v;
	if (res == CASE_PASS)
		res = need_file(SYSTEMCFG, NULL);
	if (res != CASE_PASS)
		return res;
	if (!cpuinfo_ppc(&cpus, &tb, &pvr) || !iomem_ram(&ram_end, &ram))
		return CASE_FAIL;
	buf = malloc(2 * page_size);
	if (!buf || stat(SYSTEMCFG, &st))
		goto out;
	len = read_all(SYSTEMCFG, O_RDONLY, buf, 2 * page_size);
	if (!check_ll("st_size", st.st_size, page_size) ||
	    !check_ll("bytes read(2) gives", len, page_size))
		goto out;
	memcpy(&cfg, buf, sizeof(cfg));
	lpar = exists(DT_RTAS "ibm,hypertas-functions");
	ok = check_mem("eye catcher", cfg.eye_catcher, "SYSTEMCFG:PPC64", 16) &&
	     check_ll("version.major", cfg.major, 1) &&
	     check_ll("version.minor", cfg.minor, 1) &&
	     check_hex("platform (0x100, | 1 under a hypervisor)",
		       cfg.platform, 0x100 | lpar) &&
	     check_hex("processor (the PVR)", cfg.processor, pvr) &&
	     check_ll("processorCount", cfg.processor_count, cpus) &&
	     check_ll("physicalMemorySize (System RAM)",
		      cfg.physical_memory_size, ram) &&
	     check_ll("tb_ticks_per_sec (cpuinfo timebase)",
		      cfg.tb_ticks_per_sec, tb);
	fd = open_path(SYSTEMCFG, O_RDONLY);
	if (fd < 0)
		goto out;
	ok &= expect_pread(fd, page_size - 1, 16, buf + page_size - 1, 1);
	ok &= expect_pread(fd, page_size, 16, NULL, 0);
	ok &= check_ll("lseek SEEK_END", lseek(fd, 0, SEEK_END), page_size);
	close(fd);
out:
	free(buf);
	return ok ? CASE_PASS : CASE_FAIL;
}

/* The systemcfg header and the zeroed tail do not change; the time data does. */
static enum case_result ppc64_systemcfg_via(enum via v)
{
	enum case_result res = need_kconfig("PPC64");

	if (res == CASE_PASS)
		res = need_file(SYSTEMCFG, NULL);
	if (res != CASE_PASS)
		return res;
	{
		const struct slice sl[] = {
			SL(0, 0x30), SL(0x38, 8), SL(0x60, 16),
			SL_LEN(0, page_size + 100), SL(page_size - 64, 128),
			SL(page_size, 16),
		};

		return expect_slices(v, SYSTEMCFG, O_RDONLY, sl, ARRAY_SIZE(sl)) ?
		       CASE_PASS : CASE_FAIL;
	}
}

/*
 * rtas_flash.c: the files exist only when RTAS has
 * ibm,update-flash-64-and-reboot; each status starts at -1099 (no
 * operation), or -9002 when its own RTAS call is missing.
 */
struct rtas_flash_file {
	const char *name;
	const char *rtas_call;
	const char *text;	/* for firmware_flash, else "%d\n" */
};

static const struct rtas_flash_file rtas_flash_files[] = {
	{ "firmware_flash", "ibm,update-flash-64-and-reboot",
	  "info: no firmware image for flash\n" },
	{ "firmware_update", "ibm,update-flash-64-and-reboot", NULL },
	{ "validate_flash", "ibm,validate-flash-image", NULL },
	{ "manage_flash", "ibm,manage-flash-image", NULL },
};

static enum case_result need_rtas_flash(void)
{
	enum case_result res = need_kconfig("PPC_RTAS");
	bool files = exists(RTAS_DIR "firmware_flash");

	if (res != CASE_PASS)
		return res;
	if (kconfig("RTAS_FLASH") != 'y' ||
	    !exists(DT_RTAS "ibm,update-flash-64-and-reboot")) {
		if (files) {
			diag("%sfirmware_flash exists, but rtas_flash_init() fails here",
			     RTAS_DIR);
			return CASE_FAIL;
		}
		return ktap_skip(kconfig("RTAS_FLASH") != 'y' ?
				 "CONFIG_RTAS_FLASH is not set" :
				 "RTAS has no ibm,update-flash-64-and-reboot (QEMU does not flash): rtas_flash_init() creates no files");
	}
	if (!files)
		diag("no %sfirmware_flash although RTAS can flash", RTAS_DIR);
	return files ? CASE_PASS : CASE_FAIL;
}

static enum case_result rtas_flash_read(enum via v)
{
	enum case_result res = need_rtas_flash();
	char path[96], want[64], got[128];
	const struct rtas_flash_file *f;
	bool ok = true;
	ssize_t n;
	size_t i;

	(void)v;
	if (res != CASE_PASS)
		return res;
	for (i = 0; i < ARRAY_SIZE(rtas_flash_files); i++) {
		f = &rtas_flash_files[i];
		snprintf(path, sizeof(path), RTAS_DIR "%s", f->name);
		if (f->text) {
			snprintf(want, sizeof(want), "%s", f->text);
		} else {
			char prop[128];

			snprintf(prop, sizeof(prop), DT_RTAS "%s", f->rtas_call);
			snprintf(want, sizeof(want), "%d\n",
				 exists(prop) ? -1099 : -9002);
		}
		n = read_all(path, O_RDONLY, (void *)got, sizeof(got));
		if (!check_kret(path, n, strlen(want)) ||
		    !check_mem(path, got, want, n)) {
			diag("%s: \"%.*s\"", path, (int)(n > 0 ? n : 0), got);
			ok = false;
		}
	}
	return ok ? CASE_PASS : CASE_FAIL;
}

static enum case_result rtas_flash_via(enum via v)
{
	static const struct slice sl[] = { SL(0, 128), SL(2, 128), SL(64, 8) };
	enum case_result res = need_rtas_flash();
	char path[96];
	bool ok = true;
	size_t i;

	if (res != CASE_PASS)
		return res;
	for (i = 0; i < ARRAY_SIZE(rtas_flash_files); i++) {
		snprintf(path, sizeof(path), RTAS_DIR "%s",
			 rtas_flash_files[i].name);
		ok &= expect_slices(v, path, O_RDONLY, sl, ARRAY_SIZE(sl));
	}
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * rtasd.c: rtas_log_read() wants room for a whole record
 * (rtas-error-log-max + 4 bytes) or fails with EINVAL; with nothing
 * logged and O_NONBLOCK it fails with EAGAIN.  Events logged at boot
 * are read (and consumed) first.
 */
static enum case_result need_error_log(size_t *rec)
{
	enum case_result res = need_kconfig("PPC_RTAS_DAEMON");
	long long max;

	if (res != CASE_PASS)
		return res;
	if (!exists(DT_RTAS "event-scan") ||
	    !exists(DT_RTAS "rtas-event-scan-rate")) {
		if (exists(ERROR_LOG)) {
			diag("%s exists without event-scan", ERROR_LOG);
			return CASE_FAIL;
		}
		return ktap_skip("RTAS has no event-scan: rtasd creates no error_log");
	}
	max = dt_u32(DT_RTAS "rtas-error-log-max");
	if (max <= 0 || max > 2048)	/* RTAS_ERROR_LOG_MAX */
		max = 2048;
	*rec = max + sizeof(int);
	return need_file(ERROR_LOG, NULL);
}

/* read(2) first, then errno: argument order is unspecified in C. */
static bool rtas_read_errno(int fd, void *buf, size_t count, const char *what,
			    int want)
{
	ssize_t ret = read(fd, buf, count);

	return check_errno(what, ret, errno, want);
}

static enum case_result rtas_error_log_read(enum via v)
{
	enum case_result res;
	unsigned char *buf;
	bool ok = true;
	ssize_t ret;
	size_t rec;
	int fd, i;

	(void)v;
	res = need_error_log(&rec);
	if (res != CASE_PASS)
		return res;
	buf = malloc(2 * rec);
	fd = open_path(ERROR_LOG, O_RDONLY | O_NONBLOCK);
	if (!buf || fd < 0)
		ok = false;
	for (i = 0; ok && i < 64; i++) {
		ret = read(fd, buf, 2 * rec);
		if (ret < 0)
			break;
		ok = check_ll("a logged event", ret, rec);
	}
	if (ok) {
		ok = check_errno("read(2) with nothing logged", ret, errno,
				 EAGAIN) &&
		     rtas_read_errno(fd, buf, 1, "read(2) of one byte",
				     EINVAL) &&
		     rtas_read_errno(fd, buf, rec - 1,
				     "read(2) of one byte less than a record",
				     EINVAL) &&
		     /*
		      * rtasd.c: ->proc_read refuses NULL with EINVAL; the
		      * series' fault_in_iov_iter_writeable() check gives
		      * EFAULT, before anything is consumed.
		      */
		     rtas_read_errno(fd, null_ptr(), 2 * rec, "read(2) into NULL",
				     have_proc_read ? EINVAL : EFAULT);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return ok ? CASE_PASS : CASE_FAIL;
}

/*
 * Too small a buffer: EINVAL on every kernel.  With a big one and nothing
 * logged, splice(2) and sendfile(2) give EINVAL on every kernel too: the
 * series marks error_log PROC_ENTRY_NO_SPLICE, as rtas_log_read() waits
 * for events (kernel_read() would wait as well: not tried).
 */
static enum case_result rtas_error_log_via(enum via v)
{
	enum case_result res;
	unsigned char buf[16];
	size_t rec;
	bool ok;

	res = need_error_log(&rec);
	if (res != CASE_PASS)
		return res;
	ok = check_kret("one byte", via_read(v, ERROR_LOG, O_RDONLY | O_NONBLOCK,
					     -1, buf, 1), -EINVAL);
	if (v != VIA_KERNEL_READ) {
		unsigned char *big = malloc(65536);

		ok &= big && check_kret(ERROR_LOG " with nothing logged",
					via_read(v, ERROR_LOG,
						 O_RDONLY | O_NONBLOCK, -1,
						 big, 65536), -EINVAL);
		free(big);
	}
	return ok ? CASE_PASS : CASE_FAIL;
}

/* ------------------------------------------------------------- the table */

/*
 * A case: @run gets @via, which is VIA_NONE for the read(2) checks and
 * the path under test in the *_splice, *_sendfile and *_kernel_read rows.
 * Cases shared by several files (the /proc/kpage* files, the kfifo
 * samples) have @run_on instead, which gets @arg, the file, as well.
 */
struct procread_case {
	const char *name;
	enum case_result (*run)(enum via v);
	enum via via;
	enum case_result (*run_on)(const void *arg, enum via v);
	const void *arg;
};

/*
 * The table is written in sets of up to three rows (KTAP_TABLE_SETS()),
 * each macro below one set.
 */
#define ROW(n, fn, v)		{ .name = n, .run = fn, .via = v }
#define ROW_ON(n, fn, a, v)	{ .name = n, .run_on = fn, .arg = a, .via = v }
#define CASE(n, fn)		{ ROW(n, fn, VIA_NONE) }
#define CASE_ON(n, fn, a)	{ ROW_ON(n, fn, a, VIA_NONE) }
/*
 * The three paths into the kernel every file is read through, in order:
 * cases f_splice, f_sendfile and f_kernel_read of f_via().
 */
#define VIAS(f) {							\
	ROW(#f "_splice", f##_via, VIA_SPLICE),				\
	ROW(#f "_sendfile", f##_via, VIA_SENDFILE),			\
	ROW(#f "_kernel_read", f##_via, VIA_KERNEL_READ) }
/* The cases every /proc/kpage* file has; kpagecount and kpageflags add one. */
#define KPAGE_CASES(f) {						\
	ROW_ON(#f "_ends_at_max_pfn", kpage_ends_at_max_pfn, "/proc/" #f, \
	       VIA_NONE),						\
	ROW_ON(#f "_alignment", kpage_alignment, "/proc/" #f, VIA_NONE) }
#define KPAGE_VIAS(f) {							\
	ROW_ON(#f "_splice", kpage_via, "/proc/" #f, VIA_SPLICE),	\
	ROW_ON(#f "_sendfile", kpage_via, "/proc/" #f, VIA_SENDFILE),	\
	ROW_ON(#f "_kernel_read", kpage_via, "/proc/" #f, VIA_KERNEL_READ) }

static const struct procread_case procread_cases[][3] = {
	CASE("proc_ops_read_flag", proc_ops_read_flag),
	CASE("config_gz_size_and_magic", config_gz_size_and_magic),
	CASE("config_gz_is_kernel_config", config_gz_is_kernel_config),
	CASE("config_gz_pread_offsets", config_gz_pread_offsets),
	VIAS(config_gz),
	KPAGE_CASES(kpagecount),
	CASE("kpagecount_own_page", kpagecount_own_page),
	KPAGE_VIAS(kpagecount),
	KPAGE_CASES(kpageflags),
	CASE("kpageflags_own_page", kpageflags_own_page),
	KPAGE_VIAS(kpageflags),
	KPAGE_CASES(kpagecgroup),
	KPAGE_VIAS(kpagecgroup),
	CASE("pci_config_matches_sysfs", pci_config_matches_sysfs),
	CASE("pci_config_unprivileged_header_only",
	     pci_config_unprivileged_header_only),
	CASE("pci_config_pwrite_past_end", pci_config_pwrite_past_end),
	VIAS(pci_config),
	CASE("kmsg_read_marker", kmsg_read_marker),
	CASE("kmsg_nonblock_empty_eagain", kmsg_nonblock_empty_eagain),
	CASE("kmsg_bad_buffer", kmsg_bad_buffer),
	VIAS(kmsg),
	CASE("profile_size", profile_size),
	CASE("profile_pread", profile_pread),
	VIAS(profile),
	CASE("asound_cards", asound_cards),
	CASE("asound_version", asound_version),
	VIAS(asound_entries),
	CASE("rpc_channel_empty", rpc_channel_empty),
	VIAS(rpc_channel),
	CASE("rpc_flush_read", rpc_flush_read),
	VIAS(rpc_flush),
	CASE("rpc_flush_write", rpc_flush_write),
	CASE("rpc_use_gss_proxy_read", rpc_use_gss_proxy_read),
	VIAS(rpc_use_gss_proxy),
	CASE("lockd_nlm_end_grace_read", lockd_nlm_end_grace_read),
	VIAS(lockd_nlm_end_grace),
	CASE_ON("kfifo_bytestream_read_write", kfifo_read_write, &kfifo_bytestream),
	VIAS(kfifo_bytestream),
	CASE_ON("kfifo_int_read_write", kfifo_read_write, &kfifo_int),
	VIAS(kfifo_int),
	CASE_ON("kfifo_record_read_write", kfifo_read_write, &kfifo_record),
	VIAS(kfifo_record),
	CASE("ppc64_systemcfg_read", ppc64_systemcfg_read),
	VIAS(ppc64_systemcfg),
	CASE("rtas_flash_read", rtas_flash_read),
	VIAS(rtas_flash),
	CASE("rtas_error_log_read", rtas_error_log_read),
	VIAS(rtas_error_log),
};

/* Every case under an alarm: a read that blocks fails instead of hanging. */
static enum case_result run_procread_case(const void *row)
{
	const struct procread_case *c = row;
	enum case_result res;

	alarm(CASE_TIMEOUT);
	res = c->run_on ? c->run_on(c->arg, c->via) : c->run(c->via);
	if (alarm(0) == 0 && res != CASE_SKIP)
		diag("the case ran into its %d s alarm", CASE_TIMEOUT);
	return res;
}

static const char *procread_setup(void)
{
	static const char alnum[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	struct sigaction sa = { .sa_handler = on_alarm };
	struct setfs_ctl_info info;
	size_t i;

	if (!ctl_info(&info))
		return "SETFS_IOC_INFO failed";
	have_proc_read = info.flags & SETFS_INFO_PROC_OPS_READ;
	page_size = info.page_size;
	if (page_size != (size_t)sysconf(_SC_PAGESIZE))
		return "the module's PAGE_SIZE is not the page size";
	for (i = 0; i < sizeof(fifo_bytes); i++)
		fifo_bytes[i] = alnum[i % (sizeof(alnum) - 1)];
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL))	/* no SA_RESTART: reads see EINTR */
		return "sigaction(SIGALRM) failed";
	if (!own_page_map())
		return "cannot map a page and find its PFN in /proc/self/pagemap";
	return NULL;
}

static void procread_teardown(void)
{
	signal(SIGALRM, SIG_DFL);
	if (own_page)
		munmap(own_page, page_size);
	own_page = NULL;
}

KTAP_GROUP(procread_group) = {
	.name = "setfs_user_procread",
	.order = 110,
	KTAP_TABLES(KTAP_TABLE_SETS(procread_cases, run_procread_case)),
	.setup = procread_setup,
	.teardown = procread_teardown,
};
