# SPDX-License-Identifier: GPL-2.0
"""The environment is read in one place (harness/settings.py), once, and
a unit test does not see the developer's exported variables."""

import dataclasses
import glob
import os
import re
import unittest
from unittest import mock

from harness import core, kinds, settings, target

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Settings(unittest.TestCase):
    def test_no_environment_read_outside_settings(self):
        found = []
        for path in sorted(glob.glob(os.path.join(TOP, "harness", "*.py"))):
            if os.path.basename(path) == "settings.py":
                continue
            with open(path) as f:
                for n, line in enumerate(f, 1):
                    code = line.split("#", 1)[0]
                    if re.search(r"\bos\.environ\b|\bos\.getenv\b|\bgetenv\(", code):
                        found.append(f"{os.path.relpath(path, TOP)}:{n}: {line.strip()}")
        self.assertEqual(found, [])

    def test_every_variable_read_is_documented(self):
        with open(settings.__file__) as f:
            read = set(re.findall(r'env\.get\("([A-Z_]+)"', f.read()))
        self.assertEqual(read, set(settings.VARIABLES))

    def test_exported_guest_args_do_not_reach_a_test_context(self):
        ctx = core.Ctx(cache="/c")
        ctx.use_base("6.12")
        t = target.load(ctx, "x86_64")
        with mock.patch.dict(os.environ, {"SETFS_GUEST_ARGS": "setfs_fuzz_ops=7",
                                          "SETFS_CI": "1", "SETFS_ACCEL": "kvm"}):
            words = kinds.kind_of(ctx, t).qemu("test")[3].split()
            self.assertNotIn("setfs_fuzz_ops=7", words)
            # a run's context reads them, once
            run = core.Ctx.from_env()
        self.assertEqual((run.settings.guest_args, run.settings.ci, run.settings.accel),
                         ("setfs_fuzz_ops=7", True, "kvm"))
        run.cache = ctx.cache
        run.use_base("6.12")
        words = kinds.kind_of(run, target.load(run, "x86_64")).qemu("test")[3].split()
        self.assertEqual(words[-1], "setfs_fuzz_ops=7")

    def test_defaults(self):
        s = settings.Settings.from_environ({"HOME": "/h"})
        self.assertEqual((s.cache_root, s.accel, s.series_rounds, s.ci),
                         ("/h/.cache/setfs-probe", "auto", "3", False))
        s = settings.Settings.from_environ({"XDG_CACHE_HOME": "/x"})
        self.assertEqual(s.cache_root, "/x/setfs-probe")
        with self.assertRaises(dataclasses.FrozenInstanceError):
            s.ci = True


if __name__ == "__main__":
    unittest.main()
