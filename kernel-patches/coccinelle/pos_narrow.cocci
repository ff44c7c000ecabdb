// SPDX-License-Identifier: GPL-2.0
/// Find a file position (iocb->ki_pos, *ppos, or a variable of type loff_t)
/// stored in an integer of 32 bits or fewer.
///
/// loff_t is 64 bits wide.  A position of 2^31 or more stored in an int
/// becomes negative, one of 2^32 or more stored in an unsigned int wraps,
/// so that a later "pos >= size" check passes and the narrowed value is
/// used as an offset into a buffer (v1's isapnp_proc_bus_read(): a kernel
/// stack overflow).  Keep the position in a loff_t and compare it with the
/// size first.  A store that every path reaches only past such a check,
/// "if (... pos >= size ...) return/goto/break/continue", is not reported.
///
/// Reported: "T x = P;", "T x = (T2)P;", "x = P" and "x = (T2)P" where T
/// (the type of x) is int,
/// unsigned int or another integer type of 32 bits or fewer (u32, s32,
/// u16, u8, short, char, ...) and P is exactly the position: E->ki_pos,
/// E.ki_pos, *ppos where ppos is a variable of type loff_t *, or a
/// variable of type loff_t.  Arithmetic on a position (pos & ~PAGE_MASK,
/// *pos - 1, *pos / n) is not reported, nor are long and size_t (32 bits
/// only on 32-bit architectures).
///
// Confidence: High for the reported sites.  spatch knows the type of a
//  variable declared in the file, and of a struct field only for structures
//  defined in the file (x->f = *ppos is otherwise not seen).
// Options: --no-includes --include-headers
//
// Report (one line per site, "file:line: pos_narrow: ..."):
//   spatch -D report --very-quiet --no-includes --include-headers \
//          --sp-file kernel-patches/coccinelle/pos_narrow.cocci FILE

virtual report

@initialize:python@
@@
NARROW = frozenset("""
int signed unsigned short char
u32 s32 u16 s16 u8 s8 __u32 __s32 __u16 __s16 __u8 __s8
uint32_t int32_t uint16_t int16_t uint8_t int8_t uint u_int u_short u_char
""".split())

def narrow(t):
	t = str(t)
	words = [w for w in t.split() if w not in ("const", "volatile")]
	return "*" not in t and bool(words) and all(w in NARROW for w in words)

found = {}

def note(p, e, t, x):
	e = "".join(str(e).split())
	x = "".join(str(x).split())
	found[(p[0].file, int(p[0].line), int(p[0].column))] = (
		"%s:%s: pos_narrow: %s stored in %s %s: a loff_t narrowed to 32 bits or fewer; keep it in a loff_t and compare it first"
		% (p[0].file, p[0].line, e, t, x))

// ---------------------------------------------------------------------
// Narrowing stores of a position.  The position is written out in each
// shape (a bare "T x = E" would also match every multi-declarator
// declaration, which spatch takes minutes over).  A store into a type
// that is not narrow is dropped here, so that the path checks below run
// only on the real ones.

@decl depends on report@
typedef loff_t;
type T, T2;
identifier x;
expression E1, E2;
idexpression loff_t *P;
idexpression loff_t L;
position p;
@@

(
 T x = \(E1->ki_pos@p\|(T2)E1->ki_pos@p\|E2.ki_pos@p\|(T2)E2.ki_pos@p\);
|
 T x = \(*P@p\|(T2)*P@p\);
|
 T x = \(L@p\|(T2)L@p\);
)

@script:python depends on decl@
t << decl.T;
@@
cocci.include_match(narrow(t))

@assign depends on report@
typedef loff_t;
type T, T2;
T x;
expression E1, E2;
idexpression loff_t *P;
idexpression loff_t L;
position p;
@@

(
 x = \(E1->ki_pos@p\|(T2)E1->ki_pos@p\|E2.ki_pos@p\|(T2)E2.ki_pos@p\)
|
 x = \(*P@p\|(T2)*P@p\)
|
 x = \(L@p\|(T2)L@p\)
)

@script:python depends on assign@
t << assign.T;
@@
cocci.include_match(narrow(t))

// ---------------------------------------------------------------------
// A store is reported when some path from the start of its function
// reaches it without passing "if (... E >= B ...) <leave>" (or E > B,
// B <= E, B < E), where <leave> is return, goto, break or continue, or a
// block that ends with one.  One rule per store and shape of E.

@g_decl_ki depends on report exists@
expression decl.E1;
expression B;
position decl.p;
identifier f, l;
@@

f(...) {
 ... when != if (<+... \(E1->ki_pos >= B\|E1->ki_pos > B\|B <= E1->ki_pos\|B < E1->ki_pos\) ...+>) \(return ...;\|goto l;\|break;\|continue;\)
     when != if (<+... \(E1->ki_pos >= B\|E1->ki_pos > B\|B <= E1->ki_pos\|B < E1->ki_pos\) ...+>) { ... \(return ...;\|goto l;\|break;\|continue;\) }
 E1->ki_pos@p
 ... when any
}

@script:python depends on g_decl_ki@
t << decl.T;
x << decl.x;
e << decl.E1;
p << decl.p;
@@
note(p, "%s->ki_pos" % e, t, x)

@g_decl_kidot depends on report exists@
expression decl.E2;
expression B;
position decl.p;
identifier f, l;
@@

f(...) {
 ... when != if (<+... \(E2.ki_pos >= B\|E2.ki_pos > B\|B <= E2.ki_pos\|B < E2.ki_pos\) ...+>) \(return ...;\|goto l;\|break;\|continue;\)
     when != if (<+... \(E2.ki_pos >= B\|E2.ki_pos > B\|B <= E2.ki_pos\|B < E2.ki_pos\) ...+>) { ... \(return ...;\|goto l;\|break;\|continue;\) }
 E2.ki_pos@p
 ... when any
}

@script:python depends on g_decl_kidot@
t << decl.T;
x << decl.x;
e << decl.E2;
p << decl.p;
@@
note(p, "%s.ki_pos" % e, t, x)

@g_decl_deref depends on report exists@
typedef loff_t;
idexpression loff_t *decl.P;
expression B;
position decl.p;
identifier f, l;
@@

f(...) {
 ... when != if (<+... \(*P >= B\|*P > B\|B <= *P\|B < *P\) ...+>) \(return ...;\|goto l;\|break;\|continue;\)
     when != if (<+... \(*P >= B\|*P > B\|B <= *P\|B < *P\) ...+>) { ... \(return ...;\|goto l;\|break;\|continue;\) }
 *P@p
 ... when any
}

@script:python depends on g_decl_deref@
t << decl.T;
x << decl.x;
e << decl.P;
p << decl.p;
@@
note(p, "*%s" % e, t, x)

@g_decl_var depends on report exists@
typedef loff_t;
idexpression loff_t decl.L;
expression B;
position decl.p;
identifier f, l;
@@

f(...) {
 ... when != if (<+... \(L >= B\|L > B\|B <= L\|B < L\) ...+>) \(return ...;\|goto l;\|break;\|continue;\)
     when != if (<+... \(L >= B\|L > B\|B <= L\|B < L\) ...+>) { ... \(return ...;\|goto l;\|break;\|continue;\) }
 L@p
 ... when any
}

@script:python depends on g_decl_var@
t << decl.T;
x << decl.x;
e << decl.L;
p << decl.p;
@@
note(p, e, t, x)

@g_assign_ki depends on report exists@
expression assign.E1;
expression B;
position assign.p;
identifier f, l;
@@

f(...) {
 ... when != if (<+... \(E1->ki_pos >= B\|E1->ki_pos > B\|B <= E1->ki_pos\|B < E1->ki_pos\) ...+>) \(return ...;\|goto l;\|break;\|continue;\)
     when != if (<+... \(E1->ki_pos >= B\|E1->ki_pos > B\|B <= E1->ki_pos\|B < E1->ki_pos\) ...+>) { ... \(return ...;\|goto l;\|break;\|continue;\) }
 E1->ki_pos@p
 ... when any
}

@script:python depends on g_assign_ki@
t << assign.T;
x << assign.x;
e << assign.E1;
p << assign.p;
@@
note(p, "%s->ki_pos" % e, t, x)

@g_assign_kidot depends on report exists@
expression assign.E2;
expression B;
position assign.p;
identifier f, l;
@@

f(...) {
 ... when != if (<+... \(E2.ki_pos >= B\|E2.ki_pos > B\|B <= E2.ki_pos\|B < E2.ki_pos\) ...+>) \(return ...;\|goto l;\|break;\|continue;\)
     when != if (<+... \(E2.ki_pos >= B\|E2.ki_pos > B\|B <= E2.ki_pos\|B < E2.ki_pos\) ...+>) { ... \(return ...;\|goto l;\|break;\|continue;\) }
 E2.ki_pos@p
 ... when any
}

@script:python depends on g_assign_kidot@
t << assign.T;
x << assign.x;
e << assign.E2;
p << assign.p;
@@
note(p, "%s.ki_pos" % e, t, x)

@g_assign_deref depends on report exists@
typedef loff_t;
idexpression loff_t *assign.P;
expression B;
position assign.p;
identifier f, l;
@@

f(...) {
 ... when != if (<+... \(*P >= B\|*P > B\|B <= *P\|B < *P\) ...+>) \(return ...;\|goto l;\|break;\|continue;\)
     when != if (<+... \(*P >= B\|*P > B\|B <= *P\|B < *P\) ...+>) { ... \(return ...;\|goto l;\|break;\|continue;\) }
 *P@p
 ... when any
}

@script:python depends on g_assign_deref@
t << assign.T;
x << assign.x;
e << assign.P;
p << assign.p;
@@
note(p, "*%s" % e, t, x)

@g_assign_var depends on report exists@
typedef loff_t;
idexpression loff_t assign.L;
expression B;
position assign.p;
identifier f, l;
@@

f(...) {
 ... when != if (<+... \(L >= B\|L > B\|B <= L\|B < L\) ...+>) \(return ...;\|goto l;\|break;\|continue;\)
     when != if (<+... \(L >= B\|L > B\|B <= L\|B < L\) ...+>) { ... \(return ...;\|goto l;\|break;\|continue;\) }
 L@p
 ... when any
}

@script:python depends on g_assign_var@
t << assign.T;
x << assign.x;
e << assign.L;
p << assign.p;
@@
note(p, e, t, x)

@finalize:python depends on report@
@@
for k in sorted(found):
	print(found[k])
