# SPDX-License-Identifier: GPL-2.0
"""The guest protocol, host side: what rootfs/init and setfs_user print on
the console, and what the harness puts on the kernel command line
(harness/kinds.py).  Each
constant names the place on the guest side that must say the same; the
guest side's list is in rootfs/init's header comment."""

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
# setfs_mode=list (kunit --list_tests): "SUITE" and "SUITE.CASE" lines
LIST_BEGIN = "SETFS-LIST-BEGIN"
LIST_END_PREFIX = "SETFS-LIST-END rc="

# A "builtin" target (harness/record.py KINDS) has no init: the kernel's
# KUnit executor prints the KTAP on the console, and kunit_shutdown=
# poweroff ends the run with this line of kernel/reboot.c
# kernel_power_off() ("reboot: " is its pr_fmt).  It is the builtin
# kind's KTAP_END; there is no taint line (no user space to read it).
BUILTIN_END = "reboot: Power down"

# Kernel command-line words harness/kinds.py sets (TreeKind.qemu(); the
# soak's in core.SOAK_QUICK; records add more through guest.cmdline),
# and where the guest reads each.
CMDLINE_KEYS = {
    "setfs_mode": "rootfs/init (test, shell, bench, series)",
    "setfs_halt": "rootfs/init (reboot or poweroff)",
    "setfs_filter": "rootfs/init selected(), setfs_user ktap_set_filter()",
    "setfs_target": "rootfs/user_paging.c (names the target in a diagnostic)",
    "setfs_paging": "rootfs/user_paging.c",
    "setfs_task_size_max": "rootfs/user_paging.c",
    "setfs_fuzz_ops": "rootfs/user_fuzz.c (--soak quick)",
    "setfs_race_iterations": "rootfs/user_race.c (--soak quick)",
    "setfs_unload_cycles": "rootfs/user_unload.c (--soak quick)",
    "setfs_unload_module_cycles": "rootfs/user_unload.c (--soak quick)",
    "setfs_load": "rootfs/init (guest.cmdline of x86_64-debian: modprobe)",
    "setfs_series": "rootfs/init, setfs_user series_applied() (x86_64-debian: none)",
    "setfs_case_timeout": "rootfs/ktap.c ktap_case_timeout() (a third of --timeout)",
    "setfs_kunit_peers": "rootfs/init (the base's peer KUnit modules and suites: "
                         "bases/<base>.toml peers)",
    "setfs_pci": "rootfs/setfs_user.c pci_devices() (guest.cmdline of the x86_64 "
                 "records: required, no device is a failure)",
}

# Suites that run in user space (setfs_user's groups, init's own); the
# others are KUnit suites run in the kernel.
USER_SUITE_PREFIXES = ("setfs_user_", "setfs_guest", "setfs_selftest_")

# A kernel report on the console that fails the target whatever the
# results say.
SPLAT_RE = re.compile(
    r"Kernel panic|Oops|BUG:|WARNING: CPU:|Call Trace:|"
    r"general protection fault|UBSAN:|KASAN:|KFENCE:|"
    r"possible recursive locking|circular locking dependency|"
    # kernel/rcu/tree_stall.h; riscv's and ARM's backtraces that follow
    # have no "Call Trace:" line
    r"rcu: INFO: rcu_\w+ (?:self-)?detected stalls? on CPU")
