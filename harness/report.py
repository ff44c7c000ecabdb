# SPDX-License-Identifier: GPL-2.0
"""A target's report: its console log in, counts and verdicts out.

The KTAP block is cut out of the console (guest.KTAP_BEGIN..KTAP_END; for
a target of kind "builtin", whose kernel prints it with no init around it,
as kunit.py cuts it out of a raw kernel log) and parsed with the prepared tree's own tools/testing/kunit/kunit_parser.py,
imported, not run.  report() returns a Report; present() prints what the
kunit command shows for a target and writes its files; main() is
present() as a command.

    python3 -m harness.report --tree TREE --name NAME --work DIR \\
        [--filter GLOBS] [--kind KIND]

reads DIR/console.log, writes DIR/results.ktap, DIR/results.json,
DIR/times and DIR/report.txt (key=value lines).  Exit status 0 when the
guest reported (its results may still fail), 3 (NO_REPORT) when it did
not.
"""

import argparse
import dataclasses
import datetime
import io
import json
import os
import sys
from typing import List, Optional, Tuple

from harness import guest, record

# main()'s exit status when the guest never reported (argparse uses 2).
NO_REPORT = 3


@dataclasses.dataclass
class Report:
    """What one guest run gave."""
    ktap: List[str]
    # None when the guest reported; else why not ("crashed" or "stopped").
    guest_error: Optional[str] = None
    suites: List[Tuple[str, int, int, int]] = dataclasses.field(default_factory=list)
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    kunit: Tuple[int, int, int] = (0, 0, 0)
    user: Tuple[int, int, int] = (0, 0, 0)
    failed_cases: List[str] = dataclasses.field(default_factory=list)
    # Problems outside the results: each adds one failure.
    problems: List[str] = dataclasses.field(default_factory=list)
    splat: List[Tuple[int, str]] = dataclasses.field(default_factory=list)
    taint: Optional[int] = None
    times: List[Tuple[str, float]] = dataclasses.field(default_factory=list)
    parse_output: str = ""
    json: str = ""


def load_kunit_parser(tree):
    """The tree's kunit_parser and kunit_json modules, and kunit_printer
    (whose stdout Printer report() redirects)."""
    path = os.path.join(tree, "tools", "testing", "kunit")
    if not os.path.isfile(os.path.join(path, "kunit_parser.py")):
        raise FileNotFoundError(f"{path}/kunit_parser.py: no prepared tree at {tree}")
    if path not in sys.path:
        sys.path.insert(0, path)
    import kunit_json  # pylint: disable=import-outside-toplevel
    import kunit_parser  # pylint: disable=import-outside-toplevel
    import kunit_printer  # pylint: disable=import-outside-toplevel
    return kunit_parser, kunit_json, kunit_printer


def cut_ktap(console: List[str]) -> Tuple[List[str], bool]:
    """The lines between the KTAP markers, and whether the end came."""
    out, inside, ended = [], False, False
    for line in console:
        if line == guest.KTAP_BEGIN:
            inside, out = True, []
        elif line == guest.KTAP_END and inside:
            inside, ended = False, True
        elif inside:
            out.append(line)
    return out, ended


def cut_builtin_ktap(kunit_parser, console: List[str]) -> Tuple[List[str], bool]:
    """A builtin target's KTAP, as kunit.py isolates it from a raw kernel
    log, and whether the kernel got to power off after the executor."""
    lines = kunit_parser.extract_tap_lines(console)
    out = []
    while lines:
        out.append(lines.pop())
    return out, guest.BUILTIN_END in console


def count(group) -> Tuple[int, int, int]:
    """Passed, failed, skipped over every leaf below a JSON group."""
    p = f = s = 0
    for case in group["test_cases"]:
        if case["status"] == "PASS":
            p += 1
        elif case["status"] == "SKIP":
            s += 1
        else:
            f += 1
    for sub in group["sub_groups"]:
        sp, sf, ss = count(sub)
        p, f, s = p + sp, f + sf, s + ss
    return p, f, s


def failures(group, path, out):
    for case in group["test_cases"]:
        if case["status"] not in ("PASS", "SKIP"):
            out.append(".".join(path + [case["name"]]))
    for sub in group["sub_groups"]:
        failures(sub, path + [sub["name"]], out)


def is_user(name):
    return name.startswith(guest.USER_SUITE_PREFIXES)


def report(console: List[str], tree: str, filt: str = "",
           kind: str = "tree", arch: str = "", build_dir: str = "") -> Report:
    """Reads a console log (lines without line ends, \\r removed) of a
    target of record kind KIND; ARCH and BUILD_DIR go into the JSON's
    metadata, as kunit.py's arch and build directory do."""
    kunit_parser, kunit_json, kunit_printer = load_kunit_parser(tree)
    builtin = kind == "builtin"
    if builtin:
        ktap, ended = cut_builtin_ktap(kunit_parser, console)
    else:
        ktap, ended = cut_ktap(console)
    rep = Report(ktap=ktap)
    rep.splat = [(i + 1, line) for i, line in enumerate(console)
                 if guest.SPLAT_RE.search(line)]
    if not ended:
        rep.guest_error = ("the guest crashed before reporting" if rep.splat
                           else "the guest stopped before reporting its results")
        return rep

    buf = io.StringIO()
    saved = kunit_parser.stdout
    kunit_parser.stdout = kunit_printer.Printer(buf)
    try:
        test = kunit_parser.parse_run_tests(ktap)
    finally:
        kunit_parser.stdout = saved
    rep.parse_output = buf.getvalue()
    rep.json = kunit_json.get_json_result(test, kunit_json.Metadata(
        arch=arch, def_config="setfs-probe", build_dir=build_dir))
    top = json.loads(rep.json)

    failures(top, [], rep.failed_cases)
    kunit, user = [0, 0, 0], [0, 0, 0]
    for suite in top["sub_groups"]:
        c = count(suite)
        rep.suites.append((suite["name"],) + c)
        side = user if is_user(suite["name"]) else kunit
        for i, v in enumerate(c):
            side[i] += v
    for case in top["test_cases"]:
        # A top-level result without subtests: a suite that reported
        # nothing, or one skipped as a whole (KUnit on a kernel without it).
        skipped = case["status"] == "SKIP"
        rep.suites.append((case["name"], 0, int(not skipped), int(skipped)))
        side = user if is_user(case["name"]) else kunit
        side[2 if skipped else 1] += 1
    rep.passed, rep.failed, rep.skipped = count(top)
    rep.kunit, rep.user = tuple(kunit), tuple(user)

    if rep.passed + rep.failed + rep.skipped == 0:
        rep.problems.append(f"the filter '{filt}' selected no test" if filt
                            else "the guest reported no test results")
    if test.counts.errors:
        rep.problems.append("kunit.py found errors in the KTAP (see above)")
    taints = [line[len(guest.TAINT_PREFIX):] for line in console
              if line.startswith(guest.TAINT_PREFIX)]
    if builtin:
        pass        # no user space reads the taint; a splat still fails
    elif not taints or not taints[-1].isdigit():
        rep.problems.append("the guest did not report its taint")
    else:
        rep.taint = int(taints[-1])
        if rep.taint & ~guest.TAINT_ALLOWED:
            rep.problems.append(f"the kernel is tainted {rep.taint} (more than O, E and N)")
    if rep.splat:
        rep.problems.append("the console shows a kernel splat:")
    for line in ktap:
        if line.startswith(guest.TIME_PREFIX):
            try:
                part, secs = line[len(guest.TIME_PREFIX):].split()
                rep.times.append((part, float(secs)))
            except ValueError:
                pass        # not ours to fail on: the KTAP counts it
    rep.failed += len(rep.problems)
    return rep


def read_console(path):
    # Lines end at \n only; a \r anywhere is dropped (as tr -d '\r'), so
    # line numbers are grep -n's.
    with open(path, encoding="utf-8", errors="replace", newline="\n") as fh:
        return [line.rstrip("\n").replace("\r", "") for line in fh]


def present(name: str, work: str, tree: str, filt: str = "", kind: str = "tree",
            raw: str = "", build_dir: str = "") -> Report:
    """NAME's report from WORK/console.log: printed as the harness shows a
    target, and written to WORK (results.ktap, results.json, times,
    report.txt).  rep.guest_error is set when the guest never reported.
    RAW, as kunit.py's --raw_output: "kunit" prints the KTAP alone, "all"
    the whole console, instead of the parsed view."""
    log = os.path.join(work, "console.log")
    result = os.path.join(work, "report.txt")
    if os.path.exists(result):
        os.unlink(result)
    console = read_console(log)
    rep = report(console, tree, filt, kind, arch=name, build_dir=build_dir)
    with open(os.path.join(work, "results.ktap"), "w") as fh:
        fh.writelines(line + "\n" for line in rep.ktap)
    if rep.guest_error:
        with open(result, "w") as fh:
            fh.write(f"guest_error={rep.guest_error}\n")
        return rep

    json_path = os.path.join(work, "results.json")
    with open(json_path, "w") as fh:
        fh.write(rep.json)
    out = sys.stdout
    if raw == "all":
        out.write(f"\n==== {name}: console ====\n")
        out.writelines(line + "\n" for line in console)
    else:
        out.write(f"\n==== {name}: KTAP ====\n")
        out.writelines(line + "\n" for line in rep.ktap)
    if not raw:
        out.write(f"==== {name}: parsed by tools/testing/kunit/kunit.py ====\n")
        out.write(rep.parse_output)
    # as kunit.py parse --json=FILE ends
    stamp = datetime.datetime.now().strftime("%H:%M:%S")
    out.write(f"[{stamp}] Test results stored in {os.path.abspath(json_path)}\n")
    for sname, p, f, s in rep.suites:
        out.write("    %-28s %4d passed %4d failed %4d skipped\n" % (sname, p, f, s))
    with open(os.path.join(work, "times"), "w") as fh:
        fh.writelines("%s %.2f\n" % t for t in rep.times)
    if rep.times:
        out.write("    guest time: " + ", ".join(
            "%s %.1fs" % t for t in rep.times) + "\n")
    out.flush()         # stdout is a pipe in CI: keep the order
    for problem in rep.problems:
        print(f"run.sh: {name}: {problem}", file=sys.stderr)
    if rep.splat:
        for n, line in rep.splat[:20]:
            print(f"{n}:{line}", file=sys.stderr)
        first = rep.splat[0][0]
        print(f"---- {log}, from line {first} ----", file=sys.stderr)
        for line in console[first - 1:first + 40]:
            print(line, file=sys.stderr)
    sys.stderr.flush()
    out.write(f"    console log: {log}\n")
    out.flush()
    with open(result, "w") as fh:
        fh.write(f"passed={rep.passed}\nfailed={rep.failed}\nskipped={rep.skipped}\n")
        fh.write("split=%d %d %d %d %d %d\n" % (rep.kunit + rep.user))
        for case in rep.failed_cases:
            fh.write(f"failcase={case}\n")
    return rep


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--filter", default="")
    ap.add_argument("--kind", default="tree", choices=record.KINDS)
    args = ap.parse_args(argv)
    rep = present(args.name, args.work, args.tree, args.filter, args.kind)
    return NO_REPORT if rep.guest_error else 0


if __name__ == "__main__":
    sys.exit(main())
