# SPDX-License-Identifier: GPL-2.0
"""The build stages of a target: config, kernel, modules, user binary,
busybox and the initramfs; a distribution kernel's download, its module
build and its dracut initramfs; the builtin kind's source tree.  Each is a
stage.Stage: it takes the results of the stages it builds on and returns
its own StageResult, whose key the stages after it take in turn.  Which
of them a target runs is its kind's business (harness/kinds.py).
"""

import hashlib
import os
import re
import shutil
from typing import Dict, List

from harness import core, toolchain, tree
from harness.stage import Stage, StageFailed, StageResult, run_logged
from harness.target import Target

# The fixture the user tests check (rootfs/user_initramfs.c), one list
# for both kinds of initramfs.
FIXTURE_LIST = "rootfs/fixture.list"

SPLICE_SELFTEST = "tools/testing/selftests/splice"

# 64-bit file offsets on 32-bit targets too (the cases pread at 2^32 and beyond).
USER_CFLAGS = ["-static", "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-std=gnu11",
               "-D_FILE_OFFSET_BITS=64"]

# The initramfs of a tree target, for the tree's usr/gen_init_cpio: every
# entry (mode, owner, device numbers) named explicitly; the fixture's
# entries (FIXTURE_LIST) follow.  {names} are filled in by build_rootfs().
INITRAMFS_LIST = """\
dir /bin 0755 0 0
dir /sbin 0755 0 0
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
nod /dev/null 0666 0 0 c 1 3
dir /proc 0555 0 0
dir /sys 0555 0 0
dir /tmp 1777 0 0
dir /root 0700 0 0
file /bin/busybox {busybox} 0755 0 0
slink /bin/sh busybox 0777 0 0
file /init {repo}/rootfs/init 0755 0 0
file /root/setfs_probe.ko {work}/ext/module/setfs_probe.ko 0644 0 0
file /root/setfs_kunit.ko {work}/ext/kunit/setfs_kunit.ko 0644 0 0
file /root/setfs_user {user}/setfs_user 0755 0 0
file /root/kernel.config {build}/.config 0644 0 0
file /root/fixture.list {repo}/rootfs/fixture.list 0644 0 0
dir /root/selftests 0755 0 0
dir /root/selftests/splice 0755 0 0
file /root/selftests/splice/short_splice_read.sh {tree}/{selftest}/short_splice_read.sh 0755 0 0
file /root/selftests/splice/splice_read {user}/splice_read 0755 0 0
"""



class Fixture:
    """FIXTURE_LIST: its @mtime, @content and gen_init_cpio lines."""

    def __init__(self, repo: str):
        self.path = os.path.join(repo, FIXTURE_LIST)
        self.mtime, self.content, self.lines = None, None, []
        for n, line in enumerate(core.read(self.path).splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("@mtime ") and line.split()[1].isdigit():
                self.mtime = int(line.split()[1])
            elif line.startswith("@content "):
                self.content = line[len("@content "):] + "\n"
            elif line.split()[0] in ("dir", "file", "slink", "nod"):
                self.lines.append(line)
            else:
                core.die(f"{FIXTURE_LIST}:{n}: not an entry, @mtime or @content: {line}")
        if self.mtime is None or self.content is None:
            core.die(f"{FIXTURE_LIST}: needs an @mtime and a @content line")

    def cpio_lines(self, content_file: str) -> str:
        return "".join(line.replace("@FIXTURE@", content_file) + "\n"
                       for line in self.lines)



def make_args(ctx: core.Ctx, t: Target, src: str) -> List[str]:
    return toolchain.make_command(ctx.jobs, src, t.build, t.linux_arch, t.cross)


def ccache_env(ctx) -> Dict[str, str]:
    return {"CCACHE_DIR": ctx.settings.ccache_dir or os.path.join(ctx.cache_root, "ccache")}


def run_make(ctx, t: Target, log: str, what: str, cmd: List[str]):
    try:
        run_logged(cmd, log, what, header=True, env=ccache_env(ctx))
    except StageFailed as e:
        raise StageFailed(f"{t.name}: {what} failed (full log: {log})", e.log,
                          e.lines, True) from None


# ---------------------------------------------------------------- config

def config_settings(ctx, frags: List[str]):
    """Each option's last setting in the fragments (a later fragment
    overrides an earlier one), and where from."""
    setting, origin = {}, {}
    for frag in frags:
        with open(frag) as fh:
            for line in fh:
                line = line.rstrip("\n")
                m = re.match(r"^(CONFIG_[^=]*)=", line) or \
                    re.match(r"^# (CONFIG_\S*) is not set", line)
                if line.startswith("# CONFIG_") and not line.endswith(" is not set"):
                    continue
                if not m:
                    continue
                setting[m.group(1)] = line
                origin[m.group(1)] = ctx.rel(frag)
    return setting, origin


def verify_config(ctx, t: Target, cfg: str, frags: List[str], src: str = ""):
    """Every option the fragments ask for must be in .config as asked; for
    one that olddefconfig turned off, say what it depends on (in SRC's
    Kconfig files) and which of those symbols this .config lacks."""
    setting, origin = config_settings(ctx, frags)
    lines = set(core.read(cfg).splitlines())
    names = {line.split("=", 1)[0] for line in lines if line.startswith("CONFIG_")}
    dropped = []
    index = None
    for name, line in setting.items():
        present = line in lines if line.startswith("CONFIG_") else name not in names
        if not present:
            why = ""
            if src and line.startswith("CONFIG_") and name not in names:
                if index is None:
                    index = kconfig_index(src, t.linux_arch)
                deps = unmet_depends(index, name[7:], names)
                why = "".join(f"; depends on {expr} ({path})" +
                              (f": {', '.join(unmet)} here" if unmet else "")
                              for path, expr, unmet in deps)
                if len({path for path, _, _ in deps}) > 1:
                    why += " (definitions in several files: one met is enough)"
                if not any(unmet for _, _, unmet in deps):
                    why += " (or an enclosing if, menu or choice, which this does not read)"
            dropped.append(f"{line} ({origin[name]}){why}")
    if dropped:
        for d in dropped:
            core.err(f"  {d}")
        core.die(f"{t.name}: olddefconfig dropped or changed the options above "
                 f"(missing dependencies?); see {cfg}")


KCONFIG_BLOCK_END = re.compile(r"^(config|menuconfig|choice|endchoice|menu|endmenu|if|endif|"
                               r"source|comment|mainmenu)\b")


def kconfig_index(src: str, linux_arch: str) -> Dict[str, List[tuple]]:
    """Each symbol's direct 'depends on' expressions, as (Kconfig file
    relative to SRC, expression), from the Kconfig files the kernel reads
    for LINUX_ARCH: arch/LINUX_ARCH and the rest of the tree but other
    architectures, tools/ and Documentation/.  Not those of an enclosing
    if or menu; comments and continuation lines handled."""
    index: Dict[str, List[tuple]] = {}
    head = re.compile(r"^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$")
    for root, dirs, files in os.walk(src):
        rel_root = os.path.relpath(root, src)
        dirs[:] = [d for d in dirs if not d.startswith(".")
                   and not (rel_root == "." and d in ("Documentation", "tools"))
                   and not (rel_root == "arch" and d != linux_arch)
                   and not (rel_root == os.path.join("scripts", "kconfig") and d == "tests")]
        for f in files:
            if not f.startswith("Kconfig"):
                continue
            path = os.path.join(root, f)
            sym, in_help = None, False
            for line in core.read(path, "").replace("\\\n", " ").splitlines():
                if in_help:
                    # help text runs while indented (or blank)
                    if not line.strip() or line[:1] in (" ", "\t"):
                        continue
                    in_help = False
                line = line.split("#", 1)[0]
                m = head.match(line)
                if m:
                    sym = m.group(1)
                    continue
                stripped = line.strip()
                if stripped in ("help", "---help---"):
                    in_help = True
                    continue
                if sym and KCONFIG_BLOCK_END.match(stripped):
                    sym = None
                if sym and stripped.startswith("depends on "):
                    entry = (os.path.relpath(path, src),
                             " ".join(stripped[len("depends on "):].split()))
                    if entry not in index.setdefault(sym, []):
                        index[sym].append(entry)
    return index


def kconfig_symbols(expr: str) -> List[tuple]:
    """The symbols EXPR needs set (False) or unset (True, after a '!'),
    leaving out what the names alone cannot tell: operands of = and !=,
    and anything inside a negated group."""
    expr = re.sub(r"\$\([^()]*\)", " ", expr)
    expr = re.sub(r"[A-Za-z0-9_]+\s*(?:!=|=|<=|>=|<|>)\s*[A-Za-z0-9_\"]+", " ", expr)
    while True:
        out = re.sub(r"!\s*\([^()]*\)", " ", expr)
        if out == expr:
            break
        expr = out
    return [(neg == "!", name) for neg, name in re.findall(r"(!?)\s*([A-Za-z0-9_]+)", expr)
            if name not in ("y", "m", "n") and not re.fullmatch(r"[0-9]+|0x[0-9a-fA-F]+", name)]


def unmet_depends(index: Dict[str, List[tuple]], sym: str, names) -> List[tuple]:
    """SYM's kconfig_index() entries with the symbols each names that
    .config (NAMES: the CONFIG_ names set) lacks, or has where the
    expression wants them off (!SYM)."""
    out = []
    for path, expr in index.get(sym, []):
        unmet = []
        for neg, name in kconfig_symbols(expr):
            is_set = "CONFIG_" + name in names
            if neg == is_set:
                note = f"{name} {'set' if is_set else 'unset'}"
                if note not in unmet:
                    unmet.append(note)
        out.append((path, expr, unmet))
    return out


def allno_config(t: Target) -> str:
    return os.path.join(t.work, "allno.config")


def config_commands(ctx, t: Target, src: str) -> List[List[str]]:
    """make allnoconfig with the merged fragments, then olddefconfig."""
    return [make_args(ctx, t, src) + [f"KCONFIG_ALLCONFIG={allno_config(t)}", "allnoconfig"],
            make_args(ctx, t, src) + ["olddefconfig"]]


def kernel_commands(ctx, t: Target, src: str) -> List[List[str]]:
    """The kernel, then its in-tree modules installed for the guest."""
    return [make_args(ctx, t, src) + ["all"],
            make_args(ctx, t, src) + ["modules_install",
                                      f"INSTALL_MOD_PATH={os.path.join(t.kwork, 'modroot')}",
                                      "INSTALL_MOD_STRIP=1"]]


def modules_command(ctx, t: Target) -> List[str]:
    """module/ and kunit/ (synced to T.work/ext) against the tree's build."""
    return make_args(ctx, t, ctx.tree) + [f"M={os.path.join(t.work, 'ext')}", "W=1", "modules"]


def user_sources(ctx) -> List[str]:
    rootfs = os.path.join(ctx.repo, "rootfs")
    return sorted((os.path.join(rootfs, f) for f in os.listdir(rootfs)
                   if f.endswith(".c") and os.path.isfile(os.path.join(rootfs, f))),
                  key=os.fsencode)


def user_commands(ctx, t: Target) -> List[List[str]]:
    """setfs_user, then the tree's splice selftest helper."""
    out, gcc = user_dir(ctx, t), f"{t.cross}gcc"
    return [[gcc, *USER_CFLAGS, f"-I{ctx.repo}/module/include",
             "-o", os.path.join(out, "setfs_user"), *user_sources(ctx)],
            [gcc, "-static", "-O2", "-o", os.path.join(out, "splice_read"),
             os.path.join(ctx.tree, SPLICE_SELFTEST, "splice_read.c")]]


def configure_kernel(ctx, t: Target, frags: List[str], src: str, src_key: str):
    if t.kconfig_add:
        os.makedirs(t.work, exist_ok=True)
        text = "".join(line + "\n" for line in t.kconfig_add)
        if core.read(t.kconfig_add_fragment, "") != text:
            core.write(t.kconfig_add_fragment, text)
    key = f"{tree.tree_id(ctx)} {src_key} " + \
        core.hash_files(ctx.repo, frags + [os.path.join(ctx.repo, t.rec.path)])
    cfg = os.path.join(t.build, ".config")
    log = os.path.join(t.work, "config.log")

    def body():
        os.makedirs(t.build, exist_ok=True)
        os.makedirs(t.work, exist_ok=True)
        # The fragments merged here, not by merge_config.sh: that script
        # makes its temporary files in the source tree, and a run killed
        # while it works leaves them there for the tree guard to find.
        allno, olddef = config_commands(ctx, t, src)
        core.write(allno_config(t), "".join(line + "\n" for line in
                                            config_settings(ctx, frags)[0].values()))
        try:
            run_logged(allno, log, "", env=ccache_env(ctx))
        except StageFailed as e:
            raise StageFailed(f"{t.name}: make allnoconfig with the config fragments failed "
                              f"(log: {log})", e.log) from None
        try:
            run_logged(olddef, log, "", append=True)
        except StageFailed as e:
            raise StageFailed(f"{t.name}: make olddefconfig failed", e.log) from None
        verify_config(ctx, t, cfg, frags, src)
        return f"allnoconfig + {len(frags)} fragments, verified"

    return Stage(ctx, "config", key=key, stamp=os.path.join(t.work, "stamp.config"),
                 outputs=[cfg], target=t.name, keyed=bool(tree.tree_id(ctx))).run(body)


def config_digest(t: Target) -> str:
    """The SHA-256 of T's kernel .config: part of the kernel stage's key,
    and how exec tells that the kernel built is the one configured."""
    with open(os.path.join(t.build, ".config"), "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def build_kernel(ctx, t: Target, src: str, src_key: str):
    key = f"{tree.tree_id(ctx)} {src_key} {config_digest(t)} {core.gcc_version(t.cross)}"
    modroot = os.path.join(t.kwork, "modroot")

    def body():
        core.info(f"building the {t.name} kernel (log: {t.work}/build.log)")
        build_all, install = kernel_commands(ctx, t, src)
        run_make(ctx, t, os.path.join(t.work, "build.log"), "kernel build", build_all)
        # In-tree modules (test_module for the splice selftest) for the guest.
        shutil.rmtree(modroot, ignore_errors=True)
        run_make(ctx, t, os.path.join(t.work, "modules_install.log"), "modules_install",
                 install)
        return "built"

    res = Stage(ctx, "kernel", key=key, stamp=os.path.join(t.kwork, "stamp.kernel"),
                outputs=[os.path.join(t.build, t.image),
                         os.path.join(t.build, "Module.symvers"),
                         os.path.join(modroot, "lib", "modules")],
                target=t.name, keyed=bool(tree.tree_id(ctx))).run(body)
    return res


# ---------------------------------------------------------------- modules

def sync_sources(dest: str, *srcs: str):
    """Copy module sources into the cache, keeping the objects built there.
    Content, not mtimes, decides what is copied, and a copied file gets
    the current time: a source older than the objects another worktree
    left here must still rebuild them."""
    excl = []
    for pat in ("*.o", "*.ko", "*.cmd", "*.mod", "*.mod.c", "modules.order",
                "Module.symvers"):
        excl += ["--exclude", pat]
    core.run(["rsync", "-rl", "--checksum", "--delete", *excl, *srcs, dest + "/"],
             check=True)


def module_sources(ctx) -> List[str]:
    return [os.path.join(ctx.repo, d) for d in ("Kbuild", "module", "kunit")]


def build_modules(ctx, t: Target, kernel: StageResult) -> StageResult:
    """The top-level Kbuild builds module/ and kunit/ against KERNEL, the
    result of the kernel stage of the kernel T boots; they are synced into
    the cache so that targets build side by side and the repo stays clean."""
    src = os.path.join(t.work, "ext")
    key = f"{kernel.key} {core.hash_dir_files(ctx.repo, module_sources(ctx))}"

    def body():
        os.makedirs(src, exist_ok=True)
        sync_sources(src, *module_sources(ctx))
        run_make(ctx, t, os.path.join(t.work, "modules.log"), "module build",
                 modules_command(ctx, t))
        return "built (W=1)"

    return Stage(ctx, "modules", key=key, stamp=os.path.join(t.work, "stamp.modules"),
                 outputs=[os.path.join(src, "module", "setfs_probe.ko"),
                          os.path.join(src, "kunit", "setfs_kunit.ko")],
                 target=t.name, keyed=bool(tree.tree_id(ctx))).run(body)


def user_dir(ctx, t: Target) -> str:
    """Where the user binaries of T's compiler are built: one directory
    per compiler (and per tree: bench series builds from the pristine
    one), shared by the targets that use it, since the static binaries
    depend on nothing else of a target."""
    name = t.cross.rstrip("-") or "native"
    if ctx.tree != os.path.join(ctx.cache, "linux"):
        name += "-" + core.hash_text(ctx.tree)[:12]
    return os.path.join(ctx.cache, "user", name)


def build_user(ctx, t: Target) -> StageResult:
    out = user_dir(ctx, t)
    rootfs = os.path.join(ctx.repo, "rootfs")
    key = (core.hash_dir_files(ctx.repo, [rootfs, os.path.join(ctx.repo, "module"),
                                          os.path.join(ctx.tree, SPLICE_SELFTEST)]) +
           f" {core.gcc_version(t.cross)} {' '.join(USER_CFLAGS)}")
    log = os.path.join(out, "user.log")

    def body():
        os.makedirs(out, exist_ok=True)
        user, splice = user_commands(ctx, t)
        try:
            run_logged(user, log, "")
        except StageFailed as e:
            raise StageFailed(f"{t.name}: building the user test binary failed "
                              f"(log: {log})", e.log) from None
        # The tree's splice selftest helper, run by short_splice_read.sh.
        try:
            run_logged(splice, log, "", append=True)
        except StageFailed as e:
            raise StageFailed(f"{t.name}: building {SPLICE_SELFTEST}/splice_read.c failed",
                              e.log) from None
        return "built"

    return Stage(ctx, "user", key=key, stamp=os.path.join(out, "stamp.user"),
                 outputs=[os.path.join(out, "setfs_user")], target=t.name).run(body)


# ---------------------------------------------------------------- busybox

def busybox_path(ctx, t: Target) -> str:
    """Where fetch_busybox() puts T's busybox."""
    suite = t.rec.guest["busybox_suite"]
    return os.path.join(ctx.cache_root, "busybox", t.deb_arch + (f"-{suite}" if suite else ""),
                        "bin", "busybox")


def fetch_busybox(ctx, t: Target) -> str:
    """busybox for the guest: Debian's busybox-static for the guest's
    architecture, downloaded and unpacked into the cache, never installed.
    Returns its path."""
    suite = t.rec.guest["busybox_suite"]
    busybox = busybox_path(ctx, t)
    d = os.path.dirname(os.path.dirname(busybox))
    if os.access(busybox, os.X_OK):
        return busybox
    for p in (d, d + ".deb", d + ".x"):
        shutil.rmtree(p, ignore_errors=True)
    os.makedirs(d + ".deb")
    if suite:
        busybox_from_suite(ctx, t, d, suite)
    else:
        busybox_from_host_apt(ctx, t, d)
    debs = [f for f in os.listdir(d + ".deb") if f.startswith("busybox-static_")
            and f.endswith(".deb")]
    if not debs:
        core.die(f"no busybox-static package was downloaded into {d}.deb")
    core.run(["dpkg-deb", "-x", os.path.join(d + ".deb", debs[0]), d + ".x"], check=True)
    os.makedirs(os.path.join(d, "bin"))
    # /bin/busybox before the /usr merge (Debian 12), /usr/bin after
    for b in ("bin/busybox", "usr/bin/busybox"):
        p = os.path.join(d + ".x", b)
        if os.path.isfile(p):
            shutil.move(p, busybox)
    shutil.rmtree(d + ".x", ignore_errors=True)
    shutil.rmtree(d + ".deb", ignore_errors=True)
    if not os.access(busybox, os.X_OK):
        core.die(f"busybox-static:{t.deb_arch} has no /bin/busybox or /usr/bin/busybox")
    return busybox


def busybox_from_host_apt(ctx, t: Target, d: str):
    log = os.path.join(ctx.cache, "apt.log")
    arch = t.deb_arch
    host = core.output(["dpkg", "--print-architecture"])
    foreign = core.output(["dpkg", "--print-foreign-architectures"]).split()
    if arch != host and arch not in foreign:
        if os.getuid() != 0:
            core.die(f"dpkg lacks architecture {arch} (run: sudo dpkg --add-architecture "
                     f"{arch} && sudo apt-get update)")
        core.run(["dpkg", "--add-architecture", arch], check=True)
        # An index that failed (a mirror in sync: "File has unexpected
        # size") need not stop the download, which says for itself
        # whether the package can be had.
        core.run(["apt-get", "update"], log=log)
    dl = ["apt-get", "download", f"busybox-static:{arch}"]
    if core.run(dl, cwd=d + ".deb", log=log).returncode != 0:
        core.run(["apt-get", "update"], log=log, append=True)
        if core.run(dl, cwd=d + ".deb", log=log, append=True).returncode != 0:
            core.die(f"cannot download busybox-static:{arch} (log: {log})")


def busybox_from_suite(ctx, t: Target, d: str, suite: str):
    """busybox-static for the guest's Debian arch from Debian's SUITE."""
    arch = t.deb_arch
    core.info(f"downloading busybox-static:{arch} from Debian {suite}")
    apt_download(ctx, suite, arch, ["busybox-static"], d + ".deb")


def apt_download(ctx, suite: str, arch: str, pkgs: List[str], dest: str):
    """apt-get download PKGS of Debian's SUITE for ARCH into DEST, with apt
    in a directory of its own (nothing of the host's apt changes).  apt
    checks the suite's InRelease against the host's debian-archive-keyring
    and each package against its hash."""
    root = dest + ".apt"
    log = os.path.join(ctx.cache, f"apt-{arch}-{suite}.log")
    shutil.rmtree(root, ignore_errors=True)
    for sub in ("etc/preferences.d", "lists/partial", "archives/partial", "dpkg"):
        os.makedirs(os.path.join(root, sub))
    core.write(os.path.join(root, "dpkg", "status"), "")
    core.write(os.path.join(root, "etc", "sources.list"),
               f"deb [arch={arch} signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
               f"http://deb.debian.org/debian {suite} main\n")
    opts = ["-o", f"Dir::Etc::SourceList={root}/etc/sources.list",
            "-o", "Dir::Etc::SourceParts=-", "-o", "Dir::Etc::Preferences=-",
            "-o", f"Dir::Etc::PreferencesParts={root}/etc/preferences.d",
            "-o", f"Dir::State::Lists={root}/lists",
            "-o", f"Dir::Cache::Archives={root}/archives",
            "-o", f"Dir::State::status={root}/dpkg/status",
            "-o", f"APT::Architecture={arch}", "-o", f"APT::Architectures={arch}",
            "-o", "Acquire::Languages=none"]
    if core.run(["apt-get", *opts, "update"], log=log).returncode != 0 or \
            core.run(["apt-get", *opts, "download", *pkgs], cwd=dest,
                     log=log, append=True).returncode != 0:
        core.die(f"cannot download {' '.join(pkgs)} ({arch}) from Debian {suite} "
                 f"(log: {log})")
    shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------- QEMU

def qemu_dir(ctx, t: Target) -> str:
    """Where fetch_qemu() unpacks the QEMU of T's qemu.suite."""
    return os.path.join(ctx.cache_root, "qemu", f"{t.rec.qemu['suite']}-{t.rec.arch['qemu']}")


def qemu_data_dir(ctx, t: Target) -> str:
    """The firmware directory of T's qemu.suite QEMU (its -L)."""
    return os.path.join(qemu_dir(ctx, t), "usr", "share", "qemu")


def qemu_package(t: Target) -> str:
    """The Debian package with T's QEMU binary: qemu.package, or
    qemu-system-ARCH (s390x's in Debian 13 and its backports)."""
    return t.rec.qemu["package"] or t.qemu


def qemu_program(ctx, t: Target) -> List[str]:
    """QEMU as a command's first words: the host's qemu-system-ARCH, or,
    for a record with qemu.suite, that suite's binary with its data
    directory (-L) and a module directory of its own (QEMU_MODULE_DIR: the
    host's modules are built for the host's QEMU, and the suite's packages
    bring none), where fetch_qemu() puts them.  Nothing checked."""
    if not t.rec.qemu["suite"]:
        return [t.qemu]
    d = qemu_dir(ctx, t)
    return ["env", f"QEMU_MODULE_DIR={os.path.join(d, 'modules')}",
            os.path.join(d, "usr", "bin", t.qemu), "-L", qemu_data_dir(ctx, t)]


def host_codename() -> str:
    """The host's Debian codename (/etc/os-release), or ''."""
    for line in core.read("/etc/os-release", "").splitlines():
        if line.startswith("VERSION_CODENAME="):
            return line.split("=", 1)[1].strip().strip('"')
    return ""


def fetch_qemu(ctx, t: Target) -> List[str]:
    """qemu_program(), once it exists: for a record with qemu.suite, Debian
    SUITE's QEMU package (qemu_package()) and qemu-system-data for the
    host, downloaded and unpacked into the cache (never installed), the
    host packages its binary depends on installed, and the binary asked
    for its version.  SUITE must be built for the host's release
    (bookworm-backports on bookworm)."""
    prog = qemu_program(ctx, t)
    suite = t.rec.qemu["suite"]
    if not suite:
        return prog
    d = qemu_dir(ctx, t)
    binary = os.path.join(d, "usr", "bin", t.qemu)
    codename = host_codename()
    # what was fetched, and for which host release: a change fetches again
    origin = f"package={qemu_package(t)} host={codename}"
    stamp = core.read(os.path.join(d, "version"), "").splitlines()
    if stamp[1:2] == [origin] and os.access(binary, os.X_OK):
        return prog
    if suite.split("-")[0] != codename:
        core.die(f"{t.name}: qemu.suite {suite} is built for Debian {suite.split('-')[0]}, "
                 f"and this host is {codename or 'not Debian'} (/etc/os-release): name this "
                 f"release's suite in {t.rec.path}, or drop qemu.suite if the host's QEMU has "
                 "what the record's comment says it needs")
    host = core.output(["dpkg", "--print-architecture"])
    pkgs = [qemu_package(t), "qemu-system-data"]
    for p in (d, d + ".deb"):
        shutil.rmtree(p, ignore_errors=True)
    os.makedirs(d + ".deb")
    core.info(f"downloading {' '.join(pkgs)} ({host}) from Debian {suite}")
    apt_download(ctx, suite, host, pkgs, d + ".deb")
    debs = sorted(os.listdir(d + ".deb"))
    main = [f for f in debs if f.startswith(pkgs[0] + "_") and f.endswith(".deb")]
    if not main or len(debs) != len(pkgs):
        core.die(f"{t.name}: Debian {suite} gave {debs or 'nothing'} for {' '.join(pkgs)}")
    # The libraries it links with come from the host's release.
    depends = core.output(["dpkg-deb", "-f", os.path.join(d + ".deb", main[0]), "Depends"])
    core.ensure_pkgs(ctx, libraries(depends))
    tmp = d + ".x"
    shutil.rmtree(tmp, ignore_errors=True)
    for deb in debs:
        core.run(["dpkg-deb", "-x", os.path.join(d + ".deb", deb), tmp], check=True)
    shutil.rmtree(d + ".deb", ignore_errors=True)
    if not os.access(os.path.join(tmp, "usr", "bin", t.qemu), os.X_OK):
        shutil.rmtree(tmp, ignore_errors=True)
        core.die(f"{t.name}: {pkgs[0]} from Debian {suite} has no /usr/bin/{t.qemu} "
                 f"(qemu.package in {t.rec.path} names the package that has it)")
    os.rename(tmp, d)
    r = core.run([*prog, "--version"], capture=True)
    if r.returncode != 0:
        shutil.rmtree(d, ignore_errors=True)
        core.die(f"{t.name}: {binary} from Debian {suite} does not run here: "
                 f"{(r.stderr or r.stdout or '').strip()[-300:]}")
    version = r.stdout.splitlines()[0] if r.stdout else "?"
    core.write(os.path.join(d, "version"), f"{version}\n{origin}\n")
    core.info(f"{t.name}: {version}")
    return prog


def libraries(depends: str) -> List[str]:
    """The packages a Depends field names, but QEMU's own, without
    versions or alternatives past the first."""
    names = []
    for dep in depends.split(","):
        name = dep.split("|")[0].split("(")[0].split(":")[0].strip()
        if name and not name.startswith("qemu-"):
            names.append(name)
    return names


# ---------------------------------------------------------------- rootfs

def initramfs_list(ctx, t: Target, busybox: str, fixture: Fixture, content: str) -> str:
    """The gen_init_cpio list: INITRAMFS_LIST filled in, the fixture, then
    the installed in-tree modules (for modprobe in the guest)."""
    text = INITRAMFS_LIST.format(busybox=busybox, repo=ctx.repo, work=t.work,
                                 user=user_dir(ctx, t),
                                 build=t.build, tree=ctx.tree,
                                 selftest=SPLICE_SELFTEST) + fixture.cpio_lines(content)
    modroot = os.path.join(t.kwork, "modroot")
    dirs, files = [], []
    for dirpath, dirnames, filenames in os.walk(os.path.join(modroot, "lib")):
        rel = os.path.relpath(dirpath, modroot)
        dirs.append(f"dir /{rel} 0755 0 0")
        files += [f"file /{rel}/{f} {modroot}/{rel}/{f} 0644 0 0" for f in filenames
                  if os.path.isfile(os.path.join(dirpath, f)) and
                  not os.path.islink(os.path.join(dirpath, f))]
    return text + "".join(line + "\n" for line in dirs + files)


def build_rootfs(ctx, t: Target, modules: StageResult, user: StageResult) -> StageResult:
    """The initramfs, written by the tree's usr/gen_init_cpio from a list
    that names every entry explicitly, with what the MODULES and USER
    stages built."""
    cpio = os.path.join(t.work, "initramfs.cpio")
    gen = os.path.join(t.build, "usr", "gen_init_cpio")
    busybox = fetch_busybox(ctx, t)
    fixture = Fixture(ctx.repo)
    content = os.path.join(t.work, "initramfs.fixture")
    # The key covers the list's template, not the harness's other code:
    # editing a message does not rebuild an initramfs.
    key = (f"{modules.key} {user.key} " +
           core.hash_files(ctx.repo, [os.path.join(ctx.repo, "rootfs", "init"), busybox,
                                      os.path.join(ctx.tree, SPLICE_SELFTEST,
                                                   "short_splice_read.sh"),
                                      os.path.join(t.build, ".config"), fixture.path]) +
           " " + core.hash_text(INITRAMFS_LIST))
    log = os.path.join(t.work, "rootfs.log")

    def body():
        if not os.access(gen, os.X_OK):
            core.die(f"{gen} is missing: the kernel config needs CONFIG_BLK_DEV_INITRD=y")
        # Entries the user tests check (the seed's init-time helpers unpack
        # them): modes, owners, links, a device node, fixed mtimes.
        # gen_init_cpio gives a file its source's mtime (-t: the others')
        core.write(content, fixture.content)
        os.utime(content, (fixture.mtime, fixture.mtime))
        lst = os.path.join(t.work, "initramfs.list")
        core.write(lst, initramfs_list(ctx, t, busybox, fixture, content))
        with open(cpio + ".new", "wb") as fh, open(log, "w") as lfh:
            rc = core.run_owned([gen, "-t", str(fixture.mtime), lst], stdout=fh,
                                stderr=lfh).returncode
        if rc != 0:
            for line in core.read(log, "").splitlines():
                core.err(line)
            core.die(f"{t.name}: gen_init_cpio failed")
        os.replace(cpio + ".new", cpio)
        return f"built ({kib(cpio)} KiB)"

    return Stage(ctx, "rootfs", key=key, stamp=os.path.join(t.work, "stamp.rootfs"),
                 outputs=[cpio], target=t.name).run(body)


def kib(path: str) -> str:
    """du -k: the KiB the file occupies."""
    return core.output(["du", "-k", path]).split()[0]
