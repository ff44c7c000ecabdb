# SPDX-License-Identifier: GPL-2.0
"""setfs-probe's harness in Python (standard library only).

run.sh still drives the stages; what it hands to this package is what
bash does badly: reading a guest's console (report), the tables of the
benches.  The guest side of the protocol is rootfs/init and rootfs/ktap.c;
its host side is guest.py, and nowhere else.
"""
