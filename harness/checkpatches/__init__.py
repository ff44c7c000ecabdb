# SPDX-License-Identifier: GPL-2.0
"""./run.sh check-patches: the series, one patch at a time, on a scratch
tree (scratch.py), by three jobs:

    objects.py   which objects show that a patch builds, per architecture
    compile.py   building them with harness/toolchain.py's compilers
    static.py    checkpatch.pl, the Coccinelle rules, C=1 W=1 warnings

Each patch is applied with git am to the check tree; its objects are
built and checkpatch reads it, and it gets one line:

    [ i/n] TITLE  ARCH: N built; checkpatch: clean (T s)

Then, once over the series: the Coccinelle rules on their fixtures and
on the series, what could not be compile-tested, and the warnings before
and after the series.  The last line is "N passed, N failed" (a patch,
a fixture or rule, an architecture's warnings: one case each).
"""

import os
from typing import List, Optional, Tuple

from harness import core
from harness.checkpatches import objects, static
from harness.checkpatches.compile import Builder
from harness.checkpatches.scratch import (check_dir, check_tree, lines, log_path,
                                          reset_check_tree)

__all__ = ["cmd_check_patches", "check_tree", "reset_check_tree"]

# coccinelle has spatch.  python3-ply, python3-git: checkpatch runs
# scripts/spdxcheck.py on the files a patch adds, which imports both.
CHECK_PKGS = ("coccinelle", "python3-ply", "python3-git")
TITLE_WIDTH = 60


def check_patch(builder: Builder, patch: str, i: int, n: int) -> Optional[bool]:
    """Apply PATCH, the I-th of N, build its objects and run checkpatch
    on it, and print its line: whether it passed; None when it does not
    apply (the series stops there)."""
    ctx, tree, t0 = builder.ctx, check_tree(builder.ctx), core.now()
    name = os.path.basename(patch)
    am_log = log_path(ctx, f"{i}-am.log")
    if core.run(["git", "-C", tree, "am", "--quiet", patch], log=am_log).returncode != 0:
        why = core.read(am_log, "").rstrip("\n")
        core.out(f"[{i:2d}/{n}] {name}: does not apply:\n{why}")
        core.ok(["git", "-C", tree, "am", "--abort"])
        return None
    rev = core.git(tree, "rev-parse", "HEAD")
    changed = [f for f in lines(core.git(tree, "diff", "--name-only", f"{rev}~1", rev)) if f]
    by_arch = objects.needed(ctx, rev, changed)
    notes, ok = [], True
    if not by_arch and any(path.endswith((".c", ".h")) for path in changed):
        if objects.comments_only(ctx, rev, changed):
            notes.append("comments only (the C is identical without them);")
        else:
            notes.append("no object found for the C files it touches;")
            ok = False
    for arch in sorted(by_arch):
        note, broke = builder.build(name, rev, i, arch, by_arch[arch])
        notes.append(note)
        ok = ok and not broke
    reports = static.checkpatch(ctx, patch)
    for report in reports:
        core.out(f"        {report}")
    title = name.removesuffix(".patch")[:TITLE_WIDTH]
    verdict = f"{len(reports)} reports" if reports else "clean"
    core.out(f"[{i:2d}/{n}] {title:<{TITLE_WIDTH}}  {' '.join(notes) or 'no objects;'} "
             f"checkpatch: {verdict} ({core.elapsed(t0)}s)")
    return ok and not reports


def cmd_check_patches(ctx: core.Ctx) -> bool:
    """./run.sh check-patches: True when nothing failed; the counts are
    added to the run's totals."""
    from harness import tree as kernel_tree

    t_all = core.now()
    core.ensure_pkgs(ctx, [*core.HOST_PKGS, *CHECK_PKGS])
    if not os.path.isdir(os.path.join(ctx.tree, ".git")):
        kernel_tree.prepare_tree(ctx)
    patches = kernel_tree.series_patches(ctx)
    n = len(patches)
    if n == 0:
        core.out("0 passed, 0 failed")
        return True
    reset_check_tree(ctx)
    os.makedirs(os.path.join(check_dir(ctx), "logs"), exist_ok=True)
    tally = [0, 0]
    try:
        check_series(ctx, patches, tally)
    except core.Failure as e:
        # git or a tool failed under the check itself: say so, count it
        # with what was counted before, and still end with the line CI reads
        core.err(f"check-patches: {e}")
        tally[1] += 1
    passed, failed = tally
    core.out(f"check-patches: {n} patches in {core.elapsed(t_all)}s")
    core.out(f"{passed} passed, {failed} failed")
    ctx.count(passed, failed)
    return failed == 0


def check_series(ctx: core.Ctx, patches: List[str], tally: List[int]):
    """Every patch, then the static checks and, for a series that
    applied whole, the warnings, counted in TALLY ([passed, failed]) as
    they go."""
    n = len(patches)
    builder = Builder(ctx)

    def count(p: int, f: int):
        tally[0] += p
        tally[1] += f

    for i, patch in enumerate(patches, 1):
        result = check_patch(builder, patch, i, n)
        if result is None:
            count(0, 1 + n - i)     # this one and those after it
            break
        count(int(bool(result)), int(not result))
    core.write(static.cocci_log(ctx), "")
    for title, check in (("Coccinelle fixtures", static.cocci_selftest),
                         ("Coccinelle rules on the series",
                          lambda c: static.cocci_check(c, "pristine"))):
        core.out(f"static checks: {title}")
        count(*check(ctx))
    for title, items in (("not compile-tested:", builder.untested),
                         ("built with -Wno-error, failing before the patch too:",
                          builder.preexisting)):
        if items:
            core.out(title)
            for item in items:
                core.out(f"    {item}")
    # The warnings only for a series that applied whole.
    applied = core.git(check_tree(ctx), "rev-list", "--count", "pristine..HEAD", check=False)
    if applied == str(n):
        count(*static.new_warnings(builder, core.git(check_tree(ctx), "rev-parse", "HEAD")))
