# SPDX-License-Identifier: GPL-2.0
"""Target records: targets/NAME.toml, one per target, validated here.

A record says everything the harness knows about a target: its Linux
and QEMU architecture names (kept apart: "powerpc" builds what
qemu-system-ppc64 boots), the cross compiler and packages (the compiler
and its package as harness/toolchain.py has them for arch.linux), whether
the kernel is built from the tree or is Debian's own, the config
fragments, the QEMU machine, and what the guest must find (its paging
mode).
NAME+debug, the debug flavour of a tree target, is derived: the same
record plus config/debug.config and the record's debug fragments.

The harness reads them with load_all() and target() (harness/target.py
turns one into a Target); its command line is for people:

    python3 -m harness.record list default  # NAME ... in run order
    python3 -m harness.record list test
    python3 -m harness.record list ci      # test's, as .ci/run runs it
    python3 -m harness.record list all
    python3 -m harness.record check         # validate every record

A bad record is an error naming the file and the field, exit status 1.
"""

import dataclasses
import os
import re
import sys
import tomllib

from harness import toolchain

TARGETS_DIR = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "targets")

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
# Words of QEMU's command line must hold no white space, quotes,
# expansions or glob characters (they are written in records, README
# examples and shell commands people copy); a
# package is a Debian package name (no leading "-": not an option).
WORD_RE = re.compile(r"^[^\s'\"\\$`*?\[]+$")
PKG_RE = re.compile(r"^[a-z0-9][a-z0-9+.:-]*$")
# Paths are relative to the repository or the build directory, below it.
PATH_RE = re.compile(r"^(?!.*(^|/)\.\.(/|$))[A-Za-z0-9_.+/-]+$")
# Kernel command-line words the record may add (key=value; a key may
# name a built-in module's parameter: "rcupdate.rcu_cpu_stall_timeout").
CMDLINE_RE = re.compile(r"^[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?=[^\s'\"\\$`]*$")

# tree: a kernel built from the tree, booted with our initramfs; distro:
# Debian's kernel and modules; builtin: a kernel built from the tree with
# kunit/ and module/ built in, whose KUnit suites run at boot with no
# user space (riscv64-nommu: no MMU binary could run there).
KINDS = ("tree", "distro", "builtin")
HALTS = ("reboot", "poweroff")
# Paging modes rootfs/arch.c can tell from /proc/cpuinfo.
# (2-level and lpae: 32-bit ARM, which it cannot tell; only
# guest.task_size_max is checked there.)
# "unchecked": user space cannot tell the mode (the guest checks only
# TASK_SIZE_MAX), as on s390, which adds levels to a process's tables when
# it maps higher; where rootfs/arch.c can tell the mode, the guest fails a
# record that says "unchecked".
PAGING_MODES = ("4-level", "5-level", "radix", "hash", "sv39", "sv48", "sv57",
                "2-level", "lpae", "unchecked")


class RecordError(Exception):
    """A record that cannot be used; the message names file and field."""


class UsageError(RecordError):
    """A target name that names no record or flavour (exit status 2)."""


@dataclasses.dataclass(frozen=True)
class Field:
    kind: type                 # str, bool, int or list (of str)
    required: bool = False
    default: object = None
    pattern: re.Pattern = None  # for str and each list item
    choices: tuple = ()


# table -> field -> Field.  A table absent from a record is empty.
SCHEMA = {
    "": {
        "kind": Field(str, default="tree", choices=KINDS),
        "default": Field(bool, default=False),
        "test": Field(bool, default=True),
        "test_debug": Field(bool, default=False),
        # false: in test's list, but not when .ci/run runs it (SETFS_CI=1)
        "ci": Field(bool, default=True),
        "order": Field(int, required=True),
        "packages": Field(list, required=True, pattern=PKG_RE),
    },
    "arch": {
        "linux": Field(str, required=True, pattern=NAME_RE),
        "qemu": Field(str, required=True, pattern=NAME_RE),
        "debian": Field(str, required=True, pattern=NAME_RE),
        "cross": Field(str, default="", pattern=re.compile(r"^([a-z0-9_-]+-)?$")),
    },
    "kernel": {
        "image": Field(str, pattern=PATH_RE),
        "fragments": Field(list, default=[], pattern=PATH_RE),
        "debug_fragments": Field(list, default=[], pattern=PATH_RE),
        "kernel_of": Field(str, default="", pattern=re.compile(r"^([a-z0-9][a-z0-9_-]*)?$")),
    },
    "distro": {
        "flavour": Field(str, pattern=NAME_RE),
        # The image package; @KVER@ is the base's kernel release
        # (6.12: 6.12.N+deb12-FLAVOUR; 6.1: 6.1.0-N-FLAVOUR).
        "image": Field(str, pattern=re.compile(r"^[a-z0-9.+-]*@KVER@[a-z0-9.+-]*$")),
    },
    "qemu": {
        "args": Field(list, required=True, pattern=WORD_RE),
        "firmware": Field(str, default="", pattern=re.compile(r"^([A-Za-z0-9_.+-]+)?$")),
        "console": Field(str, required=True, pattern=re.compile(r"^[A-Za-z0-9]+$")),
        "halt": Field(str, required=True, choices=HALTS),
        # QEMU from this Debian suite (signed by the host's
        # debian-archive-keyring) instead of the host's own: its
        # qemu-system-ARCH and qemu-system-data, unpacked into the cache
        # and run with -L, never installed
        "suite": Field(str, default="", pattern=re.compile(r"^([a-z]+(-[a-z]+)?)?$")),
        # the package with qemu-system-ARCH in that suite, when it is not
        # named so (x86_64's is qemu-system-x86); only with suite
        "package": Field(str, default="", pattern=re.compile(r"^(qemu-system-[a-z0-9]+)?$")),
    },
    "guest": {
        # paging and task_size_max: required unless kind = "builtin"
        "paging": Field(str, default="", choices=PAGING_MODES),
        # TASK_SIZE_MAX the probe must report (SETFS_IOC_INFO), in hex
        "task_size_max": Field(str, default="", pattern=re.compile(r"^0x[0-9a-f]{1,16}$")),
        "cmdline": Field(list, default=[], pattern=CMDLINE_RE),
        # busybox-static from this Debian suite (signed by the host's
        # debian-archive-keyring) instead of the host's own: Debian 12
        # has no riscv64, 13 (trixie) has
        "busybox_suite": Field(str, default="", pattern=re.compile(r"^([a-z]+)?$")),
    },
}


@dataclasses.dataclass(frozen=True)
class Record:
    name: str          # the record's name (its file name)
    path: str
    kind: str
    default: bool
    test: bool
    test_debug: bool
    ci: bool
    order: int
    packages: tuple
    arch: dict
    kernel: dict
    distro: dict
    qemu: dict
    guest: dict


def _check_value(where, value, field):
    if field.kind is list:
        if not isinstance(value, list):
            raise RecordError(f"{where}: must be a list of strings")
        items = value
    else:
        # bool is an int in Python: check the exact type.
        if type(value) is not field.kind:
            raise RecordError(f"{where}: must be a "
                              f"{'string' if field.kind is str else field.kind.__name__}, "
                              f"not {type(value).__name__}")
        items = [value] if field.kind is str else []
    for item in items:
        if not isinstance(item, str):
            raise RecordError(f"{where}: {item!r} is not a string")
        if field.pattern and not field.pattern.match(item):
            raise RecordError(f"{where}: {item!r} is not allowed here "
                              f"(must match {field.pattern.pattern})")
    if field.choices and value not in field.choices:
        raise RecordError(f"{where}: {value!r} is not one of "
                          f"{', '.join(field.choices)}")


def _check_toolchain(path, arch, packages):
    """arch.cross and the compiler package are harness/toolchain.py's for
    arch.linux: one table says which compiler builds an architecture."""
    tc = toolchain.TOOLCHAINS.get(arch["linux"])
    where = "harness/toolchain.py"
    if tc is None:
        raise RecordError(f"{path}: arch.linux: '{arch['linux']}' has no compiler in "
                          f"{where} (known: {', '.join(toolchain.TOOLCHAINS)})")
    if arch["cross"] != tc.cross:
        raise RecordError(f"{path}: arch.cross: '{arch['cross']}' is not {where}'s "
                          f"cross prefix for {tc.arch}: '{tc.cross}'")
    if tc.package not in packages:
        raise RecordError(f"{path}: packages: {tc.package} missing, the compiler of "
                          f"{tc.arch} in {where}")


def parse(name, text, path="<record>"):
    """Validate one record's TOML text; return a Record."""
    if not NAME_RE.match(name) or "+" in name:
        raise RecordError(f"{path}: '{name}' is not a target name "
                          "(lower-case letters, digits, _ and -)")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RecordError(f"{path}: not valid TOML: {e}") from None
    for key in data:
        if key not in SCHEMA[""] and key not in SCHEMA:
            raise RecordError(f"{path}: {key}: unknown field or table")
    out = {}
    for table, fields in SCHEMA.items():
        src = data if table == "" else data.get(table, {})
        if not isinstance(src, dict):
            raise RecordError(f"{path}: [{table}] must be a table")
        values = {}
        for key, field in fields.items():
            where = f"{path}: {table + '.' if table else ''}{key}"
            if key in src:
                _check_value(where, src[key], field)
                values[key] = src[key]
            elif field.required:
                raise RecordError(f"{where}: missing (required)")
            else:
                values[key] = field.default
        for key in src:
            if table == "" and key in SCHEMA and isinstance(src[key], dict):
                continue
            if key not in fields:
                where = f"{path}: {table + '.' if table else ''}{key}"
                raise RecordError(f"{where}: unknown field (known: "
                                  f"{', '.join(fields)})")
        out[table] = values

    top = out[""]
    _check_toolchain(path, out["arch"], top["packages"])
    kind = top["kind"]
    if kind in ("tree", "builtin"):
        if not out["kernel"]["image"]:
            raise RecordError(f"{path}: kernel.image: missing (required for kind = \"{kind}\")")
        if "distro" in data:
            raise RecordError(f"{path}: [distro]: only for kind = \"distro\"")
    if kind == "builtin":
        if "guest" in data:
            raise RecordError(f"{path}: [guest]: a builtin target runs no user space "
                              "(its KUnit suites run in the kernel at boot)")
        if top["test_debug"]:
            raise RecordError(f"{path}: test_debug: a builtin target has no debug flavour")
        if out["kernel"]["kernel_of"] or out["kernel"]["debug_fragments"]:
            raise RecordError(f"{path}: kernel.kernel_of, kernel.debug_fragments: "
                              "only for kind = \"tree\"")
    else:
        for key in ("paging", "task_size_max"):
            if not out["guest"][key]:
                raise RecordError(f"{path}: guest.{key}: missing (required)")
    if kind == "distro":
        for key in ("flavour", "image"):
            if not out["distro"][key]:
                raise RecordError(f"{path}: distro.{key}: missing (required for kind = \"distro\")")
        if "kernel" in data:
            raise RecordError(f"{path}: [kernel]: a distro target builds no kernel")
        if top["test_debug"]:
            raise RecordError(f"{path}: test_debug: a distro kernel has no debug flavour")
    if out["kernel"]["kernel_of"] == name:
        raise RecordError(f"{path}: kernel.kernel_of: names this record itself")
    if out["qemu"]["package"] and not out["qemu"]["suite"]:
        raise RecordError(f"{path}: qemu.package: only with qemu.suite")
    if top["default"] and not top["test"]:
        raise RecordError(f"{path}: test: a default target must also be in test")
    if not top["ci"] and (top["default"] or not top["test"]):
        raise RecordError(f"{path}: ci: only a target in test, not in the default "
                          "list, can stay out of CI")
    return Record(name=name, path=path, kind=top["kind"], default=top["default"],
                  test=top["test"], test_debug=top["test_debug"], ci=top["ci"],
                  order=top["order"], packages=tuple(top["packages"]),
                  arch=out["arch"], kernel=out["kernel"], distro=out["distro"],
                  qemu=out["qemu"], guest=out["guest"])


def load(name, directory=TARGETS_DIR):
    path = os.path.join(directory, name + ".toml")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise RecordError(f"unknown target '{name}' (known: "
                          f"{','.join(names(directory))})") from None
    return parse(name, text, os.path.relpath(path, os.path.dirname(directory)))


def names(directory=TARGETS_DIR):
    # not an editor's lock or backup file (.#x86_64.toml)
    return sorted(f[:-5] for f in os.listdir(directory)
                  if f.endswith(".toml") and not f.startswith("."))


def load_all(directory=TARGETS_DIR):
    """Every record, validated, with the checks that span records."""
    recs = {n: load(n, directory) for n in names(directory)}
    orders = {}
    for r in recs.values():
        if r.order in orders:
            raise RecordError(f"{r.path}: order: {r.order} is also "
                              f"{orders[r.order]}'s")
        orders[r.order] = r.name
        owner = r.kernel["kernel_of"]
        if owner:
            o = recs.get(owner)
            if o is None or o.kind != "tree" or o.kernel["kernel_of"]:
                raise RecordError(f"{r.path}: kernel.kernel_of: '{owner}' is not "
                                  "another target that builds its own kernel")
            if ((o.arch, o.kernel["fragments"], o.kernel["image"]) !=
                    (r.arch, r.kernel["fragments"], r.kernel["image"])):
                raise RecordError(f"{r.path}: kernel.kernel_of: '{owner}' has other "
                                  "arch names, fragments or image, so another kernel")
        top = os.path.dirname(directory)
        for key in ("fragments", "debug_fragments"):
            for frag in r.kernel[key]:
                if not os.path.isfile(os.path.join(top, frag)):
                    raise RecordError(f"{r.path}: kernel.{key}: {frag} does not exist")
    return recs


def run_list(recs, which):
    """Target names in run order: the default list, test's list, all."""
    by_order = sorted(recs.values(), key=lambda r: r.order)
    if which == "default":
        return [r.name for r in by_order if r.default]
    if which == "all":
        return [r.name for r in by_order]
    if which in ("test", "ci"):
        # Defaults first (the guests boot in this order),
        # then the debug flavours, then the other test targets; for ci,
        # without those whose record says ci = false.
        ci = which == "ci"
        return ([r.name for r in by_order if r.default] +
                [r.name + "+debug" for r in by_order
                 if r.test_debug and (r.ci or not ci)] +
                [r.name for r in by_order
                 if r.test and not r.default and (r.ci or not ci)])
    raise RecordError(f"unknown list '{which}' (default, test, ci or all)")


def target(name, directory=TARGETS_DIR):
    """NAME or NAME+debug: (record, flavour), the pair checked."""
    base, debug = name, False
    if name.endswith("+debug"):
        base, debug = name[:-len("+debug")], True
    recs = load_all(directory)
    if base not in recs:
        raise UsageError(f"unknown target '{name}' (known: "
                         f"{','.join(run_list(recs, 'all'))})")
    rec = recs[base]
    if debug and rec.kind != "tree":
        raise UsageError(f"target '{base}' is of kind {rec.kind}: "
                          "it has no debug flavour")
    return rec, "debug" if debug else "normal"


def main(argv):
    try:
        if len(argv) == 2 and argv[0] == "list":
            try:
                print(" ".join(run_list(load_all(), argv[1])))
            except RecordError as e:
                if str(e).startswith("unknown list"):
                    raise UsageError(str(e)) from None
                raise
        elif argv == ["check"]:
            recs = load_all()
            print(f"{len(recs)} records valid: {' '.join(recs)}")
        else:
            print("usage:\n" + __doc__.split("\n\n")[3].rstrip(), file=sys.stderr)
            return 2
    except RecordError as e:
        print(f"targets: {e}", file=sys.stderr)
        return 2 if isinstance(e, UsageError) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
