# SPDX-License-Identifier: GPL-2.0
"""The one stage abstraction: inputs -> content key -> stamp -> run -> time,
the log's tail on failure.  Every build step of the harness is a Stage;
each returns a StageResult (status, seconds, note, key), which the
summary's "stage times" and bench read as data.

A stage is up to date when its stamp file holds its key and its outputs
exist.  An empty key means "no key" (the tree used as it is, --keep-tree):
then the stage always runs and make decides what to rebuild.
"""

import dataclasses
import os
from typing import Callable, Optional, Sequence

from harness import core


@dataclasses.dataclass
class StageResult:
    name: str           # prepare, config, kernel, modules, user, rootfs, ...
    target: str         # the target it ran for ("" for the tree)
    status: str         # "up to date" or "ran"
    note: str           # what the time line says
    seconds: float
    key: str = ""       # the content key (empty: none)


def record(ctx: core.Ctx, name: str, note: str, seconds: float,
           target: str = "", status: str = "ran", key: str = "") -> StageResult:
    """One stage's time: printed now and kept for the summary."""
    res = StageResult(name, target, status, note, seconds, key)
    ctx.timings.append(res)
    core.out(f"    {name:<22} {seconds:6.1f}s  {note}")
    return res


class StageFailed(core.Failure):
    """A stage's command failed: LOG's last lines go to stderr first."""

    def __init__(self, msg: str, log: Optional[str] = None, lines: int = 40,
                 header: bool = False):
        super().__init__(msg)
        self.log, self.lines, self.header = log, lines, header

    def show_log(self):
        if not self.log:
            return
        if self.header:
            core.err(f"---- last {self.lines} lines of {self.log} ----")
        core.tail_to_stderr(self.log, self.lines)


def run_logged(args: Sequence[str], log: str, what: str, *, append=False,
               lines: int = 40, header: bool = False, cwd=None, env=None):
    """ARGS with their output in LOG; on failure the log's tail and
    "WHAT" as the error."""
    if core.run(args, log=log, append=append, cwd=cwd, env=env).returncode != 0:
        raise StageFailed(what, log, lines, header)


class Stage:
    """NAME for TARGET: up to date when STAMP holds KEY and every path of
    OUTPUTS exists; else the stamp goes, BODY runs (returning its note)
    and the stamp is written.  run() returns the StageResult."""

    def __init__(self, ctx: core.Ctx, name: str, *, key: str, stamp: str,
                 outputs: Sequence[str] = (), target: str = "",
                 keyed: bool = True):
        self.ctx, self.name, self.key, self.stamp = ctx, name, key, stamp
        self.outputs, self.target, self.keyed = outputs, target, keyed

    def fresh(self) -> bool:
        return (self.keyed and core.stamp_ok(self.stamp, self.key) and
                all(os.path.exists(p) for p in self.outputs))

    def run(self, body: Callable[[], str]) -> StageResult:
        t0 = core.now()
        if self.fresh():
            return record(self.ctx, self.name, "up to date", core.elapsed(t0),
                          self.target, "up to date", self.key)
        if os.path.exists(self.stamp):
            os.unlink(self.stamp)
        note = body()
        os.makedirs(os.path.dirname(self.stamp), exist_ok=True)
        core.write_stamp(self.stamp, self.key)
        return record(self.ctx, self.name, note, core.elapsed(t0),
                      self.target, "ran", self.key)
