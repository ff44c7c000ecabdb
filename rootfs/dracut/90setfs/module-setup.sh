#!/bin/bash
# shellcheck disable=SC2154 # dracut sets moddir and initdir
# SPDX-License-Identifier: GPL-2.0
#
# dracut module "setfs": turns a distribution kernel's initramfs into a
# setfs-probe test guest.  run.sh builds the image with
#
#   dracut --no-hostonly --kver KVER --kmoddir DIR --modules "base setfs" ...
#
# and SETFS_STAGE pointing to a directory with the guest init
# ($SETFS_STAGE/init, rootfs/init of the repo), busybox
# ($SETFS_STAGE/busybox) and the guest's /root ($SETFS_STAGE/root: test
# binaries, the kernel's config).  The cmdline hook runs the tests before
# dracut looks for a root file system, and powers the guest off.

# Only when asked for by name.
check() {
	return 255
}

depends() {
	echo base
	return 0
}

installkernel() {
	# setfs_probe.ko and test_module.ko were placed in the module tree's
	# updates/ and depmod was run, so that modprobe finds them.  The
	# others create proc files that setfs_user_procfiles and
	# setfs_user_procread read.
	hostonly='' instmods setfs_probe test_module pktgen md_mod scsi_mod \
		snd_dummy sunrpc auth_rpcgss lockd
}

install() {
	local f rel

	[ -d "${SETFS_STAGE:-}" ] || {
		derror "setfs: SETFS_STAGE is not set or not a directory"
		return 1
	}
	# busybox supplies what the guest init uses beyond dracut's tools
	# (awk, dmesg, setsid, poweroff -f, ...); its links go into its own
	# directory so that kmod's insmod/modprobe stay the ones in PATH.
	inst_simple "$SETFS_STAGE/busybox" /usr/lib/setfs/busybox
	inst_simple "$SETFS_STAGE/init" /usr/lib/setfs/init
	inst_hook cmdline 00 "$moddir/setfs-hook.sh"
	# Everything else lands in /root, as in run.sh's own initramfs.
	while IFS= read -r -d '' f; do
		rel=${f#"$SETFS_STAGE"/root/}
		inst_simple "$f" "/root/$rel"
	done < <(find "$SETFS_STAGE/root" -type f -print0)
	# The initramfs fixtures that setfs_user_initramfs checks (modes,
	# owners, a hard link, a symbolic link, a device node, mtimes).
	mkdir -p "$initdir/setfs/a/b"
	chmod 0755 "$initdir/setfs"
	chmod 0750 "$initdir/setfs/a"
	chown 1000:1000 "$initdir/setfs/a"
	chmod 0700 "$initdir/setfs/a/b"
	printf 'setfs fixture\n' >"$initdir/setfs/a/b/file"
	chmod 0640 "$initdir/setfs/a/b/file"
	chown 1000:100 "$initdir/setfs/a/b/file"
	ln -f "$initdir/setfs/a/b/file" "$initdir/setfs/hardlink"
	ln -sfn a/b/file "$initdir/setfs/symlink"
	mknod -m 0600 "$initdir/setfs/chardev" c 1 3
	touch -h -d "@${SETFS_MTIME:-1600000000}" "$initdir/setfs/a/b/file" \
		"$initdir/setfs/symlink" "$initdir/setfs/chardev" \
		"$initdir/setfs/a/b" "$initdir/setfs/a" "$initdir/setfs"
}
