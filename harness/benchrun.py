# SPDX-License-Identifier: GPL-2.0
"""./run.sh bench: guest (the user binary's bench in the guest), harness
(the harness's own speed, warm and after an edit), cold (from an empty
cache) and series (the pristine against the patched kernel on real /proc
files).  The tables are harness/bench.py's.

The harness scenarios call the kunit command in this process and read
its stage results; the cold scenarios run a fresh clone's command in a
process of their own (as a new machine would), which leaves its results
as JSON (SETFS_RESULTS) for this module to read.
"""

import contextlib
import dataclasses
import difflib
import json
import os
import shutil
from typing import List

from harness import bench, build, commands, core, guest, qemu, target, tree

BENCH_GUEST_ARCHES = ["x86_64", "x86_64-debian"]
# The stages whose times the rows add up.
ROW_STAGES = ("prepare", "config", "kernel", "modules", "user", "rootfs", "distro",
              "boot+tests")


@dataclasses.dataclass
class Row:
    label: str
    seconds: float
    goal: str           # seconds, or "-" for no goal
    log: str

    @property
    def met(self) -> str:
        if self.goal == "-":
            return "-"
        return "yes" if self.seconds < float(self.goal) else "NO"


@contextlib.contextmanager
def output_to(log: str):
    """This process's standard output and error (and its children's) into
    LOG for the duration."""
    for f in (core.sys.stdout, core.sys.stderr):
        f.flush()
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    saved = os.dup(1), os.dup(2)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        yield
    finally:
        for f in (core.sys.stdout, core.sys.stderr):
            f.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])


def stage_sums(label: str, stages, width: int, numw: int) -> List[str]:
    """Where the time of one scenario went: seconds per stage name."""
    sums = {}
    for s in stages:
        name = s["name"] if isinstance(s, dict) else s.name
        secs = s["seconds"] if isinstance(s, dict) else s.seconds
        if name in ROW_STAGES:
            sums[name] = sums.get(name, 0.0) + secs
    return [f"    {label:<{width}} {name:<12} {secs:{numw}.1f}s"
            for name, secs in sorted(sums.items())]


class Bench:
    def __init__(self, ctx: core.Ctx):
        self.ctx = ctx
        self.rows: List[Row] = []
        self.dir = os.path.join(ctx.cache, "bench")

    def log_for(self, label: str) -> str:
        name = "".join(c if c.isalnum() and c.isascii() else "_" for c in label.lower())
        return os.path.join(self.dir, name + ".log")

    def kunit(self, label: str, goal: str, repo: str, arches=None, filt: str = ""):
        """One "kunit" run in this process, its output in a log: a row."""
        base = self.ctx
        ctx = core.Ctx(repo=repo, cache_root=base.cache_root,
                       tarball_given=base.tarball_given, base_name=base.base_name,
                       jobs=base.jobs, boot_timeout=base.boot_timeout, soak="quick",
                       filter=filt, arches=arches or target.lists()["default"])
        ctx.use_base()
        log = self.log_for(label)
        t0 = core.now()
        with output_to(log):
            try:
                good = commands.cmd_kunit(ctx)
            except (core.Failure, core.UsageFailure) as e:
                show = getattr(e, "show_log", None)
                if show:
                    show()
                core.err(f"run.sh: error: {e}")
                good = False
            except core.Exit:
                good = False
        secs = core.elapsed(t0)
        if not good:
            core.tail_to_stderr(log, 30)
            core.die(f"bench: '{label}' failed (log: {log})")
        self.rows.append(Row(label, secs, goal, log))
        for line in stage_sums(label, ctx.timings, 28, 6):
            core.out(line)

    def table(self):
        mem = 0
        for line in core.read("/proc/meminfo").splitlines():
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1])
        core.out()
        core.out(f"==== harness bench ({core.ncpus()} cores, {mem / 1048576:.0f} GiB, "
                 f"targets: {' '.join(target.lists()['default'])}) ====")
        core.out("%-36s %9s %7s %5s" % ("scenario", "wall_s", "goal_s", "met"))
        for r in self.rows:
            core.out("%-36s %9s %7s %5s" % (r.label, f"{r.seconds:.1f}", r.goal, r.met))

    # ------------------------------------------------------------ harness

    def harness(self):
        """Warm with nothing changed, and after editing one KUnit file (in
        a copy of the repo, so the developer's files stay untouched)."""
        ctx = self.ctx
        copy = os.path.join(self.dir, "repo")
        os.makedirs(self.dir, exist_ok=True)
        core.info(f"bench: one run to make the cache warm (log: {self.dir}/)")
        self.kunit("warm-up (not a goal)", "-", ctx.repo)
        self.kunit("warm, nothing changed", "15", ctx.repo)
        shutil.rmtree(copy, ignore_errors=True)
        os.makedirs(copy)
        files = core.output(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ctx.repo)
        if core.run_owned(["rsync", "-a", "--from0", "--files-from=-", "./", copy + "/"],
                          cwd=ctx.repo, input=files + "\0", text=True).returncode != 0:
            core.die(f"bench: cannot copy the repository to {copy}")
        edit(os.path.join(copy, "kunit", "proc.c"))
        self.kunit("edit one KUnit file", "20", copy)
        # kunit.py's loop: one suite on one target, after an edit.
        edit(os.path.join(copy, "kunit", "proc.c"))
        self.kunit("edit, 'setfs_proc' on x86_64", "6", copy, ["x86_64"], "setfs_proc")
        self.kunit("back to the unedited repo", "20", ctx.repo)
        shutil.rmtree(copy, ignore_errors=True)
        self.group_times()

    def group_times(self):
        """Where the guest's time goes: seconds per part and target, from
        the last unfiltered run's "# setfs-time:" lines."""
        files = [f"{t.name}={os.path.join(t.work, 'times')}"
                 for t in (target.load(self.ctx, n) for n in target.lists()["default"])]
        core.out()
        core.out("==== guest seconds per part (last warm run) ====")
        core.out(bench.times_table(files))

    # --------------------------------------------------------------- cold

    def cold(self):
        """A fresh cache (tree, ccache, build dirs, downloads) in a temporary
        directory, as on a new machine with the packages installed.  The
        budgets, each from its own empty cache: the default "kunit" of
        every base (goal 20 min each; measured in one run, so that their
        times compare) and CI's command in a fresh clone of HEAD (goal
        75 min, what CI gets with 15 min to spare).  With --arch, only the
        "kunit" of every base on those targets, without goals: the bases'
        ratio on a machine too slow for the whole.  The caches are removed
        afterwards."""
        ctx = self.ctx
        base = os.path.join(self.dir, "cold")
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
        plan = self.cold_plan(base)
        core.info(f"bench: cold runs in {base} (logs: {self.dir}/cold-*.log): "
                  + "; ".join(p[0] for p in plan))
        for label, goal, cache, log, cmd, clone in plan:
            if clone and not core.ok(["git", "clone", "-q", ctx.repo, clone]):
                core.die(f"bench: cannot clone {ctx.repo} into {clone}")
            self.cold_run(label, goal, cache, log, cmd)
        shutil.rmtree(base, ignore_errors=True)

    def cold_plan(self, base: str):
        """The cold runs as (label, goal, cache, log, command, the clone
        of HEAD to make first or "")."""
        from harness import base as base_mod

        ctx = self.ctx
        run_sh = os.path.join(ctx.repo, "run.sh")
        arch = ["--arch", ",".join(ctx.arches)] if ctx.arches_given else []
        plan = []
        for b in base_mod.names():
            plan.append((f"cold ./run.sh kunit --base {b}" + (" " + arch[1] if arch else ""),
                         "-" if arch else "1200", os.path.join(base, f"kunit-{b}"),
                         os.path.join(self.dir, f"cold-kunit-{b}.log"),
                         [run_sh, "kunit", "--base", b] + arch, ""))
        if not arch:
            clone = os.path.join(base, "clone")
            plan.append(("cold CI=true .ci/run (fresh clone)", "4500", os.path.join(base, "ci"),
                         os.path.join(self.dir, "cold-ci.log"),
                         ["env", "CI=true", "bash", os.path.join(clone, ".ci", "run")], clone))
        return plan

    def cold_run(self, label, goal, cache, log, cmd):
        """CMD with SETFS_CACHE at the empty CACHE: a row for the table,
        and the stage sums and test part times it leaves in its JSON."""
        os.makedirs(cache, exist_ok=True)
        results = os.path.join(cache, "results.json")
        t0 = core.now()
        # The command names its base (or takes the default, as CI does);
        # a tarball given for this run's base is not the other base's.
        rc = core.run(cmd, log=log, env={"SETFS_CACHE": cache, "SETFS_BASE": "",
                                         "SETFS_TARBALL": "",
                                         "SETFS_RESULTS": results}).returncode
        secs = core.elapsed(t0)
        if rc != 0:
            core.tail_to_stderr(log, 30)
            core.die(f"bench: '{label}' failed (log: {log})")
        self.rows.append(Row(label, secs, goal, log))
        if not os.path.isfile(results):
            core.die(f"bench: '{label}' left no {results} (a harness older than its "
                     f"SETFS_RESULTS?; log: {log})")
        data = json.loads(core.read(results))
        for line in stage_sums(label, data["stages"], 36, 7):
            core.out(line)
        for name, s in data["parts"]:
            core.out(f"    {label}: {name} {s:.1f}s")

    # -------------------------------------------------------------- guest

    def guest(self):
        """Guest measurements, one target at a time (side-by-side guests
        would measure each other): setfs_user bench prints its table
        between markers."""
        ctx = self.ctx
        if not ctx.arches_given:
            ctx.arches = BENCH_GUEST_ARCHES
        core.ensure_pkgs(ctx, core.HOST_PKGS)
        core.out("==== tree ====")
        tree.prepare_tree(ctx)
        for name in ctx.arches:
            t = commands.build_target(ctx, name)
            log = os.path.join(t.work, "bench-console.log")
            core.info(f"booting {t.name} for the guest bench (console: {log})")
            g = qemu.start(ctx, t, "bench", log)
            if core.wait(g.proc) != 0:
                core.die(f"{t.name}: the bench guest failed or timed out (console: {log})")
            machine = core.output(["uname", "-m"])
            core.out()
            core.out(f"==== {t.name}: guest bench ({machine} host, {core.ncpus()} cores, "
                     f"QEMU {g.accel}) ====")
            lines = qemu_lines(log)
            for line in between(lines, guest.BENCH_BEGIN, guest.BENCH_END_PREFIX):
                core.out(line)
            if guest.BENCH_END_PREFIX + "0" not in lines:
                core.die(f"{t.name}: the guest bench did not complete (console: {log})")

    # ------------------------------------------------------------- series

    def series(self):
        """The cost of the series on real /proc files.  The pristine tree is
        built with exactly the patched x86_64 kernel's .config (in
        build/x86_64-pristine, its own modules and rootfs), both kernels
        boot one after the other and run "setfs_user series"
        (rootfs/bench.c); the table sets ns per call against each other."""
        ctx = self.ctx
        if ctx.arches_given and ctx.arches != ["x86_64"]:
            core.usage_error("bench series runs on x86_64 only")
        if not ctx.base.procfs:
            core.die(f"bench series: base {ctx.base.name} has no procfs series "
                     f"({ctx.base.path}: series.procfs), so nothing to measure against "
                     "the pristine tree")
        rounds = ctx.settings.series_rounds
        if not rounds.isdigit() or int(rounds) == 0:
            core.die("SETFS_SERIES_ROUNDS must be a number above 0")
        core.ensure_pkgs(ctx, core.HOST_PKGS)
        core.out("==== tree ====")
        tree.prepare_tree(ctx)
        patched = commands.build_target(ctx, "x86_64")
        src = os.path.join(ctx.cache, "series", "linux")
        tree.worktree_at(ctx, src, "pristine", "keep")
        pctx = dataclasses.replace(ctx, tree=src)
        pristine = self.build_pristine(pctx, os.path.join(patched.build, ".config"))
        # The two kernels in turn, SETFS_SERIES_ROUNDS times (one boot alone
        # is off by up to 20% under TCG: see the control row); each row
        # keeps its best.
        before, after = [], []
        for r in range(1, int(rounds) + 1):
            for t, side, c in ((pristine, before, pctx), (patched, after, ctx)):
                txt = self.boot_series(c, t)
                dst = os.path.join(t.work, f"series.{r}.txt")
                shutil.copy(txt, dst)
                side.append(dst)
        core.out()
        core.out(f"==== bench series: x86_64, the pristine tree against kernel-patches/, "
                 f"{rounds} round(s) ({core.ncpus()} cores, QEMU "
                 f"{qemu.accel(ctx, patched)}) ====")
        sides = []
        for files in (before, after):
            lines = []
            for path in files:
                lines += core.read(path).splitlines(True)
            sides.append(lines)
        try:
            table = bench.series_table(*sides)
        except (ValueError, IndexError, KeyError) as e:
            core.die(f"bench series: cannot compare the two runs ({e})")
        core.out(table)

    def build_pristine(self, pctx, cfg):
        """The x86_64 target on the pristine sources with the patched
        kernel's CONFIG."""
        t = target.load(pctx, "x86_64")
        t = dataclasses.replace(t, name="x86_64-pristine",
                                build=os.path.join(pctx.cache, "build", "x86_64-pristine"),
                                work=os.path.join(pctx.cache, "work", "x86_64-pristine"),
                                kowner="")
        t.kwork = t.work
        core.out(f"==== {t.name} ====")
        os.makedirs(t.build, exist_ok=True)
        os.makedirs(t.work, exist_ok=True)
        dot = os.path.join(t.build, ".config")
        marker = os.path.join(t.build, ".config.patched")
        # .config.patched: the patched config this .config was made from.
        if core.read(marker, "") != core.read(cfg) or not os.path.isfile(dot):
            if os.path.exists(marker):
                os.unlink(marker)
            shutil.copy(cfg, dot)
            log = os.path.join(t.work, "config.log")
            if core.run(build.make_args(pctx, t, pctx.tree) + ["olddefconfig"],
                        log=log).returncode != 0:
                core.die(f"{t.name}: make olddefconfig failed (log: {log})")
            shutil.copy(cfg, marker)
        # Exactly the same options, or the comparison means nothing.

        def options(path):
            return sorted(line for line in core.read(path).splitlines()
                          if not line.startswith("#"))
        if options(cfg) != options(dot):
            diff = list(difflib.unified_diff(options(cfg), options(dot), "patched",
                                             "pristine", lineterm=""))
            core.write(os.path.join(t.work, "config.diff"), "\n".join(diff) + "\n")
            for line in diff:
                core.err(line)
            core.die(f"{t.name}: the pristine tree's config differs from the patched one")
        kernel = build.build_kernel(pctx, t, pctx.tree, "")
        build.build_rootfs(pctx, t, build.build_modules(pctx, t, kernel),
                           build.build_user(pctx, t))
        return t

    def boot_series(self, ctx, t) -> str:
        """Boot T in series mode; its lines in T.work/series.txt."""
        log = os.path.join(t.work, "series-console.log")
        core.info(f"booting {t.name} for the series bench (console: {log})")
        g = qemu.start(ctx, t, "series", log)
        if core.wait(g.proc) != 0:
            core.die(f"{t.name}: the series guest failed or timed out (console: {log})")
        lines = qemu_lines(log)
        txt = os.path.join(t.work, "series.txt")
        core.write(txt, "".join(line + "\n" for line in
                                between(lines, guest.SERIES_BEGIN, guest.SERIES_END_PREFIX)
                                if line.startswith("series")))
        if guest.SERIES_END_PREFIX + "0" not in lines:
            core.die(f"{t.name}: the series bench did not complete (console: {log})")
        return txt


def qemu_lines(log: str) -> List[str]:
    return core.read(log, "").replace("\r", "").split("\n")


def between(lines: List[str], begin: str, end_prefix: str) -> List[str]:
    """The lines after the first BEGIN up to the next END... line."""
    out, inside = [], False
    for line in lines:
        if not inside:
            inside = line == begin
        elif line.startswith(end_prefix):
            break
        else:
            out.append(line)
    return out


def edit(path: str):
    """A change that makes PATH's object build again."""
    with open(path, "a") as fh:
        fh.write(f"/* bench: edited at {core.now():.9f} */\n")


def cmd_bench(ctx: core.Ctx) -> bool:
    b = Bench(ctx)
    what = ctx.bench_what or "all"
    if what == "guest":
        b.guest()
    elif what == "series":
        b.series()
    elif what == "harness":
        b.harness()
        b.table()
    elif what == "cold":
        b.cold()
        b.table()
    else:
        b.harness()
        b.table()
        b.guest()
    return True
