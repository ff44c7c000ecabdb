# SPDX-License-Identifier: GPL-2.0
"""./run.sh check-patches: the series, one patch at a time, on a scratch tree.

Each patch of the series is applied with git am to a worktree of the
kernel tree (the check tree, reset to "pristine" first), and then:

  - the objects that show it builds are compiled: the .c files it
    touches, and for a header the .c files that use what it changes, each
    with the compiler of the architecture the file belongs to, in an
    allmodconfig build directory per architecture;
  - scripts/checkpatch.pl --strict reads it, less the reports that
    kernel-patches/checkpatch-exceptions accepts.

Once over the whole series: the Coccinelle rules of
kernel-patches/coccinelle/ on their own fixtures and then on the .c files
the series touches, and W=1 plus sparse on those files before and after
the series (it may add no warning).

Every line printed is the one run.sh's bash printed, except that a
patch's architectures come in sorted order (bash's came in its hash
order); cmd_check_patches() says True when nothing failed and adds its
counts to the run's totals.
Sorting is byte-wise, as bash's sort was under the C or C.UTF-8 locale.
"""

import contextlib
import dataclasses
import glob
import os
import re
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from harness import core, settings, toolchain
from harness.core import Ctx, info, out, err

# Where an object is compile-tested: a path prefix -> the ARCH to build it
# with (the first match wins; everything else: x86_64).  Architecture code
# that depends on a machine, not just on arch/, is listed explicitly.
CHECK_ARCH_BY_PATH = (
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

# ARCH -> (make's ARCH value, cross prefix, Debian package of the compiler,
# the options allmodconfig must start from (KCONFIG_ALLCONFIG), if any):
# harness/toolchain.py's compilers, sparc32 a 32-bit sparc build.
_SEEDS = {"sparc32": ("sparc", "CONFIG_64BIT=n")}
TOOLCHAINS: Dict[str, Tuple[str, str, str, str]] = {
    arch: (tc.arch, tc.cross, tc.package, seed)
    for arch, (tc, seed) in {
        **{a: (tc, "") for a, tc in toolchain.TOOLCHAINS.items()},
        **{a: (toolchain.TOOLCHAINS[k], seed) for a, (k, seed) in _SEEDS.items()},
    }.items()}

# The Coccinelle rules of kernel-patches/coccinelle/ that check-patches
# runs over the series (each prints "file:line: RULE: message").
COCCI_RULES = ("pos_narrow", "iov_iter_fields", "copy_under_lock")
# coccinelle has spatch.  python3-ply, python3-git: checkpatch runs
# scripts/spdxcheck.py on the files a patch adds (the uaccess_tail.c files
# of kernel-patches/uaccess/), which imports both.
CHECK_PKGS = ("coccinelle", "python3-ply", "python3-git")

# How many lines of a failed build are shown, and the widths of the first
# error line kept in a message.
BUILD_TAIL = 20
UNUSABLE_WIDTH = 100
PREEXISTING_WIDTH = 90
# Users of one symbol that a changed header gets compile-tested through.
USERS_PER_SYMBOL = 8
# Hops from a .c file to the .c file that #includes it, at most.
INCLUDER_HOPS = 3


# ------------------------------------------------------------ small helpers

NL = "\n"


def _lines(text: str) -> List[str]:
    """TEXT's lines as `while read` or mapfile see them: split at "\\n"
    only (not at the other line breaks str.splitlines() knows)."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


def _dirname(path: str) -> str:
    """dirname(1): "." for a bare name."""
    if "/" not in path:
        return "."
    return path.rsplit("/", 1)[0] or "/"


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _cut_bytes(text: str, width: int) -> str:
    """cut -c1-WIDTH: GNU cut counts bytes.  A character cut in two is
    dropped (bash printed its first bytes)."""
    return text.encode("utf-8", "surrogateescape")[:width].decode("utf-8", "ignore")


def _after_check_tree(line: str) -> str:
    """sed 's|.*/check/tree/||': what follows the last "/check/tree/"."""
    idx = line.rfind("/check/tree/")
    return line if idx < 0 else line[idx + len("/check/tree/"):]


def _first_error(log: str, width: int) -> str:
    """The first line of LOG with "error:", from the check tree's paths
    on, cut to WIDTH bytes; "" when there is none."""
    try:
        with open(log, newline="", errors="replace") as fh:
            for line in fh:
                if "error:" in line:
                    return _cut_bytes(_after_check_tree(line.rstrip("\n")), width)
    except OSError:
        pass
    return ""


def _read(path: str, errors: str = "replace") -> Optional[str]:
    """PATH's text, its line ends as they are (only "\\n" ends a line for
    the tools bash used); None when it cannot be read."""
    try:
        with open(path, newline="", errors=errors) as fh:
            return fh.read()
    except OSError:
        return None


def _remove(path: str):
    with contextlib.suppress(FileNotFoundError, IsADirectoryError):
        os.remove(path)


def comm_13(before: Sequence[str], after: Sequence[str]) -> List[str]:
    """comm -13 of two sorted lists: the lines only AFTER has, counted as
    comm counts them (a line twice in AFTER and once in BEFORE is new
    once)."""
    new, i = [], 0
    for line in after:
        while i < len(before) and before[i] < line:
            i += 1
        if i < len(before) and before[i] == line:
            i += 1
        else:
            new.append(line)
    return new


# ------------------------------------------------------ where a file builds

def check_arch_of(path: str) -> str:
    """The architecture PATH (relative to the tree) is compile-tested for."""
    for prefix, arch in CHECK_ARCH_BY_PATH:
        if path.startswith(prefix):
            return arch
    return "x86_64"


def check_tree(ctx: Ctx) -> str:
    """The scratch tree check-patches applies the series to, one patch at
    a time: a git worktree of the kernel tree that the harness owns and
    resets freely."""
    return os.path.join(ctx.cache, "check", "tree")


def _git(repo: str, *args, check=False, stdout=subprocess.PIPE,
         stderr=None) -> subprocess.CompletedProcess:
    """git -C REPO ARGS, its output captured and its errors on our stderr
    (where bash left them).  check=True dies when it fails: bash's set -e
    ended run.sh there."""
    sys.stdout.flush()
    proc = core.run_owned(["git", "-C", repo, *args], stdin=subprocess.DEVNULL,
                          stdout=stdout, stderr=stderr, text=True,
                          errors="surrogateescape")
    if check and proc.returncode != 0:
        core.die(f"git -C {repo} {' '.join(args)} failed (exit {proc.returncode})")
    return proc


def _quiet_git(repo: str, *args) -> int:
    return _git(repo, *args, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode


def check_tree_reset(ctx: Ctx):
    """The check tree at pristine, made first if need be; a git am that
    stopped half-way is dropped."""
    tree = check_tree(ctx)
    if not os.path.isdir(tree):
        _git(ctx.tree, "worktree", "prune", check=True, stdout=None)
        os.makedirs(os.path.join(ctx.cache, "check"), exist_ok=True)
        _git(ctx.tree, "worktree", "add", "-q", "--detach", tree, "pristine",
             check=True, stdout=None)
    _quiet_git(tree, "am", "--abort")
    _git(tree, "reset", "-q", "--hard", "pristine", check=True, stdout=None)


def _tree_lines(ctx: Ctx, *args) -> List[str]:
    """The lines git -C CHECK_TREE ARGS prints, whether it fails or not."""
    return _lines(_git(check_tree(ctx), *args).stdout)


def check_includer(ctx: Ctx, path: str) -> str:
    """The .c file PATH is built through: a .c file that another one
    #includes (kernel/sched/psi.c in build_utility.c; hostap_download.c in
    hostap_hw.c, itself included by hostap_pci.c) is built through the
    outermost includer."""
    for _ in range(INCLUDER_HOPS):
        # An extended regex for git grep, as bash wrote it: the name's dots
        # match any character there too.
        pattern = f'^#[[:space:]]*include[[:space:]]+"{_basename(path)}"'
        found = _tree_lines(ctx, "grep", "-l", "-E", pattern, "--",
                            f"{_dirname(path)}/*.c")
        if not found or not found[0]:
            break
        path = found[0]
    return path


# A line of a Makefile that builds BASE.o only with an option:
# "obj-$(CONFIG_X) += BASE.o" (+=, := or =; BASE after white space).
def _obj_option_re(base: str) -> "re.Pattern[str]":
    # bash put BASE into a sed regex unescaped: a "." in it matches any
    # character there, so it does here too.
    name = re.escape(base).replace(r"\.", ".")
    return re.compile(r"obj-\$\((CONFIG_[A-Z0-9_]*)\)\s*[+:]*=.*\s" + name + r"\.o\b",
                      re.ASCII)


def makefile_option(makefile_text: str, base: str) -> str:
    """The CONFIG_ option of the first Makefile line that builds BASE.o
    only with it, or ""."""
    regex = _obj_option_re(base)
    for line in _lines(makefile_text):
        m = regex.match(line)
        if m:
            return m.group(1)
    return ""


def obj_disabled(ctx: Ctx, path: str) -> bool:
    """Whether the .c file PATH's Makefile line "obj-$(CONFIG_X) += FILE.o"
    names an option that x86_64's allmodconfig leaves off (an ARM-only
    driver, say): building it there would fail for reasons of its own.
    False until that allmodconfig exists."""
    base = _basename(path)
    if base.endswith(".c"):
        base = base[:-2]
    cfg = os.path.join(ctx.cache, "check", "build-x86_64", ".config")
    # ${f%/*}: the path without its last part (all of it without a "/")
    mk = os.path.join(check_tree(ctx), path.rsplit("/", 1)[0], "Makefile")
    if not (os.path.isfile(cfg) and os.path.isfile(mk)):
        return False
    sym = makefile_option(_read(mk, "surrogateescape") or "", base)
    if not sym:
        return False
    on = (f"{sym}=y", f"{sym}=m")
    return not any(line.startswith(on) for line in _lines(_read(cfg) or ""))


# ------------------------------------------------ what a header change hits

def symbol_at(header_text: str, line_no: int) -> str:
    """The macro around line LINE_NO (1-based) of a header: the #define on
    that line or the one whose backslash-continued lines reach it; "" when
    there is none.  A run of spaces and tabs separates a line's words,
    and the name ends at its "(", as awk took them."""
    name = ""
    for nr, line in enumerate(_lines(header_text), 1):
        if nr > line_no:
            break
        if re.match(r"#define[ \t]", line):
            words = re.split(r"[ \t\n]+", line.strip(" \t\n"))
            name = words[1].split("(", 1)[0] if len(words) > 1 else ""
        if not line.endswith("\\") and nr < line_no:
            name = ""
    return name


def enclosing_symbol(path: str, line_no: int) -> str:
    """The macro around line LINE_NO of the header PATH ("" when PATH
    cannot be read: awk printed nothing then)."""
    text = _read(path, "surrogateescape")
    return "" if text is None else symbol_at(text, line_no)


_HUNK_NEW_START_RE = re.compile(r"@@ -[0-9,]* \+([0-9]*)")
_PURE_ADDITION_RE = re.compile(r"@@ -[0-9]*,0 ")
_HUNK_FUNC_RE = re.compile(r"@@ .* @@ .*[^A-Za-z_0-9]([A-Za-z_][A-Za-z_0-9]*)\(")


def hunk_new_starts(diff_text: str) -> List[int]:
    """The first line, in the new file, of each hunk of a git diff -U0."""
    starts = []
    for line in _lines(diff_text):
        m = _HUNK_NEW_START_RE.match(line)
        if m:
            # An empty number was awk's "" line: before line 1, no symbol.
            starts.append(int(m.group(1) or 0))
    return starts


def hunk_header_symbols(diff_text: str) -> List[str]:
    """The function or macro named in each hunk header of a git diff -U0
    (the last NAME( after the second "@@"), unless the hunk only adds
    lines after it ("-N,0"): then it is context, not changed (pcm_dbg()
    before a new declaration in <sound/pcm.h>)."""
    names = []
    for line in _lines(diff_text):
        if _PURE_ADDITION_RE.match(line):
            continue
        m = _HUNK_FUNC_RE.match(line)
        if m:
            names.append(m.group(1))
    return names


def _header_symbol_users(ctx: Ctx, header: str, sym: str) -> Iterator[str]:
    """The .c files that use SYM of HEADER, as "FILE" or "FILE ARCH".
    A header under arch/X/ is built by X's compiler only: its users in
    arch/X/, else the generic users, built for X.  Elsewhere: the generic
    users that x86_64's allmodconfig builds."""
    tree = check_tree(ctx)
    generic = ("grep", "-l", "-w", sym, "--", "*.c", ":(exclude)arch/*")
    if header.startswith("arch/"):
        a = header[len("arch/"):].split("/", 1)[0]
        local = _git(tree, "grep", "-l", "-w", sym, "--", f"arch/{a}/*.c")
        if local.returncode == 0:
            yield from _lines(local.stdout)
            return
        arch = check_arch_of(header)
        for user in _lines(_git(tree, *generic).stdout):
            yield f"{user} {arch}"
        return
    for user in _lines(_git(tree, *generic).stdout):
        if not obj_disabled(ctx, user):
            yield user


def _header_users(ctx: Ctx, rev: str, header: str) -> List[str]:
    """The .c files that use the macros HEADER's hunks change or the
    function named in a hunk header, at most USERS_PER_SYMBOL per symbol
    (a symbol no .c file uses adds none)."""
    diff = _git(check_tree(ctx), "diff", "-U0", f"{rev}~1", rev, "--", header).stdout
    # enclosing_symbol() for each hunk, the header read once
    text = _read(os.path.join(check_tree(ctx), header), "surrogateescape")
    syms = [("" if text is None else symbol_at(text, n))
            for n in hunk_new_starts(diff)]
    syms += hunk_header_symbols(diff)
    users: List[str] = []
    for sym in sorted(set(syms)):
        if not sym:
            continue
        for k, user in enumerate(_header_symbol_users(ctx, header, sym)):
            if k == USERS_PER_SYMBOL:
                break
            users.append(user)
    return users


def check_sources(ctx: Ctx, rev: str) -> List[str]:
    """The .c files whose objects show that REV builds, sorted, each once:
    the .c files it touches (through their includers), and for a header
    the .c files that use what it changes.  A line is "FILE ARCH" where
    the architecture is not FILE's own (check_arch_of)."""
    found: List[str] = []
    for path in _tree_lines(ctx, "diff", "--name-only", f"{rev}~1", rev):
        if path.endswith(".c"):
            found.append(check_includer(ctx, path))
        elif path.endswith(".h"):
            found += _header_users(ctx, rev, path)
    return sorted(set(found))


# ----------------------------------------------------------- comments only

def uncomment(source: bytes) -> Optional[bytes]:
    """C source without its comments (directives kept, nothing expanded),
    without its last newlines; None when the compiler fails on it."""
    proc = core.run_owned(["gcc", "-fpreprocessed", "-dD", "-E", "-P", "-x", "c", "-"],
                          input=source, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL)
    return proc.stdout.rstrip(b"\n") if proc.returncode == 0 else None


def _uncommented_blob(ctx: Ctx, spec: str) -> Optional[bytes]:
    sys.stdout.flush()
    proc = core.run_owned(["git", "-C", check_tree(ctx), "show", spec],
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    return uncomment(proc.stdout) if proc.returncode == 0 else None


def check_comments_only(ctx: Ctx, rev: str) -> bool:
    """Whether REV changes only comments in its C files: each one is the
    same before and after once the compiler has stripped the comments
    (nothing to compile-test then).  A file added or removed is a change."""
    for path in _tree_lines(ctx, "diff", "--name-only", f"{rev}~1", rev):
        if not path.endswith((".c", ".h", ".S")):
            continue
        before = _uncommented_blob(ctx, f"{rev}~1:{path}")
        if before is None:
            return False
        after = _uncommented_blob(ctx, f"{rev}:{path}")
        if after is None:
            return False
        if not before or before != after:
            return False
    return True


# ------------------------------------------------------------- checkpatch

def exception_fields(line: str) -> Tuple[str, str, str]:
    """A line of kernel-patches/checkpatch-exceptions as bash's
    `IFS='|' read -r name text reason` split it: the reason is the rest
    of the line, less a last "|" right after its first field."""
    name, sep, rest = line.partition("|")
    if not sep:
        return name, "", ""
    text, sep, rest = rest.partition("|")
    if not sep:
        return name, text, ""
    word, sep, after = rest.partition("|")
    return name, text, (word if sep and not after else rest)


def exception_entries(list_text: str) -> List[Tuple[str, str, str]]:
    """The (patch file, text, reason) entries of the exceptions list.  A
    last line without its newline is not one: bash's `while read` did not
    see it."""
    entries = []
    for line in list_text.split("\n")[:-1]:
        name, text, reason = exception_fields(line)
        if name and not name.startswith("#"):
            entries.append((name, text, reason))
    return entries


def checkpatch_exceptions(ctx: Ctx, patch: str, reports: str) -> str:
    """REPORTS (checkpatch's lines about the patch file PATCH) less those
    that kernel-patches/checkpatch-exceptions accepts ("patch-file|text|
    reason"); the accepted ones are said on stderr with their reason.  The
    first entry for PATCH whose text the report holds decides: without a
    reason, it accepts nothing."""
    list_text = _read(os.path.join(ctx.repo, "kernel-patches", "checkpatch-exceptions"))
    entries = exception_entries(list_text) if list_text is not None else []
    kept = []
    for line in reports.split("\n"):
        if not line:
            continue
        accepted = next((reason for name, text, reason in entries
                         if name == patch and text in line), "")
        if accepted:
            err(f"        accepted: {line.rsplit(': ', 1)[-1]} ({accepted})")
        else:
            kept.append(line)
    return "\n".join(kept)


def _checkpatch(ctx: Ctx, patch: str) -> str:
    """checkpatch.pl's reports on PATCH, its errors included.  Debian's
    python3 first: scripts/spdxcheck.py needs the ply of python3-ply,
    which another python3 earlier in PATH lacks."""
    env = settings.child_env({"PATH": "/usr/bin:" + settings.host_path()})
    sys.stdout.flush()
    try:
        proc = core.run_owned(["scripts/checkpatch.pl", "--strict", "--terse",
                               "--no-summary", patch],
                              cwd=check_tree(ctx), env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace")
    except OSError as e:
        return f"scripts/checkpatch.pl: {e.strerror}"
    return proc.stdout.rstrip("\n")


def _patch_title(name: str) -> str:
    """basename NAME .patch, cut to 60 bytes: the patch's line names it so."""
    if name.endswith(".patch") and name != ".patch":
        name = name[:-len(".patch")]
    return _cut_bytes(name, 60)


# ------------------------------------------------------------------ checker

@dataclasses.dataclass
class Checker:
    """One check-patches run's state: which build directories are ready,
    which architectures cannot build (and why), and what is reported at
    the end."""
    ctx: Ctx
    ready: set = dataclasses.field(default_factory=set)
    unusable: Dict[str, str] = dataclasses.field(default_factory=dict)
    # "PATCH: OBJS (ARCH: why)" for objects that were not compile-tested
    untested: List[str] = dataclasses.field(default_factory=list)
    # "PATCH: ARCH: first error" for builds that fail before the patch too
    preexisting: List[str] = dataclasses.field(default_factory=list)

    def logs(self, name: str) -> str:
        return os.path.join(self.ctx.cache, "check", "logs", name)

    def build_dir(self, arch: str) -> str:
        return os.path.join(self.ctx.cache, "check", f"build-{arch}")

    def make_args(self, arch: str) -> Optional[List[str]]:
        """make's arguments for an allmodconfig build directory of the
        check tree with "prepare" done, so that single objects can be
        built in it; None when ARCH cannot build (self.unusable says why)."""
        karch, cross, pkg, seed = TOOLCHAINS.get(arch, ("", "", "", ""))
        if arch in self.unusable:
            return None
        gcc = f"{cross}gcc"
        if shutil.which(gcc) is None:
            core.ensure_pkgs_soft(self.ctx, [pkg])
        if shutil.which(gcc) is None:
            self.unusable[arch] = f"no {gcc} (Debian package {pkg})"
            return None
        build = self.build_dir(arch)
        log = os.path.join(self.ctx.cache, "check", f"prepare-{arch}.log")
        args = ["-C", check_tree(self.ctx), f"O={build}", f"ARCH={karch}",
                f"CROSS_COMPILE={cross}", f"CC=ccache {gcc}", "HOSTCC=ccache gcc",
                f"-j{self.ctx.jobs}"]
        if arch not in self.ready:
            os.makedirs(build, exist_ok=True)
            info(f"check-patches: allmodconfig + prepare for {arch} (log: {log})")
            core.write(f"{build}.allconfig", seed + "\n")
            if (core.run(["make", *args, f"KCONFIG_ALLCONFIG={build}.allconfig",
                          "allmodconfig"], log=log).returncode != 0 or
                    core.run(["make", *args, "prepare"], log=log,
                             append=True).returncode != 0):
                # The pristine tree itself does not build here: say so
                # with the first error, and go on with the other arches.
                self.unusable[arch] = (f"allmodconfig prepare fails "
                                       f"({_first_error(log, UNUSABLE_WIDTH)}; log: {log})")
                return None
            self.ready.add(arch)
        return args

    def fails_before(self, args: List[str], rev: str, arch: str,
                     objs: List[str], n: int) -> bool:
        """Whether OBJS also fail to build on REV's parent, i.e. the
        failure is not this patch's."""
        tree = check_tree(self.ctx)
        _git(tree, "checkout", "-q", "--detach", f"{rev}~1", stdout=None)
        failed = core.run(["make", *args, "-j1", *objs],
                          log=self.logs(f"{n}-{arch}-before.log")).returncode != 0
        _git(tree, "checkout", "-q", "--detach", rev, stdout=None)
        return failed

    def build(self, patch: str, rev: str, i: int, arch: str,
              objs: List[str]) -> Tuple[str, bool]:
        """Compile-test OBJS for ARCH at REV: the note for the patch's
        line, and whether the build failed because of the patch."""
        name = _basename(patch)
        args = self.make_args(arch)
        if args is None:
            self.untested.append(f"{name}: {' '.join(objs)} ({arch}: {self.unusable[arch]})")
            return f" {arch}: not compile-tested;", False
        # Compile each object again at this patch, whatever the build dir
        # holds from earlier runs.  One job: several single-object targets
        # in parallel race in Kbuild (fixdep found a .o.d missing).
        build = self.build_dir(arch)
        for obj in objs:
            _remove(os.path.join(build, _dirname(obj), f".{_basename(obj)}.cmd"))
            _remove(os.path.join(build, obj))
        log = self.logs(f"{i}-{arch}.log")
        if core.run(["make", *args, "-j1", *objs], log=log).returncode == 0:
            return f" {arch}: {len(objs)} built;", False
        if not self.fails_before(args, rev, arch, objs, i):
            for line in core.tail(log, BUILD_TAIL):
                out(f"        {line}")
            return f" {arch}: BUILD FAILED;", True
        if core.run(["make", *args, "-j1", *objs, "KCFLAGS=-Wno-error"],
                    log=self.logs(f"{i}-{arch}-wno-error.log")).returncode == 0:
            # The same objects fail to build before this patch as well (a
            # warning that allmodconfig's WERROR turns into an error in
            # the pristine tree): built without -Werror, the patch is still
            # compile-tested.
            self.preexisting.append(
                f"{name}: {arch}: {_first_error(log, PREEXISTING_WIDTH)}")
            return (f" {arch}: {len(objs)} built with -Wno-error "
                    "(fails before this patch too);"), False
        # It does not build in this configuration before the patch either,
        # warnings or not (arch/m68k/sun3 needs CONFIG_SUN3, which
        # allmodconfig leaves off): the patch cannot be compile-tested here.
        self.untested.append(
            f"{name}: {' '.join(objs)} ({arch}: does not build before the patch "
            f"either; log: {self.logs(f'{i}-{arch}-before.log')})")
        return f" {arch}: not compile-tested (fails before too);", False

    def check_patch(self, patch: str, i: int, n: int) -> Optional[bool]:
        """Apply PATCH (the I-th of N) and check it, printing its line:
        whether it passed; None when it does not apply (then the series
        stops there)."""
        tree = check_tree(self.ctx)
        t0 = core.now()
        name = _basename(patch)
        sys.stdout.flush()
        am = core.run_owned(["git", "-C", tree, "am", "--quiet", patch],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace")
        if am.returncode != 0:
            why = am.stdout.rstrip("\n")
            out(f"[{i:2d}/{n}] {name}: does not apply:\n{why}")
            _quiet_git(tree, "am", "--abort")
            return None
        ok = True
        rev = _git(tree, "rev-parse", "HEAD", check=True).stdout.strip()
        srcs = check_sources(self.ctx, rev)
        by_arch: Dict[str, List[str]] = {}
        for line in srcs:
            # "FILE ARCH" when check_sources names the architecture
            path, sep, arch = line.partition(" ")
            if not sep:
                arch = check_arch_of(path)
            stem = path[:-2] if path.endswith(".c") else path
            by_arch.setdefault(arch, []).append(f"{stem}.o")
        built = ""
        if not srcs and any(re.search(r"\.[ch]$", f) for f in _tree_lines(
                self.ctx, "diff", "--name-only", f"{rev}~1", rev)):
            if check_comments_only(self.ctx, rev):
                built = " comments only (the C is identical without them);"
            else:
                built = " no object found for the C files it touches;"
                ok = False
        for arch in sorted(by_arch):
            note, failed = self.build(patch, rev, i, arch, by_arch[arch])
            built += note
            ok = ok and not failed
        reports = checkpatch_exceptions(self.ctx, name, _checkpatch(self.ctx, patch))
        if reports:
            ok = False
            for line in reports.split("\n"):
                out(f"        {line}")
        verdict = f"{len(reports.split(NL))} reports" if reports else "clean"
        out(f"[{i:2d}/{n}] {_patch_title(name):<60} {built or ' no objects;'} "
            f"checkpatch: {verdict} ({core.elapsed(t0)}s)")
        return ok

    def new_warnings(self, final: str) -> Tuple[int, int]:
        """W=1 and sparse over every C file the series touches, at the
        pristine tree and at the last patch FINAL: the series may add no
        warning.  One case per architecture: (passed, failed)."""
        tree = check_tree(self.ctx)
        if shutil.which("sparse") is None:
            core.ensure_pkgs(self.ctx, ["sparse"])
        objs: Dict[str, List[str]] = {}
        for path in _tree_lines(self.ctx, "diff", "--name-only", "pristine", final,
                                "--", "*.c"):
            if not os.path.isfile(os.path.join(tree, path)):
                continue
            path = check_includer(self.ctx, path)
            stem = path[:-2] if path.endswith(".c") else path
            objs.setdefault(check_arch_of(path), []).append(f"{stem}.o")
        passed = failed = 0
        for arch in sorted(objs):
            args = self.make_args(arch)
            if args is None:
                out(f"warnings/{arch}: not built ({self.unusable[arch]})")
                continue
            before = self.warnings_at(args, "pristine", arch,
                                      self.logs(f"warnings-pristine-{arch}.log"), objs[arch])
            after = self.warnings_at(args, final, arch,
                                     self.logs(f"warnings-series-{arch}.log"), objs[arch])
            new = comm_13(before, after)
            if not new:
                out(f"ok warnings/{arch}: {len(objs[arch])} objects, C=1 W=1, "
                    f"no new warning ({len(after)} before and after)")
                passed += 1
            else:
                out(f"not ok warnings/{arch}: new with the series (logs: "
                    f"{self.logs(f'warnings-*-{arch}.log')}):")
                for line in new:
                    out(f"        {line}")
                failed += 1
        _git(tree, "checkout", "-q", "--detach", final, check=True, stdout=None)
        return passed, failed

    def warnings_at(self, args: List[str], rev: str, arch: str, log: str,
                    objs: List[str]) -> List[str]:
        """The compiler's and sparse's warnings (make C=1 W=1, -Werror
        off) for OBJS built in the check tree at REV (see warning_lines).
        One job: see build().  A build error is a warning too."""
        _git(check_tree(self.ctx), "checkout", "-q", "--detach", rev)
        for obj in objs:
            _remove(os.path.join(self.build_dir(arch), obj))
        core.run(["make", *args, "-j1", "C=1", "W=1", "KCFLAGS=-Wno-error", *objs],
                 log=log)
        return warning_lines(_read(log) or "", check_tree(self.ctx))


_WARNING_RE = re.compile(r"([^: ]*\.[ch]):[0-9]*(?::[0-9]*)?: (warning|error): (.*)")


def warning_lines(log_text: str, tree: str) -> List[str]:
    """A build log's warnings and errors on .c and .h files, one "file:
    warning: message" per line, sorted: without line numbers, so that code
    moved by a patch still matches, and with paths relative to TREE."""
    found = []
    for line in _lines(log_text):
        line = re.sub(r"^(\.\./)*", "", line)
        if line.startswith(tree + "/"):
            line = line[len(tree) + 1:]
        m = _WARNING_RE.match(line)
        if m:
            found.append(f"{m.group(1)}: {m.group(2)}: {m.group(3)}")
    return sorted(found)


# ------------------------------------------------------------ static checks

def cocci_dir(ctx: Ctx) -> str:
    return os.path.join(ctx.repo, "kernel-patches", "coccinelle")


def _cocci_log(ctx: Ctx) -> str:
    return os.path.join(ctx.cache, "check", "logs", "cocci.log")


def _numeric_prefix(field: str) -> float:
    """sort -n's value of FIELD: its leading number, else 0."""
    m = re.match(r"[ \t]*(-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))", field)
    return float(m.group(1)) if m else 0.0


def cocci_sort_key(line: str):
    """sort -t: -k1,1 -k2,2n: by file, then by line number, then the
    whole line."""
    fields = line.split(":")
    return (fields[0], _numeric_prefix(fields[1] if len(fields) > 1 else ""), line)


def cocci_run(ctx: Ctx, rule: str, cwd: str, files: Sequence[str]) -> Tuple[bool, List[str]]:
    """RULE's findings on FILES (relative to CWD), sorted, and whether
    spatch succeeded on every file (its messages are in cocci.log).  One
    spatch per file, ctx.jobs at a time: the files given to one spatch are
    matched as one unit."""
    if not files:
        return True, []
    if not os.path.isdir(cwd):
        err(f"run.sh: cd: {cwd}: No such file or directory")
        return False, []
    cmd = ["spatch", "-D", "report", "--very-quiet", "--no-includes",
           "--include-headers", "--timeout", "120",
           "--sp-file", os.path.join(cocci_dir(ctx), f"{rule}.cocci")]
    stop = threading.Event()    # xargs starts no more after an exit 255

    with open(_cocci_log(ctx), "ab") as log:
        def one(path: str) -> Tuple[int, bytes]:
            if stop.is_set():
                return 0, b""
            try:
                proc = core.run_owned([*cmd, path], cwd=cwd, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=log)
            except FileNotFoundError as e:
                log.write(f"xargs: spatch: {e.strerror}\n".encode())
                log.flush()
                return 127, b""
            if proc.returncode == 255:
                stop.set()
            return proc.returncode, proc.stdout

        workers = ctx.jobs if ctx.jobs > 0 else len(files)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(one, files))
    lines = [line for _, stdout in results
             for line in _lines(stdout.decode("utf-8", "surrogateescape")) if line]
    return all(rc == 0 for rc, _ in results), sorted(lines, key=cocci_sort_key)


def cocci_expected_text(text: str) -> List[str]:
    """"RULE LINE" for each "expect: RULE" comment of a fixture, sorted,
    each once."""
    found = set()
    for nr, line in enumerate(_lines(text), 1):
        for m in re.finditer(r"expect: ([a-z_]+)", line):
            found.add(f"{m.group(1)} {nr}")
    return sorted(found)


def cocci_expected(path: str) -> List[str]:
    return cocci_expected_text(_read(path) or "")


_FINDING_RE = re.compile(r"[^:]*:([0-9]*): ([a-z_]*): ")


def cocci_flagged(findings: Iterable[str]) -> List[str]:
    """"RULE LINE" for each finding "file:line: RULE: message", sorted,
    each once."""
    found = set()
    for line in findings:
        m = _FINDING_RE.match(line)
        if m:
            found.add(f"{m.group(2)} {m.group(1)}")
    return sorted(found)


def cocci_selftest(ctx: Ctx) -> Tuple[int, int]:
    """Every rule on every fixture in kernel-patches/coccinelle/tests/.
    A fixture passes when the rules flag exactly the lines its "expect:
    RULE" comments name: a rule that stops flagging v1's shapes, or flags
    a clean file, fails it.  Each rule must be expected somewhere, so that
    deleting the expectations cannot make a silent rule pass.  Returns
    (passed, failed)."""
    log = _cocci_log(ctx)
    pattern = os.path.join(cocci_dir(ctx), "tests", "*.c")
    # An unmatched glob stayed itself in bash (and then failed as a file).
    fixtures = sorted(glob.glob(pattern), key=os.fsencode) or [pattern]
    passed = failed = 0
    for fixture in fixtures:
        name = _basename(fixture)
        findings: List[str] = []
        spatch_ok = True
        for rule in COCCI_RULES:
            ok, lines = cocci_run(ctx, rule, _dirname(fixture), [name])
            findings += lines
            if not ok:
                spatch_ok = False
                break
        got = cocci_flagged(findings)
        want = cocci_expected(fixture)
        if not spatch_ok:
            out(f"not ok {name}: spatch failed (log: {log})")
        elif got == want:
            out(f"ok {name}: {len(want)} lines flagged as declared")
            passed += 1
            continue
        else:
            missed = ",".join(x for x in want if x not in got)
            extra = ",".join(x for x in got if x not in want)
            out(f"not ok {name}: missed: {missed or 'none'}; not declared: {extra or 'none'}")
        failed += 1
    texts = [_read(f) or "" for f in fixtures]
    for rule in COCCI_RULES:
        expect = re.compile(r"expect: " + re.escape(rule) + r"\b", re.ASCII)
        if not any(expect.search(text) for text in texts):
            out(f"not ok {rule}: no fixture expects a finding of it")
            failed += 1
    return passed, failed


def added_lines(diff_text: str) -> List[str]:
    """"file:line" for each line that a git diff -U0 adds or changes (its
    hunks' new side; a removed file adds none)."""
    found, path = [], ""
    for line in _lines(diff_text):
        if line.startswith("+++ b/"):
            path = line[len("+++ b/"):]
        elif line.startswith("@@"):
            # awk's $3: the third run of non-blanks, "+START[,COUNT]"
            words = re.split(r"[ \t]+", line.strip(" \t"))
            new = words[2] if len(words) > 2 else ""
            start, _, count = new.partition(",")
            n = 1 if count == "" else _awk_number(count)
            first = _awk_number(start[1:])
            found += [f"{path}:{first + k}" for k in range(n)]
    return found


def _awk_number(text: str) -> int:
    """awk's value of TEXT as a number: its leading integer, else 0."""
    m = re.match(r"[ \t]*([-+]?[0-9]+)", text)
    return int(m.group(1)) if m else 0


def cocci_added_lines(ctx: Ctx, base: str) -> List[str]:
    """"file:line" for each line of a .c file that the check tree's
    commits after BASE add or change."""
    return added_lines(_git(check_tree(ctx), "diff", "-U0", base, "HEAD",
                            "--", "*.c").stdout)


def _patch_number(ctx: Ctx, base: str, loc: str) -> int:
    """The number, in the series after BASE, of the patch that added LOC
    ("file:line")."""
    tree = check_tree(ctx)
    path, _, line = loc.partition(":")
    blame = _git(tree, "blame", "-s", "-L", f"{line},{line}", f"{base}..HEAD",
                 "--", path).stdout
    commit = "\n".join(row.split(" ", 1)[0] for row in _lines(blame))
    count = _git(tree, "rev-list", "--count", f"{base}..{commit}").stdout.strip()
    # printf %04d took an empty count as 0
    return int(count) if count.isdigit() else 0


def cocci_check(ctx: Ctx, base: str) -> Tuple[int, int]:
    """The rules on every .c file that the check tree's commits after BASE
    touch, at the last of them.  A finding on a line that the series adds
    fails its rule and names the patch; one on a line of BASE is listed as
    older.  One result per rule: (passed, failed)."""
    tree = check_tree(ctx)
    files = _tree_lines(ctx, "diff", "--name-only", "--diff-filter=AMR",
                        base, "HEAD", "--", "*.c")
    added = set(cocci_added_lines(ctx, base))
    passed = failed = 0
    for rule in COCCI_RULES:
        t0 = core.now()
        ok, findings = cocci_run(ctx, rule, tree, files)
        if not ok:
            out(f"[cocci] {rule:<20} spatch FAILED (log: {_cocci_log(ctx)})")
            failed += 1
            continue
        new, old = [], []
        for line in findings:
            loc = ":".join(line.split(":")[:2])
            if loc in added:
                new.append(f"{line} (patch {_patch_number(ctx, base, loc):04d})")
            else:
                old.append(line)
        out(f"[cocci] {rule:<20} {len(files)} files: {len(new)} new, "
            f"{len(old)} before the series ({core.elapsed(t0)}s)")
        for line in new:
            out(f"        {line}")
        for line in old:
            out(f"        before the series: {line}")
        if new:
            failed += 1
        else:
            passed += 1
    return passed, failed


# ---------------------------------------------------------------- command

def cmd_check_patches(ctx: Ctx) -> bool:
    """./run.sh check-patches: True when nothing failed."""
    from harness import tree as kernel_tree

    t_all = core.now()
    core.ensure_pkgs(ctx, [*core.HOST_PKGS, *CHECK_PKGS])
    if not os.path.isdir(os.path.join(ctx.tree, ".git")):
        kernel_tree.prepare_tree(ctx)
    patches = kernel_tree.series_patches(ctx)
    n = len(patches)
    if n == 0:
        out("0 passed, 0 failed")
        return True
    check_tree_reset(ctx)
    os.makedirs(os.path.join(ctx.cache, "check", "logs"), exist_ok=True)
    checker = Checker(ctx)
    passed = failed = 0
    for i, patch in enumerate(patches, 1):
        result = checker.check_patch(patch, i, n)
        if result is None:
            failed += 1 + n - i     # this one and those after it
            break
        if result:
            passed += 1
        else:
            failed += 1
    # The static checks, once over the whole series: the rules' own
    # fixtures first (a rule that misses v1's shapes proves nothing), then
    # every .c file the series touches, at its last patch.
    core.write(_cocci_log(ctx), "")
    out("static checks: Coccinelle fixtures")
    p, f = cocci_selftest(ctx)
    passed, failed = passed + p, failed + f
    out("static checks: Coccinelle rules on the series")
    p, f = cocci_check(ctx, "pristine")
    passed, failed = passed + p, failed + f
    if checker.untested:
        out("not compile-tested:")
        for line in checker.untested:
            out(f"    {line}")
    if checker.preexisting:
        out("built with -Wno-error, failing before the patch too:")
        for line in checker.preexisting:
            out(f"    {line}")
    # Only for a series that applied whole.
    applied = _git(check_tree(ctx), "rev-list", "--count", "pristine..HEAD").stdout.strip()
    if applied.isdigit() and int(applied) == n:
        head = _git(check_tree(ctx), "rev-parse", "HEAD").stdout.strip()
        p, f = checker.new_warnings(head)
        passed, failed = passed + p, failed + f
    out(f"check-patches: {n} patches in {core.elapsed(t_all)}s")
    out(f"{passed} passed, {failed} failed")
    ctx.count(passed, failed)
    return failed == 0
