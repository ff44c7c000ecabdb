# SPDX-License-Identifier: GPL-2.0
"""The commands: kunit, test (and its parts: selftest, harness unit tests,
uharness), shell and export.  check-patches is harness/checkpatches/,
bench harness/benchrun.py.  Each returns True when nothing failed; a
Failure (core.die) ends the run with status 1, as it did in run.sh.
"""

import dataclasses
import os
import re
import shutil
import subprocess
from typing import List, Optional, Tuple

from harness import build, core, guest, qemu, report, settings, stage, target, tree
from harness.kinds import kind_of

# The closing line every part of "test" ends with.
SUMMARY_RE = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")


@dataclasses.dataclass
class TargetResult:
    """One target's row in the summary."""
    name: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    seconds: float = 0.0
    split: tuple = (0, 0, 0, 0, 0, 0)   # KUnit p/f/s, user p/f/s
    failed_cases: List[str] = dataclasses.field(default_factory=list)
    json: str = ""          # its results.json, when it reported


@dataclasses.dataclass
class KunitRun:
    """What "kunit" gives: a row per target and the stage results."""
    targets: List[TargetResult]
    stages: List[stage.StageResult]
    seconds: float

    @property
    def ok(self) -> bool:
        return all(t.failed == 0 for t in self.targets)


def build_target(ctx: core.Ctx, name: str) -> target.Target:
    """Every stage of NAME up to the initramfs."""
    t = target.load(ctx, name)
    core.out(f"==== {t.name} ====")
    core.ensure_pkgs(ctx, t.packages)
    kind_of(ctx, t).build()
    return t


def report_guest(ctx: core.Ctx, g: qemu.Guest) -> TargetResult:
    """Wait for G's guest and count its results."""
    t = g.target
    core.out()
    core.out(f"==== {t.name} ====")
    qemu.finish(ctx, g)
    res = TargetResult(t.name, seconds=g.seconds)
    if not g.error:
        rep = report.present(t.name, t.work, ctx.tree, ctx.filter, t.kind,
                             raw=ctx.raw_output, build_dir=t.build)
        if rep.guest_error:
            qemu.failure(g, rep.guest_error)
        else:
            res.passed, res.failed, res.skipped = rep.passed, rep.failed, rep.skipped
            res.split = tuple(rep.kunit) + tuple(rep.user)
            res.failed_cases = [f"{t.name}: {c}" for c in rep.failed_cases]
            res.json = os.path.join(t.work, "results.json")
            return res
    res.failed, res.split = 1, (0, 0, 0, 0, 1, 0)
    res.failed_cases = [f"{t.name}: {g.error}"]
    return res


def build_targets(ctx: core.Ctx) -> List[target.Target]:
    """The host's packages, the prepared tree, then every selected target
    up to its initramfs."""
    core.ensure_pkgs(ctx, core.HOST_PKGS)
    core.out("==== tree ====")
    tree.prepare_tree(ctx)
    return [build_target(ctx, name) for name in ctx.arches]


def configure_targets(ctx: core.Ctx) -> List[target.Target]:
    """The host's packages, the prepared tree, then the config stage of
    every selected target (./run.sh config)."""
    core.ensure_pkgs(ctx, core.HOST_PKGS)
    core.out("==== tree ====")
    tree.prepare_tree(ctx)
    targets = []
    for name in ctx.arches:
        t = target.load(ctx, name)
        core.out(f"==== {t.name} ====")
        core.ensure_pkgs(ctx, t.packages)
        kind_of(ctx, t).configure()
        targets.append(t)
    return targets


def unfinished_build(t: target.Target) -> Optional[str]:
    """Why what the last build left for T does not belong together, or
    None.  The stamps say: each holds its stage's key, and a stage's key
    starts with the keys of the stages it was built on (a stage that
    failed has no stamp, and its old output stays)."""
    def stamp(path):
        return core.read(path).rstrip("\n") if os.path.exists(path) else None

    kernel = stamp(os.path.join(t.kwork, "stamp.kernel"))
    if t.kind in ("tree", "builtin"):
        if kernel is None:
            return "its kernel build did not finish"
        # build_kernel()'s key holds the digest of the .config it built
        if not os.path.exists(os.path.join(t.build, ".config")) or \
                build.config_digest(t) not in kernel.split():
            return "its kernel was configured again after the last kernel build"
    if t.kind in ("tree", "distro"):
        modules = stamp(os.path.join(t.work, "stamp.modules"))
        rootfs = stamp(os.path.join(t.work, "stamp.rootfs"))
        if modules is None or rootfs is None:
            return "its last build stopped before the initramfs"
        if not rootfs.startswith(modules + " "):
            return "its initramfs holds other modules than the last ones built"
        if t.kind == "tree" and not modules.startswith(kernel + " "):
            return "its modules were built against another kernel build"
    return None


def built_targets(ctx: core.Ctx) -> List[target.Target]:
    """The selected targets as the last build left them (./run.sh exec):
    a missing kernel or initramfs, or outputs of different builds, are an
    error naming the build to run."""
    targets = [target.load(ctx, name) for name in ctx.arches]
    for t in targets:
        for path in kind_of(ctx, t).boot_files():
            if not os.path.exists(path):
                core.die(f"{t.name}: {path} is not built: run ./run.sh build "
                         f"--arch {t.name} (or kunit) first")
        why = unfinished_build(t)
        if why:
            core.die(f"{t.name}: {why}: run ./run.sh build --arch {t.name} (or kunit) first")
    return targets


def execute(ctx: core.Ctx, targets: List[target.Target]) -> List[TargetResult]:
    """Boot TARGETS, SETFS_GUESTS at a time, and report each (the exec
    step)."""
    core.out()
    core.out("==== boot ====")
    return [report_guest(ctx, g)
            for g in qemu.start_all(ctx, targets, lambda t: qemu.start(ctx, t))]


def kunit(ctx: core.Ctx, build_first: bool = True) -> KunitRun:
    """Prepare the tree, build every target (unless BUILD_FIRST is false: exec
    boots what is built), boot them (SETFS_GUESTS at a time) and report
    each."""
    t0 = core.now()
    first = len(ctx.timings)
    targets = build_targets(ctx) if build_first else built_targets(ctx)
    results = execute(ctx, targets)
    ctx.kunit_stages = ctx.timings[first:]
    return KunitRun(results, ctx.kunit_stages, core.elapsed(t0))


def cmd_config(ctx: core.Ctx) -> bool:
    """./run.sh config: kunit's first step, the kernel configuration of
    every selected target (fragments merged, olddefconfig, verified)."""
    configure_targets(ctx)
    return True


def cmd_build(ctx: core.Ctx) -> bool:
    """./run.sh build: kunit's steps up to the initramfs."""
    build_targets(ctx)
    return True


def cmd_exec(ctx: core.Ctx) -> bool:
    """./run.sh exec: kunit's last step, booting what build left."""
    return cmd_kunit(ctx, build_first=False)


LIST_RE = re.compile(r"^[A-Za-z0-9_-]+(\.\S+)?$")


def listed(lines: List[str], kind: str) -> Tuple[List[str], bool]:
    """The "SUITE" and "SUITE.CASE" lines of a list-mode console, and
    whether the listing ended: init's markers, or for a builtin target
    KUnit's own listing (after its "KTAP version 1") up to the power-off."""
    if kind == "builtin":
        out, inside = [], False
        for line in lines:
            if "KTAP version 1" in line:
                inside = True
            elif line.startswith(guest.BUILTIN_END):
                return out, inside
            elif inside and LIST_RE.match(line):
                out.append(line)
        return out, False
    out, inside = [], False
    for line in lines:
        if line == guest.LIST_BEGIN:
            inside, out = True, []
        elif inside and line.startswith(guest.LIST_END_PREFIX):
            return out, line == guest.LIST_END_PREFIX + "0"
        elif inside and LIST_RE.match(line):
            out.append(line)
    return out, False


def list_tests(ctx: core.Ctx, build_first: bool = True) -> bool:
    """kunit --list_tests: each target boots in list mode and prints the
    suites and cases a run would report, running none (exec --list_tests:
    what the last build left, building nothing)."""
    targets = build_targets(ctx) if build_first else built_targets(ctx)

    def start(t):
        log = os.path.join(t.work, "list-console.log")
        core.info(f"booting {t.name} to list its tests (console: {log})")
        return qemu.start(ctx, t, "list", log)

    good = True
    for g in qemu.start_all(ctx, targets, start):
        qemu.finish(ctx, g, record=False)
        lines, ended = listed(core.read(g.console, "").replace("\r", "").split("\n"),
                              g.target.kind)
        core.out()
        core.out(f"==== {g.target.name}: tests ====")
        for line in lines:
            core.out(line)
        if g.error or not ended:
            core.err(f"run.sh: {g.target.name}: the listing did not complete "
                     f"({g.error or 'no end marker'}; console: {g.console})")
            good = False
    return good


def cmd_kunit(ctx: core.Ctx, build_first: bool = True) -> bool:
    if ctx.list_tests:
        return list_tests(ctx, build_first)
    t0 = core.now()
    run = kunit(ctx, build_first)
    core.out()
    core.out("==== summary ====")
    if ctx.filter:
        core.out(f"filter: {ctx.filter.replace(',', ' ')} (only the matching suites and "
                 "cases ran)")
    if ctx.soak == "quick":
        core.out(f"soak: quick ({core.SOAK_QUICK}); --soak full or ./run.sh test for the "
                 "full counts")
    else:
        core.out("soak: full (setfs_user's own fuzz, race and unload counts)")
    core.out("%-14s %7s %7s %8s   %-17s %-17s %6s" % ("target", "passed", "failed", "skipped",
                                                    "kunit p/f/s", "user p/f/s", "boot_s"))
    tp = tf = ts = 0
    failed_cases = []
    for r in run.targets:
        kp, kf, ks, up, uf, us = r.split
        core.out("%-14s %7d %7d %8d   %-17s %-17s %6s" % (
            r.name, r.passed, r.failed, r.skipped, f"{kp}/{kf}/{ks}", f"{up}/{uf}/{us}",
            f"{r.seconds:.1f}"))
        tp, tf, ts = tp + r.passed, tf + r.failed, ts + r.skipped
        failed_cases += r.failed_cases
    if failed_cases:
        core.out("failed cases:")
        for c in failed_cases:
            core.out(f"    {c}")
    core.out("stage times:")
    for s in ctx.timings:
        core.out(f"    {s.name:<22} {s.seconds:6.1f}s  {s.note}")
    core.out(f"total wall time: {core.elapsed(t0):.1f}s")
    if ctx.json_out:
        write_json(ctx, run.targets)
    core.out(f"{tp} passed, {tf} failed, {ts} skipped")
    ctx.count(tp, tf, ts)
    return tf == 0


def json_paths(dest: str, names: List[str]) -> List[str]:
    """--json=FILE: FILE for one target; for several, FILE with the
    target's name before its extension (out.json: out.x86_64.json)."""
    if len(names) == 1:
        return [dest]
    stem, ext = os.path.splitext(dest)
    return [f"{stem}.{n}{ext or '.json'}" for n in names]


def write_json(ctx: core.Ctx, results: List[TargetResult]):
    """kunit.py's --json: each target's kunit_json document (its arch is
    the target's name), on stdout or in files."""
    dests = json_paths(ctx.json_out, [r.name for r in results])
    for r, dest in zip(results, dests):
        if not r.json:
            core.err(f"run.sh: --json: {r.name} did not report; no JSON for it")
            continue
        text = core.read(r.json)
        if ctx.json_out == "stdout":
            core.out(text)
        else:
            core.write(dest, text + "\n")
            core.info(f"{r.name}: JSON in {os.path.abspath(dest)}")


def cmd_shell(ctx: core.Ctx) -> bool:
    if not ctx.arches:
        core.usage_error("--arch names no target")
    core.ensure_pkgs(ctx, core.HOST_PKGS)
    tree.prepare_tree(ctx)
    t = build_target(ctx, ctx.arches[0])
    return qemu.shell(ctx, t) == 0


# ------------------------------------------------------------------ test

# The harness's own answers to bad input: usage errors exit 2 and say why.
# (name, what the output must hold, the arguments)
SELFTEST_CASES = (
    ("unknown_option_exits_2", "unknown option '--bogus'", "kunit --bogus"),
    ("unknown_command_exits_2", "unknown command 'frob'", "frob"),
    ("unknown_target_exits_2", "unknown target 'nosuch'", "kunit --arch nosuch"),
    ("bad_timeout_exits_2", "--timeout takes seconds", "kunit --timeout soon"),
    ("zero_timeout_exits_2", "--timeout takes seconds", "kunit --timeout 0"),
    ("no_command_exits_2", "no command given", "--arch x86_64"),
    ("unknown_bench_exits_2", "bench: unknown measurement 'frob'", "bench frob"),
    ("distro_debug_exits_2", "is of kind distro: it has no debug flavour",
     "kunit --arch x86_64-debian+debug"),
    ("builtin_debug_exits_2", "is of kind builtin: it has no debug flavour",
     "kunit --arch riscv64-nommu+debug"),
    ("builtin_globs_exits_2",
     "kunit.filter_glob takes one glob: 'setfs_proc,setfs_sysctl' has several",
     "kunit --arch riscv64-nommu setfs_proc setfs_sysctl"),
    ("glob_comma_exits_2", "filter glob 'setfs_proc,setfs_splice': only letters",
     "kunit setfs_proc,setfs_splice"),
    ("glob_no_suite_exits_2", "filter glob '.read*' has no suite part", "kunit .read*"),
    ("glob_not_for_test_exits_2", "unexpected argument 'setfs_proc'", "test setfs_proc"),
    ("bad_soak_exits_2", "--soak takes quick or full, not 'long'", "kunit --soak long"),
    ("unknown_base_exits_2", "unknown base 'nosuch'", "kunit --base nosuch"),
)


def cmd_selftest(ctx: core.Ctx) -> bool:
    passed = failed = 0
    core.out("==== harness ====")
    for name, want, args in SELFTEST_CASES:
        proc = core.run_owned([os.path.join(ctx.repo, "run.sh"), *args.split()],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        text = proc.stdout.rstrip("\n")
        if proc.returncode == 2 and want in text:
            core.out(f"ok {name}")
            passed += 1
        else:
            core.out(f"not ok {name}: exit {proc.returncode}, output: {text}")
            failed += 1
    core.out(f"{passed} passed, {failed} failed")
    ctx.count(passed, failed)
    return failed == 0


def cmd_uharness(ctx: core.Ctx) -> bool:
    """The converted read methods no guest reaches, compiled from the tree
    in user space under ASan and UBSan and read at hostile offsets, as
    64-bit (gcc) and as 32-bit (clang -m32: Debian 12's gcc-multilib
    conflicts with the cross compilers) builds (libasan8 and libubsan1
    come with Debian's gcc-12; named here all the same).  The full KTAP
    goes to a log; the summary, the failing rows and the totals here."""
    if not ctx.base.procfs:
        # Nothing converted to read: the harness extracts the procfs
        # series' ->proc_read_iter methods from the tree.
        core.out("==== uharness ====")
        core.out(f"ok 1 uharness # SKIP base {ctx.base.name} has no procfs series "
                 f"({ctx.base.path}: series.procfs), so no converted method to read")
        core.out("0 passed, 0 failed, 1 skipped")
        ctx.count(0, 0, 1)
        return True
    work = os.path.join(ctx.cache, "uharness")
    log = os.path.join(work, "uharness.ktap")
    core.ensure_pkgs(ctx, ["gcc", "python3", "libasan8", "libubsan1",
                           "clang", "libc6-dev-i386", "lib32gcc-12-dev", "qemu-user"])
    tree.prepare_tree(ctx)
    shutil.rmtree(os.path.join(work, "reports"), ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    core.out("==== uharness ====")
    rc = core.run(["python3", os.path.join(ctx.repo, "kernel-patches", "uharness",
                                           "uharness.py"),
                   "--tree", ctx.tree, "--work", work, "--keep",
                   os.path.join(work, "reports")], log=log).returncode
    text = core.read(log, "").splitlines()
    for line in text:
        if re.match(r"^(not )?ok [0-9]+ |^# failed ", line):
            core.out(line)
    m = SUMMARY_RE.match(text[-1]) if text else None
    if m:
        p, f, s = (int(x) for x in m.groups())
    else:
        for line in text[-20:]:
            core.out(line)
        core.out(f"uharness: no summary line (exit {rc})")
        p, f, s = 0, 1, 0
    core.out(f"uharness: full KTAP in {log}")
    # The harness's own tests: the extractor, the model, and a two-file
    # tree on which the libfs harness must pass, then fail.
    ulog = os.path.join(work, "unittest.log")
    if core.run(["python3", "-m", "unittest", "-q"], log=ulog,
                cwd=os.path.join(ctx.repo, "kernel-patches", "uharness")).returncode == 0:
        core.out("ok uharness unit tests")
        p += 1
    else:
        for line in core.tail(ulog, 30):
            core.out(line)
        core.out(f"not ok uharness unit tests ({ulog})")
        f += 1
    core.out(f"{p} passed, {f} failed, {s} skipped")
    ctx.count(p, f, s)
    return rc == 0 and f == 0


def cmd_harness_tests(ctx: core.Ctx) -> bool:
    """The harness's own unit tests (harness/tests: the report on recorded
    consoles of every target and on broken ones, the records, the stages,
    the bench tables), one case per test.  They read the prepared tree's
    kunit_parser.py."""
    core.out("==== harness unit tests ====")
    proc = core.run_owned(["python3", "-m", "harness.unittests"], cwd=ctx.repo,
                          env=settings.child_env({"SETFS_TREE": ctx.tree}),
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    text = proc.stdout.rstrip("\n")
    core.out(text)
    last = text.splitlines()[-1] if text else ""
    m = SUMMARY_RE.match(last)
    p, f, s = (int(x) for x in m.groups()) if m else (0, 1, 0)
    if not m:
        core.out("harness unit tests: no summary line")
    ctx.count(p, f, s)
    return f == 0


def cmd_test(ctx: core.Ctx) -> bool:
    """CI's command: the harness checks, every test target, the user-space
    harness and the series compile test; one summary line over all."""
    from harness import checkpatches      # its own package: the largest part

    lists = target.lists()
    if not ctx.arches_given and ctx.settings.ci:
        # .ci/run: test's targets whose record says ci = false stay out (a
        # cold CI run has no time for their kernels); each counts as one
        # skip, named.
        ctx.arches = lists["ci"]
        for t in lists["test"]:
            if t not in lists["ci"]:
                core.out(f"skipped target {t}: not in CI (ci = false in "
                         f"targets/{t.removesuffix('+debug')}.toml): ./run.sh test runs it")
                ctx.count(skipped=1)
    elif not ctx.arches_given:
        ctx.arches = lists["test"]

    def check():
        core.out("==== check-patches ====")
        return checkpatches.cmd_check_patches(ctx)

    parts = (("selftest", lambda: cmd_selftest(ctx)), ("kunit", lambda: cmd_kunit(ctx)),
             ("harness-tests", lambda: cmd_harness_tests(ctx)),
             ("uharness", lambda: cmd_uharness(ctx)), ("check-patches", check))
    good = True
    ctx.part_times = []
    for name, part in parts:
        t0 = core.now()
        good = part() and good
        secs = core.elapsed(t0)
        ctx.part_times.append((name, secs))
        # bench cold sums them
        core.out(f"test-time: {name} {secs:.1f}s")
        core.out()
    p, f, s = ctx.sums
    core.out(f"test: {p} passed, {f} failed, {s} skipped")
    return good


# ---------------------------------------------------------------- export

def fill_cover_letter(ctx, cover: str, text: str):
    """The cover letter's subject and blurb come from DIR/cover-letter.txt
    (first line: subject; after a blank line: the blurb)."""
    if not os.path.isfile(text):
        core.info(f"no {text}: the cover letter keeps git's placeholders")
        return
    subject, _, blurb = core.read(text).partition("\n\n")
    letter = core.read(cover)
    for placeholder in ("*** SUBJECT HERE ***", "*** BLURB HERE ***"):
        if placeholder not in letter:
            core.die(f"cannot fill in {cover}: no '{placeholder}'")
    letter = letter.replace("*** SUBJECT HERE ***", subject.strip(), 1)
    letter = letter.replace("*** BLURB HERE ***", blurb.strip("\n"), 1)
    core.write(cover, letter)


def export_identity(ctx) -> Optional[Tuple[str, str]]:
    """Whose name the exported patches carry: --author, else git config
    user.name and user.email where run.sh runs; None if neither is set
    (the commits keep their own)."""
    if ctx.author:
        name, _, mail = ctx.author.rpartition(" <")
        return name.strip(), mail[:-1]
    name = core.output(["git", "config", "--get", "user.name"], check=False)
    mail = core.output(["git", "config", "--get", "user.email"], check=False)
    return (name, mail) if name and mail else None


AUTHOR_LINE_RE = re.compile(r"^author (.*) <(.*)> (\d+ [+-]\d{4})$")


def with_identity(repo: str, start: str, end: str, ident: Tuple[str, str],
                  placeholder: Tuple[str, str] = tree.SERIES_IDENTITY) -> str:
    """START..END of REPO again, with IDENT instead of PLACEHOLDER as the
    author of the commits PLACEHOLDER wrote and in every "Signed-off-by:"
    line naming PLACEHOLDER; IDENT also commits them.  Other authors'
    commits keep author and sign-offs.  Only objects are written, no ref:
    the tree's branches do not move.  Returns the new END (END itself
    when nothing changes)."""
    old = f"{placeholder[0]} <{placeholder[1]}>"
    new = f"{ident[0]} <{ident[1]}>"
    if old == new:
        return core.git(repo, "rev-parse", end)
    signed = f"Signed-off-by: {old}"
    parent = start
    for c in core.git(repo, "rev-list", "--reverse", "--topo-order",
                      f"{start}..{end}").split():
        raw = core.git(repo, "cat-file", "commit", c) + "\n"
        head, _, msg = raw.partition("\n\n")
        headers = head.split("\n")
        if any(h.startswith("encoding ") for h in headers):
            core.die(f"commit {c[:12]} is not in UTF-8 (it has an encoding "
                     "header): export cannot re-sign it")
        parents = [h for h in headers if h.startswith("parent ")]
        if len(parents) != 1:
            core.die(f"commit {c[:12]} has {len(parents)} parents: export "
                     "takes a linear series on top of the pristine tree")
        author = next((AUTHOR_LINE_RE.match(h) for h in headers
                       if h.startswith("author ")), None)
        if not author:
            core.die(f"commit {c[:12]}: cannot read its author line")
        name, mail, date = author.groups()
        if f"{name} <{mail}>" == old:
            name, mail = ident
        lines = [f"Signed-off-by: {new}" if line == signed else line
                 for line in msg.split("\n")]
        if (name, mail) != ident and lines == msg.split("\n") and \
                parents[0] == f"parent {parent}":
            parent = c          # another author's, unchanged, on its parent
            continue
        env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": mail,
               "GIT_AUTHOR_DATE": "@" + date, "GIT_COMMITTER_NAME": ident[0],
               "GIT_COMMITTER_EMAIL": ident[1], "GIT_COMMITTER_DATE": "@" + date}
        parent = core.output(["git", "-C", repo, "commit-tree", headers[0].split()[1],
                              "-p", parent], env=env, stdin_text="\n".join(lines))
    return parent


def subject_prefix(out: str) -> str:
    """"PATCH", or "PATCH vN" when OUT/version holds the series' version N
    (2 or more; the first posting has no file)."""
    path = os.path.join(out, "version")
    if not os.path.exists(path):
        return "PATCH"
    text = core.read(path).strip()
    if not re.fullmatch(r"[1-9][0-9]*", text) or int(text) < 2:
        core.die(f"{path}: want the series' version, a number from 2 up; it holds {text!r}")
    return f"PATCH v{text}"


def export_dir(ctx, out: str, base: str, start: str, end: str,
               ident: Optional[Tuple[str, str]]):
    """START..END of the tree as OUT's patches, with a cover letter
    (filled from OUT/cover-letter.txt) and a series file, their subjects
    prefixed by subject_prefix(); with IDENT, in that name
    (with_identity())."""
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if f.endswith(".patch") or f == "series":
            os.unlink(os.path.join(out, f))
    if int(core.git(ctx.tree, "rev-list", "--count", f"{start}..{end}")) > 0:
        env = None
        if ident:
            end = with_identity(ctx.tree, start, end, ident)
            env = {"GIT_COMMITTER_NAME": ident[0], "GIT_COMMITTER_EMAIL": ident[1]}
        core.output(["git", "-C", ctx.tree, "format-patch", "-q", "--cover-letter",
                     f"--subject-prefix={subject_prefix(out)}",
                     f"--base={base}", "-o", out, f"{start}..{end}"], env=env)
        fill_cover_letter(ctx, os.path.join(out, "0000-cover-letter.patch"),
                          os.path.join(out, "cover-letter.txt"))
        names = sorted(f for f in os.listdir(out)
                       if re.match(r"^[0-9]{4}-.*\.patch$", f) and
                       f != "0000-cover-letter.patch")
        core.write(os.path.join(out, "series"), "".join(n + "\n" for n in names))
    else:
        core.write(os.path.join(out, "series"), "")


def apply_to_check_tree(ctx, patches: List[str], why: str):
    from harness import checkpatches

    checkpatches.reset_check_tree(ctx)
    ct = checkpatches.check_tree(ctx)
    for p in patches:
        if not core.ok(["git", "-C", ct, "am", "--quiet", p]):
            core.die(f"the exported {ctx.rel(p)} does not apply to the pristine tree{why}")
    return ct


def cmd_export(ctx: core.Ctx) -> bool:
    """The commits on top of the pristine tree as the base's series: the
    fixes up to FIXES_TAG into its series.fixes directory, the rest into
    its series.procfs directory (6.1: kernel-patches/uaccess/ and
    kernel-patches/)."""
    t = ctx.tree
    tag = tree.FIXES_TAG
    b = ctx.base
    if not os.path.isdir(os.path.join(t, ".git")):
        core.die(f"no prepared tree at {t}: run './run.sh kunit --base {b.name}' first")
    pristine = core.git(t, "rev-parse", "pristine")
    if core.git(t, "status", "--porcelain", "--untracked-files=no"):
        core.die(f"the tree has uncommitted edits; commit them first (git -C {t} commit -a)")
    # Without the tag, or with a history rewritten across it, the tree
    # cannot be split into the two: stop before writing anything.
    if not core.ok(["git", "-C", t, "rev-parse", "-q", "--verify", tag + "^{commit}"]):
        core.die(f"the tree has no tag {tag} (the end of the fixes): it was "
                 f"prepared by an older run.sh; export from it by hand (git -C {t} "
                 "format-patch), then let './run.sh kunit' re-apply")
    if not core.ok(["git", "-C", t, "merge-base", "--is-ancestor", pristine, tag]) or \
            not core.ok(["git", "-C", t, "merge-base", "--is-ancestor", tag, "HEAD"]):
        core.die(f"the tag {tag} (the end of the fixes) is not between "
                 f"pristine and HEAD: a rebase moved the fixes; move the tag to their last "
                 f"commit (git -C {t} tag -f {tag} COMMIT) and export again")
    nf = int(core.git(t, "rev-list", "--count", f"{pristine}..{tag}"))
    n = int(core.git(t, "rev-list", "--count", f"{tag}..HEAD"))
    fixes, procfs = tree.fixes_dir(ctx), tree.procfs_dir(ctx)
    # Nothing is written unless every commit has a directory to go to.
    for count, d, field in ((nf, fixes, "series.fixes"), (n, procfs, "series.procfs")):
        if count and not d:
            core.die(f"base {b.name} has no {field} directory for its {count} commit(s) "
                     f"({b.path}): name one there first; nothing was exported")
    ident = export_identity(ctx)
    if ident:
        core.info(f"export: From and Signed-off-by: {ident[0]} <{ident[1]}>")
    else:
        core.info("export: no --author and no git user.name/user.email: the "
                  "patches keep the commits' identity")
    if fixes:
        export_dir(ctx, fixes, pristine, pristine, tag, ident)
    if procfs:
        export_dir(ctx, procfs, pristine, tag, "HEAD", ident)
    # The procfs series does not need the fixes (checked below): its
    # cover letter names the pristine tree alone as its base.
    if n:
        cover = os.path.join(procfs, "0000-cover-letter.patch")
        core.write(cover, "".join(line for line in core.read(cover).splitlines(True)
                                  if not line.startswith("prerequisite-patch-id: ")))
        apply_to_check_tree(ctx, tree.procfs_patches(ctx), f" without {b.fixes}/")
    # The series must rebuild exactly the tree it was exported from.
    ct = apply_to_check_tree(ctx, tree.series_patches(ctx), "")
    if core.git(ct, "rev-parse", "HEAD^{tree}") != core.git(t, "rev-parse", "HEAD^{tree}"):
        core.die(f"export and series disagree: applying {', '.join(b.series_dirs)} to the "
                 f"pristine tree does not give {t}'s HEAD")
    tree.state_write(ctx, tree.tarball_id(ctx), tree.series_id(ctx), tree.head(ctx))
    core.info(f"exported {nf} patches to {b.fixes or '(none)'}/ and {n} to "
              f"{b.procfs or '(none)'}/ (each with a series file); re-applied, same tree")
    return True
