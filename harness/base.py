# SPDX-License-Identifier: GPL-2.0
"""Base records: bases/NAME.toml, one per kernel tree the kit runs on,
validated here.  A base says which Debian source package and tarball the
tree comes from, which upstream version the tree must be (its Makefile's
VERSION.PATCHLEVEL), which series directories of kernel-patches/ go on it,
and which Debian kernel packages the distro target of that release uses.
Nothing else in the harness names a kernel version.

    python3 -m harness.base list     # NAME ... (the default first)
    python3 -m harness.base check    # validate every record

The base of a run: --base NAME, else SETFS_BASE, else the record that
says default = true.  Each base has a cache tree of its own
($SETFS_CACHE/NAME) and its own series directories.
"""

import dataclasses
import os
import re
import sys
import tomllib

from harness import record
from harness.record import NAME_RE as TARGET_RE, PATH_RE, PKG_RE, Field, RecordError, \
    _check_value

BASES_DIR = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "bases")

NAME_RE = re.compile(r"^[0-9][0-9a-z.]*$")
ABS_RE = re.compile(r"^/" + PATH_RE.pattern[1:])
VERSION_RE = re.compile(r"^[0-9]+\.[0-9]+$")
PEER_RE = re.compile(r"^[a-z0-9_-]+:[a-z0-9_]+$")


class BaseError(Exception):
    """A base record that cannot be used; the message names file and field."""


class UnknownBase(BaseError):
    """A name that names no record (a usage error, exit status 2)."""


@dataclasses.dataclass(frozen=True)
class Base:
    name: str
    path: str            # relative to the repository
    default: bool
    package: str         # the Debian source package: linux-source-6.12
    tarball: str         # where it puts the tarball
    directory: str       # the tarball's top directory
    version: str         # VERSION.PATCHLEVEL of the tree's Makefile
    fixes: str           # series directory of the uaccess fixes ("": none)
    procfs: str          # series directory of the procfs series ("": none)
    distro_abi: str      # regular expression of the image packages' ABI
    distro_kbuild: str   # the kbuild package; @ABI@ is the ABI found
    # config fragments added after a target's own: target name -> paths
    # relative to the repository (Kconfig names that differ by base)
    # "*": every target whose kernel is built from the tree with modules
    # (kind "tree")
    fragments: dict = dataclasses.field(default_factory=dict)
    # the tree's own KUnit suites the tree guests load after setfs_kunit.ko:
    # (module, suite) pairs; their config options come from fragments."*"
    peers: tuple = ()

    def target_fragments(self, target: str, kind: str = "tree"):
        every = list(self.fragments.get("*", ())) if kind == "tree" else []
        return every + list(self.fragments.get(target, ()))

    @property
    def series_dirs(self):
        return [d for d in (self.fixes, self.procfs) if d]


# table -> field -> record.Field (checked by record.py's _check_value);
# every field is a string, "" when absent.
SCHEMA = {
    "source": {"package": Field(str, True, pattern=PKG_RE),
               "tarball": Field(str, True, pattern=ABS_RE),
               "directory": Field(str, True, pattern=re.compile(r"^[A-Za-z0-9_.+-]+$")),
               "version": Field(str, True, pattern=VERSION_RE)},
    "series": {"fixes": Field(str, default="", pattern=PATH_RE),
               "procfs": Field(str, default="", pattern=PATH_RE)},
    "distro": {"abi": Field(str, True),
               "kbuild": Field(str, True,
                               pattern=re.compile(r"^[a-z0-9+.-]*(@ABI@)?[a-z0-9+.-]*$"))},
}


def parse(name: str, text: str, path: str = "<base>") -> Base:
    if not NAME_RE.match(name):
        raise BaseError(f"{path}: '{name}' is not a base name (a version: digits, "
                        "dots and lower-case letters)")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BaseError(f"{path}: not valid TOML: {e}") from None
    for key in data:
        if key not in ("default", "fragments", "peers") and key not in SCHEMA:
            raise BaseError(f"{path}: {key}: unknown field or table "
                            f"(known: default, peers, fragments, {', '.join(SCHEMA)})")
    peers = data.get("peers", [])
    if not isinstance(peers, list) or not all(
            isinstance(p, str) and PEER_RE.match(p) for p in peers):
        raise BaseError(f"{path}: peers: must be a list of \"MODULE:SUITE\" strings "
                        f"(each must match {PEER_RE.pattern})")
    frags = data.get("fragments", {})
    if not isinstance(frags, dict):
        raise BaseError(f"{path}: [fragments] must be a table")
    for tname, files in frags.items():
        where = f"{path}: fragments.{tname}"
        if tname != "*" and not TARGET_RE.match(tname):
            raise BaseError(f"{where}: not a target name")
        if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
            raise BaseError(f"{where}: must be a list of strings")
        for f in files:
            if not PATH_RE.match(f) or not f.startswith("config/"):
                raise BaseError(f"{where}: {f!r} is not a file under config/")
    default = data.get("default", False)
    if type(default) is not bool:
        raise BaseError(f"{path}: default: must be a bool, not {type(default).__name__}")
    vals = {}
    for table, fields in SCHEMA.items():
        src = data.get(table, {})
        if not isinstance(src, dict):
            raise BaseError(f"{path}: [{table}] must be a table")
        for key in src:
            if key not in fields:
                raise BaseError(f"{path}: {table}.{key}: unknown field (known: "
                                f"{', '.join(fields)})")
        for key, field in fields.items():
            where = f"{path}: {table}.{key}"
            v = src.get(key, "")
            if key not in src and field.required:
                raise BaseError(f"{where}: missing (required)")
            if v == "" and field.required:
                raise BaseError(f"{where}: empty (required)")
            try:
                if v != "":
                    _check_value(where, v, field)
            except RecordError as e:
                raise BaseError(str(e)) from None
            vals[f"{table}.{key}"] = v
    try:
        re.compile(vals["distro.abi"])
    except re.error as e:
        raise BaseError(f"{path}: distro.abi: not a regular expression: {e}") from None
    if vals["series.fixes"] and vals["series.fixes"] == vals["series.procfs"]:
        raise BaseError(f"{path}: series.fixes and series.procfs: the same directory")
    for key in ("series.fixes", "series.procfs"):
        if vals[key] and not (vals[key] + "/").startswith("kernel-patches/"):
            raise BaseError(f"{path}: {key}: {vals[key]!r} is not under kernel-patches/")
    return Base(name=name, path=path, default=default,
                package=vals["source.package"], tarball=vals["source.tarball"],
                directory=vals["source.directory"], version=vals["source.version"],
                fixes=vals["series.fixes"], procfs=vals["series.procfs"],
                distro_abi=vals["distro.abi"], distro_kbuild=vals["distro.kbuild"],
                fragments={k: tuple(v) for k, v in frags.items()},
                peers=tuple(tuple(p.split(":")) for p in peers))


def names(directory: str = BASES_DIR):
    return record.names(directory)


def load(name: str, directory: str = BASES_DIR) -> Base:
    path = os.path.join(directory, name + ".toml")
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise UnknownBase(f"unknown base '{name}' (known: "
                          f"{', '.join(names(directory))})") from None
    return parse(name, text, os.path.relpath(path, os.path.dirname(directory)))


def load_all(directory: str = BASES_DIR):
    """Every base, validated, exactly one of them the default, every
    fragment a file."""
    bases = {n: load(n, directory) for n in names(directory)}
    top = os.path.dirname(directory)
    for b in bases.values():
        for tname, files in b.fragments.items():
            for f in files:
                if not os.path.isfile(os.path.join(top, f)):
                    raise BaseError(f"{b.path}: fragments.{tname}: {f} does not exist")
    defaults = [b.name for b in bases.values() if b.default]
    if len(defaults) != 1:
        raise BaseError(f"{os.path.basename(directory)}/: exactly one base must say "
                        f"default = true (now: {', '.join(defaults) or 'none'})")
    return bases


def select(name: str = "", directory: str = BASES_DIR) -> Base:
    """The base NAME, or the default one for an empty NAME."""
    bases = load_all(directory)
    if not name:
        return next(b for b in bases.values() if b.default)
    if name not in bases:
        raise UnknownBase(f"unknown base '{name}' (known: {', '.join(bases)})")
    return bases[name]


def tree_version(makefile_text: str) -> str:
    """VERSION.PATCHLEVEL of a kernel tree's top Makefile ("" if absent)."""
    v = re.search(r"(?m)^VERSION\s*=\s*(\d+)\s*$", makefile_text)
    p = re.search(r"(?m)^PATCHLEVEL\s*=\s*(\d+)\s*$", makefile_text)
    return f"{v.group(1)}.{p.group(1)}" if v and p else ""


def main(argv):
    try:
        bases = load_all()
        if argv == ["list"]:
            print(" ".join(sorted(bases, key=lambda n: not bases[n].default)))
        elif argv == ["check"]:
            print(f"{len(bases)} bases valid: {' '.join(bases)}")
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
    except BaseError as e:
        print(f"bases: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
