# SPDX-License-Identifier: GPL-2.0
"""The run's settings from the environment, read once.

Every SETFS_* variable (and the few others the harness honours) is read
here, into a frozen Settings that the run's Ctx carries; no other module
of harness/ reads os.environ.  A test builds the Settings it wants
(Settings() is an empty environment), so a developer's exported
SETFS_GUEST_ARGS or SETFS_CI cannot change what a unit test sees.

The environment of the children the harness starts is the process's
own, plus what child_env() adds: that is passing it on, not reading a
setting.
"""

import dataclasses
import os
from typing import Dict, Mapping, Optional

# The variables, their meaning, for --help and docs (and checked by a
# test against what from_environ() reads).
VARIABLES = {
    "SETFS_CACHE": "the cache directory (default $XDG_CACHE_HOME/setfs-probe, "
                   "else ~/.cache/setfs-probe)",
    "SETFS_BASE": "the kernel tree's base when --base is not given",
    "SETFS_TARBALL": "the kernel tarball instead of the base's",
    "SETFS_JOBS": "make -j (default: the CPUs this process may use)",
    "SETFS_TIMEOUT": "the guest timeout in seconds (default 300; --timeout wins)",
    "SETFS_GUESTS": "guests booted at once (default: the CPUs this process may use)",
    "SETFS_CI": "1: test runs CI's target list (.ci/run sets it)",
    "SETFS_GUEST_ARGS": "words added to every guest's kernel command line",
    "SETFS_ACCEL": "tcg, kvm or auto (default auto)",
    "SETFS_SERIES_ROUNDS": "bench series: boots of each kernel (default 3)",
    "SETFS_RESULTS": "a file that gets the run's stage results as JSON",
    "CCACHE_DIR": "ccache's directory (default $SETFS_CACHE/ccache)",
    "XDG_CACHE_HOME": "where the default cache directory goes",
    "HOME": "where the default cache directory goes without XDG_CACHE_HOME",
}


@dataclasses.dataclass(frozen=True)
class Settings:
    cache_root: str = ""
    base_name: str = ""
    tarball: str = ""
    jobs: str = ""
    timeout: str = ""
    guests: str = ""
    ci: bool = False
    guest_args: str = ""
    accel: str = "auto"
    series_rounds: str = "3"
    results: str = ""
    ccache_dir: str = ""

    @classmethod
    def from_environ(cls, environ: Optional[Mapping[str, str]] = None) -> "Settings":
        env = os.environ if environ is None else environ
        home = env.get("HOME") or os.path.expanduser("~")
        cache = env.get("SETFS_CACHE") or os.path.join(
            env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "setfs-probe")
        return cls(cache_root=cache,
                   base_name=env.get("SETFS_BASE", ""),
                   tarball=env.get("SETFS_TARBALL", ""),
                   jobs=env.get("SETFS_JOBS", ""),
                   timeout=env.get("SETFS_TIMEOUT", ""),
                   guests=env.get("SETFS_GUESTS", ""),
                   ci=env.get("SETFS_CI") == "1",
                   guest_args=env.get("SETFS_GUEST_ARGS", ""),
                   accel=env.get("SETFS_ACCEL") or "auto",
                   series_rounds=env.get("SETFS_SERIES_ROUNDS") or "3",
                   results=env.get("SETFS_RESULTS", ""),
                   ccache_dir=env.get("CCACHE_DIR", ""))


def child_env(extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The environment of a child: this process's, with EXTRA added."""
    env = dict(os.environ)
    if extra:
        env.update(extra)
    return env


def host_path() -> str:
    """PATH as the harness was started with it."""
    return os.environ.get("PATH", "")


def prepare_process():
    """What the run sets in its own environment, for every child: no
    bytecode files in the repository, and a git identity when git has
    none (git am and the pristine commit need a committer)."""
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"


def default_git_identity():
    env = os.environ
    env.setdefault("GIT_AUTHOR_NAME", "setfs-probe")
    env.setdefault("GIT_AUTHOR_EMAIL", "setfs-probe@localhost")
    env.setdefault("GIT_COMMITTER_NAME", env["GIT_AUTHOR_NAME"])
    env.setdefault("GIT_COMMITTER_EMAIL", env["GIT_AUTHOR_EMAIL"])
