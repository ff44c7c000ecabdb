// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture for copy_under_lock.cocci, clean: the data is copied to a
 * kernel buffer under the lock and to the user (or iov_iter) after the
 * unlock, as rtas_log_read() does.  No rule may flag this file.
 */

#include <linux/spinlock.h>
#include <linux/uio.h>

static DEFINE_SPINLOCK(demo_lock);
static DEFINE_RWLOCK(demo_rwlock);
static char demo_buf[64];

static ssize_t demo_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	char tmp[64];
	unsigned long flags;

	spin_lock_irqsave(&demo_lock, flags);
	memcpy(tmp, demo_buf, sizeof(tmp));
	spin_unlock_irqrestore(&demo_lock, flags);
	return copy_to_iter(tmp, sizeof(tmp), to);
}

static ssize_t demo_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	char c;

	if (get_user(c, buf))
		return -EFAULT;
	write_lock_bh(&demo_rwlock);
	demo_buf[0] = c;
	write_unlock_bh(&demo_rwlock);
	return 1;
}

/* Unlock on every path before the copy, including the loop's exit. */
static ssize_t demo_wait(char __user *buf, size_t count, struct mutex *m)
{
	char tmp[64];

	spin_lock(&demo_lock);
	while (!demo_buf[0]) {
		spin_unlock(&demo_lock);
		schedule();
		spin_lock(&demo_lock);
	}
	memcpy(tmp, demo_buf, sizeof(tmp));
	spin_unlock(&demo_lock);

	mutex_lock(m);
	if (copy_to_user(buf, tmp, count))
		count = 0;
	mutex_unlock(m);
	return count;
}

/* An atomic copy with page faults disabled is allowed under a lock. */
static int demo_atomic(u32 __user *uaddr, u32 *val)
{
	int ret;

	spin_lock(&demo_lock);
	pagefault_disable();
	ret = __get_user(*val, uaddr);
	pagefault_enable();
	spin_unlock(&demo_lock);
	return ret;
}
