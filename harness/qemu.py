# SPDX-License-Identifier: GPL-2.0
"""Booting a target: the accelerator, the firmware, QEMU's command line,
and the guests, which run in the background, SETFS_GUESTS at a time
(timeout(1) around QEMU: killing it kills QEMU).  stop_all() leaves none behind, on
exit or Ctrl-C.
"""

import dataclasses
import glob
import os
import shutil
import subprocess
import time
from typing import Iterator, List, Optional

from harness import build, core, stage
from harness.kinds import kind_of
from harness.target import Target

_RUNNING: List[subprocess.Popen] = []


def stop_all(ctx: Optional[core.Ctx] = None):
    """Kill every guest still running (its whole process group: timeout(1)
    and QEMU), and remove half-written files."""
    procs = [p for p in _RUNNING if p.poll() is None]
    core.stop_group(procs, grace=10)
    for p in _RUNNING:
        core.forget(p)
    _RUNNING.clear()
    # Only a run that chose its base and holds the lock owns these: one
    # that stopped before (a usage error, --help) or could not get the
    # lock must not touch another run's files, or the current directory's.
    if ctx is not None and ctx.cache and ctx.lock is not None:
        for path in glob.glob(os.path.join(ctx.cache, "work", "*", "initramfs.cpio.new")) + \
                glob.glob(os.path.join(ctx.cache, "work", "*", "dracut-tmp")) + \
                [os.path.join(ctx.cache, "extract.tmp")]:
            if os.path.isdir(path):
                shutil.rmtree(path, ignore_errors=True)
            elif os.path.lexists(path):
                os.unlink(path)


def accel(ctx: core.Ctx, t: Target) -> str:
    """KVM only when the guest matches the host and a short boot proves it
    works; nested KVM here exists but hangs, so the answer is cached."""
    want = ctx.settings.accel
    if want in ("tcg", "kvm"):
        return want
    if want != "auto":
        core.die(f"SETFS_ACCEL must be tcg, kvm or auto, not '{want}'")
    # KVM runs a guest of the host's own architecture.  Compare Debian's
    # names for both: Linux's ARCH (powerpc, arm64) is not uname -m's
    # (ppc64le, aarch64), and the record keeps them apart.
    if t.deb_arch != core.output(["dpkg", "--print-architecture"]) or \
            not os.access("/dev/kvm", os.W_OK):
        return "tcg"
    cachef = os.path.join(ctx.cache, f"kvm.{t.name}")
    if not os.path.isfile(cachef):
        probe_log = os.path.join(t.work, "kvm-probe.log")
        os.makedirs(t.work, exist_ok=True)
        # in _RUNNING, so that an interrupt stops it too
        proc = core.popen(["timeout", "-k", "2", "15", *build.fetch_qemu(ctx, t), "-accel", "kvm",
                           *t.rec.qemu["args"], "-m", "256", "-nodefaults",
                           "-display", "none", "-no-reboot", "-serial",
                           f"file:{probe_log}", "-kernel", kind_of(ctx, t).image(),
                           "-append", f"console={t.rec.qemu['console']} panic=-1"],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
        _RUNNING.append(proc)
        works = core.wait(proc) == 0 and "Kernel panic" in core.read(probe_log, "")
        core.write(cachef, ("kvm" if works else "tcg") + "\n")
    return core.read(cachef).strip()


def check_firmware(ctx: core.Ctx, t: Target):
    """The firmware a target's QEMU arguments name must exist: say which
    package has it rather than let QEMU fail on it.  A record's own QEMU
    (qemu.suite) looks in its own data directory (-L), once fetched."""
    fw = t.rec.qemu["firmware"]
    if not fw:
        return
    dirs = ["/usr/share/qemu", "/usr/share/seabios", "/usr/lib/ipxe/qemu"]
    if t.rec.qemu["suite"]:
        dirs = [build.qemu_data_dir(ctx, t)]
    for d in dirs:
        if os.path.isfile(os.path.join(d, fw)):
            return
    core.die(f"{t.name}: QEMU firmware {fw} not found in {dirs[0]} "
             "(Debian package qemu-system-data)")


def command_line(ctx: core.Ctx, t: Target, mode: str, acc: str) -> List[str]:
    """QEMU's command line for MODE (test, shell, bench, series), without
    the console (start() and shell() add it); nothing checked."""
    kind = kind_of(ctx, t)
    # The record's arguments after the defaults: they may override them.
    return [*build.qemu_program(ctx, t), "-accel", acc, "-m", "512", "-smp", "2", "-nodefaults",
            "-display", "none", "-no-reboot", *t.rec.qemu["args"], "-kernel", kind.image(),
            *kind.qemu(mode)]


def command(ctx: core.Ctx, t: Target, mode: str, acc: str) -> List[str]:
    """command_line(), once the kernel it boots and the QEMU it names
    exist (fetch_qemu())."""
    kernel = kind_of(ctx, t).image()
    if not os.path.isfile(kernel):
        core.die(f"{t.name}: no kernel image {kernel}")
    build.fetch_qemu(ctx, t)
    return command_line(ctx, t, mode, acc)


def ready(ctx: core.Ctx, t: Target) -> str:
    """T's QEMU fetched and its firmware found, before the KVM probe (which
    would boot without them and cache "tcg"): the accelerator."""
    build.fetch_qemu(ctx, t)
    check_firmware(ctx, t)
    return accel(ctx, t)


def shell(ctx: core.Ctx, t: Target) -> int:
    acc = ready(ctx, t)
    cmd = command(ctx, t, "shell", acc)
    core.info(f"booting {t.name} ({acc}); leave the shell with 'exit' or Ctrl-A x")
    return subprocess.run(cmd + ["-serial", "mon:stdio"]).returncode


@dataclasses.dataclass
class Guest:
    """A guest running in the background, and how it ended."""
    target: Target
    proc: subprocess.Popen
    t0: float
    console: str
    accel: str
    seconds: float = 0.0
    error: str = ""


def start(ctx: core.Ctx, t: Target, mode: str = "test", console: str = "") -> Guest:
    """Start T's guest in the background; finish() waits for it."""
    acc = ready(ctx, t)
    cmd = command(ctx, t, mode, acc)
    log = console or os.path.join(t.work, "console.log")
    if os.path.lexists(log):
        os.unlink(log)
    if mode == "test":
        core.info(f"booting {t.name} ({acc}, timeout {ctx.boot_timeout}s, console: {log})")
    t0 = core.now()
    with open(os.path.join(t.work, "qemu.log"), "w") as qlog:
        proc = core.popen(["timeout", "-k", "5", str(ctx.boot_timeout), *cmd,
                           "-serial", f"file:{log}"], stdin=subprocess.DEVNULL,
                          stdout=qlog, stderr=subprocess.STDOUT)
    _RUNNING.append(proc)
    core.write(os.path.join(t.work, "accel"), acc + "\n")
    return Guest(t, proc, t0, log, acc)


def start_all(ctx: core.Ctx, targets: List[Target], start_one) -> Iterator[Guest]:
    """START_ONE(t) for each of TARGETS, at most ctx.guests running at a
    time, the next started as soon as one exits; under TCG each guest
    wants the CPUs, and ten at once on two stretched riscv64's
    usercopy_kunit from 23 s (two guests) to 91 s, past its RCU stall
    timeout.  Every target is ready() first, so that one that cannot boot
    (no firmware, a QEMU that cannot be fetched) fails before any boots.
    Yields the guests in TARGETS' order, each once it and those before it
    have exited, for finish() and the report, while later ones run."""
    for t in targets:
        ready(ctx, t)
    pending, running, guests = list(targets), [], []
    done = 0
    while pending or running or done < len(guests):
        while pending and len(running) < ctx.guests:
            g = start_one(pending.pop(0))
            guests.append(g)
            running.append(g)
        running = [g for g in running if g.proc.poll() is None]
        while done < len(guests) and guests[done].proc.poll() is not None:
            done += 1
            yield guests[done - 1]
        if running:
            time.sleep(0.1)


def finish(ctx: core.Ctx, g: Guest, record: bool = True) -> Guest:
    """Wait for G; g.error says why it failed (the console's last lines
    are printed), empty when it powered off by itself in time."""
    rc = core.wait(g.proc)
    # The guest's last console write is when it powered off.
    try:
        end = os.stat(g.console).st_mtime
    except OSError:
        end = core.now()
    g.seconds = round(end - g.t0, 1)
    if record:
        stage.record(ctx, "boot+tests", g.accel, g.seconds, g.target.name)
    if rc in (124, 137):
        failure(g, f"the guest did not finish within {ctx.boot_timeout}s (hang?)")
    elif rc != 0:
        for line in core.read(os.path.join(g.target.work, "qemu.log"), "").splitlines():
            core.err(line)
        failure(g, f"QEMU exited with status {rc}")
    return g


def failure(g: Guest, msg: str):
    core.err(f"---- last 40 console lines ({g.console}) ----")
    core.tail_to_stderr(g.console, 40)
    core.err(f"run.sh: error: {g.target.name}: {msg}")
    g.error = msg
