#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""uharness: the converted ->proc_read_iter methods, in user space.

For each harness below: extract the function bodies named in its fixture
(fixtures/NAME.c, lines "// uh-extract: PATH KIND NAME") from the kernel
tree, compile them with the fixture, uh_main.c and the tree's
simple_read_from_buffer_iter() under ASan and UBSan, run every row of
model.rows_for() in a forked child, and compare the result with
model.expect().  Output: KTAP, one subtest per harness, then
"N passed, N failed, N skipped".  Exit status 0 only when nothing failed.

    uharness.py [--tree DIR] [--only NAME,...] [--keep DIR] [--list]
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import extract  # noqa: E402
import model    # noqa: E402
from model import EAGAIN, EFAULT, EINVAL, EIO, ENODATA, FileModel  # noqa: E402

CFLAGS = [
    "-std=gnu11", "-O1", "-g", "-fno-omit-frame-pointer",
    "-fno-sanitize-recover=all",
    # An index out of bounds (or past the object) is reported and the
    # access still made, so
    # that ASan reports what the access does (stack-buffer-overflow, ...);
    # the row fails on the UBSan report all the same.
    "-fsanitize-recover=bounds,object-size",
    # The kernel's own code-generation rules (top-level Makefile): signed
    # overflow wraps (BUILDS), no strict aliasing, NULL checks are kept.
    "-fno-strict-aliasing",
    "-fno-delete-null-pointer-checks",
    "-Wall", "-Wno-unused-function", "-Wno-unused-variable",
]
# The compiler and sanitizers of each word size.
# 64-bit: gcc with ASan and UBSan.
# 32-bit: clang -m32, because Debian 12's gcc-multilib conflicts with the
# cross compilers the kit builds kernels with (gcc-12-powerpc64le-linux-gnu
# and the others); clang takes i386's libc and libgcc from libc6-dev-i386
# and lib32gcc-12-dev.  The kernel's UAPI <asm/*.h> serve both word
# sizes: they come from the host's multiarch directory, where
# gcc-multilib's /usr/include/asm would point.  UBSan only: what the
# 32-bit build is for is the width of positions and counts, which the
# results and UBSan show, while memory errors are the 64-bit build's
# (ASan's i386 runtime does not start under qemu-i386, see RUNNERS).
# Signed overflow wraps in both (-fwrapv is clang's -fno-strict-overflow).
HOST_INCLUDE = "/usr/include/x86_64-linux-gnu"
BUILDS = {
    64: ["gcc", "-fno-strict-overflow", "-fsanitize=address,undefined"],
    32: ["clang", "-m32", "-fwrapv", "-idirafter", HOST_INCLUDE,
         "-fsanitize=undefined"],
}
PKGS = {64: ["gcc", "libasan8", "libubsan1"],
        32: ["clang", "libc6-dev-i386", "lib32gcc-12-dev", "qemu-user"]}
# A host kernel without IA32 emulation (this kit's VMs) cannot exec an
# i386 binary: it runs under QEMU's user-mode emulator instead.
QEMU_I386 = "qemu-i386"
SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:abort_on_error=0:"
                    "detect_stack_use_after_return=1:print_summary=1",
    "UBSAN_OPTIONS": "print_stacktrace=1",
}
LIBFS = ("fs/libfs.c", "func", "simple_read_from_buffer_iter")
# "// uh-extract: PATH KIND NAME", or "uh-extract(6.12)" / "uh-extract(<6.12)"
# for a tree of that version or later / earlier only.
MARK = re.compile(r"^\s*//\s*uh-extract(?:\((<?)(\d+)\.(\d+)\))?:"
                  r"\s*(\S+)\s+(\w+)\s+(\w+)\s*$")
# "// uh-extract-old: PATH func NAME": NAME of the tree's pristine commit
# (tag "pristine"), renamed old_NAME: the differential's old side.
MARK_OLD = re.compile(r"^\s*//\s*uh-extract-old:\s*(\S+)\s+(\w+)\s+(\w+)\s*$")
PRISTINE = "pristine"
# "// uh-include: NAME": the fixture file NAME (fixtures/NAME), expanded
# in its place: extraction lines that several fixtures share.
MARK_INCLUDE = re.compile(r"^\s*//\s*uh-include:\s*([\w.-]+)\s*$")
# Series v5's per-segment core of fs/proc/inode.c; a tree that has it reads
# every harnessed entry (none has PROC_ENTRY_ITER_WHOLE) through it.
SEG_CORE = ("fs/proc/inode.c", "func", "proc_reg_read_iter_seg")


def _partial_copy(row, got):
    # a fault part way: the bytes before it, where the old code said
    # -EFAULT (for the whole read, or for the segment it was in)
    old, ret = got["old_ret"], got["ret"]
    return 0 < ret <= row.capacity() < row.count() and \
        (old == -EFAULT or 0 <= old < ret)


def _ignored_fault(row, got):
    # the old code ignored __put_user() failures and counted them
    old, ret = got["old_ret"], got["ret"]
    return row.capacity() < old and ret < old and \
        (ret == -EFAULT or 0 < ret <= row.capacity())


def _eof_past_2g(row, got):
    # "int pos = *ppos": -EINVAL or a bogus count from 2^31 on, the
    # registers again at 2^32 + n; now 0 (end of file)
    return row.pos >= 2**31 and got["ret"] == 0


# fixtures/rtasd.c: the bytes of one RTAS event
RTAS_EVENT_BYTES = 1024


def _fault_first(row, got):
    # the destination is faulted in before the event is taken: -EFAULT
    # for one that cannot hold it, where the old code said -EINVAL for
    # NULL, or took the event first (and lost it), or had none to take
    return got["ret"] == -EFAULT and row.capacity() < RTAS_EVENT_BYTES <= row.count()


FAULT_FIRST = {
    "a destination that cannot take the event is -EFAULT before anything "
    "is consumed (the patch's user-visible changes)": _fault_first}
def _eof_past_4g_32(row, got):
    # "unsigned long p = *ppos" on a 32-bit kernel: a position of 2^32 + n
    # read the data at n; compared as a loff_t first, it is end of file
    return row.bits == 32 and row.pos >= 2**32 and got["ret"] == 0


def _null_efault(row, got):
    # do_syslog() refused a NULL buffer with -EINVAL; the converted read
    # faults the first byte in: -EFAULT
    return got["ret"] == -EFAULT and got["old_ret"] == -EINVAL and \
        row.segs[0].null


NULL_EFAULT = {
    "a NULL buffer is -EFAULT, not -EINVAL (the patch's user-visible "
    "changes)": _null_efault}
PARTIAL_COPY = {
    "a fault part way returns the bytes before it, not -EFAULT "
    "(the patch's user-visible changes)": _partial_copy}
PARTIAL_COPY_32 = {
    **PARTIAL_COPY,
    "32-bit: positions of 2^32 and more are end of file, no longer "
    "narrowed to unsigned long (the patch's user-visible changes)":
    _eof_past_4g_32}
IGNORED_FAULTS = {
    "__put_user() failures are no longer counted as copied "
    "(the patch's user-visible changes)": _ignored_fault,
    "positions of 2^31 and more are end of file, no longer narrowed to "
    "int (the patch's user-visible changes)": _eof_past_2g}


@dataclass
class Harness:
    name: str
    fixture: str | None
    sites: list                    # "path: function" of the tree it covers
    model: FileModel = field(default_factory=FileModel)
    per_variant: dict = field(default_factory=dict)   # variant -> FileModel
    skip: str | None = None
    # (major, minor) -> why the tree of that version has no such file
    gone: dict = field(default_factory=dict)
    # differences from the pristine method the series states: reason ->
    # predicate(row, result, old result) that says a row is one of them
    stated: dict = field(default_factory=dict)
    # rows the pristine method must not read (a bug the series fixes
    # would hang or crash it): predicate(row)
    old_skip: object = None


HARNESSES = [
    Harness("isapnp_proc_bus_read", "isapnp",
            ["drivers/pnp/isapnp/proc.c: isapnp_proc_bus_read"],
            stated=IGNORED_FAULTS,
            # "int pos = *ppos" negative: the old loop runs from it up to
            # register 256, up to 2^31 reads of an 8-bit index
            old_skip=lambda row: row.pos & 0xffffffff >= 2**31),
    Harness("proc_bus_pci_read", "pci",
            ["drivers/pci/proc.c: proc_bus_pci_read"], stated=IGNORED_FAULTS),
    Harness("simple_read_from_buffer_iter", "libfs",
            ["fs/libfs.c: simple_read_from_buffer_iter"],
            FileModel(negative=(-EINVAL,))),
    Harness("proc_bus_zorro_read", "zorro",
            ["drivers/zorro/proc.c: proc_bus_zorro_read"], stated=PARTIAL_COPY),
    Harness("atags_read", "atags", ["arch/arm/kernel/atags_proc.c: atags_read"]),
    Harness("bootinfo_read", "bootinfo",
            ["arch/m68k/kernel/bootinfo_proc.c: bootinfo_read"]),
    Harness("hostap_proc", "hostap",
            ["drivers/net/wireless/intersil/hostap/hostap_proc.c: "
             "prism2_pda_proc_read",
             "drivers/net/wireless/intersil/hostap/hostap_proc.c: "
             "prism2_aux_dump_proc_no_read"],
            gone={(6, 12): "drivers/net/wireless/intersil/hostap/ is not in "
                           "6.12 (the driver was removed), nor v4's patches "
                           "0044 and 0063"}),
    Harness("airo_proc_read", "airo",
            ["drivers/net/wireless/cisco/airo.c: proc_read"],
            per_variant={"rbuffer-NULL": FileModel(kind="error",
                                                   error=EINVAL)},
            gone={(6, 12): "drivers/net/wireless/cisco/airo.c is not in 6.12 "
                           "(the driver was removed), nor v4's patch 0062"}),
    Harness("capi_empty_read", "capi",
            ["drivers/isdn/capi/kcapi_proc.c: empty_read"]),
    Harness("proc_dev_atm_read", "atm",
            ["net/atm/proc.c: proc_dev_atm_read"], FileModel(kind="record"),
            per_variant={"no-proc_read": FileModel(kind="record-einval")}),
    Harness("read_profile", "profile", ["kernel/profile.c: read_profile"],
            FileModel(negative=(-EINVAL,)), stated=PARTIAL_COPY_32),
    Harness("kpm_read", "kpage",
            ["fs/proc/page.c: kpagecount_read",
             "fs/proc/page.c: kpageflags_read",
             "fs/proc/page.c: kpagecgroup_read"],
            FileModel(kind="entries8"), stated=PARTIAL_COPY_32),
    Harness("proc_read_simdisk", "simdisk",
            ["arch/xtensa/platforms/iss/simdisk.c: proc_read_simdisk"]),
    Harness("salinfo", "salinfo",
            ["arch/ia64/kernel/salinfo.c: salinfo_log_read",
             "arch/ia64/kernel/salinfo.c: salinfo_event_read"],
            per_variant={
                "event-cpu2": FileModel(kind="message"),
                "event-offline-cpu": FileModel(kind="message"),
                "event-none-nonblock": FileModel(kind="error",
                                                 error=EAGAIN),
                "event-none-nowait": FileModel(kind="error",
                                               error=EAGAIN),
                "event-cpu2-nowait": FileModel(kind="error",
                                               error=EAGAIN),
                "event-cpu2-nowait-nonblock": FileModel(kind="message")},
            gone={(6, 12): "arch/ia64/ is not in 6.12 (removed in 6.7), nor "
                           "v4's patches 0076 and 0083"}),
    Harness("rtas_flash", "rtas_flash",
            ["arch/powerpc/kernel/rtas_flash.c: rtas_flash_read_msg",
             "arch/powerpc/kernel/rtas_flash.c: rtas_flash_read_num",
             "arch/powerpc/kernel/rtas_flash.c: manage_flash_read",
             "arch/powerpc/kernel/rtas_flash.c: validate_flash_read"]),
    Harness("rtas_log_read", "rtasd",
            ["arch/powerpc/kernel/rtasd.c: rtas_log_read"],
            FileModel(kind="fixed"),
            per_variant={"none-nonblock": FileModel(kind="fixed", error=EAGAIN),
                         "none-logging-off": FileModel(kind="fixed",
                                                       error=ENODATA)},
            stated=FAULT_FIRST),
    Harness("cache_read", "sunrpc",
            ["net/sunrpc/cache.c: cache_read, cache_read_procfs"],
            FileModel(kind="upcall"), stated=PARTIAL_COPY),
    Harness("kmsg_read", "kmsg",
            ["fs/proc/kmsg.c: kmsg_read",
             "kernel/printk/printk.c: do_syslog_read_iter, syslog_print"],
            FileModel(kind="syslog"),
            per_variant={"empty-nonblock": FileModel(kind="error", error=EAGAIN)},
            stated=NULL_EFAULT),
    Harness("kfifo_bytestream", "kfifo_bytes",
            ["samples/kfifo/bytestream-example.c: fifo_read"],
            FileModel(kind="fifo"), stated=PARTIAL_COPY),
    Harness("kfifo_inttype", "kfifo_int",
            ["samples/kfifo/inttype-example.c: fifo_read"],
            FileModel(kind="fifo", esize=4), stated=PARTIAL_COPY),
    Harness("kfifo_record", "kfifo_rec",
            ["samples/kfifo/record-example.c: fifo_read"],
            FileModel(kind="fifo-record")),
    Harness("snd_info_entry_read", "alsa",
            ["sound/core/info.c: snd_info_entry_read",
             "sound/core/memory.c: copy_to_iter_fromio",
             "sound/pci/cs4281.c: snd_cs4281_BA0_read",
             "sound/pci/cs4281.c: snd_cs4281_BA1_read",
             "sound/pci/cs46xx/cs46xx_lib.c: snd_cs46xx_io_read",
             "sound/pci/emu10k1/emuproc.c: snd_emu10k1_fx8010_read",
             "sound/isa/gus/gus_mem_proc.c: snd_gf1_mem_proc_dump",
             "sound/isa/gus/gus_dram.c: snd_gus_dram_read, "
             "snd_gus_dram_peek"],
            FileModel(policy="efault", negative=(-EIO,),
                      invalid_count_ret=-EIO)),
    Harness("snd_mixart_BA0_BA1_read", None,
            ["sound/pci/mixart/mixart.c: snd_mixart_BA0_read",
             "sound/pci/mixart/mixart.c: snd_mixart_BA1_read"],
            skip="rounds every count down to a multiple of 4 (a 1-3 byte "
                 "read returns 0, which reads as EOF), before and after the "
                 "series; the copy is copy_to_iter_fromio(), harnessed with "
                 "cs4281"),
    Harness("snd_opl4_mem_proc_read", None,
            ["sound/drivers/opl4/opl4_proc.c: snd_opl4_mem_proc_read"],
            skip="vmalloc + snd_opl4_read_memory() + copy_to_iter() of the "
                 "count snd_info_entry_read() clipped; the wiring is that "
                 "of the harnessed ALSA entries, the chip access is not "
                 "modelled"),
    Harness("page_map_read", "systemcfg",
            ["arch/powerpc/kernel/proc_powerpc.c: page_map_read"]),
]


def tree_default():
    cache = os.environ.get("SETFS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "setfs-probe")
    # the default base's tree (bases/6.12.toml)
    return os.path.join(cache, "6.12", "linux")


def tree_version(tree):
    """(VERSION, PATCHLEVEL) of the tree's top Makefile."""
    with open(os.path.join(tree, "Makefile"), encoding="utf-8",
              errors="replace") as f:
        text = f.read()
    v = re.search(r"^VERSION\s*=\s*(\d+)", text, re.M)
    p = re.search(r"^PATCHLEVEL\s*=\s*(\d+)", text, re.M)
    if not v or not p:
        raise OSError("%s/Makefile: no VERSION and PATCHLEVEL" % tree)
    return int(v.group(1)), int(p.group(1))


def has_seg_core(tree):
    with open(os.path.join(tree, SEG_CORE[0]), encoding="utf-8",
              errors="replace") as f:
        return re.search(r"^static ssize_t %s\(" % SEG_CORE[2], f.read(),
                         re.M) is not None


def pristine_reader(tree):
    """A function PATH -> the text of PATH at the tree's pristine tag, or
    None when the tree has no such tag (not a prepared tree)."""
    r = subprocess.run(["git", "-C", tree, "rev-parse", "-q", "--verify",
                        PRISTINE + "^{commit}"], capture_output=True, text=True)
    if r.returncode:
        return None

    def read(path):
        r = subprocess.run(["git", "-C", tree, "show", "%s:%s" % (PRISTINE, path)],
                           capture_output=True, text=True, errors="replace")
        if r.returncode:
            raise OSError("%s:%s: %s" % (PRISTINE, path, r.stderr.strip()))
        return r.stdout
    return read


def extract_old(text, kind, name, path):
    """The pristine function NAME renamed old_NAME (its definition only)."""
    if kind != "func":
        raise extract.ExtractError("uh-extract-old takes functions only, not %s %s"
                                   % (kind, name))
    body = extract.extract(text, kind, name, "%s:%s" % (PRISTINE, path))
    renamed, n = re.subn(r"\b%s(\s*\()" % name, "old_%s\\1" % name, body, count=1)
    if not n:
        raise extract.ExtractError("%s: no definition of %s to rename" % (path, name))
    return renamed


def expand(fixture_text, tree, fixture_path="fixture", version=None, old=None):
    """The fixture with each uh-extract line replaced by the tree's text
    (a line for another version of the tree by nothing), and each
    uh-extract-old line by the pristine text read by OLD (nothing
    without it)."""
    out = []
    lineno = 0
    version = version or tree_version(tree)
    for line in fixture_text.splitlines(keepends=True):
        lineno += 1
        mi = MARK_INCLUDE.match(line)
        if mi:
            ipath = os.path.join(os.path.dirname(fixture_path), mi.group(1))
            try:
                with open(ipath, encoding="utf-8") as f:
                    itext = f.read()
            except OSError as e:
                raise extract.ExtractError("%s:%d: uh-include: %s"
                                           % (fixture_path, lineno, e))
            if any(MARK_INCLUDE.match(ln) for ln in itext.splitlines()):
                raise extract.ExtractError("%s: an included file includes no other"
                                           % ipath)
            out.append('#line 1 "%s"\n' % ipath)
            out.append(expand(itext, tree, ipath, version, old))
            out.append('#line %d "%s"\n' % (lineno + 1, fixture_path))
            continue
        mo = MARK_OLD.match(line)
        if mo:
            if old:
                path, kind, name = mo.groups()
                out.append(extract_old(old(path), kind, name, path))
                out.append('#line %d "%s"\n' % (lineno + 1, fixture_path))
            else:
                out.append("\n")
            continue
        m = MARK.match(line)
        if not m:
            out.append(line)
            continue
        before, major, minor, path, kind, name = m.groups()
        if major is not None:
            want = (int(major), int(minor))
            if (version < want) != bool(before):
                out.append("\n")
                continue
        with open(os.path.join(tree, path), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
        out.append(extract.extract(text, kind, name, path))
        out.append('#line %d "%s"\n' % (lineno + 1, fixture_path))
    return "".join(out)


def build(h, tree, workdir, bits=64):
    """Compile harness h for a BITS-bit build; return (binary, None, seg,
    old) or (None, error text, seg, old): seg when the tree has series
    v5's per-segment core, old when the binary reads the rows with the
    pristine methods too."""
    try:
        version = tree_version(tree)
        fpath = os.path.join(HERE, "fixtures", h.fixture + ".c")
        with open(fpath, encoding="utf-8") as f:
            fixture_text = f.read()
        old = pristine_reader(tree) if any(
            MARK_OLD.match(ln) for ln in fixture_text.splitlines()) else None
        unit = expand(fixture_text, tree, fpath, version, old)
        with open(os.path.join(tree, LIBFS[0]), encoding="utf-8") as f:
            libfs = '#include "uh.h"\n' + extract.extract(
                f.read(), LIBFS[1], LIBFS[2], LIBFS[0])
        seg = has_seg_core(tree)
        if seg:
            with open(os.path.join(tree, SEG_CORE[0]), encoding="utf-8") as f:
                libfs += extract.extract(f.read(), SEG_CORE[1], SEG_CORE[2],
                                         SEG_CORE[0])
            libfs += ("\nssize_t uh_read_seg(struct kiocb *iocb, "
                      "struct iov_iter *iter)\n{\n\treturn %s(iocb, iter);"
                      "\n}\n" % SEG_CORE[2])
        if old:
            libfs += extract_old(old(LIBFS[0]), "func", "simple_read_from_buffer",
                                 LIBFS[0]).replace("old_simple_read_from_buffer",
                                                   "simple_read_from_buffer", 1)
    except (OSError, extract.ExtractError) as e:
        return None, "extraction failed: %s" % e, False, False
    flags = ["-DUH_LINUX=%#06x" % (version[0] << 8 | version[1])]
    if old:
        flags.append("-DUH_OLD=1")
    if seg:
        flags.append("-DUH_SEG_CORE=1")
    with open(os.path.join(HERE, "uh_main.c"), encoding="utf-8") as f:
        main_c = f.read()
    with open(os.path.join(HERE, "uh.h"), encoding="utf-8") as f:
        uh_h = f.read()
    cc = BUILDS[bits]
    key = hashlib.sha256("\0".join(
        [unit, libfs, main_c, uh_h, " ".join(cc + CFLAGS + flags)]).encode()).hexdigest()
    d = os.path.join(workdir, subtest_name(h, bits))
    os.makedirs(d, exist_ok=True)
    binary = os.path.join(d, "uh-" + key[:16])
    if os.path.exists(binary):
        return binary, None, seg, bool(old)
    for name, text in (("unit.c", unit), ("libfs.c", libfs)):
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)
    cmd = [*cc, *CFLAGS, *flags, "-I", HERE, "-o", binary + ".tmp",
           os.path.join(HERE, "uh_main.c"), os.path.join(d, "libfs.c"),
           os.path.join(d, "unit.c")]
    r = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
    if r.returncode:
        return None, "%s failed:\n%s" % (cc[0], r.stderr), seg, bool(old)
    os.replace(binary + ".tmp", binary)
    for name in os.listdir(d):     # builds of older sources
        if name.startswith("uh-") and name != os.path.basename(binary):
            os.unlink(os.path.join(d, name))
    return binary, None, seg, bool(old)


def parse_info(text):
    """variant list [(name, image bytes, records)] from "uh info"."""
    variants = []
    for line in text.splitlines():
        parts = line.split(" ")
        if parts[0] == "variant":
            variants.append([parts[2], b"", []])
        elif parts[0] == "image":
            variants[-1][1] = bytes.fromhex(parts[1] if len(parts) > 1
                                            else "")
        elif parts[0] == "record":
            variants[-1][2].append(bytes.fromhex(parts[1] if len(parts) > 1
                                                 else ""))
    return variants


def parse_run(text):
    """{row id: (result dict, other lines, status)} from "uh run"."""
    rows, cur, body = {}, None, []
    for line in text.splitlines():
        if line.startswith("begin "):
            cur, body = line[6:], []
        elif line.startswith("end ") and cur is not None:
            st = line.split(" ", 2)[2]
            res = {"warn": [], "out": b""}
            other = []
            for b in body:
                k, _, v = b.partition(" ")
                if k in ("ret", "pos", "adv", "wrote", "old_ret",
                         "old_pos") and re.fullmatch(r"-?\d+", v):
                    res[k] = int(v)
                elif k in ("out", "old_out") and re.fullmatch(r"[0-9a-f]*", v):
                    res[k] = bytes.fromhex(v)
                elif k == "warn":
                    res["warn"].append(v)
                elif b:
                    other.append(b)
            rows[cur] = (res, other, st)
            cur = None
        elif cur is not None:
            body.append(line)
    return rows


def sanitizer_summary(lines):
    """The lines of a sanitizer report worth a KTAP diagnostic."""
    keep = [ln for ln in lines
            if "ERROR: AddressSanitizer" in ln or "runtime error" in ln
            or "ERROR: LeakSanitizer" in ln or ln.startswith("SUMMARY")
            or re.match(r"\s*#0 ", ln) or "WRITE of size" in ln
            or "READ of size" in ln or "<== Memory access" in ln]
    return keep[:12] or lines[:12]


def wants_old(h, row, seg=True):
    """Whether the pristine method reads ROW too: rows that read(2),
    pread(2) and readv(2) can make (rw_verify_area() refuses a negative
    position and one whose end overflows; vfs_read() clips the count to
    MAX_RW_COUNT, which these rows do not exceed), less those the
    harness says the pristine method cannot take (h.old_skip).  Without
    series v5's per-segment core (series v4 on 6.1 reads a vector in one
    call, a change its messages state) only read(2) rows."""
    if row.itype not in ("u", "v") or (row.itype == "v" and not seg):
        return False
    count = row.count()
    if row.pos < 0 or count > model.MAX_RW_COUNT or \
            row.pos > model.LLONG_MAX - count:
        return False
    return not (h.old_skip and h.old_skip(row))


def old_differs(h, row, got, tally=None):
    """What the converted method returned that the pristine one, read as
    the VFS read it before the series, did not: the count, then for a
    count the position and the bytes it counts.  A difference the series
    states (h.stated) is not one."""
    if "old_ret" not in got or "ret" not in got:
        return []
    ret, oret = got["ret"], got["old_ret"]
    if ret != oret:
        what = "returned %d where the pristine method returned %d" % (ret, oret)
    elif ret >= 0 and got["pos"] != got["old_pos"]:
        what = "left the position at %d, the pristine method at %d" % (
            got["pos"], got["old_pos"])
    elif ret > 0 and got["out"][:ret] != got.get("old_out", b"")[:ret]:
        what = "counted other bytes than the pristine method"
    else:
        return []
    for reason, stated in h.stated.items():
        if stated(row, got):
            if tally is not None:
                tally[reason] = tally.get(reason, 0) + 1
            return []
    return ["differs from pristine: " + what]


RUNNERS = {}


def toolchain_missing(bits):
    """Why a BITS-bit harness cannot be built or run here, or None:
    builds an empty sanitized program and runs it, natively or, for an
    i386 one the host cannot exec, under qemu-i386 (RUNNERS[bits] is
    then the command prefix)."""
    cc = BUILDS[bits]
    pkgs = " ".join(PKGS[bits])
    if not shutil.which(cc[0]):
        return "%s is not installed (packages: %s)" % (cc[0], pkgs)
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "t.c"), os.path.join(d, "t")
        with open(src, "w", encoding="utf-8") as f:
            f.write("#include <stdio.h>\nint main(void) { return 0; }\n")
        r = subprocess.run([*cc, "-o", exe, src], capture_output=True, text=True)
        if r.returncode:
            return "%s cannot build a sanitized program (packages: %s): %s" % (
                " ".join(cc), pkgs,
                next((ln for ln in r.stderr.splitlines() if "error" in ln),
                     r.stderr.strip() or "?"))
        for prefix in ([], [QEMU_I386]) if bits == 32 else ([],):
            if prefix and not shutil.which(prefix[0]):
                continue
            try:
                if subprocess.run(prefix + [exe], capture_output=True,
                                  timeout=60).returncode == 0:
                    RUNNERS[bits] = prefix
                    return None
            except (OSError, subprocess.TimeoutExpired):
                pass
    return "this host cannot run the %d-bit program%s (packages: %s)" % (
        bits, ", natively or under " + QEMU_I386 if bits == 32 else "", pkgs)


def subtest_name(h, bits):
    """The KTAP subtest (and build directory) of harness h at BITS."""
    return h.name if bits == 64 else "%s-m%d" % (h.name, bits)


def run_harness(h, tree, workdir, keep, bits=64):
    """KTAP lines of the subtest, and (passed, failed, skipped)."""
    binary, err, seg, old = build(h, tree, workdir, bits)
    if not binary:
        return ["# " + ln for ln in err.splitlines()[:30]], (0, 1, 0), False
    env = dict(os.environ, **SAN_ENV)
    runner = RUNNERS.get(bits, [])
    info = subprocess.run(runner + [binary, "info"], capture_output=True, text=True,
                          env=env)
    if info.returncode:
        return (["# uh info failed: " + ln for ln in
                 (info.stdout + info.stderr).splitlines()[:30]],
                (0, 1, 0), False)
    variants = parse_info(info.stdout)
    rows = []
    for v, (vname, image, _recs) in enumerate(variants):
        rows += model.rows_for(v, vname, len(image), bits)
    feed = "".join(r.line(i, old and wants_old(h, r, seg))
                   for i, r in enumerate(rows))
    run = subprocess.run(runner + [binary, "run"], input=feed, capture_output=True,
                         text=True, env=env, errors="replace")
    results = parse_run(run.stdout)
    lines = ["1..%d" % len(rows)]
    tally, compared = {}, 0
    passed = failed = 0
    for i, r in enumerate(rows):
        vname, image, recs = variants[r.variant]
        fm = h.per_variant.get(vname, h.model)
        if fm.kind in ("record", "upcall", "fifo-record", "syslog"):
            fm = FileModel(**{**fm.__dict__, "records": recs})
        exp = model.expect_looped(fm, image, r) if seg and r.itype == "v" \
            else model.expect(fm, image, r)
        res = results.get(str(i))
        errs = []
        if res is None:
            errs = ["no result (runner: %s)" % run.stderr.strip()[:200]]
            other = []
        else:
            got, other, status = res
            if status != "exit 0":
                errs.append("child ended with %s" % status)
            if all(k in got for k in ("ret", "pos", "adv")):
                errs += model.check(exp, got)
            compared += "old_ret" in got
            errs += old_differs(h, r, got, tally)
            errs += ["stub: " + w for w in got["warn"]]
            errs += ["sanitizer: " + ln.strip() for ln in other
                     if "runtime error:" in ln][:1]
        if errs:
            failed += 1
            lines.append("not ok %d %s" % (i + 1, r.name))
            for e in errs:
                lines.append("# " + e)
            lines += ["# " + ln for ln in sanitizer_summary(other)] \
                if other else []
            if keep and other:
                os.makedirs(keep, exist_ok=True)
                fn = os.path.join(keep, "%s-%d.txt" % (subtest_name(h, bits), i + 1))
                with open(fn, "w", encoding="utf-8") as f:
                    f.write("row %d %s\nrow line: %s\n" % (
                        i + 1, r.name, r.line(i).strip()[:300]))
                    f.write("\n".join(other) + "\n")
                lines.append("# full report: " + fn)
        else:
            passed += 1
            lines.append("ok %d %s" % (i + 1, r.name))
    if compared:
        lines.append("# pristine method: %d of %d rows read by both, %d differ "
                     "as the series states" % (compared, len(rows),
                                               sum(tally.values())))
        for reason, n in sorted(tally.items()):
            lines.append("#   %d: %s" % (n, reason))
    elif old:
        lines.append("# pristine method: no row both read")
    if failed:
        bad = [ln.split(" ", 3)[3] for ln in lines if ln.startswith("not ok")]
        lines.append("# failed %s: %d of %d rows, e.g. %s" % (
            subtest_name(h, bits), failed, len(rows), ", ".join(bad[:4])))
    return lines, (passed, failed, 0), failed == 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", default=tree_default(),
                    help="the prepared kernel tree (default: %(default)s)")
    ap.add_argument("--only", help="comma-separated harness names")
    ap.add_argument("--keep", help="write each failing row's sanitizer "
                    "output to this directory")
    ap.add_argument("--work", help="build directory (default: a cache "
                    "directory next to the tree)")
    ap.add_argument("--list", action="store_true",
                    help="list the harnesses and the sites they cover")
    ap.add_argument("--bits", default="64,32",
                    help="word sizes to build for, comma-separated: 64 "
                    "(gcc) and 32 (clang -m32, as on i386); default "
                    "%(default)s")
    args = ap.parse_args(argv)
    try:
        bits = [int(b) for b in args.bits.split(",")]
    except ValueError:
        bits = []
    if not bits or any(b not in BUILDS for b in bits) or len(set(bits)) != len(bits):
        ap.error("--bits takes 64, 32 or 64,32, not %r" % args.bits)

    if args.list:
        for h in HARNESSES:
            state = "SKIP: " + h.skip if h.skip else "harness " + h.fixture
            for s in h.sites:
                print("%-28s %-70s %s" % (h.name, s, state))
        return 0
    selected = HARNESSES
    if args.only:
        names = args.only.split(",")
        unknown = set(names) - {h.name for h in HARNESSES}
        if unknown:
            ap.error("unknown harness: " + ", ".join(sorted(unknown)))
        selected = [h for h in HARNESSES if h.name in names]
    if not os.path.isfile(os.path.join(args.tree, LIBFS[0])):
        print("uharness: no kernel tree at %s" % args.tree, file=sys.stderr)
        return 2
    for b in bits:
        why = toolchain_missing(b)
        if why:
            print("uharness: no %d-bit build: %s" % (b, why), file=sys.stderr)
            return 2
    workdir = args.work or os.path.join(
        os.path.dirname(os.path.abspath(args.tree)), "uharness")
    os.makedirs(workdir, exist_ok=True)

    print("KTAP version 1")
    print("1..%d" % (len(selected) * len(bits)))
    tp = tf = ts = 0
    failures = []
    version = tree_version(args.tree)
    jobs = [(h, b) for b in bits for h in selected]
    for n, (h, b) in enumerate(jobs, 1):
        name = subtest_name(h, b)
        skip = h.skip or h.gone.get(version)
        if skip:
            print("ok %d %s # SKIP %s" % (n, name, skip))
            ts += 1
            continue
        lines, (p, f, s), ok = run_harness(h, args.tree, workdir, args.keep, b)
        if not ok:
            failures.append((h, next((ln for ln in lines
                                      if ln.startswith("# failed ")),
                                     "# failed %s: %s" % (name,
                                                          lines[0][2:]))))
        print("    KTAP version 1")
        print("    # Subtest: %s" % name)
        for ln in lines:
            print("    " + ln)
        print("%s %d %s" % ("ok" if ok else "not ok", n, name))
        sys.stdout.flush()
        tp, tf, ts = tp + p, tf + f, ts + s
    for h, summary in failures:
        print(summary)
    print("# uharness: tree %s" % args.tree)
    print("%d passed, %d failed, %d skipped" % (tp, tf, ts))
    return 1 if tf else 0


if __name__ == "__main__":
    sys.exit(main())
