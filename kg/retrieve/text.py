"""What a task or bug report says, read without a model: the code names in it and the words to search with.

A report names code in a handful of recognisable shapes, and each shape says how sure we may be that it names
something of the project:

    traceback frame   File "src/pkg/mod.py", line 12, in func     a file and a function that ran: strongest
    file name         pkg/mod.py, `mod.py`                        a file
    dotted path       pkg.mod.Class.method, Class.method          a symbol or module
    call / code       func(), `name`, text inside ``` blocks       a symbol
    code-like word    snake_case, CamelCase, _private, ALL_CAPS   most likely a symbol
    error type        ValueError, FooException                     a class (often the standard library's)

Plain words go to the full-text and vector searches instead; identifier words are split (`cached_eval` → cached,
eval) the way code is split when indexed, so "cached eval" and `cached_eval` meet.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

MAX_TASK_CHARS = 20_000  # a pasted log is cut to this before anything reads it (head and tail kept)

# shape → weight: how strongly a mention of that shape points at the file that defines it
WEIGHTS = {"frame": 3.0, "file": 2.5, "dotted": 2.0, "code": 1.5, "identifier": 1.0, "error": 0.5, "word": 0.25}
# A traceback's last frames are where the error happened, its first ones the entry point every error passes through:
# a frame `depth` frames above the innermost one weighs WEIGHTS["frame"] × (1 + FRAME_BOOST × 0.5 ** depth).
FRAME_BOOST = 1.0

_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>[\w<>.]+))?')
_PYTEST_FRAME = re.compile(r"^(?P<path>[\w./\\-]+\.py):(?P<line>\d+):?(?:\s+in\s+(?P<func>\w+))?", re.MULTILINE)
_FRAME_LINE = re.compile(r'\W*File "[^"]+", line \d+')
_ECHOED = re.compile(r"^(?:[A-Z]+>)?\s+\S")  # an indented line (after a log prefix such as `INTERNALERROR>`)
_FILE = re.compile(r"(?<![\w/.-])(?P<path>(?:[\w.-]+/)*[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|mjs|cjs|go|rs|java))\b")
_DOTTED = re.compile(r"(?<![\w.])(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?![\w(]*\.\w)")
_CALL = re.compile(r"(?<![\w.])(?P<name>[A-Za-z_][\w.]*)\(")
_TICKED = re.compile(r"`([^`\n]{1,200})`")
_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|$)", re.DOTALL)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ERROR = re.compile(r"^[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt)$")
_CAMEL = re.compile(r"[a-z0-9][A-Z]")
_DUNDER = re.compile(r"^__\w+__$")
# A name followed by a version is a product, not a name in the code: `Python 3.7.3`, `pytest-4.4.0`, `attrs 19.1.0`
# (a session header, a `pip list`); the project's own module of that name is not what the report is about.
_VERSIONED = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z0-9_]*)(?:[ \t]+|-|==)v?\d+\.\d+")
# A line of a package listing (`pip list`, `pip freeze`, `conda list`): a name, a version, maybe a location or build.
_LISTED = re.compile(r"^[ \t]*[A-Za-z][\w.\-]*(?:\[[\w,.\-]+\])?(?:[ \t]*==[ \t]*|[ \t]+v?)\d+(?:\.[\w+!\-]+)+"
                     r"(?:[ \t]+\S+){0,2}[ \t\r]*$")
_RULE = re.compile(r"^[ \t]*[-=]{3,}(?:[ \t]+[-=]{3,})*[ \t\r]*$")  # a table's rule under its header: `------- -------`
MIN_LISTING = 3  # consecutive listed lines that make a listing (two could be prose: "Python 3.7 / pytest 4.4")
# Folders that hold other projects' code copied in: a traceback frame there is a dependency's, not the project's.
_VENDORED = re.compile(r"(?:^|/)(?:_?vendor(?:ed)?|third_party|site-packages|dist-packages)/|.+/packages/")
_SPLIT = re.compile(r"([a-z0-9])([A-Z])")
_STOP = frozenset("""a an and are as at be been but by can could did do does doing done for from had has have how
i if in into is it its it's me my no not of on or our so such than that the their them then there these they this
those to too us was we were what when where which while who why will with would you your also any all just like
only should some very get got use used using want wants way one two may might must need needs make made new now
see seems same work works issue bug error problem case still already instead other else more most here please
thanks thank hi hello currently expected actual behavior behaviour output following example version""".split())
_COMMON_CODE = frozenset({"self", "cls", "none", "true", "false", "return", "def", "class", "import", "from", "print",
                          "str", "int", "len", "list", "dict", "set", "tuple", "object", "type", "args", "kwargs",
                          "lambda", "yield", "assert", "raise", "try", "except", "finally", "pass", "async", "await",
                          "http", "https", "www", "com", "org", "github", "py", "txt", "md", "rst"})


@dataclass(frozen=True)
class Mention:
    """A code name found in the text: its shape, and the dotted or path form as written."""

    text: str
    shape: str  # a key of WEIGHTS
    line: int | None = None  # traceback frames only
    depth: int | None = None  # traceback frames only: how many frames lie between this one and the error

    @property
    def weight(self) -> float:
        if self.shape == "frame" and self.depth is not None:
            return WEIGHTS["frame"] * (1 + FRAME_BOOST * 0.5 ** self.depth)
        return WEIGHTS[self.shape]

    @property
    def last(self) -> str:
        """The innermost name (`Class.method` → `method`, `pkg/mod.py` → `mod`)."""
        if self.shape in ("file", "frame") and "/" in self.text or self.text.endswith(".py"):
            return self.text.rsplit("/", 1)[-1].split(".", 1)[0]
        return self.text.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Frame:
    """One traceback frame: the file as it would be inside a project, the line, the function, how deep it lies."""

    path: str
    line: int
    func: str | None
    depth: int  # frames between this one and the innermost (0)


def vendored(path: str) -> bool:
    """A path inside a copy of another project (`requests/packages/urllib3/…`, `pip/_vendor/…`, `third_party/…`).
    A top-level `packages/` is a monorepo's own code, so only a `packages/` folder inside a package counts."""
    return bool(_VENDORED.search(path))


@dataclass
class TaskText:
    """A task read once: the (cut) text, the code names in it, and the search words with their counts."""

    text: str
    cut: bool
    mentions: list[Mention] = field(default_factory=list)
    words: Counter[str] = field(default_factory=Counter)
    title_words: frozenset[str] = frozenset()  # the words of the first line: what a report is about, in brief
    frames: list[Frame] = field(default_factory=list)  # traceback frames, innermost first
    products: frozenset[str] = frozenset()  # lowercased names written with a version (`Python 3.7`): not code

    @property
    def empty(self) -> bool:
        return not self.words and not self.mentions

    def names(self, shapes: tuple[str, ...] | None = None) -> dict[str, float]:
        """Innermost names to look up exactly, each with the weight of its strongest mention."""
        out: dict[str, float] = {}
        for m in self.mentions:
            if shapes is None or m.shape in shapes:
                out[m.last] = max(out.get(m.last, 0.0), m.weight)
        return out

    def query_words(self, limit: int = 48) -> list[str]:
        """The most telling search words: code words first, then by frequency (ties in order of appearance)."""
        ranked = sorted(self.words.items(), key=lambda kv: -kv[1])
        return [w for w, _ in ranked[:limit]]


def cut_text(text: str, limit: int = MAX_TASK_CHARS) -> tuple[str, bool]:
    """A pasted log cut to `limit` characters: its head (the report) and its tail (where a traceback ends)."""
    if len(text) <= limit:
        return text, False
    head = text[: limit * 3 // 4]
    tail = text[-(limit - len(head)):]
    return f"{head}\n…\n{tail}", True


def without_listings(text: str) -> str:
    """The text without its package listings (a `pip list` pasted into a report template, with its header and
    rule): hundreds of package names that every search would read as the report's words, and that push what the
    report says past the embedding model's window. The listing's versions still say which products are involved
    (`TaskText.products` reads them first)."""
    lines = text.split("\n")
    keep = [True] * len(lines)
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and _LISTED.match(lines[j]):
            j += 1
        if j - i >= MIN_LISTING:
            for k in range(i, j):
                keep[k] = False
            if i >= 1 and _RULE.match(lines[i - 1]):  # `Package  Version` over `-------  -------`
                keep[i - 1] = False
                if i >= 2:
                    keep[i - 2] = False
        i = max(j, i + 1)
    return "\n".join(line for line, k in zip(lines, keep, strict=True) if k)


def split_identifier(word: str) -> list[str]:
    """`cached_eval` → [cached, eval]; `MarkEvaluator` → [mark, evaluator]; lowercased, one-letter parts dropped."""
    parts = _SPLIT.sub(r"\1 \2", word).replace("_", " ").lower().split()
    return [p for p in parts if len(p) > 1]


def read_task(text: str, limit: int = MAX_TASK_CHARS) -> TaskText:
    """The mentions and search words of a task or bug report (any language; non-Latin words are simply not code)."""
    text, was_cut = cut_text(text or "", limit)
    mentions: dict[tuple[str, str], Mention] = {}
    products = frozenset(m.lower() for m in _VERSIONED.findall(text))
    text = without_listings(text)

    def add(name: str, shape: str, line: int | None = None, depth: int | None = None) -> None:
        name = _clean(name)
        if not name or name.lower() in _COMMON_CODE or len(name) < 3:
            return
        if shape in ("code", "identifier") and name.lower() in products:
            return
        key = (name, shape)
        if key not in mentions or depth is not None and depth < (mentions[key].depth or 0):
            mentions[key] = Mention(name, shape, line, depth)

    found = sorted([*_FRAME.finditer(text), *_PYTEST_FRAME.finditer(text)], key=lambda m: m.start())
    frames: list[Frame] = []
    for i, m in enumerate(found):
        depth = len(found) - 1 - i  # 0: the innermost frame, where the error was raised
        path = _project_path(m["path"])
        func = m["func"] if m["func"] and not m["func"].startswith("<") else None
        add(path, "frame", int(m["line"]), depth)
        if func:
            add(func, "frame", depth=depth)
        frames.append(Frame(_clean(path), int(m["line"]), func, depth))
    prose = _without_frames(text, found)
    for m in _FILE.finditer(prose):
        add(m["path"], "file")
    for snippet in [*_TICKED.findall(prose), *_FENCE.findall(prose)]:
        for w in _WORD.findall(snippet):
            if len(w) > 2 and w.lower() not in _STOP:
                add(w, "code")
    for m in _DOTTED.finditer(prose):
        name = m["name"]
        if _FILE.fullmatch(name) or re.fullmatch(r"[a-z]+\.(?:com|org|net|io|html?|txt|md|rst|cfg|ini|toml)", name):
            continue
        add(name, "dotted")
    for m in _CALL.finditer(prose):
        add(m["name"], "code")
    for w in _WORD.findall(prose):
        if _ERROR.match(w):
            add(w, "error")
        elif "_" in w.strip("_") or _CAMEL.search(w) or w.startswith("_") and len(w) > 2 and not _DUNDER.match(w):
            add(w, "identifier")
    counts: Counter[str] = Counter()
    for w in _WORD.findall(text):
        parts = split_identifier(w)
        for p in parts:
            if p not in _STOP and p not in _COMMON_CODE:
                counts[p] += 1
        if len(parts) > 1:
            counts[w.lower()] += 1
    first = next((line for line in text.splitlines() if line.strip()), "")
    title = frozenset(p for w in _WORD.findall(first) for p in split_identifier(w) if p in counts)
    return TaskText(text, was_cut, _strongest(mentions), counts, title, frames[::-1], products)


def _without_frames(text: str, frames: list[re.Match[str]]) -> str:
    """The text without its traceback frames and the source line each one echoes: those lines name the functions
    the frames already name, and read again as code they would count each outer frame (the runner, the entry
    point) once more for every call it shows. Their words still go to the searches."""
    lines = text.split("\n")
    for m in frames:
        at = text.count("\n", 0, m.start())
        lines[at] = ""
        echoed = at + 1
        if echoed < len(lines) and _ECHOED.match(lines[echoed]) and not any(
                f.match(lines[echoed]) for f in (_FRAME_LINE, _PYTEST_FRAME)):
            lines[echoed] = ""
    return "\n".join(lines)


def _clean(name: str) -> str:
    return name.strip().strip(".,:;()[]{}'\"").replace("\\", "/")


def _project_path(path: str) -> str:
    """A traceback path as it would be inside a project: what lies before `site-packages/` or an installed egg
    (`…/site-packages/requests-2.3.0-py2.7.egg/requests/models.py` → `requests/models.py`) and absolute prefixes
    dropped."""
    path = path.replace("\\", "/")
    for marker in ("site-packages/", "dist-packages/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    path = re.sub(r"^[^/]+\.egg/", "", path)
    return path.lstrip("./")


def _strongest(mentions: dict[tuple[str, str], Mention]) -> list[Mention]:
    """Each name once, in its strongest shape, strongest first."""
    best: dict[str, Mention] = {}
    for m in mentions.values():
        if m.text not in best or m.weight > best[m.text].weight:
            best[m.text] = m
    return sorted(best.values(), key=lambda m: -m.weight)


# ── the words code is indexed by (the same splitting as a task's words, so the two meet) ─────────────────────────


def code_tokens(source: str) -> list[str]:
    """The words of code as a task's words are read: each identifier split, and whole when it has parts."""
    out: list[str] = []
    for w in _WORD.findall(source):
        parts = split_identifier(w)
        out += parts
        if len(parts) > 1:
            out.append(w.lower())
    return out


def code_words(source: str, cap: int = 3) -> str:
    """The words of a source file for the full-text index: identifiers split and whole, each repeated as often as
    it occurs up to `cap` (term frequency saturates early, so more would only grow the index)."""
    counts: Counter[str] = Counter(code_tokens(source))
    return " ".join(w for w, c in sorted(counts.items()) for _ in range(min(c, cap)))


def path_words(path: str) -> str:
    """`src/_pytest/mark/evaluate.py` → `pytest mark evaluate`: the folders and file name as words."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return " ".join(p for part in stem.split("/") for p in split_identifier(part) if p not in ("src", "lib"))


def symbol_words(qname: str, signature: str | None, doc: str | None, max_doc: int = 600) -> str:
    """A symbol's words: its name and owner split and whole, its parameters, the start of its docstring."""
    names = qname.rsplit(".", 2)[-2:]
    words: list[str] = []
    for n in names:
        parts = split_identifier(n)
        words += parts + ([n.lower()] if len(parts) > 1 else [])
    if signature and "(" in signature:
        for w in _WORD.findall(signature.split("(", 1)[1]):
            words += split_identifier(w)
    return " ".join(words) + (" " + (doc or "")[:max_doc] if doc else "")
