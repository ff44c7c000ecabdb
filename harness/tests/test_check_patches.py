# SPDX-License-Identifier: GPL-2.0
"""harness.checkpatches, specified by its own behaviour: each function on
hand-written inputs with hand-written expected values, a small git
repository standing in for the check tree where git grep and git diff
decide, and the whole command on a ten-patch series with make, spatch
and checkpatch.pl faked."""

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from harness import checkpatches, core, record, toolchain
from harness.checkpatches import compile as build
from harness.checkpatches import objects, scratch, static
from harness.core import Ctx

HAVE_GIT = shutil.which("git") is not None
HAVE_GCC = shutil.which("gcc") is not None


def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org",
                    "-c", "init.defaultBranch=main", *args], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class TempDirTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def write(self, name: str, text: str) -> str:
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
        return path


# ------------------------------------------------------------ architectures

class ArchTest(unittest.TestCase):
    PATHS = {
        "arch/sparc/kernel/led.c": "sparc32",
        "arch/sparc/kernel/setup.c": "sparc",
        "drivers/nubus/x.c": "m68k",
        "fs/proc/x.c": "x86_64",
        "arch/x86/kernel/cpu/mtrr/if.c": "x86_64",
        "arch/arm64/kernel/setup.c": "arm64",
        "arch/arm/kernel/atags_proc.c": "arm",
        "drivers/macintosh/via-pmu.c": "powerpc",
        "drivers/s390/cio/blacklist.c": "s390",
        "drivers/pnp/pnpbios/proc.c": "i386",
        "drivers/pnp/core.c": "x86_64",
        "drivers/parisc/led.c": "parisc",
        "arch/um/kernel/exitcode.c": "um",
        "arch/xtensa/platforms/iss/simdisk.c": "xtensa",
        "arch/ia64/kernel/salinfo.c": "ia64",
        "xarch/sparc/kernel/led.c": "x86_64",
        "arch/sh/mm/alignment.c": "sh",
    }

    def test_by_path(self):
        for path, arch in self.PATHS.items():
            with self.subTest(path=path):
                self.assertEqual(objects.arch_of(path), arch)

    def test_every_arch_has_a_compiler(self):
        for _, arch in objects.ARCH_BY_PATH:
            with self.subTest(arch=arch):
                tc, seed = build.toolchain_of(arch)
                self.assertIs(tc, toolchain.TOOLCHAINS[tc.arch])
        want = {"sparc32": ("sparc", "sparc64-linux-gnu-", "CONFIG_64BIT=n"),
                "sparc": ("sparc", "sparc64-linux-gnu-", ""),
                "x86_64": ("x86_64", "", ""),
                "i386": ("i386", "", ""),
                "powerpc": ("powerpc", "powerpc64le-linux-gnu-", ""),
                "s390": ("s390", "s390x-linux-gnu-", "")}
        for arch, (karch, cross, seed) in want.items():
            tc, got_seed = build.toolchain_of(arch)
            self.assertEqual((tc.arch, tc.cross, got_seed), (karch, cross, seed), arch)

    def test_records_agree_with_the_table(self):
        """What record.py enforces, on the repository's own records."""
        for rec in record.load_all().values():
            with self.subTest(record=rec.name):
                tc = toolchain.TOOLCHAINS[rec.arch["linux"]]
                self.assertEqual(rec.arch["cross"], tc.cross)
                self.assertIn(tc.package, rec.packages)

    def test_make_command(self):
        self.assertEqual(
            toolchain.make_command(3, "/t", "/b", "sparc", "sparc64-linux-gnu-"),
            ["make", "-C", "/t", "O=/b", "ARCH=sparc", "CROSS_COMPILE=sparc64-linux-gnu-",
             "CC=ccache sparc64-linux-gnu-gcc", "HOSTCC=ccache gcc", "-j3"])


# ------------------------------------------------------------ text helpers

class TextTest(unittest.TestCase):

    def test_lines(self):
        cases = [("", []), ("\n", [""]), ("a", ["a"]), ("a\nb\n", ["a", "b"]),
                 ("a\n\nb", ["a", "", "b"]), ("a\fb\r\nc\n", ["a\fb\r", "c"])]
        for text, want in cases:
            self.assertEqual(scratch.lines(text), want, repr(text))

    def test_in_tree(self):
        cases = [("../fs/a.c:1: x", "fs/a.c:1: x"),
                 ("../../include/b.h:2: y", "include/b.h:2: y"),
                 ("/c/check/tree/fs/a.c:3: see /c/check/tree/fs/b.h", "fs/a.c:3: see fs/b.h"),
                 ("/other/tree/fs/a.c:1: z", "/other/tree/fs/a.c:1: z"),
                 ("fs/../a.c", "fs/../a.c")]
        for line, want in cases:
            self.assertEqual(scratch.in_tree(line, "/c/check/tree"), want, line)

    def test_ere_escape(self):
        cases = {"psi.c": r"psi\.c", "a-b_c.c": r"a-b_c\.c",
                 "a+b[1].c": r"a\+b\[1\]\.c", "x(y)|z{2}^$*?\\": r"x\(y\)\|z\{2\}\^\$\*\?\\"}
        for name, want in cases.items():
            self.assertEqual(objects.ere_escape(name), want)

    def test_first_error(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        log = os.path.join(tmp, "b.log")
        with open(log, "w") as fh:
            fh.write("  CC      fs/d.o\n/c/check/tree/fs/d.c:2:3: error: \u2018x\u2019 undeclared\n"
                     "../fs/e.c:1: error: second\n")
        self.assertEqual(build.first_error(log, "/c/check/tree", 100),
                         "fs/d.c:2:3: error: \u2018x\u2019 undeclared")
        # the width counts characters: the quotes are three bytes each
        self.assertEqual(build.first_error(log, "/c/check/tree", 22),
                         "fs/d.c:2:3: error: \u2018x\u2019")
        with open(log, "w") as fh:
            fh.write("warning: only\n")
        self.assertEqual(build.first_error(log, "/t", 100), "")
        self.assertEqual(build.first_error(os.path.join(tmp, "none.log"), "/t", 100), "")


# -------------------------------------------------------------- objects

HEADER = """\
/* a header */
#define FOO(x) \\
	do { \\
		bar(x); \\
	} while (0)

#define\tBAR 1
static inline int baz(void)
{
	return 0;
}
#define QUX(a, b) \\
	((a) + \\
	 (b))
#define  \\
int x; \\
int y;
# define SPACED(x) \\
	(x)
"""

# line -> the macro whose definition covers it
HEADER_SYMBOLS = {0: "", 1: "", 2: "FOO", 3: "FOO", 4: "FOO", 5: "FOO", 6: "",
                  7: "BAR", 8: "", 10: "", 12: "QUX", 13: "QUX", 14: "QUX",
                  15: "", 16: "", 17: "", 18: "SPACED", 19: "SPACED", 20: "", 99: ""}

HUNKS = """\
diff --git a/include/linux/foo.h b/include/linux/foo.h
index 1111111..2222222 100644
--- a/include/linux/foo.h
+++ b/include/linux/foo.h
@@ -10,2 +10,3 @@ struct foo {
-	int a;
+	int b;
+	int c;
@@ -20 +21 @@ static inline int foo_get(struct foo *f)
-	return 0;
+@@ -1,1 +1,1 @@ static int fake(void)
@@ -30,0 +32,2 @@ extern void pcm_dbg(int x);
+void a(void);
+void b(void);
@@ -40,3 +43,0 @@
-x
-y
-z
@@ -50,1 +50,1 @@ #define FOO_BAR(x) baz(x)
-1
+2
@@ -5 +5,0 @@ foo bar(x)
-q
@@ -60,2 +60,2 @@ int f(void) @@ g(h) int k
@@ -70 +70 @@ xfs_foo(
@@ -80,5 +80,5 @@ static int __init x_init(void)
@@ -90 +90 @@ int 1abc(void)
"""

# (old count, new start, new count, symbol): not pcm_dbg (lines only
# added after it), not fake (a "+" line), the last NAME( of the context;
# xfs_foo( at the start of the context (XFS style) is a name too
HUNK_WANT = [(2, 10, 3, ""), (1, 21, 1, "foo_get"), (0, 32, 2, ""), (3, 43, 0, ""),
             (1, 50, 1, "baz"), (1, 5, 0, "bar"), (2, 60, 2, "g"), (1, 70, 1, "xfs_foo"),
             (5, 80, 5, "x_init"), (1, 90, 1, "")]

MAKEFILE = """\
obj-y += always.o
obj-$(CONFIG_FOO) += foo.o bar.o
obj-$(CONFIG_BAR_2)\t:= bar.o
obj-$(CONFIG_BAZ) = baz-core.o
obj-$(CONFIG_QUX) += quxx.o
obj-$(CONFIG_Q) += xqux.o
obj-$(CONFIG_DOT) += aXb.o
obj-$(CONFIG_REAL_DOT) += c.d.o
"""


class HeaderTest(unittest.TestCase):

    def test_symbol_at(self):
        for line, want in HEADER_SYMBOLS.items():
            with self.subTest(line=line):
                self.assertEqual(objects.symbol_at(HEADER, line), want)

    def test_hunks(self):
        got = [(h.old_count, h.new_start, h.new_count, h.symbol)
               for h in objects.hunks(HUNKS)]
        self.assertEqual(got, HUNK_WANT)
        self.assertEqual(objects.hunks(""), [])


class MakefileOptionTest(unittest.TestCase):
    # a.b: a "." in the name is a dot, not any character (aXb.o is not it)
    CASES = {"bar": "CONFIG_FOO", "foo": "CONFIG_FOO", "baz-core": "CONFIG_BAZ",
             "qux": "", "always": "", "a.b": "", "aXb": "CONFIG_DOT",
             "c.d": "CONFIG_REAL_DOT", "cXd": ""}

    def test_by_name(self):
        for base, want in self.CASES.items():
            with self.subTest(base=base):
                self.assertEqual(objects.makefile_option(MAKEFILE, base), want)


@unittest.skipUnless(HAVE_GIT, "no git")
class SourcesTest(TempDirTest):
    """objects.needed() on a small tree: includers, header users per
    architecture, options allmodconfig leaves off, at most 8 users."""

    BASE = {
        "include/linux/foo.h": "#define FOO(x) \\\n\t((x) + 1)\n\n"
                               "static inline int foo_get(void)\n{\n\treturn 0;\n}\n",
        "include/linux/cap.h": "#define CAP 1\n",
        "drivers/a/user1.c": "int a = FOO(1);\n",
        "drivers/b/user2.c": "int b(void) { return foo_get(); }\n",
        "drivers/c/off.c": "int c = FOO(2);\n",
        "drivers/c/Makefile": "obj-$(CONFIG_OFF) += off.o\n",
        "drivers/d/on.c": "int d = FOO(3);\n",
        "drivers/d/Makefile": "obj-$(CONFIG_ON) += on.o\n",
        "arch/x86/kernel/u.c": "int u = FOO(4);\n",
        "kernel/sched/psi.c": "int psi;\n",
        "kernel/sched/build_utility.c": '#include "psi.c"\n',
        "drivers/net/hostap/hostap_download.c": "int dl;\n",
        "drivers/net/hostap/hostap_hw.c": '# include "hostap_download.c"\n',
        "drivers/net/hostap/hostap_pci.c": '#include "hostap_hw.c"\n',
        "drivers/dot/a.c": "int a;\n",
        "drivers/dot/inc.c": '#include "aXc"\n',
        "arch/sparc/include/asm/led.h": "#define LED 1\n",
        "arch/sparc/kernel/led.c": "int l = LED;\n",
        "arch/m68k/include/asm/m.h": "#define M68 1\n",
        "drivers/zorro/z.c": "int z = M68;\n",
        **{f"drivers/cap/c{k:02d}.c": "int c = CAP;\n" for k in range(10)},
    }
    CHANGED = {
        "include/linux/foo.h": "#define FOO(x) \\\n\t((x) + 2)\n\n"
                               "static inline int foo_get(void)\n{\n\treturn 1;\n}\n",
        "include/linux/cap.h": "#define CAP 2\n",
        "kernel/sched/psi.c": "int psi = 1;\n",
        "drivers/net/hostap/hostap_download.c": "int dl = 1;\n",
        "drivers/dot/a.c": "int a = 1;\n",
        "arch/sparc/include/asm/led.h": "#define LED 2\n",
        "arch/m68k/include/asm/m.h": "#define M68 2\n",
    }
    # FOO: user1 and on (off.c's option is off; arch/ is not generic);
    # foo_get: user2; CAP: 8 of 10; hostap_download.c: through two
    # includers; drivers/dot/a.c is no "aXc"; LED: its arch/sparc user,
    # built as led.c is (sparc32); M68: no arch/m68k user, so the generic
    # one, built for m68k
    WANT = {
        "m68k": ["drivers/zorro/z.o"],
        "sparc32": ["arch/sparc/kernel/led.o"],
        "x86_64": ["drivers/a/user1.o", "drivers/b/user2.o",
                   *[f"drivers/cap/c{k:02d}.o" for k in range(8)],
                   "drivers/d/on.o", "drivers/dot/a.o", "drivers/net/hostap/hostap_pci.o",
                   "kernel/sched/build_utility.o"],
    }

    def setUp(self):
        super().setUp()
        self.ctx = Ctx(repo=self.tmp, cache=self.tmp)
        self.tree = scratch.check_tree(self.ctx)
        os.makedirs(self.tree)
        git(self.tree, "init", "-q")
        for name, text in self.BASE.items():
            self.write(os.path.join("check/tree", name), text)
        git(self.tree, "add", "-A")
        git(self.tree, "commit", "-q", "-m", "base")
        self.write("check/build-x86_64/.config", "CONFIG_ON=m\n# CONFIG_OFF is not set\n")

    def commit(self, files, remove=()):
        for name, text in files.items():
            self.write(os.path.join("check/tree", name), text)
        for name in remove:
            git(self.tree, "rm", "-q", name)
        git(self.tree, "add", "-A")
        git(self.tree, "commit", "-q", "-m", "change")
        rev = core.git(self.tree, "rev-parse", "HEAD")
        return rev, scratch.git_lines(self.ctx, "diff", "--name-only", f"{rev}~1", rev)

    def test_needed(self):
        rev, changed = self.commit(self.CHANGED)
        self.assertEqual(objects.needed(self.ctx, rev, changed), self.WANT)

    def test_disabled_needs_the_config(self):
        os.remove(os.path.join(self.tmp, "check/build-x86_64/.config"))
        rev, changed = self.commit({"include/linux/foo.h": self.BASE["include/linux/foo.h"]
                                    .replace("+ 1", "+ 9")})
        self.assertEqual(objects.needed(self.ctx, rev, changed),
                         {"x86_64": ["drivers/a/user1.o", "drivers/c/off.o", "drivers/d/on.o"]})

    def test_header_without_users(self):
        rev, changed = self.commit({"include/linux/cap.h": "#define CAP 1\nint cap2;\n"})
        self.assertEqual(objects.needed(self.ctx, rev, changed), {})

    @unittest.skipUnless(HAVE_GCC, "no gcc")
    def test_comments_only(self):
        cases = [
            ("a comment added", {"drivers/a/user1.c": "/* one */\nint a = FOO(1);\n"}, (), True),
            ("code changed", {"drivers/a/user1.c": "/* one */\nint a = FOO(2);\n"}, (), False),
            # a file of comments alone whose comment changes: comments only
            ("comment file", {"include/linux/cap.h": "/* a */\n"}, (), False),
            ("its comment", {"include/linux/cap.h": "/* b */\n"}, (), True),
            ("file added", {"drivers/new.c": "/* new */\n"}, (), False),
            ("file removed", {}, ("drivers/new.c",), False),
            ("no C", {"README": "text\n"}, (), True),
        ]
        for label, files, remove, want in cases:
            with self.subTest(label):
                rev, changed = self.commit(files, remove)
                self.assertEqual(objects.comments_only(self.ctx, rev, changed), want)


# --------------------------------------------------------------- static

ADDED_DIFF = """\
diff --git a/fs/a.c b/fs/a.c
index 1..2 100644
--- a/fs/a.c
+++ b/fs/a.c
@@ -10,2 +10,3 @@ int f(void)
-x
-y
+x
+y
+z
@@ -20 +21 @@ int g(void)
-a
+b
@@ -30,2 +32,0 @@
-c
-d
diff --git a/fs/gone.c b/fs/gone.c
deleted file mode 100644
--- a/fs/gone.c
+++ /dev/null
@@ -1,2 +0,0 @@
-e
-f
diff --git a/fs/new.c b/fs/new.c
new file mode 100644
--- /dev/null
+++ b/fs/new.c
@@ -0,0 +1,2 @@
+g
+h
"""

FIXTURE = """\
int a; /* expect: pos_narrow */
int b; /* expect: pos_narrow expect: iov_iter_fields */
int c;
int d;
int e;
int f;
int g;
int h;
x /* expect: copy_under_lock */
y /* expect: pos_narrow */ /* expect: pos_narrow */
/* expect: Upper */
/* expect:pos_narrow */
/* expect: pos_narrow2 */
"""

LOG = """\
  CC      fs/proc/inode.o
../fs/proc/inode.c:12:5: warning: unused variable 'x' [-Wunused-variable]
/c/check/tree/fs/proc/base.c:7: error: sparse says so
../../include/linux/foo.h:3:1: warning: bar
fs/proc/inode.c: In function 'f':
fs/proc/inode.c:12:5: note: here
drivers/x.S:3: warning: asm
fs/a b.c:1: warning: a space
fs/proc/inode.c:100:2: warning: unused variable 'x' [-Wunused-variable]
cc1: all warnings being treated as errors
/other/tree/fs/z.c:1:1: warning: another tree
/c/check/tree/fs/m.c:3:1: warning: see /c/check/tree/include/m.h
fs/y.h: warning: no line
"""

EXCEPTIONS = """\
# patch file|text of the report|why
0001-a.patch|is marked as 'obsolete'|the reason
0001-a.patch|MAINTAINERS|
0001-a.patch|CHECK
0001-a.patch|is marked|a second reason, never said
0002-b.patch|architecture specific|why|with bar
0002-b.patch||catch-all reason

0003-c.patch|last line|unterminated"""


class CocciTextTest(unittest.TestCase):

    def test_added_lines(self):
        self.assertEqual(static.added_lines(ADDED_DIFF),
                         {("fs/a.c", 10), ("fs/a.c", 11), ("fs/a.c", 12), ("fs/a.c", 21),
                          ("fs/new.c", 1), ("fs/new.c", 2)})
        self.assertEqual(static.added_lines(""), set())

    def test_expected(self):
        # a misspelt rule is expected as written (and so missed)
        self.assertEqual(static.expected(FIXTURE), {
            ("pos_narrow", 1), ("pos_narrow", 2), ("iov_iter_fields", 2),
            ("copy_under_lock", 9), ("pos_narrow", 10), ("pos_narrow2", 13)})

    def test_flagged(self):
        findings = ["t.c:10: pos_narrow: narrows *ppos",
                    "t.c:2: iov_iter_fields: reads ->count",
                    "t.c:10: pos_narrow: again",
                    "spatch: a message",
                    "t.c:x: pos_narrow: no number"]
        self.assertEqual(static.flagged(findings),
                         {("iov_iter_fields", 2), ("pos_narrow", 10)})

    def test_finding_order(self):
        findings = ["b.c:10: r: m", "b.c:9: r: m", "a.c:100: r: x", "a.c:20: r: y",
                    "spatch: no location", "a.c:20: r: a", "a_b.c:1: r: m", "A.c:5: r: m"]
        self.assertEqual(sorted(findings, key=static.finding_key), [
            "A.c:5: r: m", "a.c:20: r: a", "a.c:20: r: y", "a.c:100: r: x",
            "a_b.c:1: r: m", "b.c:9: r: m", "b.c:10: r: m", "spatch: no location"])


class WarningsTest(unittest.TestCase):

    def test_warning_lines(self):
        self.assertEqual(static.warning_lines(LOG, "/c/check/tree"), [
            "/other/tree/fs/z.c: warning: another tree",
            "fs/m.c: warning: see include/m.h",
            "fs/proc/base.c: error: sparse says so",
            "fs/proc/inode.c: warning: unused variable 'x' [-Wunused-variable]",
            "fs/proc/inode.c: warning: unused variable 'x' [-Wunused-variable]",
            "include/linux/foo.h: warning: bar"])

    def test_new_lines(self):
        cases = [((["a", "b", "b", "d"], ["a", "b", "b", "b", "c", "d", "e"]), ["b", "c", "e"]),
                 (([], ["a"]), ["a"]),
                 ((["a"], []), []),
                 ((["x"], ["x", "x"]), ["x"]),
                 ((["b", "a"], ["c", "a", "b"]), ["c"])]
        for (before, after), want in cases:
            self.assertEqual(static.new_lines(before, after), want, (before, after))


class CheckpatchExceptionsTest(TempDirTest):

    def unexcepted(self, patch, reports, listed=True):
        if listed:
            self.write("kernel-patches/checkpatch-exceptions", EXCEPTIONS)
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            kept = static.unexcepted(Ctx(repo=self.tmp, cache=self.tmp), patch, reports)
        return kept, stderr.getvalue().splitlines()

    def test_entries(self):
        self.assertEqual(static.exception_entries(EXCEPTIONS), [
            ("0001-a.patch", "is marked as 'obsolete'", "the reason"),
            ("0001-a.patch", "is marked", "a second reason, never said"),
            ("0002-b.patch", "architecture specific", "why|with bar"),
            ("0002-b.patch", "", "catch-all reason"),
            ("0003-c.patch", "last line", "unterminated")])

    def test_accepted_and_kept(self):
        # the first entry whose text the report holds gives the reason; an
        # entry without a reason accepts nothing
        kept, said = self.unexcepted("0001-a.patch", [
            "drivers/x.c:1: WARNING: hostap is marked as 'obsolete'",
            "MAINTAINERS: WARNING: does MAINTAINERS need updating?",
            "drivers/x.c:3: CHECK: other"])
        self.assertEqual(kept, ["MAINTAINERS: WARNING: does MAINTAINERS need updating?",
                                "drivers/x.c:3: CHECK: other"])
        self.assertEqual(said, ["        accepted: hostap is marked as 'obsolete' (the reason)"])

    def test_reasons_and_last_line(self):
        kept, said = self.unexcepted("0002-b.patch",
                                     ["a: b: architecture specific defines", "z: anything"])
        self.assertEqual(kept, [])
        self.assertEqual(said, ["        accepted: architecture specific defines (why|with bar)",
                                "        accepted: anything (catch-all reason)"])
        # the list's last line counts without its newline
        self.assertEqual(self.unexcepted("0003-c.patch", ["q: last line"]),
                         ([], ["        accepted: last line (unterminated)"]))
        # an entry is for its own patch only
        self.assertEqual(self.unexcepted("0009-z.patch", ["q: last line"]),
                         (["q: last line"], []))

    def test_no_list(self):
        self.assertEqual(self.unexcepted("0001-a.patch", ["x: y", "z: w"], listed=False),
                         (["x: y", "z: w"], []))


# The tools check-patches runs, faked: make "builds" an object by reading
# its .c file (BUILDFAIL: an error; WERROR: an error unless
# KCFLAGS=-Wno-error; WARNME with C=1: a warning), allmodconfig fails for
# sh; spatch flags the lines holding FLAG_RULE.
FAKE_MAKE = r"""#!PYTHON
import os, sys
args = sys.argv[1:]
tree = args[args.index("-C") + 1]
kv = dict(a.split("=", 1) for a in args if "=" in a and not a.startswith("-"))
targets = [a for a in args if "=" not in a and not a.startswith("-") and a != tree]
if "allmodconfig" in targets:
    if kv.get("ARCH") == "sh":
        print(f"{tree}/arch/sh/kernel/x.c:1:2: error: sh is broken in this tree, "
              "and this message is long enough to be cut at one hundred bytes")
        sys.exit(2)
    os.makedirs(kv["O"], exist_ok=True)
    open(kv["O"] + "/.config", "w").write("CONFIG_ON=y\n")
    sys.exit(0)
rc = 0
for t in targets:
    if t == "prepare":
        continue
    print(f"  CC      {t}")
    for n, line in enumerate(open(os.path.join(tree, t[:-2] + ".c")).read().split("\n"), 1):
        if "BUILDFAIL" in line:
            print(f"{tree}/{t[:-2]}.c:{n}:3: error: boom here")
            rc = 2
        if "WERROR" in line and kv.get("KCFLAGS") == "-Wno-error":
            print(f"../{t[:-2]}.c:{n}:3: warning: werror thing")
        elif "WERROR" in line:
            print(f"{tree}/{t[:-2]}.c:{n}:3: error: werror thing [-Werror]")
            rc = 2
        if "WARNME" in line and kv.get("C") == "1":
            print(f"../../{t[:-2]}.c:{n}:1: warning: new thing {line.strip()}")
        if "OLDWARN" in line and kv.get("C") == "1":
            print(f"{tree}/{t[:-2]}.c:{n}: warning: old thing")
sys.exit(rc)
"""
FAKE_SPATCH = r"""#!PYTHON
import os, sys
sp_file = sys.argv[sys.argv.index("--sp-file") + 1]
open(sp_file).close()
rule = os.path.basename(sp_file)[:-len(".cocci")]
f = sys.argv[-1]
sys.stderr.write(f"spatch stderr {rule} {f}\n")
for n, line in enumerate(open(f).read().split("\n"), 1):
    if "FLAG_" + rule in line:
        print(f"{f}:{n}: {rule}: flagged here")
"""
FAKE_CHECKPATCH = """#!/bin/sh
case " $* " in *" --strict "*) ;; *) echo "checkpatch: run without --strict" ;; esac
for patch; do :; done
case "$patch" in *warn*)
	echo "$patch:10: WARNING: please accept me"
	echo "$patch:12: CHECK: not accepted: really" ;;
esac
"""

FIXTURES = {
    "a_clean.c": "int a;\n",
    "b_v1.c": "x FLAG_pos_narrow /* expect: pos_narrow */\n"
              "/* expect: iov_iter_fields */\nFLAG_copy_under_lock\n",
    "c_ok.c": "x FLAG_pos_narrow /* expect: pos_narrow */\n\n"
              "FLAG_iov_iter_fields /* expect: iov_iter_fields */\n",
}


class FakeToolsTest(TempDirTest):
    """A repository with the Coccinelle rules and the fake tools in PATH."""

    def setUp(self):
        super().setUp()
        self.cache = os.path.join(self.tmp, "cache")
        self.repo = os.path.join(self.tmp, "re[po]")
        fakes = {"make": FAKE_MAKE, "spatch": FAKE_SPATCH, "sparse": "#!/bin/sh\n",
                 "sh4-linux-gnu-gcc": "#!/bin/sh\n"}
        for name, text in fakes.items():
            os.chmod(self.write(f"bin/{name}", text.replace("PYTHON", sys.executable)), 0o755)
        for rule in static.COCCI_RULES:
            self.write(f"re[po]/kernel-patches/coccinelle/{rule}.cocci", "")
        env = {"PATH": f"{os.path.join(self.tmp, 'bin')}:{os.environ.get('PATH', '')}",
               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
        patcher = mock.patch.dict(os.environ, env)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.ctx = Ctx(repo=self.repo, cache=self.cache, jobs=2)
        os.makedirs(os.path.join(self.cache, "check", "logs"))

    def selftest(self):
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            counts = static.cocci_selftest(self.ctx)
        return counts, stdout.getvalue().splitlines()


class CocciSelftestTest(FakeToolsTest):
    """The fixtures are found under a repository whose path holds glob
    characters ("re[po]"), and none is made up where there is none."""

    def test_fixtures(self):
        for name, text in FIXTURES.items():
            self.write(f"re[po]/kernel-patches/coccinelle/tests/{name}", text)
        self.write("re[po]/kernel-patches/coccinelle/tests/notes.txt", "expect: pos_narrow\n")
        self.assertEqual(self.selftest(), ((2, 2), [
            "ok a_clean.c: 0 lines flagged as declared",
            "not ok b_v1.c: missed: iov_iter_fields 2; not declared: copy_under_lock 3",
            "ok c_ok.c: 2 lines flagged as declared",
            "not ok copy_under_lock: no fixture expects a finding of it"]))

    def test_no_fixture(self):
        os.makedirs(os.path.join(self.repo, "kernel-patches/coccinelle/tests"))
        self.assertEqual(self.selftest(), ((0, 3), [
            f"not ok {rule}: no fixture expects a finding of it"
            for rule in static.COCCI_RULES]))

    def test_lines_in_number_order(self):
        text = "".join(f"l{n} /* expect: pos_narrow */\n" for n in range(1, 12))
        self.write("re[po]/kernel-patches/coccinelle/tests/d.c",
                   text + "/* expect: iov_iter_fields expect: copy_under_lock */\n")
        (passed, failed), said = self.selftest()
        self.assertEqual((passed, failed), (0, 1))
        self.assertEqual(said, ["not ok d.c: missed: copy_under_lock 12,iov_iter_fields 12,"
                                + ",".join(f"pos_narrow {n}" for n in range(1, 12))
                                + "; not declared: none"])

    def test_spatch_fails(self):
        self.write("re[po]/kernel-patches/coccinelle/tests/e.c", "/* expect: pos_narrow */\n")
        os.remove(os.path.join(self.repo, "kernel-patches/coccinelle/iov_iter_fields.cocci"))
        (passed, failed), said = self.selftest()
        self.assertEqual((passed, failed), (0, 3))
        self.assertEqual(said[0], f"not ok e.c: spatch failed (log: "
                                  f"{self.cache}/check/logs/cocci.log)")


class BuilderTest(FakeToolsTest):
    """An architecture's build directory is configured and prepared once,
    with its compiler and its seed."""

    def test_sparc32(self):
        os.chmod(self.write("bin/sparc64-linux-gnu-gcc", "#!/bin/sh\n"), 0o755)
        builder = build.Builder(self.ctx)
        with contextlib.redirect_stdout(io.StringIO()) as said:
            make = builder.make("sparc32")
            self.assertEqual(builder.make("sparc32"), make)
        build_dir = os.path.join(self.cache, "check", "build-sparc32")
        self.assertEqual(make, toolchain.make_command(
            2, os.path.join(self.cache, "check", "tree"), build_dir, "sparc", "sparc64-linux-gnu-"))
        self.assertEqual(core.read(build_dir + ".allconfig"), "CONFIG_64BIT=n\n")
        self.assertEqual(said.getvalue().count("allmodconfig + prepare for sparc32"), 1)
        self.assertEqual(builder.ready, {"sparc32"})

    def test_no_compiler(self):
        builder = build.Builder(self.ctx)
        with mock.patch.object(core, "ensure_pkgs_soft") as soft, \
                mock.patch("shutil.which", return_value=None):
            self.assertIsNone(builder.make("xtensa"))
        soft.assert_called_once_with(self.ctx, ["gcc-xtensa-linux-gnu"])
        self.assertEqual(builder.unusable,
                         {"xtensa": "no xtensa-linux-gnu-gcc (Debian package gcc-xtensa-linux-gnu)"})


CMD_TREE = {
    "fs/a.c": "int a;\nint a2;\n",
    "fs/b.c": "int b = FOO(1);\nFLAG_pos_narrow old\nOLDWARN\n",
    "fs/c.c": "int c;\n",
    "fs/d.c": "int d;\nWERROR\n",
    "fs/e.c": "int e;\nBUILDFAIL\n",
    "drivers/s390/n.c": "int n = FOO(2);\n",
    "include/linux/foo.h": "#define FOO(x) \\\n\t((x) + 1)\n",
    "include/linux/bar.h": "int bar;\n",
    "arch/sh/kernel/s.c": "int s;\n",
    "kernel/k.c": "int k;\n",
}
CMD_SERIES = [
    ("fs: touch a", {"fs/a.c": "int a;\nint a2 = 1;\n"}),
    ("header FOO", {"include/linux/foo.h": "#define FOO(x) \\\n\t((x) + 2)\n"}),
    ("comment only", {"include/linux/foo.h": "/* hi */\n#define FOO(x) \\\n\t((x) + 2)\n"}),
    ("build fail", {"fs/c.c": "int c;\nBUILDFAIL\n"}),
    ("werror", {"fs/d.c": "int d = 1;\nWERROR\n"}),
    ("warn checkpatch", {"kernel/k.c": "int k = 1;\n"}),
    ("findme", {"fs/a.c": "int a;\nint a2 = 1;\nFLAG_pos_narrow new\nWARNME\n",
                "fs/b.c": "int b = FOO(1);\nFLAG_pos_narrow old\nOLDWARN\nWARNME too\n"
                          "OLDWARN\n"}),
    ("sh arch", {"arch/sh/kernel/s.c": "int s = 1;\n"}),
    ("fails before too", {"fs/e.c": "int e = 2;\nBUILDFAIL\n"}),
    ("header no users", {"include/linux/bar.h": "int bar2;\n"}),
]

# What check-patches prints on this tree and series (times as T).
CMD_OUT = """\
run.sh: check-patches: allmodconfig + prepare for x86_64 (log: {cache}/check/prepare-x86_64.log)
[ 1/10] 0001-fs-touch-a                                               x86_64: 1 built; checkpatch: clean (Ts)
[ 2/10] 0002-header-FOO                                               s390: not compile-tested; x86_64: 1 built; checkpatch: clean (Ts)
[ 3/10] 0003-comment-only                                             comments only (the C is identical without them); checkpatch: clean (Ts)
          CC      fs/c.o
        {cache}/check/tree/fs/c.c:2:3: error: boom here
[ 4/10] 0004-build-fail                                               x86_64: BUILD FAILED; checkpatch: clean (Ts)
[ 5/10] 0005-werror                                                   x86_64: 1 built with -Wno-error (fails before this patch too); checkpatch: clean (Ts)
        {patches}/0006-warn-checkpatch.patch:12: CHECK: not accepted: really
[ 6/10] 0006-warn-checkpatch                                          x86_64: 1 built; checkpatch: 1 reports (Ts)
[ 7/10] 0007-findme                                                   x86_64: 2 built; checkpatch: clean (Ts)
run.sh: check-patches: allmodconfig + prepare for sh (log: {cache}/check/prepare-sh.log)
[ 8/10] 0008-sh-arch                                                  sh: not compile-tested; checkpatch: clean (Ts)
[ 9/10] 0009-fails-before-too                                         x86_64: not compile-tested (fails before too); checkpatch: clean (Ts)
[10/10] 0010-header-no-users                                          no object found for the C files it touches; checkpatch: clean (Ts)
static checks: Coccinelle fixtures
ok a_clean.c: 0 lines flagged as declared
not ok b_v1.c: missed: iov_iter_fields 2; not declared: copy_under_lock 3
ok c_ok.c: 2 lines flagged as declared
not ok copy_under_lock: no fixture expects a finding of it
static checks: Coccinelle rules on the series
[cocci] pos_narrow           7 files: 1 new, 1 before the series (Ts)
        fs/a.c:3: pos_narrow: flagged here (patch 0007)
        before the series: fs/b.c:2: pos_narrow: flagged here
[cocci] iov_iter_fields      7 files: 0 new, 0 before the series (Ts)
[cocci] copy_under_lock      7 files: 0 new, 0 before the series (Ts)
not compile-tested:
    0002-header-FOO.patch: drivers/s390/n.o (s390: no s390x-linux-gnu-gcc (Debian package gcc-s390x-linux-gnu))
    0008-sh-arch.patch: arch/sh/kernel/s.o (sh: allmodconfig prepare fails (arch/sh/kernel/x.c:1:2: error: sh is broken in this tree, and this message is long enough to be cut ; log: {cache}/check/prepare-sh.log))
    0009-fails-before-too.patch: fs/e.o (x86_64: does not build before the patch either; log: {cache}/check/logs/9-x86_64-before.log)
built with -Wno-error, failing before the patch too:
    0005-werror.patch: x86_64: fs/d.c:2:3: error: werror thing [-Werror]
warnings/sh: not built (allmodconfig prepare fails (arch/sh/kernel/x.c:1:2: error: sh is broken in this tree, and this message is long enough to be cut ; log: {cache}/check/prepare-sh.log))
not ok warnings/x86_64: new with the series (logs: {cache}/check/logs/warnings-*-x86_64.log):
        fs/a.c: warning: new thing WARNME
        fs/b.c: warning: new thing WARNME too
        fs/b.c: warning: old thing
        fs/c.c: error: boom here
check-patches: 10 patches in Ts
11 passed, 7 failed
"""


@unittest.skipUnless(HAVE_GIT and HAVE_GCC, "no git or gcc")
class CommandTest(FakeToolsTest):
    """cmd_check_patches on a ten-patch series: every kind of line it
    prints, and its counts."""

    def setUp(self):
        super().setUp()
        self.write("re[po]/kernel-patches/checkpatch-exceptions",
                   "# x\n0006-warn-checkpatch.patch|accept me|a reason\n")
        for name, text in FIXTURES.items():
            self.write(f"re[po]/kernel-patches/coccinelle/tests/{name}", text)
        self.patches = self.make_series()

    def make_series(self):
        tree = self.ctx.tree
        for name, text in CMD_TREE.items():
            self.write(f"cache/linux/{name}", text)
        os.chmod(self.write("cache/linux/scripts/checkpatch.pl", FAKE_CHECKPATCH), 0o755)
        git(tree, "init", "-q")
        git(tree, "add", "-A")
        git(tree, "commit", "-q", "-m", "base")
        git(tree, "tag", "pristine")
        for subject, files in CMD_SERIES:
            for name, text in files.items():
                self.write(f"cache/linux/{name}", text)
            git(tree, "commit", "-q", "-a", "-m", subject)
        out_dir = os.path.join(self.tmp, "patches")
        git(tree, "format-patch", "-q", "-o", out_dir, "pristine..HEAD")
        git(tree, "checkout", "-q", "--detach", "pristine")
        return sorted(os.path.join(out_dir, p) for p in os.listdir(out_dir))

    def check_patches(self, patches):
        """cmd_check_patches on PATCHES: its result, its output (times as
        T), its stderr, and the mocks of prepare_tree, ensure_pkgs and
        ensure_pkgs_soft."""
        from harness import tree
        stdout, stderr = io.StringIO(), io.StringIO()
        which = shutil.which    # no cross compiler for s390, whatever the host has
        with mock.patch.object(tree, "series_patches", return_value=patches), \
                mock.patch.object(tree, "prepare_tree") as prepare, \
                mock.patch.object(core, "ensure_pkgs") as ensure, \
                mock.patch.object(core, "ensure_pkgs_soft") as soft, \
                mock.patch("shutil.which", lambda cmd: None if cmd == "s390x-linux-gnu-gcc"
                           else which(cmd)), \
                contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            ok = checkpatches.cmd_check_patches(self.ctx)
        got = re.sub(r"\b\d+\.\ds\b", "Ts", stdout.getvalue())
        return ok, got, stderr.getvalue(), prepare, ensure, soft

    def test_series(self):
        ok, got, stderr, prepare, ensure, soft = self.check_patches(self.patches)
        self.assertFalse(ok)
        prepare.assert_not_called()
        self.assertEqual(ensure.call_args_list[0].args[1],
                         [*core.HOST_PKGS, "coccinelle", "python3-ply", "python3-git"])
        soft.assert_called_once_with(self.ctx, ["gcc-s390x-linux-gnu"])
        self.assertEqual(self.ctx.sums, [11, 7, 0])
        want = CMD_OUT.format(cache=self.cache, patches=os.path.dirname(self.patches[0]))
        self.assertEqual(got.splitlines(), want.splitlines())
        self.assertEqual(stderr, "        accepted: please accept me (a reason)\n")
        log = core.read(static.cocci_log(self.ctx)).splitlines()
        self.assertEqual(len(log), 3 * 3 + 3 * 7)
        self.assertIn("spatch stderr pos_narrow fs/a.c", log)
        # the check tree is left at the series' last patch
        self.assertEqual(core.git(scratch.check_tree(self.ctx), "log", "-1", "--format=%s"),
                         "header no users")
        # x86_64's allmodconfig starts from no option
        self.assertEqual(core.read(os.path.join(self.cache, "check", "build-x86_64.allconfig")),
                         "\n")

    def test_series_that_stops(self):
        # the second patch does not apply: it and the third fail, and the
        # warnings are not compared (the series did not apply whole)
        bad = self.write("bad.patch", core.read(self.patches[0]).replace("-int a2;", "-int zz;"))
        ok, got, _, _, _, _ = self.check_patches([self.patches[5], bad, self.patches[1]])
        self.assertFalse(ok)
        lines = got.splitlines()
        self.assertIn("[ 2/3] bad.patch: does not apply:", lines)
        self.assertNotIn("[ 3/3]", got)
        self.assertNotIn("warnings/", got)
        self.assertIn("[cocci] pos_narrow           1 files: 0 new, 0 before the series (Ts)",
                      lines)
        self.assertEqual(lines[-2:], ["check-patches: 3 patches in Ts", "5 passed, 5 failed"])
        self.assertEqual(self.ctx.sums, [5, 5, 0])
        # a second run starts again from pristine
        ok, got, _, _, _, _ = self.check_patches([self.patches[0]])
        self.assertIn("[ 1/1] 0001-fs-touch-a", got)

    def test_a_tool_failing_still_ends_with_the_counts(self):
        # git failing under the check (here: the diff of a patch) is one
        # failure, said on stderr, and the run still prints the line CI reads
        # (the fake fails only where the caller asks git to: check=True),
        # on the second patch, after the first passed
        real = core.git
        calls = []

        def git(repo, *args, check=True):
            if args[:2] == ("diff", "--name-only") and len(args) == 4:
                calls.append(args)
                if len(calls) == 2:
                    if check:
                        core.die("git diff failed (exit 128): bad object")
                    return ""
            return real(repo, *args, check=check)

        with mock.patch.object(core, "git", git):
            ok, got, stderr, _, _, _ = self.check_patches(self.patches[:2])
        self.assertFalse(ok)
        self.assertEqual(got.splitlines()[-2:], ["check-patches: 2 patches in Ts",
                                                 "1 passed, 1 failed"])
        self.assertIn("check-patches: git diff failed (exit 128): bad object", stderr)
        self.assertEqual(self.ctx.sums, [1, 1, 0])

    def test_empty_series(self):
        from harness import tree
        stdout = io.StringIO()
        with mock.patch.object(tree, "series_patches", return_value=[]), \
                mock.patch.object(core, "ensure_pkgs"), contextlib.redirect_stdout(stdout):
            self.assertTrue(checkpatches.cmd_check_patches(self.ctx))
        self.assertEqual(stdout.getvalue(), "0 passed, 0 failed\n")

    def test_export_applies_to_the_check_tree(self):
        """commands.apply_to_check_tree(), export's check, uses this
        package's check tree."""
        from harness import commands
        tree = commands.apply_to_check_tree(self.ctx, self.patches[:2], "")
        self.assertEqual(tree, os.path.join(self.cache, "check", "tree"))
        self.assertEqual(core.git(tree, "log", "-1", "--format=%s"), "header FOO")


if __name__ == "__main__":
    unittest.main()
