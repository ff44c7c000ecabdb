# SPDX-License-Identifier: GPL-2.0
"""python3 -m harness: what ./run.sh runs (harness/cli.py)."""

import sys

from harness import cli

sys.exit(cli.main())
