#!/bin/bash
# shellcheck disable=SC2154 # dracut sets moddir and initdir
# SPDX-License-Identifier: GPL-2.0
#
# dracut module "setfs": turns a distribution kernel's initramfs into a
# setfs-probe test guest.  The harness (harness/kinds.py DistroKind)
# builds the image with
#
#   dracut --no-hostonly --kver KVER --kmoddir DIR --modules "base setfs" ...
#
# and SETFS_STAGE pointing to a directory with the guest init
# ($SETFS_STAGE/init, rootfs/init of the repo), busybox
# ($SETFS_STAGE/busybox) and the guest's /root ($SETFS_STAGE/root: test
# binaries, the kernel's config, fixture.list).  The cmdline hook runs the tests before
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
	# Everything else lands in /root, as in a tree guest's initramfs.
	while IFS= read -r -d '' f; do
		rel=${f#"$SETFS_STAGE"/root/}
		inst_simple "$f" "/root/$rel"
	done < <(find "$SETFS_STAGE/root" -type f -print0)
	setfs_fixture "$SETFS_STAGE/root/fixture.list"
}

# setfs_fixture LIST: the entries of rootfs/fixture.list (gen_init_cpio's
# lines, its @mtime and @content), made in $initdir as the tree guests'
# gen_init_cpio makes them.
setfs_fixture() {
	local list=$1 type path a b c d e f mtime='' content='' made=()

	[ -f "$list" ] || {
		derror "setfs: no fixture list $list"
		return 1
	}
	while read -r type path a b c d e f; do
		case "$type" in
		''|'#'*) continue ;;
		@mtime) mtime=$path; continue ;;
		@content) content="$path${a:+ $a}${b:+ $b}${c:+ $c}"; continue ;;
		dir)	mkdir -p "$initdir$path"
			chmod "$a" "$initdir$path"
			chown "$b:$c" "$initdir$path" ;;
		file)	# file NAME @FIXTURE@ MODE UID GID [HARDLINK]
			printf '%s\n' "$content" >"$initdir$path"
			chmod "$b" "$initdir$path"
			chown "$c:$d" "$initdir$path"
			if [ -n "$e" ]; then
				ln -f "$initdir$path" "$initdir$e"
				made+=("$initdir$e")
			fi ;;
		slink)	# slink NAME TARGET MODE UID GID
			ln -sfn "$a" "$initdir$path"
			chown -h "$c:$d" "$initdir$path" ;;
		nod)	# nod NAME MODE UID GID c|b MAJOR MINOR
			mknod -m "$a" "$initdir$path" "$d" "$e" "$f"
			chown "$b:$c" "$initdir$path" ;;
		*)	derror "setfs: $list: unknown entry '$type'"
			return 1 ;;
		esac
		made+=("$initdir$path")
	done <"$list"
	[ -n "$mtime" ] || {
		derror "setfs: $list has no @mtime"
		return 1
	}
	touch -h -d "@$mtime" "${made[@]}"
}
