// SPDX-License-Identifier: GPL-2.0
/// Find copies to or from user memory (or an iov_iter, which may be user
/// memory) inside a spinlock or rwlock section.
///
/// copy_to_iter(), copy_to_user(), put_user() and the like may fault, and
/// a fault may sleep (or, for an iov_iter backed by a pipe, take the pipe's
/// locks), which is not allowed while a spinlock or rwlock is held or with
/// interrupts or bottom halves disabled by the lock.  Copy into a kernel
/// buffer under the lock and to the user after the unlock.
///
/// A section starts with spin_lock*(), raw_spin_lock*(), read_lock*() or
/// write_lock*() (plain, _irq, _irqsave, _bh, _nested) on a lock L and ends
/// with the matching *_unlock*() on the same L; a copy is reported when
/// some path from the lock reaches it without an unlock of L.  A copy after
/// pagefault_disable() in the section is an atomic copy and is not
/// reported.
///
// Confidence: Moderate.  Only copies written in the section itself are
//  found, not copies in functions that it calls; trylock sections are not
//  followed.
// Options: --no-includes --include-headers
//
// Report (one line per copy, "file:line: copy_under_lock: ..."):
//   spatch -D report --very-quiet --no-includes --include-headers \
//          --sp-file kernel-patches/coccinelle/copy_under_lock.cocci FILE...

virtual report

@initialize:python@
@@
import re

found = {}

@r depends on report exists@
expression L;
position p1, p2;
identifier lock = {spin_lock, spin_lock_irq, spin_lock_irqsave, spin_lock_bh,
	spin_lock_nested, spin_lock_irqsave_nested, spin_lock_bh_nested,
	raw_spin_lock, raw_spin_lock_irq, raw_spin_lock_irqsave,
	raw_spin_lock_bh, raw_spin_lock_nested, raw_spin_lock_irqsave_nested,
	read_lock, read_lock_irq, read_lock_irqsave, read_lock_bh,
	write_lock, write_lock_irq, write_lock_irqsave, write_lock_bh,
	write_lock_nested};
identifier unlock = {spin_unlock, spin_unlock_irq, spin_unlock_irqrestore,
	spin_unlock_bh, raw_spin_unlock, raw_spin_unlock_irq,
	raw_spin_unlock_irqrestore, raw_spin_unlock_bh,
	read_unlock, read_unlock_irq, read_unlock_irqrestore, read_unlock_bh,
	write_unlock, write_unlock_irq, write_unlock_irqrestore,
	write_unlock_bh};
identifier copy = {copy_to_iter, copy_from_iter, _copy_to_iter,
	_copy_from_iter, copy_to_iter_full, copy_from_iter_full,
	copy_from_iter_nocache, copy_from_iter_full_nocache, copy_mc_to_iter,
	copy_page_to_iter, copy_page_from_iter, copy_page_to_iter_nofault,
	copy_folio_to_iter, csum_and_copy_to_iter, csum_and_copy_from_iter,
	csum_and_copy_from_iter_full, hash_and_copy_to_iter, iov_iter_zero,
	copy_to_iter_fromio, simple_read_from_buffer_iter,
	copy_to_user, copy_from_user, __copy_to_user, __copy_from_user,
	_copy_to_user, _copy_from_user, raw_copy_to_user, raw_copy_from_user,
	copy_in_user, copy_struct_from_user, copy_to_user_fromio,
	copy_from_user_toio, put_user, get_user, __put_user, __get_user,
	clear_user, __clear_user, strncpy_from_user, strnlen_user,
	memdup_user, memdup_user_nul, vmemdup_user, strndup_user,
	simple_read_from_buffer, simple_write_to_buffer};
@@

 lock@p1(L, ...);
 ... when != unlock(L, ...)
     when != pagefault_disable()
 copy@p2(...)

@script:python depends on r@
p1 << r.p1;
p2 << r.p2;
lock << r.lock;
copy << r.copy;
L << r.L;
@@
k = (p2[0].file, int(p2[0].line), int(p2[0].column))
if k not in found:
	l = re.sub(r"\s*(->|\.)\s*|(?<=[*&]) ", r"\1", str(L))
	found[k] = "%s:%s: copy_under_lock: %s() under %s(%s) from line %s: the copy may fault and sleep; copy after the unlock" % (p2[0].file, p2[0].line, copy, lock, l, p1[0].line)

@finalize:python depends on report@
@@
for k in sorted(found):
	print(found[k])
