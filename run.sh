#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - build a Debian linux-source tree (bases/) with its series applied, boot
# it in QEMU with setfs_probe.ko, the KUnit suite and the user test binary,
# and report the results as KTAP.  See README.md and "./run.sh --help".
#
# The harness is the Python package harness/ (harness/cli.py reads this
# command line).  This shim only makes sure that Python 3.11 or later
# (tomllib, for targets/*.toml) is there: as root on a machine without it
# (Debian 12: python3 is 3.11), it installs python3 first.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if ! python3 -c 'import tomllib' 2>/dev/null; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
		echo "run.sh: installing python3 (the harness is harness/, in Python)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 >/dev/null 2>&1; } || true
	fi
	python3 -c 'import tomllib' 2>/dev/null || {
		echo "run.sh: error: Python 3.11 or later (tomllib) is needed: the harness is harness/ in Python (Debian 12: apt-get install python3)" >&2
		exit 1
	}
fi

# -P: the repository's harness/, never one in the current directory.
export PYTHONDONTWRITEBYTECODE=1
PYTHONPATH=$REPO${PYTHONPATH:+:$PYTHONPATH} exec python3 -P -m harness "$@"
