# SPDX-License-Identifier: GPL-2.0
"""harness.check_patches: the parts that run no build.

Each pure function is checked against values worked out by hand and,
where the tool is on the host, against the bash, awk, sed, sort or comm
code of run.sh it replaces (the snippets below are run.sh's own), so that
the port keeps what bash printed.  A small git repository stands in for
the check tree where git grep and git diff decide."""

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

from harness import check_patches as cp
from harness import core
from harness.core import Ctx

HAVE_BASH = shutil.which("bash") is not None
HAVE_TOOLS = all(shutil.which(t) for t in ("bash", "awk", "sed", "sort", "comm"))
C_LOCALE = dict(os.environ, LC_ALL="C")


def bash(script: str, *args: str, stdin: str = "") -> str:
    """SCRIPT's standard output under bash -c, with ARGS as $1..."""
    proc = subprocess.run(["bash", "-c", script, "bash", *args], input=stdin,
                          stdout=subprocess.PIPE, text=True, env=C_LOCALE,
                          check=True)
    return proc.stdout


# run.sh's check_arch_of and its table.
BASH_ARCH_OF = r'''
CHECK_ARCH_BY_PATH="
arch/x86/ x86_64
arch/powerpc/ powerpc
drivers/macintosh/ powerpc
arch/arm/ arm
arch/arm64/ arm64
arch/m68k/ m68k
drivers/nubus/ m68k
arch/riscv/ riscv
arch/s390/ s390
drivers/s390/ s390
arch/alpha/ alpha
arch/sh/ sh
arch/sparc/kernel/led.c sparc32
arch/sparc/ sparc
arch/um/ um
arch/parisc/ parisc
drivers/parisc/ parisc
drivers/pnp/pnpbios/ i386
drivers/pnp/isapnp/ i386
drivers/zorro/ m68k
arch/ia64/ ia64
arch/xtensa/ xtensa
"
check_arch_of() {
	local f=$1 prefix arch

	while read -r prefix arch; do
		[ -n "$prefix" ] || continue
		case "$f" in "$prefix"*) echo "$arch"; return ;; esac
	done <<<"$CHECK_ARCH_BY_PATH"
	echo x86_64
}
for f in "$@"; do check_arch_of "$f"; done
'''

# run.sh's enclosing_symbol.
AWK_ENCLOSING = r'''
		NR > L { exit }
		/^#define[ \t]/ { name = $2; sub(/\(.*/, "", name) }
		!/\\$/ && NR < L { name = "" }
		END { print name }
'''

# run.sh's check_sources: the two extractions from a hunk header.
SED_HUNK_START = r's/^@@ -[0-9,]* +\([0-9]*\).*/\1/p'
SED_HUNK_SYMBOL = r'''/^@@ -[0-9]*,0 /d
						s/^@@ .* @@ .*[^A-Za-z_0-9]\([A-Za-z_][A-Za-z_0-9]*\)(.*/\1/p'''

# run.sh's cocci_expected and cocci_added_lines.
AWK_EXPECTED = r'''{
		s = $0
		while (match(s, /expect: [a-z_]+/)) {
			print substr(s, RSTART + 8, RLENGTH - 8), NR
			s = substr(s, RSTART + RLENGTH)
		}
	}'''
AWK_ADDED = r'''
		/^\+\+\+ b\// { f = substr($0, 7) }
		/^@@/ {
			split($3, a, ",")
			n = (a[2] == "") ? 1 : a[2]
			for (i = 0; i < n; i++)
				print f ":" substr(a[1], 2) + i
		}'''

# run.sh's check_warnings_at, the part after make ($1: the check tree).
BASH_WARNINGS = r'''
CHECK_TREE=$1
sed -n 's|^\(\.\./\)*||; s|^'"$CHECK_TREE"'/||
		s#^\([^: ]*\.[ch]\):[0-9]*\(:[0-9]*\)\{0,1\}: \(warning\|error\): \(.*\)#\1: \3: \4#p' \
		"$2" | sort
'''

# run.sh's obj_disabled, its sed ($1: the Makefile, $2: the base name).
BASH_OBJ_OPTION = r'''
base=$2
sed -n "s/^obj-\$(\(CONFIG_[A-Z0-9_]*\))[[:space:]]*[+:]*=.*[[:space:]]$base\.o\b.*/\1/p" "$1" | head -n 1
'''

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
"""

# line -> the symbol, worked out from awk's three rules by hand
HEADER_SYMBOLS = {0: "", 1: "", 2: "FOO", 3: "FOO", 4: "FOO", 5: "FOO",
                  6: "", 7: "BAR", 8: "", 12: "QUX", 14: "QUX", 15: "\\",
                  17: "\\", 18: ""}

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
@@ -70 +70 @@ foo(void)
@@ -80,5 +80,5 @@ static int __init x_init(void)
"""

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
fs/y.h: warning: no line
"""

EXCEPTIONS = """\
# patch file|text of the report|why
0001-a.patch|is marked as 'obsolete'|the reason
0001-a.patch|MAINTAINERS||
0002-b.patch|architecture specific|why|with bar|
0002-b.patch||catch-all reason|

0003-c.patch|last line|unterminated"""

MAKEFILE = """\
obj-y += always.o
obj-$(CONFIG_FOO) += foo.o bar.o
obj-$(CONFIG_BAR_2)\t:= bar.o
obj-$(CONFIG_BAZ) = baz-core.o
obj-$(CONFIG_QUX) += quxx.o
obj-$(CONFIG_Q) += xqux.o
obj-$(CONFIG_DOT) += aXb.o
"""


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

    def test_table(self):
        for path, arch in self.PATHS.items():
            with self.subTest(path=path):
                self.assertEqual(cp.check_arch_of(path), arch)

    @unittest.skipUnless(HAVE_BASH, "no bash")
    def test_as_bash(self):
        paths = list(self.PATHS)
        got = bash(BASH_ARCH_OF, *paths).split()
        self.assertEqual(got, [cp.check_arch_of(p) for p in paths])

    def test_every_arch_has_a_toolchain(self):
        for _, arch in cp.CHECK_ARCH_BY_PATH:
            self.assertIn(arch, cp.TOOLCHAINS)
        self.assertEqual(cp.TOOLCHAINS["sparc32"][0], "sparc")
        self.assertEqual(cp.TOOLCHAINS["sparc32"][3], "CONFIG_64BIT=n")
        self.assertEqual(cp.TOOLCHAINS["x86_64"][1], "")


class EnclosingSymbolTest(TempDirTest):

    def test_by_hand(self):
        path = self.write("foo.h", HEADER)
        for line, sym in HEADER_SYMBOLS.items():
            with self.subTest(line=line):
                self.assertEqual(cp.enclosing_symbol(path, line), sym)
        self.assertEqual(cp.enclosing_symbol(os.path.join(self.tmp, "gone.h"), 3), "")

    @unittest.skipUnless(HAVE_TOOLS, "no awk")
    def test_as_awk(self):
        path = self.write("foo.h", HEADER)
        for line in range(0, HEADER.count("\n") + 2):
            want = subprocess.run(["awk", "-v", f"L={line}", AWK_ENCLOSING, path],
                                  stdout=subprocess.PIPE, text=True).stdout
            self.assertEqual(cp.enclosing_symbol(path, line), want.rstrip("\n"),
                             f"line {line}")


class HunkTest(unittest.TestCase):

    def test_starts(self):
        self.assertEqual(cp.hunk_new_starts(HUNKS),
                         [10, 21, 32, 43, 50, 5, 60, 70, 80])

    def test_symbols(self):
        # not pcm_dbg (only lines added after it), not fake (a + line),
        # the last NAME( of a header, after its last "@@ " if one follows
        self.assertEqual(cp.hunk_header_symbols(HUNKS),
                         ["foo_get", "baz", "bar", "g", "x_init"])

    @unittest.skipUnless(HAVE_TOOLS, "no sed")
    def test_as_sed(self):
        starts = subprocess.run(["sed", "-n", SED_HUNK_START], input=HUNKS,
                                stdout=subprocess.PIPE, text=True).stdout.split()
        self.assertEqual([int(s) for s in starts], cp.hunk_new_starts(HUNKS))
        syms = subprocess.run(["sed", "-n", SED_HUNK_SYMBOL], input=HUNKS,
                              stdout=subprocess.PIPE, text=True).stdout.split()
        self.assertEqual(syms, cp.hunk_header_symbols(HUNKS))


class AddedLinesTest(unittest.TestCase):
    WANT = ["fs/a.c:10", "fs/a.c:11", "fs/a.c:12", "fs/a.c:21",
            "fs/new.c:1", "fs/new.c:2"]

    def test_by_hand(self):
        self.assertEqual(cp.added_lines(ADDED_DIFF), self.WANT)
        self.assertEqual(cp.added_lines(""), [])

    @unittest.skipUnless(HAVE_TOOLS, "no awk")
    def test_as_awk(self):
        got = subprocess.run(["awk", AWK_ADDED], input=ADDED_DIFF,
                             stdout=subprocess.PIPE, text=True).stdout.split()
        self.assertEqual(got, cp.added_lines(ADDED_DIFF))


class CocciExpectedTest(TempDirTest):
    WANT = ["copy_under_lock 9", "iov_iter_fields 2", "pos_narrow 1",
            "pos_narrow 10", "pos_narrow 13", "pos_narrow 2"]

    def test_by_hand(self):
        self.assertEqual(cp.cocci_expected_text(FIXTURE), self.WANT)
        self.assertEqual(cp.cocci_expected(self.write("t.c", FIXTURE)), self.WANT)

    @unittest.skipUnless(HAVE_TOOLS, "no awk")
    def test_as_awk(self):
        path = self.write("t.c", FIXTURE)
        got = bash(f"awk '{AWK_EXPECTED}' \"$1\" | sort -u", path)
        self.assertEqual(got.splitlines(), cp.cocci_expected_text(FIXTURE))

    def test_flagged(self):
        findings = ["t.c:10: pos_narrow: narrows *ppos",
                    "t.c:2: iov_iter_fields: reads ->count",
                    "t.c:10: pos_narrow: again",
                    "spatch: a message",
                    "t.c:x: pos_narrow: no number"]
        self.assertEqual(cp.cocci_flagged(findings),
                         ["iov_iter_fields 2", "pos_narrow 10"])

    def test_sort(self):
        lines = ["b.c:10: r: m", "b.c:9: r: m", "a.c:100: r: x", "a.c:20: r: y",
                 "a.c:20: r: a", "a_b.c:1: r: m", "a.c: r: no number", "A.c:5: r: m"]
        want = ["A.c:5: r: m", "a.c: r: no number", "a.c:20: r: a", "a.c:20: r: y",
                "a.c:100: r: x", "a_b.c:1: r: m", "b.c:9: r: m", "b.c:10: r: m"]
        self.assertEqual(sorted(lines, key=cp.cocci_sort_key), want)
        if HAVE_TOOLS:
            got = bash('sort -t: -k1,1 -k2,2n', stdin="\n".join(lines) + "\n")
            self.assertEqual(got.splitlines(), want)


class WarningLinesTest(TempDirTest):
    WANT = ["/other/tree/fs/z.c: warning: another tree",
            "fs/proc/base.c: error: sparse says so",
            "fs/proc/inode.c: warning: unused variable 'x' [-Wunused-variable]",
            "fs/proc/inode.c: warning: unused variable 'x' [-Wunused-variable]",
            "include/linux/foo.h: warning: bar"]

    def test_by_hand(self):
        self.assertEqual(cp.warning_lines(LOG, "/c/check/tree"), self.WANT)

    @unittest.skipUnless(HAVE_TOOLS, "no sed")
    def test_as_sed(self):
        log = self.write("w.log", LOG)
        got = bash(BASH_WARNINGS, "/c/check/tree", log).splitlines()
        self.assertEqual(got, cp.warning_lines(LOG, "/c/check/tree"))

    def test_comm(self):
        before = ["a", "b", "b", "d"]
        after = ["a", "b", "b", "b", "c", "d", "e"]
        self.assertEqual(cp.comm_13(before, after), ["b", "c", "e"])
        self.assertEqual(cp.comm_13([], ["a"]), ["a"])
        self.assertEqual(cp.comm_13(["a"], []), [])
        if HAVE_TOOLS:
            got = bash('comm -13 <(printf "%s\\n" a b b d) '
                       '<(printf "%s\\n" a b b b c d e)')
            self.assertEqual(got.split(), cp.comm_13(before, after))


class CheckpatchExceptionsTest(TempDirTest):

    def run_exceptions(self, patch, reports):
        ctx = Ctx(repo=self.tmp, cache=self.tmp)
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            kept = cp.checkpatch_exceptions(ctx, patch, reports)
        return kept, stderr.getvalue()

    def test_accepted_and_kept(self):
        self.write("kernel-patches/checkpatch-exceptions", EXCEPTIONS)
        kept, said = self.run_exceptions("0001-a.patch", "\n".join([
            "drivers/x.c:1: WARNING: hostap is marked as 'obsolete'",
            "MAINTAINERS: WARNING: does MAINTAINERS need updating?",
            "",
            "drivers/x.c:3: CHECK: other"]))
        # an entry without a reason accepts nothing
        self.assertEqual(kept, "MAINTAINERS: WARNING: does MAINTAINERS need updating?\n"
                               "drivers/x.c:3: CHECK: other")
        self.assertEqual(said, "        accepted: hostap is marked as 'obsolete' "
                               "(the reason)\n")

    def test_reasons_and_last_line(self):
        self.write("kernel-patches/checkpatch-exceptions", EXCEPTIONS)
        kept, said = self.run_exceptions("0002-b.patch",
                                         "a: b: architecture specific defines\nz: anything")
        self.assertEqual(kept, "")
        self.assertEqual(said.splitlines(), [
            "        accepted: architecture specific defines (why|with bar|)",
            "        accepted: anything (catch-all reason)"])
        # bash's `while read` never saw the list's unterminated last line
        kept, said = self.run_exceptions("0003-c.patch", "q: last line")
        self.assertEqual((kept, said), ("q: last line", ""))

    def test_no_list(self):
        self.assertEqual(self.run_exceptions("0001-a.patch", "x: y\n\nz: w"),
                         ("x: y\nz: w", ""))

    @unittest.skipUnless(HAVE_BASH, "no bash")
    def test_fields_as_bash_read(self):
        lines = ["a|b|c|", "a|b|c|d", "a", "a|b", "|x|y", "  sp | t |r ",
                 "a|b|c||", "a|b||", "a|b|", "a|b|c|d|", "a||", "a|||", "a|b|c|| "]
        got = bash('while IFS="|" read -r name text reason; do '
                   'printf "%s\\t%s\\t%s\\n" "$name" "$text" "$reason"; done',
                   stdin="\n".join(lines) + "\n")
        self.assertEqual([tuple(row.split("\t")) for row in got.split("\n")[:-1]],
                         [cp.exception_fields(line) for line in lines])


class MakefileOptionTest(TempDirTest):
    CASES = {"bar": "CONFIG_FOO", "baz-core": "CONFIG_BAZ", "qux": "",
             "always": "", "a.b": "CONFIG_DOT", "foo": "CONFIG_FOO"}

    def test_by_hand(self):
        for base, want in self.CASES.items():
            with self.subTest(base=base):
                self.assertEqual(cp.makefile_option(MAKEFILE, base), want)

    @unittest.skipUnless(HAVE_TOOLS, "no sed")
    def test_as_sed(self):
        mk = self.write("Makefile", MAKEFILE)
        for base in self.CASES:
            got = bash(BASH_OBJ_OPTION, mk, base).rstrip("\n")
            self.assertEqual(got, cp.makefile_option(MAKEFILE, base), base)


class HelpersTest(unittest.TestCase):

    def test_dirname(self):
        self.assertEqual(cp._dirname("a/b/c.c"), "a/b")
        self.assertEqual(cp._dirname("c.c"), ".")
        self.assertEqual(cp._dirname("/c.c"), "/")

    def test_title_and_cut(self):
        self.assertEqual(cp._patch_title("0001-x.patch"), "0001-x")
        self.assertEqual(cp._patch_title("x" * 70 + ".patch"), "x" * 60)
        self.assertEqual(cp._cut_bytes("ab\u2018c", 3), "ab")
        self.assertEqual(cp._after_check_tree("/c/check/tree/x/check/tree/fs/a.c:1: error: e"),
                         "fs/a.c:1: error: e")


def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org",
                    "-c", "init.defaultBranch=main", *args], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@unittest.skipUnless(shutil.which("git"), "no git")
class SourcesTest(TempDirTest):
    """check_sources on a small tree: includers, header users per
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
        "arch/sparc/include/asm/led.h": "#define LED 2\n",
        "arch/m68k/include/asm/m.h": "#define M68 2\n",
    }

    def setUp(self):
        super().setUp()
        self.ctx = Ctx(repo=self.tmp, cache=self.tmp)
        self.tree = cp.check_tree(self.ctx)
        os.makedirs(self.tree)
        git(self.tree, "init", "-q")
        for name, text in self.BASE.items():
            self.write(os.path.join("check/tree", name), text)
        git(self.tree, "add", "-A")
        git(self.tree, "commit", "-q", "-m", "base")
        self.write("check/build-x86_64/.config", "CONFIG_ON=m\n# CONFIG_OFF is not set\n")

    def commit(self, files):
        for name, text in files.items():
            self.write(os.path.join("check/tree", name), text)
        git(self.tree, "commit", "-q", "-a", "-m", "change")
        return subprocess.run(["git", "-C", self.tree, "rev-parse", "HEAD"],
                              stdout=subprocess.PIPE, text=True).stdout.strip()

    def test_sources(self):
        rev = self.commit(self.CHANGED)
        self.assertEqual(cp.check_sources(self.ctx, rev), [
            "arch/sparc/kernel/led.c",
            "drivers/a/user1.c",
            "drivers/b/user2.c",
            *[f"drivers/cap/c{k:02d}.c" for k in range(8)],
            "drivers/d/on.c",
            "drivers/net/hostap/hostap_pci.c",
            "drivers/zorro/z.c m68k",
            "kernel/sched/build_utility.c",
        ])

    @unittest.skipUnless(shutil.which("gcc"), "no gcc")
    def test_comments_only(self):
        rev = self.commit({"drivers/a/user1.c": "/* one */\nint a = FOO(1);\n"})
        self.assertTrue(cp.check_comments_only(self.ctx, rev))
        rev = self.commit({"drivers/a/user1.c": "/* one */\nint a = FOO(2);\n"})
        self.assertFalse(cp.check_comments_only(self.ctx, rev))
        # a file of comments only is nothing to compare: bash said no
        self.commit({"include/linux/cap.h": "/* a */\n"})
        rev = self.commit({"include/linux/cap.h": "/* b */\n"})
        self.assertFalse(cp.check_comments_only(self.ctx, rev))


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
rule = os.path.basename(sys.argv[sys.argv.index("--sp-file") + 1])[:-len(".cocci")]
f = sys.argv[-1]
sys.stderr.write(f"spatch stderr {rule} {f}\n")
for n, line in enumerate(open(f).read().split("\n"), 1):
    if "FLAG_" + rule in line:
        print(f"{f}:{n}: {rule}: flagged here")
"""
FAKE_CHECKPATCH = """#!/bin/sh
case "$4" in *warn*)
	echo "$4:10: WARNING: please accept me"
	echo "$4:12: CHECK: not accepted: really" ;;
esac
"""

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

# What run.sh's bash printed on this tree and series (times as T).
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


@unittest.skipUnless(shutil.which("git") and shutil.which("gcc"), "no git or gcc")
class CommandTest(TempDirTest):
    """cmd_check_patches with make, spatch and checkpatch.pl faked: every
    kind of line it prints, as run.sh printed them."""

    def setUp(self):
        super().setUp()
        self.cache = os.path.join(self.tmp, "cache")
        repo, bin_dir = os.path.join(self.tmp, "repo"), os.path.join(self.tmp, "bin")
        fakes = {"make": FAKE_MAKE, "spatch": FAKE_SPATCH, "sparse": "#!/bin/sh\n",
                 "sh4-linux-gnu-gcc": "#!/bin/sh\n"}
        for name, text in fakes.items():
            os.chmod(self.write(f"bin/{name}", text.replace("PYTHON", sys.executable)), 0o755)
        self.write("repo/kernel-patches/checkpatch-exceptions",
                   "# x\n0006-warn-checkpatch.patch|accept me|a reason\n")
        for rule in cp.COCCI_RULES:
            self.write(f"repo/kernel-patches/coccinelle/{rule}.cocci", "")
        fixtures = {
            "a_clean.c": "int a;\n",
            "b_v1.c": "x FLAG_pos_narrow /* expect: pos_narrow */\n"
                      "/* expect: iov_iter_fields */\nFLAG_copy_under_lock\n",
            "c_ok.c": "x FLAG_pos_narrow /* expect: pos_narrow */\n\n"
                      "FLAG_iov_iter_fields /* expect: iov_iter_fields */\n"}
        for name, text in fixtures.items():
            self.write(f"repo/kernel-patches/coccinelle/tests/{name}", text)
        env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', '')}",
               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
        patcher = mock.patch.dict(os.environ, env)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.ctx = Ctx(repo=repo, cache=self.cache, jobs=2)
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
        T), its stderr and the mocks of prepare_tree and ensure_pkgs."""
        from harness import tree
        stdout, stderr = io.StringIO(), io.StringIO()
        which = shutil.which    # no cross compiler for s390, whatever the host has
        with mock.patch.object(tree, "series_patches", return_value=patches), \
                mock.patch.object(tree, "prepare_tree") as prepare, \
                mock.patch.object(core, "ensure_pkgs") as ensure, \
                mock.patch.object(cp.shutil, "which",
                                  lambda cmd: None if cmd == "s390x-linux-gnu-gcc"
                                  else which(cmd)), \
                contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            ok = cp.cmd_check_patches(self.ctx)
        got = re.sub(r"\b\d+\.\ds\b", "Ts", stdout.getvalue())
        return ok, got, stderr.getvalue(), prepare, ensure

    def test_series(self):
        ok, got, stderr, prepare, ensure = self.check_patches(self.patches)
        self.assertFalse(ok)
        prepare.assert_not_called()
        self.assertEqual(ensure.call_args_list[0].args[1], [*core.HOST_PKGS, *cp.CHECK_PKGS])
        self.assertEqual(self.ctx.sums, [11, 7, 0])
        want = CMD_OUT.format(cache=self.cache, patches=os.path.dirname(self.patches[0]))
        self.assertEqual(got.splitlines(), want.splitlines())
        self.assertEqual(stderr, "        accepted: please accept me (a reason)\n")
        with open(os.path.join(self.cache, "check", "logs", "cocci.log")) as fh:
            log = fh.read().splitlines()
        self.assertEqual(len(log), 3 * 3 + 3 * 7)
        self.assertIn("spatch stderr pos_narrow fs/a.c", log)

    def test_series_that_stops(self):
        # the second patch does not apply: it and the third fail, and the
        # warnings are not compared (the series did not apply whole)
        with open(self.patches[0]) as fh:
            bad = self.write("bad.patch", fh.read().replace("-int a2;", "-int zz;"))
        ok, got, _, _, _ = self.check_patches([self.patches[5], bad, self.patches[1]])
        self.assertFalse(ok)
        lines = got.splitlines()
        self.assertIn("[ 2/3] bad.patch: does not apply:", lines)
        self.assertNotIn("[ 3/3]", got)
        self.assertNotIn("warnings/", got)
        self.assertIn("[cocci] pos_narrow           1 files: 0 new, 0 before the series (Ts)",
                      lines)
        self.assertEqual(lines[-2:], ["check-patches: 3 patches in Ts", "5 passed, 5 failed"])
        self.assertEqual(self.ctx.sums, [5, 5, 0])

    def test_empty_series(self):
        from harness import tree
        stdout = io.StringIO()
        with mock.patch.object(tree, "series_patches", return_value=[]), \
                mock.patch.object(core, "ensure_pkgs"), contextlib.redirect_stdout(stdout):
            self.assertTrue(cp.cmd_check_patches(self.ctx))
        self.assertEqual(stdout.getvalue(), "0 passed, 0 failed\n")


if __name__ == "__main__":
    unittest.main()
