# SPDX-License-Identifier: GPL-2.0
"""What a target's kind (the record's "kind") does, one class per kind:
the one place where a kernel built from the tree, a distribution's kernel
and a kernel with the suites built in differ.

    fragments()   the config fragments of the kind (after base.config)
    build()       every stage up to the initramfs
    image()       the kernel QEMU boots
    qemu(mode)    what QEMU gets besides the machine and the kernel
"""

import os
import re
import shutil
from typing import List

from harness import build, core, stage, target, tree
from harness.stage import Stage, StageFailed, run_logged
from harness.target import Target


def cmdline_soak(ctx) -> str:
    """The command line words of the soak, with a leading space;
    SETFS_GUEST_ARGS comes after them and wins."""
    return f" {core.SOAK_QUICK}" if ctx.soak == "quick" else ""


def case_timeout(ctx) -> int:
    """setfs_user's limit per case: a third of the guest's timeout, so that
    a hung case fails alone and the rest of the guest still reports."""
    return max(30, int(ctx.boot_timeout) // 3)


class Kind:
    name = ""

    @staticmethod
    def check_filters(name: str, filters: List[str]):
        """A usage error when a target of this kind cannot take FILTERS."""

    def __init__(self, ctx: core.Ctx, t: Target):
        self.ctx, self.t = ctx, t

    # the sources the kernel is built from, and what of them the tree's
    # commit does not name
    def src(self) -> str:
        return self.ctx.tree

    def src_key(self) -> str:
        return ""

    def kind_fragments(self) -> List[str]:
        return []

    def fragments(self) -> List[str]:
        repo, base = self.ctx.repo, self.ctx.base
        extra = [os.path.join(repo, f) for f in
                 (base.target_fragments(self.t.base, self.t.kind) if base else [])]
        return ([os.path.join(repo, "config", "base.config")] + self.kind_fragments() +
                self.t.fragments(repo, extra))

    def build(self):
        raise NotImplementedError

    def configure(self):
        """The config stage alone (./run.sh config)."""
        raise NotImplementedError

    def boot_files(self) -> List[str]:
        """What exec boots: the kernel image and our initramfs."""
        return [self.image(), os.path.join(self.t.work, "initramfs.cpio")]

    def image(self) -> str:
        return os.path.join(self.t.build, self.t.image)

    def qemu(self, mode: str) -> List[str]:
        raise NotImplementedError

    def kernel(self, t: Target) -> stage.StageResult:
        """config and kernel stages of T (this target or the one whose
        kernel it boots): the kernel stage's result."""
        self.config(t)
        return build.build_kernel(self.ctx, t, self.src(), self.src_key())

    def config(self, t: Target):
        """The config stage of T (this target or the one whose kernel it
        boots)."""
        frags = kind_of(self.ctx, t).fragments()
        return build.configure_kernel(self.ctx, t, frags, self.src(), self.src_key())


class TreeKind(Kind):
    """A kernel built from the tree, booted with our initramfs."""
    name = "tree"

    def kind_fragments(self):
        # what the user-space cases read in /proc
        return [os.path.join(self.ctx.repo, "config", f)
                for f in ("procfs.config", "selftests.config", "procread.config")]

    def build(self):
        t = self.t
        if t.kowner:
            # Another target's kernel: configure and build it as that
            # target (up to date when it ran first), then go on as this one.
            kernel = self.kernel(target.load(self.ctx, t.kowner))
        else:
            kernel = self.kernel(t)
        modules = build.build_modules(self.ctx, t, kernel)
        user = build.build_user(self.ctx, t)
        build.build_rootfs(self.ctx, t, modules, user)

    def configure(self):
        t = self.t
        self.config(target.load(self.ctx, t.kowner) if t.kowner else t)

    def qemu(self, mode):
        ctx, t = self.ctx, self.t
        g = t.rec.guest
        words = [f"console={t.rec.qemu['console']}", "panic=-1", "profile=2",
                 *g["cmdline"], f"setfs_mode={mode}", f"setfs_halt={t.rec.qemu['halt']}",
                 f"setfs_target={t.base}", f"setfs_paging={g['paging']}",
                 f"setfs_task_size_max={g['task_size_max']}"]
        append = " ".join(words)
        if ctx.filter:
            append += f" setfs_filter={ctx.filter}"
        if mode == "list":
            append += " kunit.action=list"     # the peers list their cases too
        # a hung case fails alone, well before the guest's own timeout
        append += f" setfs_case_timeout={case_timeout(ctx)}"
        append += cmdline_soak(ctx)
        # The tree's own KUnit suites the base names, loaded after ours
        # (rootfs/init); a distribution kernel has no KUnit.
        if ctx.base.peers and t.kind == "tree":
            append += " setfs_kunit_peers=" + ",".join(
                f"{m}:{s}" for m, s in ctx.base.peers)
        # A base without the procfs series: the guest expects the
        # pristine procfs side, as on a distribution's kernel.
        if not ctx.base.procfs and "setfs_series=none" not in g["cmdline"]:
            append += " setfs_series=none"
        extra = ctx.settings.guest_args
        if extra:
            append += " " + extra
        return ["-initrd", os.path.join(t.work, "initramfs.cpio"), "-append", append]


class DistroKind(TreeKind):
    """Debian's linux-image for the record's flavour and its headers,
    downloaded with apt-get download and unpacked into the cache with
    dpkg-deb, never installed.  The ABI is the one whose version is the
    base's linux-source package's, so that the distro guest and the tree
    guests run the same release; the base says what its ABI names look
    like (distro.abi) and which kbuild package goes with them."""
    name = "distro"

    def __init__(self, ctx, t):
        super().__init__(ctx, t)
        self.dir = os.path.join(ctx.cache, "distro", t.rec.distro["flavour"] or "")
        self.root = os.path.join(self.dir, "root")

    def kver(self) -> str:
        return core.read(os.path.join(self.dir, "kver"), "").strip()

    def image(self):
        return os.path.join(self.root, "boot", f"vmlinuz-{self.kver() or '<KVER>'}")

    def build(self):
        self.fetch()
        modules = self.build_modules()
        user = build.build_user(self.ctx, self.t)
        self.build_rootfs(modules, user)

    def configure(self):
        core.out(f"    config: none, {self.t.name} boots Debian's configured kernel")

    def abi(self, want: str):
        """The ABI name (6.1.0-N, 6.12.N+deb12: the base's distro.abi) of
        the image package whose version is WANT (or the newest there is,
        said so); None when apt knows none."""
        flavour = self.t.rec.distro["flavour"]
        pat = re.compile(rf"^linux-image-({self.ctx.base.distro_abi})-"
                         rf"{re.escape(flavour)}(-unsigned)?$")
        found = [line.split(" ", 1)[0] for line in core.output(
            ["apt-cache", "search", "--names-only", "^linux-image-"],
            check=False).splitlines() if line]
        found = [n for n in found if pat.match(n)]
        names = sorted(found, key=version_key)
        best = None
        for pkg in names:
            if apt_version(pkg) == want:
                return pkg[len("linux-image-"):].split(f"-{flavour}")[0]
            best = pkg
        if best is None:
            return None
        core.err(f"no linux-image for {flavour} at version {want}; using {best}")
        return best[len("linux-image-"):].split(f"-{flavour}")[0]

    def fetch(self):
        ctx, t = self.ctx, self.t
        t0 = core.now()
        kver = self.kver()
        if kver and os.path.isdir(os.path.join(self.root, "lib", "modules", kver)):
            return stage.record(ctx, "distro", f"Debian {kver} (cached)", core.elapsed(t0),
                                t.name, "up to date")
        b = ctx.base
        srcver = core.output(["dpkg-query", "-W", "-f=${Version}", b.package],
                             check=False)
        if not srcver:
            core.die(f"{b.package} is not installed")
        abi = self.abi(srcver)
        if abi is None:
            core.run(["apt-get", "update"], log=os.path.join(ctx.cache, "apt.log"))
            abi = self.abi(srcver)
        flavour = t.rec.distro["flavour"]
        if abi is None:
            core.die(f"{t.name}: apt knows no linux-image package of base {b.name} "
                     f"for {flavour} (ABI {b.distro_abi}: {b.path}: distro.abi)")
        kver = f"{abi}-{flavour}"
        ver = apt_version(f"linux-headers-{kver}")
        if not ver:
            core.die(f"{t.name}: no linux-headers-{kver} package")
        pkgs = [t.rec.distro["image"].replace("@KVER@", kver) + f"={ver}",
                f"linux-headers-{kver}={ver}", f"linux-headers-{abi}-common={ver}",
                b.distro_kbuild.replace("@ABI@", abi) + f"={ver}"]
        core.info(f"downloading {' '.join(pkgs)}")
        shutil.rmtree(self.dir, ignore_errors=True)
        debs = os.path.join(self.dir, "debs")
        os.makedirs(debs)
        log = os.path.join(self.dir, "download.log")
        if core.run(["apt-get", "download", *pkgs], cwd=debs, log=log).returncode != 0:
            core.tail_to_stderr(log, 20)
            core.die(f"{t.name}: apt-get download failed (log: {log})")
        tmp = os.path.join(self.dir, "root.tmp")
        os.makedirs(tmp)
        for deb in sorted(os.listdir(debs)):
            if deb.endswith(".deb"):
                core.run(["dpkg-deb", "-x", os.path.join(debs, deb), tmp], check=True)
        # The headers' Makefile includes the common part by absolute path.
        mk = os.path.join(tmp, "usr", "src", f"linux-headers-{kver}", "Makefile")
        text = core.read(mk)
        core.write(mk, re.sub(r"(?m)^include /usr/src/",
                              f"include {self.root}/usr/src/", text))
        os.rename(tmp, self.root)
        shutil.rmtree(debs)
        core.write(os.path.join(self.dir, "kver"), kver + "\n")
        return stage.record(ctx, "distro", f"Debian {kver} ({ver}) downloaded",
                            core.elapsed(t0), t.name)

    def build_modules(self) -> stage.StageResult:
        """setfs_probe.ko against the distribution's headers, the ordinary
        way (make -C <headers> M=...), installed into the unpacked module
        tree's updates/ so that modprobe finds it.  No setfs_kunit.ko: a
        distro kernel without CONFIG_KUNIT cannot load it, and the guest is
        told why."""
        ctx, t = self.ctx, self.t
        kver = self.kver()
        src = os.path.join(t.work, "ext")
        kdir = os.path.join(self.root, "usr", "src", f"linux-headers-{kver}")
        mdir = os.path.join(self.root, "lib", "modules", kver)
        key = (f"{kver} {core.hash_dir_files(ctx.repo, build.module_sources(ctx))} "
               f"{core.hash_files(ctx.repo, [os.path.join(ctx.tree, 'lib', 'test_module.c')])} "
               f"{core.gcc_version('')}")
        log = os.path.join(t.work, "modules.log")

        def body():
            os.makedirs(src, exist_ok=True)
            build.sync_sources(src, os.path.join(ctx.repo, "module"))
            # The splice selftest loads lib/test_module.c, which Debian does
            # not build (no CONFIG_TEST_LKM): build it from the tree the
            # same way.
            tm = os.path.join(src, "test_module")
            os.makedirs(tm, exist_ok=True)
            shutil.copy(os.path.join(ctx.tree, "lib", "test_module.c"), tm)
            core.write(os.path.join(tm, "Kbuild"), "obj-m += test_module.o\n")
            for m in ("module", "test_module"):
                try:
                    run_logged(["make", "-C", kdir, f"M={src}/{m}", "W=1", "modules"], log, "")
                except StageFailed as e:
                    raise StageFailed(f"{t.name}: building {m} against {kdir} failed "
                                      f"(log: {log})", e.log) from None
            os.makedirs(os.path.join(mdir, "updates"), exist_ok=True)
            for ko in ("module/setfs_probe.ko", "test_module/test_module.ko"):
                shutil.copy(os.path.join(src, ko), os.path.join(mdir, "updates"))
            if not core.ok(["depmod", "-b", self.root, kver]):
                core.die(f"{t.name}: depmod -b {self.root} {kver} failed")
            os.makedirs(os.path.join(t.work, "stage", "root"), exist_ok=True)
            cfg = core.read(os.path.join(self.root, "boot", f"config-{kver}"))
            if re.search(r"(?m)^CONFIG_KUNIT=[ym]$", cfg):
                core.die(f"{t.name}: this kernel has CONFIG_KUNIT: build setfs_kunit.ko "
                         "for it (not done yet)")
            core.write(os.path.join(t.work, "stage", "root", "kunit.skip"),
                       f"{kver} has no CONFIG_KUNIT, so setfs_kunit.ko cannot load\n" +
                       "".join(s + "\n" for s in kunit_suites(ctx)))
            return f"built against linux-headers-{kver} (W=1)"

        return Stage(ctx, "modules", key=key, stamp=os.path.join(t.work, "stamp.modules"),
                     outputs=[os.path.join(mdir, "updates", "setfs_probe.ko")],
                     target=t.name).run(body)

    def build_rootfs(self, modules: stage.StageResult,
                     user: stage.StageResult) -> stage.StageResult:
        """dracut on the unpacked module tree with our dracut module
        (rootfs/dracut/90setfs), which installs the tests and runs
        rootfs/init from a cmdline hook.  dracut reads its modules from
        dracutbasedir: a directory of links to the system's dracut plus
        ours."""
        ctx, t = self.ctx, self.t
        kver = self.kver()
        stg = os.path.join(t.work, "stage")
        base = os.path.join(t.work, "dracut-base")
        out = os.path.join(t.work, "initramfs.cpio")
        busybox = build.fetch_busybox(ctx, t)
        dracut_ver = core.output(["dpkg-query", "-W", "-f=${Version}", "dracut-core"],
                                 check=False)
        key = (f"{modules.key} {user.key} "
               f"{core.hash_dir_files(ctx.repo, [os.path.join(ctx.repo, 'rootfs', 'dracut')])} "
               f"{core.hash_files(ctx.repo, [os.path.join(ctx.repo, 'rootfs', 'init'), busybox])} "
               f"{core.hash_files(ctx.repo, [os.path.join(ctx.repo, build.FIXTURE_LIST)])} "
               f"{dracut_ver}")
        log = os.path.join(t.work, "rootfs.log")

        def body():
            if shutil.which("dracut") is None:
                core.die(f"{t.name}: dracut is missing (package dracut-core)")
            splice = os.path.join(stg, "root", "selftests", "splice")
            os.makedirs(splice, exist_ok=True)
            shutil.copy(os.path.join(ctx.repo, "rootfs", "init"), os.path.join(stg, "init"))
            shutil.copy(busybox, os.path.join(stg, "busybox"))
            # setfs_user_unload reloads the probe from /root with finit_module().
            # fixture.list: the dracut module makes its entries, and
            # setfs_user_initramfs reads it as /root/fixture.list.
            for f in (os.path.join(build.user_dir(ctx, t), "setfs_user"),
                      os.path.join(t.work, "ext", "module", "setfs_probe.ko"),
                      os.path.join(ctx.repo, build.FIXTURE_LIST)):
                shutil.copy(f, os.path.join(stg, "root"))
            shutil.copy(os.path.join(self.root, "boot", f"config-{kver}"),
                        os.path.join(stg, "root", "kernel.config"))
            for f in (os.path.join(ctx.tree, build.SPLICE_SELFTEST, "short_splice_read.sh"),
                      os.path.join(build.user_dir(ctx, t), "splice_read")):
                shutil.copy(f, splice)
            shutil.rmtree(base, ignore_errors=True)
            os.makedirs(os.path.join(base, "modules.d"))
            for f in sorted(os.listdir("/usr/lib/dracut")):
                if f != "modules.d":
                    os.symlink(os.path.join("/usr/lib/dracut", f), os.path.join(base, f))
            for f in sorted(os.listdir("/usr/lib/dracut/modules.d")):
                os.symlink(os.path.join("/usr/lib/dracut/modules.d", f),
                           os.path.join(base, "modules.d", f))
            os.symlink(os.path.join(ctx.repo, "rootfs", "dracut", "90setfs"),
                       os.path.join(base, "modules.d", "90setfs"))
            for d in ("dracut-conf.d", "dracut-tmp"):
                os.makedirs(os.path.join(t.work, d), exist_ok=True)
            try:
                run_logged(["dracut", "--force", "--no-hostonly", "--no-hostonly-cmdline",
                            "--no-early-microcode", "--conf", "/dev/null", "--confdir",
                            os.path.join(t.work, "dracut-conf.d"), "--tmpdir",
                            os.path.join(t.work, "dracut-tmp"), "--no-compress",
                            "--kver", kver, "--kmoddir",
                            os.path.join(self.root, "lib", "modules", kver),
                            "--modules", "base setfs", out + ".new"], log, "",
                           env={"SETFS_STAGE": stg, "dracutbasedir": base})
            except StageFailed as e:
                raise StageFailed(f"{t.name}: dracut failed (log: {log})", e.log) from None
            os.replace(out + ".new", out)
            return f"dracut ({build.kib(out)} KiB)"

        return Stage(ctx, "rootfs", key=key, stamp=os.path.join(t.work, "stamp.rootfs"),
                     outputs=[out], target=t.name).run(body)


def apt_version(pkg: str) -> str:
    """The version apt would install of PKG ("" when it knows none)."""
    show = core.output(["apt-cache", "show", "--no-all-versions", pkg], check=False)
    return next((line[len("Version: "):] for line in show.splitlines()
                 if line.startswith("Version: ")), "")


def version_key(name: str):
    """sort -V, enough for package names: digit runs compare as numbers."""
    return [(0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", name)]


def kunit_suites(ctx) -> List[str]:
    """The names of kunit/'s suites, from their struct kunit_suite
    initializers."""
    names = set()
    d = os.path.join(ctx.repo, "kunit")
    for f in sorted(os.listdir(d)):
        if f.endswith(".c"):
            for m in re.finditer(r"struct\s+kunit_suite\s+\w+\s*=\s*\{[^}]*?"
                                 r"\.name\s*=\s*\"(setfs_[a-z_]*)\"",
                                 core.read(os.path.join(d, f))):
                names.add(m.group(1))
    return sorted(names, key=os.fsencode)


class BuiltinKind(Kind):
    """A kernel built from a worktree of the tree at its HEAD in which
    kunit/ and module/ sit in drivers/misc/setfs/ and build into the
    kernel (their Kbuild files say obj-y when not built with M=).  Its
    KUnit suites run at boot; there is no user space."""
    name = "builtin"

    @staticmethod
    def check_filters(name, filters):
        # KUnit's executor takes one SUITE[.CASE] glob (kunit.filter_glob)
        if len(filters) > 1:
            core.usage_error(f"{name} runs its suites built into the kernel, whose "
                             f"kunit.filter_glob takes one glob: '{','.join(filters)}' "
                             "has several")

    def src(self):
        return os.path.join(self.ctx.cache, "builtin", "linux")

    def src_key(self):
        # kunit/ and module/ are compiled into the kernel
        return core.hash_dir_files(self.ctx.repo, [os.path.join(self.ctx.repo, d)
                                                   for d in ("kunit", "module")])

    def build(self):
        self.sync_tree()
        self.kernel(self.t)

    def configure(self):
        self.sync_tree()
        self.config(self.t)

    def boot_files(self):
        return [self.image()]      # the suites and init are built in

    def qemu(self, mode):
        if mode not in ("test", "list"):
            core.die(f"{self.t.name}: a builtin target has no user space: it only runs "
                     "its KUnit suites at boot (no shell, bench or series)")
        append = (f"console={self.t.rec.qemu['console']} panic=-1 "
                  f"kunit_shutdown={self.t.rec.qemu['halt']}")
        if mode == "list":
            append += " kunit.action=list"
        if self.ctx.filter:
            append += f" kunit.filter_glob={self.ctx.filter}"
        return ["-append", append]

    def sync_tree(self):
        """run.sh owns the worktree and resets it to the tree's HEAD; files
        are copied only when their content changed, so make rebuilds only
        what changed."""
        ctx, t = self.ctx, self.t
        t0 = core.now()
        src = self.src()
        d = os.path.join(src, "drivers", "misc")
        kbuild = "obj-y += module/ kunit/"
        if ctx.keep_tree and core.git(ctx.tree, "status", "--porcelain",
                                      "--untracked-files=no"):
            core.die(f"{t.name} builds from a copy of the tree's HEAD, which does not hold "
                     "the tree's uncommitted edits: commit them first (--keep-tree)")
        tree.worktree_at(ctx, src, "HEAD", "discard")
        # drivers/misc/Makefile: the tree's, plus one line
        mk = os.path.join(d, "Makefile")
        if "obj-y += setfs/" not in core.read(mk).splitlines():
            core.git(src, "checkout", "-q", "--", "drivers/misc/Makefile")
            with open(mk, "a") as fh:
                fh.write("obj-y += setfs/\n")
        for sub in ("kunit", "module"):
            os.makedirs(os.path.join(d, "setfs", sub), exist_ok=True)
        kb = os.path.join(d, "setfs", "Kbuild")
        if core.read(kb, "").rstrip("\n") != kbuild:
            core.write(kb, kbuild + "\n")
        build.sync_sources(os.path.join(d, "setfs", "kunit"), os.path.join(ctx.repo, "kunit") + "/")
        build.sync_sources(os.path.join(d, "setfs", "module"), os.path.join(ctx.repo, "module") + "/")
        short = core.git(src, "rev-parse", "--short", "HEAD")
        return stage.record(ctx, "builtin tree", f"{short} + kunit/ module/", core.elapsed(t0),
                            t.name)


KINDS = {"tree": TreeKind, "distro": DistroKind, "builtin": BuiltinKind}


def kind_of(ctx, t: Target) -> Kind:
    return KINDS[t.kind](ctx, t)
