# SPDX-License-Identifier: GPL-2.0
"""The kernel tree in the base's cache: the base's Debian linux-source
tarball (bases/NAME.toml), extracted and committed as "pristine", with the
base's two series of kernel-patches/ applied by git am.  A tree that holds work not in
kernel-patches/ (commits after the series, edits, untracked files) is
never discarded: the run stops and says how to keep it.

Two series go into the tree, in this order, each a directory the base
names (either may be absent):
  series.fixes   fixes to ARM and riscv user copies that the armv7 and
                 riscv64 guests found (6.1: kernel-patches/uaccess/); the
                 tag FIXES_TAG marks their last commit;
  series.procfs  the procfs series (6.1: kernel-patches/).
They touch different files; export writes each back to its directory.
"""

import os
import re
import shutil
import subprocess
from typing import List

from harness import core, stage

FIXES_TAG = "setfs-uaccess-fixes"
# The identity the committed kernel-patches/ carry (From:, Signed-off-by:):
# a placeholder nobody can post under (kernel-patches/README.md); export
# writes the developer's instead (commands.with_identity()).
SERIES_IDENTITY = ("Seed cb4d7c4f maintainers",
                   "maintainers@users.noreply.a-seed-cb4d7c4f.example")


def _series_dir(ctx, rel: str, field: str) -> str:
    if not rel:
        return ""
    d = os.path.join(ctx.repo, rel)
    if not os.path.isdir(d):
        core.die(f"{rel}/ does not exist ({ctx.base.path}: {field})")
    return d


def fixes_dir(ctx) -> str:
    """The base's fixes directory ("" when it has none)."""
    return _series_dir(ctx, ctx.base.fixes, "series.fixes")


def procfs_dir(ctx) -> str:
    """The base's procfs series directory ("" when it has none)."""
    return _series_dir(ctx, ctx.base.procfs, "series.procfs")


def patches_in(ctx: core.Ctx, d: str) -> List[str]:
    """The patches of one directory: D/series if present, else D/*.patch in
    name order, the cover letter excepted.  Nothing for a missing D."""
    if not d or not os.path.isdir(d):
        return []
    series = os.path.join(d, "series")
    if os.path.isfile(series):
        out = []
        with open(series) as fh:
            for line in fh:
                p = line.strip()
                if not p or p.startswith("#"):
                    continue
                if not os.path.isfile(os.path.join(d, p)):
                    core.die(f"{ctx.rel(d)}/series names {p}, which does not exist")
                out.append(os.path.join(d, p))
        return out
    return [os.path.join(d, p) for p in sorted(os.listdir(d))
            if p.endswith(".patch") and p != "0000-cover-letter.patch" and
            os.path.isfile(os.path.join(d, p))]


def fixes_patches(ctx) -> List[str]:
    return patches_in(ctx, fixes_dir(ctx))


def procfs_patches(ctx) -> List[str]:
    return patches_in(ctx, procfs_dir(ctx))


def series_patches(ctx) -> List[str]:
    """Every patch, in the order apply_series applies them."""
    return fixes_patches(ctx) + procfs_patches(ctx)


def series_id(ctx) -> str:
    patches = series_patches(ctx)
    return core.hash_files(ctx.repo, patches) if patches else "empty"


def tarball_id(ctx) -> str:
    ver = core.output(["dpkg-query", "-W", "-f=${Version}", ctx.base.package],
                      check=False) or "unknown"
    st = os.stat(ctx.tarball)
    return f"{ver} {st.st_size} {int(st.st_mtime)}"


def state_get(ctx, key: str) -> str:
    for line in core.read(ctx.tree_state, "").splitlines():
        if line.startswith(key + "="):
            return line[len(key) + 1:]
    return ""


def state_write(ctx, tarball: str, series: str, applied: str):
    core.write(ctx.tree_state + ".new",
               f"tarball={tarball}\nseries={series}\napplied={applied}\n")
    os.replace(ctx.tree_state + ".new", ctx.tree_state)


def head(ctx, rev: str = "HEAD") -> str:
    return core.git(ctx.tree, "rev-parse", rev)


# What scripts/kconfig/merge_config.sh names its mktemp files in the
# directory it runs in; a run of an earlier harness killed while the
# script ran left them in the tree.
KCONFIG_TEMPORARY = re.compile(r"^\.(merge_)?tmp\.config\.[A-Za-z0-9]{10}$")


def drop_kconfig_temporaries(top: str):
    """Remove merge_config.sh's leftover temporaries from TOP: they are
    nobody's work, and the guard would refuse the tree for them."""
    for name in os.listdir(top) if os.path.isdir(top) else ():
        path = os.path.join(top, name)
        if KCONFIG_TEMPORARY.match(name) and os.path.isfile(path) and \
                not os.path.islink(path):
            os.unlink(path)


def tree_unexported(ctx) -> str:
    """What in the tree is not in kernel-patches/: commits after the
    applied series, edits to tracked files, files that are not tracked.
    A description; empty when the tree holds only what the series made."""
    lines = []
    drop_kconfig_temporaries(ctx.tree)
    applied = state_get(ctx, "applied")
    if not applied or not core.ok(["git", "-C", ctx.tree, "rev-parse", "-q",
                                   "--verify", applied + "^{commit}"]):
        lines.append(f"the tree has no record of which series it holds ({ctx.tree_state})")
    elif core.git(ctx.tree, "rev-list", "-n", "1", f"{applied}..HEAD"):
        lines.append(f"commits after the applied series ({applied}):")
        lines += core.git(ctx.tree, "log", "--oneline", f"{applied}..HEAD").splitlines()[:20]
    status = core.output(["git", "-C", ctx.tree, "status", "--porcelain", "--ignored"],
                         check=False, stderr_too=True).splitlines()[:20]
    if status:
        lines.append("uncommitted or untracked files:")
        lines += status
    return "\n".join(lines)


def refuse_to_discard(ctx, what: str):
    core.err(f"""run.sh: error: the kernel tree {ctx.tree} holds work that is not in kernel-patches/:
{what}

Nothing was changed.  Either
  - export it: commit your edits in {ctx.tree}, then run './run.sh export';
  - test it as it is: add --keep-tree;
  - or discard it: git -C {ctx.tree} reset --hard {state_get(ctx, "applied")}; git -C {ctx.tree} clean -fdx""")
    raise core.Exit(1)


def am_series(ctx, pristine: str, tid: str, patches: List[str]):
    """git am each patch on the tree; on failure, back to PRISTINE and stop
    naming the patch."""
    for p in patches:
        proc = core.run_owned(["git", "-C", ctx.tree, "am", "--quiet", p],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
        if proc.returncode != 0:
            core.ok(["git", "-C", ctx.tree, "am", "--abort"])
            core.git(ctx.tree, "reset", "-q", "--hard", pristine)
            state_write(ctx, tid, "failed", pristine)
            why = "\n".join(line for line in proc.stdout.rstrip("\n").split("\n")
                            if not line.startswith(("hint:", "When you have",
                                                    "If you prefer", "To restore")))
            core.die(f"patch {ctx.rel(p)} does not apply to the pristine tree:\n{why}")


def changed_paths(ctx, a: str, b: str) -> List[str]:
    """The files whose content differs between commits A and B."""
    out = core.git(ctx.tree, "diff", "--no-renames", "--name-only", "-z", a, b)
    return [p for p in out.split("\0") if p]


def apply_series(ctx, pristine: str, tid: str):
    """kernel-patches/ on PRISTINE.  A file the series leaves as it was
    keeps its modification time: re-applying rewrites every file the old
    series touched, and make would rebuild them all for a change to the
    patches' messages alone."""
    old = head(ctx)
    kept = {}
    for rel in changed_paths(ctx, pristine, old):
        try:
            kept[rel] = os.stat(os.path.join(ctx.tree, rel)).st_mtime_ns
        except FileNotFoundError:
            pass
    core.git(ctx.tree, "reset", "-q", "--hard", pristine)
    am_series(ctx, pristine, tid, fixes_patches(ctx))
    core.git(ctx.tree, "tag", "-f", FIXES_TAG)
    am_series(ctx, pristine, tid, procfs_patches(ctx))
    new = head(ctx)
    differ = set(changed_paths(ctx, old, new))
    for rel, mtime in kept.items():
        path = os.path.join(ctx.tree, rel)
        if rel not in differ and os.path.isfile(path) and not os.path.islink(path):
            os.utime(path, ns=(mtime, mtime))
    # The index's stat data, to the times restored: a later reset --hard
    # rewrites a file whose stat data disagrees with the index.
    core.ok(["git", "-C", ctx.tree, "update-index", "-q", "--refresh"])
    state_write(ctx, tid, series_id(ctx), new)


def extract_tree(ctx, tid: str):
    ver = tid.split(" ", 1)[0]
    b = ctx.base
    core.info(f"extracting {ctx.tarball} ({b.package} {ver}) into {ctx.tree}")
    tmp = os.path.join(ctx.cache, "extract.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    core.run(["tar", "-C", tmp, "-xf", ctx.tarball], check=True)
    src = os.path.join(tmp, b.directory)
    if not os.path.isdir(src):
        shutil.rmtree(tmp, ignore_errors=True)
        core.die(f"{ctx.tarball} has no {b.directory}/ directory ({b.path}: "
                 "source.directory)")
    try:
        check_version(ctx, src, ctx.tarball)
    except core.Failure:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    # Only now, with a tree of the right version at hand, the old one
    # (already checked to hold nothing unexported) goes.
    if os.path.lexists(ctx.tree):
        shutil.rmtree(ctx.tree)
    os.rename(src, ctx.tree)
    os.rmdir(tmp)
    core.info("committing the pristine tree")
    core.git(ctx.tree, "init", "-q", "-b", "setfs")
    # Debian's top-level .gitignore ignores everything ("/*"): force.
    core.git(ctx.tree, "add", "-f", "-A", ".")
    core.git(ctx.tree, "commit", "-q", "-m", f"Debian {b.package} {ver} (pristine)",
             "-m", f"Extracted from {ctx.tarball} by setfs-probe's run.sh.")
    core.git(ctx.tree, "tag", "-f", "pristine")


def prepare_tree(ctx) -> stage.StageResult:
    """The tree with kernel-patches/ applied (or as it is: --keep-tree)."""
    t0 = core.now()
    pkg = ctx.base.package
    if not os.path.isfile(ctx.tarball):
        if ctx.tarball_given:
            core.die(f"SETFS_TARBALL={ctx.tarball}: no such file")
        try:
            core.ensure_pkgs(ctx, [pkg])
        except core.Failure as e:
            core.die(f"base {ctx.base.name}: {e} ({ctx.base.path}: source.package)")
    if not os.path.isfile(ctx.tarball):
        core.die(f"{ctx.tarball} is missing after installing {pkg} "
                 f"({ctx.base.path}: source.tarball)")
    tid = tarball_id(ctx)
    sid = series_id(ctx)
    git_dir = os.path.isdir(os.path.join(ctx.tree, ".git"))

    if ctx.keep_tree:
        if not git_dir:
            core.die(f"--keep-tree: there is no prepared tree at {ctx.tree} yet")
        check_version(ctx, ctx.tree, f"the prepared tree {ctx.tree}")
        return stage.record(ctx, "prepare", "kept as it is (--keep-tree)",
                            core.elapsed(t0), status="up to date")

    if git_dir and state_get(ctx, "tarball") == tid:
        dirty = tree_unexported(ctx)
        if not dirty and state_get(ctx, "series") == sid and \
                head(ctx) == state_get(ctx, "applied"):
            return stage.record(ctx, "prepare", "up to date", core.elapsed(t0),
                                status="up to date")
        if dirty:
            refuse_to_discard(ctx, dirty)
        core.info("re-applying kernel-patches/ on the pristine tree")
        apply_series(ctx, head(ctx, "pristine"), tid)
        return stage.record(ctx, "prepare", "series re-applied", core.elapsed(t0))

    if os.path.lexists(ctx.tree):
        if git_dir:
            dirty = tree_unexported(ctx)
            if dirty:
                refuse_to_discard(ctx, dirty)
            core.info(f"{ctx.tarball} changed: replacing the tree")
    os.makedirs(ctx.cache, exist_ok=True)
    old = os.path.join(ctx.cache_root, "linux")
    if os.path.isdir(os.path.join(old, ".git")):
        core.err(f"run.sh: note: {old} is a tree of an older run.sh (before bases); it is "
                 f"left as it is: export its work or move it to {ctx.tree}")
    extract_tree(ctx, tid)
    apply_series(ctx, head(ctx, "pristine"), tid)
    n = core.git(ctx.tree, "rev-list", "--count", "pristine..HEAD")
    return stage.record(ctx, "prepare", f"extracted, {n} patches applied",
                        core.elapsed(t0))


def check_version(ctx, src: str, what: str):
    """The tree at SRC (from WHAT) must be the base's version."""
    from harness import base as base_mod

    got = base_mod.tree_version(core.read(os.path.join(src, "Makefile"), ""))
    if got != ctx.base.version:
        core.die(f"{what} holds Linux {got or 'of no known version'}, not "
                 f"{ctx.base.version} ({ctx.base.path}: source.version)")


def tree_id(ctx) -> str:
    """A digest of the tree's state for build stamps.  Empty when the tree
    is used as it is (--keep-tree): then make decides what to rebuild."""
    return "" if ctx.keep_tree else head(ctx)


def worktree_at(ctx, d: str, rev: str, mode: str):
    """D, a worktree of the tree, checked out at REV (added if missing).
    A D that is not such a worktree is refused, not wiped.  Local changes
    in D are refused (mode "keep") or, where the harness owns D and made
    them, discarded ("discard"; untracked files stay)."""
    commit = core.git(ctx.tree, "rev-parse", rev + "^{commit}")
    core.git(ctx.tree, "worktree", "prune")
    if os.path.lexists(d):
        # by real path: the cache may be reached through a symbolic link
        listed = {os.path.realpath(line[len("worktree "):]) for line in
                  core.git(ctx.tree, "worktree", "list", "--porcelain").splitlines()
                  if line.startswith("worktree ")}
        if os.path.realpath(d) not in listed:
            core.die(f"{d} exists but is not a worktree of {ctx.tree}: move it away")
    else:
        core.info(f"checking out {rev} of the tree in {d}")
        os.makedirs(os.path.dirname(d), exist_ok=True)
        if not core.ok(["git", "-C", ctx.tree, "worktree", "add", "-q", "--detach", d, commit]):
            core.die(f"cannot add a worktree at {d}")
        return
    if mode == "keep" and core.git(d, "status", "--porcelain"):
        core.die(f"{d} has local changes: commit or remove them first")
    if core.git(d, "rev-parse", "HEAD") != commit and \
            not core.ok(["git", "-C", d, "checkout", "-q", "-f", "--detach", commit]):
        core.die(f"cannot check out {rev} of the tree in {d}")
