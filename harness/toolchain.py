# SPDX-License-Identifier: GPL-2.0
"""The compiler of each Linux architecture, in one place: make's ARCH,
the cross prefix and the Debian package that has {cross}gcc.

Target records (targets/NAME.toml) name their architecture (arch.linux)
and repeat its cross prefix and compiler package for people reading
them; record.py checks that they agree with this table.  check-patches
compile-tests the series' files with these compilers, on architectures
that are no target.  make_command() is how every kernel build runs make.
"""

import dataclasses
from typing import Dict, List


@dataclasses.dataclass(frozen=True)
class Toolchain:
    arch: str       # make's ARCH=, as arch.linux names it
    cross: str      # CROSS_COMPILE= ("" for the host's gcc)
    package: str    # the Debian package that has {cross}gcc

    @property
    def gcc(self) -> str:
        return f"{self.cross}gcc"


TOOLCHAINS: Dict[str, Toolchain] = {tc.arch: tc for tc in (
    Toolchain("x86_64", "", "gcc"),
    Toolchain("i386", "", "gcc"),
    Toolchain("um", "", "gcc"),
    Toolchain("powerpc", "powerpc64le-linux-gnu-", "gcc-powerpc64le-linux-gnu"),
    Toolchain("arm", "arm-linux-gnueabihf-", "gcc-arm-linux-gnueabihf"),
    Toolchain("arm64", "aarch64-linux-gnu-", "gcc-aarch64-linux-gnu"),
    Toolchain("m68k", "m68k-linux-gnu-", "gcc-m68k-linux-gnu"),
    Toolchain("riscv", "riscv64-linux-gnu-", "gcc-riscv64-linux-gnu"),
    Toolchain("s390", "s390x-linux-gnu-", "gcc-s390x-linux-gnu"),
    Toolchain("alpha", "alpha-linux-gnu-", "gcc-alpha-linux-gnu"),
    Toolchain("sh", "sh4-linux-gnu-", "gcc-sh4-linux-gnu"),
    Toolchain("sparc", "sparc64-linux-gnu-", "gcc-sparc64-linux-gnu"),
    Toolchain("parisc", "hppa-linux-gnu-", "gcc-hppa-linux-gnu"),
    # Debian has no such package: check-patches lists their files as
    # not compile-tested.
    Toolchain("ia64", "ia64-linux-gnu-", "gcc-ia64-linux-gnu"),
    Toolchain("xtensa", "xtensa-linux-gnu-", "gcc-xtensa-linux-gnu"),
)}


def make_command(jobs: int, src: str, build: str, arch: str, cross: str) -> List[str]:
    """make for the kernel tree SRC built in BUILD (O=) for ARCH with
    CROSS's gcc, both compilers through ccache, JOBS jobs."""
    return ["make", "-C", src, f"O={build}", f"ARCH={arch}",
            f"CROSS_COMPILE={cross}", f"CC=ccache {cross}gcc", "HOSTCC=ccache gcc",
            f"-j{jobs}"]
