# SPDX-License-Identifier: GPL-2.0
"""What a read must return: the semantics of the files, and the rows.

A row is one call of the converted method: a position, a destination (an
iterator type and segments, some of which fault) and the variant of the
fixture.  The expectation of a row depends only on the file's content (its
"image", printed by the fixture) and its kind:

stream    a file of len(image) bytes: a read at pos >= 0 copies
          image[pos:pos+count] clipped to the end, advances ki_pos by what
          it copied, returns 0 at or after the end and for count 0, and
          -EFAULT only when the destination took nothing;
          policy "efault" (ALSA data entries, as before the series and as
          mainline's copy_to_iter_fromio()): a short copy gives -EFAULT
          and leaves ki_pos alone, whatever reached the destination being
          a prefix of the right bytes.
record    one record per read (net/atm/proc.c): ki_pos is a record index,
          count 0 gives 0, the record must fit in count (else -EINVAL),
          ki_pos goes up by one on every other read, past the last record
          too (which reads as 0 bytes); a short copy is -EFAULT.
error     every read returns one error (airo without rbuffer: -EINVAL).
message   a message cut to the count, whatever the position, which stays
          (salinfo's event file); a short copy is -EFAULT.
fixed     one event of exactly len(image) bytes per read, consumed, the
          position neither used nor moved (/proc/powerpc/rtas/error_log):
          a count below it is -EINVAL; a destination that cannot take it
          all is -EFAULT before anything is consumed, nothing written;
          with an error set (no event: -EAGAIN, -ENODATA) that error for
          a read that passes both checks.
upcall    the pending upcalls of a SUNRPC cache channel (records, in the
          order a reader gets them): a read continues the one the reader
          is in and returns at most its rest, never two; the reader's
          place is state, not ki_pos (neither used nor moved); 0 with
          none left or for count 0; -EFAULT only when nothing was copied.
record-einval  a record file that has no records: 0 for count 0, else
          -EINVAL (an ATM device without ->proc_read).
entries8  an array of u64 entries (/proc/kpage*): a negative position, or
          a position or count that is not a multiple of 8, gives -EINVAL;
          else as stream, but only whole entries count: a short copy
          returns the whole entries copied (ki_pos advances by them, the
          iterator too), -EFAULT when not one was; the destination may
          hold the first bytes of the entry the copy stopped in.

A negative ki_pos cannot come from read(2) or pread(2) (rw_verify_area()
refuses it), but the method must still copy nothing and not move ki_pos;
each file says which return values it accepts (default -EINVAL or 0).
"""

from dataclasses import dataclass, field

EFAULT, EINVAL, EIO, EAGAIN, ENODATA = 14, 22, 5, 11, 61
ERESTARTSYS = 512       # a sleep a signal ended (the fixtures' only way out)
LLONG_MAX = 2**63 - 1
LLONG_MIN = -2**63
SIZE_MAX = 2**64 - 1     # of a 64-bit build; rows carry their word size
INT_MAX = 2**31 - 1
MAX_RW_COUNT = INT_MAX & ~4095
MAP_MAX = 1 << 18        # uh_main.c: writable bytes per segment at most
PAGE = 4096              # a bvec segment: one page (copy_splice_read())


@dataclass
class Seg:
    length: int
    mapped: int | None = None   # None: all of it; 0 with null: NULL base
    null: bool = False

    def spec(self):
        if self.null:
            return "%d@null" % self.length
        if self.mapped is None:
            return "%d" % self.length
        return "%d@%d" % (self.length, self.mapped)

    def writable(self):
        if self.null:
            return 0
        m = self.length if self.mapped is None else min(self.mapped,
                                                         self.length)
        return min(m, MAP_MAX)


@dataclass
class Row:
    name: str
    variant: int
    pos: int
    itype: str              # "u" (ITER_UBUF), "v" (ITER_IOVEC), "k" (ITER_KVEC),
                            # "b" (ITER_BVEC)
    segs: list
    fault: int = -1         # writes after this many bytes fault
    bits: int = 64          # the build's word size: size_t and long

    def count(self):
        return sum(s.length for s in self.segs)

    def capacity(self):
        """Bytes the destination takes before its first fault."""
        cap = 0
        for s in self.segs:
            if not s.length:
                continue
            w = s.writable()
            cap += w
            if w < s.length:
                break
        if self.fault >= 0:
            cap = min(cap, self.fault)
        return cap

    def line(self, rid, old=False):
        """The runner's row line; OLD: the type in capitals, so that the
        pristine method reads the row first (uh_main.c)."""
        return "%s %d %d %s %s %d\n" % (
            rid, self.variant, self.pos,
            self.itype.upper() if old else self.itype,
            ",".join(s.spec() for s in self.segs), self.fault)


@dataclass
class Expect:
    rets: tuple             # acceptable return values
    pos: tuple              # acceptable ki_pos after the call
    out: bytes = b""        # exact bytes, or the bytes a prefix is taken of
    prefix_ok: bool = False  # any prefix of out (of at most cap bytes) is fine
    cap: int = 0
    floor: int = 0           # with prefix_ok: at least this many bytes
    state: int = 0           # upcall: bytes the reader has consumed after


@dataclass
class FileModel:
    kind: str = "stream"
    policy: str = "partial"
    negative: tuple = (-EINVAL, 0)
    error: int = 0
    # sound/core/info.c's valid_pos() refuses with this: a position that
    # does not fit in long, a count above SSIZE_MAX, or an unsigned long
    # pos + count that wraps (all three only on 32-bit for read(2) rows)
    invalid_count_ret: int | None = None
    records: list = field(default_factory=list)
    esize: int = 1          # fifo: bytes per element


def wrap64(v):
    v &= 2**64 - 1
    return v - 2**64 if v >= 2**63 else v


def expect(model, image, row, state=0):
    """STATE: what earlier calls of the same readv(2) consumed (upcall)."""
    count, cap, pos = row.count(), row.capacity(), row.pos
    if model.kind == "error":
        return Expect((-model.error,), (pos,))
    if model.kind == "message":
        # The whole message cut to the count; the position is not used.
        n = min(len(image), count)
        if min(n, cap) < n:
            return Expect((-EFAULT,), (pos,), image[:n], True, cap)
        return Expect((n,), (pos,), image[:n])
    if model.kind == "upcall":
        i, off = 0, state
        while i < len(model.records) and off >= len(model.records[i]):
            off -= len(model.records[i])
            i += 1
        if count == 0 or i == len(model.records):
            return Expect((0,), (pos,), state=state)
        rec = model.records[i]
        took = min(count, len(rec) - off, cap)
        if took == 0:
            return Expect((-EFAULT,), (pos,), state=state)
        return Expect((took,), (pos,), rec[off:off + took], state=state + took)
    if model.kind == "fifo":
        # samples/kfifo: the elements from the front of the fifo, as many
        # as the count holds whole, consumed as they are copied; STATE is
        # the bytes earlier calls consumed; the position is not used.  A
        # short copy returns (and consumes) the whole elements copied,
        # -EFAULT when not one was; the bytes of a partly copied element
        # stay in the destination but are not counted.
        e = model.esize
        avail = image[state:]
        n = min(count // e, len(avail) // e) * e
        if n == 0:
            return Expect((0,), (pos,), state=state)
        copied = min(n, cap)
        whole = copied - copied % e
        if whole == 0:
            return Expect((-EFAULT,), (pos,), avail[:n], True, copied,
                          state=state)
        return Expect((whole,), (pos,), avail[:n], True, copied, whole,
                      state=state + whole)
    if model.kind == "fifo-record":
        # samples/kfifo/record-example.c: one record per read, cut to the
        # count (the rest of it dropped); a destination that cannot take
        # it is -EFAULT and the record stays.  STATE: records consumed.
        if state >= len(model.records):
            return Expect((0,), (pos,), state=state)
        rec = model.records[state]
        n = min(len(rec), count)
        if min(n, cap) < n:
            return Expect((-EFAULT,), (pos,), rec[:n], True, cap, state=state)
        return Expect((n,), (pos,), rec[:n], state=state + 1)
    if model.kind == "syslog":
        return _expect_syslog(model, row, state)
    if model.kind == "fixed":
        n = len(image)
        if count < n:
            return Expect((-EINVAL,), (pos,))
        if cap < n:
            return Expect((-EFAULT,), (pos,))
        if model.error:
            return Expect((-model.error,), (pos,))
        return Expect((n,), (pos,), image)
    if model.kind == "record-einval":
        # A record file whose device cannot format records.
        return Expect((0,) if count == 0 else (-EINVAL,), (pos,))
    if model.kind == "record":
        if count == 0:
            return Expect((0,), (pos,))
        rec = model.records[pos] if 0 <= pos < len(model.records) else b""
        if len(rec) > count:
            return Expect((-EINVAL,), (pos,))
        nxt = (wrap64(pos + 1),)
        if cap < len(rec):
            return Expect((-EFAULT,), nxt, rec, True, cap)
        return Expect((len(rec),), nxt, rec)
    if model.kind == "entries8":
        if pos < 0 or pos % 8 or count % 8:
            return Expect((-EINVAL,), (pos,))
        size = len(image)
        if count == 0 or pos >= size:
            return Expect((0,), (pos,))
        n = min(count, size - pos)
        took = min(n, cap)
        whole = took - took % 8
        want = image[pos:pos + n]
        if whole == 0:
            return Expect((-EFAULT,), (pos,), want, True, took)
        if whole == n:
            return Expect((n,), (pos + n,), want)
        return Expect((whole,), (pos + whole,), want, True, took, whole)
    if model.invalid_count_ret is not None and pos >= 0:
        long_max = 2**(row.bits - 1) - 1
        if pos > long_max or count > long_max or pos + count >= 2**row.bits:
            return Expect((model.invalid_count_ret,), (pos,))
    if pos < 0:
        return Expect(tuple(model.negative), (pos,))
    size = len(image)
    if count == 0 or pos >= size:
        return Expect((0,), (pos,))
    n = min(count, size - pos)
    copied = min(n, cap)
    want = image[pos:pos + n]
    if copied == 0:
        return Expect((-EFAULT,), (pos,))
    if model.policy == "efault" and copied < n:
        return Expect((-EFAULT,), (pos,), want, True, copied)
    return Expect((copied,), (pos + copied,), want[:copied])


def _expect_syslog(model, row, off):
    """kernel/printk/printk.c syslog_print() behind /proc/kmsg: from the
    reader's place OFF in the formatted log (MODEL.records, the first one
    from where an earlier read stopped in it), whole records while they
    fit, or the front of the first one when even that does not; a chunk
    whose copy faults is consumed and not counted (-EFAULT if nothing
    came before).  The converted read refuses a destination whose first
    byte cannot be written before it takes anything; with nothing logged
    it sleeps (the fixture's signal: -ERESTARTSYS)."""
    count, cap, pos = row.count(), row.capacity(), row.pos
    recs = model.records
    total = sum(len(r) for r in recs)
    if count == 0:
        return Expect((0,), (pos,), state=off)
    if cap == 0:
        return Expect((-EFAULT,), (pos,), state=off)
    if off >= total:
        return Expect((-ERESTARTSYS,), (pos,), state=off)
    size = min(count, 2**31 - 1)
    length = written = 0
    out = b""
    while size > 0:
        start, i = 0, 0
        while i < len(recs) and start + len(recs[i]) <= off:
            start += len(recs[i])
            i += 1
        if i == len(recs):
            break
        rest = recs[i][off - start:]
        if len(rest) <= size:
            take = len(rest)
        elif length == 0:
            take = size
        else:
            break
        off += take
        room = cap - written
        if room < take:
            return Expect((length if length else -EFAULT,), (pos,),
                          out + rest[:take], True, written + room, length,
                          state=off)
        out += rest[:take]
        written += take
        length += take
        size -= take
    return Expect((length,), (pos,), out, state=off)


def expect_looped(model, image, row):
    """A readv(2) vector as the VFS read it before the series, with one
    ->read call per segment (fs/read_write.c: do_loop_readv_writev()):
    a call of the segment's length at the position the last one left,
    until one fails (its error if nothing came before, else what came)
    or returns less than its segment.  Series v5's
    proc_reg_read_iter_seg() must give exactly this; a segment's call is
    expect() of a one-segment row, with what is left of the fault budget.
    """
    total, out, budget, state = 0, b"", row.fault, 0
    pos = row.pos
    left = row.count()
    for k, seg in enumerate(row.segs):
        if not left:
            break
        # an empty first segment gets its call (iter_iov_len() is 0);
        # iov_iter_advance() skips every empty segment after a call
        if k and not seg.length:
            continue
        e = expect(model, image, Row(row.name, row.variant, pos, "u", [seg],
                                     budget, row.bits), state)
        if len(e.rets) != 1 or len(e.pos) != 1:
            # several acceptable answers (a negative position, which a
            # vector row never has: rw_verify_area() refuses it): taken
            # as ending the vector
            if total:
                return Expect(tuple(dict.fromkeys(total + max(r, 0)
                                                  for r in e.rets)),
                              e.pos, out + e.out, True,
                              len(out) + max(e.cap, len(e.out)), len(out))
            return e
        ret = e.rets[0]
        last = ret < 0 or ret != seg.length
        if last and total:
            # the call that ends the vector: its error is not reported
            # once something came; what it wrote is in the destination
            return Expect((total + max(ret, 0),), e.pos, out + e.out,
                          True, len(out) + (e.cap if e.prefix_ok else len(e.out)),
                          len(out) + max(ret, 0))
        if last:
            return e
        total += ret
        out += e.out
        pos = e.pos[0]
        state = e.state
        if budget >= 0:
            budget -= ret
        left -= seg.length
    return Expect((total,), (pos,), out)


def check(exp, got):
    """Differences between an Expect and a result dict; [] if none."""
    errs = []
    if got["ret"] not in exp.rets:
        errs.append("ret %d, expected %s" % (
            got["ret"], " or ".join(map(str, exp.rets))))
    if got["pos"] not in exp.pos:
        errs.append("ki_pos %d, expected %s" % (
            got["pos"], " or ".join(map(str, exp.pos))))
    out = got["out"]
    if exp.prefix_ok:
        if len(out) > exp.cap or len(out) < exp.floor or \
                out != exp.out[:len(out)]:
            errs.append("wrote %d bytes, not a prefix of the %d expected"
                        " of at least %d and within the %d the destination"
                        " takes" % (len(out), len(exp.out), exp.floor,
                                    exp.cap))
    elif out != exp.out:
        if len(out) != len(exp.out):
            errs.append("wrote %d bytes, expected %d" % (len(out),
                                                          len(exp.out)))
        for i, (a, b) in enumerate(zip(out, exp.out)):
            if a != b:
                errs.append("byte %d is %#04x, expected %#04x" % (i, a, b))
                break
    if got["ret"] >= 0 and got["adv"] != got["ret"]:
        errs.append("returned %d but the iterator advanced by %d"
                    % (got["ret"], got["adv"]))
    return errs


_POWERS = {2**31 - 1: "2^31-1", 2**31: "2^31", 2**31 + 1: "2^31+1",
           2**32: "2^32", 2**32 + 1: "2^32+1", 2**32 + 8: "2^32+8",
           -2**31: "-2^31"}


def _pos(v):
    names = {**_POWERS, LLONG_MAX: "2^63-1", LLONG_MIN: "-2^63"}
    return names.get(v, str(v))


def _count(v, bits=64):
    names = {**_POWERS, MAX_RW_COUNT: "MAX_RW_COUNT",
             (2**bits - 1) // 2: "SIZE_MAX/2"}
    return names.get(v, str(v))


def rows_for(variant, vname, size, bits=64):
    """The hostile edges for one variant of a file of size bytes, for a
    build whose size_t has BITS bits (its counts must fit)."""
    rows = []
    s1 = max(size, 1)
    positions = [0, 1, 3, size - 1, size, size + 1, 2**31 - 1, 2**31,
                 2**31 + 1, 2**32, 2**32 + 1, 2**32 + 8, LLONG_MAX, -1,
                 -2**31, LLONG_MIN]
    positions = list(dict.fromkeys(positions))
    counts = [0, 1, s1, 4096, MAX_RW_COUNT, 2**31, (2**bits - 1) // 2]
    counts = list(dict.fromkeys(counts))
    for pos in positions:
        for n in counts:
            rows.append(Row("%s/pos=%s/n=%s" % (vname, _pos(pos),
                                                _count(n, bits)),
                            variant, pos, "u", [Seg(n)]))
    for n in counts:
        pos = LLONG_MAX - n
        rows.append(Row("%s/pos=LLONG_MAX-n/n=%s" % (vname, _count(n, bits)),
                        variant, pos, "u", [Seg(n)]))
    layouts = {
        "iov1": [Seg(s1)],
        "iov2": [Seg(1), Seg(s1 + 7)],
        "iov2-zero-first": [Seg(0), Seg(s1)],
        "iov3-zeros": [Seg(0), Seg(1), Seg(0)],
        "iov-all-zero": [Seg(0), Seg(0)],
        "iov1024-i%3": [Seg(i % 3) for i in range(1024)],
        "iov1024-zero-then-one": [Seg(0)] * 1023 + [Seg(s1)],
        "iov2-huge": [Seg(1), Seg(2**31)],
        # whole u64 entries: a full segment, then the next one
        "iov2-8-8": [Seg(8), Seg(8)],
        "iov3-8-0-16": [Seg(8), Seg(0), Seg(16)],
    }
    for pos in dict.fromkeys([0, 1, max(size - 1, 0), size, 2**31, 2**32]):
        for lname, segs in layouts.items():
            rows.append(Row("%s/pos=%s/%s" % (vname, _pos(pos), lname),
                            variant, pos, "v", segs))
    # Kernel destinations (kernel_read(), vfs_iter_read() with a kvec):
    # one call for the whole vector, which cannot fault.
    kvecs = {
        "kvec1": [Seg(s1)],
        "kvec2": [Seg(1), Seg(s1 + 7)],
        "kvec3-zeros": [Seg(0), Seg(1), Seg(0)],
    }
    for pos in dict.fromkeys([0, 1, max(size - 1, 0), size]):
        for lname, segs in kvecs.items():
            rows.append(Row("%s/pos=%s/%s" % (vname, _pos(pos), lname),
                            variant, pos, "k", segs))
    # Page arrays (ITER_BVEC), as copy_splice_read() builds them for
    # splice(2) and sendfile(2): whole pages, the last one partly used,
    # and a default pipe's 16 pages.  One call; no page can fault.
    bvecs = {
        "bvec-pages": [Seg(PAGE)] * (s1 // PAGE) + ([Seg(s1 % PAGE)] if s1 % PAGE else []),
        "bvec-pipe16": [Seg(PAGE)] * 16,
    }
    for pos in dict.fromkeys([0, 1, max(size - 1, 0), size]):
        for lname, segs in bvecs.items():
            rows.append(Row("%s/pos=%s/%s" % (vname, _pos(pos), lname),
                            variant, pos, "b", segs or [Seg(0)]))
    # Destinations that fault: at byte 0, at byte k, NULL, mid-vector.
    ks = sorted({0, 1, 2, 3, 5, s1 // 2, max(s1 - 1, 0)})
    for pos in dict.fromkeys([0, 1]):
        for k in ks:
            rows.append(Row("%s/pos=%s/n=%d/fault@%d" % (vname, pos, s1, k),
                            variant, pos, "u", [Seg(s1)], k))
        rows.append(Row("%s/pos=%s/n=%d/NULL" % (vname, pos, s1),
                        variant, pos, "u", [Seg(s1, 0, True)]))
        rows.append(Row("%s/pos=%s/iov[8@3,n]" % (vname, pos), variant, pos,
                        "v", [Seg(8, 3), Seg(s1)]))
        rows.append(Row("%s/pos=%s/iov[0,5@0,n]" % (vname, pos), variant,
                        pos, "v", [Seg(0), Seg(5, 0), Seg(s1)]))
        rows.append(Row("%s/pos=%s/iov1024-i%%3/fault@%d" % (vname, pos,
                                                             s1 // 3),
                        variant, pos, "v", [Seg(i % 3) for i in range(1024)],
                        s1 // 3))
    for r in rows:
        r.bits = bits
    return rows
