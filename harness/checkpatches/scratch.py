# SPDX-License-Identifier: GPL-2.0
"""What the three jobs share: the check tree (a git worktree of the kernel
tree, at "pristine" before the series, that check-patches owns and resets
freely), the check's directories in the cache, and reading text as git
and the compilers count its lines.
"""

import os
import re
from typing import List

from harness import core


def check_dir(ctx: core.Ctx) -> str:
    """$CACHE/check: the tree, the build directories and the logs."""
    return os.path.join(ctx.cache, "check")


def check_tree(ctx: core.Ctx) -> str:
    return os.path.join(check_dir(ctx), "tree")


def build_dir(ctx: core.Ctx, arch: str) -> str:
    """The allmodconfig build directory (O=) of the check tree for ARCH."""
    return os.path.join(check_dir(ctx), f"build-{arch}")


def log_path(ctx: core.Ctx, name: str) -> str:
    return os.path.join(check_dir(ctx), "logs", name)


def reset_check_tree(ctx: core.Ctx):
    """The check tree at pristine, made first if need be; a git am that
    stopped half-way is dropped."""
    tree = check_tree(ctx)
    if not os.path.isdir(tree):
        core.git(ctx.tree, "worktree", "prune")
        os.makedirs(check_dir(ctx), exist_ok=True)
        core.git(ctx.tree, "worktree", "add", "-q", "--detach", tree, "pristine")
    core.ok(["git", "-C", tree, "am", "--abort"])
    core.git(tree, "reset", "-q", "--hard", "pristine")


def lines(text: str) -> List[str]:
    """TEXT's lines, split at "\\n" only: git, the compilers and spatch
    number lines so (str.splitlines() also splits at the form feeds that
    C files hold)."""
    parts = text.split("\n")
    return parts[:-1] if parts[-1] == "" else parts


def git_lines(ctx: core.Ctx, *args: str) -> List[str]:
    """The non-empty lines of git ARGS in the check tree; none when it
    fails (git grep finding nothing exits 1)."""
    return [line for line in lines(core.git(check_tree(ctx), *args, check=False))
            if line]


def in_tree(line: str, tree: str) -> str:
    """A compiler's LINE with the check tree's paths relative to it: a
    leading "../" (make's O= build names sources so) and "TREE/" go,
    also as its real path (Kbuild prints sources through realpath)."""
    line = re.sub(r"^(\.\./)+", "", line).replace(tree + "/", "")
    return line.replace(os.path.realpath(tree) + "/", "")
