# SPDX-License-Identifier: GPL-2.0
"""A target for one run: its record (harness/record.py), the flavour
(normal or debug: NAME+debug) and the places in the cache it uses.

    work      $CACHE/work/NAME[-debug]: stamps, logs, initramfs, console
    build     $CACHE/build/OWNER: the kernel build directory, where OWNER
              is the target whose kernel it boots (kernel.kernel_of) or
              its own name (a debug flavour always builds its own)
    kwork     the work directory of that kernel (its stamp, modroot)

The kind (tree, distro, builtin) is harness/kinds.py's; what differs
between kinds lives there and nowhere else.
"""

import dataclasses
import os
from typing import Dict, List

from harness import core, record


@dataclasses.dataclass
class Target:
    name: str               # as given: x86_64, x86_64+debug
    rec: record.Record
    flavour: str            # normal or debug
    work: str
    build: str
    kwork: str
    kowner: str             # the target whose kernel this one boots ("": own)
    # --kconfig_add: options after every fragment, in their own fragment
    kconfig_add: List[str] = dataclasses.field(default_factory=list)

    @property
    def base(self) -> str:
        return self.rec.name

    @property
    def kind(self) -> str:
        return self.rec.kind

    @property
    def linux_arch(self) -> str:
        return self.rec.arch["linux"]

    @property
    def cross(self) -> str:
        return self.rec.arch["cross"]

    @property
    def deb_arch(self) -> str:
        return self.rec.arch["debian"]

    @property
    def qemu(self) -> str:
        return "qemu-system-" + self.rec.arch["qemu"]

    @property
    def image(self) -> str:
        return self.rec.kernel["image"] or ""

    @property
    def packages(self) -> List[str]:
        return list(self.rec.packages)

    def fragments(self, repo: str, base_frags=()) -> List[str]:
        """The record's own config fragments, then BASE_FRAGS (what the
        base adds for this target), kunit/.kunitconfig and, for the debug
        flavour, config/debug.config and its debug fragments, as paths."""
        frags = [os.path.join(repo, f) for f in self.rec.kernel["fragments"]]
        frags += list(base_frags)
        frags.append(os.path.join(repo, "kunit", ".kunitconfig"))
        if self.flavour == "debug":
            frags.append(os.path.join(repo, "config", "debug.config"))
            frags += [os.path.join(repo, f) for f in self.rec.kernel["debug_fragments"]]
        if self.kconfig_add:
            frags.append(self.kconfig_add_fragment)
        return frags

    @property
    def kconfig_add_fragment(self) -> str:
        """The fragment --kconfig_add makes (written by the config stage)."""
        return os.path.join(self.work, "kconfig_add.config")


def load(ctx: core.Ctx, name: str) -> Target:
    """NAME's record as a Target; an unknown name is a usage error, a bad
    record an error."""
    try:
        rec, flavour = record.target(name)
    except record.UsageError as e:
        core.usage_error(str(e))
    except record.RecordError as e:
        core.die(str(e))
    d = rec.name if flavour == "normal" else rec.name + "-debug"
    add = list(ctx.kconfig_add)
    if add:
        # its own kernel, build and work directories, as a debug flavour
        d += "-k" + core.hash_text("\n".join(add))[:8]
    work = os.path.join(ctx.cache, "work", d)
    # The normal flavour may boot another target's kernel (same config;
    # its build and work directory hold the kernel, the in-tree modules
    # and their stamps; record.py checks it is the same kernel).
    kowner = rec.kernel["kernel_of"] if flavour == "normal" and not add else ""
    if kowner:
        d = kowner
    return Target(name=name, rec=rec, flavour=flavour, work=work,
                  build=os.path.join(ctx.cache, "build", d),
                  kwork=os.path.join(ctx.cache, "work", d), kowner=kowner, kconfig_add=add)


def lists() -> Dict[str, List[str]]:
    """default, test, ci and all: target names in run order."""
    try:
        recs = record.load_all()
    except record.RecordError as e:
        core.die(f"{e}")
    return {w: record.run_list(recs, w) for w in ("default", "test", "ci", "all")}
