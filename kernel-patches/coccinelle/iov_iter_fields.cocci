// SPDX-License-Identifier: GPL-2.0
/// Find direct accesses to the fields of a struct iov_iter.
///
/// The fields of struct iov_iter (iter_type, count, iov_offset, nr_segs,
/// and the union of iov, kvec, bvec, xarray, pipe and ubuf) belong to
/// <linux/uio.h> and lib/iov_iter.c: mainline renamed iov to __iov in 6.4
/// (read it with iter_iov()) and changes the layout from release to
/// release.  Everything else uses the helpers: iov_iter_count(),
/// iov_iter_is_pipe(), iter_is_ubuf(), iter_is_iovec(), iov_iter_rw(),
/// user_backed_iter(), iov_iter_advance(), ...  A user buffer in a
/// user-backed iov_iter has already passed access_ok() when the iov_iter
/// was set up (import_single_range(), import_iovec(), iov_iter_ubuf() after
/// the caller's check), so there is no need to look at it.
///
/// The accessed expression must be known to spatch as a struct iov_iter or
/// a pointer to one (parameters, locals and globals declared so in the
/// file, and fields of structures defined in the file).
///
// Confidence: High
// Options: --no-includes --include-headers
//
// Report (one line per access, "file:line: iov_iter_fields: ..."):
//   spatch -D report --very-quiet --no-includes --include-headers \
//          --sp-file kernel-patches/coccinelle/iov_iter_fields.cocci FILE...
// include/linux/uio.h and lib/iov_iter.c are the owners of the fields and
// are skipped.

virtual report

@initialize:python@
@@
import re

OWNERS = ("include/linux/uio.h", "lib/iov_iter.c")
found = {}

def emit(p, i, f, op):
	if p[0].file.endswith(OWNERS):
		return
	k = (p[0].file, int(p[0].line), int(p[0].column))
	i = re.sub(r"\s*(->|\.)\s*|(?<=[*&]) ", r"\1", str(i))
	found[k] = "%s:%s: iov_iter_fields: %s%s%s: direct access to a struct iov_iter field; use the <linux/uio.h> helpers" % (p[0].file, p[0].line, i, op, f)

@ptr depends on report@
{struct iov_iter *, const struct iov_iter *} i;
identifier f;
position p;
@@

 i->f@p

@script:python depends on ptr@
i << ptr.i;
f << ptr.f;
p << ptr.p;
@@
emit(p, i, f, "->")

@val depends on report@
{struct iov_iter, const struct iov_iter} i;
identifier f;
position p;
@@

 i.f@p

@script:python depends on val@
i << val.i;
f << val.f;
p << val.p;
@@
emit(p, i, f, ".")

@finalize:python depends on report@
@@
for k in sorted(found):
	print(found[k])
