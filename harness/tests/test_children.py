# SPDX-License-Identifier: GPL-2.0
"""An interrupted run stops everything it started before it lets its lock
go: a run.sh (cli.main) whose command starts a shell that starts a second
one, both appending to a file as a compiler writes objects, gets SIGTERM;
it must exit 130, and 2 s later no process of it is left, the file no
longer grows, and the cache lock is free for the next run."""

import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The "run": cli.main() with its dispatch replaced by a command that starts
# a writer and its background child, as make starts the compilers.  With
# STUBBORN set, both ignore SIGTERM and only SIGKILL ends them.
RUN = r'''
import os, sys
sys.path.insert(0, os.environ["TOP"])
from harness import cli, core
core.GRACE = 1.0
trap = "trap '' TERM; " if os.environ.get("STUBBORN") else ""
out = os.environ["OUT"]
if os.environ.get("SLOW_POPEN"):
    # the signal comes while popen() holds the registry's lock
    import subprocess, time
    class Slow(subprocess.Popen):
        def __init__(self, *a, **k):
            with open(out + ".popen", "w"):
                pass
            time.sleep(1)
            super().__init__(*a, **k)
    subprocess.Popen = Slow
def loop(tag):
    return f"while :; do echo {tag} >> {out}; sleep 0.05; done"
def command(ctx, cmd):
    core.run(["sh", "-c", f"{trap}sh -c \"{trap}{loop('child')}\" & {loop('parent')}"],
             log=os.path.join(ctx.cache, "build.log"))
    return True
cli.dispatch = command
sys.exit(cli.main(["kunit", "--arch", "x86_64"]))
'''


def processes_naming(text: str):
    """PIDs whose command line contains TEXT (other than this test's)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmd and state != "Z":
            found.append(int(pid))
    return found


class Mask(unittest.TestCase):
    def test_children_can_be_signalled(self):
        """A child starts with no signal blocked: the run's own way of
        avoiding a race must not leave SIGTERM blocked in make or QEMU
        (it did once: timeout(1) could then not end ktap_isolation)."""
        from harness import core
        out = core.run_owned(["grep", "^SigBlk:", "/proc/self/status"],
                             stdout=subprocess.PIPE, text=True).stdout
        self.assertEqual(int(out.split()[1], 16), 0, out)


class Interrupt(unittest.TestCase):
    def interrupt(self, stubborn: bool, twice: bool = False, slow_popen: bool = False):
        with tempfile.TemporaryDirectory() as cache:
            out = os.path.join(cache, "objects.out")
            env = dict(os.environ, TOP=TOP, OUT=out, SETFS_CACHE=cache,
                       STUBBORN="1" if stubborn else "", SLOW_POPEN="1" if slow_popen else "")
            run = subprocess.Popen([sys.executable, "-c", RUN], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True)
            try:
                if slow_popen:
                    end = time.monotonic() + 30
                    while not os.path.exists(out + ".popen") and time.monotonic() < end:
                        time.sleep(0.01)
                    run.send_signal(signal.SIGTERM)
                    text, _ = run.communicate(timeout=30)
                    self.assertEqual(run.returncode, 130, text)
                    time.sleep(0.5)
                    self.assertEqual(processes_naming(out), [])
                    return
                # both writers running
                end = time.monotonic() + 30
                while time.monotonic() < end:
                    if os.path.exists(out):
                        with open(out) as f:
                            if len(set(f.read().split())) >= 2:
                                break
                    time.sleep(0.05)
                else:
                    self.fail("the run's writers did not start")
                # both shells (a fork about to exec sleep may show up too)
                self.assertGreaterEqual(len(processes_naming(out)), 2)
                run.send_signal(signal.SIGTERM)
                if twice:
                    # a second signal while the run waits for its children
                    time.sleep(0.3)
                    run.send_signal(signal.SIGTERM)
                text, _ = run.communicate(timeout=30)
            finally:
                if run.poll() is None:
                    run.kill()
                    run.wait()
                    self.addCleanup(lambda: [os.kill(p, signal.SIGKILL)
                                             for p in processes_naming(out)])
            self.assertEqual(run.returncode, 130, text)
            self.assertIn("interrupted", text)
            time.sleep(0.2)
            size = os.path.getsize(out)
            time.sleep(2)
            left = processes_naming(out)
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            self.assertEqual(left, [], "processes of the run outlived it")
            self.assertEqual(os.path.getsize(out), size, "still written after the exit")
            with open(os.path.join(cache, "lock"), "w") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: no OSError

    def test_sigterm_stops_the_children_and_their_children(self):
        self.interrupt(stubborn=False)

    def test_children_that_ignore_sigterm_are_killed(self):
        self.interrupt(stubborn=True)

    def test_a_second_signal_does_not_cut_the_wait_short(self):
        self.interrupt(stubborn=True, twice=True)

    def test_a_signal_while_a_child_starts(self):
        """The handler takes no lock that popen() holds (it used to wait on
        itself forever), and the child being started is stopped too."""
        self.interrupt(stubborn=False, slow_popen=True)


if __name__ == "__main__":
    unittest.main()
