"""The phrases signal: a report's quoted output matched verbatim against the project's string literals.

A bug report often pastes what the program printed: an error message, a warning, a line of a diff. The code that
printed it holds the same words in a string literal ("Using pytest.skip outside of a test is not allowed"), and that
file is often the one to fix, even when the report names none of its code. Words in common say little (the other
signals count those); the same words *in the same order* say much more. So both sides are read as runs of words:

    literals  every string literal of a project's code files (test files left out, docstrings too: they describe,
              they do not print; and literals holding lines of code: templates the program runs or writes), with
              adjacent literals joined ("a " "b" is one message) and format placeholders (`%s`, `{}`, `{name!r}`)
              read as one word of any value, so "%s contains %d more items" still meets "Right contains 3 more items"
    phrases   the task's text, read as words, but for the banners of pasted output ("===== test session starts
              =====", ">>>>> PDB post_mortem >>>>>"): a tool prints those on every run, whatever the bug

Every run of PHRASE_WORDS consecutive words (a shingle) is looked up in an index of the literals' shingles; a run of
consecutive shingles found in one file is a matched phrase, and a file scores by its best phrase: its length in
words times the idf of its rarest shingle (a phrase every file prints, "is not a valid", is worth little).

The scanner is a small regex over strings and comments that knows two comment families (`#` for Python and shell,
`//` and `/* */` for the C family); kg's core does not parse with tree-sitter (tests/unit/test_architecture.py), and
a literal needs no parse tree. The index is kept per process and re-reads only the files whose content hash changed
(as kg.retrieve.bodies does), so a warm process pays a few dictionary look-ups per query.
"""

from __future__ import annotations

import math
import re
import threading
from array import array
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from kg.retrieve.rank import Evidence, SignalRanking, _ranked, is_test
from kg.retrieve.text import TaskText
from kg.source_files import read_source
from kg.store import Store

PHRASE_WORDS = 5  # words in a shingle: 5 beat 3 and 4 on the localization set (bench/localization.py, the note)
MAX_TASK_WORDS = 6000  # words of a task read for phrases (a pasted log is already cut to 20,000 characters)
MAX_LITERAL_CHARS = 2000  # a longer literal is data (a template, an embedded script), not a message

_HASH_COMMENTS = (".py", ".pyi", ".rb", ".sh", ".bash", ".pl", ".r", ".yaml", ".yml", ".toml")
_PREFIX = r"(?:[rRbBuUfF]{1,2}(?=[\"']))?"  # Python's r"", b"", f"", rb"" …
# An unterminated triple quote or block comment runs to the end of the file (`\Z`): without that, each later opener
# would scan to the end again (quadratic in the file's size).
_STRING = (_PREFIX + r'(?:(?P<tq>"""[\s\S]*?(?:"""|\Z)|\'\'\'[\s\S]*?(?:\'\'\'|\Z))'
           r'|(?P<dq>"(?:\\.|[^"\\\n])*")|(?P<sq>\'(?:\\.|[^\'\\\n])*\'))')
_HASH_SCAN = re.compile(_STRING + r"|(?P<comment>#[^\n]*)")
_C_SCAN = re.compile(r"(?P<comment>//[^\n]*|/\*[\s\S]*?(?:\*/|\Z))|" + _STRING + r"|(?P<bq>`(?:\\.|[^`\\])*(?:`|\Z))")
# printf (%s, %-5d, %(name)s), str.format / f-string / template fields ({}, {0}, {name!r}, ${x}) and escapes (\n)
_PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGcaou]|\$?\{[^{}\n]{0,80}\}")
_ESCAPE = re.compile(r"\\[ntr]")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?|\x00")  # letters and digits of any script (`_` splits), or a placeholder
ANY = "*"  # a literal's placeholder: one word of the printed message, whatever it is
WILDCARDS = 1  # placeholders a shingle may hold ("contains %d more items" meets "contains 3 more items"); with more,
# "{} of the {}" would match any "x of the y"
# What may lie between two literals of one message once white space is removed: nothing, `+`, a `\` line break, or both.
_JOINERS = frozenset(("", "+", "\\", "+\\", "\\+"))
MAX_JOIN_GAP = 200  # characters between two literals of one message; further apart they are two
# a triple-quoted literal after one of these (or first in a file) stands alone: a docstring
_STATEMENT_END = frozenset((":", ";", "{", "}", ""))


def words_of(text: str) -> list[str]:
    """The words of a text as phrases are compared: lowercased runs of letters and digits (`_` and punctuation
    split them); a literal's placeholder is the word ANY."""
    return [ANY if w == "\x00" else w.lower() for w in _WORD.findall(text)]


def literals(source: str, path: str) -> list[str]:
    """The string literals of one source file, adjacent ones joined, docstrings and comments left out, format
    placeholders cut. Python-like files take `#` comments, the others `//` and `/* */`, and backquoted strings
    (JavaScript templates, Go raw strings)."""
    scan = _HASH_SCAN if path.lower().endswith(_HASH_COMMENTS) else _C_SCAN
    out: list[str] = []
    current: list[str] = []
    end = -1
    for m in scan.finditer(source):
        if m["comment"] is not None:
            continue
        body = _body(m.group())
        if current and _joined(source, end, m.start()):
            current.append(body)
        else:
            if current:
                out.append("".join(current))
            current = [] if m["tq"] is not None and _last_char(source, m.start()) in _STATEMENT_END else [body]
            if not current:
                end = -1
                continue
        end = m.end()
    if current:
        out.append("".join(current))
    return [_PLACEHOLDER.sub(" \x00 ", _ESCAPE.sub(" ", s)) for s in out
            if 0 < len(s) <= MAX_LITERAL_CHARS and not is_code(s)]


# A line of code in a literal: a `def`, `class`, `function` or `import` statement at a line's start. Such a literal
# is a template the program runs or writes (`exec(f"class Test{i}: ...")`, a generated module), not a message: it
# matches the code a report pastes (a test, a traceback's source lines), which says nothing about where to fix.
_CODE_LINE = re.compile(
    r"(?:^|\n|\\n)[ \t]*(?:(?:async[ \t]+)?def[ \t]+\w+[ \t]*\([^\n]*\)[^\n]*:"  # def f(x):
    r"|class[ \t]+\w+[^\n]*:[ \t]*(?:$|\n|\\n)"  # class C(B):
    r"|function[ \t]*\w*[ \t]*\([^)\n]*\)[ \t]*\{"  # function f(x) {
    r"|import[ \t]+[\w.]+[ \t]*(?:$|\n|\\n|;)|from[ \t]+[\w.]+[ \t]+import[ \t]+\w)")  # import os / from a import b


def is_code(literal: str) -> bool:
    """Whether a literal holds a line of code (a template to run, not a message to print)."""
    return _CODE_LINE.search(literal) is not None


def _joined(source: str, end: int, start: int) -> bool:
    """Whether the text between two literals joins them into one message (`"a " "b"`, `"a" + "b"`, across lines).
    String operations, not a regex: nested optional white space backtracks cubically over a long blank run."""
    return start - end <= MAX_JOIN_GAP and "".join(source[end:start].split()) in _JOINERS


def _last_char(source: str, before: int) -> str:
    """The last character before `before` that is not white space ("" at the start of the file)."""
    i = before - 1
    while i >= 0 and source[i].isspace():
        i -= 1
    return source[i] if i >= 0 else ""


def _body(literal: str) -> str:
    """A literal's text without its prefix and quotes."""
    literal = literal.lstrip("rRbBuUfF")
    q = 3 if literal[:3] in ('"""', "'''") else 1
    closed = len(literal) >= 2 * q and literal.endswith(literal[:q])  # an unterminated one runs to the file's end
    return literal[q:-q] if closed else literal[q:]


# English function words: a phrase of these and one other word ("but it is usually", "to get the full") is how
# prose is written, not a message only one file prints
_FUNCTION_WORDS = frozenset("""a an the and or but if then else so as at by for from in into of on onto to with
without is are was were be been being it its this that these those there here not no do does did done have has had
can could will would shall should may might must i you he she we they me us them my your our their what which who
when where why how all any some each every more most than too very just only also get got set""".split())
CONTENT_WORDS = 2  # words of a matched phrase that must not be function words, numbers or placeholders


def content_words(words: Iterable[str]) -> int:
    """How many words say what the phrase is about (not function words, numbers or placeholders)."""
    return sum(1 for w in words if w != ANY and not w.isdigit() and w not in _FUNCTION_WORDS)


def telling(shingle: str, n: int = PHRASE_WORDS) -> bool:
    """Whether a literal's shingle says something: all its words but one hold a letter, and at most WILDCARDS of
    them are placeholders. Digits align a printed number with its placeholder, but "0 9 0" or "2 3 0" (versions)
    and "{} of the {}" match too much to tell a file."""
    words = shingle.split()
    return (words.count(ANY) <= WILDCARDS
            and sum(1 for w in words if w != ANY and not w.isdigit()) >= n - 1)


def shingles(words: list[str], n: int = PHRASE_WORDS) -> list[str]:
    """Each run of `n` consecutive words, joined by spaces, in order."""
    return [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]


def key(shingle: str) -> int:
    """A shingle as the index keeps it: its hash (an int is a third of a short string's memory; a collision of two
    64-bit hashes within one repository's shingles is not worth a string each). The index lives in one process, so
    the per-process salt of `hash` does not matter."""
    return hash(shingle)


@dataclass
class PhraseIndex:
    """One repository's literal shingles: shingle → the files printing it. Shingles are kept as hashes (`key`), and
    a shingle only one file prints (nearly all of them) maps to that path itself rather than to a set of one: on
    a file of 1.9 MB of literals that is 18 MB instead of 83 MB (the note)."""

    root: Path
    n: int = PHRASE_WORDS
    hashes: dict[str, str | None] = field(default_factory=dict)  # path → content hash indexed
    by_file: dict[str, array[int]] = field(default_factory=dict)  # path → its shingles' keys, packed
    files_of: dict[int, str | set[str]] = field(default_factory=dict)  # shingle key → path, or paths when several
    version: object = None

    def refresh(self, store: Store, repo: str, version: object = None) -> None:
        """Re-read the files whose content hash changed, forget removed ones. A `version` equal to the last one
        (the repository's last ingest) means nothing changed: no query at all."""
        if version is not None and version == self.version:
            return
        self.version = version
        files = {r["path"]: r["hash"] for r in store.read("retrieve/body_files", repo=repo)}
        self.update(files)

    def update(self, files: dict[str, str | None]) -> None:
        """Bring the index to `files` (path → content hash; None: always re-read); test files are left out."""
        files = {p: h for p, h in files.items() if not is_test(p)}
        for p in [p for p in self.hashes if p not in files]:
            self._drop(p)
            self.hashes.pop(p, None)
        for p, h in files.items():
            if h is not None and self.hashes.get(p) == h:
                continue
            self._drop(p)
            text = read_source(self.root, p) or ""  # a file gone or unreadable prints nothing
            found = {key(s) for lit in literals(text, p) for s in shingles(words_of(lit), self.n)
                     if telling(s, self.n)}
            self.by_file[p] = array("q", found)
            for k in found:
                holders = self.files_of.get(k)
                if holders is None:
                    self.files_of[k] = p
                elif isinstance(holders, str):
                    self.files_of[k] = {holders, p}
                else:
                    holders.add(p)
            self.hashes[p] = h

    def _drop(self, path: str) -> None:
        for k in self.by_file.pop(path, ()):
            holders = self.files_of.get(k)
            if holders == path:
                del self.files_of[k]
            elif isinstance(holders, set):
                holders.discard(path)
                if len(holders) == 1:
                    self.files_of[k] = holders.pop()

    def holders(self, shingle: str) -> set[str]:
        """The files printing this shingle (as the index holds it: placeholders as ANY)."""
        found = self.files_of.get(key(shingle))
        return set() if found is None else {found} if isinstance(found, str) else set(found)

    def _holders(self, gram: list[str]) -> set[str]:
        """The files printing these words, literally or with up to WILDCARDS of them a placeholder."""
        found = self.holders(" ".join(gram))
        for k in range(1, WILDCARDS + 1):
            for holes in combinations(range(len(gram)), k):
                found |= self.holders(" ".join(ANY if i in holes else w for i, w in enumerate(gram)))
        return found

    def match(self, words: list[str]) -> dict[str, tuple[float, str]]:
        """Each file's best phrase among `words`: (score, the phrase). A phrase is a run of consecutive shingles
        all found in the file; it scores its length in words times its rarest shingle's idf over the files (scaled so
        a shingle found in one file only has idf 1)."""
        n_files = max(len(self.by_file), 1)
        unique = math.log(1 + n_files)  # a shingle of one file: idf 1, so a phrase's score reads as its length
        hits = [self._holders(words[i:i + self.n]) for i in range(len(words) - self.n + 1)]
        best: dict[str, tuple[float, str]] = {}
        open_runs: dict[str, tuple[int, float]] = {}  # path → (first shingle of its current run, rarest idf so far)
        for i, holders in enumerate([*hits, set()]):
            idf = math.log(1 + n_files / len(holders)) / unique if holders else 0.0
            for path in list(open_runs):
                if path not in holders:  # the run ends at shingle i - 1
                    start, rarest = open_runs.pop(path)
                    length = i - 1 - start + self.n
                    score = length * rarest
                    if score > best.get(path, (0.0, ""))[0] and content_words(words[start:start + length]) >= \
                            CONTENT_WORDS:
                        best[path] = (score, " ".join(words[start:start + length]))
            for path in holders:
                start, rarest = open_runs.get(path, (i, 0.0))
                open_runs[path] = (start, max(rarest, idf))
        return best


_INDEXES: dict[tuple[str, str, int], PhraseIndex] = {}
_LOCK = threading.Lock()


def index_for(store: Store, repo: str, root: Path, version: object = None, n: int = PHRASE_WORDS) -> PhraseIndex:
    """The repository's phrase index, kept for the life of the process and brought up to date when the repository
    was ingested since."""
    key = (repo, str(root), n)
    with _LOCK:
        index = _INDEXES.setdefault(key, PhraseIndex(root, n))
        index.refresh(store, repo, version)
        return index


# A banner: a line whose text is framed by runs of one separator character on both sides, as test runners, build
# tools and loggers head each section of their output ("===== test session starts =====", ">>>>> PDB post_mortem
# (IO-capturing turned off) >>>>>", "----- Captured stdout call -----"). The tool prints it around every run,
# failing or not: it names the reporting code, not the behaviour to fix.
_BANNER = re.compile(r"^[ \t]*([=\-_>*#~+<])\1{2,}[ \t]*\S[^\n]*?[ \t]*([=\-_>*#~+<])\2{2,}[ \t]*$", re.MULTILINE)
BREAK = "\x01"  # a word no literal holds: no phrase runs across it


def task_words(text: str) -> list[str]:
    """The words of a task as phrases read them: its banners left out (each leaves a break, so no phrase runs
    across it), at most MAX_TASK_WORDS."""
    text = text.replace("\x00", " ").replace("\r\n", "\n").replace("\r", "\n")
    words: list[str] = []
    start = 0
    for m in _BANNER.finditer(text):
        words += [*words_of(text[start:m.start()]), BREAK]
        start = m.end()
    words += words_of(text[start:])
    return words[:MAX_TASK_WORDS]


def rank_phrases(index: PhraseIndex, text: str) -> SignalRanking:
    """Files ranked by the best phrase of `text` they print."""
    words = task_words(text)
    evidence: dict[str, Evidence] = defaultdict(Evidence)
    for path, (score, phrase) in index.match(words).items():
        evidence[path].add(score, f'prints "{_short(phrase)}"')
    return SignalRanking("phrases", _ranked(evidence))


def _short(phrase: str, limit: int = 80) -> str:
    return phrase if len(phrase) <= limit else phrase[: limit - 1] + "…"


def phrases_signal(store: Store, repo: str, task: TaskText, root: Path | None,
                   version: object = None) -> SignalRanking | str:
    """Files ranked by the longest, rarest run of the task's words found in their string literals, or why the
    signal cannot run (the files are not on disk)."""
    if root is None or not root.is_dir():
        return f"the repository's files are not on disk at {root or 'its recorded root'}: re-ingest it from there"
    return rank_phrases(index_for(store, repo, root, version), task.text)


def index_files(root: Path, paths: Iterable[str], n: int = PHRASE_WORDS) -> PhraseIndex:
    """A phrase index of the given files under `root`, outside any graph (benchmarks, tests)."""
    index = PhraseIndex(root, n)
    index.update(dict.fromkeys(paths))
    return index
