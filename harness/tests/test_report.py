# SPDX-License-Identifier: GPL-2.0
"""harness.report on recorded console logs, kunit_tool_test.py-style.

logs/*.console.log.gz are the consoles of the five targets of one full
./run.sh test run (full soak, no filter), of armv7 and riscv64 from
"./run.sh kunit --arch armv7,riscv64" without kernel-patches/uaccess/
(the kernel bugs it fixes fail cases there), of riscv64-nommu, a
"builtin" target whose console is the kernel's alone, and of arm64
(quick soak; the cases RECORDED_FAILING names fail there).  The other cases are those logs
edited the way a broken run looks: a failing case, a splat, a hang, a
crash, a bad taint, no taint line, a filter that selects nothing, KTAP
that kunit.py cannot parse.  They need only the tree's
tools/testing/kunit/: the prepared tree's ($SETFS_TREE, else the default
base's ~/.cache/setfs-probe/BASE/linux), else that directory taken from
the base's tarball.
"""

import atexit
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

from harness import base, guest, report

LOGS = os.path.join(os.path.dirname(__file__), "logs")
TREE = os.environ.get("SETFS_TREE") or os.path.join(
    os.environ.get("SETFS_CACHE") or os.path.expanduser("~/.cache/setfs-probe"),
    base.select().name, "linux")

# What each recorded run reported (passed, failed, skipped) and its
# KUnit / user split, as run.sh printed it then.
RECORDED = {
    "x86_64": ((2356, 0, 43), (368, 0, 1), (1988, 0, 42)),
    "x86_64-la57": ((2356, 0, 43), (368, 0, 1), (1988, 0, 42)),
    "ppc64le": ((2418, 0, 34), (367, 0, 2), (2051, 0, 32)),
    "x86_64-debug": ((2356, 0, 43), (368, 0, 1), (1988, 0, 42)),
    "x86_64-debian": ((2278, 0, 57), (0, 0, 7), (2278, 0, 50)),
}


# The two opt-in targets (issue 16), one "./run.sh kunit" run each (quick
# soak: the same cases): what they report, and the cases that fail because
# of the kernel bugs docs/targets.md names (the uaccess cover letters describe them).
RECORDED_FAILING = {
    "armv7": ((2217, 5, 59), (367, 0, 2), (1850, 5, 57), [
        "setfs_user_uaccess.copy_from_user_partial_before_unmapped",
        "setfs_user_uaccess.clear_user_2g_from_page_0",
        "setfs_user_uaccess.file_write_partial_before_unmapped",
        "setfs_user_uaccess.file_write_256_with_40_before_unmapped",
        "setfs_user_fuzz.fuzz_ctl_ioctl"]),
    "riscv64": ((2204, 2, 59), (367, 0, 2), (1837, 2, 57), [
        "setfs_user_uaccess.file_write_256_with_40_before_unmapped",
        "setfs_user_uaccess.file_read_256_with_40_before_unmapped"]),
    # the record that showed a target is a record and a config fragment
    # (issue 15), from the Python harness: the user binary lacks arm64's
    # facts in rootfs/arch.h, and cortex-a57 has no PAN
    "arm64": ((2198, 12, 59), (370, 0, 3), (1828, 12, 56), [
        "setfs_user_paging.mmap_without_hint_below_2_47",
        "setfs_user_paging.mmap_hint_above_2_47",
        "setfs_user_nofault.get_kernel_nofault_null_erange",
        "setfs_user_nofault.copy_from_kernel_nofault_null_erange",
        "setfs_user_nofault.get_kernel_nofault_user_address_erange",
        "setfs_user_nofault.copy_from_kernel_nofault_user_address_erange",
        "setfs_user_nofault.get_kernel_nofault_task_size_max_erange",
        "setfs_user_nofault.get_kernel_nofault_end_of_user_guard_page_erange",
        "setfs_user_procread.kpagecount_ends_at_max_pfn",
        "setfs_user_procread.kpageflags_ends_at_max_pfn",
        "setfs_user_procread.kpagecgroup_ends_at_max_pfn",
        "setfs_user_fuzz.fuzz_ctl_ioctl"]),
}


# riscv64-nommu (kind "builtin"): the raw kernel console, KTAP from KUnit's
# executor and no init ("./run.sh kunit --arch riscv64-nommu").  All KUnit.
RECORDED_BUILTIN = {
    "riscv64-nommu": ((367, 0, 16), (367, 0, 16), (0, 0, 0)),
}


def console(name):
    with gzip.open(os.path.join(LOGS, name + ".console.log.gz"), "rt") as fh:
        return [line.rstrip("\n").replace("\r", "") for line in fh]


def replace_once(lines, old, new):
    out, done = [], False
    for line in lines:
        if not done and line == old:
            out.append(new)
            done = True
        else:
            out.append(line)
    if not done:
        raise AssertionError(f"no line {old!r} in the recorded log")
    return out


_EXTRACTED = []


def kunit_tree():
    """A tree with tools/testing/kunit/, all the parser needs: the prepared
    one, else that directory alone from the default base's tarball (once
    per run; about 15 s), else None."""
    if os.path.isfile(os.path.join(TREE, "tools/testing/kunit/kunit_parser.py")):
        return TREE
    if not _EXTRACTED:
        b = base.select()
        if not os.path.isfile(b.tarball):
            return None
        d = tempfile.mkdtemp(prefix="setfs-kunit-")
        atexit.register(shutil.rmtree, d, True)
        subprocess.run(["tar", "-xJf", b.tarball, "-C", d, "--wildcards",
                        f"{b.directory}/tools/testing/kunit/*"], check=True)
        _EXTRACTED.append(os.path.join(d, b.directory))
    return _EXTRACTED[0]


class ReportTest(unittest.TestCase):
    tree = ""

    @classmethod
    def setUpClass(cls):
        cls.tree = kunit_tree()
        if not cls.tree:
            raise unittest.SkipTest(f"no prepared tree at {TREE} and no tarball "
                                    f"{base.select().tarball} (apt-get install "
                                    f"{base.select().package})")

    def check_recorded(self, name, total, kunit, user, failing):
        """What the recorded console of @name reports; failing: the cases."""
        rep = report.report(console(name), self.tree)
        self.assertIsNone(rep.guest_error)
        self.assertEqual((rep.passed, rep.failed, rep.skipped), total)
        self.assertEqual(rep.kunit, kunit)
        self.assertEqual(rep.user, user)
        self.assertEqual(rep.problems, [])
        self.assertEqual(rep.failed_cases, failing)
        self.assertEqual(rep.taint & ~report.guest.TAINT_ALLOWED, 0)
        return rep

    def test_recorded_runs(self):
        for name, (total, kunit, user) in RECORDED.items():
            with self.subTest(target=name):
                rep = self.check_recorded(name, total, kunit, user, [])
                self.assertIn("setfs_user_edges", [t[0] for t in rep.times])
                self.assertEqual(sum(s[1] for s in rep.suites), rep.passed)

    def test_recorded_runs_with_kernel_bugs(self):
        for name, (total, kunit, user, failing) in RECORDED_FAILING.items():
            with self.subTest(target=name):
                self.check_recorded(name, total, kunit, user, failing)

    def test_recorded_builtin(self):
        for name, (total, kunit, user) in RECORDED_BUILTIN.items():
            with self.subTest(target=name):
                rep = report.report(console(name), self.tree, kind="builtin")
                self.assertIsNone(rep.guest_error)
                self.assertEqual((rep.passed, rep.failed, rep.skipped), total)
                self.assertEqual((rep.kunit, rep.user), (kunit, user))
                self.assertEqual((rep.problems, rep.failed_cases), ([], []))
                self.assertIsNone(rep.taint)
                self.assertEqual(rep.ktap[0], "KTAP version 1")
                self.assertIn("sysctl_test", [s[0] for s in rep.suites])

    def test_builtin_failure_hang_crash_splat(self):
        lines = console("riscv64-nommu")
        failed = replace_once(lines, "    ok 1 sysctl_test_api_dointvec_null_tbl_data",
                              "    not ok 1 sysctl_test_api_dointvec_null_tbl_data")
        rep = report.report(failed, self.tree, kind="builtin")
        self.assertEqual(rep.failed_cases,
                         ["sysctl_test.sysctl_test_api_dointvec_null_tbl_data"])
        end = lines.index(report.guest.BUILTIN_END)
        rep = report.report(lines[:end], self.tree, kind="builtin")
        self.assertEqual(rep.guest_error,
                         "the guest stopped before reporting its results")
        rep = report.report(lines[:end // 2] + ["Oops - load access fault [#1]"],
                            self.tree, kind="builtin")
        self.assertEqual(rep.guest_error, "the guest crashed before reporting")
        splat = lines[:end] + ["WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x4"] + lines[end:]
        rep = report.report(splat, self.tree, kind="builtin")
        self.assertIn("the console shows a kernel splat:", rep.problems)
        self.assertEqual(rep.failed, 1)
        # A tree target's console is not read the builtin way, nor back.
        self.assertIsNotNone(report.report(lines, self.tree).guest_error)

    def test_failing_case_is_named(self):
        lines = replace_once(console("x86_64"), "    ok 1 insmod_setfs_probe",
                             "    not ok 1 insmod_setfs_probe")
        rep = report.report(lines, self.tree)
        self.assertEqual((rep.passed, rep.failed), (2355, 1))
        self.assertEqual(rep.failed_cases, ["setfs_guest.insmod_setfs_probe"])

    def test_splat_fails_the_target(self):
        lines = console("x86_64-debug")
        i = lines.index(report.guest.KTAP_BEGIN)
        lines[i:i] = ["BUG: KASAN: slab-out-of-bounds in setfs_read+0x1c/0x40"]
        rep = report.report(lines, self.tree)
        self.assertEqual(rep.passed, 2356)
        self.assertEqual(rep.failed, 1)
        self.assertEqual(rep.splat[0][1],
                         "BUG: KASAN: slab-out-of-bounds in setfs_read+0x1c/0x40")
        self.assertIn("the console shows a kernel splat:", rep.problems)

    def test_rcu_stall_fails_the_target(self):
        # 6.12 riscv64, usercopy_kunit under TCG with a second guest
        # running: the backtrace that follows has no "Call Trace:"
        lines = console("x86_64")
        i = lines.index(report.guest.KTAP_BEGIN)
        lines[i:i] = ["rcu: INFO: rcu_sched self-detected stall on CPU",
                      "epc : check_zeroed_user+0x66/0xa0"]
        rep = report.report(lines, self.tree)
        self.assertEqual(rep.splat[0][1],
                         "rcu: INFO: rcu_sched self-detected stall on CPU")
        self.assertIn("the console shows a kernel splat:", rep.problems)

    def test_hang_and_crash(self):
        lines = console("ppc64le")
        cut = lines[:lines.index(report.guest.KTAP_END) - 100]
        rep = report.report(cut, self.tree)
        self.assertEqual(rep.guest_error,
                         "the guest stopped before reporting its results")
        rep = report.report(cut + ["Kernel panic - not syncing: Fatal exception"], self.tree)
        self.assertEqual(rep.guest_error, "the guest crashed before reporting")

    def test_taint(self):
        lines = console("x86_64")
        taint = [l for l in lines if l.startswith(report.guest.TAINT_PREFIX)][-1]
        value = int(taint[len(report.guest.TAINT_PREFIX):])
        bad = replace_once(lines, taint, report.guest.TAINT_PREFIX + str(value | 512))
        rep = report.report(bad, self.tree)
        self.assertEqual(rep.problems,
                         [f"the kernel is tainted {value | 512} (more than O, E and N)"])
        self.assertEqual(rep.failed, 1)
        rep = report.report([l for l in lines if l != taint], self.tree)
        self.assertEqual(rep.problems, ["the guest did not report its taint"])

    def test_filter_that_selects_nothing(self):
        lines = ["boot", report.guest.KTAP_BEGIN, "KTAP version 1", "1..0",
                 report.guest.KTAP_END, report.guest.TAINT_PREFIX + "4096"]
        rep = report.report(lines, self.tree, filt="nosuchsuite")
        self.assertEqual(rep.problems[0], "the filter 'nosuchsuite' selected no test")
        self.assertGreaterEqual(rep.failed, 1)

    def test_unparsable_ktap(self):
        lines = ["boot", report.guest.KTAP_BEGIN, "KTAP version 1", "1..3",
                 "ok 1 setfs_guest", report.guest.KTAP_END,
                 report.guest.TAINT_PREFIX + "4096"]
        rep = report.report(lines, self.tree)
        self.assertIn("kunit.py found errors in the KTAP (see above)", rep.problems)

    def test_main_writes_what_run_sh_reads(self):
        with tempfile.TemporaryDirectory() as work:
            with open(os.path.join(work, "console.log"), "w") as fh:
                fh.writelines(l + "\n" for l in console("x86_64-la57"))
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                rc = report.main(["--tree", self.tree, "--name", "x86_64-la57",
                                  "--work", work])
            self.assertEqual(rc, 0)
            with open(os.path.join(work, "report.txt")) as fh:
                got = fh.read().splitlines()
            self.assertEqual(got[:4], ["passed=2356", "failed=0", "skipped=43",
                                       "split=368 0 1 1988 0 42"])
            self.assertIn("==== x86_64-la57: KTAP ====", out.getvalue())
            self.assertIn("    setfs_user_edges", out.getvalue())
            self.assertEqual(err.getvalue(), "")
            with open(os.path.join(work, "console.log"), "w") as fh:
                fh.write("no results here\n")
            with redirect_stdout(io.StringIO()):
                rc = report.main(["--tree", self.tree, "--name", "t", "--work", work])
            self.assertEqual(rc, report.NO_REPORT)
            with open(os.path.join(work, "report.txt")) as fh:
                self.assertEqual(fh.read(), "guest_error=the guest stopped "
                                 "before reporting its results\n")

    def test_raw_output_and_json_metadata(self):
        """kunit.py's --raw_output (kunit: the KTAP alone; all: the whole
        console, no parsed view) and --json (the target as arch)."""
        with tempfile.TemporaryDirectory() as work:
            lines = console("x86_64-la57")
            with open(os.path.join(work, "console.log"), "w") as fh:
                fh.writelines(l + "\n" for l in lines)
            shown = {}
            for raw in ("", "kunit", "all"):
                out = io.StringIO()
                with redirect_stdout(out), redirect_stderr(io.StringIO()):
                    rep = report.present("x86_64-la57", work, self.tree, raw=raw,
                                         build_dir="/b/x86_64")
                shown[raw] = out.getvalue()
            self.assertIn("parsed by tools/testing/kunit/kunit.py", shown[""])
            for raw in ("kunit", "all"):
                self.assertNotIn("parsed by", shown[raw])
            self.assertIn("==== x86_64-la57: KTAP ====", shown["kunit"])
            self.assertIn(lines[0] + "\n", shown["all"])
            self.assertIn(guest.KTAP_BEGIN + "\n", shown["all"])
            self.assertNotIn(guest.KTAP_BEGIN, shown["kunit"])
            with open(os.path.join(work, "results.json")) as fh:
                doc = json.load(fh)
            self.assertEqual((doc["name"], doc["arch"], doc["build_environment"]),
                             ("KUnit Test Group", "x86_64-la57", "/b/x86_64"))
            self.assertEqual(report.count(doc), (rep.passed, rep.failed, rep.skipped))


class JsonOption(unittest.TestCase):
    def test_one_file_per_target(self):
        from harness import commands
        self.assertEqual(commands.json_paths("out.json", ["x86_64"]), ["out.json"])
        self.assertEqual(commands.json_paths("d/out.json", ["x86_64", "ppc64le"]),
                         ["d/out.x86_64.json", "d/out.ppc64le.json"])
        self.assertEqual(commands.json_paths("out", ["a", "b"]), ["out.a.json", "out.b.json"])

    def test_parse(self):
        from harness import cli, core, target
        for argv, want in ((["kunit", "--json"], ("stdout", "")),
                           (["kunit", "--json=o.json", "--raw_output"], ("o.json", "kunit")),
                           (["kunit", "--raw_output=all", "setfs_proc"], ("", "all")),
                           # argparse's nargs='?': the next word is the file
                           (["kunit", "--json", "out.json", "setfs_proc"], ("out.json", "")),
                           (["kunit", "setfs_proc", "--json", "--raw_output"],
                            ("stdout", "kunit"))):
            ctx = core.Ctx(cache_root="/c")
            cli.parse(argv, ctx, target.lists())
            self.assertEqual((ctx.json_out, ctx.raw_output), want)
        # the word after a bare --json is its file, not a filter (argparse);
        # before the command, it is not taken
        for argv, want in ((["kunit", "--json", "out.json", "setfs_proc"],
                            ("out.json", "setfs_proc")),
                           (["kunit", "--json", "setfs_proc"], ("setfs_proc", "")),
                           (["--json", "kunit", "setfs_proc"], ("stdout", "setfs_proc"))):
            ctx = core.Ctx(cache_root="/c")
            self.assertEqual(cli.parse(argv, ctx, target.lists()), "kunit")
            self.assertEqual((ctx.json_out, ctx.filter), want)
        for argv, msg in ((["kunit", "--raw_output=some"], "kunit or all"),
                          (["kunit", "--json="], "needs a file name"),
                          (["test", "--json"], "option of kunit and exec, not of test")):
            with self.subTest(argv=argv), self.assertRaisesRegex(core.UsageFailure, msg):
                cli.parse(argv, core.Ctx(cache_root="/c"), target.lists())


class ListTests(unittest.TestCase):
    """kunit --list_tests: the names a list-mode guest prints."""

    def test_tree_guest(self):
        from harness import commands
        lines = ["boot", "setfs-init: list begin setfs_kunit", guest.LIST_BEGIN, "setfs_guest",
                 "setfs_kernel_rw", "setfs_kernel_rw.read_cases", "KTAP version 1",
                 "[ 1.0] noise", "setfs_user_proc", "setfs_user_proc.proc_read_whole_file",
                 guest.LIST_END_PREFIX + "0", "reboot: Restarting system"]
        self.assertEqual(commands.listed(lines, "tree"),
                         (["setfs_guest", "setfs_kernel_rw", "setfs_kernel_rw.read_cases",
                           "setfs_user_proc", "setfs_user_proc.proc_read_whole_file"], True))
        # setfs_user failed, or no end marker
        self.assertFalse(commands.listed(lines[:-2] + [guest.LIST_END_PREFIX + "2"],
                                         "tree")[1])
        self.assertFalse(commands.listed(lines[:-2], "tree")[1])

    def test_builtin_guest(self):
        from harness import commands
        lines = ["OpenSBI", "KTAP version 1", "setfs_proc", "setfs_proc.proc_iter_only",
                 "sysctl_test", "sysctl_test.sysctl_test_api_dointvec_null_tbl_data",
                 guest.BUILTIN_END]
        self.assertEqual(commands.listed(lines, "builtin"), (lines[2:6], True))
        self.assertFalse(commands.listed(lines[:-1], "builtin")[1])

    def test_parse(self):
        from harness import cli, core, target
        ctx = core.Ctx(cache_root="/c")
        cli.parse(["kunit", "--list_tests", "setfs_proc"], ctx, target.lists())
        self.assertTrue(ctx.list_tests)
        with self.assertRaisesRegex(core.UsageFailure, "option of kunit and exec, not of shell"):
            cli.parse(["shell", "--list_tests"], core.Ctx(cache_root="/c"), target.lists())


class CutTest(unittest.TestCase):
    """The KTAP cut needs no tree."""

    def test_a_second_begin_restarts_the_cut(self):
        """A guest that starts its report again (init re-run after a
        crash of the first attempt) is read from its last beginning."""
        b, e = guest.KTAP_BEGIN, guest.KTAP_END
        self.assertEqual(report.cut_ktap(["boot", b, "KTAP version 1", "1..9", b,
                                          "KTAP version 1", "1..0", e, "off"]),
                         (["KTAP version 1", "1..0"], True))
        self.assertEqual(report.cut_ktap(["boot", b, "x"]), (["x"], False))
        self.assertEqual(report.cut_ktap(["boot", e, b, "y", e]), (["y"], True))


class ProtocolTest(unittest.TestCase):
    """Both sides of the kernel command line name every key."""

    def test_cmdline_keys_on_both_sides(self):
        import glob
        top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

        def text(paths):
            """The files without their comments: a key named only in a
            comment is neither set nor read."""
            out = ""
            for p in paths:
                with open(p, errors="replace") as f:
                    body = f.read()
                if p.endswith((".c", ".h")):
                    # literals first: "/proc/bus/pci/*/*" opens no comment
                    body = re.sub(r"""'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|"""
                                  r"/\*.*?\*/|//[^\n]*",
                                  lambda m: m.group(0) if m.group(0)[0] in "'\"" else " ",
                                  body, flags=re.S)
                else:   # shell, Python, TOML: a # outside quotes starts one
                    body = "\n".join(re.sub(r"""^(([^#'"]|'[^']*'|"[^"]*")*)#.*""",
                                             r"\1", line) for line in body.splitlines())
                out += body
            return out
        host = text([os.path.join(top, "harness", f) for f in ("kinds.py", "core.py")] +
                    glob.glob(os.path.join(top, "targets", "*.toml")))
        guest_side = text([os.path.join(top, "rootfs", "init")] +
                          glob.glob(os.path.join(top, "rootfs", "*.c")))
        # the other way round: a word the host sets that the table lacks
        # is a key nobody checks the guest reads.  What the host sets is
        # read off the kernel command lines TreeKind.qemu() wrote into
        # the golden plans (every record and flavour; test_plan keeps
        # them current), not off the source text.
        emitted = set()
        for plan in glob.glob(os.path.join(top, "harness", "tests", "plans", "*.plan")):
            with open(plan) as f:
                for append in re.findall(r"-append '([^']*)'", f.read()):
                    emitted.update(w.split("=", 1)[0] for w in append.split()
                                   if w.startswith("setfs_"))
        self.assertIn("setfs_mode", emitted, "no kernel command line in harness/tests/plans")
        for key in sorted(emitted):
            with self.subTest(set_by_the_host=key):
                self.assertTrue(key in guest.CMDLINE_KEYS,
                                f"the host sets {key}=, which harness/guest.py "
                                "CMDLINE_KEYS lacks")
        for key in guest.CMDLINE_KEYS:
            with self.subTest(key):
                self.assertIn(key + "=", host, f"harness/kinds.py, core.py and the records never set {key}")
                # init's shell variable, getenv("setfs_..."), or
                # setfs_user's option_ull("...") (which adds setfs_)
                short = key[len("setfs_"):]
                self.assertTrue(key in guest_side or
                                f'option_ull("{short}"' in guest_side,
                                f"the guest never reads {key}")


if __name__ == "__main__":
    unittest.main()
