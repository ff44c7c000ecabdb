# SPDX-License-Identifier: GPL-2.0
"""What every part of the harness shares: the run's settings (Ctx), how it
fails (die, usage_error), how it speaks (info), running commands with their
output in a log, content digests for stamps, and the host's packages.

Messages keep run.sh's prefix: the developer types ./run.sh, and a message
names the command they typed, not this package.
"""

import dataclasses
import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Dict, List, Optional, Sequence, Set

from harness.settings import Settings, child_env

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Packages every run needs on the host; targets add their own (packages).
HOST_PKGS = ("git make gcc flex bison bc libelf-dev libssl-dev cpio xz-utils "
             "python3 ccache rsync kmod").split()

# The user tests' soak (their options, see rootfs/init): "full" is
# setfs_user's own defaults (100000 fuzz operations per case, 10000 race
# iterations, 200 + 50 unload cycles), what "test" runs; "quick" a tenth
# of each, the default of the edit-test loop ("kunit", "shell").
SOAK_QUICK = ("setfs_fuzz_ops=10000 setfs_race_iterations=1000 "
              "setfs_unload_cycles=20 setfs_unload_module_cycles=5")


class Failure(Exception):
    """run.sh: error: MESSAGE, exit status 1."""


class UsageFailure(Exception):
    """A usage error: the message and a pointer to --help, exit status 2."""


class Exit(Exception):
    """Leave with this exit status, everything already said."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


def die(msg: str):
    raise Failure(msg)


def usage_error(msg: str):
    raise UsageFailure(msg)


def info(msg: str):
    out(f"run.sh: {msg}")


def out(text: str = "", end: str = "\n"):
    print(text, end=end, flush=True)


def err(text: str):
    sys.stdout.flush()
    print(text, file=sys.stderr, flush=True)


def ncpus() -> int:
    """nproc: the CPUs this process may run on."""
    return len(os.sched_getaffinity(0))


def now() -> float:
    return time.time()


def elapsed(t0: float) -> float:
    """Seconds since t0, to a tenth, as every time line prints them."""
    return round(time.time() - t0, 1)


@dataclasses.dataclass
class Ctx:
    """One run's settings: from the environment and the command line."""
    repo: str = REPO
    # $SETFS_CACHE: what the bases share (the lock, ccache, busybox)
    cache_root: str = ""
    # the base's own cache tree, $SETFS_CACHE/BASE (use_base())
    cache: str = ""
    tarball: str = ""
    # the base (harness/base.py): --base, SETFS_BASE or the default one
    base_name: str = ""
    base: object = None
    tarball_given: str = ""
    jobs: int = 1
    guests: int = 1             # guests booted at once (SETFS_GUESTS)
    boot_timeout: int = 300
    keep_tree: bool = False
    author: str = ""            # export --author "Name <mail>"
    soak: str = "quick"
    filter: str = ""
    debug: bool = False
    arches: List[str] = dataclasses.field(default_factory=list)
    arches_given: bool = False
    bench_what: str = ""
    dry_run: bool = False       # kunit --dry-run: print the plan, run nothing
    kconfig_add: List[str] = dataclasses.field(default_factory=list)   # --kconfig_add
    json_out: str = ""          # --json: "stdout" or a file
    raw_output: str = ""        # --raw_output: "", "kunit" or "all"
    list_tests: bool = False    # --list_tests
    # the closing line of "test": every part's counts added up
    sums: List[int] = dataclasses.field(default_factory=lambda: [0, 0, 0])
    # stage results, in the order they ran (the summary's "stage times")
    timings: list = dataclasses.field(default_factory=list)
    # test's parts: (name, seconds)
    part_times: list = dataclasses.field(default_factory=list)
    # the kunit command's stage results (bench cold reads them)
    kunit_stages: list = dataclasses.field(default_factory=list)
    # the cache lock's open file (harness/cli.py lock())
    lock: object = None
    # the environment's settings, read once (harness/settings.py)
    settings: Settings = dataclasses.field(default_factory=Settings)

    @classmethod
    def from_env(cls, environ=None):
        """The context of a run whose settings come from ENVIRON (None:
        this process's environment)."""
        s = Settings.from_environ(environ)
        jobs = s.jobs or str(ncpus())
        guests = s.guests or str(ncpus())
        return cls(cache_root=s.cache_root, base_name=s.base_name,
                   tarball_given=s.tarball,
                   jobs=int(jobs) if jobs.isdigit() else 1,
                   guests=int(guests) if guests.isdigit() and int(guests) > 0 else 0,
                   boot_timeout=s.timeout or "300", settings=s)

    def use_base(self, name: str = None):
        """Select the base NAME (default: base_name, else the default
        record): its cache tree, tarball and kernel tree.  An unknown
        name is a usage error, a bad record an error."""
        from harness import base as base_mod

        if name is not None:
            self.base_name = name
        try:
            b = base_mod.select(self.base_name)
        except base_mod.UnknownBase as e:
            usage_error(str(e))
        except base_mod.BaseError as e:
            die(str(e))
        self.base, self.base_name = b, b.name
        self.cache = os.path.join(self.cache_root, b.name)
        self.tarball = self.tarball_given or b.tarball
        self.tree = os.path.join(self.cache, "linux")
        return b

    # the prepared kernel tree ($CACHE/linux; bench series points a copy
    # of the context at the pristine worktree)
    tree: str = ""

    def __post_init__(self):
        if not self.cache_root:
            self.cache_root = self.cache
        if not self.tree and self.cache:
            self.tree = os.path.join(self.cache, "linux")

    @property
    def tree_state(self) -> str:
        return os.path.join(self.cache, "tree.state")

    def rel(self, path: str) -> str:
        """PATH relative to the repository, as messages and digests name it."""
        prefix = self.repo + "/"
        return path[len(prefix):] if path.startswith(prefix) else path

    def count(self, passed=0, failed=0, skipped=0):
        self.sums[0] += passed
        self.sums[1] += failed
        self.sums[2] += skipped


# --------------------------------------------------------------- commands

def _env(env) -> Optional[Dict[str, str]]:
    """The environment with ENV's variables added (None: inherit)."""
    return child_env(env) if env else None


def _missing(args: Sequence[str]) -> bool:
    """ARGS names a command that is not in PATH."""
    return os.sep not in args[0] and shutil.which(args[0]) is None


# ------------------------------------------------------------ children

# Every child the harness starts (make and the compilers below it, QEMU,
# apt, spatch, git) runs in a process group of its own, kept here until
# it has ended, so that an interrupted run stops all of them before it
# lets its lock go: a build left running would write into the build
# directory of the next run.
_CHILDREN: Set[subprocess.Popen] = set()
_CHILDREN_LOCK = threading.Lock()   # never taken by the signal handler
_STOPPING = threading.Event()
GRACE = 5.0     # seconds from the signal to SIGKILL
_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class Stopping(Exception):
    """A child asked for while the run is stopping."""


_STARTING = [0]        # popen() calls in progress on the main thread
_DEFERRED = [False]     # an interrupt came during one of them


def popen(args: Sequence[str], **kwargs) -> subprocess.Popen:
    """subprocess.Popen in a new session (so a process group of its own),
    registered until forget().  An interrupt on the main thread while it
    starts and registers a child is raised once the child is registered
    (defer_interrupt()), so no child escapes the registry.  Signals are
    not blocked instead: a child would inherit the blocked mask, and
    SIGTERM would no longer end it (make, QEMU, timeout(1)'s command)."""
    main = threading.current_thread() is threading.main_thread()
    if main:
        _STARTING[0] += 1
    try:
        with _CHILDREN_LOCK:
            if _STOPPING.is_set():
                raise Stopping(f"{args[0]}: not started, the run is stopping")
            proc = subprocess.Popen(args, start_new_session=True, **kwargs)
            _CHILDREN.add(proc)
    finally:
        if main:
            _STARTING[0] -= 1
    if main and _DEFERRED[0] and not _STARTING[0]:
        _DEFERRED[0] = False
        raise KeyboardInterrupt
    return proc


def defer_interrupt() -> bool:
    """From the signal handler: True when the main thread is inside
    popen(), which then raises the interrupt itself, after registering
    its child."""
    if _STARTING[0]:
        _DEFERRED[0] = True
        return True
    return False


def forget(proc: subprocess.Popen):
    """PROC has ended and been waited for: no longer the run's to stop."""
    with _CHILDREN_LOCK:
        _CHILDREN.discard(proc)


def wait(proc: subprocess.Popen) -> int:
    """Wait for a child of popen() and forget it; its exit status."""
    rc = proc.wait()
    forget(proc)
    return rc


def run_owned(args: Sequence[str], *, input=None, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run(ARGS) through popen().  An exception while it waits
    (the interrupt above all) leaves the child registered, for
    stop_children() to end with the others."""
    if input is not None:
        if kwargs.get("stdin") not in (None, subprocess.PIPE):
            raise ValueError("run_owned: input= with a stdin of its own")
        kwargs["stdin"] = subprocess.PIPE
    proc = popen(args, **kwargs)
    out, err = proc.communicate(input)
    forget(proc)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_groups(procs, sig):
    for p in procs:
        # A leader reaped and alone no longer holds its number: it may
        # belong to another process now.
        if p.returncode is not None and not _group_alive(p.pid):
            continue
        try:
            os.killpg(p.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def stop_group(procs, grace: float = None) -> list:
    """TERM to each child's group, KILL to what is left after GRACE
    seconds, then up to 2 s for the groups to go.  Returns the children
    whose group is still there (a process in D state, say)."""
    grace = GRACE if grace is None else grace
    procs = list(procs)
    _signal_groups(procs, signal.SIGTERM)
    for deadline, sig in ((grace, signal.SIGKILL), (2.0, None)):
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            for p in procs:
                p.poll()
            if not any(_group_alive(p.pid) for p in procs):
                return []
            time.sleep(0.05)
        if sig:
            _signal_groups(procs, sig)
    for p in procs:
        p.poll()
    return [p for p in procs if _group_alive(p.pid)]


def begin_stop():
    """From the signal handler: start no more children and send TERM to
    the running ones' groups at once, so that threads waiting on them
    return.  It takes no lock (the main thread may hold it): set.copy()
    is one step under the GIL."""
    _STOPPING.set()
    _signal_groups(_CHILDREN.copy(), signal.SIGTERM)


def stop_children(grace: float = None) -> list:
    """Stop every child still registered and what it started (TERM, KILL
    after GRACE): one deadline for all of them.  Returns those whose group
    would not go; the others are forgotten."""
    _STOPPING.set()
    with _CHILDREN_LOCK:
        procs = list(_CHILDREN)
    left = stop_group(procs, grace) if procs else []
    with _CHILDREN_LOCK:
        _CHILDREN.difference_update(p for p in procs if p not in left)
    return left


def run(args: Sequence[str], *, cwd=None, env=None, log=None, append=False,
        check=False, stdin=subprocess.DEVNULL, capture=False, text=True):
    """Run ARGS; its output to LOG (a path) or captured or inherited.
    Returns the CompletedProcess; check=True raises Failure on non-zero."""
    kwargs = dict(cwd=cwd, env=_env(env), stdin=stdin, text=text)
    if _missing(args):
        die(f"{args[0]}: command not found")
    if log is not None:
        with open(log, "a" if append else "w") as fh:
            proc = run_owned(args, stdout=fh, stderr=subprocess.STDOUT, **kwargs)
    elif capture:
        proc = run_owned(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)
    else:
        sys.stdout.flush()
        proc = run_owned(args, **kwargs)
    if check and proc.returncode != 0:
        die(f"{shlex.join(args)} failed (exit {proc.returncode})")
    return proc


def output(args: Sequence[str], *, cwd=None, env=None, check=True,
           stderr_too=False, stdin_text=None) -> str:
    """ARGS' standard output (and error, with stderr_too), without the
    last newline; a failure raises Failure naming the command, with check.
    STDIN_TEXT, if given, is the command's standard input."""
    if _missing(args):
        if not check:
            return ""
        die(f"{args[0]}: command not found")
    stdin = subprocess.DEVNULL if stdin_text is None else None
    if stdin_text is not None:
        stdin = subprocess.PIPE
    proc = run_owned(args, cwd=cwd, env=_env(env), stdin=stdin, input=stdin_text,
                     stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT if stderr_too else subprocess.PIPE,
                     text=True, errors="replace")
    if check and proc.returncode != 0:
        msg = (proc.stderr or proc.stdout or "").strip()
        die(f"{shlex.join(args)} failed (exit {proc.returncode})" +
            (f": {msg}" if msg else ""))
    return proc.stdout[:-1] if proc.stdout.endswith("\n") else proc.stdout


def ok(args: Sequence[str], *, cwd=None) -> bool:
    """Whether ARGS exits 0 (its output discarded)."""
    if _missing(args):
        return False
    return run_owned(args, cwd=cwd, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL).returncode == 0


def git(repo: str, *args, check=True) -> str:
    return output(["git", "-C", repo, *args], check=check)


def tail(path: str, n: int = 40) -> List[str]:
    try:
        with open(path, errors="replace") as fh:
            return [line.rstrip("\n") for line in fh.readlines()[-n:]]
    except OSError:
        return []


def tail_to_stderr(path: str, n: int = 40):
    for line in tail(path, n):
        err(line)


def read(path: str, default: Optional[str] = None) -> str:
    try:
        with open(path, errors="replace") as fh:
            return fh.read()
    except OSError:
        if default is None:
            raise
        return default


def write(path: str, text: str):
    with open(path, "w") as fh:
        fh.write(text)


# ---------------------------------------------------------------- digests

def _feed(h, ctx_repo: str, path: str):
    prefix = ctx_repo + "/"
    name = path[len(prefix):] if path.startswith(prefix) else path
    h.update(name.encode() + b"\n")
    with open(path, "rb") as fh:
        h.update(fh.read())


def hash_files(repo: str, paths: Sequence[str]) -> str:
    """One digest over the files' names (relative to REPO) and contents."""
    h = hashlib.sha256()
    for p in paths:
        _feed(h, repo, p)
    return h.hexdigest()


# Build products that a synced source directory also holds.
_BUILT = (".o", ".ko", ".cmd", ".mod", ".mod.c")
_BUILT_NAMES = ("modules.order", "Module.symvers")


def hash_dir_files(repo: str, paths: Sequence[str]) -> str:
    """One digest over every source file under PATHS (a file stands for
    itself), sorted byte-wise per path in the order given: sorting all the
    absolute paths together would order the repo's files and the tree's
    by where the repo is, and a copy of the repo would get other keys."""
    h = hashlib.sha256()
    for top in paths:
        # find TOP -type f: regular files, no symbolic links followed
        candidates = [top] if not os.path.isdir(top) else [
            os.path.join(dirpath, f)
            for dirpath, _dirs, files in os.walk(top) for f in files]
        found = [p for p in candidates
                 if os.path.isfile(p) and not os.path.islink(p) and
                 not p.endswith(_BUILT) and os.path.basename(p) not in _BUILT_NAMES]
        for path in sorted(found, key=os.fsencode):
            _feed(h, repo, path)
    return h.hexdigest()


def hash_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def stamp_ok(path: str, key: str) -> bool:
    try:
        with open(path) as fh:
            return fh.read().rstrip("\n") == key
    except OSError:
        return False


def write_stamp(path: str, key: str):
    write(path, key + "\n")


# --------------------------------------------------------------- packages

def _installed(pkg: str) -> bool:
    proc = run_owned(["dpkg-query", "-W", "-f=${Status}", pkg],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return "install ok installed" in proc.stdout


# Another apt or dpkg run (a second run.sh, unattended-upgrades) holds
# dpkg's lock for a while: wait for it instead of failing at once.
APT_WAIT = ["-o", "DPkg::Lock::Timeout=600"]


def ensure_pkgs(ctx: Ctx, pkgs: Sequence[str]):
    """Install what is missing, or say which cannot be had."""
    missing = [p for p in pkgs if not _installed(p)]
    if not missing:
        return
    names = " ".join(missing)
    if os.getuid() != 0:
        die(f"missing packages: {names} (install them: sudo apt-get install {names})")
    info(f"installing {names}")
    log = os.path.join(ctx.cache, "apt.log")
    env = {"DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", *APT_WAIT, "install", "-y", "--no-install-recommends", *missing]
    if run(cmd, env=env, log=log).returncode != 0:
        run(["apt-get", *APT_WAIT, "update"], log=log, append=True)
        if run(cmd, env=env, log=log, append=True).returncode != 0:
            tail_to_stderr(log, 20)
            die(f"cannot install packages: {names} (apt log: {log})")


def ensure_pkgs_soft(ctx: Ctx, pkgs: Sequence[str]):
    """Like ensure_pkgs, quietly: a package that cannot be installed is
    left for the caller to notice."""
    missing = [p for p in pkgs if not _installed(p)]
    if not missing or os.getuid() != 0:
        return
    log = os.path.join(ctx.cache, "apt.log")
    run(["apt-get", *APT_WAIT, "install", "-y", "--no-install-recommends", *missing],
        env={"DEBIAN_FRONTEND": "noninteractive"}, log=log)


def gcc_version(cross: str) -> str:
    return output([f"{cross}gcc", "-dumpfullversion"])


def env_dict() -> Dict[str, str]:
    return child_env()
