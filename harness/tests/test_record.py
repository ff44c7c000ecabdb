# SPDX-License-Identifier: GPL-2.0
"""Target records: the repository's own, and broken ones that must fail
naming the field."""

import os
import shutil
import subprocess
import tempfile
import unittest

from harness import record

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GOOD = """\
order = 10
default = true
test_debug = true
packages = ["qemu-system-x86", "gcc"]

[arch]
linux = "x86_64"
qemu = "x86_64"
debian = "amd64"

[kernel]
image = "arch/x86/boot/bzImage"
fragments = ["config/x86_64.config"]

[qemu]
args = ["-M", "pc"]
console = "ttyS0"
halt = "reboot"

[guest]
paging = "4-level"
task_size_max = "0x7ffffffff000"
"""


class RepoRecords(unittest.TestCase):
    def test_all_valid(self):
        recs = record.load_all()
        self.assertGreaterEqual(len(recs), 4)
        for r in recs.values():
            for f in r.kernel["fragments"] + r.kernel["debug_fragments"]:
                self.assertTrue(os.path.isfile(os.path.join(TOP, f)),
                                f"{r.path}: fragment {f} does not exist")

    def test_lists_keep_the_run_order(self):
        recs = record.load_all()
        self.assertEqual(record.run_list(recs, "default")[:3],
                         ["x86_64", "x86_64-la57", "ppc64le"])
        test = record.run_list(recs, "test")
        self.assertLess(test.index("x86_64+debug"), test.index("x86_64-debian"))
        self.assertNotIn("x86_64-debian+debug", test)
        # ci: test's list without the records that say ci = false
        ci = record.run_list(recs, "ci")
        self.assertEqual(ci, [t for t in test if recs[t.split("+")[0]].ci])
        self.assertIn("riscv64-nommu", test)
        self.assertNotIn("riscv64-nommu", ci)

    def test_ci_drops_the_debug_flavour_of_a_record_out_of_ci(self):
        """A record with test_debug and ci = false: its +debug flavour is
        in test's list and not in ci's (no committed record is both, so
        the repository's own records cannot show it)."""
        from types import SimpleNamespace as R
        recs = {n: R(name=n, order=o, default=d, test=True, test_debug=True, ci=c)
                for n, o, d, c in (("a", 1, True, True), ("b", 2, False, False))}
        self.assertEqual(record.run_list(recs, "test"), ["a", "a+debug", "b+debug", "b"])
        self.assertEqual(record.run_list(recs, "ci"), ["a", "a+debug"])

    def test_debug_flavour_derived(self):
        rec, flavour = record.target("x86_64+debug")
        self.assertEqual((rec.name, flavour), ("x86_64", "debug"))

    def test_names(self):
        with self.assertRaisesRegex(record.UsageError, "unknown target 'nosuch'"):
            record.target("nosuch")
        with self.assertRaisesRegex(record.UsageError, "no debug flavour"):
            record.target("x86_64-debian+debug")


class FieldTable(unittest.TestCase):
    def test_docs_name_exactly_the_schema_fields(self):
        """docs/targets.md's field table, first column, against SCHEMA."""
        import re
        with open(os.path.join(TOP, "docs", "targets.md")) as f:
            text = f.read()
        table = text[text.index("| field | what |"):]
        table = table[:table.index("\n\n")]
        named = set()
        for line in table.splitlines()[2:]:
            named.update(re.findall(r"`([a-z_.]+)`", line.split("|")[1]))
        schema = {(t + "." if t else "") + k for t, fields in record.SCHEMA.items()
                  for k in fields}
        self.assertEqual(named, schema)


class BadRecords(unittest.TestCase):
    """Each edit of GOOD must fail with the field named in the message."""

    CASES = [
        ("missing table field", lambda t: t.replace('console = "ttyS0"\n', ""),
         "qemu.console: missing"),
        ("missing top field", lambda t: t.replace("order = 10\n", ""), "order: missing"),
        ("qemu package without a suite",
         lambda t: t.replace('halt = "reboot"\n', 'halt = "reboot"\npackage = "qemu-system-x86"\n'),
         "qemu.package: only with qemu.suite"),
        ("unknown field", lambda t: t + 'colour = "blue"\n', "guest.colour: unknown field"),
        ("unknown table", lambda t: t + "[extra]\nx = 1\n", "extra: unknown"),
        ("wrong type", lambda t: t.replace("default = true", 'default = "yes"'),
         "default: must be a bool"),
        ("int for bool", lambda t: t.replace("default = true", "default = 1"),
         "default: must be a bool"),
        ("list of non-strings", lambda t: t.replace('["-M", "pc"]', '["-M", 3]'),
         "qemu.args: 3 is not a string"),
        ("space in an argument", lambda t: t.replace('"pc"', '"pc x"'),
         "qemu.args: 'pc x' is not allowed"),
        ("shell metacharacter", lambda t: t.replace('"gcc"', '"gcc$(id)"'),
         "packages: 'gcc\\$\\(id\\)' is not allowed"),
        ("bad choice", lambda t: t.replace('halt = "reboot"', 'halt = "off"'),
         "qemu.halt: 'off' is not one of reboot, poweroff"),
        ("bad paging", lambda t: t.replace('"4-level"', '"3-level"'),
         "guest.paging: '3-level' is not one of"),
        ("tree without image", lambda t: t.replace('image = "arch/x86/boot/bzImage"\n', ""),
         "kernel.image: missing"),
        ("distro without distro table",
         lambda t: 'kind = "distro"\n' + t.replace("test_debug = true\n", "")
         .replace("[kernel]", "[x]").replace('image = "arch/x86/boot/bzImage"\n', "")
         .replace('fragments = ["config/x86_64.config"]\n', ""),
         "x: unknown|distro.flavour: missing"),
        ("distro with debug", lambda t: 'kind = "distro"\n' + t,
         "distro.flavour: missing|kernel\\]: a distro|test_debug"),
        ("kernel_of itself", lambda t: t.replace("[kernel]\n", '[kernel]\nkernel_of = "good"\n'),
         "kernel.kernel_of: names this record itself"),
        ("default not in test", lambda t: t.replace("default = true", "default = true\ntest = false"),
         "test: a default target"),
        ("not TOML", lambda t: t + "[guest\n", "not valid TOML"),
        ("task_size_max not hex", lambda t: t.replace('"0x7ffffffff000"', '"140737488351232"'),
         "guest.task_size_max: '140737488351232' is not allowed"),
        ("glob in an argument", lambda t: t.replace('"pc"', '"pc*"'),
         "qemu.args: 'pc\\*' is not allowed"),
        ("package as an option", lambda t: t.replace('"gcc"', '"--force-yes"'),
         "packages: '--force-yes' is not allowed"),
        ("path out of the repository", lambda t: t.replace('"config/x86_64.config"', '"../x.config"'),
         "kernel.fragments: '../x.config' is not allowed"),
        ("task_size_max over 64 bits", lambda t: t.replace('"0x7ffffffff000"', '"0x10000000000000000"'),
         "guest.task_size_max: '0x10000000000000000' is not allowed"),
        ("bad cmdline word", lambda t: t + 'cmdline = ["quiet"]\n',
         "guest.cmdline: 'quiet' is not allowed"),
        ("bad cmdline key", lambda t: t + 'cmdline = ["a..b=1"]\n',
         "guest.cmdline: 'a..b=1' is not allowed"),
        ("busybox suite not a suite name", lambda t: t + 'busybox_suite = "trixie main"\n',
         "guest.busybox_suite: 'trixie main' is not allowed"),
        ("ci without test", lambda t: t.replace("default = true", "test = false\nci = false"),
         "ci: only a target in test"),
        ("default out of ci", lambda t: t.replace("default = true", "default = true\nci = false"),
         "ci: only a target in test, not in the default list"),
        ("tree without paging", lambda t: t.replace('paging = "4-level"\n', ""),
         "guest.paging: missing"),
        ("builtin with a guest", lambda t: 'kind = "builtin"\n' + t.replace("test_debug = true\n", ""),
         "\\[guest\\]: a builtin target runs no user space"),
        ("builtin with debug", lambda t: 'kind = "builtin"\n' + t[:t.index("[guest]")],
         "test_debug: a builtin target has no debug flavour"),
        ("arch without a compiler", lambda t: t.replace('linux = "x86_64"', 'linux = "vax"'),
         "good.toml: arch.linux: 'vax' has no compiler in harness/toolchain.py"),
        ("cross prefix not the table's",
         lambda t: t.replace('debian = "amd64"\n', 'debian = "amd64"\ncross = "x86_64-linux-gnu-"\n'),
         "good.toml: arch.cross: 'x86_64-linux-gnu-' is not harness/toolchain.py's "
         "cross prefix for x86_64: ''"),
        ("another arch's compiler",
         lambda t: t.replace('linux = "x86_64"', 'linux = "arm64"'),
         "good.toml: arch.cross: '' is not .*for arm64: 'aarch64-linux-gnu-'"),
        ("compiler package missing", lambda t: t.replace('"qemu-system-x86", "gcc"', '"qemu-system-x86"'),
         "good.toml: packages: gcc missing, the compiler of x86_64"),
        ("builtin without image",
         lambda t: 'kind = "builtin"\n' + t[:t.index("[guest]")]
         .replace("test_debug = true\n", "").replace('image = "arch/x86/boot/bzImage"\n', ""),
         'kernel.image: missing \\(required for kind = "builtin"\\)'),
    ]

    def test_builtin_needs_no_guest(self):
        text = 'kind = "builtin"\n' + GOOD[:GOOD.index("[guest]")].replace(
            "test_debug = true\n", "").replace("default = true\n", "")
        rec = record.parse("good", text, "targets/good.toml")
        self.assertEqual((rec.kind, rec.guest["paging"]), ("builtin", ""))

    def test_each_edit_names_the_field(self):
        record.parse("good", GOOD, "targets/good.toml")
        for label, edit, want in self.CASES:
            with self.subTest(label):
                with self.assertRaisesRegex(record.RecordError, want):
                    record.parse("good", edit(GOOD), "targets/good.toml")

    def test_cross_record_checks(self):
        with tempfile.TemporaryDirectory() as top:
            d = os.path.join(top, "targets")
            os.makedirs(os.path.join(top, "config"))
            for frag in ("x86_64.config", "other.config"):
                open(os.path.join(top, "config", frag), "w").close()
            os.mkdir(d)
            def put(name, text):
                with open(os.path.join(d, name + ".toml"), "w") as f:
                    f.write(text)
            put("a", GOOD)
            put("b", GOOD.replace("order = 10", "order = 20")
                .replace("[kernel]\n", '[kernel]\nkernel_of = "nosuch"\n'))
            with self.assertRaisesRegex(record.RecordError, "b.toml: kernel.kernel_of: 'nosuch'"):
                record.load_all(d)
            put("b", GOOD.replace("[kernel]\n", '[kernel]\nkernel_of = "a"\n'))
            with self.assertRaisesRegex(record.RecordError, "order: 10 is also"):
                record.load_all(d)
            put("b", GOOD.replace("order = 10", "order = 20")
                .replace("[kernel]\n", '[kernel]\nkernel_of = "a"\n')
                .replace("x86_64.config", "other.config"))
            with self.assertRaisesRegex(record.RecordError, "other arch names, fragments or image"):
                record.load_all(d)
            put("b", GOOD.replace("order = 10", "order = 20")
                .replace("[kernel]\n", '[kernel]\nkernel_of = "a"\n')
                .replace("bzImage", "vmlinux"))
            with self.assertRaisesRegex(record.RecordError, "other arch names, fragments or image"):
                record.load_all(d)
            put("b", GOOD.replace("order = 10", "order = 20")
                .replace("x86_64.config", "missing.config"))
            with self.assertRaisesRegex(record.RecordError,
                                        "b.toml: kernel.fragments: config/missing.config does not exist"):
                record.load_all(d)
            os.remove(os.path.join(d, "b.toml"))
            # an editor's lock file is not a record
            put(".#a", "not toml [")
            self.assertEqual(list(record.load_all(d)), ["a"])

    def test_run_sh_stops_on_a_bad_record(self):
        """A broken record in a copy of the repository: run.sh names it."""
        with tempfile.TemporaryDirectory() as d:
            copy = os.path.join(d, "repo")
            os.mkdir(copy)
            for item in ("run.sh", "harness", "targets", "config"):
                src = os.path.join(TOP, item)
                if os.path.isdir(src):
                    shutil.copytree(src, os.path.join(copy, item),
                                    ignore=shutil.ignore_patterns("logs", "__pycache__"))
                else:
                    shutil.copy(src, copy)
            path = os.path.join(copy, "targets", "ppc64le.toml")
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(text.replace('halt = "poweroff"', 'halt = "off"'))
            p = subprocess.run(["bash", os.path.join(copy, "run.sh"), "--help"],
                               capture_output=True, text=True,
                               env=dict(os.environ, SETFS_CACHE=os.path.join(d, "cache")))
            self.assertEqual(p.returncode, 1)
            self.assertIn("targets/ppc64le.toml: qemu.halt: 'off' is not one of", p.stderr)


if __name__ == "__main__":
    unittest.main()
