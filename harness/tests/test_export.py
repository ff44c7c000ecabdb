# SPDX-License-Identifier: GPL-2.0
"""export in the developer's name (harness/commands.py export_identity(),
with_identity(), export_dir(); harness/cli.py --author): on a small git
repository, not the kernel tree."""

import os
import subprocess
import tempfile
import types
import unittest
from unittest import mock

from harness import cli, commands, core, tree

PLACEHOLDER = tree.SERIES_IDENTITY
OTHER = ("Christoph Hellwig", "hch@lst.de")


def git(repo, *args, who=PLACEHOLDER, stdin=None):
    env = dict(os.environ, GIT_AUTHOR_NAME=who[0], GIT_AUTHOR_EMAIL=who[1],
               GIT_COMMITTER_NAME=who[0], GIT_COMMITTER_EMAIL=who[1],
               GIT_AUTHOR_DATE="@1700000000 +0000",
               GIT_COMMITTER_DATE="@1700000000 +0000",
               GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git", "-C", repo, *args], env=env, input=stdin, text=True,
                          check=True, capture_output=True).stdout.strip()


def commit(repo, name, text, who=PLACEHOLDER, signed=True):
    with open(os.path.join(repo, name), "w") as fh:
        fh.write(text)
    git(repo, "add", name, who=who)
    msg = f"{name}: add it\n\nBecause.\n"
    if signed:
        msg += f"\nSigned-off-by: {who[0]} <{who[1]}>\n"
    git(repo, "commit", "-q", "-F", "-", who=who, stdin=msg)
    return git(repo, "rev-parse", "HEAD")


class Identity(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.repo = os.path.join(self.tmp.name, "tree")
        os.mkdir(self.repo)
        git(self.repo, "init", "-q")
        self.base = commit(self.repo, "a", "pristine\n", signed=False)
        commit(self.repo, "b", "one\n")
        commit(self.repo, "c", "two\n", who=OTHER)     # someone else's patch
        commit(self.repo, "d", "three\n")
        self.head = git(self.repo, "rev-parse", "HEAD")
        self.ctx = types.SimpleNamespace(tree=self.repo, author="")
        self.out = os.path.join(self.tmp.name, "out")
        os.mkdir(self.out)
        with open(os.path.join(self.out, "cover-letter.txt"), "w") as fh:
            fh.write("b, c, d: add them\n\nHi all,\n")

    def tearDown(self):
        self.tmp.cleanup()

    def export(self, ident):
        commands.export_dir(self.ctx, self.out, self.base, self.base, "HEAD", ident)
        files = {}
        for f in sorted(os.listdir(self.out)):
            with open(os.path.join(self.out, f), encoding="utf-8") as fh:
                files[f] = fh.read()
        return files

    def test_patches_carry_the_given_identity(self):
        files = self.export(("Jane Developer", "jane@example.org"))
        self.assertEqual(files["series"].split(),
                         ["0001-b-add-it.patch", "0002-c-add-it.patch",
                          "0003-d-add-it.patch"])
        for name in ("0001-b-add-it.patch", "0003-d-add-it.patch"):
            text = files[name]
            self.assertIn("\nFrom: Jane Developer <jane@example.org>\n", text)
            self.assertIn("\nSigned-off-by: Jane Developer <jane@example.org>\n", text)
            self.assertIn("Date: Tue, 14 Nov 2023 22:13:20 +0000", text)
        # the other author's patch is theirs, signed by them only
        self.assertIn("\nFrom: Christoph Hellwig <hch@lst.de>\n", files["0002-c-add-it.patch"])
        self.assertNotIn("Jane", files["0002-c-add-it.patch"])
        cover = files["0000-cover-letter.patch"]
        self.assertIn("Subject: [PATCH 0/3] b, c, d: add them\n", cover)
        self.assertIn("\nFrom: Jane Developer <jane@example.org>\n", cover)
        self.assertIn("Jane Developer (2):", cover)
        for text in files.values():
            self.assertNotIn("Seed cb4d7c4f", text)
            self.assertNotIn("a-seed-cb4d7c4f", text)
        # the tree's branch did not move, and the patches rebuild its tree
        self.assertEqual(git(self.repo, "rev-parse", "HEAD"), self.head)
        git(self.repo, "checkout", "-q", "-b", "check", self.base)
        for name in files["series"].split():
            git(self.repo, "am", "-q", os.path.join(self.out, name))
        self.assertEqual(git(self.repo, "rev-parse", "HEAD^{tree}"),
                         git(self.repo, "rev-parse", f"{self.head}^{{tree}}"))

    def test_version_file_sets_the_subject_prefix(self):
        with open(os.path.join(self.out, "version"), "w") as fh:
            fh.write("6\n")
        files = self.export(PLACEHOLDER)
        self.assertIn("Subject: [PATCH v6 0/3] b, c, d: add them\n",
                      files["0000-cover-letter.patch"])
        self.assertIn("Subject: [PATCH v6 2/3] c: add it\n", files["0002-c-add-it.patch"])
        # the file names do not change with the version
        self.assertEqual(files["series"].split()[0], "0001-b-add-it.patch")

    def test_bad_version_file_names_itself(self):
        for text in ("v6\n", "1\n", "", "06x"):
            with self.subTest(text=text):
                with open(os.path.join(self.out, "version"), "w") as fh:
                    fh.write(text)
                with mock.patch.object(core, "die", side_effect=SystemExit(2)) as die:
                    with self.assertRaises(SystemExit):
                        self.export(PLACEHOLDER)
                self.assertIn("version", die.call_args[0][0])
                self.assertIn(repr(text.strip()), die.call_args[0][0])

    def test_non_ascii_name_is_encoded_by_git(self):
        files = self.export(("Jörg Rödel", "joro@example.org"))
        self.assertIn("From: =?UTF-8?q?J=C3=B6rg=20R=C3=B6del?= <joro@example.org>",
                      files["0001-b-add-it.patch"])
        self.assertIn("Signed-off-by: Jörg Rödel <joro@example.org>",
                      files["0001-b-add-it.patch"])

    def test_same_identity_changes_nothing(self):
        self.assertEqual(commands.with_identity(self.repo, self.base, "HEAD", PLACEHOLDER),
                         self.head)
        files = self.export(PLACEHOLDER)
        self.assertIn(f"From {git(self.repo, 'rev-parse', 'HEAD~2')} ",
                      files["0001-b-add-it.patch"])

    def test_unsigned_commit_gains_no_sign_off(self):
        commit(self.repo, "e", "four\n", signed=False)
        files = self.export(("Jane Developer", "jane@example.org"))
        self.assertIn("\nFrom: Jane Developer <jane@example.org>\n",
                      files["0004-e-add-it.patch"])
        self.assertNotIn("Signed-off-by", files["0004-e-add-it.patch"].split("---")[0])

    def test_placeholder_sign_off_on_another_authors_patch(self):
        # a patch passed on: its author's sign-off stays, ours is replaced
        msg = ("f: add it\n\nSigned-off-by: Christoph Hellwig <hch@lst.de>\n"
               f"Signed-off-by: {PLACEHOLDER[0]} <{PLACEHOLDER[1]}>\n")
        with open(os.path.join(self.repo, "f"), "w") as fh:
            fh.write("five\n")
        git(self.repo, "add", "f", who=OTHER)
        git(self.repo, "commit", "-q", "-F", "-", who=OTHER, stdin=msg)
        text = self.export(("Jane Developer", "jane@example.org"))["0004-f-add-it.patch"]
        self.assertIn("\nFrom: Christoph Hellwig <hch@lst.de>\n", text)
        self.assertIn("Signed-off-by: Christoph Hellwig <hch@lst.de>\n"
                      "Signed-off-by: Jane Developer <jane@example.org>\n", text)

    def test_committed_series_carry_the_placeholder(self):
        # what kernel-patches/README.md says and with_identity() replaces
        root = os.path.join(os.path.dirname(__file__), "..", "..", "kernel-patches")
        seen = 0
        for d, _, names in os.walk(root):
            for n in names:
                if n.endswith(".patch") and n[:4].isdigit():
                    with open(os.path.join(d, n), encoding="utf-8") as fh:
                        head = fh.read(400)
                    self.assertIn(f"From: {PLACEHOLDER[0]}\n <{PLACEHOLDER[1]}>", head, n)
                    seen += 1
        self.assertGreater(seen, 90)

    def test_identity_source(self):
        self.ctx.author = "Jane Developer <jane@example.org>"
        self.assertEqual(commands.export_identity(self.ctx),
                         ("Jane Developer", "jane@example.org"))
        self.ctx.author = ""
        with mock.patch.dict(os.environ, {"GIT_CONFIG_GLOBAL": "/dev/null",
                                          "GIT_CONFIG_NOSYSTEM": "1"}):
            old = os.getcwd()
            os.chdir(self.tmp.name)
            try:
                self.assertIsNone(commands.export_identity(self.ctx))
                git(self.repo, "config", "user.name", "Jane Developer")
                git(self.repo, "config", "user.email", "jane@example.org")
                os.chdir(self.repo)
                self.assertEqual(commands.export_identity(self.ctx),
                                 ("Jane Developer", "jane@example.org"))
            finally:
                os.chdir(old)


class AuthorOption(unittest.TestCase):
    def parse(self, *argv):
        ctx = core.Ctx()
        return ctx, cli.parse(list(argv), ctx, {"default": ["x86_64"]})

    def test_bad_author_is_a_usage_error(self):
        for bad in ("jane@example.org", "Jane <jane>", "<jane@example.org>",
                    "Jane <jane@example.org> x"):
            with self.subTest(author=bad):
                with self.assertRaisesRegex(core.UsageFailure, "--author takes"):
                    self.parse("export", "--author", bad)

    def test_author_only_with_export(self):
        with self.assertRaisesRegex(core.UsageFailure, "--author is an option of export"):
            self.parse("kunit", "--author=Jane <jane@example.org>")

    def test_author_is_taken(self):
        ctx, cmd = self.parse("export", "--author", "Jane Developer <jane@example.org>")
        self.assertEqual((cmd, ctx.author), ("export", "Jane Developer <jane@example.org>"))


if __name__ == "__main__":
    unittest.main()
