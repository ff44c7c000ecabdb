# SPDX-License-Identifier: GPL-2.0
"""Find C definitions by name in kernel sources, as they are in the tree.

The scanner works on a copy of the text in which comments, string and
character literals and preprocessor lines are blanked (same length, newlines
kept), so braces and names inside them do not count; what it returns is the
original text between the offsets it found.

Kinds:
  func NAME    a function definition (a prototype is not one)
  struct NAME  "struct NAME { ... };" with any attributes before the ";"
  enum NAME    "enum NAME { ... };"
  macro NAME   "#define NAME ..." with its continuation lines
"""

import re

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ExtractError(Exception):
    """A definition is missing, ambiguous, or not balanced."""


def blank(text):
    """Return text with comments, literals and directives made spaces.

    Of each #if/#elif/#else chain only the first branch is kept: the
    others are blanked too, so that a brace opened differently in two
    branches is counted once.
    """
    out = list(text)
    i, n = 0, len(text)
    at_line_start = True
    directives = []     # (start, end, keyword)

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if at_line_start and c in " \t":
            i += 1
            continue
        if at_line_start and c == "#":
            # A directive runs to the first newline not escaped by "\".
            j = i
            while j < n:
                if text[j] == "\n" and text[j - 1] != "\\":
                    break
                if text.startswith("/*", j):
                    end = text.find("*/", j + 2)
                    j = n if end < 0 else end + 2
                    continue
                j += 1
            m = re.match(r"#\s*(\w+)", text[i:j])
            directives.append((i, j, m.group(1) if m else ""))
            wipe(i, j)
            i = j
            continue
        at_line_start = False
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            wipe(i, end)
            i = end
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            wipe(i, end)
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n":
                    break
                j += 1
            wipe(i, min(j + 1, n))
            i = j + 1
            continue
        if c == "\n":
            at_line_start = True
        i += 1

    stack = []          # per open conditional: is this branch skipped?
    for k, (_, end, word) in enumerate(directives):
        if word in ("if", "ifdef", "ifndef"):
            stack.append(False)
        elif word in ("elif", "else") and stack:
            stack[-1] = True
        elif word == "endif" and stack:
            stack.pop()
        if any(stack):
            nxt = directives[k + 1][0] if k + 1 < len(directives) else n
            wipe(end, nxt)
    return "".join(out)


def _match(s, i, open_c, close_c):
    """Offset just past the bracket closing the one at s[i]."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == open_c:
            depth += 1
        elif s[j] == close_c:
            depth -= 1
            if depth == 0:
                return j + 1
    raise ExtractError("unbalanced %r at offset %d" % (open_c, i))


def _depths(s):
    """Brace depth before each character."""
    depth, out = 0, []
    for c in s:
        out.append(depth)
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
    return out


def _decl_start(s, i):
    """Walk back from a name over its declaration specifiers."""
    j = i
    while j > 0 and (s[j - 1].isalnum() or s[j - 1] in "_* \t\n"):
        j -= 1
    while j < i and s[j] in " \t\n":
        j += 1
    return j


def find_functions(text, name, stripped=None):
    """(start, end) of every definition of function name."""
    s = stripped if stripped is not None else blank(text)
    depth = _depths(s)
    found = []
    for m in re.finditer(r"\b%s\s*\(" % re.escape(name), s):
        if depth[m.start()]:
            continue
        close = _match(s, m.end() - 1, "(", ")")
        k = close
        while k < len(s) and s[k] in " \t\n":
            k += 1
        if k >= len(s) or s[k] != "{":
            continue    # a prototype, a call or a macro use
        before = s[:m.start()].rstrip()
        if before.endswith(("=", ",", "(", "return")):
            continue
        end = _match(s, k, "{", "}")
        found.append((_decl_start(s, m.start()), end))
    return found


def find_tagged(text, kind, name, stripped=None):
    """(start, end) of every "struct|enum name { ... } ...;" definition."""
    s = stripped if stripped is not None else blank(text)
    depth = _depths(s)
    found = []
    for m in re.finditer(r"\b%s\s+%s\s*\{" % (kind, re.escape(name)), s):
        if depth[m.start()]:
            continue
        end = _match(s, m.end() - 1, "{", "}")
        semi = s.find(";", end)
        if semi < 0:
            raise ExtractError("%s %s: no ';' after the body" % (kind, name))
        found.append((m.start(), semi + 1))
    return found


def find_macros(text, name):
    """(start, end) of every "#define name" with its continuation lines."""
    found = []
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+%s\b" % re.escape(name),
                         text, re.M):
        end = m.end()
        while True:
            nl = text.find("\n", end)
            if nl < 0:
                end = len(text)
                break
            end = nl
            if text[nl - 1] != "\\":
                break
            end = nl + 1
        found.append((m.start(), end))
    return found


def find(text, kind, name):
    """The one (start, end) of a definition; ExtractError otherwise."""
    if kind == "func":
        spans = find_functions(text, name)
    elif kind in ("struct", "enum"):
        spans = find_tagged(text, kind, name)
    elif kind == "macro":
        spans = find_macros(text, name)
    else:
        raise ExtractError("unknown kind %r" % kind)
    if not spans:
        raise ExtractError("%s %s: not found" % (kind, name))
    if len(spans) > 1:
        lines = [text.count("\n", 0, a) + 1 for a, _ in spans]
        raise ExtractError("%s %s: %d definitions (lines %s)" %
                           (kind, name, len(spans),
                            ", ".join(map(str, lines))))
    return spans[0]


def extract(text, kind, name, path="<text>"):
    """The definition's text, preceded by a #line naming its origin."""
    start, end = find(text, kind, name)
    line = text.count("\n", 0, start) + 1
    return '#line %d "%s"\n%s\n' % (line, path, text[start:end])
