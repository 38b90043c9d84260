"""Which files of a repository kg ingests, and why the others were left out.

The walk is the first thing every ingest does and it runs on every `kg update`, so it has to be fast and it has to
agree with what a developer considers "the source": whatever git ignores, vendored and generated trees
(`node_modules/`, virtualenvs, build output) and files no parser should see (binary, minified, huge) are left out.
Unknown file types (images, fonts, lock files) are dropped silently; a file kg *would* have ingested but could not
is reported as `Skipped` with a one-line reason, so `kg` can tell the user why a file is missing from the graph.

Ignore rules follow git: `.gitignore` files at every level (a deeper file overrides a shallower one, the last
matching line wins, `!pattern` re-includes), then `.git/info/exclude`; an ignored directory is pruned before it is
listed, so its files cannot be re-included (git behaves the same way). `.gitignore` files above `root` are not read.
A repository (or an agent) writes these files, so matching must stay fast whatever they say: patterns are matched
with RE2 (linear time; Python's `re` backtracks for minutes on one `*a*a*…*b` line against a 40-character name),
and a line RE2 cannot take, or longer than MAX_PATTERN_CHARS, is left out and listed as a skipped entry of its file.

Symlinks: a symlinked file or directory is followed only when it resolves inside `root`. A symlinked directory is
walked at the link's path only if its target was not walked already; the links are handled after the real tree so
that the result does not depend on the order of names.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pathspec
import re2
from kg.ingest.documents import document_kind

from kg.errors import InputError

FileKind = Literal["code", "document"]

DEFAULT_MAX_CODE_BYTES = 2_000_000
DEFAULT_MAX_DOCUMENT_BYTES = 1_000_000

# Directories that are never source, whatever .gitignore says.
ALWAYS_SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".kg", ".tox", "dist", "build"}
)

MAX_PATTERN_CHARS = 1000  # git sets no bound; no real ignore line comes near, and RE2's cost grows with it
_PATTERNS_PER_SET = 100  # RE2 gives up on one set of very many wildcard patterns (DFA memory): compile in parts

_HEAD_BYTES = 64 * 1024  # read once per file: the binary and minified checks look at no more than this
_BINARY_PROBE = 8 * 1024
_MINIFIED_AVERAGE_LINE = 1000
_MINIFIED_LONGEST_LINE = 20_000

# Used only when the language registry cannot be imported (a language module missing while kg is being built).
_FALLBACK_CODE_EXTENSIONS = frozenset(
    {".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".go"}
)


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: str  # posix, relative to the walked root
    abs_path: Path
    kind: FileKind
    size: int


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str  # posix, relative to the walked root
    reason: str  # one line, for people: "binary", "too large (20.0 MB > 2 MB)", "symlink loop", ...


@dataclass(frozen=True, slots=True)
class WalkResult:
    files: tuple[SourceFile, ...]
    skipped: tuple[Skipped, ...]

    def __iter__(self) -> Iterator[SourceFile]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)


# --- file kinds -------------------------------------------------------------------------------------------------


def code_matcher() -> Callable[[str], bool]:
    """A predicate telling code files, from the language registry when it imports, else from a fixed table."""
    try:
        from kg.ingest.languages import language_for

        language_for("probe.py")  # imports every language module: fails here, once, if one is missing
    except Exception:  # any failure to load the registry means "use the table"
        return lambda path: os.path.splitext(path)[1].lower() in _FALLBACK_CODE_EXTENSIONS
    return lambda path: language_for(path) is not None


def file_kind(path: str, is_code: Callable[[str], bool] | None = None) -> FileKind | None:
    """Kind of a repo-relative posix path: "code", "document" or None (not ingested)."""
    if (is_code or code_matcher())(path):
        return "code"
    return "document" if document_kind(path) is not None else None


# --- ignore rules -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Layer:
    """The patterns of one ignore file, matched against paths relative to the directory it sits in."""

    base: str  # "" for root, else "a/b/" (with the slash)
    specs: tuple[pathspec.PathSpec, ...]  # the file's lines in order, in parts (see compile_patterns)

    def decision(self, sub: str) -> bool | None:
        """True: ignored, False: re-included, None: no line matches. The last matching line wins."""
        for spec in reversed(self.specs):
            decision = spec.check_file(sub).include
            if decision is not None:
                return decision
        return None


def compile_patterns(lines: Sequence[str]) -> tuple[tuple[pathspec.PathSpec, ...], list[str]]:
    """gitignore `lines` as RE2 matchers, in order, and one note per line left out (`line 3: why`)."""
    notes: list[str] = []
    usable = []
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_PATTERN_CHARS:
            notes.append(f"line {number} not used: longer than {MAX_PATTERN_CHARS:,} characters")
        else:
            usable.append((number, line))
    specs: list[pathspec.PathSpec] = []

    def add(part: list[tuple[int, str]]) -> None:
        try:
            spec = pathspec.GitIgnoreSpec.from_lines([line for _, line in part], backend="re2")
        except (ValueError, re2.error) as error:  # a malformed line, or a set too large for RE2: halve it
            if len(part) == 1:
                why = "not a valid pattern" if isinstance(error, ValueError) else "too complex to match safely"
                notes.append(f"line {part[0][0]} not used: {why}")
            else:
                add(part[:len(part) // 2])
                add(part[len(part) // 2:])
            return
        if len(spec):
            specs.append(spec)

    for start in range(0, len(usable), _PATTERNS_PER_SET):
        add(usable[start:start + _PATTERNS_PER_SET])
    return tuple(specs), sorted(notes, key=lambda note: int(note.split()[1]))


def _read_patterns(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().splitlines()
    except OSError:
        return []


def _layer(base: str, ignore_file: str) -> tuple[_Layer | None, list[str]]:
    specs, notes = compile_patterns(_read_patterns(ignore_file))
    return (_Layer(base, specs) if specs else None), notes


def _ignored(rel: str, is_dir: bool, layers: Sequence[_Layer]) -> bool:
    """Git's answer: the deepest ignore file with a matching line decides, its last matching line wins."""
    for layer in reversed(layers):
        decision = layer.decision(rel[len(layer.base) :] + ("/" if is_dir else ""))
        if decision is not None:
            return decision
    return False


def _always_skipped(name: str) -> bool:
    return name in ALWAYS_SKIPPED_DIRS or name.endswith(".egg-info")


# --- names ------------------------------------------------------------------------------------------------------

# A name is bytes on Linux; Python shows bytes that are not UTF-8 as lone surrogates, which no graph, JSON answer or
# terminal can carry. Such a file is skipped and listed (one bad name must never stop a whole ingest).
_NOT_TEXT = "its name is not valid UTF-8: rename it to ingest it"


def _is_text(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable(path: str) -> str:
    """`path` as valid text: bytes that are not UTF-8 shown as `\\xff` escapes."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# --- content checks ---------------------------------------------------------------------------------------------


def _too_large(size: int, limit: int) -> str:
    return f"too large ({size / 1e6:.1f} MB > {limit / 1e6:g} MB)"


def _looks_minified(head: bytes) -> bool:
    lines = head.split(b"\n")
    return max(map(len, lines)) > _MINIFIED_LONGEST_LINE or len(head) / len(lines) > _MINIFIED_AVERAGE_LINE


def _content_problem(abs_path: str, kind: FileKind) -> str | None:
    """Why the file's bytes should not be ingested, or None. Reads at most the first 64 KiB."""
    try:
        with open(abs_path, "rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except PermissionError:
        return "permission denied"
    except OSError as error:
        return f"unreadable ({error.strerror or error})"
    if b"\0" in head[:_BINARY_PROBE]:
        return "binary"
    if kind == "code" and head and _looks_minified(head):
        return "minified"
    return None


# --- the walk ---------------------------------------------------------------------------------------------------


@dataclass
class _Walk:
    root: str  # real path of the root
    excludes: _Layer | None
    kind_of: Callable[[str], FileKind | None]
    limits: dict[str, int]
    checked: Callable[[str, os.stat_result], bool] | None = None  # see `walk`
    files: list[SourceFile] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    visited: set[str] = field(default_factory=set)  # real paths of the directories walked
    deferred: list[tuple[str, str, list[_Layer]]] = field(default_factory=list)  # symlinked dirs: rel, link, layers

    def skip(self, rel: str, reason: str) -> None:
        self.skipped.append(Skipped(rel, reason))

    def inside_root(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root + os.sep)

    def excluded(self, rel: str, is_dir: bool) -> bool:
        return self.excludes is not None and bool(self.excludes.decision(rel + "/" if is_dir else rel))

    def walk_dir(self, abs_dir: str, rel_dir: str, layers: list[_Layer]) -> None:
        """Walk one directory (iteratively, depth first); symlinked subdirectories are deferred."""
        stack = [(abs_dir, os.path.realpath(abs_dir), rel_dir, layers)]
        while stack:
            abs_dir, real_dir, rel_dir, layers = stack.pop()
            if real_dir in self.visited:
                continue  # reached again through a symlink walked earlier: its files are listed already
            self.visited.add(real_dir)
            entries = self.list_dir(abs_dir, rel_dir)
            if entries is None or (rel_dir and any(entry.name == "pyvenv.cfg" for entry in entries)):
                continue  # unreadable, or a virtualenv whatever its name
            prefix = rel_dir + "/" if rel_dir else ""
            if any(entry.name == ".gitignore" for entry in entries):
                layer, notes = _layer(prefix, os.path.join(abs_dir, ".gitignore"))
                layers = layers + [layer] if layer else layers
                for note in notes:
                    self.skip(printable(prefix + ".gitignore"), note)
            subdirs = self.visit_entries(entries, prefix, layers)
            stack.extend(reversed([(path, os.path.join(real_dir, name), rel, layers) for path, name, rel in subdirs]))

    def list_dir(self, abs_dir: str, rel_dir: str) -> list[os.DirEntry[str]] | None:
        try:
            with os.scandir(abs_dir) as listing:
                return sorted(listing, key=lambda entry: entry.name)
        except PermissionError:
            self.skip(rel_dir or ".", "permission denied")
        except OSError as error:
            self.skip(rel_dir or ".", f"unreadable ({error.strerror or error})")
        return None

    def visit_entries(
        self, entries: list[os.DirEntry[str]], prefix: str, layers: list[_Layer]
    ) -> list[tuple[str, str, str]]:
        """Visit the files of one listing; return its subdirectories to walk as (path, name, relative path)."""
        subdirs = []
        for entry in entries:
            rel = prefix + entry.name
            key = rel if _is_text(rel) else printable(rel)  # RE2 matches text: `*.py` still matches `b\xff.py`
            if self.entry_is_dir(entry):
                if _always_skipped(entry.name) or _ignored(key, True, layers) or self.excluded(key, True):
                    continue
                if entry.is_symlink():
                    self.deferred.append((rel, entry.path, layers))
                else:
                    subdirs.append((entry.path, entry.name, rel))
            elif not _ignored(key, False, layers) and not self.excluded(key, False):
                self.visit_file(entry, rel)
        return subdirs

    def entry_is_dir(self, entry: os.DirEntry[str]) -> bool:
        try:
            return entry.is_dir()  # follows symlinks; a broken or looping link is not a directory
        except OSError:
            return False

    def visit_file(self, entry: os.DirEntry[str], rel: str) -> None:
        kind = self.kind_of(rel)
        if kind is None:
            return
        if not _is_text(rel):  # the file's name or a folder's on its path
            self.skip(printable(rel), _NOT_TEXT)
            return
        if entry.is_symlink():
            problem = self.symlink_problem(entry.path)
            if problem:
                self.skip(rel, problem)
                return
        try:
            info = entry.stat()
        except PermissionError:
            self.skip(rel, "permission denied")
            return
        except OSError:
            self.skip(rel, "broken symlink" if entry.is_symlink() else "unreadable")
            return
        if not stat.S_ISREG(info.st_mode):
            return  # sockets, fifos, devices
        if info.st_size > self.limits[kind]:
            self.skip(rel, _too_large(info.st_size, self.limits[kind]))
            return
        problem = None if self.checked is not None and self.checked(rel, info) else _content_problem(entry.path, kind)
        if problem:
            self.skip(rel, problem)
            return
        self.files.append(SourceFile(rel, Path(entry.path), kind, info.st_size))

    def symlink_problem(self, link: str) -> str | None:
        try:
            real = os.path.realpath(link, strict=True)
        except OSError as error:
            return "symlink loop" if error.errno == errno.ELOOP else "broken symlink"
        return None if self.inside_root(real) else "symlink outside the repository"

    def follow_deferred(self) -> None:
        """Walk symlinked directories whose target is inside the root and was not walked already."""
        while self.deferred:
            self.deferred.sort(key=lambda item: item[0], reverse=True)
            rel, link, layers = self.deferred.pop()
            problem = self.symlink_problem(link)
            if problem:
                self.skip(rel, problem)
                continue
            if os.path.realpath(link) in self.visited:
                # An ancestor of the link (a loop), or a directory whose files are listed already at its real path.
                self.skip(rel, "symlink loop")
                continue
            self.walk_dir(link, rel, layers)


def walk(
    root: Path,
    excludes: Sequence[str] = (),
    *,
    max_code_bytes: int = DEFAULT_MAX_CODE_BYTES,
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES,
    kind_of: Callable[[str], FileKind | None] | None = None,
    checked: Callable[[str, os.stat_result], bool] | None = None,
) -> WalkResult:
    """The files under `root` that kg should ingest, sorted by path, and the ones it had to skip (with why).

    `excludes` are gitwildmatch patterns matched on the root-relative posix path (`docs/`, `*.min.js`,
    `tests/fixtures/**`). `kind_of` replaces the code/document decision (tests, or callers with their own registry).
    `checked(path, stat)`: True when the file passed the content checks (binary, minified) before and has not changed
    since, as its stat shows; its head is then not read again (an update of a large tree reads only what changed).
    """
    top = os.path.abspath(root)
    if kind_of is None:
        is_code = code_matcher()
        kind_of = functools.partial(file_kind, is_code=is_code)
    exclude_specs, notes = compile_patterns(excludes)
    if notes:
        number, why = notes[0].removeprefix("line ").split(" not used: ")
        raise InputError(f"--exclude {excludes[int(number) - 1][:60]!r} is {why}: give a shorter, simpler pattern")
    state = _Walk(
        root=os.path.realpath(top),
        excludes=_Layer("", exclude_specs) if exclude_specs else None,
        kind_of=kind_of,
        limits={"code": max_code_bytes, "document": max_document_bytes},
        checked=checked,
    )
    info_exclude, notes = _layer("", os.path.join(top, ".git", "info", "exclude"))
    for note in notes:
        state.skip(".git/info/exclude", note)
    state.walk_dir(top, "", [info_exclude] if info_exclude else [])
    state.follow_deferred()
    files = sorted(state.files, key=lambda source: source.path)
    skipped = sorted(state.skipped, key=lambda item: item.path)
    return WalkResult(tuple(files), tuple(skipped))


# --- reading ----------------------------------------------------------------------------------------------------


def decode(data: bytes) -> tuple[str, bool]:
    """Text of `data` as UTF-8 (a BOM is dropped), and True when bytes had to be replaced (bad encoding)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), True


def read_text(abs_path: Path) -> tuple[str, bool]:
    """Read a file as text: `(text, bad_encoding)`; undecodable bytes become U+FFFD instead of raising."""
    return decode(Path(abs_path).read_bytes())


# A file changed this close to the moment it was read may change again within the same timestamp tick (2 s on FAT,
# a jiffy on ext4) and keep its size and times: git's "racily clean" entries. Its stat is not taken as proof of its
# bytes; it is hashed again next time, until it has been left alone this long.
RACY_NS = 3_000_000_000


def stat_key(info: os.stat_result) -> tuple[int, int, int, int, int]:
    """What tells, as git's index does, that a file's bytes are those hashed before without reading them: size,
    mtime, inode, device and ctime, which every write sets and no one can set back (an edit that keeps the size and
    restores the mtime, a file replaced by a copy with the same times, still differ)."""
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev


def settled(info: os.stat_result, read_at_ns: int) -> bool:
    """Whether a stat taken before reading the file at `read_at_ns` (time.time_ns()) can vouch for the bytes read
    (see RACY_NS)."""
    return max(info.st_mtime_ns, info.st_ctime_ns) < read_at_ns - RACY_NS


def span_hash(lines: list[str], start_line: int, end_line: int) -> str:
    """The content hash of one symbol's source lines (1-based, inclusive), dedented and with trailing spaces
    dropped: an edit inside the symbol changes it, moving the symbol or re-indenting it whole does not. Project
    memory compares it with the hash a decision recorded to tell whether the code it talks about changed."""
    span = [line.rstrip() for line in lines[max(start_line - 1, 0):end_line]]
    indent = min((len(line) - len(line.lstrip()) for line in span if line), default=0)
    return hashlib.blake2b("\n".join(line[indent:] for line in span).encode("utf-8"), digest_size=8).hexdigest()
