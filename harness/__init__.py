# SPDX-License-Identifier: GPL-2.0
"""setfs-probe's harness (standard library only); ./run.sh runs
"python3 -m harness" (cli.py).  The shape is the kernel's own
tools/testing/kunit/: a record per target, stages that return results,
a parser tested on recorded logs.

    cli.py            the command line, the cache lock, the commands' table
    base.py           bases/NAME.toml: a kernel tree (tarball, series)
    settings.py       the environment, read once (no other module reads it)
    core.py           the run's context (Ctx), errors, children (each in a
                      process group the run stops), digests, host packages
    stage.py          the one stage abstraction: key -> stamp -> run -> time
    record.py         targets/NAME.toml, validated; target.py: a record
                      with its flavour and cache paths
    toolchain.py      each Linux architecture's compiler (make ARCH, cross
                      prefix, Debian package); records must agree with it
    kinds.py          what differs between a tree, a distro and a builtin
                      target (one class per kind)
    tree.py           the kernel tree: pristine + kernel-patches/
    build.py          config, kernel, modules, user binary, initramfs
    qemu.py           booting the guests, SETFS_GUESTS at a time
    guest.py          the guest protocol's host side (rootfs/init is the
                      other side)
    report.py         a console log in, KTAP and counts out (the tree's
                      kunit_parser.py, imported)
    commands.py       kunit (and --list_tests, --json), test and its
                      parts, shell, export
    plan.py           kunit --dry-run: each target's plan, running nothing
    checkpatches/     check-patches: objects, compile and static checks
    benchrun.py       bench; bench.py: its tables
    unittests.py      harness/tests, with "N passed, N failed, N skipped"
"""
