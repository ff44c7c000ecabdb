#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - build Debian's linux-source-6.1 with kernel-patches/ applied, boot
# it in QEMU with setfs_probe.ko, the KUnit suite and the user test binary,
# and report the results as KTAP.  See README.md and "./run.sh --help".
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${SETFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/setfs-probe}
TARBALL=${SETFS_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
SOURCE_PKG=linux-source-6.1
TREE=$CACHE/linux
TREE_STATE=$CACHE/tree.state
JOBS=${SETFS_JOBS:-$(nproc)}
BOOT_TIMEOUT=${SETFS_TIMEOUT:-300}
# The user tests' soak (their options, see rootfs/init): "full" is
# setfs_user's own defaults (100000 fuzz operations per case, 10000 race
# iterations, 200 + 50 unload cycles), what "test" runs; "quick" a tenth
# of each, the default of the edit-test loop ("kunit", "shell").
SOAK_QUICK="setfs_fuzz_ops=10000 setfs_race_iterations=1000 setfs_unload_cycles=20 setfs_unload_module_cycles=5"
export PYTHONDONTWRITEBYTECODE=1
# Target records: targets/NAME.toml, validated by harness/record.py
# (a bad record stops every command, naming the file and the field).
# The default list and test's list come from the records' fields.  Reading
# them needs Python 3.11's tomllib before anything else: as root on a
# machine without python3 (Debian 12: 3.11), install it first.
records() {
	(cd "$REPO" && python3 -m harness.record "$@")
}
if ! python3 -c 'import tomllib' 2>/dev/null; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
		echo "run.sh: installing python3 (it reads targets/*.toml)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 >/dev/null 2>&1; } || true
	fi
	python3 -c 'import tomllib' 2>/dev/null || {
		echo "run.sh: error: Python 3.11 or later (tomllib) is needed to read targets/*.toml (Debian 12: apt-get install python3)" >&2
		exit 1
	}
fi
# One python3 run: DEFAULT_ARCHES, TEST_ARCHES, CI_ARCHES, ALL_TARGETS and
# TARGET_VARS[NAME] (NAME and NAME+debug), each target's T_* assignments.
RECORDS=$(records bash) || { echo "run.sh: error: bad target record (above)" >&2; exit 1; }
eval "$RECORDS"
# Packages every run needs on the host; targets add their own (T_PKGS).
HOST_PKGS="git make gcc flex bison bc libelf-dev libssl-dev cpio xz-utils
python3 ccache rsync kmod"

# git am and the pristine commit need a committer; use the developer's
# identity when git has one.
if [ -z "$(git config --get user.email 2>/dev/null)" ]; then
	export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-setfs-probe}
	export GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-setfs-probe@localhost}
	export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-$GIT_AUTHOR_NAME}
	export GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-$GIT_AUTHOR_EMAIL}
fi

usage() {
	cat <<EOF
Usage: ./run.sh COMMAND [OPTIONS] [GLOB...]

Commands:
  kunit [GLOB...]
                 prepare the tree, apply kernel-patches/, build kernel,
                 modules and rootfs, boot QEMU, run the KUnit suite and the
                 user tests, print KTAP and a summary (the main job).
                 GLOBs select suites and cases as kunit.py's filter_glob
                 does: SUITE or SUITE.CASE, with * ? [...] (quote them);
                 a KUnit suite, a setfs_user group (setfs_user_*) or an
                 init suite (setfs_guest, setfs_selftest_splice).  The
                 guest filters: changing GLOBs rebuilds nothing
  test           what CI runs: the harness's usage checks, "kunit" on the
                 selected targets (default: ${TEST_ARCHES// /,}; full
                 soak; with SETFS_CI=1, as .ci/run sets it, without the
                 records saying ci = false: ${CI_ARCHES// /,}), the
                 harness's unit tests (harness/tests), "uharness" and
                 "check-patches"
  shell          boot the guest with an interactive shell (modules in /root)
  bench [WHAT]   measure; WHAT is "guest" (iter vs legacy read paths,
                 splice vs read+write, kernel_read() in the guest), "harness"
                 (warm and edit-one-KUnit-case run times), "cold" (a run
                 from an empty cache; about half an hour) or "series" (real
                 /proc files on the pristine and the patched x86_64 kernel,
                 same config); default: guest and harness
  export         turn the commits on top of the pristine tree into
                 kernel-patches/ (git format-patch --cover-letter)
  check-patches  apply the series one patch at a time to a scratch tree;
                 for each, build the objects it touches (allmodconfig, per
                 architecture) and run checkpatch.pl --strict; then the
                 Coccinelle rules of kernel-patches/coccinelle/ on their
                 fixtures and on every .c file the series touches, and
                 C=1 W=1 of those files before and after the series
  uharness       compile the converted ->proc_read_iter methods of the
                 prepared tree in user space under ASan/UBSan and read them
                 at hostile offsets (kernel-patches/uharness/)
  help           this text

Options:
  --arch LIST    comma-separated targets (default: ${DEFAULT_ARCHES// /,});
                 known: $(known_targets); a kernel target
                 NAME+debug is its debug flavour
  --keep-tree    use the prepared tree as it is, with your commits and
                 edits, instead of re-applying kernel-patches/
  --debug        build and boot each target's debug flavour (NAME+debug:
                 KASAN, UBSAN, lockdep, KFENCE, ...; config/debug.config)
                 in a build directory of its own
  --timeout SEC  guest timeout in seconds (default: $BOOT_TIMEOUT)
  --soak WHICH   the user tests' fuzz, race and unload counts: "quick"
                 (default of kunit and shell: a tenth) or "full" (default
                 of test: setfs_user's own counts)
  -h, --help     this text

Environment: SETFS_CACHE (default ~/.cache/setfs-probe), SETFS_JOBS,
SETFS_TIMEOUT, SETFS_ACCEL (tcg, kvm or auto; default auto),
SETFS_SERIES_ROUNDS (bench series: boots per kernel, default 3),
SETFS_GUEST_ARGS (more kernel command line words, e.g. setfs_fuzz_ops=1000000
setfs_fuzz_seed=7: options of the user tests, see rootfs/init).
EOF
}

# ---------------------------------------------------------------- helpers

die() {
	echo "run.sh: error: $*" >&2
	exit 1
}

usage_error() {
	echo "run.sh: $*" >&2
	echo "Try './run.sh --help'." >&2
	exit 2
}

info() {
	echo "run.sh: $*"
}

known_targets() {
	echo "${ALL_TARGETS// /,}"
}

now() {
	date +%s.%N
}

# Stage timings, printed at the end: "name<TAB>seconds<TAB>note".
TIMINGS=()

# stage NAME NOTE SECONDS: record one stage's time.
record_stage() {
	TIMINGS+=("$1"$'\t'"$3"$'\t'"$2")
	printf '    %-22s %6.1fs  %s\n' "$1" "$3" "$2"
}

elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
}

# hash_files FILE...: one digest over names and contents.
hash_files() {
	local f

	for f in "$@"; do
		printf '%s\n' "${f#"$REPO"/}"
		cat "$f"
	done | sha256sum | cut -d' ' -f1
}

hash_dir_files() {
	local d

	# Sorted per directory, in the order given: sorting the absolute
	# paths together would order the repo's files and the tree's by
	# where the repo is, and a copy of the repo (bench harness) would
	# get other keys.
	for d in "$@"; do
		find "$d" -type f ! -name '*.o' ! -name '*.ko' ! -name '*.cmd' \
			! -name '*.mod' ! -name '*.mod.c' ! -name 'modules.order' \
			! -name 'Module.symvers' -print | LC_ALL=C sort
	done | while read -r f; do
		printf '%s\n' "${f#"$REPO"/}"
		cat "$f"
	done | sha256sum | cut -d' ' -f1
}

stamp_ok() {
	[ -f "$1" ] && [ "$(cat "$1")" = "$2" ]
}

# ensure_pkgs PKG...: install what is missing, or say which cannot be had.
ensure_pkgs() {
	local p missing=()

	for p in "$@"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		     grep -q 'install ok installed'; then
			missing+=("$p")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		die "missing packages: ${missing[*]} (install them: sudo apt-get install ${missing[*]})"
	fi
	info "installing ${missing[*]}"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y \
	     --no-install-recommends "${missing[@]}" >"$CACHE/apt.log" 2>&1; then
		apt-get update >>"$CACHE/apt.log" 2>&1 || true
		DEBIAN_FRONTEND=noninteractive apt-get install -y \
			--no-install-recommends "${missing[@]}" >>"$CACHE/apt.log" 2>&1 ||
			{ tail -n 20 "$CACHE/apt.log" >&2
			  die "cannot install packages: ${missing[*]} (apt log: $CACHE/apt.log)"; }
	fi
}

# check_glob GLOB: a filter glob the guest can take on the kernel command
# line and split as kunit.py does (commas separate globs there; the
# kernel's glob_match() has no escapes; 127 bytes fit its buffer).
check_glob() {
	local g=$1

	[ -n "$g" ] || usage_error "an empty filter glob"
	[ ${#g} -le 127 ] || usage_error "filter glob '$g' is longer than 127 characters"
	[[ $g =~ ^[][A-Za-z0-9_.*?!-]+$ ]] ||
		usage_error "filter glob '$g': only letters, digits and _ . - * ? [ ] ! (SUITE or SUITE.CASE)"
	[[ ${g%%.*} =~ [^.] ]] || usage_error "filter glob '$g' has no suite part (SUITE or SUITE.CASE)"
}

# target_vars NAME: NAME's record as T_* assignments (harness/record.py
# checks NAME and the record); an unknown NAME or a distro target's
# debug flavour is a usage error, a bad record an error.
target_vars() {
	local out rc=0

	if [ -n "${TARGET_VARS[$1]+set}" ]; then
		echo "${TARGET_VARS[$1]}"
		return
	fi
	# Not a target: harness/record.py says why.
	out=$(records shell "$1" 2>&1) || rc=$?
	case $rc in
	0) echo "$out" ;;
	2) usage_error "${out#targets: }" ;;
	*) die "${out#targets: }" ;;
	esac
}

# check_target_name NAME: NAME is a target record, or a tree target's
# debug flavour NAME+debug.
check_target_name() {
	target_vars "$1" >/dev/null
}

# load_target NAME: read one target record into T_* variables.
load_target() {
	local vars dir

	vars=$(target_vars "$1")
	eval "$vars"
	T_NAME=$1
	dir=$T_BASE
	[ "$T_FLAVOUR" = normal ] || dir=$T_BASE-debug
	T_WORK=$CACHE/work/$dir
	# T_KERNEL_OF: the normal flavour boots another target's kernel (same
	# config; its build and work directory hold the kernel, the in-tree
	# modules and their stamps).  A debug flavour builds its own.
	# (harness/record.py checks that the other target builds its own
	# kernel from the same arch names and fragments.)
	T_KOWNER=
	if [ -n "$T_KERNEL_OF" ]; then
		T_KOWNER=$T_KERNEL_OF
		dir=$T_KERNEL_OF
	fi
	T_BUILD=$CACHE/build/$dir
	T_KWORK=$CACHE/work/$dir
	# The sources the kernel is built from; a kind may use others.
	T_SRC=$TREE
	T_SRC_KEY=
	kind_op load
	MAKE_ARGS=(-C "$T_SRC" O="$T_BUILD" ARCH="$T_LINUX_ARCH"
		   CROSS_COMPILE="$T_CROSS" CC="ccache ${T_CROSS}gcc"
		   HOSTCC="ccache gcc" -j"$JOBS")
}

# kind_op OP [MODE]: what a target's kind (the record's "kind") does for
# OP, the one place where a kernel built from the tree, a distribution's
# kernel and a kernel with the suites built in differ.  OP: load (after
# the record is read), fragments (the config fragments of the kind, after
# base.config), build (every stage up to the initramfs), image (the
# kernel QEMU boots), qemu MODE (KIND_QEMU: what QEMU gets besides the
# machine and the kernel).
kind_op() {
	case "$T_KIND:$1" in
	tree:load) ;;
	tree:fragments|distro:fragments)
		# what the user-space cases read in /proc
		echo "$REPO/config/procfs.config"
		echo "$REPO/config/selftests.config"
		echo "$REPO/config/procread.config"
		;;
	tree:qemu|distro:qemu)
		KIND_QEMU=(-initrd "$T_WORK/initramfs.cpio"
		 -append "console=$T_CONSOLE panic=-1 profile=2 $T_CMDLINE setfs_mode=$2 setfs_halt=$T_HALT setfs_target=$T_BASE setfs_paging=$T_PAGING setfs_task_size_max=$T_TASK_SIZE_MAX${FILTER:+ setfs_filter=$FILTER}$(soak_args)${SETFS_GUEST_ARGS:+ $SETFS_GUEST_ARGS}")
		;;
	tree:build)
		if [ -n "$T_KOWNER" ]; then
			# Another target's kernel: configure and build it as
			# that target (up to date when it ran first), then go
			# on as this one.
			local name=$T_NAME

			load_target "$T_KOWNER"
			configure_kernel
			build_kernel
			load_target "$name"
		else
			configure_kernel
			build_kernel
		fi
		build_modules
		build_user
		build_rootfs
		;;
	tree:image) echo "$T_BUILD/$T_IMAGE" ;;
	distro:load) distro_paths ;;
	distro:build)
		fetch_distro
		build_modules_distro
		build_user
		build_rootfs_dracut
		;;
	distro:image) echo "$DISTRO_DIR/boot/vmlinuz-$DISTRO_KVER" ;;
	builtin:load)
		T_SRC=$BUILTIN_SRC
		# kunit/ and module/ are compiled into the kernel
		T_SRC_KEY=$(hash_dir_files "$REPO/kunit" "$REPO/module")
		;;
	builtin:fragments) ;;
	builtin:build)
		sync_builtin_tree
		configure_kernel
		build_kernel
		;;
	builtin:image) echo "$T_BUILD/$T_IMAGE" ;;
	builtin:qemu)
		[ "$2" = test ] ||
			die "$T_NAME: a builtin target has no user space: it only runs its KUnit suites at boot (no shell, bench or series)"
		KIND_QEMU=(-append "console=$T_CONSOLE panic=-1 kunit_shutdown=$T_HALT${FILTER:+ kunit.filter_glob=$FILTER}")
		;;
	*) die "kind_op: no operation '$1' for kind '$T_KIND'" ;;
	esac
}

# ------------------------------------------------------------------ tree

# The patches of one directory: DIR/series if present, else DIR/*.patch in
# name order, the cover letter excepted.  Nothing for a missing DIR.
patches_in() {
	local dir=$1 p rel=${1#"$REPO"/}

	[ -d "$dir" ] || return 0
	if [ -f "$dir/series" ]; then
		while read -r p; do
			case "$p" in ''|'#'*) continue ;; esac
			[ -f "$dir/$p" ] || die "$rel/series names $p, which does not exist"
			echo "$dir/$p"
		done <"$dir/series"
	else
		for p in "$dir"/*.patch; do
			[ -f "$p" ] || continue
			case "$(basename "$p")" in 0000-cover-letter.patch) continue ;; esac
			echo "$p"
		done
	fi
}

# Two series go into the tree, in this order:
#   kernel-patches/uaccess/  fixes to ARM and riscv user copies that the
#                            armv7 and riscv64 guests found; the tag
#                            $FIXES_TAG marks their last commit;
#   kernel-patches/          the procfs series.
# They touch different files; export writes each back to its directory.
FIXES_DIR=$REPO/kernel-patches/uaccess
FIXES_TAG=setfs-uaccess-fixes

fixes_patches() {
	patches_in "$FIXES_DIR"
}

procfs_patches() {
	patches_in "$REPO/kernel-patches"
}

# Every patch, in the order apply_series applies them.
series_patches() {
	fixes_patches
	procfs_patches
}

series_id() {
	local patches

	mapfile -t patches < <(series_patches)
	if [ ${#patches[@]} -eq 0 ]; then
		echo empty
	else
		hash_files "${patches[@]}"
	fi
}

tarball_id() {
	local ver

	ver=$(dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null || echo unknown)
	echo "$ver $(stat -c '%s %Y' "$TARBALL")"
}

state_get() {
	[ -f "$TREE_STATE" ] || return 0
	sed -n "s/^$1=//p" "$TREE_STATE"
}

state_write() {
	printf 'tarball=%s\nseries=%s\napplied=%s\n' "$1" "$2" "$3" >"$TREE_STATE.new"
	mv "$TREE_STATE.new" "$TREE_STATE"
}

# What in the tree is not in kernel-patches/: commits after the applied
# series, edits to tracked files, files that are not tracked.  Prints a
# description, nothing when the tree holds only what the series made.
tree_unexported() {
	local applied status

	applied=$(state_get applied)
	if [ -z "$applied" ] ||
	   ! git -C "$TREE" rev-parse -q --verify "$applied^{commit}" >/dev/null; then
		echo "the tree has no record of which series it holds ($TREE_STATE)"
	elif [ -n "$(git -C "$TREE" rev-list -n 1 "$applied..HEAD")" ]; then
		echo "commits after the applied series ($applied):"
		git -C "$TREE" log --oneline "$applied..HEAD" | head -20
	fi
	status=$(git -C "$TREE" status --porcelain --ignored 2>&1 | head -20)
	if [ -n "$status" ]; then
		echo "uncommitted or untracked files:"
		echo "$status"
	fi
}

refuse_to_discard() {
	cat >&2 <<EOF
run.sh: error: the kernel tree $TREE holds work that is not in kernel-patches/:
$1

Nothing was changed.  Either
  - export it: commit your edits in $TREE, then run './run.sh export';
  - test it as it is: add --keep-tree;
  - or discard it: git -C $TREE reset --hard $(state_get applied || true); git -C $TREE clean -fdx
EOF
	exit 1
}

# am_series PRISTINE TARBALL-ID PATCH...: git am each patch on the tree;
# on failure, back to PRISTINE and die naming the patch.
am_series() {
	local pristine=$1 tid=$2 p out

	shift 2
	for p; do
		if ! out=$(git -C "$TREE" am --quiet "$p" 2>&1); then
			git -C "$TREE" am --abort >/dev/null 2>&1 || true
			git -C "$TREE" reset -q --hard "$pristine"
			state_write "$tid" failed "$pristine"
			die "patch ${p#"$REPO"/} does not apply to the pristine tree:
$(echo "$out" | grep -vE '^(hint:|When you have|If you prefer|To restore)')"
		fi
	done
}

apply_series() {
	local pristine=$1 fixes procfs

	mapfile -t fixes < <(fixes_patches)
	mapfile -t procfs < <(procfs_patches)
	git -C "$TREE" reset -q --hard "$pristine"
	am_series "$pristine" "$2" "${fixes[@]}"
	git -C "$TREE" tag -f "$FIXES_TAG" >/dev/null
	am_series "$pristine" "$2" "${procfs[@]}"
	state_write "$2" "$(series_id)" "$(git -C "$TREE" rev-parse HEAD)"
}

extract_tree() {
	local tid=$1 ver tmp

	ver=${tid%% *}
	info "extracting $TARBALL ($SOURCE_PKG $ver) into $TREE"
	tmp=$CACHE/extract.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -C "$tmp" -xf "$TARBALL"
	[ -d "$tmp/linux-source-6.1" ] || die "$TARBALL has no linux-source-6.1/ directory"
	mv "$tmp/linux-source-6.1" "$TREE"
	rmdir "$tmp"
	info "committing the pristine tree"
	git -C "$TREE" init -q -b setfs
	# Debian's top-level .gitignore ignores everything ("/*"): force.
	git -C "$TREE" add -f -A .
	git -C "$TREE" commit -q -m "Debian $SOURCE_PKG $ver (pristine)" \
		-m "Extracted from $TARBALL by setfs-probe's run.sh."
	git -C "$TREE" tag -f pristine >/dev/null
}

prepare_tree() {
	local t0 tid sid pristine dirty

	t0=$(now)
	[ -f "$TARBALL" ] || ensure_pkgs "$SOURCE_PKG"
	[ -f "$TARBALL" ] || die "$TARBALL is missing after installing $SOURCE_PKG"
	tid=$(tarball_id)
	sid=$(series_id)

	if [ "$KEEP_TREE" = 1 ]; then
		[ -d "$TREE/.git" ] || die "--keep-tree: there is no prepared tree at $TREE yet"
		record_stage prepare "kept as it is (--keep-tree)" "$(elapsed "$t0")"
		return
	fi

	if [ -d "$TREE/.git" ] && [ "$(state_get tarball)" = "$tid" ]; then
		dirty=$(tree_unexported)
		if [ -z "$dirty" ] && [ "$(state_get series)" = "$sid" ] &&
		   [ "$(git -C "$TREE" rev-parse HEAD)" = "$(state_get applied)" ]; then
			record_stage prepare "up to date" "$(elapsed "$t0")"
			return
		fi
		[ -z "$dirty" ] || refuse_to_discard "$dirty"
		pristine=$(git -C "$TREE" rev-parse pristine)
		info "re-applying kernel-patches/ on the pristine tree"
		apply_series "$pristine" "$tid"
		record_stage prepare "series re-applied" "$(elapsed "$t0")"
		return
	fi

	if [ -e "$TREE" ]; then
		if [ -d "$TREE/.git" ]; then
			dirty=$(tree_unexported)
			[ -z "$dirty" ] || refuse_to_discard "$dirty"
			info "$TARBALL changed: replacing the tree"
		fi
		rm -rf "$TREE"
	fi
	extract_tree "$tid"
	apply_series "$(git -C "$TREE" rev-parse pristine)" "$tid"
	record_stage prepare "extracted, $(git -C "$TREE" rev-list --count pristine..HEAD) patches applied" \
		"$(elapsed "$t0")"
}

# A digest of the tree's state for build stamps.  Empty when the tree is
# used as it is (--keep-tree): then make decides what to rebuild.
tree_id() {
	[ "$KEEP_TREE" = 1 ] && return 0
	git -C "$TREE" rev-parse HEAD
}

# worktree_at DIR COMMIT keep|discard: DIR, a worktree of $TREE, checked
# out at COMMIT of $TREE (added if missing).  A DIR that is not such a
# worktree is refused, not wiped.  Local changes in DIR are refused
# (keep) or, where run.sh owns DIR and made them, discarded (discard;
# untracked files stay).
worktree_at() {
	local dir=$1 commit

	commit=$(git -C "$TREE" rev-parse "$2^{commit}")
	git -C "$TREE" worktree prune
	if [ -e "$dir" ] &&
	   ! git -C "$TREE" worktree list --porcelain | grep -qx "worktree $dir"; then
		die "$dir exists but is not a worktree of $TREE: move it away"
	fi
	if [ ! -e "$dir" ]; then
		info "checking out $2 of the tree in $dir"
		mkdir -p "$(dirname "$dir")"
		git -C "$TREE" worktree add -q --detach "$dir" "$commit" ||
			die "cannot add a worktree at $dir"
		return
	fi
	if [ "$3" = keep ] && [ -n "$(git -C "$dir" status --porcelain)" ]; then
		die "$dir has local changes: commit or remove them first"
	fi
	[ "$(git -C "$dir" rev-parse HEAD)" = "$commit" ] ||
		git -C "$dir" checkout -q -f --detach "$commit" ||
		die "cannot check out $2 of the tree in $dir"
}

# The sources of the "builtin" targets: a worktree of $TREE at its HEAD in
# which kunit/ and module/ sit in drivers/misc/setfs/ and build into the
# kernel (their Kbuild files say obj-y when not built with M=).  run.sh
# owns it and resets it to the tree's HEAD; files are copied only when
# their content changed, so make rebuilds only what changed.
BUILTIN_SRC=$CACHE/builtin/linux

sync_builtin_tree() {
	local t0 dir=$BUILTIN_SRC/drivers/misc
	local kbuild='obj-y += module/ kunit/'

	t0=$(now)
	if [ "$KEEP_TREE" = 1 ] &&
	   [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
		die "$T_NAME builds from a copy of the tree's HEAD, which does not hold the tree's uncommitted edits: commit them first (--keep-tree)"
	fi
	worktree_at "$BUILTIN_SRC" HEAD discard
	# drivers/misc/Makefile: the tree's, plus one line
	if ! grep -qx 'obj-y += setfs/' "$dir/Makefile"; then
		git -C "$BUILTIN_SRC" checkout -q -- drivers/misc/Makefile
		echo 'obj-y += setfs/' >>"$dir/Makefile"
	fi
	mkdir -p "$dir/setfs/kunit" "$dir/setfs/module"
	[ "$(cat "$dir/setfs/Kbuild" 2>/dev/null)" = "$kbuild" ] ||
		echo "$kbuild" >"$dir/setfs/Kbuild"
	sync_sources "$dir/setfs/kunit" "$REPO/kunit/"
	sync_sources "$dir/setfs/module" "$REPO/module/"
	record_stage "builtin tree" "$(git -C "$BUILTIN_SRC" rev-parse --short HEAD) + kunit/ module/" "$(elapsed "$t0")"
}

# ---------------------------------------------------------------- config

fragments() {
	echo "$REPO/config/base.config"
	kind_op fragments
	local f

	for f in $T_FRAGMENTS; do
		echo "$REPO/$f"
	done
	echo "$REPO/kunit/.kunitconfig"
	if [ "$T_FLAVOUR" = debug ]; then
		echo "$REPO/config/debug.config"
		for f in $T_DEBUG_FRAGMENTS; do
			echo "$REPO/$f"
		done
	fi
}

# Every option the fragments ask for must be in .config as asked.
verify_config() {
	local cfg=$1 frag line name dropped=()
	local -A setting=() origin=()

	shift
	# A later fragment overrides an earlier one (merge_config.sh does):
	# check each option's last setting.
	for frag in "$@"; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=*) name=${line%%=*} ;;
			'# CONFIG_'*' is not set') name=${line#\# }; name=${name%% *} ;;
			*) continue ;;
			esac
			setting[$name]=$line
			origin[$name]=${frag#"$REPO"/}
		done <"$frag"
	done
	for name in "${!setting[@]}"; do
		line=${setting[$name]}
		case "$line" in
		CONFIG_*=*) grep -qxF -- "$line" "$cfg" ;;
		*) ! grep -q "^$name=" "$cfg" ;;
		esac || dropped+=("$line (${origin[$name]})")
	done
	if [ ${#dropped[@]} -gt 0 ]; then
		printf '  %s\n' "${dropped[@]}" >&2
		die "$T_NAME: olddefconfig dropped or changed the options above (missing dependencies?); see $cfg"
	fi
}

configure_kernel() {
	local t0 key frags

	t0=$(now)
	mapfile -t frags < <(fragments)
	key="$(tree_id) $T_SRC_KEY $(hash_files "${frags[@]}" "$REPO/$T_RECORD")"
	if [ -n "$(tree_id)" ] && stamp_ok "$T_WORK/stamp.config" "$key" &&
	   [ -f "$T_BUILD/.config" ]; then
		record_stage config "up to date" "$(elapsed "$t0")"
		return
	fi
	mkdir -p "$T_BUILD" "$T_WORK"
	rm -f "$T_WORK/stamp.config"
	if ! (cd "$T_SRC" && ARCH=$T_LINUX_ARCH CROSS_COMPILE=$T_CROSS \
	      scripts/kconfig/merge_config.sh -n -O "$T_BUILD" "${frags[@]}") \
	      >"$T_WORK/config.log" 2>&1; then
		tail -n 40 "$T_WORK/config.log" >&2
		die "$T_NAME: merging the config fragments failed (log: $T_WORK/config.log)"
	fi
	make "${MAKE_ARGS[@]}" olddefconfig >>"$T_WORK/config.log" 2>&1 ||
		{ tail -n 40 "$T_WORK/config.log" >&2; die "$T_NAME: make olddefconfig failed"; }
	verify_config "$T_BUILD/.config" "${frags[@]}"
	echo "$key" >"$T_WORK/stamp.config"
	record_stage config "allnoconfig + ${#frags[@]} fragments, verified" "$(elapsed "$t0")"
}

# ----------------------------------------------------------------- build

run_make() {
	local log=$1 what=$2

	shift 2
	if ! make "${MAKE_ARGS[@]}" "$@" >"$log" 2>&1; then
		echo "---- last 40 lines of $log ----" >&2
		tail -n 40 "$log" >&2
		die "$T_NAME: $what failed (full log: $log)"
	fi
}

build_kernel() {
	local t0 key

	t0=$(now)
	key="$(tree_id) $T_SRC_KEY $(sha256sum <"$T_BUILD/.config" | cut -d' ' -f1) $("${T_CROSS}gcc" -dumpfullversion)"
	if [ -n "$(tree_id)" ] && stamp_ok "$T_KWORK/stamp.kernel" "$key" &&
	   [ -f "$T_BUILD/$T_IMAGE" ] && [ -f "$T_BUILD/Module.symvers" ] &&
	   [ -d "$T_KWORK/modroot/lib/modules" ]; then
		record_stage kernel "up to date" "$(elapsed "$t0")"
		KERNEL_KEY=$key
		return
	fi
	rm -f "$T_KWORK/stamp.kernel"
	info "building the $T_NAME kernel (log: $T_WORK/build.log)"
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
	run_make "$T_WORK/build.log" "kernel build" all
	# In-tree modules (test_module for the splice selftest) for the guest.
	rm -rf "$T_KWORK/modroot"
	run_make "$T_WORK/modules_install.log" "modules_install" modules_install \
		INSTALL_MOD_PATH="$T_KWORK/modroot" INSTALL_MOD_STRIP=1
	echo "$key" >"$T_KWORK/stamp.kernel"
	KERNEL_KEY=$key
	record_stage kernel "built" "$(elapsed "$t0")"
}

# sync_sources DEST SRC...: copy module sources into the cache, keeping
# the objects built there.  Content, not mtimes, decides what is copied,
# and a copied file gets the current time: a source older than the
# objects another worktree left here must still rebuild them.
sync_sources() {
	local dest=$1

	shift
	rsync -rl --checksum --delete --exclude '*.o' --exclude '*.ko' \
		--exclude '*.cmd' --exclude '*.mod' --exclude '*.mod.c' \
		--exclude modules.order --exclude Module.symvers "$@" "$dest/"
}

# The top-level Kbuild builds module/ and kunit/; they are synced into the
# cache so that targets build side by side and the repo stays clean.
build_modules() {
	local t0 key src=$T_WORK/ext

	t0=$(now)
	key="$KERNEL_KEY $(hash_dir_files "$REPO/Kbuild" "$REPO/module" "$REPO/kunit")"
	MODULES_KEY=$key
	if [ -n "$(tree_id)" ] && stamp_ok "$T_WORK/stamp.modules" "$key" &&
	   [ -f "$src/module/setfs_probe.ko" ] && [ -f "$src/kunit/setfs_kunit.ko" ]; then
		record_stage modules "up to date" "$(elapsed "$t0")"
		return
	fi
	rm -f "$T_WORK/stamp.modules"
	mkdir -p "$src"
	sync_sources "$src" "$REPO/Kbuild" "$REPO/module" "$REPO/kunit"
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
	run_make "$T_WORK/modules.log" "module build" M="$src" W=1 modules
	echo "$key" >"$T_WORK/stamp.modules"
	record_stage modules "built (W=1)" "$(elapsed "$t0")"
}

# mtime of every initramfs entry (the user tests check it).
CPIO_MTIME=1600000000

SPLICE_SELFTEST=tools/testing/selftests/splice

# 64-bit file offsets on 32-bit targets too (the cases pread at 2^32 and beyond).
USER_CFLAGS=(-static -O2 -g -Wall -Wextra -Werror -std=gnu11 -D_FILE_OFFSET_BITS=64)

build_user() {
	local t0 key srcs out=$T_WORK/user

	t0=$(now)
	mapfile -t srcs < <(find "$REPO/rootfs" -maxdepth 1 -name '*.c' | LC_ALL=C sort)
	key="$(hash_dir_files "$REPO/rootfs" "$REPO/module" "$TREE/$SPLICE_SELFTEST") $("${T_CROSS}gcc" -dumpfullversion) ${USER_CFLAGS[*]}"
	USER_KEY=$key
	if stamp_ok "$T_WORK/stamp.user" "$key" && [ -x "$out/setfs_user" ]; then
		record_stage user "up to date" "$(elapsed "$t0")"
		return
	fi
	rm -f "$T_WORK/stamp.user"
	mkdir -p "$out"
	if ! "${T_CROSS}gcc" "${USER_CFLAGS[@]}" -I"$REPO/module/include" \
	     -o "$out/setfs_user" "${srcs[@]}" >"$T_WORK/user.log" 2>&1; then
		tail -n 40 "$T_WORK/user.log" >&2
		die "$T_NAME: building the user test binary failed (log: $T_WORK/user.log)"
	fi
	# The tree's splice selftest helper, run by short_splice_read.sh.
	if ! "${T_CROSS}gcc" -static -O2 -o "$out/splice_read" \
	     "$TREE/$SPLICE_SELFTEST/splice_read.c" >>"$T_WORK/user.log" 2>&1; then
		tail -n 40 "$T_WORK/user.log" >&2
		die "$T_NAME: building $SPLICE_SELFTEST/splice_read.c failed"
	fi
	echo "$key" >"$T_WORK/stamp.user"
	record_stage user "built" "$(elapsed "$t0")"
}

# busybox for the guest: Debian's busybox-static for the guest's
# architecture, downloaded and unpacked into the cache, never installed.
fetch_busybox() {
	local dir=$CACHE/busybox/$T_DEB_ARCH${T_BUSYBOX_SUITE:+-$T_BUSYBOX_SUITE} deb bin

	BUSYBOX=$dir/bin/busybox
	[ -x "$BUSYBOX" ] && return 0
	rm -rf "$dir" "$dir.deb" "$dir.x"
	mkdir -p "$dir.deb"
	if [ -n "$T_BUSYBOX_SUITE" ]; then
		busybox_from_suite "$dir"
	else
		busybox_from_host_apt "$dir"
	fi
	deb=$(ls "$dir.deb"/busybox-static_*.deb)
	dpkg-deb -x "$deb" "$dir.x"
	mkdir -p "$dir/bin"
	# /bin/busybox before the /usr merge (Debian 12), /usr/bin after
	for bin in "$dir.x/bin/busybox" "$dir.x/usr/bin/busybox"; do
		[ ! -f "$bin" ] || mv "$bin" "$BUSYBOX"
	done
	rm -rf "$dir.x" "$dir.deb"
	[ -x "$BUSYBOX" ] || die "busybox-static:$T_DEB_ARCH has no /bin/busybox or /usr/bin/busybox"
}

busybox_from_host_apt() {
	local dir=$1

	if [ "$T_DEB_ARCH" != "$(dpkg --print-architecture)" ] &&
	   ! dpkg --print-foreign-architectures | grep -qx "$T_DEB_ARCH"; then
		[ "$(id -u)" -eq 0 ] || die "dpkg lacks architecture $T_DEB_ARCH (run: sudo dpkg --add-architecture $T_DEB_ARCH && sudo apt-get update)"
		dpkg --add-architecture "$T_DEB_ARCH"
		apt-get update >"$CACHE/apt.log" 2>&1 || die "apt-get update failed (log: $CACHE/apt.log)"
	fi
	if ! (cd "$dir.deb" && apt-get download "busybox-static:$T_DEB_ARCH") >"$CACHE/apt.log" 2>&1; then
		apt-get update >>"$CACHE/apt.log" 2>&1 || true
		(cd "$dir.deb" && apt-get download "busybox-static:$T_DEB_ARCH") >>"$CACHE/apt.log" 2>&1 ||
			die "cannot download busybox-static:$T_DEB_ARCH (log: $CACHE/apt.log)"
	fi
}

# busybox_from_suite DIR: busybox-static for T_DEB_ARCH from Debian's
# T_BUSYBOX_SUITE, with apt in a directory of its own (nothing of the
# host's apt changes).  apt checks the suite's InRelease against the
# host's debian-archive-keyring and the package against its hash.
busybox_from_suite() {
	local dir=$1 root=$1.apt opts log=$CACHE/apt-$T_DEB_ARCH-$T_BUSYBOX_SUITE.log

	rm -rf "$root"
	mkdir -p "$root/etc/preferences.d" "$root/lists/partial" \
		"$root/archives/partial" "$root/dpkg"
	: >"$root/dpkg/status"
	echo "deb [arch=$T_DEB_ARCH signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $T_BUSYBOX_SUITE main" \
		>"$root/etc/sources.list"
	opts=(-o "Dir::Etc::SourceList=$root/etc/sources.list"
	      -o Dir::Etc::SourceParts=- -o Dir::Etc::Preferences=-
	      -o "Dir::Etc::PreferencesParts=$root/etc/preferences.d"
	      -o "Dir::State::Lists=$root/lists" -o "Dir::Cache::Archives=$root/archives"
	      -o "Dir::State::status=$root/dpkg/status"
	      -o "APT::Architecture=$T_DEB_ARCH" -o "APT::Architectures=$T_DEB_ARCH"
	      -o Acquire::Languages=none)
	info "downloading busybox-static:$T_DEB_ARCH from Debian $T_BUSYBOX_SUITE"
	{ apt-get "${opts[@]}" update &&
	  (cd "$dir.deb" && apt-get "${opts[@]}" download busybox-static); } >"$log" 2>&1 ||
		die "cannot download busybox-static:$T_DEB_ARCH from Debian $T_BUSYBOX_SUITE (log: $log)"
	rm -rf "$root"
}

# The initramfs, written by the tree's usr/gen_init_cpio from a list that
# names every entry (mode, owner, device numbers) explicitly.
build_rootfs() {
	local t0 key list=$T_WORK/initramfs.list cpio=$T_WORK/initramfs.cpio
	local gen=$T_BUILD/usr/gen_init_cpio fixture

	t0=$(now)
	fetch_busybox
	key="$MODULES_KEY $USER_KEY $(hash_files "$REPO/rootfs/init" "$BUSYBOX" "$0" "$TREE/$SPLICE_SELFTEST/short_splice_read.sh" "$T_BUILD/.config")"
	if stamp_ok "$T_WORK/stamp.rootfs" "$key" && [ -f "$cpio" ]; then
		record_stage rootfs "up to date" "$(elapsed "$t0")"
		return
	fi
	rm -f "$T_WORK/stamp.rootfs"
	[ -x "$gen" ] || die "$gen is missing: the kernel config needs CONFIG_BLK_DEV_INITRD=y"
	# Entries the user tests check (the seed's init-time helpers unpack
	# them): modes, owners, links, a device node, fixed mtimes.
	fixture=$T_WORK/initramfs.fixture
	printf 'setfs fixture\n' >"$fixture"
	touch -d @"$CPIO_MTIME" "$fixture"
	cat >"$list" <<EOF
dir /bin 0755 0 0
dir /sbin 0755 0 0
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
nod /dev/null 0666 0 0 c 1 3
dir /proc 0555 0 0
dir /sys 0555 0 0
dir /tmp 1777 0 0
dir /root 0700 0 0
file /bin/busybox $BUSYBOX 0755 0 0
slink /bin/sh busybox 0777 0 0
file /init $REPO/rootfs/init 0755 0 0
file /root/setfs_probe.ko $T_WORK/ext/module/setfs_probe.ko 0644 0 0
file /root/setfs_kunit.ko $T_WORK/ext/kunit/setfs_kunit.ko 0644 0 0
file /root/setfs_user $T_WORK/user/setfs_user 0755 0 0
file /root/kernel.config $T_BUILD/.config 0644 0 0
dir /setfs 0755 0 0
dir /setfs/a 0750 1000 1000
dir /setfs/a/b 0700 0 0
file /setfs/a/b/file $fixture 0640 1000 100 /setfs/hardlink
slink /setfs/symlink a/b/file 0777 0 0
nod /setfs/chardev 0600 0 0 c 1 3
dir /root/selftests 0755 0 0
dir /root/selftests/splice 0755 0 0
file /root/selftests/splice/short_splice_read.sh $TREE/$SPLICE_SELFTEST/short_splice_read.sh 0755 0 0
file /root/selftests/splice/splice_read $T_WORK/user/splice_read 0755 0 0
EOF
	# The installed in-tree modules, for modprobe in the guest.
	(cd "$T_KWORK/modroot" &&
	 find lib -type d -printf 'dir /%p 0755 0 0\n' &&
	 find lib -type f -printf "file /%p $T_KWORK/modroot/%p 0644 0 0\n") >>"$list"
	"$gen" -t "$CPIO_MTIME" "$list" >"$cpio.new" 2>"$T_WORK/rootfs.log" ||
		{ cat "$T_WORK/rootfs.log" >&2; die "$T_NAME: gen_init_cpio failed"; }
	mv "$cpio.new" "$cpio"
	echo "$key" >"$T_WORK/stamp.rootfs"
	record_stage rootfs "built ($(du -k "$cpio" | cut -f1) KiB)" "$(elapsed "$t0")"
}

# ---------------------------------------------------------------- distro

# A distribution kernel (T_KIND=distro): Debian's linux-image for
# T_DEB_FLAVOUR and its headers, downloaded with apt-get download and
# unpacked into the cache with dpkg-deb, never installed.  The ABI is the
# one whose version is the linux-source package's, so that the distro
# guest and the tree guests run the same 6.1 release.
DISTRO_DIR=
DISTRO_KVER=
distro_paths() {
	local dir=$CACHE/distro/$T_DEB_FLAVOUR

	DISTRO_DIR=$dir/root
	DISTRO_KVER=
	[ ! -f "$dir/kver" ] || DISTRO_KVER=$(cat "$dir/kver")
}

# The ABI name (6.1.0-N) of the image package whose version is $1.
distro_abi() {
	local want=$1 pkg ver best=

	while read -r pkg; do
		ver=$(apt-cache show --no-all-versions "$pkg" 2>/dev/null |
			sed -n 's/^Version: //p' | head -n 1)
		if [ "$ver" = "$want" ]; then
			pkg=${pkg#linux-image-}
			echo "${pkg%%-"$T_DEB_FLAVOUR"*}"
			return 0
		fi
		best=$pkg
	done < <(apt-cache search --names-only \
		"^linux-image-6\.1\.0-[0-9]+-$T_DEB_FLAVOUR(-unsigned)?\$" |
		cut -d' ' -f1 | sort -V)
	[ -n "$best" ] || return 1
	echo "no linux-image for $T_DEB_FLAVOUR at version $want; using ${best}" >&2
	best=${best#linux-image-}
	echo "${best%%-"$T_DEB_FLAVOUR"*}"
}

fetch_distro() {
	local t0 dir=$CACHE/distro/$T_DEB_FLAVOUR srcver abi ver deb kver
	local -a pkgs

	t0=$(now)
	distro_paths
	if [ -n "$DISTRO_KVER" ] && [ -d "$DISTRO_DIR/lib/modules/$DISTRO_KVER" ]; then
		record_stage distro "Debian $DISTRO_KVER (cached)" "$(elapsed "$t0")"
		return
	fi
	srcver=$(dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null) ||
		die "$SOURCE_PKG is not installed"
	abi=$(distro_abi "$srcver") || {
		apt-get update >"$CACHE/apt.log" 2>&1 || true
		abi=$(distro_abi "$srcver")
	} || die "$T_NAME: apt knows no linux-image-6.1.0-*-$T_DEB_FLAVOUR package"
	kver=$abi-$T_DEB_FLAVOUR
	ver=$(apt-cache show --no-all-versions "linux-headers-$kver" |
		sed -n 's/^Version: //p' | head -n 1)
	[ -n "$ver" ] || die "$T_NAME: no linux-headers-$kver package"
	pkgs=("${T_DEB_IMAGE//@KVER@/$kver}=$ver" "linux-headers-$kver=$ver"
	      "linux-headers-$abi-common=$ver" "linux-kbuild-6.1=$ver")
	info "downloading ${pkgs[*]}"
	rm -rf "$dir"
	mkdir -p "$dir/debs"
	(cd "$dir/debs" && apt-get download "${pkgs[@]}") >"$dir/download.log" 2>&1 ||
		{ tail -n 20 "$dir/download.log" >&2
		  die "$T_NAME: apt-get download failed (log: $dir/download.log)"; }
	mkdir -p "$dir/root.tmp"
	for deb in "$dir"/debs/*.deb; do
		dpkg-deb -x "$deb" "$dir/root.tmp"
	done
	# The headers' Makefile includes the common part by absolute path.
	sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" \
		"$dir/root.tmp/usr/src/linux-headers-$kver/Makefile"
	mv "$dir/root.tmp" "$DISTRO_DIR"
	rm -rf "$dir/debs"
	echo "$kver" >"$dir/kver"
	DISTRO_KVER=$kver
	record_stage distro "Debian $kver ($ver) downloaded" "$(elapsed "$t0")"
}

# setfs_probe.ko against the distribution's headers, the ordinary way
# (make -C <headers> M=...), installed into the unpacked module tree's
# updates/ so that modprobe finds it.  No setfs_kunit.ko: a distro kernel
# without CONFIG_KUNIT cannot load it, and the guest is told why.
build_modules_distro() {
	local t0 key src=$T_WORK/ext kdir mdir
	local -a suites

	t0=$(now)
	kdir=$DISTRO_DIR/usr/src/linux-headers-$DISTRO_KVER
	mdir=$DISTRO_DIR/lib/modules/$DISTRO_KVER
	key="$DISTRO_KVER $(hash_dir_files "$REPO/Kbuild" "$REPO/module" "$REPO/kunit") $(hash_files "$TREE/lib/test_module.c") $(gcc -dumpfullversion)"
	MODULES_KEY=$key
	if stamp_ok "$T_WORK/stamp.modules" "$key" &&
	   [ -f "$mdir/updates/setfs_probe.ko" ]; then
		record_stage modules "up to date" "$(elapsed "$t0")"
		return
	fi
	rm -f "$T_WORK/stamp.modules"
	mkdir -p "$src"
	sync_sources "$src" "$REPO/module"
	# The splice selftest loads lib/test_module.c, which Debian does not
	# build (no CONFIG_TEST_LKM): build it from the tree the same way.
	mkdir -p "$src/test_module"
	cp "$TREE/lib/test_module.c" "$src/test_module/"
	echo 'obj-m += test_module.o' >"$src/test_module/Kbuild"
	for m in module test_module; do
		if ! make -C "$kdir" M="$src/$m" W=1 modules >"$T_WORK/modules.log" 2>&1; then
			tail -n 40 "$T_WORK/modules.log" >&2
			die "$T_NAME: building $m against $kdir failed (log: $T_WORK/modules.log)"
		fi
	done
	mkdir -p "$mdir/updates"
	cp "$src/module/setfs_probe.ko" "$src/test_module/test_module.ko" "$mdir/updates/"
	depmod -b "$DISTRO_DIR" "$DISTRO_KVER" ||
		die "$T_NAME: depmod -b $DISTRO_DIR $DISTRO_KVER failed"
	mkdir -p "$T_WORK/stage/root"
	if grep -qx 'CONFIG_KUNIT=[ym]' "$DISTRO_DIR/boot/config-$DISTRO_KVER"; then
		die "$T_NAME: this kernel has CONFIG_KUNIT: build setfs_kunit.ko for it (not done yet)"
	fi
	mapfile -t suites < <(grep -h -A1 'struct kunit_suite' "$REPO"/kunit/*.c |
		sed -n 's/.*\.name = "\(setfs_[a-z_]*\)".*/\1/p' | LC_ALL=C sort)
	{
		echo "$DISTRO_KVER has no CONFIG_KUNIT, so setfs_kunit.ko cannot load"
		printf '%s\n' "${suites[@]}"
	} >"$T_WORK/stage/root/kunit.skip"
	echo "$key" >"$T_WORK/stamp.modules"
	record_stage modules "built against linux-headers-$DISTRO_KVER (W=1)" "$(elapsed "$t0")"
}

# The initramfs of a distro guest: dracut on the unpacked module tree with
# our dracut module (rootfs/dracut/90setfs), which installs the tests and
# runs rootfs/init from a cmdline hook.  dracut reads its modules from
# dracutbasedir: a directory of links to the system's dracut plus ours.
build_rootfs_dracut() {
	local t0 key stage=$T_WORK/stage base=$T_WORK/dracut-base out=$T_WORK/initramfs.cpio f

	t0=$(now)
	fetch_busybox
	key="$MODULES_KEY $USER_KEY $(hash_dir_files "$REPO/rootfs/dracut") $(hash_files "$REPO/rootfs/init" "$BUSYBOX" "$0") $(dpkg-query -W -f='${Version}' dracut-core 2>/dev/null || true)"
	if stamp_ok "$T_WORK/stamp.rootfs" "$key" && [ -f "$out" ]; then
		record_stage rootfs "up to date" "$(elapsed "$t0")"
		return
	fi
	rm -f "$T_WORK/stamp.rootfs"
	command -v dracut >/dev/null || die "$T_NAME: dracut is missing (package dracut-core)"
	mkdir -p "$stage/root/selftests/splice"
	cp "$REPO/rootfs/init" "$stage/init"
	cp "$BUSYBOX" "$stage/busybox"
	# setfs_user_unload reloads the probe from /root with finit_module().
	cp "$T_WORK/user/setfs_user" "$T_WORK/ext/module/setfs_probe.ko" "$stage/root/"
	cp "$DISTRO_DIR/boot/config-$DISTRO_KVER" "$stage/root/kernel.config"
	cp "$TREE/$SPLICE_SELFTEST/short_splice_read.sh" "$T_WORK/user/splice_read" \
		"$stage/root/selftests/splice/"
	rm -rf "$base"
	mkdir -p "$base/modules.d"
	for f in /usr/lib/dracut/*; do
		[ "${f##*/}" = modules.d ] || ln -s "$f" "$base/"
	done
	for f in /usr/lib/dracut/modules.d/*; do
		ln -s "$f" "$base/modules.d/"
	done
	ln -s "$REPO/rootfs/dracut/90setfs" "$base/modules.d/90setfs"
	mkdir -p "$T_WORK/dracut-conf.d" "$T_WORK/dracut-tmp"
	if ! SETFS_STAGE=$stage SETFS_MTIME=$CPIO_MTIME dracutbasedir=$base \
	     dracut --force --no-hostonly --no-hostonly-cmdline --no-early-microcode \
		--conf /dev/null --confdir "$T_WORK/dracut-conf.d" \
		--tmpdir "$T_WORK/dracut-tmp" --no-compress \
		--kver "$DISTRO_KVER" --kmoddir "$DISTRO_DIR/lib/modules/$DISTRO_KVER" \
		--modules "base setfs" "$out.new" >"$T_WORK/rootfs.log" 2>&1; then
		tail -n 40 "$T_WORK/rootfs.log" >&2
		die "$T_NAME: dracut failed (log: $T_WORK/rootfs.log)"
	fi
	mv "$out.new" "$out"
	echo "$key" >"$T_WORK/stamp.rootfs"
	record_stage rootfs "dracut ($(du -k "$out" | cut -f1) KiB)" "$(elapsed "$t0")"
}

# ------------------------------------------------------------------ boot

# Guests run in the background (timeout(1) around QEMU: killing it kills
# QEMU); on exit or Ctrl-C none is left behind, nor a half-written image.
QEMU_PIDS=()
# shellcheck disable=SC2317 # run from the traps below
cleanup() {
	local pid

	for pid in "${QEMU_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${QEMU_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	QEMU_PIDS=()
	rm -rf "$CACHE"/work/*/initramfs.cpio.new "$CACHE"/work/*/dracut-tmp \
		"$CACHE/extract.tmp" 2>/dev/null || true
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted; guests stopped" >&2; cleanup; exit 130' INT TERM

# KVM only when the guest matches the host and a short boot proves it
# works; nested KVM here exists but hangs, so the answer is cached.
accel_for_target() {
	local want=${SETFS_ACCEL:-auto} cachef=$CACHE/kvm.$T_NAME probe_log

	case "$want" in
	tcg|kvm) echo "$want"; return ;;
	auto) ;;
	*) die "SETFS_ACCEL must be tcg, kvm or auto, not '$want'" ;;
	esac
	# KVM runs a guest of the host's own architecture.  Compare Debian's
	# names for both: Linux's ARCH (powerpc, arm64) is not uname -m's
	# (ppc64le, aarch64), and the record keeps them apart.
	if [ "$T_DEB_ARCH" != "$(dpkg --print-architecture)" ] || [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	if [ ! -f "$cachef" ]; then
		probe_log=$T_WORK/kvm-probe.log
		# shellcheck disable=SC2086 # T_QEMU_ARGS is a word list
		if timeout -k 2 15 "$T_QEMU" -accel kvm $T_QEMU_ARGS -m 256 \
		   -nodefaults -display none -no-reboot -serial "file:$probe_log" \
		   -kernel "$(guest_kernel)" \
		   -append "console=$T_CONSOLE panic=-1" >/dev/null 2>&1 &&
		   grep -q 'Kernel panic' "$probe_log"; then
			echo kvm >"$cachef"
		else
			echo tcg >"$cachef"
		fi
	fi
	cat "$cachef"
}

guest_kernel() {
	kind_op image
}

# The firmware a target's QEMU arguments name must exist: say which
# package has it rather than let QEMU fail on it.
check_firmware() {
	local fw=$T_FIRMWARE d

	[ -n "$fw" ] || return 0
	for d in /usr/share/qemu /usr/share/seabios /usr/lib/ipxe/qemu; do
		[ -f "$d/$fw" ] && return 0
	done
	die "$T_NAME: QEMU firmware $fw not found in /usr/share/qemu (Debian package qemu-system-data)"
}

# The command line words of the soak (SOAK: quick or full), with a
# leading space; SETFS_GUEST_ARGS comes after them and wins.
soak_args() {
	[ "$SOAK" != quick ] || echo " $SOAK_QUICK"
}

# qemu_cmd MODE ACCEL: the QEMU command line in QEMU[].
qemu_cmd() {
	local mode=$1 accel=$2 kernel

	kernel=$(guest_kernel)
	[ -f "$kernel" ] || die "$T_NAME: no kernel image $kernel"
	kind_op qemu "$mode"
	# The record's arguments after the defaults: they may override them.
	# shellcheck disable=SC2206 # T_QEMU_ARGS is a word list by design
	QEMU=("$T_QEMU" -accel "$accel" -m 512 -smp 2 -nodefaults -display none
	      -no-reboot $T_QEMU_ARGS -kernel "$kernel" "${KIND_QEMU[@]}")
}

boot_shell() {
	local accel

	check_firmware
	accel=$(accel_for_target)
	qemu_cmd shell "$accel"
	info "booting $T_NAME ($accel); leave the shell with 'exit' or Ctrl-A x"
	"${QEMU[@]}" -serial mon:stdio
}

# boot_start: start the target's guest in the background; all targets'
# guests run side by side.  boot_finish waits for it.
declare -A BOOT_PID=() BOOT_T0=()
boot_start() {
	local accel log=$T_WORK/console.log

	check_firmware
	accel=$(accel_for_target)
	qemu_cmd test "$accel"
	rm -f "$log"
	info "booting $T_NAME ($accel, timeout ${BOOT_TIMEOUT}s, console: $log)"
	BOOT_T0[$T_NAME]=$(now)
	timeout -k 5 "$BOOT_TIMEOUT" "${QEMU[@]}" -serial "file:$log" \
		</dev/null >"$T_WORK/qemu.log" 2>&1 &
	BOOT_PID[$T_NAME]=$!
	QEMU_PIDS+=("$!")
	echo "$accel" >"$T_WORK/accel"
}

# boot_finish: 0 when the guest powered off by itself in time; else the
# failure is printed (with the console's last lines) and in GUEST_ERROR.
boot_finish() {
	local rc=0 end log=$T_WORK/console.log

	GUEST_ERROR=
	wait "${BOOT_PID[$T_NAME]}" || rc=$?
	# The guest's last console write is when it powered off.
	end=$(stat -c %.9Y "$log" 2>/dev/null || now)
	BOOT_SECONDS=$(awk -v a="${BOOT_T0[$T_NAME]}" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
	record_stage "boot+tests" "$(cat "$T_WORK/accel")" "$BOOT_SECONDS"
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		guest_failure "the guest did not finish within ${BOOT_TIMEOUT}s (hang?)"
	elif [ $rc -ne 0 ]; then
		cat "$T_WORK/qemu.log" >&2
		guest_failure "QEMU exited with status $rc"
	fi
	[ -z "$GUEST_ERROR" ]
}

guest_failure() {
	echo "---- last 40 console lines ($T_WORK/console.log) ----" >&2
	tail -n 40 "$T_WORK/console.log" >&2 || true
	echo "run.sh: error: $T_NAME: $1" >&2
	GUEST_ERROR=$1
}

# ---------------------------------------------------------------- report

# Cut the guest's KTAP block out of the console, parse it with the tree's
# kunit_parser, count the results, check taint and splats: harness/report.py
# (the guest protocol's host side is harness/guest.py).  It prints the
# target's report and leaves the numbers in $T_WORK/report.txt.
report_target() {
	local rc=0 key val

	(cd "$REPO" && python3 -m harness.report --tree "$TREE" --name "$T_NAME" \
		--work "$T_WORK" --kind "$T_KIND" ${FILTER:+--filter "$FILTER"}) || rc=$?
	if [ "$rc" -eq 3 ]; then	# harness.report.NO_REPORT
		guest_failure "$(sed -n 's/^guest_error=//p' "$T_WORK/report.txt")"
		return 1
	fi
	[ "$rc" -eq 0 ] || die "$T_NAME: harness/report.py failed (exit $rc)"
	T_PASS=0 T_FAIL=0 T_SKIP=0 T_SPLIT=
	while IFS='=' read -r key val; do
		case "$key" in
		passed) T_PASS=$val ;;
		failed) T_FAIL=$val ;;
		skipped) T_SKIP=$val ;;
		split) T_SPLIT=$val ;;
		failcase) FAILED_CASES+=("$T_NAME: $val") ;;
		esac
	done <"$T_WORK/report.txt"
}

# ---------------------------------------------------------- check-patches

# Where an object is compile-tested: a path prefix -> the ARCH to build it
# with (first match wins; everything else: x86_64).  Architecture code that
# depends on a machine, not just on arch/, is listed explicitly.
CHECK_ARCH_BY_PATH="
arch/x86/ x86_64
arch/powerpc/ powerpc
drivers/macintosh/ powerpc
arch/arm/ arm
arch/arm64/ arm64
arch/m68k/ m68k
drivers/nubus/ m68k
arch/riscv/ riscv
arch/s390/ s390
drivers/s390/ s390
arch/alpha/ alpha
arch/sh/ sh
arch/sparc/kernel/led.c sparc32
arch/sparc/ sparc
arch/um/ um
arch/parisc/ parisc
drivers/parisc/ parisc
drivers/pnp/pnpbios/ i386
drivers/pnp/isapnp/ i386
drivers/zorro/ m68k
arch/ia64/ ia64
arch/xtensa/ xtensa
"

# ARCH -> "make ARCH value, cross prefix, Debian package of the compiler"
# and options allmodconfig must start from (KCONFIG_ALLCONFIG), if any.
check_toolchain() {
	case "$1" in
	x86_64) echo "x86_64 - gcc" ;;
	i386) echo "i386 - gcc" ;;
	um) echo "um - gcc" ;;
	powerpc) echo "powerpc powerpc64le-linux-gnu- gcc-powerpc64le-linux-gnu" ;;
	arm) echo "arm arm-linux-gnueabihf- gcc-arm-linux-gnueabihf" ;;
	arm64) echo "arm64 aarch64-linux-gnu- gcc-aarch64-linux-gnu" ;;
	m68k) echo "m68k m68k-linux-gnu- gcc-m68k-linux-gnu" ;;
	riscv) echo "riscv riscv64-linux-gnu- gcc-riscv64-linux-gnu" ;;
	s390) echo "s390 s390x-linux-gnu- gcc-s390x-linux-gnu" ;;
	alpha) echo "alpha alpha-linux-gnu- gcc-alpha-linux-gnu" ;;
	sh) echo "sh sh4-linux-gnu- gcc-sh4-linux-gnu" ;;
	sparc) echo "sparc sparc64-linux-gnu- gcc-sparc64-linux-gnu" ;;
	sparc32) echo "sparc sparc64-linux-gnu- gcc-sparc64-linux-gnu CONFIG_64BIT=n" ;;
	parisc) echo "parisc hppa-linux-gnu- gcc-hppa-linux-gnu" ;;
	# No Debian cross compiler: listed as not compile-tested.
	ia64) echo "ia64 ia64-linux-gnu- gcc-ia64-linux-gnu" ;;
	xtensa) echo "xtensa xtensa-linux-gnu- gcc-xtensa-linux-gnu" ;;
	*) return 1 ;;
	esac
}

check_arch_of() {
	local f=$1 prefix arch

	while read -r prefix arch; do
		[ -n "$prefix" ] || continue
		case "$f" in "$prefix"*) echo "$arch"; return ;; esac
	done <<<"$CHECK_ARCH_BY_PATH"
	echo x86_64
}

# The scratch tree check-patches applies the series to, one patch at a
# time: a git worktree of $TREE that run.sh owns and resets freely.
CHECK_TREE=$CACHE/check/tree

check_tree_reset() {
	if [ ! -d "$CHECK_TREE" ]; then
		git -C "$TREE" worktree prune
		mkdir -p "$CACHE/check"
		git -C "$TREE" worktree add -q --detach "$CHECK_TREE" pristine
	fi
	git -C "$CHECK_TREE" am --abort >/dev/null 2>&1 || true
	git -C "$CHECK_TREE" reset -q --hard pristine
}

# check_make_args ARCH: set CHECK_ARGS to make in an allmodconfig build
# dir of the check tree with "prepare" done, so that single objects can be
# built in it.  Returns 1 when the compiler for ARCH is missing.
declare -A CHECK_READY=() CHECK_UNUSABLE=()
check_make_args() {
	local arch=$1 karch cross pkg seed dir log

	read -r karch cross pkg seed < <(check_toolchain "$arch")
	[ "$cross" = - ] && cross=
	[ -z "${CHECK_UNUSABLE[$arch]:-}" ] || return 1
	command -v "${cross}gcc" >/dev/null || ensure_pkgs_soft "$pkg"
	if ! command -v "${cross}gcc" >/dev/null; then
		CHECK_UNUSABLE[$arch]="no ${cross}gcc (Debian package $pkg)"
		return 1
	fi
	dir=$CACHE/check/build-$arch
	log=$CACHE/check/prepare-$arch.log
	CHECK_ARGS=(-C "$CHECK_TREE" O="$dir" ARCH="$karch" CROSS_COMPILE="$cross"
		    CC="ccache ${cross}gcc" HOSTCC="ccache gcc" -j"$JOBS")
	if [ -z "${CHECK_READY[$arch]:-}" ]; then
		mkdir -p "$dir"
		info "check-patches: allmodconfig + prepare for $arch (log: $log)"
		printf '%s\n' "$seed" >"$dir.allconfig"
		if ! make "${CHECK_ARGS[@]}" KCONFIG_ALLCONFIG="$dir.allconfig" \
		     allmodconfig >"$log" 2>&1 ||
		   ! make "${CHECK_ARGS[@]}" prepare >>"$log" 2>&1; then
			# The pristine tree itself does not build here: say so
			# with the first error, and go on with the other arches.
			CHECK_UNUSABLE[$arch]="allmodconfig prepare fails ($(grep -m1 'error:' "$log" |
				sed 's|.*/check/tree/||' | cut -c1-100); log: $log)"
			return 1
		fi
		CHECK_READY[$arch]=1
	fi
}

# Like ensure_pkgs, but a package that cannot be installed is only noted.
ensure_pkgs_soft() {
	( ensure_pkgs "$@" ) >/dev/null 2>&1 || true
}

# The macro or function around line $2 of file $1 (a header).
enclosing_symbol() {
	awk -v L="$2" '
		NR > L { exit }
		/^#define[ \t]/ { name = $2; sub(/\(.*/, "", name) }
		!/\\$/ && NR < L { name = "" }
		END { print name }
	' "$1"
}

# A .c file that another one #includes (kernel/sched/psi.c in
# build_utility.c; hostap_download.c in hostap_hw.c, itself included by
# hostap_pci.c) is built through the outermost includer.
check_includer() {
	local f=$1 by

	for _ in 1 2 3; do
		by=$(git -C "$CHECK_TREE" grep -l -E \
			"^#[[:space:]]*include[[:space:]]+\"$(basename "$f")\"" \
			-- "$(dirname "$f")/*.c" | head -n 1) || true
		[ -n "$by" ] || break
		f=$by
	done
	echo "$f"
}

# The .c files whose objects show that a patch builds: the .c files it
# touches, and for a header the .c files that use the macros it changes
# or the function named in the hunk header (at most 8 per symbol).
# obj_disabled FILE.c: its Makefile line "obj-$(CONFIG_X) += FILE.o" names
# an option that x86_64's allmodconfig leaves off (an ARM-only driver, say),
# so building it there would fail for reasons of its own.
obj_disabled() {
	local f=$1 base sym cfg=$CACHE/check/build-x86_64/.config mk

	base=${f##*/}
	base=${base%.c}
	mk=$CHECK_TREE/${f%/*}/Makefile
	[ -f "$cfg" ] && [ -f "$mk" ] || return 1
	sym=$(sed -n "s/^obj-\$(\(CONFIG_[A-Z0-9_]*\))[[:space:]]*[+:]*=.*[[:space:]]$base\.o\b.*/\1/p" "$mk" | head -n 1)
	[ -n "$sym" ] || return 1
	! grep -qE "^$sym=[ym]" "$cfg"
}

check_sources() {
	local rev=$1 f sym line

	while read -r f; do
		case "$f" in
		*.c) check_includer "$f" ;;
		*.h)
			{
				git -C "$CHECK_TREE" diff -U0 "$rev~1" "$rev" -- "$f" |
					sed -n 's/^@@ -[0-9,]* +\([0-9]*\).*/\1/p' |
					while read -r line; do
						enclosing_symbol "$CHECK_TREE/$f" "$line"
					done
				# The function or macro named in a hunk header, unless
				# the hunk only adds lines after it ("-N,0"): then it
				# is context, not changed (pcm_dbg() before a new
				# declaration in <sound/pcm.h>).
				git -C "$CHECK_TREE" diff -U0 "$rev~1" "$rev" -- "$f" |
					sed -n '/^@@ -[0-9]*,0 /d
						s/^@@ .* @@ .*[^A-Za-z_0-9]\([A-Za-z_][A-Za-z_0-9]*\)(.*/\1/p'
			} | sort -u | while read -r sym; do
				[ -n "$sym" ] || continue
				# A header under arch/X/ is built by X's compiler
				# only: its users in arch/X/, else the generic
				# users, built for X ("FILE X").
				case "$f" in
				arch/*)
					local a=${f#arch/}
					a=${a%%/*}
					{
						git -C "$CHECK_TREE" grep -l -w "$sym" -- "arch/$a/*.c" ||
						git -C "$CHECK_TREE" grep -l -w "$sym" -- '*.c' ':(exclude)arch/*' |
							sed "s|\$| $(check_arch_of "$f")|"
					} ;;
				*) git -C "$CHECK_TREE" grep -l -w "$sym" -- '*.c' ':(exclude)arch/*' |
					while read -r u; do
						! obj_disabled "$u" || continue
						echo "$u"
					done ;;
				esac | head -n 8 || true	# a symbol no .c file uses
			done
			;;
		esac
	done < <(git -C "$CHECK_TREE" diff --name-only "$rev~1" "$rev") | sort -u
}

# check_comments_only REV: whether REV changes only comments in its C
# files, i.e. each one is the same before and after once the compiler has
# stripped the comments (nothing to compile-test then).
check_comments_only() {
	local rev=$1 f a b

	while read -r f; do
		case "$f" in *.c|*.h|*.S) ;; *) continue ;; esac
		a=$(git -C "$CHECK_TREE" show "$rev~1:$f" | uncomment) || return 1
		b=$(git -C "$CHECK_TREE" show "$rev:$f" | uncomment) || return 1
		[ -n "$a" ] && [ "$a" = "$b" ] || return 1
	done < <(git -C "$CHECK_TREE" diff --name-only "$rev~1" "$rev")
}

# C on stdin without its comments (directives kept, nothing expanded).
uncomment() {
	gcc -fpreprocessed -dD -E -P -x c - 2>/dev/null
}

# check_fails_before REV ARCH OBJS N: whether OBJS also fail to build on
# REV's parent, i.e. the failure is not this patch's.
check_fails_before() {
	local rev=$1 arch=$2 objs=$3 n=$4 rc=0

	git -C "$CHECK_TREE" checkout -q --detach "$rev~1"
	# shellcheck disable=SC2086 # a list of objects
	make "${CHECK_ARGS[@]}" -j1 $objs >"$CACHE/check/logs/$n-$arch-before.log" 2>&1 || rc=1
	git -C "$CHECK_TREE" checkout -q --detach "$rev"
	[ "$rc" -eq 1 ]
}

# checkpatch_exceptions PATCH REPORTS: the reports that are not accepted
# in kernel-patches/checkpatch-exceptions ("patch-file|text|reason"); the
# accepted ones are printed with their reason.
checkpatch_exceptions() {
	local patch=$1 line name text reason kept="" accepted
	local list=$REPO/kernel-patches/checkpatch-exceptions

	while IFS= read -r line; do
		[ -n "$line" ] || continue
		accepted=
		if [ -f "$list" ]; then
			while IFS='|' read -r name text reason; do
				case "$name" in ''|'#'*) continue ;; esac
				if [ "$name" = "$patch" ] && [[ "$line" == *"$text"* ]]; then
					accepted=$reason
					break
				fi
			done <"$list"
		fi
		if [ -n "$accepted" ]; then
			echo "        accepted: ${line##*: } ($accepted)" >&2
		else
			kept+=$line$'\n'
		fi
	done <<<"$2"
	printf '%s' "$kept"
}

# The compiler's and sparse's warnings (make C=1 W=1, -Werror off) for
# objects built in the check tree at REV, one "file: message" per line,
# without line numbers so that code moved by a patch still matches.
check_warnings_at() {
	local rev=$1 arch=$2 log=$3 f
	shift 3

	git -C "$CHECK_TREE" checkout -q --detach "$rev"
	for f in "$@"; do
		rm -f "$CACHE/check/build-$arch/$f"
	done
	# One job: see cmd_check_patches.  A build error is a warning too.
	make "${CHECK_ARGS[@]}" -j1 C=1 W=1 KCFLAGS=-Wno-error "$@" >"$log" 2>&1 || true
	sed -n 's|^\(\.\./\)*||; s|^'"$CHECK_TREE"'/||
		s#^\([^: ]*\.[ch]\):[0-9]*\(:[0-9]*\)\{0,1\}: \(warning\|error\): \(.*\)#\1: \3: \4#p' \
		"$log" | sort
}

# W=1 and sparse over every C file the series touches, at the pristine
# tree and at the last patch: the series may add no warning.  Counts one
# case per architecture.
check_new_warnings() {
	local final=$1 f arch before after new
	local -A objs=()

	command -v sparse >/dev/null || ensure_pkgs sparse
	while read -r f; do
		[ -f "$CHECK_TREE/$f" ] || continue
		f=$(check_includer "$f")
		arch=$(check_arch_of "$f")
		objs[$arch]+=" ${f%.c}.o"
	done < <(git -C "$CHECK_TREE" diff --name-only pristine "$final" -- '*.c')
	for arch in "${!objs[@]}"; do
		if ! check_make_args "$arch"; then
			echo "warnings/$arch: not built (${CHECK_UNUSABLE[$arch]})"
			continue
		fi
		# shellcheck disable=SC2086 # a list of objects
		before=$(check_warnings_at pristine "$arch" \
			"$CACHE/check/logs/warnings-pristine-$arch.log" ${objs[$arch]})
		# shellcheck disable=SC2086 # a list of objects
		after=$(check_warnings_at "$final" "$arch" \
			"$CACHE/check/logs/warnings-series-$arch.log" ${objs[$arch]})
		new=$(comm -13 <(echo "$before") <(echo "$after") | sed '/^$/d')
		if [ -z "$new" ]; then
			echo "ok warnings/$arch: $(wc -w <<<"${objs[$arch]}") objects, C=1 W=1, no new warning ($(grep -c . <<<"$after" || true) before and after)"
			WARN_P=$((WARN_P + 1))
		else
			echo "not ok warnings/$arch: new with the series (logs: $CACHE/check/logs/warnings-*-$arch.log):"
			printf '        %s\n' "${new//$'\n'/$'\n'        }"
			WARN_F=$((WARN_F + 1))
		fi
	done
	git -C "$CHECK_TREE" checkout -q --detach "$final"
}

# ------------------------------------------------------------ static checks

# The Coccinelle rules of kernel-patches/coccinelle/ that check-patches runs
# over the series (each prints "file:line: RULE: message"), and the package
# that has spatch.
COCCI_DIR=$REPO/kernel-patches/coccinelle
COCCI_RULES="pos_narrow iov_iter_fields copy_under_lock"
# python3-ply, python3-git: checkpatch runs scripts/spdxcheck.py on the
# files a patch adds (the uaccess_tail.c files of kernel-patches/uaccess/),
# which imports both.
CHECK_PKGS="coccinelle python3-ply python3-git"

# cocci_run RULE DIR FILE...: RULE's findings on the FILEs (relative to
# DIR), sorted.  One spatch per file, $JOBS at a time: the files given to
# one spatch are matched as one unit.  Fails when spatch fails on a file
# (its messages are in $CACHE/check/logs/cocci.log).
cocci_run() {
	local rule=$1 dir=$2 out rc=0

	shift 2
	[ $# -gt 0 ] || return 0
	out=$(cd "$dir" && printf '%s\0' "$@" | xargs -0 -r -n 1 -P "$JOBS" \
		spatch -D report --very-quiet --no-includes --include-headers \
		--timeout 120 --sp-file "$COCCI_DIR/$rule.cocci" \
		2>>"$CACHE/check/logs/cocci.log") || rc=$?
	[ -z "$out" ] || sort -t: -k1,1 -k2,2n <<<"$out"
	return "$rc"
}

# cocci_expected FIXTURE: "RULE LINE" for each "expect: RULE" comment.
cocci_expected() {
	awk '{
		s = $0
		while (match(s, /expect: [a-z_]+/)) {
			print substr(s, RSTART + 8, RLENGTH - 8), NR
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$1" | sort -u
}

# cocci_selftest: every rule on every fixture in kernel-patches/coccinelle/
# tests/.  A fixture passes when the rules flag exactly the lines its
# "expect: RULE" comments name: a rule that stops flagging v1's shapes, or
# flags a clean file, fails it.  Each rule must be expected somewhere, so
# that deleting the expectations cannot make a silent rule pass.  Sets
# STATIC_P and STATIC_F.
cocci_selftest() {
	local f rule want got rc missed extra

	STATIC_P=0 STATIC_F=0
	for f in "$COCCI_DIR"/tests/*.c; do
		rc=0
		got=$(for rule in $COCCI_RULES; do
			cocci_run "$rule" "${f%/*}" "${f##*/}" || exit 1
		done) || rc=1
		got=$(sed -n 's/^[^:]*:\([0-9]*\): \([a-z_]*\): .*/\2 \1/p' <<<"$got" | sort -u)
		want=$(cocci_expected "$f")
		if [ "$rc" -ne 0 ]; then
			echo "not ok ${f##*/}: spatch failed (log: $CACHE/check/logs/cocci.log)"
		elif [ "$got" = "$want" ]; then
			echo "ok ${f##*/}: $(grep -c . <<<"$want" || true) lines flagged as declared"
			STATIC_P=$((STATIC_P + 1))
			continue
		else
			missed=$(comm -23 <(echo "$want") <(echo "$got") | paste -sd, -)
			extra=$(comm -13 <(echo "$want") <(echo "$got") | paste -sd, -)
			echo "not ok ${f##*/}: missed: ${missed:-none}; not declared: ${extra:-none}"
		fi
		STATIC_F=$((STATIC_F + 1))
	done
	for rule in $COCCI_RULES; do
		if ! grep -q "expect: $rule\b" "$COCCI_DIR"/tests/*.c; then
			echo "not ok $rule: no fixture expects a finding of it"
			STATIC_F=$((STATIC_F + 1))
		fi
	done
}

# cocci_added_lines BASE: "file:line" for each line of a .c file that the
# check tree's commits after BASE add or change.
cocci_added_lines() {
	git -C "$CHECK_TREE" diff -U0 "$1" HEAD -- '*.c' | awk '
		/^\+\+\+ b\// { f = substr($0, 7) }
		/^@@/ {
			split($3, a, ",")
			n = (a[2] == "") ? 1 : a[2]
			for (i = 0; i < n; i++)
				print f ":" substr(a[1], 2) + i
		}'
}

# cocci_check BASE: the rules on every .c file that the check tree's
# commits after BASE touch, at the last of them.  A finding on a line that
# the series adds fails its rule and names the patch; one on a line of
# BASE is listed as older.  One result per rule in STATIC_P and STATIC_F.
cocci_check() {
	local base=$1 rule files added out line loc commit t0
	local -a new old

	STATIC_P=0 STATIC_F=0
	mapfile -t files < <(git -C "$CHECK_TREE" diff --name-only --diff-filter=AMR \
		"$base" HEAD -- '*.c')
	added=$(cocci_added_lines "$base")
	for rule in $COCCI_RULES; do
		t0=$(now)
		new=() old=()
		if ! out=$(cocci_run "$rule" "$CHECK_TREE" "${files[@]}"); then
			printf '[cocci] %-20s spatch FAILED (log: %s)\n' "$rule" \
				"$CACHE/check/logs/cocci.log"
			STATIC_F=$((STATIC_F + 1))
			continue
		fi
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			loc=$(cut -d: -f1,2 <<<"$line")
			if grep -qxF "$loc" <<<"$added"; then
				commit=$(git -C "$CHECK_TREE" blame -s -L "${loc#*:},${loc#*:}" \
					"$base..HEAD" -- "${loc%%:*}" | cut -d' ' -f1)
				new+=("$line (patch $(printf '%04d' \
					"$(git -C "$CHECK_TREE" rev-list --count "$base..$commit")"))")
			else
				old+=("$line")
			fi
		done <<<"$out"
		printf '[cocci] %-20s %d files: %d new, %d before the series (%ss)\n' \
			"$rule" "${#files[@]}" "${#new[@]}" "${#old[@]}" "$(elapsed "$t0")"
		[ ${#new[@]} -eq 0 ] || printf '        %s\n' "${new[@]}"
		[ ${#old[@]} -eq 0 ] || printf '        before the series: %s\n' "${old[@]}"
		if [ ${#new[@]} -eq 0 ]; then
			STATIC_P=$((STATIC_P + 1))
		else
			STATIC_F=$((STATIC_F + 1))
		fi
	done
}

cmd_check_patches() {
	local patches p i=0 n t0 t_all rev out srcs f arch objs cp_out
	local passed=0 failed=0 built untested=() result
	PREEXISTING=()
	declare -A by_arch

	t_all=$(now)
	# shellcheck disable=SC2086 # word lists
	ensure_pkgs $HOST_PKGS $CHECK_PKGS
	[ -d "$TREE/.git" ] || prepare_tree
	mapfile -t patches < <(series_patches)
	n=${#patches[@]}
	[ "$n" -gt 0 ] || { echo "0 passed, 0 failed"; return 0; }
	check_tree_reset
	mkdir -p "$CACHE/check/logs"
	for p in "${patches[@]}"; do
		i=$((i + 1))
		t0=$(now)
		result=ok
		if ! out=$(git -C "$CHECK_TREE" am --quiet "$p" 2>&1); then
			printf '[%2d/%d] %s: does not apply:\n%s\n' "$i" "$n" "$(basename "$p")" "$out"
			failed=$((failed + 1 + n - i))
			git -C "$CHECK_TREE" am --abort >/dev/null 2>&1 || true
			break
		fi
		rev=$(git -C "$CHECK_TREE" rev-parse HEAD)
		mapfile -t srcs < <(check_sources "$rev")
		by_arch=()
		for f in "${srcs[@]}"; do
			# "FILE ARCH" when check_sources names the arch
			arch=${f#* }
			f=${f%% *}
			[ "$arch" != "$f" ] || arch=$(check_arch_of "$f")
			by_arch[$arch]+=" ${f%.c}.o"
		done
		built=
		if [ ${#srcs[@]} -eq 0 ] &&
		   git -C "$CHECK_TREE" diff --name-only "$rev~1" "$rev" | grep -q '\.[ch]$'; then
			if check_comments_only "$rev"; then
				built=" comments only (the C is identical without them);"
			else
				built=" no object found for the C files it touches;"
				result=fail
			fi
		fi
		for arch in "${!by_arch[@]}"; do
			if ! check_make_args "$arch"; then
				untested+=("$(basename "$p"): ${by_arch[$arch]# } ($arch: ${CHECK_UNUSABLE[$arch]})")
				built+=" $arch: not compile-tested;"
				continue
			fi
			objs=$(wc -w <<<"${by_arch[$arch]}")
			# Compile each object again at this patch, whatever the
			# build dir holds from earlier runs.  One job: several
			# single-object targets in parallel race in Kbuild
			# (fixdep found a .o.d missing).
			for f in ${by_arch[$arch]}; do
				rm -f "$CACHE/check/build-$arch/$(dirname "$f")/.$(basename "$f").cmd" \
					"$CACHE/check/build-$arch/$f"
			done
			# shellcheck disable=SC2086 # a list of objects
			if make "${CHECK_ARGS[@]}" -j1 ${by_arch[$arch]} \
			   >"$CACHE/check/logs/$i-$arch.log" 2>&1; then
				built+=" $arch: $objs built;"
			elif ! check_fails_before "$rev" "$arch" "${by_arch[$arch]}" "$i"; then
				built+=" $arch: BUILD FAILED;"
				result=fail
				tail -n 20 "$CACHE/check/logs/$i-$arch.log" | sed 's/^/        /'
			elif make "${CHECK_ARGS[@]}" -j1 ${by_arch[$arch]} KCFLAGS=-Wno-error \
			     >"$CACHE/check/logs/$i-$arch-wno-error.log" 2>&1; then
				# The same objects fail to build before this patch
				# as well (a warning that allmodconfig's WERROR turns
				# into an error in the pristine tree): build them
				# without -Werror to still compile-test the patch.
				built+=" $arch: $objs built with -Wno-error (fails before this patch too);"
				PREEXISTING+=("$(basename "$p"): $arch: $(grep -m1 'error:' \
					"$CACHE/check/logs/$i-$arch.log" | sed 's|.*/check/tree/||' | cut -c1-90)")
			else
				# It does not build in this configuration before the
				# patch either, warnings or not (arch/m68k/sun3 needs
				# CONFIG_SUN3, which allmodconfig leaves off): the
				# patch cannot be compile-tested here.
				untested+=("$(basename "$p"): ${by_arch[$arch]# } ($arch: does not build before the patch either; log: $CACHE/check/logs/$i-$arch-before.log)")
				built+=" $arch: not compile-tested (fails before too);"
			fi
		done
		# Debian's python3 first: scripts/spdxcheck.py needs the ply of
		# python3-ply, which another python3 earlier in PATH lacks.
		cp_out=$(cd "$CHECK_TREE" && PATH=/usr/bin:$PATH scripts/checkpatch.pl \
			--strict --terse --no-summary "$p" 2>&1) || true
		cp_out=$(checkpatch_exceptions "$(basename "$p")" "$cp_out")
		if [ -n "$cp_out" ]; then
			result=fail
			printf '        %s\n' "${cp_out//$'\n'/$'\n'        }"
		fi
		printf '[%2d/%d] %-60s %s checkpatch: %s (%ss)\n' "$i" "$n" \
			"$(basename "$p" .patch | cut -c1-60)" "${built:- no objects;}" \
			"$([ -z "$cp_out" ] && echo clean || echo "$(wc -l <<<"$cp_out") reports")" \
			"$(elapsed "$t0")"
		if [ "$result" = ok ]; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
	# The static checks, once over the whole series: the rules' own
	# fixtures first (a rule that misses v1's shapes proves nothing), then
	# every .c file the series touches, at its last patch.
	: >"$CACHE/check/logs/cocci.log"
	echo "static checks: Coccinelle fixtures"
	cocci_selftest
	passed=$((passed + STATIC_P)) failed=$((failed + STATIC_F))
	echo "static checks: Coccinelle rules on the series"
	cocci_check pristine
	passed=$((passed + STATIC_P)) failed=$((failed + STATIC_F))
	if [ ${#untested[@]} -gt 0 ]; then
		echo "not compile-tested:"
		printf '    %s\n' "${untested[@]}"
	fi
	if [ ${#PREEXISTING[@]} -gt 0 ]; then
		echo "built with -Wno-error, failing before the patch too:"
		printf '    %s\n' "${PREEXISTING[@]}"
	fi
	local WARN_P=0 WARN_F=0
	# Only for a series that applied whole.
	if [ "$(git -C "$CHECK_TREE" rev-list --count pristine..HEAD)" -eq "$n" ]; then
		check_new_warnings "$(git -C "$CHECK_TREE" rev-parse HEAD)"
	fi
	passed=$((passed + WARN_P)) failed=$((failed + WARN_F))
	echo "check-patches: $n patches in $(elapsed "$t_all")s"
	echo "$passed passed, $failed failed"
	SUM_P=$((SUM_P + passed)) SUM_F=$((SUM_F + failed))
	[ "$failed" -eq 0 ]
}

# The harness's own answers to bad input: usage errors exit 2 and say why.
cmd_selftest() {
	local passed=0 failed=0 name want args out rc

	echo "==== harness ===="
	while IFS='|' read -r name want args; do
		rc=0
		# shellcheck disable=SC2086 # args is a word list
		out=$("$0" $args 2>&1) || rc=$?
		if [ "$rc" -eq 2 ] && grep -qF -- "$want" <<<"$out"; then
			echo "ok $name"
			passed=$((passed + 1))
		else
			echo "not ok $name: exit $rc, output: $out"
			failed=$((failed + 1))
		fi
	done <<'EOF'
unknown_option_exits_2|unknown option '--bogus'|kunit --bogus
unknown_command_exits_2|unknown command 'frob'|frob
unknown_target_exits_2|unknown target 'nosuch'|kunit --arch nosuch
bad_timeout_exits_2|--timeout takes seconds|kunit --timeout soon
zero_timeout_exits_2|--timeout takes seconds|kunit --timeout 0
no_command_exits_2|no command given|--arch x86_64
unknown_bench_exits_2|bench: unknown measurement 'frob'|bench frob
distro_debug_exits_2|is of kind distro: it has no debug flavour|kunit --arch x86_64-debian+debug
builtin_debug_exits_2|is of kind builtin: it has no debug flavour|kunit --arch riscv64-nommu+debug
builtin_globs_exits_2|kunit.filter_glob takes one glob: 'setfs_proc,setfs_sysctl' has several|kunit --arch riscv64-nommu setfs_proc setfs_sysctl
glob_comma_exits_2|filter glob 'setfs_proc,setfs_splice': only letters|kunit setfs_proc,setfs_splice
glob_no_suite_exits_2|filter glob '.read*' has no suite part|kunit .read*
glob_not_for_test_exits_2|unexpected argument 'setfs_proc'|test setfs_proc
bad_soak_exits_2|--soak takes quick or full, not 'long'|kunit --soak long
EOF
	echo "$passed passed, $failed failed"
	SUM_P=$((SUM_P + passed)) SUM_F=$((SUM_F + failed))
	[ "$failed" -eq 0 ]
}

# The converted read methods no guest reaches, compiled from $TREE in user
# space under ASan and UBSan and read at hostile offsets (libasan8 and
# libubsan1 come with Debian's gcc-12; named here all the same).  The full
# KTAP goes to a log; the summary, the failing rows and the totals here.
cmd_uharness() {
	local log=$CACHE/uharness/uharness.ktap rc=0 line p f s

	ensure_pkgs gcc python3 libasan8 libubsan1
	prepare_tree
	rm -rf "$CACHE/uharness/reports"
	mkdir -p "$CACHE/uharness"
	echo "==== uharness ===="
	python3 "$REPO/kernel-patches/uharness/uharness.py" --tree "$TREE" \
		--work "$CACHE/uharness" --keep "$CACHE/uharness/reports" \
		>"$log" 2>&1 || rc=$?
	grep -E '^(not )?ok [0-9]+ |^# failed ' "$log" || true
	line=$(tail -n 1 "$log")
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
	else
		tail -n 20 "$log"
		echo "uharness: no summary line (exit $rc)"
		p=0 f=1 s=0
	fi
	echo "uharness: full KTAP in $log"
	# The harness's own tests: the extractor, the model, and a two-file
	# tree on which the libfs harness must pass, then fail.
	if (cd "$REPO/kernel-patches/uharness" && python3 -m unittest -q) \
	   >"$CACHE/uharness/unittest.log" 2>&1; then
		echo "ok uharness unit tests"
		p=$((p + 1))
	else
		tail -n 30 "$CACHE/uharness/unittest.log"
		echo "not ok uharness unit tests ($CACHE/uharness/unittest.log)"
		f=$((f + 1))
	fi
	echo "$p passed, $f failed, $s skipped"
	SUM_P=$((SUM_P + p)) SUM_F=$((SUM_F + f)) SUM_S=$((SUM_S + s))
	[ "$rc" -eq 0 ] && [ "$f" -eq 0 ]
}

# The harness's own unit tests (harness/tests: the report on recorded
# consoles of every target and on broken ones, the bench tables), one
# case per test.  They read the prepared tree's kunit_parser.py.
cmd_harness_tests() {
	local out line p=0 f=1 s=0

	echo "==== harness unit tests ===="
	out=$(cd "$REPO" && SETFS_TREE=$TREE python3 -m harness.unittests 2>&1) || true
	echo "$out"
	line=$(tail -n 1 <<<"$out")
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
	else
		echo "harness unit tests: no summary line"
	fi
	SUM_P=$((SUM_P + p)) SUM_F=$((SUM_F + f)) SUM_S=$((SUM_S + s))
	[ "$f" -eq 0 ]
}

# CI's command: the harness checks, every default target, the user-space
# harness and the series compile test; one summary line over all of them.
cmd_test() {
	local rc=0 part t

	if [ "$ARCHES_GIVEN" != 1 ] && [ "${SETFS_CI:-}" = 1 ]; then
		# .ci/run: test's targets whose record says ci = false stay
		# out (a cold CI run has no time for their kernels); each
		# counts as one skip, named.
		ARCHES=${CI_ARCHES// /,}
		for t in $TEST_ARCHES; do
			case " $CI_ARCHES " in *" $t "*) continue ;; esac
			echo "skipped target $t: not in CI (ci = false in targets/${t%+debug}.toml): ./run.sh test runs it"
			SUM_S=$((SUM_S + 1))
		done
	elif [ "$ARCHES_GIVEN" != 1 ]; then
		ARCHES=${TEST_ARCHES// /,}
	fi
	for part in selftest kunit harness-tests uharness check-patches; do
		test_part "$part" || rc=1
	done
	echo "test: $SUM_P passed, $SUM_F failed, $SUM_S skipped"
	return "$rc"
}

# test_part NAME: one part of "test", then a "test-time:" line for it
# (bench cold sums them).
test_part() {
	local t0 rc=0

	t0=$(now)
	case "$1" in
	selftest) cmd_selftest ;;
	kunit) cmd_kunit ;;
	harness-tests) cmd_harness_tests ;;
	uharness) cmd_uharness ;;
	check-patches) echo "==== check-patches ===="; cmd_check_patches ;;
	esac || rc=1
	echo "test-time: $1 $(elapsed "$t0")s"
	echo
	return "$rc"
}

# ------------------------------------------------------------------ bench

BENCH_GUEST_ARCHES="x86_64 x86_64-debian"

# Guest measurements, one target at a time (side-by-side guests would
# measure each other): setfs_user bench prints its table between markers.
bench_guest() {
	local arch log

	[ "$ARCHES_GIVEN" = 1 ] || ARCHES=${BENCH_GUEST_ARCHES// /,}
	# shellcheck disable=SC2086 # HOST_PKGS is a word list
	ensure_pkgs $HOST_PKGS
	echo "==== tree ===="
	prepare_tree
	for arch in ${ARCHES//,/ }; do
		build_target "$arch"
		check_firmware
		qemu_cmd bench "$(accel_for_target)"
		log=$T_WORK/bench-console.log
		info "booting $T_NAME for the guest bench (console: $log)"
		timeout -k 5 "$BOOT_TIMEOUT" "${QEMU[@]}" -serial "file:$log" \
			</dev/null >"$T_WORK/qemu.log" 2>&1 &
		QEMU_PIDS+=("$!")
		wait "$!" || die "$T_NAME: the bench guest failed or timed out (console: $log)"
		echo
		echo "==== $T_NAME: guest bench ($(uname -m) host, $(nproc) cores, QEMU $(cat "$T_WORK/accel" 2>/dev/null || echo tcg)) ===="
		tr -d '\r' <"$log" | sed -n '/^SETFS-BENCH-BEGIN$/,/^SETFS-BENCH-END/p' | sed '1d;$d'
		tr -d '\r' <"$log" | grep -qx 'SETFS-BENCH-END rc=0' ||
			die "$T_NAME: the guest bench did not complete (console: $log)"
	done
}

# bench_run LABEL GOAL DIR ARGS...: time "DIR/run.sh ARGS" (quietly) and
# add a row to the harness table.
BENCH_ROWS=()
bench_run() {
	local label=$1 goal=$2 dir=$3 t0 secs rc=0 log

	shift 3
	log=$CACHE/bench/$(echo "$label" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9\n' '_').log
	t0=$(now)
	SETFS_LOCK_HELD=$CACHE "$dir/run.sh" "$@" >"$log" 2>&1 || rc=$?
	secs=$(elapsed "$t0")
	[ $rc -eq 0 ] || { tail -n 30 "$log" >&2; die "bench: '$label' failed (log: $log)"; }
	BENCH_ROWS+=("$label|$secs|$goal|$(awk -v s="$secs" -v g="$goal" 'BEGIN { print (g == "-" ? "-" : (s < g ? "yes" : "NO")) }')|$log")
	# The stage lines of the run: where the time went.
	sed -n '1,/^stage times:$/p' "$log" |
		grep -E '^    (prepare|config|kernel|modules|user|rootfs|distro|boot\+tests) ' |
		awk -v l="$label" '{ t[$1] += $2 } END { for (s in t) printf "    %-28s %-12s %6.1fs\n", l, s, t[s] }' | sort
}

bench_table() {
	local r

	echo
	echo "==== harness bench ($(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), targets: ${DEFAULT_ARCHES}) ===="
	printf '%-36s %9s %7s %5s\n' scenario wall_s goal_s met
	for r in "${BENCH_ROWS[@]}"; do
		IFS='|' read -r label secs goal met _ <<<"$r"
		printf '%-36s %9s %7s %5s\n' "$label" "$secs" "$goal" "$met"
	done
}

# Harness speed: warm with nothing changed, and after editing one KUnit
# file (in a copy of the repo, so the developer's files stay untouched).
bench_harness() {
	local copy=$CACHE/bench/repo

	mkdir -p "$CACHE/bench"
	info "bench: one run to make the cache warm (log: $CACHE/bench/)"
	bench_run "warm-up (not a goal)" - "$REPO" kunit
	bench_run "warm, nothing changed" 15 "$REPO" kunit
	rm -rf "$copy"
	mkdir -p "$copy"
	(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
		rsync -a --from0 --files-from=- ./ "$copy/")
	bench_edit "$copy/kunit/proc.c"
	bench_run "edit one KUnit file" 20 "$copy" kunit
	# kunit.py's loop: one suite on one target, after an edit.
	bench_edit "$copy/kunit/proc.c"
	bench_run "edit, 'setfs_proc' on x86_64" 6 "$copy" kunit --arch x86_64 setfs_proc
	bench_run "back to the unedited repo" 20 "$REPO" kunit
	rm -rf "$copy"
	bench_group_times
}

# Where the guest's time goes: seconds per part and target, from the
# last unfiltered run's "# setfs-time:" lines (report_target).
bench_group_times() {
	local arch files=()

	for arch in $DEFAULT_ARCHES; do
		load_target "$arch"
		files+=("$T_NAME=$T_WORK/times")
	done
	echo
	echo "==== guest seconds per part (last warm run) ===="
	(cd "$REPO" && python3 -m harness.bench times "${files[@]}")
}

# bench_edit FILE: a change that makes FILE's object build again.
bench_edit() {
	printf '/* bench: edited at %s */\n' "$(date +%s.%N)" >>"$1"
}

# Cold: a fresh cache (tree, ccache, build dirs, downloads) in a
# temporary directory, as on a new machine with the packages installed.
# Two budgets, each from its own empty cache: the default "kunit" (goal
# 20 min) and CI's command in a fresh clone of HEAD (goal 75 min, what
# CI gets with 15 min to spare).  The caches are removed afterwards.
bench_cold() {
	local base=$CACHE/bench/cold

	rm -rf "$base"
	mkdir -p "$base"
	info "bench: cold runs in $base (logs: $CACHE/bench/cold-*.log); this takes one to two hours"
	bench_cold_run "cold ./run.sh kunit" 1200 "$base/kunit" \
		"$CACHE/bench/cold-kunit.log" "$REPO/run.sh" kunit
	git clone -q "$REPO" "$base/clone" ||
		die "bench: cannot clone $REPO into $base/clone"
	bench_cold_run "cold CI=true .ci/run (fresh clone)" 4500 "$base/ci" \
		"$CACHE/bench/cold-ci.log" env CI=true bash "$base/clone/.ci/run"
	rm -rf "$base"
}

# bench_cold_run LABEL GOAL CACHEDIR LOG CMD...: CMD with SETFS_CACHE at
# the empty CACHEDIR; a row for the table and the stage sums of its log.
bench_cold_run() {
	local label=$1 goal=$2 dir=$3 log=$4 t0 secs rc=0

	shift 4
	mkdir -p "$dir"
	t0=$(now)
	SETFS_CACHE=$dir "$@" >"$log" 2>&1 || rc=$?
	secs=$(elapsed "$t0")
	[ $rc -eq 0 ] || { tail -n 30 "$log" >&2; die "bench: '$label' failed (log: $log)"; }
	BENCH_ROWS+=("$label|$secs|$goal|$(awk -v s="$secs" -v g="$goal" 'BEGIN { print (s < g ? "yes" : "NO") }')|$log")
	# The stage lines as they happen, not again from the summary.
	sed -n '1,/^stage times:$/p' "$log" |
		grep -E '^    (prepare|config|kernel|modules|user|rootfs|distro|boot\+tests) ' |
		awk -v l="$label" '{ t[$1] += $2 } END { for (s in t) printf "    %-36s %-12s %7.1fs\n", l, s, t[s] }' | sort
	grep -E '^test-time: ' "$log" | sed "s|^test-time: |    $label: |" || true
}

# ------------------------------------------------------------ bench series

SERIES_SRC=$CACHE/series/linux

# A worktree of the prepared tree at its pristine commit, for the "before"
# kernel (the tree itself stays at the series).  A leftover directory that
# is not such a worktree, or has local changes, is refused, not wiped.
series_pristine_tree() {
	worktree_at "$SERIES_SRC" pristine keep
}

# boot_series: boot the loaded target in series mode and keep its lines
# in $T_WORK/series.txt.
boot_series() {
	local log=$T_WORK/series-console.log

	check_firmware
	qemu_cmd series "$(accel_for_target)"
	info "booting $T_NAME for the series bench (console: $log)"
	timeout -k 5 "$BOOT_TIMEOUT" "${QEMU[@]}" -serial "file:$log" \
		</dev/null >"$T_WORK/qemu.log" 2>&1 &
	QEMU_PIDS+=("$!")
	wait "$!" || die "$T_NAME: the series guest failed or timed out (console: $log)"
	tr -d '\r' <"$log" | sed -n '/^SETFS-SERIES-BEGIN$/,/^SETFS-SERIES-END/p' |
		grep '^series' >"$T_WORK/series.txt" || true
	tr -d '\r' <"$log" | grep -qx 'SETFS-SERIES-END rc=0' ||
		die "$T_NAME: the series bench did not complete (console: $log)"
}

# build_pristine CONFIG: the x86_64 target on the pristine sources
# (SERIES_SRC) with the patched kernel's CONFIG.  Run in a subshell: it
# changes TREE and the target's globals.
build_pristine() {
	local cfg=$1

	TREE=$SERIES_SRC
	load_target x86_64
	pristine_target
	MAKE_ARGS=(-C "$TREE" O="$T_BUILD" ARCH="$T_LINUX_ARCH"
		   CROSS_COMPILE="$T_CROSS" CC="ccache ${T_CROSS}gcc"
		   HOSTCC="ccache gcc" -j"$JOBS")
	echo "==== $T_NAME ===="
	mkdir -p "$T_BUILD" "$T_WORK"
	# .config.patched: the patched config this .config was made from.
	cmp -s "$cfg" "$T_BUILD/.config.patched" || {
		rm -f "$T_BUILD/.config.patched"
		cp "$cfg" "$T_BUILD/.config"
		make "${MAKE_ARGS[@]}" olddefconfig >"$T_WORK/config.log" 2>&1 ||
			die "$T_NAME: make olddefconfig failed (log: $T_WORK/config.log)"
		cp "$cfg" "$T_BUILD/.config.patched"
	}
	# Exactly the same options, or the comparison means nothing.
	if ! diff <(grep -v '^#' "$cfg" | sort) <(grep -v '^#' "$T_BUILD/.config" | sort) \
	     >"$T_WORK/config.diff"; then
		cat "$T_WORK/config.diff" >&2
		die "$T_NAME: the pristine tree's config differs from the patched one"
	fi
	build_kernel
	build_modules
	build_user
	build_rootfs
}

# The pristine side's target variables (after load_target x86_64).
pristine_target() {
	T_NAME=x86_64-pristine
	T_BUILD=$CACHE/build/x86_64-pristine
	T_WORK=$CACHE/work/x86_64-pristine
	T_KWORK=$T_WORK
	T_KOWNER=
}

# ./run.sh bench series: the cost of the series on real /proc files.  The
# pristine tree is built with exactly the patched x86_64 kernel's .config
# (in build/x86_64-pristine, its own modules and rootfs), both kernels
# boot one after the other and run "setfs_user series" (rootfs/bench.c);
# the table sets ns per call against each other.
bench_series() {
	local cfg

	[ "$ARCHES" = x86_64 ] || [ "$ARCHES_GIVEN" = 0 ] ||
		usage_error "bench series runs on x86_64 only"
	# shellcheck disable=SC2086 # HOST_PKGS is a word list
	ensure_pkgs $HOST_PKGS
	echo "==== tree ===="
	prepare_tree
	build_target x86_64
	cfg=$T_BUILD/.config
	series_pristine_tree
	# In a subshell: it points TREE and the target at the pristine side.
	# Not on the left of || or &&, where set -e would not apply in it.
	( build_pristine "$cfg" )
	# The guests boot here, so that cleanup() knows their QEMUs: the two
	# kernels in turn, SERIES_ROUNDS times (one boot alone is off by up
	# to 20% under TCG: see the control row); each row keeps its best.
	local r rounds=${SETFS_SERIES_ROUNDS:-3} before=() after=()
	case "$rounds" in ''|*[!0-9]*|0) die "SETFS_SERIES_ROUNDS must be a number above 0" ;; esac
	for ((r = 1; r <= rounds; r++)); do
		load_target x86_64
		pristine_target
		boot_series
		cp "$T_WORK/series.txt" "$T_WORK/series.$r.txt"
		before+=("$T_WORK/series.$r.txt")
		load_target x86_64
		boot_series
		cp "$T_WORK/series.txt" "$T_WORK/series.$r.txt"
		after+=("$T_WORK/series.$r.txt")
	done
	echo
	echo "==== bench series: x86_64, the pristine tree against kernel-patches/, $rounds round(s) ($(nproc) cores, QEMU $(accel_for_target)) ===="
	(cd "$REPO" && python3 -m harness.bench series "$(IFS=,; echo "${before[*]}")" \
		"$(IFS=,; echo "${after[*]}")") ||
		die "bench series: cannot compare the two runs"
}

cmd_bench() {
	case "${BENCH_WHAT:-all}" in
	guest) bench_guest ;;
	series) bench_series ;;
	harness) bench_harness; bench_table ;;
	cold) bench_cold; bench_table ;;
	all) bench_harness; bench_table; bench_guest ;;
	esac
}

# ------------------------------------------------------------------ main

# build_target NAME: every stage up to the initramfs.
build_target() {
	load_target "$1"
	echo "==== $T_NAME ===="
	# shellcheck disable=SC2086 # T_PKGS is a word list
	ensure_pkgs $T_PKGS
	kind_op build
}

# report_guest NAME: wait for NAME's guest and count its results.
report_guest() {
	load_target "$1"
	echo
	echo "==== $T_NAME ===="
	if boot_finish && report_target; then
		RESULTS+=("$T_NAME $T_PASS $T_FAIL $T_SKIP $BOOT_SECONDS $T_SPLIT")
	else
		RESULTS+=("$T_NAME 0 1 0 $BOOT_SECONDS 0 0 0 0 1 0")
		FAILED_CASES+=("$T_NAME: $GUEST_ERROR")
	fi
}

cmd_kunit() {
	local arch t0 total_p=0 total_f=0 total_s=0 r name p f s b kp kf ks up uf us

	t0=$(now)
	RESULTS=()
	FAILED_CASES=()
	# shellcheck disable=SC2086 # HOST_PKGS is a word list
	ensure_pkgs $HOST_PKGS
	echo "==== tree ===="
	prepare_tree
	for arch in ${ARCHES//,/ }; do
		build_target "$arch"
	done
	echo
	echo "==== boot ===="
	for arch in ${ARCHES//,/ }; do
		load_target "$arch"
		boot_start
	done
	for arch in ${ARCHES//,/ }; do
		report_guest "$arch"
	done
	echo
	echo "==== summary ===="
	[ -z "$FILTER" ] || echo "filter: ${FILTER//,/ } (only the matching suites and cases ran)"
	if [ "$SOAK" = quick ]; then
		echo "soak: quick ($SOAK_QUICK); --soak full or ./run.sh test for the full counts"
	else
		echo "soak: full (setfs_user's own fuzz, race and unload counts)"
	fi
	printf '%-14s %7s %7s %8s   %-17s %-17s %6s\n' target passed failed skipped \
		"kunit p/f/s" "user p/f/s" boot_s
	for r in "${RESULTS[@]}"; do
		read -r name p f s b kp kf ks up uf us <<<"$r"
		printf '%-14s %7d %7d %8d   %-17s %-17s %6s\n' "$name" "$p" "$f" "$s" \
			"$kp/$kf/$ks" "$up/$uf/$us" "$b"
		total_p=$((total_p + p))
		total_f=$((total_f + f))
		total_s=$((total_s + s))
	done
	if [ ${#FAILED_CASES[@]} -gt 0 ]; then
		echo "failed cases:"
		printf '    %s\n' "${FAILED_CASES[@]}"
	fi
	echo "stage times:"
	printf '%s\n' "${TIMINGS[@]}" | awk -F'\t' '{ printf "    %-22s %6.1fs  %s\n", $1, $2, $3 }'
	echo "total wall time: $(elapsed "$t0")s"
	echo "$total_p passed, $total_f failed, $total_s skipped"
	SUM_P=$((SUM_P + total_p)) SUM_F=$((SUM_F + total_f)) SUM_S=$((SUM_S + total_s))
	[ "$total_f" -eq 0 ]
}

cmd_shell() {
	local arch=${ARCHES%%,*}

	# shellcheck disable=SC2086 # HOST_PKGS is a word list
	ensure_pkgs $HOST_PKGS
	prepare_tree
	build_target "$arch"
	boot_shell
}

# The cover letter's subject and blurb come from kernel-patches/
# cover-letter.txt (first line: subject; after a blank line: the blurb).
fill_cover_letter() {
	local cover=$1 text=$2

	[ -f "$text" ] || { info "no $text: the cover letter keeps git's placeholders"; return 0; }
	python3 - "$cover" "$text" <<'EOF' || die "cannot fill in $cover"
import sys

cover, text = sys.argv[1], sys.argv[2]
subject, _, blurb = open(text).read().partition("\n\n")
letter = open(cover).read()
for placeholder in ("*** SUBJECT HERE ***", "*** BLURB HERE ***"):
    if placeholder not in letter:
        sys.exit("%s: no '%s'" % (cover, placeholder))
letter = letter.replace("*** SUBJECT HERE ***", subject.strip(), 1)
letter = letter.replace("*** BLURB HERE ***", blurb.strip("\n"), 1)
open(cover, "w").write(letter)
EOF
}

# export_dir DIR BASE RANGE: write RANGE of the tree as DIR's patches, with
# a cover letter (filled from DIR/cover-letter.txt) and a series file.
export_dir() {
	local out=$1 base=$2 range=$3 p

	mkdir -p "$out"
	find "$out" -maxdepth 1 \( -name '*.patch' -o -name series \) -delete
	if [ "$(git -C "$TREE" rev-list --count "$range")" -gt 0 ]; then
		git -C "$TREE" format-patch -q --cover-letter --base="$base" \
			-o "$out" "$range"
		fill_cover_letter "$out/0000-cover-letter.patch" "$out/cover-letter.txt"
		for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
			case "$p" in */0000-cover-letter.patch) continue ;; esac
			basename "$p"
		done >"$out/series"
	else
		: >"$out/series"
	fi
}

cmd_export() {
	local pristine n nf p

	[ -d "$TREE/.git" ] || die "no prepared tree at $TREE: run './run.sh kunit' first"
	pristine=$(git -C "$TREE" rev-parse pristine)
	if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
		die "the tree has uncommitted edits; commit them first (git -C $TREE commit -a)"
	fi
	# The fixes end at $FIXES_TAG; what follows is the procfs series.
	# Without the tag, or with a history rewritten across it, the tree
	# cannot be split into the two: stop before writing anything.
	git -C "$TREE" rev-parse -q --verify "$FIXES_TAG^{commit}" >/dev/null ||
		die "the tree has no tag $FIXES_TAG (the end of kernel-patches/uaccess/): it was prepared by an older run.sh; export from it by hand (git -C $TREE format-patch), then let './run.sh kunit' re-apply"
	if ! git -C "$TREE" merge-base --is-ancestor "$pristine" "$FIXES_TAG" ||
	   ! git -C "$TREE" merge-base --is-ancestor "$FIXES_TAG" HEAD; then
		die "the tag $FIXES_TAG (the end of kernel-patches/uaccess/) is not between pristine and HEAD: a rebase moved the fixes; move the tag to their last commit (git -C $TREE tag -f $FIXES_TAG COMMIT) and export again"
	fi
	nf=$(git -C "$TREE" rev-list --count "$pristine..$FIXES_TAG")
	n=$(git -C "$TREE" rev-list --count "$FIXES_TAG..HEAD")
	export_dir "$FIXES_DIR" "$pristine" "$pristine..$FIXES_TAG"
	export_dir "$REPO/kernel-patches" "$pristine" "$FIXES_TAG..HEAD"
	# The procfs series does not need the fixes (checked below): its
	# cover letter names the pristine tree alone as its base.
	[ "$n" -eq 0 ] || sed -i '/^prerequisite-patch-id: /d' "$REPO/kernel-patches/0000-cover-letter.patch"
	check_tree_reset
	while read -r p; do
		git -C "$CHECK_TREE" am --quiet "$p" >/dev/null 2>&1 ||
			die "the exported ${p#"$REPO"/} does not apply to the pristine tree without kernel-patches/uaccess/"
	done < <(procfs_patches)
	# The series must rebuild exactly the tree it was exported from.
	check_tree_reset
	while read -r p; do
		git -C "$CHECK_TREE" am --quiet "$p" >/dev/null 2>&1 ||
			die "the exported ${p#"$REPO"/} does not apply to the pristine tree"
	done < <(series_patches)
	if [ "$(git -C "$CHECK_TREE" rev-parse 'HEAD^{tree}')" != \
	     "$(git -C "$TREE" rev-parse 'HEAD^{tree}')" ]; then
		die "export and series disagree: applying kernel-patches/ to the pristine tree does not give $TREE's HEAD"
	fi
	state_write "$(tarball_id)" "$(series_id)" "$(git -C "$TREE" rev-parse HEAD)"
	info "exported $nf patches to kernel-patches/uaccess/ and $n to kernel-patches/ (each with a series file); re-applied, same tree"
}

main() {
	local cmd=

	ARCHES=${DEFAULT_ARCHES// /,}
	KEEP_TREE=0
	SOAK=
	DEBUG=0
	BENCH_WHAT=
	ARCHES_GIVEN=0
	FILTER=
	SUM_P=0 SUM_F=0 SUM_S=0
	while [ $# -gt 0 ]; do
		case "$1" in
		-h|--help|help) usage; exit 0 ;;
		--arch) [ $# -ge 2 ] || usage_error "--arch needs a value"; ARCHES=$2; ARCHES_GIVEN=1; shift ;;
		--arch=*) ARCHES=${1#--arch=}; ARCHES_GIVEN=1 ;;
		--timeout) [ $# -ge 2 ] || usage_error "--timeout needs a value"; BOOT_TIMEOUT=$2; shift ;;
		--timeout=*) BOOT_TIMEOUT=${1#--timeout=} ;;
		--keep-tree) KEEP_TREE=1 ;;
		--soak) [ $# -ge 2 ] || usage_error "--soak needs a value"; SOAK=$2; shift ;;
		--soak=*) SOAK=${1#--soak=} ;;
		--debug) DEBUG=1 ;;
		-*) usage_error "unknown option '$1'" ;;
		*)
			if [ -z "$cmd" ]; then
				cmd=$1
			elif [ "$cmd" = bench ] && [ -z "$BENCH_WHAT" ]; then
				BENCH_WHAT=$1
			elif [ "$cmd" = kunit ]; then
				check_glob "$1"
				FILTER+=${FILTER:+,}$1
			else
				usage_error "unexpected argument '$1'"
			fi
			;;
		esac
		shift
	done
	[ -n "$cmd" ] || usage_error "no command given"
	case "$cmd" in
	kunit|test|shell|export|check-patches|bench|uharness) ;;
	*) usage_error "unknown command '$cmd'" ;;
	esac
	case "${BENCH_WHAT:-all}" in
	all|guest|harness|cold|series) ;;
	*) usage_error "bench: unknown measurement '$BENCH_WHAT' (guest, harness, cold or series)" ;;
	esac
	case "$SOAK" in
	'') [ "$cmd" = test ] && SOAK=full || SOAK=quick ;;
	quick|full) ;;
	*) usage_error "--soak takes quick or full, not '$SOAK'" ;;
	esac
	case "$BOOT_TIMEOUT" in
	''|*[!0-9]*|0) usage_error "--timeout takes seconds (more than 0), not '$BOOT_TIMEOUT'" ;;
	esac
	local a debug_arches=()
	for a in ${ARCHES//,/ }; do
		if [ "$DEBUG" = 1 ] && [ "${a%+debug}" = "$a" ]; then
			a=$a+debug
		fi
		check_target_name "$a"
		# KUnit's executor, which runs a builtin target's suites,
		# takes one SUITE[.CASE] glob
		case "$FILTER" in *,*)
			if eval "${TARGET_VARS[$a]}" && [ "$T_KIND" = builtin ]; then
				usage_error "$a runs its suites built into the kernel, whose kunit.filter_glob takes one glob: '$FILTER' has several"
			fi ;;
		esac
		debug_arches+=("$a")
	done
	ARCHES=$(IFS=,; echo "${debug_arches[*]}")

	mkdir -p "$CACHE"
	# "bench harness" runs run.sh itself under the lock it holds.
	if [ "${SETFS_LOCK_HELD:-}" != "$CACHE" ]; then
		exec 9>"$CACHE/lock"
		flock -n 9 || die "another run.sh is using $CACHE (lock: $CACHE/lock)"
	fi

	case "$cmd" in
	kunit) cmd_kunit ;;
	test) cmd_test ;;
	shell) cmd_shell ;;
	export) cmd_export ;;
	check-patches) cmd_check_patches ;;
	uharness) cmd_uharness ;;
	bench) cmd_bench ;;
	*) usage_error "unknown command '$cmd'" ;;
	esac
}

# On one line, so that bash has read all it runs before main starts: the
# script may be edited while it runs.
main "$@"; exit $?
