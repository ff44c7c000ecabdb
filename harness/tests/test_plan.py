# SPDX-License-Identifier: GPL-2.0
"""./run.sh kunit --dry-run: the plan of every record, pinned (golden
files in plans/, one per record and debug flavour, for the default base;
SETFS_UPDATE_PLANS=1 rewrites them after a deliberate change), and the
command itself, which needs no root, no package and writes nothing."""

import os
import subprocess
import sys
import tempfile
import unittest

from harness import core, plan, record

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLANS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plans")


def names():
    out = []
    for r in record.load_all().values():
        out.append(r.name)
        if r.kind == "tree":
            out.append(r.name + "+debug")
    return sorted(out)


def rendered(name: str) -> str:
    ctx = core.Ctx(repo=TOP, cache_root="/CACHE", jobs=2)
    ctx.use_base()
    return plan.render(plan.target_plan(ctx, name)).replace(TOP, "/REPO")


class Golden(unittest.TestCase):
    def test_every_record_has_its_plan(self):
        want = sorted(n + ".plan" for n in names())
        have = sorted(f for f in os.listdir(PLANS) if f.endswith(".plan"))
        self.assertEqual(have, want, "SETFS_UPDATE_PLANS=1 python3 -m unittest "
                         "harness.tests.test_plan writes the missing ones")

    def test_plans(self):
        update = os.environ.get("SETFS_UPDATE_PLANS") == "1"
        for n in names():
            with self.subTest(target=n):
                got = rendered(n)
                path = os.path.join(PLANS, n + ".plan")
                if update:
                    with open(path, "w") as f:
                        f.write(got)
                with open(path) as f:
                    self.assertEqual(got, f.read())


class DryRun(unittest.TestCase):
    def test_needs_nothing_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            cache = os.path.join(d, "cache")
            env = dict(os.environ, SETFS_CACHE=cache, PYTHONPATH=TOP,
                       PATH="/usr/bin:/bin")
            proc = subprocess.run([sys.executable, "-P", "-m", "harness", "kunit",
                                   "--dry-run", "--arch", "x86_64,ppc64le", "setfs_proc"],
                                  cwd=d, env=env, capture_output=True, text=True,
                                  timeout=60, check=False)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertEqual(os.listdir(d), [])
        self.assertIn("==== x86_64 (tree, base 6.12) ====", proc.stdout)
        self.assertIn("setfs_filter=setfs_proc", proc.stdout)
        self.assertIn("qemu-system-ppc64 ", proc.stdout)

    def test_only_for_kunit(self):
        proc = subprocess.run([sys.executable, "-P", "-m", "harness", "test", "--dry-run"],
                              cwd=TOP, env=dict(os.environ, PYTHONPATH=TOP),
                              capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--dry-run is an option of kunit, not of test", proc.stderr)


if __name__ == "__main__":
    unittest.main()
