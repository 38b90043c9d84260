"""Non-code files (READMEs, docs, configuration) as documents cut into chunks that can be searched and cited.

An agent asking "how is this deployed?" or "which Python does CI use?" needs the Dockerfile stage or the YAML key,
not the whole file, and it needs the line numbers to cite it. So every chunk is a contiguous run of the file's own
lines with a heading path ("Install > From source", "services > web", "tool.ruff") and 1-based inclusive line numbers.
The one exception is minified JSON, where keys share lines: each top-level value is then re-serialised with its key
and the chunk points at the key's line.

Chunking never raises: a YAML/TOML/JSON file that does not parse is cut into fixed line windows and the parser's
message is kept in `Document.error` (prefixed `parse_error:`), so a broken config file is still searchable.
"""

from __future__ import annotations

import bisect
import json
import math
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

MAX_CHUNK_CHARS = 2000  # larger chunks are split on line boundaries, the heading gets " (2)", " (3)", ...
WINDOW_LINES = 50  # chunk size when a file has no usable structure

_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
_PROSE_NAMES = frozenset({"README", "INSTALL", "CHANGES", "CHANGELOG", "HISTORY", "NEWS", "CONTRIBUTING", "USAGE"})
_DOC_DIRS = frozenset({"doc", "docs", "documentation"})
_INI_NAMES = frozenset({".editorconfig", ".flake8", ".coveragerc", ".pylintrc"})
_GENERATED = frozenset({"package-lock.json", "npm-shrinkwrap.json", "composer.lock"})


@dataclass(frozen=True, slots=True)
class Chunk:
    ordinal: int  # 0-based position in the document
    heading: str  # heading path, "Install > From source"; the key for config files; "" before the first heading
    text: str  # the source lines, verbatim (except re-serialised minified JSON, see the module docstring)
    start_line: int  # 1-based, inclusive
    end_line: int


@dataclass(frozen=True, slots=True)
class Document:
    path: str  # posix, relative to the ingested root
    kind: str  # see document_kind; "text" when the path is not a known document kind
    title: str
    chunks: tuple[Chunk, ...]
    error: str | None = None  # "parse_error: ..." when the structured format did not parse


# --- what is a document -----------------------------------------------------------------------------------------


def document_kind(path: str) -> str | None:
    """The document kind of a repo-relative path, or None when kg does not read it as a document.

    Prose is "markdown" (Markdown, reStructuredText, README-like text and `.txt` under a docs folder); compose files
    are recognised before plain YAML; lock files and other generated JSON are not documents.
    """
    folder, _, name = path.lower().rpartition("/")  # plain string work: the walk calls this for every file
    stem, dot, suffix = name.rpartition(".")
    stem, suffix = (stem, dot + suffix) if stem else (name, "")  # ".flake8" has no suffix, like PurePosixPath
    parents = set(folder.split("/"))
    if name in _GENERATED:
        return None
    if suffix in (".yml", ".yaml"):
        return "compose" if name.startswith(("docker-compose", "compose")) else "yaml"
    if suffix in (".toml", ".json"):
        return suffix[1:]
    if name in ("dockerfile", "containerfile") or name.startswith(("dockerfile.", "containerfile.")):
        return "dockerfile"
    if suffix == ".dockerfile":
        return "dockerfile"
    if suffix in (".txt", ".in") and ("requirements" in name or "constraints" in name or "requirements" in parents):
        return "requirements"
    if suffix in _MARKDOWN_SUFFIXES or suffix == ".rst":
        return "markdown"
    if suffix in ("", ".txt") and stem.upper() in _PROSE_NAMES:
        return "markdown"
    if suffix == ".txt" and parents & _DOC_DIRS:
        return "markdown"
    if suffix in (".ini", ".cfg") or name in _INI_NAMES:
        return "ini"
    return None


# --- pieces: what every chunker produces before splitting -------------------------------------------------------

Row = tuple[int, str]  # (1-based line number, text of that line)


@dataclass(frozen=True, slots=True)
class _Piece:
    heading: str
    rows: tuple[Row, ...]


def _slice(lines: Sequence[str], heading: str, start: int, end: int) -> _Piece:
    """Lines [start, end) (0-based) as a piece."""
    return _Piece(heading, tuple((index + 1, lines[index]) for index in range(start, end)))


def _cut(lines: Sequence[str], starts: Sequence[tuple[int, str]], first: int = 0) -> list[_Piece]:
    """One piece per (start line, heading), each running to the next start; lines before the first one go first."""
    pieces = []
    if starts and starts[0][0] > first:
        pieces.append(_slice(lines, "", first, starts[0][0]))
    for number, (start, heading) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(lines)
        pieces.append(_slice(lines, heading, start, end))
    return pieces


def _with_comments_above(lines: Sequence[str], start: int, floor: int = 0, marker: str | tuple[str, ...] = "#") -> int:
    """Move `start` up over the comment lines directly above it: they describe what follows."""
    while start - 1 >= floor and lines[start - 1].lstrip().startswith(marker):
        start -= 1
    return start


def _comments_above(
    lines: Sequence[str], starts: Sequence[tuple[int, str]], marker: str | tuple[str, ...] = "#"
) -> list[tuple[int, str]]:
    """Each start moved up over the comment lines directly above it (never past the previous start)."""
    moved = []
    for number, (line, heading) in enumerate(starts):
        floor = starts[number - 1][0] + 1 if number else 0
        moved.append((_with_comments_above(lines, line, floor, marker), heading))
    return moved


def _windows(lines: Sequence[str]) -> list[_Piece]:
    pieces = []
    used = len(lines)
    while used and not lines[used - 1].strip():
        used -= 1  # trailing blank lines would make the last window's label overshoot
    for start in range(0, used, WINDOW_LINES):
        end = min(start + WINDOW_LINES, used)
        pieces.append(_slice(lines, f"lines {start + 1}-{end}", start, end))
    return pieces


# --- prose ------------------------------------------------------------------------------------------------------

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")  # `#` titles in plain-text READMEs
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+[ \t]*$")


@dataclass(frozen=True, slots=True)
class _Heading:
    line: int  # 0-based index of the first line of the heading (an overline, or the text of a setext heading)
    level: int
    text: str
    size: int  # lines the heading takes


@cache
def _markdown() -> MarkdownIt:
    """The CommonMark parser, made when a Markdown file is first chunked (an update that changed only code never
    imports markdown-it). Block structure is all chunking needs: without the inline pass a heading's inline token
    keeps its raw source."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable(["inline", "text_join"])


def _markdown_headings(lines: Sequence[str]) -> list[_Heading]:
    """Top-level ATX and setext headings as CommonMark reads them (markdown-it), skipping YAML front matter.

    A parser rather than line patterns: fences (a closing fence indented 4 spaces is code), HTML blocks and setext
    headings over several lines decide what is a heading, and `#` lines inside them are not.
    """
    body = [line.replace("\r", " ") for line in lines]  # markdown-it reads a lone CR as a line break; kg does not
    if body and body[0].strip() == "---":  # front matter: its `key: value\n---` would read as a setext heading
        closing = next((i for i in range(1, len(body)) if body[i].strip() in ("---", "...")), None)
        if closing is not None:
            body[: closing + 1] = [""] * (closing + 1)
    tokens = _markdown().parse("\n".join(body))
    headings = []
    for opening, inline in zip(tokens, tokens[1:], strict=False):
        if opening.type == "heading_open" and opening.level == 0 and opening.map:
            start, end = opening.map
            text = " ".join(part.strip() for part in inline.content.split("\n"))
            headings.append(_Heading(start, int(opening.tag[1]), text, end - start))
    return headings


def _rst_headings(lines: Sequence[str], atx: bool) -> list[_Heading]:
    """reStructuredText section titles (underlined, or over- and underlined); levels in order of first use.

    With `atx`, Markdown `#` headings count too (plain-text READMEs use either).
    """
    styles: list[tuple[str, bool]] = []
    headings: list[_Heading] = []

    def level(style: tuple[str, bool]) -> int:
        if style not in styles:
            styles.append(style)
        return styles.index(style) + 1

    index = 0
    while index < len(lines):
        line = lines[index]
        above_blank = index == 0 or not lines[index - 1].strip()
        over = _ADORNMENT.match(line)
        if over and above_blank and index + 2 < len(lines) and lines[index + 2].rstrip() == line.rstrip():
            title = lines[index + 1].strip()
            if title and not _ADORNMENT.match(lines[index + 1]):
                headings.append(_Heading(index, level((line[0], True)), title, 3))
                index += 3
                continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        under = _ADORNMENT.match(following)
        title = line.strip()
        if under and above_blank and title and line[0] not in " \t" and not _ADORNMENT.match(line):
            if len(following.rstrip()) >= min(len(title), 3):
                headings.append(_Heading(index, level((following[0], False)), title, 2))
                index += 2
                continue
        hashes = _ATX.match(line) if atx else None
        if hashes and hashes.group(2):
            headings.append(_Heading(index, level(("#" * len(hashes.group(1)), False)), hashes.group(2).strip(), 1))
        index += 1
    return headings


def _prose(path: str, lines: Sequence[str]) -> tuple[list[_Piece], str | None]:
    """Pieces by heading, each headed by its heading path; returns the pieces and the document's title."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in _MARKDOWN_SUFFIXES:
        headings = _markdown_headings(lines)
    else:
        headings = _rst_headings(lines, atx=suffix != ".rst")
    pieces = [_slice(lines, "", 0, headings[0].line if headings else len(lines))]  # text before the first heading
    stack: list[tuple[int, str]] = []
    for number, heading in enumerate(headings):
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        stack.append((heading.level, heading.text))
        following = headings[number + 1] if number + 1 < len(headings) else None
        end = following.line if following else len(lines)
        body_is_blank = not any(line.strip() for line in lines[heading.line + heading.size : end])
        if body_is_blank and following and following.level > heading.level:
            continue  # a heading whose only content is its subsections: their heading paths carry it
        pieces.append(_slice(lines, " > ".join(text for _, text in stack), heading.line, end))
    top = min(headings, key=lambda heading: heading.level, default=None)
    return pieces, top.text if top else None


# --- YAML and compose -------------------------------------------------------------------------------------------

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _scalar(node: yaml.Node | None) -> str | None:
    return node.value if isinstance(node, yaml.ScalarNode) else None


def _mapping_value(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    return next((value for name, value in node.value if _scalar(name) == key), None)


def _yaml_starts(lines: Sequence[str], node: yaml.Node, split_services: bool) -> list[tuple[int, str]]:
    """(line, heading) for each top-level key (each service too, in compose files) or each top-level list item."""
    starts: list[tuple[int, str]] = []
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = _scalar(key) or lines[key.start_mark.line].strip()
            if split_services and name == "services" and isinstance(value, yaml.MappingNode) and value.value:
                services = [(service.start_mark.line, f"services > {_scalar(service)}") for service, _ in value.value]
                services[0] = (key.start_mark.line, services[0][1])  # the `services:` line opens the first service
                starts.extend(services)
            else:
                starts.append((key.start_mark.line, name))
    elif isinstance(node, yaml.SequenceNode):
        for number, item in enumerate(node.value):
            name = _scalar(_mapping_value(item, "name")) if isinstance(item, yaml.MappingNode) else None
            starts.append((item.start_mark.line, name or f"[{number}]"))
    return starts


def _without_end_marker(rows: Sequence[Row]) -> tuple[Row, ...]:
    """Rows without the trailing `---` / `...` that separates this YAML document from the next."""
    rows = _trimmed(rows)
    return rows[:-1] if rows and rows[-1][1].strip() in ("---", "...") else rows


def _document_label(node: yaml.Node, number: int) -> str:
    """`Deployment web` for Kubernetes-style documents, else `document N`."""
    if isinstance(node, yaml.MappingNode):
        kind = _scalar(_mapping_value(node, "kind"))
        metadata = _mapping_value(node, "metadata")
        name = _scalar(_mapping_value(metadata, "name")) if isinstance(metadata, yaml.MappingNode) else None
        if kind:
            return f"{kind} {name}" if name else kind
    return f"document {number}"


def _yaml(lines: Sequence[str], text: str, split_services: bool) -> list[_Piece]:
    nodes = [node for node in yaml.compose_all(text, Loader=_YAML_LOADER) if node is not None]
    if len(nodes) > 1:  # a stream of documents (Kubernetes manifests): one piece per document
        starts = [(node.start_mark.line, _document_label(node, number + 1)) for number, node in enumerate(nodes)]
        pieces = _cut(lines, starts, first=starts[0][0])
        return [_Piece(piece.heading, _without_end_marker(piece.rows)) for piece in pieces]
    starts = _yaml_starts(lines, nodes[0], split_services) if nodes else []
    if not starts:
        return _windows(lines)
    return _cut(lines, _comments_above(lines, starts))


# --- TOML -------------------------------------------------------------------------------------------------------

_TOML_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?")
_TOML_KEY = re.compile(r"^\s*([^=#\s][^=#]*?)\s*=")


class _TomlScanner:
    """Tracks multi-line strings and brackets across lines, enough to tell which lines start a statement."""

    def __init__(self) -> None:
        self.depth = 0  # open [ and { of a multi-line array or inline table
        self.string = ""  # the delimiter of an open multi-line string

    @property
    def at_statement(self) -> bool:
        return self.depth == 0 and not self.string

    def feed(self, line: str) -> None:
        index = 0
        while index < len(line):
            if self.string:
                close = line.find(self.string, index)
                if close < 0:
                    return
                index, self.string = close + 3, ""
                continue
            char = line[index]
            if char == "#":
                return
            if char in "\"'":
                if line.startswith(char * 3, index):
                    self.string = char * 3
                    index += 3
                    continue
                index = self._string_end(line, index)
            elif char in "[{":
                self.depth += 1
            elif char in "]}":
                self.depth = max(0, self.depth - 1)
            index += 1

    @staticmethod
    def _string_end(line: str, index: int) -> int:
        quote = line[index]
        index += 1
        while index < len(line) and line[index] != quote:
            index += 2 if quote == '"' and line[index] == "\\" else 1
        return index


def _toml(lines: Sequence[str]) -> list[_Piece]:
    """One piece per root-level key and one per table (`[tool.ruff]`; array tables are numbered: `bin[0]`)."""
    scanner = _TomlScanner()
    starts: list[tuple[int, str]] = []
    seen_arrays: dict[str, int] = {}
    in_table = False
    for index, line in enumerate(lines):
        if scanner.at_statement:
            header = _TOML_HEADER.match(line)
            key = _TOML_KEY.match(line)
            if header:
                name = header.group(2)
                if header.group(1) == "[[":
                    seen_arrays[name] = seen_arrays.get(name, -1) + 1
                    name = f"{name}[{seen_arrays[name]}]"
                starts.append((index, name))
                in_table = True
                continue
            if key and not in_table:
                starts.append((index, key.group(1).strip()))
        scanner.feed(line)
    if not starts:
        return _windows(lines)
    return _cut(lines, _comments_above(lines, starts))


# --- JSON -------------------------------------------------------------------------------------------------------

_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"(\s*:)?|[{}\[\]]')


def _json_keys(text: str) -> list[tuple[int, str]]:
    """(character offset, key) of each key of the top-level object, found by a string-aware bracket scan."""
    keys = []
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        first = token.group()[0]
        if first in "{[":
            depth += 1
        elif first in "}]":
            depth -= 1
        elif depth == 1 and token.group(1):
            keys.append((token.start(), json.loads(token.group()[: -len(token.group(1))])))
    return keys


def _json(lines: Sequence[str], text: str) -> list[_Piece]:
    value = json.loads(text)
    if not isinstance(value, dict) or not value:
        return _windows(lines)
    line_starts = [0] + [newline.end() for newline in re.finditer("\n", text)]
    keys = [(bisect.bisect_right(line_starts, offset) - 1, key) for offset, key in _json_keys(text)]
    if all(earlier[0] < later[0] for earlier, later in zip(keys, keys[1:], strict=False)):
        pieces = _cut(lines, keys, first=keys[0][0])
        rows = _trimmed(pieces[-1].rows)
        if len(rows) > 1 and rows[-1][1].strip() == "}":  # the top-level object's closing brace: not the last key's
            pieces[-1] = _Piece(pieces[-1].heading, rows[:-1])
        return pieces
    # Minified: keys share lines. Re-serialise each top-level value with its key, cited at the key's line.
    line_of = dict((key, line) for line, key in keys)
    pieces = []
    for key, item in value.items():
        serialised = json.dumps({key: item}, indent=2, ensure_ascii=False).split("\n")[1:-1]
        line = line_of.get(key, 0) + 1
        pieces.append(_Piece(key, tuple((line, row[2:]) for row in serialised)))
    return pieces


# --- line-oriented formats --------------------------------------------------------------------------------------

_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?", re.IGNORECASE)
_INI_SECTION = re.compile(r"^\s*\[([^\]]+)\]")


def _matches(pattern: re.Pattern[str], lines: Sequence[str]) -> list[tuple[int, re.Match[str]]]:
    return [(index, match) for index, line in enumerate(lines) if (match := pattern.match(line))]


def _dockerfile(lines: Sequence[str]) -> list[_Piece]:
    """One piece per build stage, headed by the stage name (or the base image); what precedes the first FROM joins
    the first stage."""
    starts = [(index, match.group(2) or match.group(1)) for index, match in _matches(_FROM, lines)]
    if not starts:
        return [_slice(lines, "", 0, len(lines))]
    starts = _comments_above(lines, starts)
    starts[0] = (0, starts[0][1])
    return _cut(lines, starts)


def _requirements(lines: Sequence[str]) -> list[_Piece]:
    """One piece per section: a comment at column 0 that opens the file or follows a blank line heads one."""
    starts = [
        (index, line.lstrip("#").strip())
        for index, line in enumerate(lines)
        if line.startswith("#") and (index == 0 or not lines[index - 1].strip())
    ]
    return _cut(lines, starts) if starts else [_slice(lines, "", 0, len(lines))]


def _ini(lines: Sequence[str]) -> list[_Piece]:
    starts = [(index, match.group(1).strip()) for index, match in _matches(_INI_SECTION, lines)]
    return _cut(lines, _comments_above(lines, starts, ("#", ";"))) if starts else [_slice(lines, "", 0, len(lines))]


# --- assembling chunks ------------------------------------------------------------------------------------------


def _trimmed(rows: Sequence[Row]) -> tuple[Row, ...]:
    filled = [index for index, (_, text) in enumerate(rows) if text.strip()]
    return tuple(rows[filled[0] : filled[-1] + 1]) if filled else ()


def _parts(rows: Sequence[Row], limit: int = MAX_CHUNK_CHARS) -> list[tuple[Row, ...]]:
    """Rows grouped into runs of at most `limit` characters, of about equal size (no two-line leftovers); a line
    longer than `limit` is cut into slices that keep its line number."""
    rows = [(number, text[start : start + limit]) for number, text in rows for start in range(0, len(text) or 1, limit)]
    total = sum(len(text) + 1 for _, text in rows)
    target = total / math.ceil(total / limit) if total > limit else limit
    pieces: list[tuple[Row, ...]] = []
    current: list[Row] = []
    size = 0
    for row in rows:
        if current and (size + len(row[1]) + 1 > limit or size >= target):
            pieces.append(_trimmed(current))
            current, size = [], 0
        current.append(row)
        size += len(row[1]) + 1
    if current:
        pieces.append(_trimmed(current))
    return [piece for piece in pieces if piece]


def _chunks(pieces: Sequence[_Piece]) -> tuple[Chunk, ...]:
    chunks: list[Chunk] = []
    for piece in pieces:
        rows = _trimmed(piece.rows)
        for number, part in enumerate(_parts(rows) if rows else []):
            heading = piece.heading if number == 0 else f"{piece.heading} ({number + 1})".strip()
            text = "\n".join(text for _, text in part)
            chunks.append(Chunk(len(chunks), heading, text, part[0][0], part[-1][0]))
    return tuple(chunks)


def _toml_checked(lines: Sequence[str], text: str) -> list[_Piece]:
    tomllib.loads(text)  # the line scanner is lenient: let the real parser say whether the file is valid
    return _toml(lines)


# Parser-backed chunkers: these raise on invalid input, and chunk_document falls back to line windows.
_STRUCTURED: dict[str, Callable[[Sequence[str], str], list[_Piece]]] = {
    "yaml": lambda lines, text: _yaml(lines, text, split_services=False),
    "compose": lambda lines, text: _yaml(lines, text, split_services=True),
    "toml": _toml_checked,
    "json": _json,
}
_LINE_CHUNKERS: dict[str, Callable[[Sequence[str]], list[_Piece]]] = {
    "dockerfile": _dockerfile,
    "requirements": _requirements,
    "ini": _ini,
}


def _first_line(error: Exception) -> str:
    message = str(error).strip().splitlines()
    return " ".join(line.strip() for line in message[:3]) if message else type(error).__name__


def chunk_document(path: str, text: str) -> Document:
    """Cut one document into chunks. Never raises; an empty file gives no chunks."""
    kind = document_kind(path) or "text"
    title = PurePosixPath(path).name
    lines = [line.rstrip("\r") for line in text.split("\n")]
    error = None
    if not text.strip():
        return Document(path, kind, title, ())
    if kind == "markdown":
        pieces, heading = _prose(path, lines)
        title = heading or title
    elif kind in _LINE_CHUNKERS:
        pieces = _LINE_CHUNKERS[kind](lines)
    elif kind in _STRUCTURED:
        try:
            pieces = _STRUCTURED[kind](lines, text)
        except (yaml.YAMLError, tomllib.TOMLDecodeError, ValueError, RecursionError) as problem:
            pieces, error = _windows(lines), f"parse_error: {_first_line(problem)}"
    else:
        pieces = _windows(lines)
    return Document(path, kind, title, _chunks(pieces), error)
