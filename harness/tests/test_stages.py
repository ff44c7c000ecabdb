# SPDX-License-Identifier: GPL-2.0
"""The harness's parts that need no kernel: digests (the stamps of a
warm cache must keep their keys), the stage abstraction, the command
line, the targets' paths and the kinds' QEMU command lines."""

import contextlib
import dataclasses
import hashlib
import io
import os
import re
import shutil
import subprocess
import tempfile
import types
import unittest
from unittest import mock

from harness import build, cli, core, kinds, stage, target

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# What run.sh's bash computed for stamps (the keys of every cache built
# before the harness was Python): find | sort | cat | sha256sum.
BASH_HASH_DIRS = r'''
for d in "$@"; do
	find "$d" -type f ! -name '*.o' ! -name '*.ko' ! -name '*.cmd' \
		! -name '*.mod' ! -name '*.mod.c' ! -name 'modules.order' \
		! -name 'Module.symvers' -print | LC_ALL=C sort
done | while read -r f; do
	printf '%s\n' "${f#"$REPO"/}"
	cat "$f"
done | sha256sum | cut -d' ' -f1
'''


def quiet():
    return contextlib.redirect_stdout(io.StringIO())


class Digests(unittest.TestCase):
    def test_hash_dir_files_is_bash_s(self):
        with tempfile.TemporaryDirectory() as repo:
            def put(rel, text):
                path = os.path.join(repo, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            put("Kbuild", "obj-m += a/\n")
            put("a/B.c", "upper\n")
            put("a/a.c", "lower\n")
            put("a/_x.h", "underscore\n")
            put("a/sub/z.c", "deeper\n")
            put("a/x.o", "object: not a source\n")
            put("a/x.mod.c", "generated\n")
            put("a/modules.order", "built\n")
            os.symlink("a.c", os.path.join(repo, "a", "link.c"))
            dirs = [os.path.join(repo, "Kbuild"), os.path.join(repo, "a")]
            want = subprocess.run(["bash", "-c", BASH_HASH_DIRS, "-", *dirs],
                                  env=dict(os.environ, REPO=repo), capture_output=True,
                                  text=True, check=True).stdout.strip()
            self.assertEqual(core.hash_dir_files(repo, dirs), want)
            # a built product changes nothing, a source does
            put("a/y.ko", "module\n")
            self.assertEqual(core.hash_dir_files(repo, dirs), want)
            put("a/sub/z.c", "changed\n")
            self.assertNotEqual(core.hash_dir_files(repo, dirs), want)

    def test_hash_files_names_relative_to_the_repo(self):
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            for d in (a, b):
                with open(os.path.join(d, "f"), "w") as f:
                    f.write("same\n")
            self.assertEqual(core.hash_files(a, [os.path.join(a, "f")]),
                             core.hash_files(b, [os.path.join(b, "f")]))
            self.assertNotEqual(core.hash_files(a, [os.path.join(a, "f")]),
                                core.hash_files(a, [os.path.join(b, "f")]))


class Stages(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.ctx = core.Ctx(cache=self.dir.name)
        self.stamp = os.path.join(self.dir.name, "work", "stamp.x")
        self.out = os.path.join(self.dir.name, "out")
        self.runs = 0

    def tearDown(self):
        self.dir.cleanup()

    def body(self):
        self.runs += 1
        core.write(self.out, "built\n")
        return "built"

    def run_stage(self, key, keyed=True):
        with quiet() as out:
            res = stage.Stage(self.ctx, "x", key=key, stamp=self.stamp, outputs=[self.out],
                              target="t", keyed=keyed).run(self.body)
        return res, out.getvalue()

    def test_up_to_date_only_with_the_same_key_and_outputs(self):
        res, text = self.run_stage("k1")
        self.assertEqual((res.status, res.note, self.runs), ("ran", "built", 1))
        self.assertRegex(text, r"^    x                      +\d+\.\ds  built\n$")
        res, _ = self.run_stage("k1")
        self.assertEqual((res.status, self.runs), ("up to date", 1))
        res, _ = self.run_stage("k2")
        self.assertEqual((res.status, self.runs), ("ran", 2))
        os.unlink(self.out)
        res, _ = self.run_stage("k2")
        self.assertEqual((res.status, self.runs), ("ran", 3))
        # --keep-tree: no key, make decides
        res, _ = self.run_stage("k2", keyed=False)
        self.assertEqual((res.status, self.runs), ("ran", 4))
        self.assertEqual([r.status for r in self.ctx.timings],
                         ["ran", "up to date", "ran", "ran", "ran"])

    def test_a_failed_body_leaves_no_stamp(self):
        self.run_stage("k1")

        def fails():
            raise stage.StageFailed("broken", None)
        with quiet(), self.assertRaises(core.Failure):
            stage.Stage(self.ctx, "x", key="k2", stamp=self.stamp).run(fails)
        self.assertFalse(os.path.exists(self.stamp))

    def test_run_logged_names_the_log_and_shows_its_tail(self):
        log = os.path.join(self.dir.name, "x.log")
        with self.assertRaises(stage.StageFailed) as cm:
            stage.run_logged(["sh", "-c", "seq 1 50; exit 3"], log, "it failed", lines=5,
                             header=True)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            cm.exception.show_log()
        self.assertEqual(err.getvalue().splitlines(),
                         [f"---- last 5 lines of {log} ----", "46", "47", "48", "49", "50"])


class CommandLine(unittest.TestCase):
    def parse(self, *argv):
        ctx = core.Ctx(cache="/nonexistent")
        return cli.parse(list(argv), ctx, target.lists()), ctx

    def test_defaults(self):
        cmd, ctx = self.parse("kunit")
        self.assertEqual((cmd, ctx.arches, ctx.soak, ctx.filter),
                         ("kunit", target.lists()["default"], "quick", ""))
        cmd, ctx = self.parse("test")
        self.assertEqual(ctx.soak, "full")

    def test_debug_and_globs(self):
        _, ctx = self.parse("kunit", "--debug", "--arch=x86_64,ppc64le", "setfs_proc",
                            "setfs_sysctl.*")
        self.assertEqual(ctx.arches, ["x86_64+debug", "ppc64le+debug"])
        self.assertEqual(ctx.filter, "setfs_proc,setfs_sysctl.*")

    def test_base(self):
        """--base, else SETFS_BASE, else the default record; each base has
        its own cache tree and tarball, the lock stays at the top."""
        _, ctx = self.parse("kunit")
        self.assertEqual((ctx.base_name, ctx.cache, ctx.tree),
                         ("6.12", "/nonexistent/6.12", "/nonexistent/6.12/linux"))
        _, ctx = self.parse("kunit", "--base", "6.1")
        self.assertEqual((ctx.cache, ctx.tarball, ctx.base.procfs),
                         ("/nonexistent/6.1", "/usr/src/linux-source-6.1.tar.xz",
                          "kernel-patches"))
        ctx = core.Ctx.from_env({"SETFS_CACHE": "/x", "SETFS_BASE": "6.12",
                                 "SETFS_TARBALL": "/t.tar.xz"})
        cli.parse(["test"], ctx, target.lists())
        self.assertEqual((ctx.cache_root, ctx.cache, ctx.tarball),
                         ("/x", "/x/6.12", "/t.tar.xz"))
        for argv, msg in ((["kunit", "--base", "5.10"], "unknown base '5.10' .known: 6.1, 6.12"),
                          (["kunit", "--base="], "--base needs a base name"),
                          (["kunit", "--base"], "--base needs a value")):
            with self.subTest(argv=argv), self.assertRaisesRegex(core.UsageFailure, msg):
                self.parse(*argv)

    def test_usage_errors(self):
        for argv, msg in ((["kunit", "--timeout", "00"], "--timeout takes seconds"),
                          (["kunit", "--timeout", "５"], "--timeout takes seconds"),
                          (["kunit", "--arch"], "--arch needs a value"),
                          (["kunit", "a" * 128], "longer than 127"),
                          (["bench", "cold", "extra"], "unexpected argument 'extra'")):
            with self.subTest(argv=argv), self.assertRaisesRegex(core.UsageFailure, msg):
                self.parse(*argv)


class Steps(unittest.TestCase):
    """./run.sh config, build, exec: kunit's steps on their own."""

    def test_parse(self):
        for argv, cmd, filt in ((["exec", "setfs_proc", "--json", "o.json"], "exec",
                                 "setfs_proc"),
                                (["config", "--arch", "x86_64"], "config", ""),
                                (["build", "--kconfig_add", "CONFIG_KCSAN=y"], "build", "")):
            ctx = core.Ctx(repo=TOP, cache_root="/c")
            self.assertEqual(cli.parse(argv, ctx, target.lists()), cmd)
            self.assertEqual(ctx.filter, filt)
        for argv, msg in ((["build", "setfs_proc"], "unexpected argument 'setfs_proc'"),
                          (["config", "--json"], "option of kunit and exec, not of config"),
                          (["build", "--dry-run"], "--dry-run is an option of kunit")):
            with self.subTest(argv=argv), self.assertRaisesRegex(core.UsageFailure, msg):
                cli.parse(argv, core.Ctx(repo=TOP, cache_root="/c"), target.lists())

    def test_config_configures_the_kernel_a_target_boots(self):
        # x86_64-la57 boots x86_64's kernel: config configures that one;
        # riscv64-nommu's suites are built in: config syncs them first
        ctx = core.Ctx(repo=TOP, cache="/c")
        with mock.patch.object(kinds.build, "configure_kernel") as conf:
            kinds.kind_of(ctx, target.load(ctx, "x86_64-la57")).configure()
        self.assertEqual(conf.call_args.args[1].name, "x86_64")
        nommu = target.load(ctx, "riscv64-nommu")
        with mock.patch.object(kinds.build, "configure_kernel") as conf, \
                mock.patch.object(kinds.BuiltinKind, "sync_tree") as sync:
            kinds.kind_of(ctx, nommu).configure()
        sync.assert_called_once()
        self.assertEqual(conf.call_args.args[1].name, "riscv64-nommu")

    def test_exec_needs_a_build(self):
        from harness import commands
        with tempfile.TemporaryDirectory() as d:
            ctx = core.Ctx(repo=TOP, cache=d)
            ctx.arches = ["x86_64"]
            with self.assertRaisesRegex(core.Failure,
                                        r"x86_64: .*bzImage is not built: run ./run.sh "
                                        r"build --arch x86_64"):
                commands.built_targets(ctx)
            t = target.load(ctx, "x86_64")
            for path in kinds.kind_of(ctx, t).boot_files():
                os.makedirs(os.path.dirname(path), exist_ok=True)
                core.write(path, "")
            with self.assertRaisesRegex(core.Failure, "x86_64: its kernel build did not finish"):
                commands.built_targets(ctx)
            # each stamp's key starts with the keys of what it was built on
            core.write(os.path.join(t.build, ".config"), "CONFIG_X=y\n")
            cfg = hashlib.sha256(b"CONFIG_X=y\n").hexdigest()
            stamps = {"stamp.kernel": f"T S {cfg} G", "stamp.modules": f"T S {cfg} G M",
                      "stamp.rootfs": f"T S {cfg} G M U R"}
            for name, key in stamps.items():
                core.write_stamp(os.path.join(t.work, name), key)
            self.assertEqual([x.name for x in commands.built_targets(ctx)], ["x86_64"])
            # a modules build that failed after a new kernel: its stamp is
            # gone, its old output not
            core.write_stamp(os.path.join(t.work, "stamp.kernel"), f"T2 S {cfg} G")
            with self.assertRaisesRegex(core.Failure, "modules were built against another"):
                commands.built_targets(ctx)
            core.write_stamp(os.path.join(t.work, "stamp.modules"), f"T2 S {cfg} G M2")
            with self.assertRaisesRegex(core.Failure, "initramfs holds other modules"):
                commands.built_targets(ctx)
            os.unlink(os.path.join(t.work, "stamp.rootfs"))
            with self.assertRaisesRegex(core.Failure, "stopped before the initramfs"):
                commands.built_targets(ctx)
            core.write_stamp(os.path.join(t.work, "stamp.rootfs"), f"T2 S {cfg} G M2 U R")
            self.assertEqual(len(commands.built_targets(ctx)), 1)
            # ./run.sh config after the build: another .config than the kernel's
            core.write(os.path.join(t.build, ".config"), "CONFIG_X=n\n")
            with self.assertRaisesRegex(core.Failure, "configured again after"):
                commands.built_targets(ctx)

    def test_exec_list_tests_builds_nothing(self):
        from harness import commands
        ctx = core.Ctx(repo=TOP, cache="/c")
        ctx.list_tests = True
        with mock.patch.object(commands, "build_targets") as build_all, \
                mock.patch.object(commands, "built_targets", return_value=[]) as built:
            commands.cmd_exec(ctx)
        build_all.assert_not_called()
        built.assert_called_once()


class StageInputs(unittest.TestCase):
    """A stage takes the results it builds on; there is no side channel
    (Target.keys was one: stages called out of order raised KeyError)."""

    def test_keys_flow_from_result_to_result(self):
        ctx = core.Ctx(repo=TOP, cache="/c")
        t = target.load(ctx, "x86_64")
        kernel = stage.StageResult("kernel", "x86_64", "ran", "", 0.0, "KERNEL")
        user = stage.StageResult("user", "x86_64", "ran", "", 0.0, "USER")
        with mock.patch.object(build.Stage, "run", lambda self, body: self), \
                mock.patch.object(build, "fetch_busybox", return_value="/bin/sh"), \
                mock.patch.object(build.tree, "tree_id", return_value="TREE"), \
                mock.patch.object(build.core, "hash_files", return_value="FILES"):
            modules = build.build_modules(ctx, t, kernel)
            rootfs = build.build_rootfs(ctx, t, modules, user)
        self.assertTrue(modules.key.startswith("KERNEL "))
        self.assertTrue(rootfs.key.startswith(f"{modules.key} USER "))
        self.assertFalse(hasattr(t, "keys"))


class KconfigAdd(unittest.TestCase):
    """--kconfig_add: kunit.py's option; its own build like a flavour."""

    def parse(self, *argv):
        ctx = core.Ctx(repo=TOP, cache_root="/c")
        return cli.parse(list(argv), ctx, target.lists()), ctx

    def test_own_build_and_last_fragment(self):
        _, ctx = self.parse("kunit", "--arch", "x86_64-la57", "--kconfig_add",
                            "CONFIG_KCSAN=y", "--kconfig_add=CONFIG_PROVE_LOCKING is not set")
        self.assertEqual(ctx.kconfig_add, ["CONFIG_KCSAN=y", "# CONFIG_PROVE_LOCKING is not set"])
        t = target.load(ctx, "x86_64-la57")
        plain = target.load(dataclasses.replace(ctx, kconfig_add=[]), "x86_64-la57")
        # la57 boots x86_64's kernel, but not with options of its own
        self.assertEqual((plain.kowner, t.kowner), ("x86_64", ""))
        self.assertRegex(t.build, r"^/c/6\.12/build/x86_64-la57-k[0-9a-f]{8}$")
        self.assertEqual(os.path.dirname(t.work), "/c/6.12/work")
        self.assertEqual(os.path.basename(t.work), os.path.basename(t.build))
        frags = kinds.kind_of(ctx, t).fragments()
        self.assertEqual(frags[-1], os.path.join(t.work, "kconfig_add.config"))
        # other options, another build; the same ones, the same build
        _, other = self.parse("kunit", "--arch", "x86_64-la57", "--kconfig_add", "CONFIG_KCSAN=n")
        self.assertEqual(other.kconfig_add, ["# CONFIG_KCSAN is not set"])
        self.assertNotEqual(target.load(other, "x86_64-la57").build, t.build)
        _, same = self.parse("kunit", "--arch", "x86_64-la57", "--kconfig_add", "CONFIG_KCSAN=y",
                             "--kconfig_add", "CONFIG_PROVE_LOCKING is not set")
        self.assertEqual(target.load(same, "x86_64-la57").build, t.build)

    def test_usage(self):
        for argv, msg in ((["kunit", "--kconfig_add", "KCSAN=y"], "CONFIG_NAME=VALUE"),
                          (["kunit", "--kconfig_add", "CONFIG_KCSAN"], "CONFIG_NAME=VALUE"),
                          (["test", "--kconfig_add", "CONFIG_KCSAN=y"], "not of test"),
                          (["kunit", "--arch", "x86_64-debian", "--kconfig_add",
                            "CONFIG_KCSAN=y"], "boots Debian's kernel")):
            with self.subTest(argv=argv), self.assertRaisesRegex(core.UsageFailure, msg):
                self.parse(*argv)


class Targets(unittest.TestCase):
    def test_paths(self):
        ctx = core.Ctx(repo=TOP, cache="/c")
        la57 = target.load(ctx, "x86_64-la57")
        # boots x86_64's kernel, keeps its own work directory
        self.assertEqual((la57.work, la57.build, la57.kwork, la57.kowner),
                         ("/c/work/x86_64-la57", "/c/build/x86_64", "/c/work/x86_64",
                          "x86_64"))
        dbg = target.load(ctx, "x86_64-la57+debug")
        self.assertEqual((dbg.work, dbg.build, dbg.kowner),
                         ("/c/work/x86_64-la57-debug", "/c/build/x86_64-la57-debug", ""))
        # run.sh's order: base.config, the kind's, the record's, .kunitconfig,
        # then debug.config and the record's debug fragments (later wins)
        x = target.load(ctx, "x86_64+debug")
        self.assertEqual([os.path.relpath(f, TOP)
                          for f in kinds.kind_of(ctx, x).fragments()],
                         ["config/base.config", "config/procfs.config",
                          "config/selftests.config", "config/procread.config",
                          "config/x86_64.config", "config/x86_64-5level.config",
                          "kunit/.kunitconfig", "config/debug.config",
                          "config/debug-x86_64.config"])

    def test_base_fragments_follow_the_records(self):
        """A base's fragments come after the record's own and before
        kunit/.kunitconfig: "*" (every tree target's) first, then the
        target's; a builtin target gets no "*" ones."""
        want = {
            ("6.1", "riscv64"): ["config/riscv64.config", "config/6.1/riscv-virt.config"],
            ("6.1", "x86_64"): ["config/x86_64-5level.config"],
            ("6.12", "riscv64"): ["config/riscv64.config", "config/6.12/kunit-peers.config",
                                  "config/6.12/riscv-virt.config",
                                  "config/6.12/riscv-vector.config"],
            ("6.12", "x86_64"): ["config/x86_64-5level.config",
                                 "config/6.12/kunit-peers.config"],
            ("6.12", "riscv64-nommu"): ["config/riscv64-nommu.config",
                                        "config/6.12/riscv-virt.config",
                                        "config/6.12/riscv-nommu.config"],
        }
        for (name, tname), tail in want.items():
            with self.subTest(base=name, target=tname):
                ctx = core.Ctx(repo=TOP, cache_root="/c")
                ctx.use_base(name)
                got = [os.path.relpath(f, TOP) for f in
                       kinds.kind_of(ctx, target.load(ctx, tname)).fragments()]
                self.assertEqual(got[-len(tail) - 1:], tail + ["kunit/.kunitconfig"])

    def test_peers_on_the_command_line(self):
        ctx = core.Ctx(repo=TOP, cache_root="/c")
        ctx.use_base("6.12")
        words = kinds.kind_of(ctx, target.load(ctx, "x86_64")).qemu("test")[3].split()
        self.assertIn("setfs_kunit_peers=usercopy_kunit:usercopy,sysctl-test:sysctl_test",
                      words)
        ctx.use_base("6.1")
        words = kinds.kind_of(ctx, target.load(ctx, "x86_64")).qemu("test")[3].split()
        self.assertFalse([w for w in words if w.startswith("setfs_kunit_peers=")])

    def test_unknown_is_a_usage_error(self):
        with self.assertRaisesRegex(core.UsageFailure, "unknown target 'nosuch'"):
            target.load(core.Ctx(cache="/c"), "nosuch")


class Kinds(unittest.TestCase):
    def test_tree_cmdline(self):
        ctx = core.Ctx(cache="/c", filter="setfs_proc", soak="quick")
        ctx.use_base("6.1")
        ctx.tree = ctx.cache = "/c"
        t = target.load(ctx, "x86_64-debian")
        args = kinds.kind_of(ctx, t).qemu("test")
        self.assertEqual(args[:2], ["-initrd", "/c/work/x86_64-debian/initramfs.cpio"])
        self.assertEqual(args[3].split(), [
            "console=ttyS0", "panic=-1", "profile=2", "setfs_load=modprobe",
            "setfs_series=none", "setfs_pci=required", "setfs_mode=test", "setfs_halt=reboot",
            "setfs_target=x86_64-debian", "setfs_paging=4-level",
            "setfs_task_size_max=0x7ffffffff000", "setfs_filter=setfs_proc",
            "setfs_case_timeout=100", *core.SOAK_QUICK.split()])

    def test_a_base_without_the_procfs_series_says_so(self):
        """A base without a procfs series (6.12's record with its
        series.procfs taken out): the tree guests expect the pristine
        procfs side (setfs_series=none), once, as the distro guest's
        record already says; the committed bases' tree guests do not."""
        for name, strip, want in (("6.1", False, 0), ("6.12", False, 0),
                                  ("6.12", True, 1)):
            ctx = core.Ctx(cache_root="/c")
            ctx.use_base(name)
            if strip:
                ctx.base = dataclasses.replace(ctx.base, procfs="")
            for tname, n in (("x86_64", want), ("x86_64-debian", 1)):
                with self.subTest(base=name, strip=strip, target=tname):
                    t = target.load(ctx, tname)
                    words = kinds.kind_of(ctx, t).qemu("test")[3].split()
                    self.assertEqual(words.count("setfs_series=none"), n)

    def test_builtin_runs_only_tests(self):
        ctx = core.Ctx(cache="/c")
        k = kinds.kind_of(ctx, target.load(ctx, "riscv64-nommu"))
        self.assertEqual(k.qemu("test"),
                         ["-append", "console=ttyS0 panic=-1 kunit_shutdown=poweroff"])
        with self.assertRaisesRegex(core.Failure, "has no user space"):
            k.qemu("shell")

    def test_kunit_suites(self):
        """The names the distro guest skips: every suite of kunit/, as the
        grep run.sh used to run found them."""
        old = subprocess.run(
            "grep -h -A1 'struct kunit_suite' kunit/*.c | "
            "sed -n 's/.*\\.name = \"\\(setfs_[a-z_]*\\)\".*/\\1/p' | LC_ALL=C sort",
            shell=True, cwd=TOP, capture_output=True, text=True, check=True).stdout.split()
        new = kinds.kunit_suites(core.Ctx(repo=TOP))
        self.assertGreater(len(new), 5)
        self.assertEqual(new, old)


class Config(unittest.TestCase):
    def test_verify_config_names_what_olddefconfig_dropped(self):
        with tempfile.TemporaryDirectory() as d:
            a, b, cfg = (os.path.join(d, n) for n in ("a.config", "b.config", ".config"))
            core.write(a, "CONFIG_A=y\nCONFIG_B=y\n# CONFIG_C is not set\n# comment\n")
            core.write(b, "# CONFIG_B is not set\nCONFIG_D=m\n")
            ctx = core.Ctx(repo=d, cache=d)
            t = target.load(ctx, "x86_64")
            core.write(cfg, "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_D=m\n")
            build.verify_config(ctx, t, cfg, [a, b])       # B: b.config wins
            core.write(cfg, "CONFIG_A=y\nCONFIG_B=y\nCONFIG_C=y\nCONFIG_D=y\n")
            err = io.StringIO()
            with contextlib.redirect_stderr(err), \
                    self.assertRaisesRegex(core.Failure, "olddefconfig dropped"):
                build.verify_config(ctx, t, cfg, [a, b])
            self.assertEqual(sorted(err.getvalue().split("\n")[:-1]),
                             ["  # CONFIG_B is not set (b.config)",
                              "  # CONFIG_C is not set (a.config)",
                              "  CONFIG_D=m (b.config)"])

    def test_kconfig_symbols_leave_out_what_names_alone_cannot_tell(self):
        self.assertEqual(build.kconfig_symbols("A && !B && !(C || D) && E != m && F=y && 64BIT"),
                         [(False, "A"), (True, "B"), (False, "64BIT")])
        self.assertEqual(build.kconfig_symbols("NR_CPUS >= 4 && X < 0x100 && "
                                               "$(cc-option,-fstack-protector) && G"),
                         [(False, "G")])

    def test_kconfig_index_reads_only_the_target_s_architecture(self):
        with tempfile.TemporaryDirectory() as src:
            for arch, dep in (("x86", "X86_64 # a comment WRITE_ONCE"), ("s390", "S390")):
                os.makedirs(os.path.join(src, "arch", arch))
                core.write(os.path.join(src, "arch", arch, "Kconfig"),
                           f"config NUMA\n\tdepends on {dep}\n\thelp\n"
                           "\t  Text that says it depends on this.\n\n"
                           "\t  And more.\nconfig NEXT\n\tdepends on NUMA\n")
            os.makedirs(os.path.join(src, "scripts", "kconfig", "tests"))
            core.write(os.path.join(src, "scripts", "kconfig", "tests", "Kconfig"),
                       "config NUMA\n\tdepends on TEST_ONLY\n")
            self.assertEqual(build.kconfig_index(src, "x86"),
                             {"NUMA": [("arch/x86/Kconfig", "X86_64")],
                              "NEXT": [("arch/x86/Kconfig", "NUMA")]})

    def test_a_dropped_option_names_its_dependencies_and_what_is_unset(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "linux")
            os.makedirs(os.path.join(src, "lib"))
            os.makedirs(os.path.join(src, "tools"))
            core.write(os.path.join(src, "lib", "Kconfig.kcsan"),
                       "menuconfig KCSAN\n\tbool \"KCSAN\"\n"
                       "\tdepends on HAVE_ARCH_KCSAN && \\\n\t\tHAVE_KCSAN_COMPILER\n"
                       "\tdepends on DEBUG_KERNEL && !KASAN\n"
                       "\tselect STACKTRACE\n\nif KCSAN\n"
                       "config KCSAN_VERBOSE\n\tdepends on PROVE_LOCKING\nendif\n")
            # not a definition the kernel's Kconfig reads
            core.write(os.path.join(src, "tools", "Kconfig"), "config KCSAN\n\tdepends on X\n")
            frag, cfg = os.path.join(d, "add.config"), os.path.join(d, ".config")
            core.write(frag, "CONFIG_KCSAN=y\n")
            core.write(cfg, "CONFIG_HAVE_ARCH_KCSAN=y\nCONFIG_HAVE_KCSAN_COMPILER=y\n"
                       "CONFIG_KASAN=y\n# CONFIG_DEBUG_KERNEL is not set\n")
            ctx = core.Ctx(repo=d, cache=d)
            t = target.load(ctx, "x86_64")
            err = io.StringIO()
            with contextlib.redirect_stderr(err), \
                    self.assertRaisesRegex(core.Failure, "olddefconfig dropped"):
                build.verify_config(ctx, t, cfg, [frag], src)
            self.assertEqual(err.getvalue().splitlines(), [
                "  CONFIG_KCSAN=y (add.config)"
                "; depends on HAVE_ARCH_KCSAN && HAVE_KCSAN_COMPILER (lib/Kconfig.kcsan)"
                "; depends on DEBUG_KERNEL && !KASAN (lib/Kconfig.kcsan): "
                "DEBUG_KERNEL unset, KASAN set here"])



class FixtureList(unittest.TestCase):
    """rootfs/fixture.list: the cpio builder's reading of it, and the
    dracut module's, make the same entries."""

    def test_cpio_lines(self):
        fx = build.Fixture(TOP)
        self.assertEqual((fx.mtime, fx.content), (1600000000, "setfs fixture\n"))
        lines = fx.cpio_lines("/w/fixture").splitlines()
        self.assertIn("file /setfs/a/b/file /w/fixture 0640 1000 100 /setfs/hardlink",
                      lines)
        self.assertEqual(len(lines), 6)

    def test_a_bad_line_is_named(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "rootfs"))
            core.write(os.path.join(d, build.FIXTURE_LIST),
                       "@mtime 1\n@content x\ndir /a 0755 0 0\nfifo /p 0600 0 0\n")
            with self.assertRaisesRegex(core.Failure, r"fixture.list:4: not an entry"):
                build.Fixture(d)

    @unittest.skipUnless(os.getuid() == 0, "the dracut module chowns: root only")
    def test_dracut_module_makes_the_same_entries(self):
        module = os.path.join(TOP, "rootfs", "dracut", "90setfs", "module-setup.sh")
        with tempfile.TemporaryDirectory() as d:
            script = (f'initdir={d}; derror() {{ echo "$*" >&2; }}; '
                      f'source <(sed -n "/^setfs_fixture()/,\\$p" {module}); '
                      f'setfs_fixture {os.path.join(TOP, build.FIXTURE_LIST)}')
            subprocess.run(["bash", "-c", script], check=True)
            got = {}
            for dirpath, dirs, files in os.walk(d):
                for n in dirs + files:
                    p = os.path.join(dirpath, n)
                    st = os.lstat(p)
                    got["/" + os.path.relpath(p, d)] = (
                        oct(st.st_mode), st.st_uid, st.st_gid, int(st.st_mtime),
                        st.st_nlink, os.readlink(p) if os.path.islink(p) else None)
            with open(os.path.join(d, "setfs", "hardlink")) as f:
                self.assertEqual(f.read(), "setfs fixture\n")
        want = {
            "/setfs": ("0o40755", 0, 0, 1600000000, 3, None),
            "/setfs/a": ("0o40750", 1000, 1000, 1600000000, 3, None),
            "/setfs/a/b": ("0o40700", 0, 0, 1600000000, 2, None),
            "/setfs/a/b/file": ("0o100640", 1000, 100, 1600000000, 2, None),
            "/setfs/hardlink": ("0o100640", 1000, 100, 1600000000, 2, None),
            "/setfs/symlink": ("0o120777", 0, 0, 1600000000, 1, "a/b/file"),
            "/setfs/chardev": ("0o20600", 0, 0, 1600000000, 1, None),
        }
        self.assertEqual(got, want)


class BenchCold(unittest.TestCase):
    """bench cold's row and sums come from the JSON the run leaves
    (SETFS_RESULTS), not from its output."""

    def test_cold_plan(self):
        """Every base from its own cache, then CI; with --arch only the
        bases' kunit on those targets, without goals."""
        from harness import base as base_mod
        from harness import benchrun

        names = base_mod.names()
        with tempfile.TemporaryDirectory() as d:
            ctx = core.Ctx(cache=d, repo="/r")
            b = benchrun.Bench(ctx)
            plan = b.cold_plan(d)
            self.assertEqual([p[4][1:] for p in plan[:-1]],
                             [["kunit", "--base", n] for n in names])
            self.assertEqual(len({p[2] for p in plan}), len(plan))
            self.assertEqual(plan[-1][1], "4500")
            self.assertEqual(plan[-1][4][:3], ["env", "CI=true", "bash"])
            self.assertTrue(plan[-1][4][-1].startswith(plan[-1][5] + "/"))
            self.assertEqual([p[5] for p in plan[:-1]], [""] * len(names))
            ctx.arches, ctx.arches_given = ["x86_64"], True
            plan = b.cold_plan(d)
            self.assertEqual([(p[1], p[4][1:]) for p in plan],
                             [("-", ["kunit", "--base", n, "--arch", "x86_64"])
                              for n in names])

    def test_cold_run_reads_the_results(self):
        from harness import benchrun

        with tempfile.TemporaryDirectory() as d:
            ctx = core.Ctx(cache=d)
            b = benchrun.Bench(ctx)
            data = ('{"stages": [{"name": "kernel", "seconds": 100.0}, '
                    '{"name": "kernel", "seconds": 20.5}, {"name": "boot+tests", '
                    '"seconds": 3.0}, {"name": "builtin tree", "seconds": 9.0}], '
                    '"parts": [["kunit", 130.0]], "sums": [1, 0, 0]}')
            cmd = ["sh", "-c", f"echo 'noise 999.0s' ; echo '{data}' >\"$SETFS_RESULTS\""]
            with quiet() as out:
                b.cold_run("cold x", "200", os.path.join(d, "c"),
                           os.path.join(d, "x.log"), cmd)
            self.assertEqual(out.getvalue().splitlines(), [
                "    cold x                               boot+tests       3.0s",
                "    cold x                               kernel         120.5s",
                "    cold x: kunit 130.0s"])
            self.assertEqual([(r.label, r.goal, r.met) for r in b.rows],
                             [("cold x", "200", "yes")])
            # a run that leaves no results is an error naming the file
            with quiet(), self.assertRaisesRegex(core.Failure, "left no .*results.json"):
                b.cold_run("cold y", "200", os.path.join(d, "y"),
                           os.path.join(d, "y.log"), ["true"])


class GuestContents(unittest.TestCase):
    """What a guest is given: each test fails if one of the harness's
    choices is undone (a mutation the earlier tests let through)."""

    def test_initramfs_carries_both_modules_and_the_user_binary(self):
        ctx = core.Ctx(repo=TOP, cache="/c")
        ctx.tree = "/c/linux"
        t = target.load(ctx, "x86_64")
        with tempfile.TemporaryDirectory() as d:
            lst = os.path.join(d, "fixture.list")
            with open(lst, "w") as f:
                f.write("# nothing\n")
            fixture = build.Fixture.__new__(build.Fixture)
            fixture.path, fixture.mtime, fixture.content, fixture.lines = lst, None, None, []
            text = build.initramfs_list(ctx, t, "/bb", fixture, os.path.join(d, "c"))
        files = {w[1]: w[2] for w in (line.split() for line in text.splitlines())
                 if w and w[0] == "file"}
        self.assertEqual(files.get("/root/setfs_probe.ko"),
                         "/c/work/x86_64/ext/module/setfs_probe.ko")
        self.assertEqual(files.get("/root/setfs_kunit.ko"),
                         "/c/work/x86_64/ext/kunit/setfs_kunit.ko")
        self.assertEqual(files.get("/root/setfs_user"),
                         os.path.join(build.user_dir(ctx, t), "setfs_user"))

    def test_user_binaries_are_per_compiler_not_per_target(self):
        """x86_64, its la57 and debug guests run one setfs_user (one build);
        another compiler gets its own directory."""
        ctx = core.Ctx(repo=TOP, cache="/c")
        ctx.tree = "/c/linux"
        dirs = {n: build.user_dir(ctx, target.load(ctx, n))
                for n in ("x86_64", "x86_64-la57", "x86_64+debug", "ppc64le")}
        self.assertEqual(dirs["x86_64"], dirs["x86_64-la57"])
        self.assertEqual(dirs["x86_64"], dirs["x86_64+debug"])
        self.assertNotEqual(dirs["x86_64"], dirs["ppc64le"])

    def test_32_bit_user_binaries_have_64_bit_file_offsets(self):
        """The user cases pread at 2^32 and beyond: on armv7 off_t must be
        64 bits with the flags the harness compiles setfs_user with."""
        ctx = core.Ctx(repo=TOP, cache="/c")
        cross = target.load(ctx, "armv7").cross
        # armv7's compiler, else clang -m32 (what run.sh uharness installs)
        if shutil.which(cross + "gcc") and os.path.isdir(f"/usr/{cross.rstrip('-')}/include"):
            cc = [cross + "gcc"]
        elif shutil.which("clang") and \
                os.path.isfile("/usr/include/x86_64-linux-gnu/gnu/stubs-32.h"):
            cc = ["clang", "-m32", "-idirafter", "/usr/include/x86_64-linux-gnu"]
        else:
            self.skipTest(f"no 32-bit compiler: neither {cross}gcc with its libc (run.sh "
                          "installs them for armv7) nor clang with libc6-dev-i386 "
                          "(run.sh uharness)")
        flags = [f for f in build.USER_CFLAGS if f not in ("-static", "-g")]
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "off.c")
            with open(src, "w") as f:
                f.write("#include <sys/types.h>\n"
                        "_Static_assert(sizeof(long) == 4, \"not a 32-bit build\");\n"
                        "_Static_assert(sizeof(off_t) == 8, \"32-bit off_t\");\n")
            r = subprocess.run([*cc, *flags, "-fsyntax-only", src],
                               capture_output=True, text=True, check=False)
        self.assertEqual(r.returncode, 0, r.stderr)


class Accel(unittest.TestCase):
    """KVM is tried when the record's Debian architecture is the host's."""

    def probe(self, host_arch: str, kvm_works: bool):
        from unittest import mock
        from harness import qemu
        ctx = core.Ctx(repo=TOP)
        started = []

        class Proc:
            def __init__(self, args, **_kw):
                started.append(args)
                log = [a for a in args if a.startswith("file:")][0][5:]
                with open(log, "w") as f:
                    f.write("Kernel panic - not syncing\n" if kvm_works else "")

            def wait(self):
                return 0

        self.addCleanup(core._CHILDREN.clear)
        with tempfile.TemporaryDirectory() as d:
            ctx.cache = d
            t = target.load(ctx, "x86_64")
            t.work = os.path.join(d, "work")
            with mock.patch.object(core, "output", return_value=host_arch), \
                    mock.patch.object(os, "access", return_value=True), \
                    mock.patch.object(subprocess, "Popen", Proc), \
                    mock.patch.object(qemu, "_RUNNING", []):
                got = qemu.accel(ctx, t)
        return got, started

    def test_kvm_on_the_same_debian_architecture(self):
        got, started = self.probe("amd64", True)
        self.assertEqual(got, "kvm")
        self.assertEqual(len(started), 1)
        self.assertIn("kvm", started[0])

    def test_tcg_when_kvm_does_not_boot_or_the_arch_differs(self):
        self.assertEqual(self.probe("amd64", False)[0], "tcg")
        got, started = self.probe("arm64", True)
        self.assertEqual((got, started), ("tcg", []))


class QemuFromSuite(unittest.TestCase):
    """qemu.suite: a record's QEMU from another Debian suite, unpacked into
    the cache (never installed), with the host libraries it depends on."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.ctx = core.Ctx(repo=TOP, cache_root=os.path.join(self.tmp, "c"),
                            cache=os.path.join(self.tmp, "c", "6.12"))
        os.makedirs(self.ctx.cache)
        self.t = target.load(self.ctx, "s390x")
        self.assertEqual(self.t.rec.qemu["suite"], "bookworm-backports")

    def deb(self, dest, name, files, depends=""):
        """A .deb named NAME holding FILES (path: (text, mode))."""
        root = os.path.join(self.tmp, "src-" + name)
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(os.path.join(root, "DEBIAN"))
        control = (f"Package: {name}\nVersion: 1:10.0\nArchitecture: all\n"
                   f"Maintainer: t <t@t>\nDescription: t\n")
        if depends:
            control += f"Depends: {depends}\n"
        core.write(os.path.join(root, "DEBIAN", "control"), control)
        for path, (text, mode) in files.items():
            p = os.path.join(root, path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            core.write(p, text)
            os.chmod(p, mode)
        subprocess.run(["dpkg-deb", "--root-owner-group", "-b", root,
                        os.path.join(dest, f"{name}_10.0_all.deb")],
                       check=True, stdout=subprocess.DEVNULL)

    def fake_download(self, script):
        def download(ctx, suite, arch, pkgs, dest):
            self.assertEqual((suite, sorted(pkgs)),
                             ("bookworm-backports", ["qemu-system-data", "qemu-system-s390x"]))
            self.deb(dest, "qemu-system-s390x",
                     {"usr/bin/qemu-system-s390x": (script, 0o755)},
                     "libaio1 (>= 0.3.93), libfoo2 | libbar2, qemu-system-common (= 1:10.0), "
                     "libc6 (>= 2.34)")
            self.deb(dest, "qemu-system-data", {"usr/share/qemu/s390-ccw.img": ("x", 0o644)})
        return download

    def test_libraries_of_a_depends_field(self):
        self.assertEqual(build.libraries("libaio1 (>= 0.3.93), libfoo2 | libbar2, "
                                         "qemu-system-common (= 1:10.0), libc6:any"),
                         ["libaio1", "libfoo2", "libc6"])

    def fetch(self, script, **kw):
        """fetch_qemu() with apt and the host's release faked."""
        with mock.patch.object(build, "apt_download",
                               side_effect=kw.get("download", self.fake_download(script))), \
                mock.patch.object(build, "host_codename", return_value=kw.get("host", "bookworm")), \
                mock.patch.object(build.core, "ensure_pkgs"), quiet():
            return build.fetch_qemu(self.ctx, self.t)

    def test_fetched_once_with_its_data_directory_and_libraries(self):
        d = build.qemu_dir(self.ctx, self.t)
        want = ["env", f"QEMU_MODULE_DIR={d}/modules", os.path.join(d, "usr/bin/qemu-system-s390x"),
                "-L", os.path.join(d, "usr/share/qemu")]
        self.assertEqual(build.qemu_program(self.ctx, self.t), want)
        script = "#!/bin/sh\necho 'QEMU emulator version 10.0.2'\n"
        with mock.patch.object(build, "apt_download", side_effect=self.fake_download(script)) as dl, \
                mock.patch.object(build, "host_codename", return_value="bookworm"), \
                mock.patch.object(build.core, "ensure_pkgs") as pkgs, quiet():
            self.assertEqual(build.fetch_qemu(self.ctx, self.t), want)
            self.assertEqual(build.fetch_qemu(self.ctx, self.t), want)
        self.assertEqual(dl.call_count, 1)
        pkgs.assert_called_once_with(self.ctx, ["libaio1", "libfoo2", "libc6"])
        self.assertTrue(os.path.isfile(os.path.join(d, "usr/share/qemu/s390-ccw.img")))
        self.assertEqual(core.read(os.path.join(d, "version")),
                         "QEMU emulator version 10.0.2\npackage=qemu-system-s390x host=bookworm\n")
        self.assertEqual(sorted(os.listdir(os.path.dirname(d))), ["bookworm-backports-s390x"])

    def test_a_binary_that_does_not_run_is_an_error_and_not_kept(self):
        script = "#!/bin/sh\necho 'error while loading shared libraries: libx.so.1' >&2\nexit 127\n"
        with self.assertRaisesRegex(core.Failure, "does not run here: .*libx.so.1"):
            self.fetch(script)
        self.assertFalse(os.path.exists(build.qemu_dir(self.ctx, self.t)))

    def test_an_interrupted_fetch_is_done_again(self):
        """A directory without its version stamp (a run killed while it
        unpacked) or without its binary is not used."""
        d = build.qemu_dir(self.ctx, self.t)
        os.makedirs(os.path.join(d, "usr", "bin"))
        script = "#!/bin/sh\necho 'QEMU emulator version 10.0.2'\n"
        self.fetch(script)
        self.assertTrue(os.access(os.path.join(d, "usr/bin/qemu-system-s390x"), os.X_OK))
        os.unlink(os.path.join(d, "usr/bin/qemu-system-s390x"))
        self.fetch(script)
        self.assertTrue(os.access(os.path.join(d, "usr/bin/qemu-system-s390x"), os.X_OK))

    def test_a_new_host_release_fetches_again(self):
        script = "#!/bin/sh\necho 'QEMU emulator version 10.0.2'\n"
        self.fetch(script)
        with self.assertRaisesRegex(core.Failure, "this host is trixie"):
            self.fetch(script, host="trixie")

    def test_a_suite_of_another_release_is_refused(self):
        with self.assertRaisesRegex(core.Failure, "qemu.suite bookworm-backports is built for "
                                    "Debian bookworm, and this host is trixie"):
            self.fetch("", host="trixie")
        self.assertFalse(os.path.exists(build.qemu_dir(self.ctx, self.t)))

    def test_the_wrong_packages_are_an_error(self):
        def download(ctx, suite, arch, pkgs, dest):
            self.deb(dest, "qemu-system-data", {"usr/share/qemu/x": ("x", 0o644)})
        with self.assertRaisesRegex(core.Failure, r"gave \['qemu-system-data_10.0_all.deb'\]"):
            self.fetch("", download=download)

    def test_firmware_is_looked_for_in_the_suite_s_data_directory(self):
        from harness import qemu
        rec = dataclasses.replace(self.t.rec, qemu={**self.t.rec.qemu, "firmware": "s390-ccw.img"})
        t = dataclasses.replace(self.t, rec=rec)
        with self.assertRaisesRegex(core.Failure, "s390-ccw.img not found in "
                                    + re.escape(build.qemu_data_dir(self.ctx, t))):
            qemu.check_firmware(self.ctx, t)
        self.fetch("#!/bin/sh\necho 'QEMU emulator version 10.0.2'\n")
        qemu.check_firmware(self.ctx, t)

    def test_the_host_qemu_without_a_suite(self):
        t = target.load(self.ctx, "x86_64")
        self.assertEqual(build.fetch_qemu(self.ctx, t), ["qemu-system-x86_64"])


class BoundedBoots(unittest.TestCase):
    """qemu.start_all(): at most ctx.guests running, TARGETS' order kept."""

    def test_never_more_than_the_slots(self):
        from harness import qemu
        ctx = core.Ctx(repo=TOP, cache="/c", guests=2)
        started, most = [], [0]

        def start_one(name):
            live = sum(p.poll() is None for p in started)
            most[0] = max(most[0], live + 1)
            if name == "c":
                # a (0.2 s) has exited, b (1 s) has not: c did not wait for b
                self.assertIsNone(started[1].poll())
            p = subprocess.Popen(["sleep", "1" if name == "b" else "0.2"])
            started.append(p)
            return types.SimpleNamespace(proc=p, name=name)

        got = []
        with mock.patch.object(qemu, "ready"):
            for g in qemu.start_all(ctx, ["a", "b", "c", "d", "e"], start_one):
                self.assertIsNotNone(g.proc.poll())
                got.append(g.name)
                if g.name == "a":
                    # reported while b still runs
                    self.assertIsNone(started[1].poll())
        self.assertEqual(got, ["a", "b", "c", "d", "e"])
        self.assertEqual(most[0], 2)

    def test_a_target_that_cannot_boot_fails_before_any_boots(self):
        from harness import qemu
        ctx = core.Ctx(repo=TOP, cache="/c", guests=2)

        def ready(ctx, t):
            if t == "c":
                core.die("c: no firmware")
        start_one = mock.Mock()
        with mock.patch.object(qemu, "ready", side_effect=ready), \
                self.assertRaisesRegex(core.Failure, "c: no firmware"):
            list(qemu.start_all(ctx, ["a", "b", "c"], start_one))
        start_one.assert_not_called()

    def test_guests_default_to_the_cpus_and_a_bad_value_is_refused(self):
        with mock.patch.object(core, "ncpus", return_value=3):
            self.assertEqual(core.Ctx.from_env({"HOME": "/h"}).guests, 3)
            self.assertEqual(core.Ctx.from_env({"HOME": "/h", "SETFS_GUESTS": "1"}).guests, 1)
        for bad in ("0", "two"):
            ctx = core.Ctx.from_env({"HOME": "/h", "SETFS_GUESTS": bad})
            with self.assertRaisesRegex(core.UsageFailure, f"SETFS_GUESTS .* not '{bad}'"):
                cli.parse(["kunit"], ctx, target.lists())


if __name__ == "__main__":
    unittest.main()
