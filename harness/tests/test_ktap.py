# SPDX-License-Identifier: GPL-2.0
"""setfs_user's KTAP writer (rootfs/ktap.c) isolates its cases: built on
the host with tests/c/ktap_isolation.c, whose cases crash, exit, hang and
skip and whose second group's setup crashes, it must report every case,
the broken ones failed with their cause, and still run the last group."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness import build

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WANT = """\
KTAP version 1
1..3
    KTAP version 1
    # Subtest: crashy
    1..8
    ok 1 pass1
    # segv: killed by SIGSEGV (signal 11)
    not ok 2 segv
    # passes in this process: 0
    ok 3 counted
    ok 4 skip1 # SKIP skipped on purpose
    # exit7: exited with status 7
    not ok 5 exit7
    # hang: timed out after 1 s (setfs_case_timeout)
    not ok 6 hang
    not ok 7 fail1
    ok 8 pass2
not ok 1 crashy
    KTAP version 1
    # Subtest: setup_crash
    1..2
    # the group's process killed by SIGABRT (signal 6) outside a case (in setup or teardown)
    # not run: the group's process died before it
    not ok 1 a
    # not run: the group's process died before it
    not ok 2 b
not ok 2 setup_crash
    KTAP version 1
    # Subtest: after
    1..2
    ok 1 a
    ok 2 b
ok 3 after
# failed 7
"""


@unittest.skipUnless(shutil.which("gcc"), "gcc is not installed (run.sh installs it)")
class Isolation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="setfs-ktap-")
        cls.exe = os.path.join(cls.dir, "ktap_isolation")
        # setfs_user's flags, but dynamic (static glibc may be missing)
        flags = [f for f in build.USER_CFLAGS if f != "-static"]
        subprocess.run(["gcc", *flags, "-o", cls.exe,
                        os.path.join(TOP, "harness", "tests", "c", "ktap_isolation.c"),
                        os.path.join(TOP, "rootfs", "ktap.c")], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def run_it(self, **env):
        proc = subprocess.run([self.exe], env=dict(os.environ, **env), capture_output=True,
                              text=True, timeout=60, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return "".join(line + "\n" for line in proc.stdout.splitlines()
                       if not line.startswith("# setfs-time: "))

    def test_each_broken_case_fails_with_its_cause_and_the_rest_run(self):
        self.assertEqual(self.run_it(setfs_case_timeout="1"), WANT)

    def test_no_timeout(self):
        """setfs_case_timeout=0 turns the limit off: the hanging case is not
        killed (an outside timeout ends the program instead), and the
        filter still selects as before."""
        got = self.run_it(setfs_case_timeout="0", setfs_filter="crashy.pass*,after")
        self.assertEqual(re.findall(r"^ *(?:not )?ok \d+ \S+", got, re.M),
                         ["    ok 1 pass1", "    ok 2 pass2", "ok 1 crashy",
                          "    ok 1 a", "    ok 2 b", "ok 2 after"])
        proc = subprocess.run(["timeout", "3", self.exe], capture_output=True, text=True,
                              env=dict(os.environ, setfs_case_timeout="0",
                                       setfs_filter="crashy.hang"), check=False)
        self.assertEqual(proc.returncode, 124, proc.stdout)
        self.assertNotIn("timed out", proc.stdout)


if __name__ == "__main__":
    unittest.main()
