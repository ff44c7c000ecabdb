// SPDX-License-Identifier: GPL-2.0
/*
 * setfs_user_procfiles: the proc files whose proc_ops kernel-patches/
 * converts from ".proc_read = seq_read" to ".proc_read_iter =
 * seq_read_iter".  For each: read(2) works, splice(2) into a pipe and
 * sendfile(2) into a tmpfs file return the bytes read(2) returned (for
 * files whose content does not change between two reads), and
 * kernel_read() through the probe's control device succeeds.  Without the
 * series, splice, sendfile and kernel_read() fail with EINVAL on all of
 * them: that is what a distribution kernel without the series (the
 * kernel command line says setfs_series=none) must show, and does.
 *
 * The table is the data: adding a file is adding a row.  Not here:
 * /proc/irq/prof_cpu_mask, whose proc_ops the series converts, but which
 * nothing creates in 6.1 (create_prof_cpu_mask() has no caller).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "setfs_user.h"

#define PROCFILE_MAX	(4 << 20)	/* larger than any file in the table */

#define STABLE(n, p, o)		{ .name = n, .path = p, .ops = o, .stable = true }
#define CHANGING(n, p, o)	{ .name = n, .path = p, .ops = o }

const struct procfile_row procfile_rows[] = {
	STABLE("kallsyms", "/proc/kallsyms", "kallsyms_proc_ops"),
	STABLE("modules", "/proc/modules", "modules_proc_ops"),
	CHANGING("slabinfo", "/proc/slabinfo", "slabinfo_proc_ops"),
	STABLE("swaps", "/proc/swaps", "swaps_proc_ops"),
	STABLE("sysvipc_msg", "/proc/sysvipc/msg", "sysvipc_proc_ops"),
	STABLE("sysvipc_sem", "/proc/sysvipc/sem", "sysvipc_proc_ops"),
	STABLE("sysvipc_shm", "/proc/sysvipc/shm", "sysvipc_proc_ops"),
	CHANGING("pressure_cpu", "/proc/pressure/cpu", "psi_cpu_proc_ops"),
	CHANGING("pressure_io", "/proc/pressure/io", "psi_io_proc_ops"),
	CHANGING("pressure_memory", "/proc/pressure/memory",
		 "psi_memory_proc_ops"),
	STABLE("irq_default_smp_affinity", "/proc/irq/default_smp_affinity",
	       "default_affinity_proc_ops"),
	STABLE("irq_smp_affinity", "/proc/irq/[0-9]*/smp_affinity",
	       "irq_affinity_proc_ops"),
	STABLE("irq_smp_affinity_list", "/proc/irq/[0-9]*/smp_affinity_list",
	       "irq_affinity_list_proc_ops"),
	STABLE("dynamic_debug_control", "/proc/dynamic_debug/control",
	       "proc_fops"),
	STABLE("net_dev", "/proc/net/dev", "proc_net_seq_ops"),
	STABLE("net_unix", "/proc/net/unix", "proc_net_seq_ops"),
	STABLE("net_protocols", "/proc/net/protocols", "proc_net_seq_ops"),
	STABLE("net_ptype", "/proc/net/ptype", "proc_net_seq_ops"),
	STABLE("net_packet", "/proc/net/packet", "proc_net_seq_ops"),
	STABLE("net_sockstat", "/proc/net/sockstat", "proc_net_single_ops"),
	CHANGING("net_snmp", "/proc/net/snmp", "proc_net_single_ops"),
	{ .name = "net_ipconfig_ntp_servers",
	  .path = "/proc/net/ipconfig/ntp_servers",
	  .ops = "ntp_servers_proc_ops (DEFINE_PROC_SHOW_ATTRIBUTE)",
	  .stable = true, .may_be_empty = true, .kconfig = "IP_PNP" },
	{ .name = "net_pktgen_pgctrl", .path = "/proc/net/pktgen/pgctrl",
	  .ops = "pktgen_proc_ops", .stable = true,
	  .kconfig = "NET_PKTGEN" },
	/* the cache's entries; sunrpc registers auth.unix.ip itself */
	{ .name = "net_rpc_auth_unix_ip_content",
	  .path = "/proc/net/rpc/auth.unix.ip/content",
	  .ops = "content_proc_ops", .stable = true, .kconfig = "SUNRPC" },
	{ .name = "bus_input_devices", .path = "/proc/bus/input/devices",
	  .ops = "input_devices_proc_ops", .stable = true,
	  .may_be_empty = true },
	{ .name = "bus_input_handlers", .path = "/proc/bus/input/handlers",
	  .ops = "input_handlers_proc_ops", .stable = true,
	  .may_be_empty = true },
	{ .name = "mdstat", .path = "/proc/mdstat", .ops = "mdstat_proc_ops",
	  .stable = true, .kconfig = "BLK_DEV_MD" },
	{ .name = "scsi_scsi", .path = "/proc/scsi/scsi",
	  .ops = "scsi_scsi_proc_ops", .stable = true, .may_be_empty = true,
	  .kconfig = "SCSI_PROC_FS" },
	{ .name = "scsi_device_info", .path = "/proc/scsi/device_info",
	  .ops = "scsi_devinfo_proc_ops", .stable = true,
	  .kconfig = "SCSI_PROC_FS" },
	{ .name = "acpi_wakeup", .path = "/proc/acpi/wakeup",
	  .ops = "acpi_system_wakeup_device_proc_ops", .stable = true,
	  .kconfig = "ACPI_SLEEP" },
	{ .name = "mtrr", .path = "/proc/mtrr", .ops = "mtrr_proc_ops",
	  .stable = true, .may_be_empty = true, .kconfig = "MTRR" },
	/* pseries only: arch/powerpc/platforms/pseries/lparcfg.c, rtas-proc.c */
	{ .name = "powerpc_lparcfg", .path = "/proc/powerpc/lparcfg",
	  .ops = "lparcfg_proc_ops", .kconfig = "LPARCFG" },
	{ .name = "powerpc_rtas_progress", .path = "/proc/powerpc/rtas/progress",
	  .ops = "ppc_rtas_progress_proc_ops", .stable = true,
	  .may_be_empty = true, .kconfig = "RTAS_PROC" },
	{ .name = "powerpc_rtas_clock", .path = "/proc/powerpc/rtas/clock",
	  .ops = "ppc_rtas_clock_proc_ops", .kconfig = "RTAS_PROC" },
	{ .name = "powerpc_rtas_poweron", .path = "/proc/powerpc/rtas/poweron",
	  .ops = "ppc_rtas_poweron_proc_ops", .stable = true,
	  .kconfig = "RTAS_PROC" },
	{ .name = "powerpc_rtas_frequency",
	  .path = "/proc/powerpc/rtas/frequency",
	  .ops = "ppc_rtas_tone_freq_proc_ops", .stable = true,
	  .kconfig = "RTAS_PROC" },
	{ .name = "powerpc_rtas_volume", .path = "/proc/powerpc/rtas/volume",
	  .ops = "ppc_rtas_tone_volume_proc_ops", .stable = true,
	  .kconfig = "RTAS_PROC" },
};

const unsigned int procfile_nrows = ARRAY_SIZE(procfile_rows);

/* All of the file by splice(2) into a pipe, drained as it fills. */
static ssize_t splice_all(const char *path, unsigned char *buf, size_t max)
{
	int fd, pfd[2] = { -1, -1 };
	size_t got = 0;
	ssize_t ret, n;

	fd = open_path(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (pipe(pfd)) {
		close(fd);
		return -1;
	}
	while ((ret = splice(fd, NULL, pfd[1], NULL, 4096, 0)) > 0) {
		n = drain_pipe(pfd[0], buf + got, max - got);
		if (n != ret) {
			diag("drained %zd of %zd spliced bytes", n, ret);
			ret = -1;
			errno = EIO;
			break;
		}
		got += n;
	}
	if (ret < 0)
		diag("splice %s: %s", path, errno_name(errno));
	close(pfd[0]);
	close(pfd[1]);
	close(fd);
	return ret < 0 ? -1 : (ssize_t)got;
}

/* All of the file by sendfile(2) into a tmpfs file, then read back. */
static ssize_t sendfile_all(const char *path, unsigned char *buf, size_t max)
{
	char tmp[] = "/tmp/setfs_procfile.XXXXXX";
	ssize_t ret, got = -1;
	size_t total = 0;
	int in, out;

	in = open_path(path, O_RDONLY);
	if (in < 0)
		return -1;
	out = mkstemp(tmp);
	if (out < 0) {
		diag("mkstemp: %s", strerror(errno));
		close(in);
		return -1;
	}
	unlink(tmp);
	while ((ret = sendfile(out, in, NULL, 65536)) > 0)
		total += ret;
	if (ret < 0) {
		diag("sendfile %s: %s", path, errno_name(errno));
	} else if (total > max) {
		diag("sendfile gave %zu bytes, more than %zu", total, max);
	} else {
		got = pread(out, buf, total, 0);
		if (got != (ssize_t)total) {
			diag("read back %zd of %zu bytes", got, total);
			got = -1;
		}
	}
	close(out);
	close(in);
	return got;
}

/* The first bytes by kernel_read() in the control device's context. */
static ssize_t kernel_read_start(const char *path, unsigned char *buf,
				 size_t count)
{
	struct setfs_ctl_rw rw = { 0 };

	if ((size_t)snprintf(rw.path, sizeof(rw.path), "%s", path) >=
	    sizeof(rw.path)) {
		diag("path %s is longer than the ioctl takes", path);
		return -1;
	}
	rw.buf = (unsigned long)buf;
	rw.count = count;
	if (!ctl_call(SETFS_IOC_KERNEL_READ, &rw, "SETFS_IOC_KERNEL_READ"))
		return -1;
	if (rw.open_ret) {
		diag("filp_open %s: %s", path, errno_name((int)-rw.open_ret));
		return -1;
	}
	if (rw.ret < 0) {
		diag("kernel_read %s: %s", path, errno_name((int)-rw.ret));
		return -1;
	}
	if (rw.pos != rw.ret) {
		diag("kernel_read returned %lld but moved pos to %lld",
		     (long long)rw.ret, (long long)rw.pos);
		return -1;
	}
	return rw.ret;
}

/* splice(2) and sendfile(2) from @path fail with EINVAL. */
static bool refuses_splice(const char *path)
{
	int fd, out, pfd[2];
	bool ok = true;
	ssize_t ret;

	fd = open_path(path, O_RDONLY);
	if (fd < 0)
		return false;
	if (pipe(pfd)) {
		close(fd);
		return false;
	}
	ret = splice(fd, NULL, pfd[1], NULL, 4096, 0);
	ok &= check_errno("splice", ret, errno, EINVAL);
	close(pfd[0]);
	close(pfd[1]);
	out = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	if (out < 0) {
		diag("O_TMPFILE: %s", strerror(errno));
		close(fd);
		return false;
	}
	ret = sendfile(out, fd, NULL, 65536);
	ok &= check_errno("sendfile", ret, errno, EINVAL);
	close(out);
	close(fd);
	return ok;
}

/* Without the series: splice, sendfile and kernel_read() give EINVAL. */
static enum case_result run_procfile_unconverted(const char *path)
{
	struct setfs_ctl_rw rw = { 0 };
	bool ok = refuses_splice(path);

	snprintf(rw.path, sizeof(rw.path), "%s", path);
	rw.buf = (unsigned long)&rw;
	rw.count = 1;
	if (!ctl_call(SETFS_IOC_KERNEL_READ, &rw, "SETFS_IOC_KERNEL_READ"))
		return CASE_FAIL;
	if (rw.open_ret || rw.ret != -EINVAL) {
		diag("kernel_read: open %lld, read %lld; want -EINVAL",
		     (long long)rw.open_ret, (long long)rw.ret);
		ok = false;
	}
	return ok ? CASE_PASS : CASE_FAIL;
}

static bool same_bytes(const char *how, const unsigned char *got, ssize_t n,
		       const unsigned char *want, ssize_t wn)
{
	if (n != wn) {
		diag("%s gave %zd bytes, read(2) %zd", how, n, wn);
		return false;
	}
	return check_mem(how, got, want, n);
}

static enum case_result run_procfile(const void *data)
{
	const struct procfile_row *r = data;
	unsigned char *want = NULL, *got = NULL;
	enum case_result res = CASE_FAIL;
	ssize_t wn, n;
	char path[256];

	res = procfile_locate(r, path, sizeof(path));
	if (res != CASE_PASS)
		return res;
	res = CASE_FAIL;
	diag("%s: %s", path, r->ops);
	if (!series_applied())
		return run_procfile_unconverted(path);
	want = malloc(PROCFILE_MAX);
	got = malloc(PROCFILE_MAX);
	if (!want || !got)
		goto out;

	wn = read_all(path, O_RDONLY, want, PROCFILE_MAX);
	if (wn == PROCFILE_MAX)
		diag("%s is larger than the %d bytes read", path, PROCFILE_MAX);
	if (wn < 0 || wn == PROCFILE_MAX || (wn == 0 && !r->may_be_empty)) {
		diag("read(2) of %s gave %zd bytes", path, wn);
		goto out;
	}

	/*
	 * With the 6.12 series none of these files asks for splice
	 * (PROC_ENTRY_ITER_WHOLE): they refuse it as their seq_read did.
	 */
	if (proc_reads_as_read(path)) {
		if (!refuses_splice(path))
			goto out;
	} else {
		n = splice_all(path, got, PROCFILE_MAX);
		if (n < 0 ||
		    (r->stable && !same_bytes("splice", got, n, want, wn)))
			goto out;

		n = sendfile_all(path, got, PROCFILE_MAX);
		if (n < 0 ||
		    (r->stable && !same_bytes("sendfile", got, n, want, wn)))
			goto out;
	}

	/*
	 * One kernel_read() call: seq_read_iter() returns at most what one
	 * seq_file buffer holds, so the result is a prefix of the file.  A
	 * changing file may have grown since read(2) (lparcfg's counters
	 * gained a digit: 384 bytes of a 383-byte file, ppc64le CI).
	 */
	n = kernel_read_start(path, got, SETFS_CTL_RW_MAX);
	if (n < 0)
		goto out;
	if ((n == 0 && wn > 0) || (r->stable && n > wn)) {
		diag("kernel_read gave %zd bytes of a %zd-byte file", n, wn);
		goto out;
	}
	if (r->stable && !check_mem("kernel_read", got, want, n))
		goto out;
	res = CASE_PASS;
out:
	free(want);
	free(got);
	return res;
}

KTAP_GROUP(procfiles_group) = {
	.name = "setfs_user_procfiles",
	.order = 100,
	KTAP_TABLES(KTAP_TABLE(procfile_rows, run_procfile)),
};
