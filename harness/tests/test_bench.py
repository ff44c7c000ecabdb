# SPDX-License-Identifier: GPL-2.0
"""harness.bench: the series comparison and the per-part table."""

import os
import tempfile
import unittest

from harness import bench

BEFORE = """series-file|/proc/kallsyms|seq_read -> seq_read_iter
series-file|/proc/config.gz|->proc_read -> simple_read_from_buffer_iter()
series|/proc/kallsyms|1|read|ok|100.0|110.0|1
series|/proc/kallsyms|4096|sendfile|err|sendfile: Invalid argument
series|/proc/kallsyms|4096|read|ok|1000.0|1000.0|4096
series|/proc/config.gz|1|read|ok|200.0|220.0|1
series|/proc/config.gz|1|splice|na|measured at 4 KiB and 64 KiB
series|/proc/config.gz|4096|read|ok|300.0|300.0|4096
""".splitlines()

AFTER = """series-file|/proc/kallsyms|seq_read -> seq_read_iter
series|/proc/kallsyms|1|read|ok|101.0|112.0|1
series|/proc/kallsyms|4096|sendfile|ok|900.0|950.0|4096
series|/proc/kallsyms|4096|read|ok|1000.0|1030.0|4096
series|/proc/config.gz|1|read|ok|250.0|260.0|1
series|/proc/config.gz|1|splice|na|measured at 4 KiB and 64 KiB
series|/proc/config.gz|4096|read|err|read: Bad address
""".splitlines()


PROFILE_BEFORE = [
    "series-profile|/proc/kpagecount|4096|read|100|0|kpagecount_read:60,_copy_to_user:30",
    "series-profile|/proc/kpagecount|4096|read|100|2|kpagecount_read:50,page_count:40",
]
PROFILE_AFTER = [
    "series-profile|/proc/kpagecount|4096|read|200|0|_copy_to_iter:120,kpagecount_read_iter:40",
]


class SeriesTest(unittest.TestCase):

    def test_profile_adds_rounds(self):
        prof, order = bench.load_profile(PROFILE_BEFORE)
        self.assertEqual(order, [("/proc/kpagecount", 4096, "read")])
        total, lost, syms = prof[order[0]]
        self.assertEqual((total, lost), (200, 2))
        self.assertEqual(syms, {"kpagecount_read": 110, "_copy_to_user": 30,
                                "page_count": 40})
        text = "\n".join(bench.profile_lines(PROFILE_BEFORE, PROFILE_AFTER))
        self.assertIn("before   200 samples (2 lost): kpagecount_read 55%, "
                      "page_count 20%, _copy_to_user 15%", text)
        self.assertIn("after    200 samples: _copy_to_iter 60%, "
                      "kpagecount_read_iter 20%", text)
        self.assertIn("where the kernel time goes",
                      bench.series_table(BEFORE + PROFILE_BEFORE, AFTER + PROFILE_AFTER))
        self.assertNotIn("where the kernel time goes", bench.series_table(BEFORE, AFTER))

    def test_profile_error_shows(self):
        err = ["series-profile|/proc/kpagecount|4096|read|0|0|error:perf_event_open: ENOENT"]
        text = "\n".join(bench.profile_lines(err, PROFILE_AFTER))
        self.assertIn("before     0 samples: error:perf_event_open: ENOENT", text)

    def test_compare(self):
        rows, missed = bench.compare(BEFORE, AFTER)
        got = {r[0]: (r[3], r[4], r[5]) for r in rows}
        med, mn, verdict = got[("/proc/kallsyms", 1, "read")]
        self.assertAlmostEqual(med, 110 / 112)
        self.assertAlmostEqual(mn, 100 / 101)
        self.assertEqual(verdict, "met")
        # median misses, minimum holds
        self.assertEqual(got[("/proc/kallsyms", 4096, "read")][2], "met on min only")
        self.assertEqual(got[("/proc/config.gz", 1, "read")][2], "MISSED")
        self.assertEqual(got[("/proc/kallsyms", 4096, "sendfile")][2],
                         "works only after the series (before: sendfile: Invalid argument)")
        self.assertEqual(got[("/proc/config.gz", 4096, "read")][2],
                         "REGRESSION: fails after the series (read: Bad address)")
        self.assertEqual(got[("/proc/config.gz", 1, "splice")][2],
                         "measured at 4 KiB and 64 KiB")
        self.assertEqual(missed, 2)

    def test_table_names_the_goal_and_the_files(self):
        text = bench.series_table(BEFORE, AFTER)
        self.assertIn("goal >= 0.98", text)
        self.assertIn("/proc/config.gz          ->proc_read -> simple_read_from_buffer_iter()", text)
        self.assertTrue(text.endswith(
            "2 row(s) MISSED 0.98 of the pristine throughput on both median and "
            "minimum or fail only after the series; 1 met it on the minimum only"))

    def test_ratio_is_throughput_not_time(self):
        # fewer bytes per call after (a shorter file): same ns, less throughput
        before = ["series|/proc/slabinfo|65536|read|ok|1000.0|1000.0|20000"]
        after = ["series|/proc/slabinfo|65536|read|ok|1000.0|1000.0|10000"]
        rows, missed = bench.compare(before, after)
        self.assertAlmostEqual(rows[0][3], 0.5)
        self.assertEqual((rows[0][5], missed), ("MISSED", 1))


class RoundsTest(unittest.TestCase):

    def test_best_round_per_row(self):
        rounds = [
            "series|/proc/modules|4096|read|ok|900.0|1000.0|50",
            "series|/proc/modules|4096|splice|err|splice: Invalid argument",
            "series|/proc/modules|4096|read|ok|950.0|960.0|50",
            "series|/proc/modules|4096|splice|ok|500.0|600.0|50",
        ]
        _, got, order = bench.load_series(rounds)
        self.assertEqual(order, [("/proc/modules", 4096, "read"),
                                 ("/proc/modules", 4096, "splice")])
        # lowest median of the rounds, lowest minimum of all
        self.assertEqual(got[order[0]], ["ok", "900.0", "960.0", "50"])
        self.assertEqual(got[order[1]], ["ok", "500.0", "600.0", "50"])

    def test_control_ratio_is_shown(self):
        b = ["series|/proc/self/limits|4096|read|ok|100.0|100.0|400"]
        a = ["series|/proc/self/limits|4096|read|ok|120.0|125.0|400"]
        self.assertIn("control /proc/self/limits (unchanged by the series), "
                      "read, median ratio: 4096 B 0.800", bench.series_table(b, a))


class TimesTest(unittest.TestCase):

    def test_parts_by_target(self):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a"), os.path.join(d, "b")
            with open(a, "w") as fh:
                fh.write("setfs_kunit.ko 1.00\nsetfs_user_fuzz 3.25\n")
            with open(b, "w") as fh:
                fh.write("setfs_user_fuzz 17.20\n")
            text = bench.times_table([f"x86_64={a}", f"ppc64le={b}",
                                      f"missing={d}/none"]).splitlines()
        self.assertEqual(text[0].split(), ["part", "x86_64", "ppc64le", "missing"])
        self.assertEqual(text[1].split(), ["setfs_kunit.ko", "1.0", "-", "-"])
        self.assertEqual(text[2].split(), ["setfs_user_fuzz", "3.2", "17.2", "-"])


if __name__ == "__main__":
    unittest.main()
