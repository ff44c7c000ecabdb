# SPDX-License-Identifier: GPL-2.0
"""./run.sh's command line: the options, their checks (a usage error
exits 2 and says why), the cache lock, and the commands.  run.sh only
makes sure Python 3.11 is there and runs "python3 -m harness".
"""

import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys

from harness import core, kinds, settings, target

# export --author: one line, a name, one address in angle brackets
AUTHOR_RE = re.compile(r"[^<>\n]*[^<>\s][^<>\n]* <[^<>\s@]+@[^<>\s@]+>")
# --kconfig_add: a .config line, "=" form or "is not set"
KCONFIG_RE = re.compile(r"CONFIG_[A-Za-z0-9_]+=\S.*|CONFIG_[A-Za-z0-9_]+ is not set")
COMMANDS = ("kunit", "config", "build", "exec", "test", "shell", "export", "check-patches",
            "bench", "uharness")
BENCH_WHATS = ("all", "guest", "harness", "cold", "series")


def usage(lists, ctx) -> str:
    from harness import base

    d = ",".join(lists["default"])
    try:
        bases = base.load_all()
        names = ", ".join(bases)
        default_base = next(b.name for b in bases.values() if b.default)
    except base.BaseError as e:
        names, default_base = f"(bad: {e})", "?"
    return f"""Usage: ./run.sh COMMAND [OPTIONS] [GLOB...]

Commands:
  kunit [GLOB...]
                 prepare the tree, apply kernel-patches/, build kernel,
                 modules and rootfs, boot QEMU, run the KUnit suite and the
                 user tests, print KTAP and a summary (the main job).
                 GLOBs select suites and cases as kunit.py's filter_glob
                 does: SUITE or SUITE.CASE, with * ? [...] (quote them);
                 a KUnit suite, a setfs_user group (setfs_user_*) or an
                 init suite (setfs_guest, setfs_selftest_splice).  The
                 guest filters: changing GLOBs rebuilds nothing
  config         kunit's first step on its own, as kunit.py's: the tree
                 and each target's kernel .config
  build          kunit's steps up to the initramfs: config, then the
                 kernel, modules, user binaries and initramfs
  exec [GLOB...] kunit's last step: boot what the last build left and
                 report, building nothing (a build that did not finish,
                 or parts of different builds, are an error)
  test           what CI runs: the harness's usage checks, "kunit" on the
                 selected targets (default: {",".join(lists["test"])}; full
                 soak; with SETFS_CI=1, as .ci/run sets it, without the
                 records saying ci = false: {",".join(lists["ci"])}), the
                 harness's unit tests (harness/tests), "uharness" and
                 "check-patches"
  shell          boot the guest with an interactive shell (modules in /root)
  bench [WHAT]   measure; WHAT is "guest" (iter vs legacy read paths,
                 splice vs read+write, kernel_read() in the guest), "harness"
                 (warm and edit-one-KUnit-case run times), "cold" (kunit
                 of every base and CI's run, each from an empty cache: one
                 to three hours; with --arch, only every base's kunit on
                 those targets) or "series" (real /proc files on the pristine and the
                 patched x86_64 kernel, same config); default: guest and
                 harness
  export         turn the commits on top of the pristine tree into
                 kernel-patches/ (git format-patch --cover-letter), From:
                 and Signed-off-by: in your name (--author, else git
                 config user.name and user.email)
  check-patches  apply the series one patch at a time to a scratch tree;
                 for each, build the objects it touches (allmodconfig, per
                 architecture) and run checkpatch.pl --strict; then the
                 Coccinelle rules of kernel-patches/coccinelle/ on their
                 fixtures and on every .c file the series touches, and
                 C=1 W=1 of those files before and after the series
  uharness       compile the converted ->proc_read_iter methods of the
                 prepared tree in user space under ASan/UBSan and read them
                 at hostile offsets (kernel-patches/uharness/)
  help           this text

Options:
  --base NAME    the kernel tree: a record in bases/ ({names}; default:
                 {default_base}, or SETFS_BASE); each base has its own cache
                 tree ($SETFS_CACHE/NAME) and series directories
  --arch LIST    comma-separated targets (default: {d});
                 known: {",".join(lists["all"])}; a kernel target
                 NAME+debug is its debug flavour
  --keep-tree    use the prepared tree as it is, with your commits and
                 edits, instead of re-applying kernel-patches/
  --dry-run      kunit: print each selected target's plan (fragments,
                 every command, QEMU's command line, the initramfs
                 list) and run nothing: no root, no package, no file
  --kconfig_add CONFIG_X=VALUE
                 kunit, its steps, shell: a config option after every fragment
                 (repeatable); the target builds its own kernel, in
                 directories of its own, as a debug flavour does
  --json [FILE]  kunit, exec: each target's results as kunit.py --json writes
                 them (KernelCI's format; arch: the target), on stdout
                 or in FILE (several targets: FILE.TARGET.json)
  --list_tests   kunit, exec: boot each target to list the suites and cases a
                 run would report (SUITE and SUITE.CASE lines), running
                 none; init's own suites are named without their cases
  --raw_output[=all]
                 kunit, exec: the KTAP as it came (all: the whole console)
                 instead of kunit.py's parsed view
  --debug        build and boot each target's debug flavour (NAME+debug:
                 KASAN, UBSAN, lockdep, KFENCE, ...; config/debug.config)
                 in a build directory of its own
  --timeout SEC  guest timeout in seconds (default: {ctx.boot_timeout})
  --author "NAME <MAIL>"
                 export: the identity that replaces the commits' own in
                 From:, Signed-off-by: and the cover letter
  --soak WHICH   the user tests' fuzz, race and unload counts: "quick"
                 (default of kunit and shell: a tenth) or "full" (default
                 of test: setfs_user's own counts)
  -h, --help     this text

Environment (read once, harness/settings.py):
""" + "".join(f"  {k:<20} {v}\n" for k, v in settings.VARIABLES.items()) + \
        """  SETFS_GUEST_ARGS takes setfs_<option>=<value> for setfs_user, e.g.
  setfs_fuzz_ops=1000000 setfs_fuzz_seed=7 with --timeout 3000
  (docs/suites.md)."""


def check_glob(g: str):
    """A filter glob the guest can take on the kernel command line and
    split as kunit.py does (commas separate globs there; the kernel's
    glob_match() has no escapes; 127 bytes fit its buffer)."""
    if not g:
        core.usage_error("an empty filter glob")
    if len(g) > 127:
        core.usage_error(f"filter glob '{g}' is longer than 127 characters")
    if not re.fullmatch(r"[][A-Za-z0-9_.*?!-]+", g):
        core.usage_error(f"filter glob '{g}': only letters, digits and _ . - * ? [ ] ! "
                         "(SUITE or SUITE.CASE)")
    if not re.search(r"[^.]", g.split(".", 1)[0]):
        core.usage_error(f"filter glob '{g}' has no suite part (SUITE or SUITE.CASE)")


def optional_value(arg: str, bare: str) -> str:
    """--OPT=VALUE's VALUE, or BARE for --OPT alone (--json FILE, which
    takes the next word as argparse does, is parse()'s business)."""
    return arg.split("=", 1)[1] if "=" in arg else bare


def parse(argv, ctx: core.Ctx, lists) -> str:
    """The options into CTX; returns the command."""
    if ctx.guests < 1:
        core.usage_error(f"SETFS_GUESTS must be a number above 0, not "
                         f"'{ctx.settings.guests}'")
    cmd = ""
    arches = ",".join(lists["default"])
    soak = ""
    filters = []
    args = list(argv)
    while args:
        a = args.pop(0)

        def value(opt):
            if not args:
                core.usage_error(f"{opt} needs a value")
            return args.pop(0)

        if a in ("-h", "--help", "help"):
            core.out(usage(lists, ctx))
            raise core.Exit(0)
        elif a == "--arch":
            arches, ctx.arches_given = value(a), True
        elif a.startswith("--arch="):
            arches, ctx.arches_given = a[len("--arch="):], True
        elif a == "--base" or a.startswith("--base="):
            ctx.base_name = value(a) if a == "--base" else a[len("--base="):]
            if not ctx.base_name:
                core.usage_error("--base needs a base name")
        elif a == "--timeout":
            ctx.boot_timeout = value(a)
        elif a.startswith("--timeout="):
            ctx.boot_timeout = a[len("--timeout="):]
        elif a == "--keep-tree":
            ctx.keep_tree = True
        elif a == "--soak":
            soak = value(a)
        elif a.startswith("--soak="):
            soak = a[len("--soak="):]
        elif a == "--debug":
            ctx.debug = True
        elif a == "--dry-run":
            ctx.dry_run = True
        elif a == "--json" or a.startswith("--json="):
            # kunit.py's meaning (argparse, nargs='?'): bare, stdout;
            # --json=FILE or --json FILE, a file: a bare --json takes the
            # next word unless it is an option, as argparse does
            if a == "--json" and cmd and args and not args[0].startswith("-"):
                ctx.json_out = args.pop(0)
            else:
                ctx.json_out = optional_value(a, "stdout")
            if not ctx.json_out:
                core.usage_error("--json= needs a file name (or --json alone for stdout)")
        elif a == "--list_tests":
            ctx.list_tests = True
        elif a == "--raw_output" or a.startswith("--raw_output="):
            ctx.raw_output = optional_value(a, "kunit")
            if ctx.raw_output not in ("kunit", "all"):
                core.usage_error(f"--raw_output takes kunit or all, not '{ctx.raw_output}'")
        elif a == "--kconfig_add" or a.startswith("--kconfig_add="):
            opt = value(a) if a == "--kconfig_add" else a[len("--kconfig_add="):]
            if not KCONFIG_RE.fullmatch(opt):
                core.usage_error(f"--kconfig_add takes CONFIG_NAME=VALUE or 'CONFIG_NAME is "
                                 f"not set' as in a .config, not '{opt}'")
            if opt.endswith(" is not set"):
                opt = "# " + opt
            elif opt.endswith("=n"):
                # kunit.py's meaning; Kconfig writes it this way
                opt = f"# {opt[:-2]} is not set"
            ctx.kconfig_add.append(opt)
        elif a == "--author" or a.startswith("--author="):
            ctx.author = value(a) if a == "--author" else a[len("--author="):]
            if not AUTHOR_RE.fullmatch(ctx.author):
                core.usage_error(f"--author takes \"Name <mail@host>\", not '{ctx.author}'")
        elif a.startswith("-"):
            core.usage_error(f"unknown option '{a}'")
        elif not cmd:
            cmd = a
        elif cmd == "bench" and not ctx.bench_what:
            ctx.bench_what = a
        elif cmd in ("kunit", "exec"):
            check_glob(a)
            filters.append(a)
        else:
            core.usage_error(f"unexpected argument '{a}'")
    if not cmd:
        core.usage_error("no command given")
    if cmd not in COMMANDS:
        core.usage_error(f"unknown command '{cmd}'")
    if (ctx.bench_what or "all") not in BENCH_WHATS:
        core.usage_error(f"bench: unknown measurement '{ctx.bench_what}' "
                         "(guest, harness, cold or series)")
    if ctx.author and cmd != "export":
        core.usage_error(f"--author is an option of export, not of {cmd}")
    if ctx.dry_run and cmd != "kunit":
        core.usage_error(f"--dry-run is an option of kunit, not of {cmd}")
    for opt, given in (("--json", ctx.json_out), ("--raw_output", ctx.raw_output),
                       ("--list_tests", ctx.list_tests)):
        if given and cmd not in ("kunit", "exec"):
            core.usage_error(f"{opt} is an option of kunit and exec, not of {cmd}")
    if ctx.kconfig_add and cmd not in ("kunit", "config", "build", "exec", "shell"):
        core.usage_error(f"--kconfig_add is an option of kunit, its steps and shell, "
                         f"not of {cmd}")
    if soak == "":
        soak = "full" if cmd == "test" else "quick"
    elif soak not in ("quick", "full"):
        core.usage_error(f"--soak takes quick or full, not '{soak}'")
    ctx.soak = soak
    timeout = str(ctx.boot_timeout)
    if not timeout.isdigit() or int(timeout) == 0 or not timeout.isascii():
        core.usage_error(f"--timeout takes seconds (more than 0), not '{timeout}'")
    ctx.boot_timeout = int(timeout)
    ctx.filter = ",".join(filters)
    ctx.use_base()
    names = []
    for a in arches.split(","):
        if not a:
            continue
        if ctx.debug and not a.endswith("+debug"):
            a += "+debug"
        t = target.load(ctx, a)
        kinds.KINDS[t.kind].check_filters(a, filters)
        if ctx.kconfig_add and t.kind == "distro":
            core.usage_error(f"--kconfig_add: {a} boots Debian's kernel, not one built "
                             "from the tree")
        names.append(a)
    ctx.arches = names
    return cmd


def lock(ctx: core.Ctx):
    """One run per cache, whatever its base: two runs would build two
    kernels at once.  ("bench harness" runs the kunit command in its own
    process, under the lock it holds.)"""
    root = ctx.cache_root
    os.makedirs(ctx.cache, exist_ok=True)
    fh = open(os.path.join(root, "lock"), "w")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        core.die(f"another run.sh is using {root} (lock: {root}/lock)")
    return fh


def identity():
    """git am and the pristine commit need a committer; use the
    developer's identity when git has one."""
    if shutil.which("git") and \
            core.output(["git", "config", "--get", "user.email"], check=False):
        return
    settings.default_git_identity()


def dispatch(ctx: core.Ctx, cmd: str) -> bool:
    from harness import benchrun, checkpatches, commands

    table = {
        "kunit": commands.cmd_kunit, "test": commands.cmd_test,
        "config": commands.cmd_config, "build": commands.cmd_build,
        "exec": commands.cmd_exec,
        "shell": commands.cmd_shell, "export": commands.cmd_export,
        "check-patches": checkpatches.cmd_check_patches,
        "uharness": commands.cmd_uharness, "bench": benchrun.cmd_bench,
    }
    return table[cmd](ctx)


def _terminate(signum, _frame):
    # TERM to every child's group now, so that threads waiting on one
    # return; main() then waits for them to go before the lock does.  A
    # second signal must not interrupt that wait: from now on the
    # signals only send TERM again.
    for sig in core._SIGNALS:
        signal.signal(sig, _again)
    core.begin_stop()
    if core.defer_interrupt():
        return      # popen() raises it once its child is registered
    raise KeyboardInterrupt


def _again(signum, _frame):
    core.begin_stop()


def main(argv=None) -> int:
    from harness import qemu

    argv = sys.argv[1:] if argv is None else argv
    ctx = core.Ctx.from_env()
    settings.prepare_process()
    for sig in core._SIGNALS:
        signal.signal(sig, _terminate)
    try:
        try:
            lists = target.lists()
        except core.Failure as e:
            core.err(f"targets: {e}")
            core.err("run.sh: error: bad target record (above)")
            return 1
        cmd = parse(argv, ctx, lists)
        if ctx.dry_run:
            # no lock, no package, no file: the plan only
            from harness import plan
            core.out(plan.dry_run(ctx), end="")
            return 0
        identity()
        ctx.lock = lock(ctx)    # held until the process ends
        good = dispatch(ctx, cmd)
        results_json(ctx)
        return 0 if good else 1
    except core.UsageFailure as e:
        core.err(f"run.sh: {e}")
        core.err("Try './run.sh --help'.")
        return 2
    except core.Exit as e:
        return e.status
    except core.Failure as e:
        show = getattr(e, "show_log", None)
        if show:
            show()
        core.err(f"run.sh: error: {e}")
        return 1
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        # what a command, a file or a value the harness relies on did
        core.err(f"run.sh: error: {e}")
        return 1
    except KeyboardInterrupt:
        core.begin_stop()
        # guests included: one deadline for every child
        left = core.stop_children()
        qemu.stop_all(ctx)
        if left:
            core.err("run.sh: interrupted; these processes did not stop (their groups "
                     "are left): " + " ".join(str(p.pid) for p in left))
        else:
            core.err("run.sh: interrupted; every process it started is stopped")
        return 130
    finally:
        core.stop_children()
        qemu.stop_all(ctx)


def results_json(ctx: core.Ctx):
    """SETFS_RESULTS=FILE: the run's stage results and test part times as
    JSON, for bench cold (which runs CI in a clone and reads them back,
    instead of reading its output)."""
    path = ctx.settings.results
    if not path:
        return
    import dataclasses
    import json

    with open(path, "w") as fh:
        json.dump({"stages": [dataclasses.asdict(s) for s in ctx.kunit_stages],
                   "parts": getattr(ctx, "part_times", []),
                   "sums": ctx.sums}, fh, indent=1)
