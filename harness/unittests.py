# SPDX-License-Identifier: GPL-2.0
"""The harness's own unit tests (harness/tests), one result line per test
and the closing "N passed, N failed, N skipped" that ./run.sh test adds up.

    python3 -m harness.unittests        # from the repository's top
"""

import os
import sys
import unittest


class CountingResult(unittest.TextTestResult):
    """Prints ok / not ok / skip per test as it ends."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passed = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed.append(test)
        print(f"ok {test.id()}")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        print(f"not ok {test.id()}\n{self._exc_info_to_string(err, test)}")

    def addError(self, test, err):
        super().addError(test, err)
        print(f"not ok {test.id()} (error)\n{self._exc_info_to_string(err, test)}")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            print(f"not ok {subtest.id()}\n{self._exc_info_to_string(err, test)}")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print(f"ok {test.id()} # SKIP {reason}")


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    suite = unittest.defaultTestLoader.discover(
        os.path.join(top, "harness", "tests"), top_level_dir=top)
    with open(os.devnull, "w") as devnull:
        runner = unittest.TextTestRunner(stream=devnull,
                                         resultclass=CountingResult, verbosity=0)
        res = runner.run(suite)
    failed = len(res.failures) + len(res.errors)
    print(f"{len(res.passed)} passed, {failed} failed, {len(res.skipped)} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
