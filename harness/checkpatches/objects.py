# SPDX-License-Identifier: GPL-2.0
"""The objects job: which objects show that a patch builds, and for which
architecture.

A .c file the patch touches is built through the outermost .c file that
#includes it (kernel/sched/psi.c through build_utility.c).  A header is
built through the .c files that use what its hunks change: the macro a
hunk falls in, and the function or macro git names in the hunk header;
at most USERS_PER_SYMBOL users per symbol, and outside arch/ only those
that x86_64's allmodconfig builds.  A file's architecture comes from
ARCH_BY_PATH; a header under arch/X/ is built for X.  A patch that
changes only comments has nothing to build (comments_only()).
"""

import dataclasses
import itertools
import os
import re
import subprocess
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from harness import core
from harness.checkpatches.scratch import build_dir, check_tree, git_lines, lines

# Where a file is compile-tested: a path prefix -> the architecture (the
# first match wins; everything else: x86_64).  Code that depends on a
# machine, not just on arch/, is listed too.  The names are compile.py's.
ARCH_BY_PATH = (
    ("arch/x86/", "x86_64"),
    ("arch/powerpc/", "powerpc"),
    ("drivers/macintosh/", "powerpc"),
    ("arch/arm/", "arm"),
    ("arch/arm64/", "arm64"),
    ("arch/m68k/", "m68k"),
    ("drivers/nubus/", "m68k"),
    ("arch/riscv/", "riscv"),
    ("arch/s390/", "s390"),
    ("drivers/s390/", "s390"),
    ("arch/alpha/", "alpha"),
    ("arch/sh/", "sh"),
    ("arch/sparc/kernel/led.c", "sparc32"),
    ("arch/sparc/", "sparc"),
    ("arch/um/", "um"),
    ("arch/parisc/", "parisc"),
    ("drivers/parisc/", "parisc"),
    ("drivers/pnp/pnpbios/", "i386"),
    ("drivers/pnp/isapnp/", "i386"),
    ("drivers/zorro/", "m68k"),
    ("arch/ia64/", "ia64"),
    ("arch/xtensa/", "xtensa"),
)
# Users of one symbol that a changed header is compile-tested through.
USERS_PER_SYMBOL = 8
# Hops from a .c file to the .c file that #includes it, at most.
INCLUDER_HOPS = 3

Source = Tuple[str, str]    # (a .c file, the architecture to build it for)


def arch_of(path: str) -> str:
    """The architecture PATH (relative to the tree) is compile-tested for."""
    return next((arch for prefix, arch in ARCH_BY_PATH if path.startswith(prefix)),
                "x86_64")


def ere_escape(text: str) -> str:
    """TEXT as a POSIX extended regular expression that matches it alone."""
    return re.sub(r"([\\.^$*+?()\[\]{}|])", r"\\\1", text)


def includer(ctx: core.Ctx, path: str) -> str:
    """The .c file PATH is built through: itself, or the .c file of its
    directory that #includes it, up to INCLUDER_HOPS times
    (hostap_download.c in hostap_hw.c, itself in hostap_pci.c)."""
    for _ in range(INCLUDER_HOPS):
        pattern = (r'^#[[:space:]]*include[[:space:]]+"' +
                   ere_escape(os.path.basename(path)) + '"')
        found = git_lines(ctx, "grep", "-l", "-E", "-e", pattern, "--",
                          os.path.join(os.path.dirname(path), "*.c"))
        if not found:
            break
        path = found[0]
    return path


def makefile_option(makefile: str, base: str) -> str:
    """The CONFIG_ option of the first line of MAKEFILE that builds BASE.o
    only with it ("obj-$(CONFIG_X) += BASE.o"), or ""."""
    regex = re.compile(r"obj-\$\((CONFIG_[A-Z0-9_]+)\)\s*[+:]?=.*\s" +
                       re.escape(base) + r"\.o\b", re.ASCII)
    return next((m.group(1) for m in map(regex.match, lines(makefile)) if m), "")


def disabled(ctx: core.Ctx, path: str) -> bool:
    """Whether the .c file PATH is built only with an option that x86_64's
    allmodconfig leaves off (an ARM-only driver): it would fail there for
    reasons of its own.  False until that allmodconfig exists."""
    config = os.path.join(build_dir(ctx, "x86_64"), ".config")
    makefile = os.path.join(check_tree(ctx), os.path.dirname(path), "Makefile")
    if not (os.path.isfile(config) and os.path.isfile(makefile)):
        return False
    option = makefile_option(core.read(makefile, ""),
                             os.path.basename(path).removesuffix(".c"))
    if not option:
        return False
    return not {f"{option}=y", f"{option}=m"} & set(lines(core.read(config, "")))


# ------------------------------------------------------------ header hunks

_DEFINE_RE = re.compile(r"#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
_HUNK_RE = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)")
_CALL_RE = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)\(")


@dataclasses.dataclass(frozen=True)
class Hunk:
    """One hunk header of a git diff."""
    old_count: int
    new_start: int
    new_count: int
    context: str        # the function line git names after the second "@@"

    @property
    def symbol(self) -> str:
        """The function or macro the context names (its last NAME( ), ""
        when it names none or the hunk only adds lines after it (then it is
        context, not changed)."""
        names = _CALL_RE.findall(self.context)
        return names[-1] if names and self.old_count else ""


def hunks(diff: str) -> List[Hunk]:
    """The hunk headers of a git diff -U0, in order."""
    found = []
    for m in map(_HUNK_RE.match, lines(diff)):
        if m:
            _, old_count, new_start, new_count, context = m.groups()
            found.append(Hunk(int(old_count or 1), int(new_start),
                              int(new_count or 1), context))
    return found


def symbol_at(header: str, line_no: int) -> str:
    """The macro whose definition covers line LINE_NO (from 1) of the
    text HEADER: the #define on that line, or the one whose backslash-
    continued lines reach it; "" for none."""
    name, continued = "", False
    for nr, line in enumerate(lines(header), 1):
        m = _DEFINE_RE.match(line)
        if m:
            name = m.group(1)
        elif not continued:
            name = ""
        if nr == line_no:
            return name
        continued = line.endswith("\\")
    return ""


def _symbol_users(ctx: core.Ctx, header: str, symbol: str) -> Iterator[Source]:
    """The .c files that use SYMBOL of HEADER.  A header under arch/X/:
    its users in arch/X/, else the generic users built for X.  Elsewhere:
    the generic users that x86_64's allmodconfig builds."""
    generic = ("grep", "-l", "-w", "-F", "-e", symbol, "--", "*.c", ":(exclude)arch/*")
    if header.startswith("arch/"):
        local = git_lines(ctx, "grep", "-l", "-w", "-F", "-e", symbol, "--",
                          f"arch/{header.split('/')[1]}/*.c")
        if local:
            yield from ((path, arch_of(path)) for path in local)
        else:
            yield from ((path, arch_of(header)) for path in git_lines(ctx, *generic))
        return
    yield from ((path, arch_of(path)) for path in git_lines(ctx, *generic)
                if not disabled(ctx, path))


def header_users(ctx: core.Ctx, rev: str, header: str) -> List[Source]:
    """The .c files that use what REV changes in HEADER."""
    diff = core.git(check_tree(ctx), "diff", "-U0", f"{rev}~1", rev, "--", header)
    text = core.read(os.path.join(check_tree(ctx), header), "")
    symbols = set()
    for hunk in hunks(diff):
        symbols |= {symbol_at(text, hunk.new_start), hunk.symbol}
    users: List[Source] = []
    for symbol in sorted(symbols - {""}):
        users += itertools.islice(_symbol_users(ctx, header, symbol), USERS_PER_SYMBOL)
    return users


def needed(ctx: core.Ctx, rev: str, changed: Sequence[str]) -> Dict[str, List[str]]:
    """Architecture -> the objects that show REV builds, sorted, each
    once; CHANGED: the files REV changes."""
    sources = set()
    for path in changed:
        if path.endswith(".c"):
            source = includer(ctx, path)
            sources.add((source, arch_of(source)))
        elif path.endswith(".h"):
            sources.update(header_users(ctx, rev, path))
    by_arch: Dict[str, List[str]] = {}
    for path, arch in sorted(sources):
        by_arch.setdefault(arch, []).append(path.removesuffix(".c") + ".o")
    return by_arch


# ----------------------------------------------------------- comments only

def _uncommented(ctx: core.Ctx, spec: str) -> Optional[bytes]:
    """The blob SPEC of the check tree without its comments (directives
    kept, nothing expanded); None when it does not exist or the compiler
    fails on it."""
    blob = core.run(["git", "-C", check_tree(ctx), "show", spec], capture=True, text=False)
    if blob.returncode != 0:
        return None
    gcc = core.run_owned(["gcc", "-fpreprocessed", "-dD", "-E", "-P", "-x", "c", "-"],
                         input=blob.stdout, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    return gcc.stdout.rstrip(b"\n") if gcc.returncode == 0 else None


def comments_only(ctx: core.Ctx, rev: str, changed: Sequence[str]) -> bool:
    """Whether REV changes only comments in its C files (CHANGED: the files
    it changes): each is the same before and after once the compiler has
    stripped the comments.  A file added or removed is a change."""
    for path in changed:
        if path.endswith((".c", ".h", ".S")):
            before = _uncommented(ctx, f"{rev}~1:{path}")
            if before is None or before != _uncommented(ctx, f"{rev}:{path}"):
                return False
    return True
