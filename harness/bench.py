# SPDX-License-Identifier: GPL-2.0
"""The benches' tables (./run.sh bench).

    python3 -m harness.bench series PRISTINE.txt[,...] PATCHED.txt[,...]
    python3 -m harness.bench times NAME=PATH...

series: the lines of "setfs_user series" (rootfs/bench.c) from the
pristine and the patched kernel, side by side: ns per call, the
throughput ratio patched/pristine and the goal.  Several files per side
are rounds (boots) of the same kernel: each row keeps its best round
(lowest median), and its lowest minimum over all rounds.  "series-profile"
lines (rootfs/profile.c) are kernel samples taken while a row's read
ran; the rounds' samples are added up and shown as shares per symbol
under the table.  times: seconds per part
of a run ("# setfs-time:" lines kept by harness.report) per target.
"""

import sys
from typing import Dict, List, Tuple

GOAL = 0.98
# A file the series does not change: its ratio is the method's own error.
CONTROL = "/proc/self/limits"

Key = Tuple[str, int, str]          # file, bytes per call, path


def load_series(lines) -> Tuple[Dict[str, str], Dict[Key, List[str]], List[Key]]:
    """What each file is, the result per (file, size, path), their order.
    A result is ["ok", min, median, bytes] or [status, reason]."""
    what, got, order = {}, {}, []
    for line in lines:
        f = line.rstrip("\n").split("|")
        if f[0] == "series-file":
            what[f[1]] = f[2]
        elif f[0] == "series":
            key = (f[1], int(f[2]), f[3])
            new, old = f[4:], got.get(key)
            if old is None:
                order.append(key)
            elif old[0] == "ok" and new[0] == "ok":
                best = new if float(new[2]) < float(old[2]) else old
                new = ["ok", str(min(float(new[1]), float(old[1]))), best[2], best[3]]
            elif old[0] == "ok":
                new = old       # a round that ran beats one that did not
            got[key] = new
    return what, got, order


def load_profile(lines) -> Tuple[Dict[Key, Tuple[int, int, Dict[str, int]]], List[Key]]:
    """Kernel samples per (file, size, path): total, lost and the count of
    each symbol, added up over the rounds; and the rows' order.  A round
    that could not sample ("error:REASON") counts as a symbol of that name
    with no samples, so that the reason shows."""
    prof, order = {}, []
    for line in lines:
        f = line.rstrip("\n").split("|")
        if f[0] != "series-profile" or len(f) < 7:
            continue
        key = (f[1], int(f[2]), f[3])
        if key not in prof:
            prof[key] = (0, 0, {})
            order.append(key)
        total, lost, syms = prof[key]
        if f[6].startswith("error:"):
            syms.setdefault(f[6], 0)
            continue
        for item in filter(None, f[6].split(",")):
            name, count = item.rsplit(":", 1)
            syms[name] = syms.get(name, 0) + int(count)
        prof[key] = (total + int(f[4]), lost + int(f[5]), syms)
    return prof, order


def profile_lines(before, after, top=6) -> List[str]:
    """Where the time goes, per profiled row: the top symbols' shares of
    the kernel samples on each kernel."""
    pb, order = load_profile(before)
    pa, order_a = load_profile(after)
    order += [k for k in order_a if k not in pb]
    if not order:
        return []
    out = ["where the kernel time goes (perf cpu-clock samples in kernel mode "
           "while the row's read ran; share of the samples):"]
    for key in order:
        out.append("  %s %d B %s" % key)
        for side, prof in (("before", pb), ("after", pa)):
            if key not in prof:
                out.append("    %-6s no samples" % side)
                continue
            total, lost, syms = prof[key]
            top_syms = sorted(syms.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
            shares = ", ".join("%s %.0f%%" % (n, 100.0 * c / total)
                               for n, c in top_syms) if total else \
                ", ".join(n for n in syms) or "-"
            out.append("    %-6s %5d samples%s: %s" % (
                side, total, " (%d lost)" % lost if lost else "", shares))
    return out


def compare(before, after) -> Tuple[List[tuple], int]:
    """Rows (key, before, after, ratio median, ratio min, verdict) and
    how many miss the goal or fail only after the series."""
    what_b, got_b, order = load_series(before)
    _, got_a, order_a = load_series(after)
    order += [k for k in order_a if k not in got_b]
    rows, missed = [], 0
    for key in order:
        b = got_b.get(key, ["na", "not measured"])
        a = got_a.get(key, ["na", "not measured"])
        rmed = rmin = None
        if b[0] == "ok" and a[0] == "ok":
            # throughput (bytes per ns) after / before: the bytes per call
            # may differ (kallsyms and slabinfo are not the same files on
            # the two kernels, a rewind at EOF returns less)
            rmed = (float(a[3]) / float(a[2])) / (float(b[3]) / float(b[2]))
            rmin = (float(a[3]) / float(a[1])) / (float(b[3]) / float(b[1]))
            if rmed >= GOAL:
                verdict = "met"
            elif rmin >= GOAL:
                verdict = "met on min only"
            else:
                verdict = "MISSED"
                missed += 1
        elif a[0] == "ok":
            verdict = f"works only after the series (before: {b[1]})"
        elif b[0] == "ok":
            verdict = f"REGRESSION: fails after the series ({a[1]})"
            missed += 1
        else:
            verdict = b[1]
        rows.append((key, b, a, rmed, rmin, verdict))
    return rows, missed


def series_table(before, after) -> str:
    what, _, _ = load_series(before)
    rows, missed = compare(before, after)
    out = ["files:"]
    out += ["  %-24s %s" % kv for kv in what.items()]
    out.append("")
    out.append("%-24s %6s %-8s %12s %12s %12s %12s %7s %7s  %s" % (
        "file", "req", "path", "before med", "before min", "after med",
        "after min", "ratio", "ratio", "goal >= %.2f" % GOAL))
    out.append("%-24s %6s %-8s %12s %12s %12s %12s %7s %7s" % (
        "", "bytes", "", "ns/call", "ns/call", "ns/call", "ns/call", "med", "min"))

    def cell(r):
        return (r[2], r[1]) if r[0] == "ok" else (r[0], r[0])
    for key, b, a, rmed, rmin, verdict in rows:
        out.append("%-24s %6d %-8s %12s %12s %12s %12s %7s %7s  %s" % (
            key + cell(b) + cell(a) + (
                "-" if rmed is None else "%.3f" % rmed,
                "-" if rmin is None else "%.3f" % rmin, verdict)))
    out.append("")
    control = ["%d B %.3f" % (r[0][1], r[3]) for r in rows
               if r[0][0] == CONTROL and r[0][2] == "read" and r[3] is not None]
    if control:
        out.append("control %s (unchanged by the series), read, median ratio: %s"
                   % (CONTROL, ", ".join(control)))
    on_min = sum(1 for r in rows if r[5] == "met on min only")
    out.append("%d row(s) MISSED %.2f of the pristine throughput on both median "
               "and minimum or fail only after the series; %d met it on the "
               "minimum only" % (missed, GOAL, on_min))
    prof = profile_lines(before, after)
    if prof:
        out += [""] + prof
    return "\n".join(out)


def times_table(named_paths: List[str]) -> str:
    cols, rows = [], {}
    for arg in named_paths:
        name, path = arg.split("=", 1)
        cols.append(name)
        try:
            with open(path) as fh:
                for line in fh:
                    try:
                        part, secs = line.split()
                        rows.setdefault(part, {})[name] = float(secs)
                    except ValueError:
                        continue
        except OSError:
            pass
    out = ["%-26s" % "part" + "".join("%14s" % c for c in cols)]
    for part, by in rows.items():
        out.append("%-26s" % part + "".join(
            "%14s" % ("%.1f" % by[c] if c in by else "-") for c in cols))
    return "\n".join(out)


def main(argv):
    if len(argv) == 3 and argv[0] == "series":
        sides = []
        for files in argv[1:]:
            lines = []
            for path in files.split(","):
                with open(path) as fh:
                    lines += fh.readlines()
            sides.append(lines)
        print(series_table(*sides))
        return 0
    if len(argv) >= 1 and argv[0] == "times":
        print(times_table(argv[1:]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
