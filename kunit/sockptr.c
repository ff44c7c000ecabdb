// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite setfs_sockptr: sockptr_t, the "universal" pointer that lets
 * in-kernel users pass socket options without set_fs(KERNEL_DS)
 * (include/linux/sockptr.h).  A KERNEL_SOCKPTR() is copied with memcpy(),
 * a USER_SOCKPTR() with copy_from_user(), whose access_ok() refuses a
 * kernel address instead of reading it (or, without an MMU, copies it:
 * SETFS_USER_COPIES_KERNEL; the rows expect that there).
 *
 * In 6.1 sock_setsockopt(sock, level, optname, sockptr_t, optlen) is
 * exported (net/core/sock.c); options set on an in-kernel AF_UNIX socket
 * through a kernel sockptr take effect on the struct sock.
 */
#include <linux/net.h>
#include <linux/sockptr.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "setfs_kunit.h"

#define SETFS_SP_BUF	32
#define SETFS_SP_FILL	0xa5

/*
 * A kernel address wrapped as a user pointer: refused, unless nommu.  Each
 * case has a user address space of its own where that is a separate one
 * (the suite's init, setfs_kunit_own_user_space()).
 */
static sockptr_t setfs_user_sockptr(void *kernel_address)
{
	return USER_SOCKPTR((void __force __user *)kernel_address);
}

struct setfs_sockptr_kind_case {
	const char *name;
	bool user;
	bool null;
};

static const struct setfs_sockptr_kind_case setfs_sockptr_kind_cases[] = {
	{ "kernel",      false, false },
	{ "kernel_null", false, true },
	{ "user",        true,  false },
	{ "user_null",   true,  true },
};

SETFS_PARAM_ARRAY(sockptr_kind);

static void setfs_sockptr_kind(struct kunit *test)
{
	const struct setfs_sockptr_kind_case *c = test->param_value;
	static u8 buf[SETFS_SP_BUF];
	void *p = c->null ? NULL : buf;
	sockptr_t sp = c->user ? setfs_user_sockptr(p) : KERNEL_SOCKPTR(p);

	KUNIT_EXPECT_EQ(test, sockptr_is_kernel(sp), !c->user);
	KUNIT_EXPECT_EQ(test, sockptr_is_null(sp), c->null);
}

/*
 * copy_from_sockptr_offset() (to false) or copy_to_sockptr_offset() (to
 * true) of size bytes at offset.  ret is what they return: 0, or for a
 * user sockptr the bytes not copied, as copy_{from,to}_user() count them.
 */
struct setfs_sockptr_copy_case {
	const char *name;
	bool to;
	bool user;
	size_t offset;
	size_t size;
	int ret;
};

static const struct setfs_sockptr_copy_case setfs_sockptr_copy_cases[] = {
	{ "from_kernel",                  false, false, 0, 16, 0 },
	{ "from_kernel_offset",           false, false, 5, 7, 0 },
	{ "from_kernel_zero_size",        false, false, 3, 0, 0 },
	{ "from_user_kernel_address",     false, true,  0, 16, 16 },
	{ "from_user_kernel_address_offset", false, true, 5, 7, 7 },
	{ "from_user_kernel_address_zero_size", false, true, 0, 0, 0 },
	{ "to_kernel",                    true,  false, 0, 16, 0 },
	{ "to_kernel_offset",             true,  false, 5, 7, 0 },
	{ "to_user_kernel_address",       true,  true,  0, 16, 16 },
	{ "to_user_kernel_address_offset", true, true,  5, 7, 7 },
};

SETFS_PARAM_ARRAY(sockptr_copy);

static void setfs_sockptr_copy(struct kunit *test)
{
	const struct setfs_sockptr_copy_case *c = test->param_value;
	u8 *sp_buf, *local, *src, *dst;
	u8 want[SETFS_SP_BUF];
	bool copies = !c->user || SETFS_USER_COPIES_KERNEL;
	sockptr_t sp;
	size_t i;
	int ret;

	/* sp_buf is behind the sockptr, local is the other side. */
	sp_buf = kunit_kmalloc(test, SETFS_SP_BUF, GFP_KERNEL);
	local = kunit_kmalloc(test, SETFS_SP_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sp_buf);
	KUNIT_ASSERT_NOT_NULL(test, local);
	src = c->to ? local : sp_buf;
	dst = c->to ? sp_buf : local;
	for (i = 0; i < SETFS_SP_BUF; i++)
		src[i] = i;
	memset(dst, SETFS_SP_FILL, SETFS_SP_BUF);
	sp = c->user ? setfs_user_sockptr(sp_buf) : KERNEL_SOCKPTR(sp_buf);

	if (c->to)
		ret = copy_to_sockptr_offset(sp, c->offset, local, c->size);
	else
		ret = copy_from_sockptr_offset(local, sp, c->offset, c->size);
	KUNIT_EXPECT_EQ(test, ret, copies ? 0 : c->ret);

	memset(want, SETFS_SP_FILL, SETFS_SP_BUF);
	if (c->to && copies)
		memcpy(want + c->offset, src, c->size);
	else if (!c->to && copies)
		memcpy(want, src + c->offset, c->size);
	else if (!c->to)
		memset(want, 0, c->size);	/* copy_from_user() zero-fills */
	KUNIT_EXPECT_EQ(test, memcmp(dst, want, SETFS_SP_BUF), 0);
	for (i = 0; i < SETFS_SP_BUF; i++)
		KUNIT_EXPECT_EQ_MSG(test, src[i], (u8)i, "source byte %zu", i);
}

/* copy_safe_from_sockptr(): optlen is checked before anything is copied. */
struct setfs_sockptr_safe_case {
	const char *name;
	bool user;
	size_t ksize;
	unsigned int optlen;
	int ret;
};

static const struct setfs_sockptr_safe_case setfs_sockptr_safe_cases[] = {
	{ "kernel_exact",             false, 8, 8, 0 },
	{ "kernel_longer_optlen",     false, 8, 16, 0 },
	{ "kernel_short_optlen",      false, 8, 4, -EINVAL },
	{ "user_kernel_address",      true,  8, 8, -EFAULT },
	{ "user_short_optlen",        true,  8, 4, -EINVAL },
};

SETFS_PARAM_ARRAY(sockptr_safe);

static void setfs_sockptr_copy_safe(struct kunit *test)
{
	const struct setfs_sockptr_safe_case *c = test->param_value;
	u8 src[SETFS_SP_BUF] = "sockptr source bytes";
	u8 dst[SETFS_SP_BUF];
	sockptr_t sp = c->user ? setfs_user_sockptr(src) : KERNEL_SOCKPTR(src);
	int ret = c->ret;

	if (ret == -EFAULT && SETFS_USER_COPIES_KERNEL)
		ret = 0;
	memset(dst, SETFS_SP_FILL, sizeof(dst));
	KUNIT_EXPECT_EQ(test, copy_safe_from_sockptr(dst, c->ksize, sp, c->optlen),
			ret);
	if (!ret)
		KUNIT_EXPECT_EQ(test, memcmp(dst, src, c->ksize), 0);
	KUNIT_EXPECT_EQ(test, dst[c->ksize], SETFS_SP_FILL);
}

#ifdef CONFIG_NET
static int setfs_sock_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void setfs_sock_res_free(struct kunit_resource *res)
{
	sock_release(res->data);
}

/* An in-kernel AF_UNIX stream socket, released when the case ends. */
static struct socket *setfs_unix_socket(struct kunit *test)
{
	struct socket *sock;
	void *tracked;
	int err;

	err = sock_create_kern(&init_net, AF_UNIX, SOCK_STREAM, 0, &sock);
	if (err == -EAFNOSUPPORT)
		kunit_skip(test, "no AF_UNIX sockets: requires CONFIG_UNIX");
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "sock_create_kern(AF_UNIX)");
	tracked = kunit_alloc_resource(test, setfs_sock_res_init,
				       setfs_sock_res_free, GFP_KERNEL, sock);
	if (!tracked)
		sock_release(sock);
	KUNIT_ASSERT_NOT_NULL_MSG(test, tracked, "out of memory");
	return sock;
}

static int setfs_sk_keepopen(struct sock *sk)
{
	return sock_flag(sk, SOCK_KEEPOPEN);
}

static int setfs_sk_rcvbuf(struct sock *sk)
{
	return READ_ONCE(sk->sk_rcvbuf);
}

static int setfs_sk_sndbuf(struct sock *sk)
{
	return READ_ONCE(sk->sk_sndbuf);
}

static int setfs_sk_priority(struct sock *sk)
{
	return READ_ONCE(sk->sk_priority);
}

static int setfs_sk_rcvlowat(struct sock *sk)
{
	return READ_ONCE(sk->sk_rcvlowat);
}

static int setfs_sk_mark(struct sock *sk)
{
	return READ_ONCE(sk->sk_mark);
}

/* Linger time in jiffies, or -1 when SO_LINGER is off. */
static int setfs_sk_linger(struct sock *sk)
{
	return sock_flag(sk, SOCK_LINGER) ? READ_ONCE(sk->sk_lingertime) : -1;
}

/*
 * sock_setsockopt(SOL_SOCKET, optname) with val (for SO_LINGER: a struct
 * linger turned on with l_linger = val) through a kernel sockptr, or a
 * user one carrying the kernel address.  optlen 0 means the size of the
 * value.  Afterwards get(sk) == expect.  Caller is a kernel thread, so
 * capable(CAP_NET_ADMIN) holds.
 */
struct setfs_sockopt_case {
	const char *name;
	int optname;
	int val;
	unsigned int optlen;
	bool user;
	int ret;
	int (*get)(struct sock *sk);
	int expect;
	int copied;	/* user rows: get(sk) when SETFS_USER_COPIES_KERNEL */
};

static const struct setfs_sockopt_case setfs_sockopt_cases[] = {
	{ "so_keepalive", SO_KEEPALIVE, 1, 0, false, 0, setfs_sk_keepopen, 1 },
	{ "so_keepalive_user_sockptr", SO_KEEPALIVE, 1, 0, true, -EFAULT,
	  setfs_sk_keepopen, 0, 1 },
	{ "so_keepalive_short_optlen", SO_KEEPALIVE, 1, 3, false, -EINVAL,
	  setfs_sk_keepopen, 0 },
	/* the kernel doubles SO_RCVBUF/SO_SNDBUF for its own overhead */
	{ "so_rcvbuf", SO_RCVBUF, 4096, 0, false, 0, setfs_sk_rcvbuf, 8192 },
	{ "so_rcvbuf_tiny", SO_RCVBUF, 1, 0, false, 0, setfs_sk_rcvbuf,
	  SOCK_MIN_RCVBUF },
	{ "so_rcvbufforce_int_max", SO_RCVBUFFORCE, INT_MAX, 0, false, 0,
	  setfs_sk_rcvbuf, INT_MAX / 2 * 2 },
	{ "so_rcvbufforce_negative", SO_RCVBUFFORCE, -1, 0, false, 0,
	  setfs_sk_rcvbuf, SOCK_MIN_RCVBUF },
	{ "so_sndbuf", SO_SNDBUF, 8192, 0, false, 0, setfs_sk_sndbuf, 16384 },
	{ "so_priority", SO_PRIORITY, 6, 0, false, 0, setfs_sk_priority, 6 },
	{ "so_rcvlowat", SO_RCVLOWAT, 100, 0, false, 0, setfs_sk_rcvlowat, 100 },
	{ "so_rcvlowat_zero", SO_RCVLOWAT, 0, 0, false, 0, setfs_sk_rcvlowat, 1 },
	{ "so_mark", SO_MARK, 42, 0, false, 0, setfs_sk_mark, 42 },
	{ "so_linger", SO_LINGER, 5, 0, false, 0, setfs_sk_linger, 5 * HZ },
	{ "so_linger_short_optlen", SO_LINGER, 5, sizeof(int), false, -EINVAL,
	  setfs_sk_linger, -1 },
	{ "so_linger_user_sockptr", SO_LINGER, 5, 0, true, -EFAULT,
	  setfs_sk_linger, -1, 5 * HZ },
	{ "so_type_read_only", SO_TYPE, SOCK_DGRAM, 0, false, -ENOPROTOOPT,
	  NULL, 0 },
	{ "unknown_option", 0x7fff, 1, 0, false, -ENOPROTOOPT, NULL, 0 },
};

SETFS_PARAM_ARRAY(sockopt);

static void setfs_sockopt_kernel_sockptr(struct kunit *test)
{
	const struct setfs_sockopt_case *c = test->param_value;
	struct socket *sock = setfs_unix_socket(test);
	struct linger ling = { .l_onoff = 1, .l_linger = c->val };
	bool copies = c->user && SETFS_USER_COPIES_KERNEL;
	int val = c->val;
	unsigned int optlen;
	void *optval;

	if (c->optname == SO_LINGER) {
		optval = &ling;
		optlen = c->optlen ?: sizeof(ling);
	} else {
		optval = &val;
		optlen = c->optlen ?: sizeof(val);
	}
	KUNIT_EXPECT_EQ(test,
			sock_setsockopt(sock, SOL_SOCKET, c->optname,
					c->user ? setfs_user_sockptr(optval) :
						  KERNEL_SOCKPTR(optval),
					optlen),
			copies ? 0 : c->ret);
	if (c->get)
		KUNIT_EXPECT_EQ(test, c->get(sock->sk),
				copies ? c->copied : c->expect);
}

#define SETFS_SOCKOPT_CASE \
	KUNIT_CASE_PARAM(setfs_sockopt_kernel_sockptr, setfs_sockopt_gen_params)
#else
static void setfs_sockopt_kernel_sockptr(struct kunit *test)
{
	kunit_skip(test, "requires CONFIG_NET");
}

#define SETFS_SOCKOPT_CASE KUNIT_CASE(setfs_sockopt_kernel_sockptr)
#endif /* CONFIG_NET */

static struct kunit_case setfs_sockptr_test_cases[] = {
	KUNIT_CASE_PARAM(setfs_sockptr_kind, setfs_sockptr_kind_gen_params),
	KUNIT_CASE_PARAM(setfs_sockptr_copy, setfs_sockptr_copy_gen_params),
	KUNIT_CASE_PARAM(setfs_sockptr_copy_safe, setfs_sockptr_safe_gen_params),
	SETFS_SOCKOPT_CASE,
	{}
};

struct kunit_suite setfs_sockptr_suite = {
	.name = "setfs_sockptr",
	.init = setfs_kunit_own_user_space_init,
	.test_cases = setfs_sockptr_test_cases,
};
