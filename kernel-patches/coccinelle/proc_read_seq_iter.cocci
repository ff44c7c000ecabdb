// SPDX-License-Identifier: GPL-2.0
/// Convert struct proc_ops initializers that use seq_read() as ->proc_read
/// to use seq_read_iter() as ->proc_read_iter.
///
/// seq_read() is a thin wrapper that builds a kiocb and an iov_iter and
/// calls seq_read_iter(), so ".proc_read = seq_read" can be replaced by
/// ".proc_read_iter = seq_read_iter" without a change in behaviour for
/// read(2), while readv(2), splice() and kernel_read() start working
/// without the ->proc_read fallback.
///
/// Only designated initializers of struct proc_ops are changed: scalar or
/// array, static or not, const or not, and a ".member.proc_read" designator
/// for a struct proc_ops member of a structure defined in the same file.
/// ".read = seq_read" in struct file_operations, ".proc_read" members of
/// other structures (struct atmdev_ops, ...) and proc_ops whose ->proc_read
/// is not seq_read() are left alone.
///
/// spatch does not rewrite the bodies of #define macros: convert
/// DEFINE_PROC_SHOW_ATTRIBUTE() in include/linux/seq_file.h and
/// PROC_FILE_DEFINE() in fs/smb/client/cifs_debug.c by hand.
///
// Confidence: High
// Comments: The type is matched on the declaration itself, so no type
//  information from headers is needed.  An initializer written on a single
//  line gets a line break after the changed member's preceding comma.
// Options: --no-includes --include-headers
//
// Run it from the top of the kernel tree:
//   spatch -D patch --sp-file kernel-patches/coccinelle/proc_read_seq_iter.cocci \
//          --no-includes --include-headers --in-place --dir .
// or only on given files (faster):
//   spatch -D patch --sp-file kernel-patches/coccinelle/proc_read_seq_iter.cocci \
//          --no-includes --in-place FILE...
// List the sites without changing anything:
//   spatch -D report --sp-file kernel-patches/coccinelle/proc_read_seq_iter.cocci \
//          --no-includes --include-headers --dir .
// (or "make coccicheck MODE=patch COCCI=<this file>" from a kernel tree.)

virtual patch
virtual report
virtual org
virtual context

// Only the field name and the value tokens are replaced, so the original
// whitespace (alignment tabs) between them is kept.

// static const struct proc_ops NAME = { ... };
@proc_ops_scalar depends on patch@
identifier ops;
symbol seq_read;
@@

 struct proc_ops ops = {
 	...,
 	.
-	proc_read
+	proc_read_iter
 	=
-	seq_read
+	seq_read_iter
 	, ...
 };

// static const struct proc_ops NAME[] = { { ... }, ... };
@proc_ops_array depends on patch@
identifier ops;
symbol seq_read;
@@

 struct proc_ops ops[] = {
 	...,
 	{
 	...,
 	.
-	proc_read
+	proc_read_iter
 	=
-	seq_read
+	seq_read_iter
 	, ...
 	}
 	, ...
 };

// static const struct proc_ops NAME[] = { [IDX] = { ... }, ... };
@proc_ops_array_idx depends on patch@
identifier ops;
expression idx;
symbol seq_read;
@@

 struct proc_ops ops[] = {
 	...,
 	[idx] = {
 	...,
 	.
-	proc_read
+	proc_read_iter
 	=
-	seq_read
+	seq_read_iter
 	, ...
 	}
 	, ...
 };

// struct S { ... struct proc_ops fld; ... };  (e.g. rtas_flash.c)
@holder@
identifier S, fld;
@@

 struct S { ... struct proc_ops fld; ... };

// static const struct S NAME = { .fld.proc_read = seq_read, ... };
@holder_scalar depends on patch@
identifier holder.S, holder.fld, var;
symbol seq_read;
@@

 struct S var = {
 	...,
 	.fld.
-	proc_read
+	proc_read_iter
 	=
-	seq_read
+	seq_read_iter
 	, ...
 };

// static const struct S NAME[] = { { .fld.proc_read = seq_read, ... }, ... };
@holder_array depends on patch@
identifier holder.S, holder.fld, var;
symbol seq_read;
@@

 struct S var[] = {
 	...,
 	{
 	...,
 	.fld.
-	proc_read
+	proc_read_iter
 	=
-	seq_read
+	seq_read_iter
 	, ...
 	}
 	, ...
 };

// ---------------------------------------------------------------------
// context mode: show the sites as a diff with '*' markers.

@c_scalar depends on context@
identifier ops;
symbol seq_read;
@@

 struct proc_ops ops = {
 	...,
*	.proc_read = seq_read
 	, ...
 };

@c_array depends on context@
identifier ops;
symbol seq_read;
@@

 struct proc_ops ops[] = {
 	...,
 	{
 	...,
*	.proc_read = seq_read
 	, ...
 	}
 	, ...
 };

// ---------------------------------------------------------------------
// report and org modes: one line per site.

@r_scalar depends on report || org@
identifier ops;
position p;
symbol seq_read;
@@

 struct proc_ops ops = {
 	...,
 	.proc_read = seq_read@p
 	, ...
 };

@r_array depends on report || org@
identifier ops;
position p;
symbol seq_read;
@@

 struct proc_ops ops[] = {
 	...,
 	{
 	...,
 	.proc_read = seq_read@p
 	, ...
 	}
 	, ...
 };

@script:python depends on report@
p << r_scalar.p;
ops << r_scalar.ops;
@@

coccilib.report.print_report(p[0],
	"WARNING: struct proc_ops %s: use .proc_read_iter = seq_read_iter instead of .proc_read = seq_read" % ops)

@script:python depends on report@
p << r_array.p;
ops << r_array.ops;
@@

coccilib.report.print_report(p[0],
	"WARNING: struct proc_ops %s[]: use .proc_read_iter = seq_read_iter instead of .proc_read = seq_read" % ops)

@script:python depends on org@
p << r_scalar.p;
ops << r_scalar.ops;
@@

coccilib.org.print_todo(p[0], "struct proc_ops %s: .proc_read = seq_read" % ops)

@script:python depends on org@
p << r_array.p;
ops << r_array.ops;
@@

coccilib.org.print_todo(p[0], "struct proc_ops %s[]: .proc_read = seq_read" % ops)
