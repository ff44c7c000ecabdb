# SPDX-License-Identifier: GPL-2.0
"""The static checks.  On each patch: checkpatch.pl --strict, less the
reports that kernel-patches/checkpatch-exceptions accepts.  Once over
the series: the Coccinelle rules of kernel-patches/coccinelle/, first on
their own fixtures (a rule that misses v1's shapes proves nothing), then
on the .c files the series touches, where a finding on a line the series
adds fails; and the compiler's and sparse's warnings (make C=1 W=1) of
those files before and after the series, which may add none.
"""

import collections
import glob
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, List, Optional, Set, Tuple

from harness import core, settings
from harness.checkpatches import objects
from harness.checkpatches.compile import Builder, remove
from harness.checkpatches.scratch import (build_dir, check_tree, git_lines, in_tree,
                                          lines, log_path)

EXCEPTIONS = os.path.join("kernel-patches", "checkpatch-exceptions")
COCCINELLE = os.path.join("kernel-patches", "coccinelle")
# The rules check-patches runs (each prints "file:line: RULE: message").
COCCI_RULES = ("pos_narrow", "iov_iter_fields", "copy_under_lock")


# ------------------------------------------------------------- checkpatch

def exception_entries(text: str) -> List[Tuple[str, str, str]]:
    """The (patch file, report text, reason) entries of the exceptions
    list TEXT, a line "patch-file|text|reason" each (the reason is the
    rest of the line).  Blank lines, "#" comments and entries without a
    reason are not entries."""
    entries = []
    for line in lines(text):
        fields = line.split("|", 2)
        if len(fields) == 3 and fields[0] and not line.startswith("#") and fields[2]:
            entries.append((fields[0], fields[1], fields[2]))
    return entries


def unexcepted(ctx: core.Ctx, name: str, reports: List[str]) -> List[str]:
    """REPORTS (checkpatch's lines about the patch file NAME) less those
    an entry for NAME accepts, the first whose text the report holds;
    each accepted report is said on stderr with its reason."""
    entries = [(text, reason) for patch, text, reason in
               exception_entries(core.read(os.path.join(ctx.repo, EXCEPTIONS), ""))
               if patch == name]
    kept = []
    for report in reports:
        reason = next((reason for text, reason in entries if text in report), "")
        if reason:
            core.err(f"        accepted: {report.rsplit(': ', 1)[-1]} ({reason})")
        else:
            kept.append(report)
    return kept


def checkpatch(ctx: core.Ctx, patch: str) -> List[str]:
    """checkpatch.pl --strict's reports on PATCH, its errors included, less
    the accepted ones.  Debian's python3 first: scripts/spdxcheck.py
    needs python3-ply, which another python3 earlier in PATH lacks."""
    try:
        text = core.output(["scripts/checkpatch.pl", "--strict", "--terse",
                            "--no-summary", patch],
                           cwd=check_tree(ctx), check=False, stderr_too=True,
                           env={"PATH": "/usr/bin:" + settings.host_path()})
    except OSError as e:
        text = f"scripts/checkpatch.pl: {e.strerror}"
    return unexcepted(ctx, os.path.basename(patch), [r for r in lines(text) if r])


# --------------------------------------------------------------- warnings

_WARNING_RE = re.compile(r"([^: ]*\.[ch]):\d+(?::\d+)?: (warning|error): (.*)")


def warning_lines(log: str, tree: str) -> List[str]:
    """The warnings and errors on .c and .h files in the build log LOG, a
    "file: warning: message" each, sorted: without line numbers, so that
    code a patch moves still matches, and with paths relative to TREE."""
    found = (_WARNING_RE.match(in_tree(line, tree)) for line in lines(log))
    return sorted(f"{m.group(1)}: {m.group(2)}: {m.group(3)}" for m in found if m)


def new_lines(before: List[str], after: List[str]) -> List[str]:
    """The lines of AFTER that BEFORE lacks, sorted, as many times as
    AFTER has them more (a warning twice after and once before is new)."""
    return sorted((collections.Counter(after) - collections.Counter(before)).elements())


def warnings_at(builder: Builder, make: List[str], rev: str, arch: str,
                objs: List[str], log: str) -> List[str]:
    """The warnings (make C=1 W=1, -Werror off) of OBJS built for ARCH in
    the check tree at REV; an error counts as a warning."""
    core.git(check_tree(builder.ctx), "checkout", "-q", "--detach", rev)
    for obj in objs:
        remove(os.path.join(build_dir(builder.ctx, arch), obj))
    core.run([*make, "-j1", "C=1", "W=1", "KCFLAGS=-Wno-error", *objs], log=log)
    return warning_lines(core.read(log, ""), check_tree(builder.ctx))


def new_warnings(builder: Builder, final: str) -> Tuple[int, int]:
    """W=1 and sparse over every .c file the series touches, at pristine
    and at its last patch FINAL: one case per architecture, (passed,
    failed).  The check tree is at FINAL afterwards."""
    ctx = builder.ctx
    if shutil.which("sparse") is None:
        core.ensure_pkgs(ctx, ["sparse"])
    by_arch = collections.defaultdict(set)
    for path in lines(core.git(check_tree(ctx), "diff", "--name-only", "pristine", final,
                               "--", "*.c")):
        if not path:
            continue
        if os.path.isfile(os.path.join(check_tree(ctx), path)):
            source = objects.includer(ctx, path)
            by_arch[objects.arch_of(source)].add(source.removesuffix(".c") + ".o")
    passed = failed = 0
    for arch in sorted(by_arch):
        objs = sorted(by_arch[arch])
        make = builder.make(arch)
        if make is None:
            core.out(f"warnings/{arch}: not built ({builder.unusable[arch]})")
            continue
        before = warnings_at(builder, make, "pristine", arch, objs,
                             log_path(ctx, f"warnings-pristine-{arch}.log"))
        after = warnings_at(builder, make, final, arch, objs,
                            log_path(ctx, f"warnings-series-{arch}.log"))
        new = new_lines(before, after)
        if not new:
            core.out(f"ok warnings/{arch}: {len(objs)} objects, C=1 W=1, "
                     f"no new warning ({len(after)} before and after)")
            passed += 1
        else:
            core.out(f"not ok warnings/{arch}: new with the series (logs: "
                     f"{log_path(ctx, f'warnings-*-{arch}.log')}):")
            for line in new:
                core.out(f"        {line}")
            failed += 1
    core.git(check_tree(ctx), "checkout", "-q", "--detach", final)
    return passed, failed


# ------------------------------------------------------------- Coccinelle

_EXPECT_RE = re.compile(r"expect: ([a-z_][a-z0-9_]*)")
_FINDING_RE = re.compile(r"([^:]*):(\d+): ([a-z_][a-z0-9_]*): ")

Flag = Tuple[str, int]      # (rule, line)


def cocci_log(ctx: core.Ctx) -> str:
    """spatch's messages, all of this run's."""
    return log_path(ctx, "cocci.log")


def finding_key(finding: str):
    """Findings "file:line: RULE: message" sort by file, then by line."""
    m = _FINDING_RE.match(finding)
    return (m.group(1), int(m.group(2)), finding) if m else (finding, 0, finding)


def spatch(ctx: core.Ctx, rule: str, cwd: str, files: List[str]) -> Tuple[bool, List[str]]:
    """RULE's findings on FILES (relative to CWD), sorted, and whether
    spatch succeeded on each.  One spatch per file, ctx.jobs at a time:
    the files given to one spatch are matched as one unit."""
    cmd = ["spatch", "-D", "report", "--very-quiet", "--no-includes",
           "--include-headers", "--timeout", "120",
           "--sp-file", os.path.join(ctx.repo, COCCINELLE, f"{rule}.cocci")]
    with ThreadPoolExecutor(max_workers=max(ctx.jobs, 1)) as pool:
        procs = list(pool.map(lambda path: core.run([*cmd, path], cwd=cwd, capture=True,
                                                     text=False), files))
    with open(cocci_log(ctx), "ab") as log:
        for proc in procs:
            log.write(proc.stderr)
    findings = [line for proc in procs
                for line in lines(proc.stdout.decode(errors="replace")) if line]
    return all(p.returncode == 0 for p in procs), sorted(findings, key=finding_key)


def expected(fixture: str) -> Set[Flag]:
    """The (rule, line) of each "expect: RULE" comment of FIXTURE's text."""
    return {(m.group(1), nr) for nr, line in enumerate(lines(fixture), 1)
            for m in _EXPECT_RE.finditer(line)}


def flagged(findings: Iterable[str]) -> Set[Flag]:
    """The (rule, line) of each finding "file:line: RULE: message"."""
    return {(m.group(3), int(m.group(2))) for m in map(_FINDING_RE.match, findings) if m}


def _flags(flags: Set[Flag]) -> str:
    return ",".join(f"{rule} {line}" for rule, line in sorted(flags)) or "none"


def _fixture_flags(ctx: core.Ctx, fixture: str) -> Optional[Set[Flag]]:
    """What the rules flag in FIXTURE; None when spatch fails on it."""
    findings = []
    for rule in COCCI_RULES:
        ok, found = spatch(ctx, rule, os.path.dirname(fixture), [os.path.basename(fixture)])
        if not ok:
            return None
        findings += found
    return flagged(findings)


def cocci_selftest(ctx: core.Ctx) -> Tuple[int, int]:
    """Every rule on every fixture (kernel-patches/coccinelle/tests/*.c):
    a fixture passes when the rules flag exactly the lines its "expect:
    RULE" comments name.  Each rule must be expected somewhere, so that
    deleting the expectations cannot make a silent rule pass.  (passed,
    failed)"""
    tests = os.path.join(ctx.repo, COCCINELLE, "tests")
    passed = failed = 0
    declared: Set[str] = set()
    for fixture in sorted(glob.glob(os.path.join(glob.escape(tests), "*.c"))):
        name = os.path.basename(fixture)
        want = expected(core.read(fixture, ""))
        declared |= {rule for rule, _ in want}
        got = _fixture_flags(ctx, fixture)
        if got is None:
            core.out(f"not ok {name}: spatch failed (log: {cocci_log(ctx)})")
            failed += 1
        elif got == want:
            core.out(f"ok {name}: {len(want)} lines flagged as declared")
            passed += 1
        else:
            core.out(f"not ok {name}: missed: {_flags(want - got)}; "
                     f"not declared: {_flags(got - want)}")
            failed += 1
    for rule in COCCI_RULES:
        if rule not in declared:
            core.out(f"not ok {rule}: no fixture expects a finding of it")
            failed += 1
    return passed, failed


def added_lines(diff: str) -> Set[Tuple[str, int]]:
    """(file, line) of each line a git diff -U0 adds or changes: its
    hunks' new side (a removed file has none)."""
    found, path = set(), ""
    for line in lines(diff):
        if line.startswith("+++ "):
            path = line[len("+++ b/"):] if line.startswith("+++ b/") else ""
        elif line.startswith("@@"):
            for hunk in objects.hunks(line):
                found |= {(path, hunk.new_start + k) for k in range(hunk.new_count)}
    return found


def _patch_number(ctx: core.Ctx, base: str, path: str, line: int) -> int:
    """The number in the series after BASE of the patch that last changed
    LINE of PATH (0 when git cannot say)."""
    blame = core.git(check_tree(ctx), "blame", "-s", "-L", f"{line},{line}",
                     f"{base}..HEAD", "--", path, check=False)
    commit = blame.split(" ", 1)[0].lstrip("^")
    count = core.git(check_tree(ctx), "rev-list", "--count", f"{base}..{commit}",
                     check=False) if commit else ""
    return int(count) if count.isdigit() else 0


def cocci_check(ctx: core.Ctx, base: str) -> Tuple[int, int]:
    """The rules on every .c file that the check tree's commits after BASE
    add or change, at the last of them.  A finding on a line the series
    adds fails its rule and names the patch; one on a line of BASE is
    listed as older.  One case per rule: (passed, failed)."""
    tree = check_tree(ctx)
    files = git_lines(ctx, "diff", "--name-only", "--diff-filter=AMR", base, "HEAD",
                      "--", "*.c")
    added = added_lines(core.git(tree, "diff", "-U0", base, "HEAD", "--", "*.c"))
    passed = failed = 0
    for rule in COCCI_RULES:
        t0 = core.now()
        ok, findings = spatch(ctx, rule, tree, files)
        if not ok:
            core.out(f"[cocci] {rule:<20} spatch FAILED (log: {cocci_log(ctx)})")
            failed += 1
            continue
        new, old = [], []
        for finding in findings:
            m = _FINDING_RE.match(finding)
            loc = (m.group(1), int(m.group(2))) if m else None
            if loc in added:
                new.append(f"{finding} (patch {_patch_number(ctx, base, *loc):04d})")
            else:
                old.append(finding)
        core.out(f"[cocci] {rule:<20} {len(files)} files: {len(new)} new, "
                 f"{len(old)} before the series ({core.elapsed(t0)}s)")
        for finding in new:
            core.out(f"        {finding}")
        for finding in old:
            core.out(f"        before the series: {finding}")
        if new:
            failed += 1
        else:
            passed += 1
    return passed, failed
