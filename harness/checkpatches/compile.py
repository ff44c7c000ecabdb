# SPDX-License-Identifier: GPL-2.0
"""The compile job: a patch's objects built with their architecture's
compiler (harness/toolchain.py) in an allmodconfig build directory of the
check tree, one per architecture, made once per run.

A build that fails is the patch's fault only if the same objects build
on its parent; if they fail there too, they are built again without
-Werror (a warning that allmodconfig's WERROR makes an error in the
pristine tree), and failing that they are listed as not compile-tested.
An architecture without a compiler, or whose pristine tree does not
configure, is listed as not compile-tested and does not fail the patch.
"""

import dataclasses
import os
import shutil
from typing import Dict, List, Optional, Set, Tuple

from harness import core, toolchain
from harness.checkpatches.scratch import build_dir, check_dir, check_tree, in_tree, log_path

# Architectures that are a configuration of another one: name -> (make's
# ARCH, the options allmodconfig starts from, KCONFIG_ALLCONFIG).
VARIANTS = {"sparc32": ("sparc", "CONFIG_64BIT=n")}
# How many lines of a failed build are shown, and the widths of the first
# error line kept in a message.
BUILD_TAIL = 20
UNUSABLE_WIDTH = 100
PREEXISTING_WIDTH = 90


def toolchain_of(arch: str) -> Tuple[toolchain.Toolchain, str]:
    """ARCH's compiler and the options its allmodconfig starts from."""
    linux, seed = VARIANTS.get(arch, (arch, ""))
    return toolchain.TOOLCHAINS[linux], seed


def first_error(log: str, tree: str, width: int) -> str:
    """The first line of the build log LOG with "error:", its paths
    relative to TREE, cut to WIDTH characters; "" when there is none."""
    for line in core.read(log, "").split("\n"):
        if "error:" in line:
            return in_tree(line, tree)[:width]
    return ""


def remove(path: str):
    try:
        os.remove(path)
    except (FileNotFoundError, IsADirectoryError):
        pass


@dataclasses.dataclass
class Builder:
    """One run's builds: which build directories are ready, which
    architectures cannot build (and why), and what the end of the run
    lists."""
    ctx: core.Ctx
    ready: Set[str] = dataclasses.field(default_factory=set)
    unusable: Dict[str, str] = dataclasses.field(default_factory=dict)
    # "PATCH: OBJS (ARCH: why)": objects that were not compile-tested
    untested: List[str] = dataclasses.field(default_factory=list)
    # "PATCH: ARCH: first error": built with -Wno-error, failing before too
    preexisting: List[str] = dataclasses.field(default_factory=list)

    def make(self, arch: str) -> Optional[List[str]]:
        """make's command line for ARCH's build directory, configured
        (allmodconfig) and prepared the first time; None when ARCH cannot
        build (self.unusable says why)."""
        if arch in self.unusable:
            return None
        tc, seed = toolchain_of(arch)
        if shutil.which(tc.gcc) is None:
            core.ensure_pkgs_soft(self.ctx, [tc.package])
        if shutil.which(tc.gcc) is None:
            self.unusable[arch] = f"no {tc.gcc} (Debian package {tc.package})"
            return None
        build = build_dir(self.ctx, arch)
        make = toolchain.make_command(self.ctx.jobs, check_tree(self.ctx), build,
                                      tc.arch, tc.cross)
        if arch not in self.ready:
            log = os.path.join(check_dir(self.ctx), f"prepare-{arch}.log")
            os.makedirs(build, exist_ok=True)
            core.info(f"check-patches: allmodconfig + prepare for {arch} (log: {log})")
            core.write(f"{build}.allconfig", seed + "\n")
            if (core.run([*make, f"KCONFIG_ALLCONFIG={build}.allconfig", "allmodconfig"],
                         log=log).returncode != 0 or
                    core.run([*make, "prepare"], log=log, append=True).returncode != 0):
                # The pristine tree does not build here: say so with its
                # first error, and go on with the other architectures.
                self.unusable[arch] = (
                    "allmodconfig prepare fails "
                    f"({first_error(log, check_tree(self.ctx), UNUSABLE_WIDTH)}; log: {log})")
                return None
            self.ready.add(arch)
        return make

    def build(self, name: str, rev: str, i: int, arch: str,
              objs: List[str]) -> Tuple[str, bool]:
        """Compile-test OBJS for ARCH at REV, the I-th patch (file NAME):
        the note for the patch's line, and whether the patch broke the
        build."""
        make = self.make(arch)
        if make is None:
            self.untested.append(f"{name}: {' '.join(objs)} ({arch}: {self.unusable[arch]})")
            return f"{arch}: not compile-tested;", False
        # Each object compiled again, whatever the build directory holds
        # from earlier runs.  One job: single-object targets built in
        # parallel race in Kbuild (fixdep found a .o.d missing).
        build = build_dir(self.ctx, arch)
        for obj in objs:
            remove(os.path.join(build, os.path.dirname(obj),
                                f".{os.path.basename(obj)}.cmd"))
            remove(os.path.join(build, obj))
        log = log_path(self.ctx, f"{i}-{arch}.log")
        if core.run([*make, "-j1", *objs], log=log).returncode == 0:
            return f"{arch}: {len(objs)} built;", False
        before = log_path(self.ctx, f"{i}-{arch}-before.log")
        if not self.fails_before(make, rev, objs, before):
            for line in core.tail(log, BUILD_TAIL):
                core.out(f"        {line}")
            return f"{arch}: BUILD FAILED;", True
        if core.run([*make, "-j1", *objs, "KCFLAGS=-Wno-error"],
                    log=log_path(self.ctx, f"{i}-{arch}-wno-error.log")).returncode == 0:
            first = first_error(log, check_tree(self.ctx), PREEXISTING_WIDTH)
            self.preexisting.append(f"{name}: {arch}: {first}")
            return (f"{arch}: {len(objs)} built with -Wno-error "
                    "(fails before this patch too);"), False
        # It does not build in this configuration before the patch either,
        # warnings or not (arch/m68k/sun3 needs CONFIG_SUN3, which
        # allmodconfig leaves off): it cannot be compile-tested here.
        self.untested.append(f"{name}: {' '.join(objs)} ({arch}: does not build "
                             f"before the patch either; log: {before})")
        return f"{arch}: not compile-tested (fails before too);", False

    def fails_before(self, make: List[str], rev: str, objs: List[str], log: str) -> bool:
        """Whether OBJS fail to build on REV's parent too: then the failure
        is not REV's.  The check tree is back at REV afterwards."""
        tree = check_tree(self.ctx)
        core.git(tree, "checkout", "-q", "--detach", f"{rev}~1")
        failed = core.run([*make, "-j1", *objs], log=log).returncode != 0
        core.git(tree, "checkout", "-q", "--detach", rev)
        return failed
