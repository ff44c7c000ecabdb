# SPDX-License-Identifier: GPL-2.0
"""What "kunit" would do for each selected target, computed without
running anything or writing anything: ./run.sh kunit --dry-run.

The command lines come from the functions the stages themselves call
(build.config_commands(), kernel_commands(), modules_command(),
user_commands(), initramfs_list(), qemu.command_line()), so the plan is
what a run executes.  It needs no root, no package and no cache: paths
in the cache are where a run would put things.  harness/tests/plans/
pins one plan per record (test_plan.py).
"""

import dataclasses
import os
import shlex
from typing import List

from harness import build, core, qemu, target, tree
from harness.kinds import kind_of


@dataclasses.dataclass(frozen=True)
class TargetPlan:
    name: str
    kind: str
    base: str
    kernel_from: str            # the target whose kernel it boots
    fragments: List[str]        # in merge order, relative to the repository
    commands: List[List[str]]   # every command of the build, in order
    qemu: List[str]
    initramfs: List[str]        # gen_init_cpio's list, or what dracut gets
    accel_note: str = ""
    steps: List[str] = dataclasses.field(default_factory=list)   # not commands


def target_plan(ctx: core.Ctx, name: str) -> TargetPlan:
    t = target.load(ctx, name)
    kind = kind_of(ctx, t)
    owner = target.load(ctx, t.kowner) if t.kowner else t
    frags = [ctx.rel(f) + (f" ({'; '.join(owner.kconfig_add)})"
                           if owner.kconfig_add and f == owner.kconfig_add_fragment else "")
             for f in kind_of(ctx, owner).fragments()]
    cmds: List[List[str]] = []
    series = [ctx.rel(d) for d in (tree.fixes_dir(ctx), tree.procfs_dir(ctx)) if d]
    steps = [f"tree: {ctx.tarball} extracted to {ctx.tree} and committed as pristine, "
             f"then git am of {' and '.join(series) or 'no series'} (once; --keep-tree: "
             "the tree as it is)"]
    if t.kind == "builtin":
        steps.append(f"builtin tree: {kind.src()}, a worktree of the tree's HEAD with "
                     "kunit/ and module/ in drivers/misc/setfs/")
    else:
        steps.append(f"busybox: Debian's busybox-static:{t.deb_arch} "
                     f"(apt-get download, dpkg-deb -x) as {build.busybox_path(ctx, t)}")
    if t.kind == "distro":
        frags = ["(none: Debian's kernel and its config)"]
        cmds.append(["apt-get", "download", t.rec.distro["image"].replace(
            "@KVER@", "<KVER>"), "linux-headers-<KVER>", "..."])
        cmds.append(["make", "-C", "<linux-headers>", f"M={t.work}/ext/module", "W=1",
                     "modules"])
        cmds += build.user_commands(ctx, t)
        cmds.append(["dracut", "...", "--modules", "base setfs", f"{t.work}/initramfs.cpio"])
        initramfs = ["(dracut: rootfs/dracut/90setfs installs init, busybox, setfs_user, "
                     "setfs_probe.ko, the fixture and the splice selftest)"]
    else:
        src = kind.src()
        cmds += build.config_commands(ctx, owner, src)
        cmds += build.kernel_commands(ctx, owner, src)
        if t.kind == "tree":
            cmds.append(build.modules_command(ctx, t))
            cmds += build.user_commands(ctx, t)
            fixture = build.Fixture(ctx.repo)
            content = os.path.join(t.work, "initramfs.fixture")
            initramfs = build.initramfs_list(ctx, t, build.busybox_path(ctx, t), fixture,
                                             content).splitlines()
            if not any(line.startswith("dir /lib/modules") for line in initramfs):
                initramfs.append("(then /lib/modules/... as modules_install leaves it)")
            cmds.append([os.path.join(t.build, "usr", "gen_init_cpio"), "-t",
                         str(fixture.mtime), os.path.join(t.work, "initramfs.list")])
        else:
            initramfs = ["(none: the suites are built into the kernel)"]
    if t.rec.qemu["suite"]:
        steps.append(f"qemu: Debian {t.rec.qemu['suite']}'s {t.qemu} and qemu-system-data "
                     f"for the host (apt-get download, dpkg-deb -x) in "
                     f"{build.qemu_dir(ctx, t)}, run with -L; never installed")
    acc, note = ctx.settings.accel, ""
    if acc == "auto":
        acc, note = "tcg", " (SETFS_ACCEL=auto: kvm instead where a probe boot with it works)"
    line = qemu.command_line(ctx, t, "test", acc)
    line += ["-serial", f"file:{os.path.join(t.work, 'console.log')}"]
    return TargetPlan(t.name, t.kind, ctx.base.name, owner.name, frags, cmds, line,
                      initramfs, note, steps)


def render(p: TargetPlan) -> str:
    out = [f"==== {p.name} ({p.kind}, base {p.base}) ===="]
    if p.kernel_from != p.name:
        out.append(f"kernel: {p.kernel_from}'s (built as that target)")
    out += p.steps
    out.append("fragments:")
    out += [f"    {f}" for f in p.fragments]
    out.append("commands:")
    out += [f"    {shlex.join(c)}" for c in p.commands]
    out.append(f"qemu{p.accel_note}:")
    out.append(f"    {shlex.join(p.qemu)}")
    out.append("initramfs:")
    out += [f"    {line}" for line in p.initramfs]
    return "\n".join(out) + "\n"


def dry_run(ctx: core.Ctx) -> str:
    return "\n".join(render(target_plan(ctx, n)) for n in ctx.arches)
