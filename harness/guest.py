# SPDX-License-Identifier: GPL-2.0
"""The guest protocol, host side: what rootfs/init and setfs_user print on
the console, and what run.sh puts on the kernel command line.  Each
constant names the place on the guest side that must say the same."""

import re

# rootfs/init: the merged KTAP document of a test run, between two lines.
KTAP_BEGIN = "SETFS-KTAP-BEGIN"
KTAP_END = "SETFS-KTAP-END"

# rootfs/init, last line of a test run: /proc/sys/kernel/tainted.
TAINT_PREFIX = "setfs-init: tainted="
# Taints a run may have: O (out-of-tree module, 4096), E (unsigned
# module, 8192) and N (KUnit test, 262144).
TAINT_ALLOWED = 4096 | 8192 | 262144

# rootfs/ktap.c ktap_run_group() and rootfs/init time_line(): seconds a
# part of the run took, a top-level KTAP diagnostic.
TIME_PREFIX = "# setfs-time: "

# rootfs/init, setfs_mode=bench and setfs_mode=series.
BENCH_BEGIN = "SETFS-BENCH-BEGIN"
BENCH_END_PREFIX = "SETFS-BENCH-END rc="
SERIES_BEGIN = "SETFS-SERIES-BEGIN"
SERIES_END_PREFIX = "SETFS-SERIES-END rc="

# Suites that run in user space (setfs_user's groups, init's own); the
# others are KUnit suites run in the kernel.
USER_SUITE_PREFIXES = ("setfs_user_", "setfs_guest", "setfs_selftest_")

# A kernel report on the console that fails the target whatever the
# results say.
SPLAT_RE = re.compile(
    r"Kernel panic|Oops|BUG:|WARNING: CPU:|Call Trace:|"
    r"general protection fault|UBSAN:|KASAN:|KFENCE:|"
    r"possible recursive locking|circular locking dependency")
