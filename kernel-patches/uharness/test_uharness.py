# SPDX-License-Identifier: GPL-2.0
"""Unit tests of uharness: python3 -m unittest (in this directory)."""

import io
import os
import shutil
import subprocess
import tempfile
import unittest
from contextlib import redirect_stdout

import extract
import model
import uharness
from model import EFAULT, EINVAL, FileModel, Row, Seg

SRC = r'''
#include <linux/uio.h>
#define ONE 1
#define TWO(x) \
	((x) + \
	 ONE)

/* a comment with foo_read(x) { in it */
static ssize_t foo_read(struct kiocb *iocb, struct iov_iter *to);

struct packed_thing {
	int a;
	char b[4];
} __packed;

static const char *s = "foo_read(struct kiocb *iocb) { not code }";

static ssize_t
foo_read(struct kiocb *iocb, struct iov_iter *to)
{
	char c = '}';
	/* } */
#if defined(X)
	if (c) {
#else
	if (!c) {
#endif
		return 1;
	}
	return bar(foo_read);
}

enum colour { RED, GREEN };

int baz(void) { return foo_read(0, 0); }
'''


class BlankTest(unittest.TestCase):
    def test_same_length_and_lines(self):
        b = extract.blank(SRC)
        self.assertEqual(len(b), len(SRC))
        self.assertEqual(b.count("\n"), SRC.count("\n"))

    def test_comments_strings_directives_gone(self):
        b = extract.blank(SRC)
        self.assertNotIn("comment", b)
        self.assertNotIn("not code", b)
        self.assertNotIn("#define", b)
        self.assertNotIn("#if", b)
        self.assertNotIn("'}'", b)
        self.assertIn("static ssize_t\nfoo_read(", b)


class FindTest(unittest.TestCase):
    def test_definition_not_prototype_or_call(self):
        text = extract.extract(SRC, "func", "foo_read", "x.c")
        first, body = text.split("\n", 1)
        want = SRC.count("\n", 0, SRC.index("static ssize_t\nfoo_read")) + 1
        self.assertEqual(first, '#line %d "x.c"' % want)
        self.assertTrue(body.startswith("static ssize_t\nfoo_read(struct"))
        self.assertTrue(body.rstrip().endswith("return bar(foo_read);\n}"))
        # The directives inside the body stay in the extracted text.
        self.assertIn("#else", body)

    def test_one_line_function(self):
        self.assertIn("int baz(void) { return foo_read(0, 0); }",
                      extract.extract(SRC, "func", "baz"))

    def test_struct_with_attribute(self):
        text = extract.extract(SRC, "struct", "packed_thing")
        self.assertTrue(text.rstrip().endswith("} __packed;"))

    def test_enum(self):
        self.assertIn("enum colour { RED, GREEN };",
                      extract.extract(SRC, "enum", "colour"))

    def test_macro_with_continuations(self):
        text = extract.extract(SRC, "macro", "TWO")
        self.assertTrue(text.rstrip().endswith("ONE)"))
        self.assertIn("#define ONE 1",
                      extract.extract(SRC, "macro", "ONE"))

    def test_missing(self):
        with self.assertRaisesRegex(extract.ExtractError, "not found"):
            extract.find(SRC, "func", "nosuch")
        with self.assertRaisesRegex(extract.ExtractError, "not found"):
            extract.find(SRC, "struct", "foo_read")

    def test_ambiguous(self):
        two = "int f(void)\n{\n}\n#ifdef A\nint f(void)\n{\n}\n#endif\n"
        with self.assertRaisesRegex(extract.ExtractError,
                                    "2 definitions .lines 1, 5."):
            extract.find(two, "func", "f")

    def test_nested_is_not_top_level(self):
        src = "void g(void)\n{\n\tstruct s { int a; } x;\n}\n"
        with self.assertRaises(extract.ExtractError):
            extract.find(src, "struct", "s")

    def test_unbalanced(self):
        with self.assertRaisesRegex(extract.ExtractError, "unbalanced"):
            extract.find("int f(void)\n{\n\tif (x) {\n", "func", "f")


class ExpandTest(unittest.TestCase):
    def test_marks_replaced_with_line_directives(self):
        tree = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tree)
        os.makedirs(os.path.join(tree, "d"))
        with open(os.path.join(tree, "d", "x.c"), "w") as f:
            f.write(SRC)
        fixture = "a\n// uh-extract: d/x.c func baz\nb\n"
        out = uharness.expand(fixture, tree, "/fx.c", (6, 12))
        self.assertIn('#line %d "d/x.c"\nint baz(void)'
                      % (SRC[:SRC.index("int baz")].count("\n") + 1), out)
        self.assertIn('#line 3 "/fx.c"\nb\n', out)
        self.assertNotIn("uh-extract", out)

    def test_marks_for_one_version(self):
        """uh-extract(6.12) only from a 6.12 or later tree, (<6.12) only
        from an earlier one; the other line is left empty (the line
        numbers stay) and its file is never opened."""
        tree = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tree)
        os.makedirs(os.path.join(tree, "d"))
        with open(os.path.join(tree, "d", "x.c"), "w") as f:
            f.write(SRC)
        with open(os.path.join(tree, "Makefile"), "w") as f:
            f.write("VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\n")
        fixture = ("// uh-extract(6.12): d/x.c func baz\n"
                   "// uh-extract(<6.12): d/gone.c func baz\nz\n")
        self.assertEqual(uharness.tree_version(tree), (6, 12))
        new = uharness.expand(fixture, tree, "/fx.c")
        self.assertIn("int baz(void)", new)
        self.assertTrue(new.endswith("\nz\n"))
        with self.assertRaises(FileNotFoundError):
            uharness.expand(fixture, tree, "/fx.c", (6, 1))
        swapped = ("// uh-extract(6.12): d/gone.c func baz\n"
                   "// uh-extract(<6.12): d/x.c func baz\nz\n")
        old = uharness.expand(swapped, tree, "/fx.c", (6, 1))
        self.assertTrue(old.startswith("\n#line"))
        self.assertIn("int baz(void)", old)
        self.assertEqual(uharness.expand(swapped.replace("(<6.12)", "(<6.1)"),
                                         tree, "/fx.c", (6, 1)), "\n\nz\n")

    def test_include(self):
        """uh-include: a fixture file's lines in place, extracted from
        the tree like the fixture's own; an included file includes no
        other, and a missing one names the fixture line."""
        tree = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tree)
        fx = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, fx)
        os.makedirs(os.path.join(tree, "d"))
        with open(os.path.join(tree, "d", "x.c"), "w") as f:
            f.write(SRC)
        with open(os.path.join(fx, "common.inc"), "w") as f:
            f.write("c1\n// uh-extract: d/x.c func baz\nc3\n")
        out = uharness.expand("a\n// uh-include: common.inc\nb\n", tree,
                              os.path.join(fx, "f.c"), (6, 12))
        self.assertIn('#line 1 "%s"\nc1\n' % os.path.join(fx, "common.inc"), out)
        self.assertIn("int baz(void)", out)
        self.assertIn('#line 3 "%s"\nc3\n' % os.path.join(fx, "common.inc"), out)
        self.assertIn('#line 3 "%s"\nb\n' % os.path.join(fx, "f.c"), out)
        self.assertNotIn("uh-", out)
        with open(os.path.join(fx, "nested.inc"), "w") as f:
            f.write("// uh-include: common.inc\n")
        with self.assertRaisesRegex(extract.ExtractError, "includes no other"):
            uharness.expand("// uh-include: nested.inc\n", tree,
                            os.path.join(fx, "f.c"), (6, 12))
        with self.assertRaisesRegex(extract.ExtractError, "f.c:2: uh-include"):
            uharness.expand("a\n// uh-include: gone.inc\n", tree,
                            os.path.join(fx, "f.c"), (6, 12))


IMG = bytes(range(100, 116))    # a 16-byte file


def row(pos, *segs, fault=-1, itype="u"):
    return Row("r", 0, pos, itype, [s if isinstance(s, Seg) else Seg(s)
                                    for s in segs], fault)


class LoopedTest(unittest.TestCase):
    """expect_looped(): do_loop_readv_writev()'s ->read once per segment."""

    def test_entries_segment_by_segment(self):
        fm = FileModel(kind="entries8")
        img = bytes(range(32))
        e = model.expect_looped(fm, img, row(0, 8, 8, itype="v"))
        self.assertEqual((e.rets, e.pos, e.out), ((16,), (16,), img[:16]))
        e = model.expect_looped(fm, img, row(8, 8, 0, 16, itype="v"))
        self.assertEqual((e.rets, e.pos, e.out), ((24,), (32,), img[8:]))
        # a segment that is not whole entries fails on its own
        e = model.expect_looped(fm, img, row(0, 8, 4, itype="v"))
        self.assertEqual((e.rets, e.pos, e.out), ((8,), (8,), img[:8]))
        e = model.expect_looped(fm, img, row(0, 4, 8, itype="v"))
        self.assertEqual((e.rets, e.pos), ((-EINVAL,), (0,)))

    def test_record_per_segment(self):
        """A record longer than the first segment: -EINVAL per segment,
        where one call for the vector would have returned the record."""
        fm = FileModel(kind="record", records=[b"abc\n", b"de\n"])
        v = row(0, 1, 40, itype="v")
        self.assertEqual(model.expect_looped(fm, b"", v).rets, (-EINVAL,))
        self.assertEqual(model.expect(fm, b"", v).rets, (4,))
        # each full segment takes a record; a short one ends the vector
        e = model.expect_looped(fm, b"", row(0, 4, 40, itype="v"))
        self.assertEqual((e.rets, e.pos, e.out), ((7,), (2,), b"abc\nde\n"))

    def test_error_after_bytes(self):
        """ALSA's -EFAULT after a full segment: the vector returns the
        bytes before it; what the failing call wrote is past them."""
        fm = FileModel(policy="efault")
        e = model.expect_looped(fm, IMG, row(0, 4, 8, fault=6, itype="v"))
        self.assertEqual((e.rets, e.pos, e.prefix_ok, e.floor, e.cap),
                         ((4,), (4,), True, 4, 6))
        self.assertEqual(model.check(e, {"ret": 4, "pos": 4, "adv": 4,
                                         "out": IMG[:3]}),
                         ["wrote 3 bytes, not a prefix of the 12 expected of "
                          "at least 4 and within the 6 the destination takes"])

    def test_empty_segments(self):
        """do_loop_readv_writev() loops while the iterator has bytes: an
        all-empty vector makes no call; an empty first segment gets one
        (of 0 bytes), and iov_iter_advance() skips every empty segment
        after a call.  A record fifo shows it: a 0-byte read drops a
        record (samples/kfifo/record-example.c, before and after)."""
        fm = FileModel(kind="fifo-record", records=[b"a", b"bb", b"ccc", b"d"])
        self.assertEqual(model.expect_looped(fm, b"", row(0, 0, 0, itype="v")).rets,
                         (0,))
        e = model.expect_looped(fm, b"", row(0, 0, 0, 2, itype="v"))
        self.assertEqual((e.rets, e.out), ((2,), b"bb"))
        # the empty segments in the middle make no call: no record lost
        e = model.expect_looped(fm, b"", row(0, 1, 0, 0, 2, 0, 3, itype="v"))
        self.assertEqual((e.rets, e.out), ((6,), b"abbccc"))

    def test_fifo_elements(self):
        """samples/kfifo: whole elements only, consumed as copied; the
        bytes of a partly copied int stay in the destination uncounted."""
        ints = FileModel(kind="fifo", esize=4)
        img = bytes(range(12))
        e = model.expect(ints, img, row(0, 7))
        self.assertEqual((e.rets, e.out, e.state), ((4,), img[:4], 4))
        e = model.expect(ints, img, row(0, 12, fault=6))
        self.assertEqual((e.rets, e.prefix_ok, e.floor, e.cap, e.state),
                         ((4,), True, 4, 6, 4))
        e = model.expect(ints, img, row(0, 12, fault=3))
        self.assertEqual((e.rets, e.state), ((-EFAULT,), 0))
        e = model.expect_looped(ints, img, row(5, 4, 4, 4, 4, itype="v"))
        self.assertEqual((e.rets, e.pos, e.out), ((12,), (5,), img))

    def test_syslog(self):
        """syslog_print(): whole records while they fit, else the front of
        the first; a faulting chunk is consumed, not counted."""
        fm = FileModel(kind="syslog", records=[b"<6>one\n", b"<4>two!\n"])
        e = model.expect(fm, b"", row(0, 100))
        self.assertEqual((e.rets, e.out, e.state), ((15,), b"<6>one\n<4>two!\n", 15))
        e = model.expect(fm, b"", row(0, 10))      # the second does not fit
        self.assertEqual((e.rets, e.out, e.state), ((7,), b"<6>one\n", 7))
        e = model.expect(fm, b"", row(0, 3))       # the front of the first
        self.assertEqual((e.rets, e.state), ((3,), 3))
        e = model.expect(fm, b"", row(0, 100, fault=9))
        self.assertEqual((e.rets, e.floor, e.cap, e.state), ((7,), 7, 9, 15))
        e = model.expect(fm, b"", row(0, 100, fault=0))    # nothing taken
        self.assertEqual((e.rets, e.state), ((-EFAULT,), 0))
        e = model.expect(fm, b"", row(0, 100, fault=2))    # taken, lost
        self.assertEqual((e.rets, e.state), ((-EFAULT,), 7))
        e = model.expect_looped(fm, b"", row(0, 3, 4, 100, itype="v"))
        self.assertEqual((e.rets, e.out), ((15,), b"<6>one\n<4>two!\n"))

    def test_fault_budget_carries(self):
        fm = FileModel()
        e = model.expect_looped(fm, IMG, row(0, 3, 3, 3, fault=5, itype="v"))
        self.assertEqual((e.rets, e.pos, e.out), ((5,), (5,), IMG[:5]))
        e = model.expect_looped(fm, IMG, row(0, 3, 3, fault=3, itype="v"))
        self.assertEqual((e.rets, e.pos, e.out), ((3,), (3,), IMG[:3]))


class ModelTest(unittest.TestCase):
    def test_capacity(self):
        self.assertEqual(row(0, 10).capacity(), 10)
        self.assertEqual(row(0, 0, 5, 0, 7, itype="v").capacity(), 12)
        self.assertEqual(row(0, Seg(8, 3), 100, itype="v").capacity(), 3)
        self.assertEqual(row(0, 0, Seg(5, 0), 9, itype="v").capacity(), 0)
        self.assertEqual(row(0, 100, fault=4).capacity(), 4)
        self.assertEqual(row(0, Seg(9, null=True)).capacity(), 0)
        self.assertEqual(row(0, 2**40).capacity(), model.MAP_MAX)

    def test_stream(self):
        fm = FileModel()
        e = model.expect(fm, IMG, row(3, 4))
        self.assertEqual((e.rets, e.pos, e.out), ((4,), (7,), IMG[3:7]))
        e = model.expect(fm, IMG, row(14, 2**31))
        self.assertEqual((e.rets, e.pos, e.out), ((2,), (16,), IMG[14:]))
        for pos in (16, 17, 2**31, 2**32, 2**63 - 1):
            e = model.expect(fm, IMG, row(pos, 4))
            self.assertEqual((e.rets, e.pos, e.out), ((0,), (pos,), b""))
        e = model.expect(fm, IMG, row(0, 0))
        self.assertEqual(e.rets, (0,))
        e = model.expect(fm, IMG, row(-1, 4))
        self.assertEqual((e.rets, e.pos), ((-EINVAL, 0), (-1,)))

    def test_stream_faults(self):
        fm = FileModel()
        e = model.expect(fm, IMG, row(0, 16, fault=0))
        self.assertEqual((e.rets, e.pos, e.out), ((-EFAULT,), (0,), b""))
        e = model.expect(fm, IMG, row(2, 16, fault=5))
        self.assertEqual((e.rets, e.pos, e.out), ((5,), (7,), IMG[2:7]))
        e = model.expect(FileModel(policy="efault"), IMG, row(2, 16, fault=5))
        self.assertEqual((e.rets, e.pos, e.prefix_ok, e.cap),
                         ((-EFAULT,), (2,), True, 5))

    def test_record(self):
        fm = FileModel(kind="record", records=[b"abc\n", b"de\n"])
        e = model.expect(fm, b"", row(1, 10))
        self.assertEqual((e.rets, e.pos, e.out), ((3,), (2,), b"de\n"))
        e = model.expect(fm, b"", row(0, 2))
        self.assertEqual((e.rets, e.pos), ((-EINVAL,), (0,)))
        e = model.expect(fm, b"", row(5, 2))
        self.assertEqual((e.rets, e.pos), ((0,), (6,)))
        e = model.expect(fm, b"", row(model.LLONG_MAX, 2))
        self.assertEqual(e.pos, (model.LLONG_MIN,))
        e = model.expect(fm, b"", row(0, 0))
        self.assertEqual((e.rets, e.pos), ((0,), (0,)))

    def test_check_finds_each_difference(self):
        exp = model.expect(FileModel(), IMG, row(0, 4))
        good = {"ret": 4, "pos": 4, "adv": 4, "out": IMG[:4]}
        self.assertEqual(model.check(exp, good), [])
        self.assertTrue(model.check(exp, {**good, "ret": 3}))
        self.assertTrue(model.check(exp, {**good, "pos": 5}))
        self.assertTrue(model.check(exp, {**good, "adv": 5}))
        bad = model.check(exp, {**good, "out": IMG[:3] + b"\0"})
        self.assertEqual(bad, ["byte 3 is 0x00, expected 0x67"])

    def test_rows_cover_the_edges(self):
        rows = model.rows_for(0, "v", 256)
        pos = {r.pos for r in rows}
        for p in (0, 255, 256, 2**31 - 1, 2**31, 2**32, 2**63 - 1, -1,
                  model.LLONG_MAX - 4096):
            self.assertIn(p, pos)
        counts = {r.count() for r in rows}
        for n in (0, 1, 256, 2**31, model.SIZE_MAX // 2):
            self.assertIn(n, counts)
        nsegs = {len(r.segs) for r in rows if r.itype == "v"}
        self.assertTrue({1, 2, 1024} <= nsegs)
        self.assertTrue(any(r.fault == 0 for r in rows))
        self.assertTrue(any(r.fault > 0 for r in rows))
        self.assertTrue(any(s.length == 0 for r in rows for s in r.segs))
        self.assertTrue(any(s.null for r in rows for s in r.segs))
        self.assertEqual(len({r.name for r in rows}), len(rows))

    def test_rows_of_a_32bit_build(self):
        """Every count fits in a 32-bit size_t (the runner refuses one
        that does not), the edges of that size_t are there, and the
        positions stay 64-bit."""
        rows = model.rows_for(0, "v", 256, 32)
        self.assertTrue(all(r.bits == 32 for r in rows))
        self.assertTrue(all(r.count() < 2**32 for r in rows))
        counts = {r.count() for r in rows}
        self.assertTrue({2**31 - 1, 2**31, model.MAX_RW_COUNT} <= counts)
        self.assertTrue({2**32, 2**32 + 1, 2**63 - 1} <= {r.pos for r in rows})
        self.assertEqual(len({r.name for r in rows}), len(rows))

    def test_alsa_valid_pos_by_word_size(self):
        """sound/core/info.c's valid_pos(): on 32-bit a position past
        LONG_MAX, a count past SSIZE_MAX or a wrapping end is refused
        (even past EOF); on 64-bit only a count past SSIZE_MAX."""
        alsa = model.FileModel(policy="efault", negative=(-model.EIO,),
                               invalid_count_ret=-model.EIO)
        for bits, pos, n, want in ((64, 2**31, 1, 0), (32, 2**31, 1, -model.EIO),
                                   (32, 2**31 - 1, 1, 0), (32, 0, 2**31, -model.EIO),
                                   (32, 2**31 - 2, 2**31 - 1, 0),
                                   (64, 0, 2**63, -model.EIO)):
            r = row(pos, n)
            r.bits = bits
            self.assertEqual(model.expect(alsa, IMG, r).rets, (want,),
                             (bits, pos, n))


class ParseTest(unittest.TestCase):
    def test_parse_run(self):
        text = ("begin 0\nret 3\npos 3\nadv 3\nwrote 3\nout 616263\n\n"
                "end 0 exit 0\nbegin 1\nret 0\nwarn x\n==1==ERROR: Addr\n"
                "\nend 1 exit 1\n")
        rows = uharness.parse_run(text)
        self.assertEqual(rows["0"][0]["out"], b"abc")
        self.assertEqual(rows["0"][2], "exit 0")
        self.assertEqual(rows["1"][0]["warn"], ["x"])
        self.assertEqual(rows["1"][1], ["==1==ERROR: Addr"])
        self.assertEqual(rows["1"][2], "exit 1")

    def test_parse_info(self):
        v = uharness.parse_info("variant 0 a 2\nimage 6162\nrecord 78\n"
                                "variant 1 b 0\nimage \n")
        self.assertEqual(v, [["a", b"ab", [b"x"]], ["b", b"", []]])


LIBFS_OK = r'''
ssize_t simple_read_from_buffer_iter(struct iov_iter *to, loff_t *ppos,
				     const void *from, size_t available)
{
	loff_t pos = *ppos;
	size_t n = iov_iter_count(to), copied;

	if (pos < 0)
		return -EINVAL;
	if (pos >= available || !n)
		return 0;
	if (n > available - pos)
		n = available - pos;
	copied = copy_to_iter(from + pos, n, to);
	if (!copied)
		return -EFAULT;
	*ppos = pos + copied;
	return copied;
}
'''


# the ->read side of a test tree's pristine commit
LIBFS_OLD = r'''
ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos,
				const void *from, size_t available)
{
	loff_t pos = *ppos;
	size_t left;

	if (pos < 0)
		return -EINVAL;
	if (pos >= available || !count)
		return 0;
	if (count > available - pos)
		count = available - pos;
	left = copy_to_user(to, from + pos, count);
	if (left == count)
		return -EFAULT;
	*ppos = pos + count - left;
	return count - left;
}
'''


# fs/proc/inode.c's per-segment read of series v5, as a test tree has it
SEG_OK = r'''
static ssize_t proc_reg_read_iter_seg(struct kiocb *iocb, struct iov_iter *iter)
{
	ssize_t ret = 0;

	if ((iocb->ki_flags & IOCB_NOWAIT) &&
	    !(iocb->ki_filp->f_flags & O_NONBLOCK))
		return -EAGAIN;
	if (!iov_iter_count(iter) &&
	    (!is_sync_kiocb(iocb) || (iocb->ki_flags & IOCB_NOWAIT)))
		return 0;
	if (!iter_is_iovec(iter))
		return proc_reg_read_iter(iocb, iter);
	while (iov_iter_count(iter)) {
		size_t len = iter_iov_len(iter);
		struct iov_iter seg;
		ssize_t nr;

		iov_iter_ubuf(&seg, ITER_DEST, iter_iov_addr(iter), len);
		nr = proc_reg_read_iter(iocb, &seg);
		if (nr < 0) {
			if (!ret)
				ret = nr;
			break;
		}
		ret += nr;
		iov_iter_advance(iter, nr);
		if (nr != len)
			break;
	}
	return ret;
}
'''


@unittest.skipUnless(shutil.which("gcc"), "needs gcc")
class EndToEndTest(unittest.TestCase):
    """The libfs harness on a two-file tree: right, then wrong."""

    def run_tree(self, body, core="/* no per-segment core (series v4) */\n",
                 pristine=None, bits="64"):
        """The harness on a tree with BODY in fs/libfs.c and CORE in
        fs/proc/inode.c; with PRISTINE, a git tree whose tag "pristine"
        has PRISTINE in fs/libfs.c (BODY follows it there); BITS as
        --bits takes it."""
        tree = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tree)
        os.makedirs(os.path.join(tree, "fs", "proc"))
        files = {"Makefile": "VERSION = 6\nPATCHLEVEL = 12\n",
                 "fs/libfs.c": body, "fs/proc/inode.c": core}
        if pristine is not None:
            git = ["git", "-C", tree, "-c", "user.name=t", "-c", "user.email=t@t"]
            subprocess.run(git[:3] + ["init", "-q"], check=True)
            for name, text in {**files, "fs/libfs.c": pristine}.items():
                with open(os.path.join(tree, name), "w") as f:
                    f.write(text)
            for args in (["add", "-A"], ["commit", "-qm", "pristine"],
                         ["tag", "pristine"]):
                subprocess.run(git + args, check=True)
            files["fs/libfs.c"] = pristine + body
        for name, text in files.items():
            with open(os.path.join(tree, name), "w") as f:
                f.write(text)
        out = io.StringIO()
        with redirect_stdout(out):
            rc = uharness.main(["--tree", tree, "--only",
                                "simple_read_from_buffer_iter", "--bits", bits,
                                "--work", os.path.join(tree, "work")])
        return rc, out.getvalue()

    def test_right_and_wrong(self):
        rc, out = self.run_tree(LIBFS_OK)
        self.assertEqual(rc, 0, out[-2000:])
        self.assertRegex(out, r"\n[1-9]\d* passed, 0 failed, 0 skipped\n")
        # pos advanced by what was asked, not by what was copied
        rc, out = self.run_tree(LIBFS_OK.replace("pos + copied", "pos + n"))
        self.assertEqual(rc, 1)
        self.assertIn("not ok 1 simple_read_from_buffer_iter", out)
        self.assertIn("fault@", out)
        # one byte too many: ASan sees the over-read of the heap buffer
        rc, out = self.run_tree(LIBFS_OK.replace("available - pos;",
                                                 "available - pos + 1;"))
        self.assertEqual(rc, 1)
        self.assertIn("heap-buffer-overflow", out)

    def test_differential(self):
        """With a pristine tag the pristine ->read reads the same rows,
        one call per segment, and any difference it shows fails the row
        unless the harness states it."""
        rc, out = self.run_tree(LIBFS_OK, SEG_OK, LIBFS_OLD)
        self.assertEqual(rc, 0, out[-2000:])
        self.assertRegex(out, r"# pristine method: [1-9]\d* of \d+ rows read by "
                              r"both, 0 differ as the series states")
        # an old side that said -EFAULT for a partial copy: the new one
        # (and the model) return the bytes, and nothing states it
        rc, out = self.run_tree(LIBFS_OK, SEG_OK, LIBFS_OLD.replace(
            "if (left == count)", "if (left)"))
        self.assertEqual(rc, 1)
        self.assertRegex(out, r"not ok \d+ buf4096/pos=0/n=4096/fault@1\n\s*"
                              r"# differs from pristine: returned 1 where the "
                              r"pristine method returned -14")

    def test_per_segment_core(self):
        """With series v5's core the expectation of a vector is that of
        ->read called once per segment, and IOCB_NOWAIT must be refused
        without calling the method."""
        rc, out = self.run_tree(LIBFS_OK, SEG_OK)
        self.assertEqual(rc, 0, out[-2000:])
        # counting the segment asked for, not what the call returned
        rc, out = self.run_tree(LIBFS_OK, SEG_OK.replace("ret += nr;",
                                                          "ret += len;"))
        self.assertEqual(rc, 1)
        self.assertRegex(out, r"not ok \d+ buf4096/pos=0/iov2\n"
                              r"\s*# ret 4104, expected 4096\n")
        # a method whose iterator runs one byte past what it returns:
        # the core drops that iterator, so each call is checked
        rc, out = self.run_tree(LIBFS_OK.replace(
            "\t*ppos = pos + copied;",
            "\tiov_iter_advance(to, 1);\n\t*ppos = pos + copied;"), SEG_OK)
        self.assertEqual(rc, 1)
        self.assertRegex(out, r"not ok \d+ buf4096/pos=1/iov1\n\s*# stub: a call "
                              r"returned 4095 but advanced its iterator by 4096")
        # io_uring's inline try reaching the method
        rc, out = self.run_tree(LIBFS_OK, SEG_OK.replace(
            "return -EAGAIN;", "(void)0;"))
        self.assertEqual(rc, 1)
        self.assertIn("IOCB_NOWAIT read:", out)


    @unittest.skipIf(uharness.toolchain_missing(32),
                     "no 32-bit build here: %s" % uharness.toolchain_missing(32))
    def test_32bit_narrowing(self):
        """A position kept in a long is right on 64-bit and wrong on
        32-bit, where 2^32 reads as 0: only the -m32 build sees it."""
        narrow = LIBFS_OK.replace("\tloff_t pos = *ppos;", "\tlong pos = *ppos;")
        rc, out = self.run_tree(narrow, bits="64")
        self.assertEqual(rc, 0, out[-2000:])
        rc, out = self.run_tree(LIBFS_OK, bits="32")
        self.assertEqual(rc, 0, out[-2000:])
        self.assertIn("# Subtest: simple_read_from_buffer_iter-m32", out)
        rc, out = self.run_tree(narrow, bits="32")
        self.assertEqual(rc, 1)
        self.assertRegex(out, r"not ok \d+ buf4096/pos=2\^32/n=1\n"
                              r"\s*# ret 1, expected 0\n")


if __name__ == "__main__":
    unittest.main()
