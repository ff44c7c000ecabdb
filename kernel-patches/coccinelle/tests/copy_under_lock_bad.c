// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture for copy_under_lock.cocci: copies that may fault (and so sleep)
 * inside spinlock and rwlock sections.  Each line that a rule must flag
 * ends with an "expect:" comment naming the rule.
 */

#include <linux/spinlock.h>
#include <linux/uio.h>

static DEFINE_SPINLOCK(demo_lock);
static DEFINE_RWLOCK(demo_rwlock);
static char demo_buf[64];

static ssize_t demo_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	size_t n;

	spin_lock(&demo_lock);
	n = copy_to_iter(demo_buf, sizeof(demo_buf), to); /* expect: copy_under_lock */
	spin_unlock(&demo_lock);
	return n;
}

static ssize_t demo_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&demo_lock, flags);
	if (count)
		err = copy_to_user(buf, demo_buf, 1); /* expect: copy_under_lock */
	spin_unlock_irqrestore(&demo_lock, flags);
	if (err)
		return -EFAULT;
	return 1;
}

static ssize_t demo_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	char c;

	write_lock_bh(&demo_rwlock);
	if (get_user(c, buf)) { /* expect: copy_under_lock */
		write_unlock_bh(&demo_rwlock);
		return -EFAULT;
	}
	demo_buf[0] = c;
	write_unlock_bh(&demo_rwlock);
	return 1;
}

static int demo_ioctl(struct page *page, struct iov_iter *from,
		      int __user *argp, raw_spinlock_t *rl)
{
	size_t n;

	read_lock_irq(&demo_rwlock);
	n = copy_page_to_iter(page, 0, 16, from); /* expect: copy_under_lock */
	read_unlock_irq(&demo_rwlock);

	raw_spin_lock(rl);
	if (put_user(1, argp)) /* expect: copy_under_lock */
		n = 0;
	raw_spin_unlock(rl);

	spin_lock_bh(&demo_lock);
	n += copy_from_iter(demo_buf, 8, from); /* expect: copy_under_lock */
	spin_unlock_bh(&demo_lock);
	return n;
}

/* A copy on the path where the lock is still held, after a loop. */
static ssize_t demo_loop(char __user *buf, size_t count)
{
	size_t i;

	spin_lock(&demo_lock);
	for (i = 0; i < count; i++) {
		if (!demo_buf[i]) {
			spin_unlock(&demo_lock);
			return 0;
		}
	}
	if (__copy_to_user(buf, demo_buf, count)) { /* expect: copy_under_lock */
		spin_unlock(&demo_lock);
		return -EFAULT;
	}
	spin_unlock(&demo_lock);
	return count;
}
