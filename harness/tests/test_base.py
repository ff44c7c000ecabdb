# SPDX-License-Identifier: GPL-2.0
"""Base records (bases/*.toml, harness/base.py): the committed ones are
valid, a bad one is refused naming its file and field, and a tree is
checked against its record's version."""

import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from harness import base, core, tree

GOOD = """
[source]
package = "linux-source-6.12"
tarball = "/usr/src/linux-source-6.12.tar.xz"
directory = "linux-source-6.12"
version = "6.12"
[series]
fixes = "kernel-patches/6.12/uaccess"
[distro]
abi = '6\\.12\\.[0-9]+\\+deb12'
kbuild = "linux-kbuild-@ABI@"
"""


class Records(unittest.TestCase):
    def test_committed_records(self):
        bases = base.load_all()
        self.assertIn("6.1", bases)
        self.assertIn("6.12", bases)
        self.assertEqual([b.name for b in bases.values() if b.default], ["6.12"])
        b = bases["6.1"]
        self.assertEqual(b.series_dirs, ["kernel-patches/uaccess", "kernel-patches"])
        self.assertEqual(bases["6.12"].series_dirs,
                         ["kernel-patches/6.12/uaccess", "kernel-patches/6.12/procfs"])

    def test_good(self):
        b = base.parse("6.12", GOOD, "bases/6.12.toml")
        self.assertEqual((b.version, b.procfs, b.default), ("6.12", "", False))

    def test_bad_fields_are_named(self):
        cases = (
            (GOOD.replace('version = "6.12"', 'version = "6.12.118"'),
             "source.version: '6.12.118' is not allowed"),
            (GOOD.replace('version = "6.12"\n', ''), "source.version: missing"),
            (GOOD.replace('directory = "linux-source-6.12"', 'directory = ""'),
             "source.directory: empty"),
            (GOOD.replace('/usr/src/', 'usr/src/'), "source.tarball"),
            (GOOD.replace('fixes = "kernel-patches/6.12/uaccess"', 'fixes = "../x"'),
             "series.fixes"),
            (GOOD.replace('fixes = "kernel-patches/6.12/uaccess"', 'fixes = "rootfs"'),
             "series.fixes: 'rootfs' is not under kernel-patches/"),
            (GOOD.replace("abi = '6", "abi = '(6"), "distro.abi: not a regular expression"),
            (GOOD.replace('kbuild = "linux-kbuild-@ABI@"', 'kbuild = 1'),
             "distro.kbuild: must be a string"),
            (GOOD + "flavour = 'x'\n", r"distro.flavour: unknown field"),
            ("default = 'yes'\n" + GOOD, "default: must be a bool"),
            ("[kernel]\n" + GOOD, "kernel: unknown field or table"),
            (GOOD.replace("[source]", "[source"), "not valid TOML"),
            (GOOD + "[fragments]\nriscv64 = 'config/x.config'\n",
             "fragments.riscv64: must be a list of strings"),
            (GOOD + "[fragments]\nriscv64 = ['rootfs/x.config']\n",
             "fragments.riscv64: 'rootfs/x.config' is not a file under config/"),
        )
        for text, msg in cases:
            with self.subTest(msg=msg), self.assertRaisesRegex(base.BaseError, msg):
                base.parse("6.12", text, "bases/6.12.toml")
        with self.assertRaisesRegex(base.BaseError, "'v6' is not a base name"):
            base.parse("v6", GOOD)

    def test_one_default(self):
        with tempfile.TemporaryDirectory() as d:
            for name in ("6.1", "6.12"):
                with open(os.path.join(d, name + ".toml"), "w") as fh:
                    fh.write(GOOD)
            with self.assertRaisesRegex(base.BaseError, "exactly one base must say "
                                        "default = true .now: none"):
                base.load_all(d)
            with self.assertRaisesRegex(base.UnknownBase, "unknown base '5.4'"):
                base.load("5.4", d)

    def test_tree_version(self):
        mk = "# SPDX\nVERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\nEXTRAVERSION =\n"
        self.assertEqual(base.tree_version(mk), "6.12")
        self.assertEqual(base.tree_version(mk.replace("12\n", "1\n", 1)), "6.1")
        self.assertEqual(base.tree_version("all:\n"), "")


class TreeOfTheWrongVersion(unittest.TestCase):
    """A tarball whose tree is not the base's version is refused with one
    line naming the field, and the prepared tree stays as it was."""

    def test_refused_and_nothing_touched(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src", "linux-source-6.12")
            os.makedirs(src)
            with open(os.path.join(src, "Makefile"), "w") as fh:
                fh.write("VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\n")
            tarball = os.path.join(d, "linux-source-6.12.tar.xz")
            subprocess.run(["tar", "-C", os.path.join(d, "src"), "-cJf", tarball,
                            "linux-source-6.12"], check=True)
            ctx = core.Ctx(cache_root=os.path.join(d, "cache"), tarball_given=tarball)
            ctx.use_base("6.12")
            os.makedirs(ctx.tree)
            keep = os.path.join(ctx.tree, "mine.c")
            with open(keep, "w") as fh:
                fh.write("work\n")
            with self.assertRaisesRegex(core.Failure, r"holds Linux 6\.1, not 6\.12 "
                                        r"\(bases/6\.12\.toml: source\.version\)"):
                tree.prepare_tree(ctx)
            self.assertTrue(os.path.isfile(keep))
            self.assertFalse(os.path.exists(os.path.join(ctx.cache, "extract.tmp")))


class KconfigTemporaries(unittest.TestCase):
    """merge_config.sh's leftovers from a killed run are not work: the
    guard removes them and reports only what is somebody's."""

    def test_only_real_work_is_reported(self):
        with tempfile.TemporaryDirectory() as d:
            ctx = core.Ctx(cache_root=os.path.join(d, "cache"))
            ctx.use_base("6.12")
            os.makedirs(ctx.tree)
            subprocess.run(["git", "init", "-q", ctx.tree], check=True)
            with open(os.path.join(ctx.tree, "Makefile"), "w") as fh:
                fh.write("all:\n")
            core.git(ctx.tree, "add", "Makefile")
            core.git(ctx.tree, "-c", "user.name=t", "-c", "user.email=t@t",
                     "commit", "-q", "-m", "pristine")
            tree.state_write(ctx, "tid", "empty", tree.head(ctx))
            self.assertEqual(tree.tree_unexported(ctx), "")
            leftovers = [".tmp.config.fQxLe3KJUM", ".merge_tmp.config.u8ulEu5Jk2"]
            kept = [".tmp.config.short", "tmp.config.fQxLe3KJUM", "mine.c"]
            for name in leftovers + kept:
                with open(os.path.join(ctx.tree, name), "w") as fh:
                    fh.write("x\n")
            what = tree.tree_unexported(ctx)
            for name in leftovers:
                self.assertFalse(os.path.exists(os.path.join(ctx.tree, name)), name)
                self.assertNotIn(name, what)
            for name in kept:
                self.assertTrue(os.path.exists(os.path.join(ctx.tree, name)), name)
                self.assertIn(name, what)


class SeriesReapplied(unittest.TestCase):
    """Re-applying kernel-patches/ leaves the files whose content comes
    out the same with their old modification times, so that make rebuilds
    nothing for a change to the patches' messages."""

    def git(self, repo, *args):
        return subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t",
                               *args], check=True, capture_output=True, text=True).stdout

    def patch(self, d, name, path, text, msg):
        """A patch, made in a scratch clone of the tree at pristine."""
        work = os.path.join(d, "scratch")
        shutil.rmtree(work, ignore_errors=True)
        self.git(d, "clone", "-q", self.tree, work)
        self.git(work, "checkout", "-q", "pristine")
        with open(os.path.join(work, path), "w") as fh:
            fh.write(text)
        self.git(work, "commit", "-q", "-am", msg)
        out = os.path.join(d, name)
        with open(out, "w") as fh:
            fh.write(self.git(work, "format-patch", "-1", "--stdout"))
        return out

    def test_unchanged_content_keeps_its_mtime(self):
        with tempfile.TemporaryDirectory() as d:
            ctx = core.Ctx(cache_root=os.path.join(d, "cache"))
            ctx.use_base("6.12")
            self.tree = ctx.tree
            os.makedirs(ctx.tree)
            self.git(ctx.tree, "init", "-q", "-b", "setfs")
            for f in ("a.c", "b.c", "c.c"):
                with open(os.path.join(ctx.tree, f), "w") as fh:
                    fh.write(f + "\n")
            self.git(ctx.tree, "add", ".")
            self.git(ctx.tree, "commit", "-q", "-m", "pristine")
            self.git(ctx.tree, "tag", "pristine")
            pristine = tree.head(ctx)
            p1 = self.patch(d, "1.patch", "a.c", "a2\n", "a: one")
            p2 = self.patch(d, "2.patch", "b.c", "b2\n", "b: one")
            env = {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
            old = 1_000_000_000 * 10**9

            def apply(fixes, procfs):
                with mock.patch.object(tree, "fixes_patches", return_value=fixes), \
                        mock.patch.object(tree, "procfs_patches", return_value=procfs), \
                        mock.patch.object(tree, "series_id", return_value="s"), \
                        mock.patch.dict(os.environ, env):
                    tree.apply_series(ctx, pristine, "tid")

            def mtimes():
                return {f: os.stat(os.path.join(ctx.tree, f)).st_mtime_ns
                        for f in ("a.c", "b.c", "c.c")}

            apply([p1], [p2])
            for f in ("a.c", "b.c", "c.c"):
                os.utime(os.path.join(ctx.tree, f), ns=(old, old))
            self.git(ctx.tree, "update-index", "-q", "--refresh")
            # the messages change, the content does not: nothing is newer
            apply([self.patch(d, "1b.patch", "a.c", "a2\n", "a: one, said better")],
                  [self.patch(d, "2b.patch", "b.c", "b2\n", "b: one, said better")])
            self.assertEqual(mtimes(), {"a.c": old, "b.c": old, "c.c": old})
            self.assertIn("said better", self.git(ctx.tree, "log", "-1", "--format=%s"))
            # b.c's content changes: it alone is newer
            apply([p1], [self.patch(d, "2c.patch", "b.c", "b3\n", "b: two")])
            got = mtimes()
            self.assertEqual((got["a.c"], got["c.c"]), (old, old))
            self.assertGreater(got["b.c"], old)
            with open(os.path.join(ctx.tree, "b.c")) as fh:
                self.assertEqual(fh.read(), "b3\n")
            # a.c's patch dropped: back to pristine content, so newer
            apply([], [p2])
            self.assertGreater(mtimes()["a.c"], old)


if __name__ == "__main__":
    unittest.main()
