"""How close a typed name is to a symbol: the fuzzy part of `kg find` and of the "did you mean" in errors.

The full-text index `symbol_text` finds candidates (its analyzer keeps `get_netrc_auth` as one token, so the query
asks for the whole name, a prefix, a typo within two edits, a substring and each camel/snake part as a substring);
this module ranks them, best first, with a reason a person can read:

    exact     the name itself (case aside)                    `session` → Session
    prefix    the name starts with it                         `get_netrc` → get_netrc_auth
    parts     its words start the name's words, in order      `GetNA`, `get_auth` → get_netrc_auth
    contains  the name contains it                            `netrc` → get_netrc_auth
    typo      within two edits (one for short names)          `Sesion` → Session
    docstring only the docstring mentions it

Several words (`Cart checkout`, `divided zero`) are matched one by one; symbols matching more of them rank first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kg.errors import InputError, QueryError, shorten

if TYPE_CHECKING:
    from kg.store import Store  # the driver is imported only where a Store is made (kg.graph)

_LUCENE_SYNTAX = re.compile(r'[~*?"():^\[\]{}+\-!\\/]|\b(AND|OR|NOT|TO)\b')
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


@dataclass(frozen=True)
class Match:
    kind: str  # exact | prefix | parts | contains | typo | docstring
    score: float  # 0..1, higher is closer


def words(name: str) -> list[str]:
    """`getNetrcAuth`, `get_netrc_auth`, `HTTPAdapter` → their lowercase words (`http`, `adapter`)."""
    return [w.lower() for w in _WORD.findall(name)]


def is_lucene(text: str) -> bool:
    """Whether a person typed full-text syntax (`check*`, `chekout~`, `"order store"`): then it is used as is."""
    return bool(_LUCENE_SYNTAX.search(text))


def lucene_query(text: str) -> str:
    """The full-text query that finds the candidates for what a person typed (its last dotted part is the name)."""
    name = re.sub(r"[^0-9A-Za-z_]", "", text.rsplit(".", 1)[-1]).lower()
    if not name:
        return ""
    terms = [f"name:{name}^8", f"name:{name}*^4", f"name:*{name}*^2", f"doc:{name}^0.5"]
    if len(name) >= 3:
        terms.append(f"name:{name}~{1 if len(name) < 6 else 2}^2")
    terms += [f"name:*{w}*" for w in dict.fromkeys(words(text.rsplit(".", 1)[-1])) if len(w) >= 3 and w != name]
    return " ".join(terms)


def match(text: str, name: str, qname: str = "") -> Match | None:
    """How `name` (a symbol's short name; `qname` its dotted name) matches what was typed, or None."""
    typed = text.rsplit(".", 1)[-1]
    q, n = typed.lower(), name.lower()
    if not q:
        return None
    bonus = 0.05 if "." in text and text.rsplit(".", 1)[0].lower() in qname.lower() else 0.0
    if n == q:
        return Match("exact", 1.0)
    if n.startswith(q):
        return Match("prefix", round(0.8 + 0.1 * len(q) / len(n) + bonus, 3))
    typed_words, name_words = words(typed), words(name)
    if len(typed_words) > 1 and _starts_words_in_order(typed_words, name_words):
        return Match("parts", round(0.7 + 0.1 * len(typed_words) / len(name_words) + bonus, 3))
    if q in n:
        return Match("contains", round(0.6 + 0.1 * len(q) / len(n) + bonus, 3))
    limit = 1 if len(q) < 6 else 2
    distance = edit_distance(q, n, limit)
    if distance <= limit:
        return Match("typo", round(0.55 - 0.1 * distance + bonus, 3))
    return None


def _starts_words_in_order(typed: list[str], name: list[str]) -> bool:
    i = 0
    for w in name:
        if i < len(typed) and w.startswith(typed[i]):
            i += 1
    return i == len(typed)


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, or `limit + 1` as soon as it must exceed `limit` (names are short; this is cheap)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def near(store: Store, text: str, repo: str | None, fetch: int = 300, syntax: bool = False) -> list[dict[str, Any]]:
    """Symbols whose name is near `text`, best first, each with `match` (how) and `score` (0..1). With `syntax`
    (what `kg find` passes), full-text syntax a person typed is used as is; otherwise only the name's letters are."""
    if syntax and is_lucene(text):
        try:
            rows = store.read("search_symbols", search=text, repo=repo, limit=fetch)
        except QueryError as e:  # Lucene syntax errors in what a person typed: its reason, not the Java trace
            _, found, after = str(e).partition("ParseException: ")
            reason = after.splitlines()[0].split(" Was expecting")[0].rstrip(".")[:120] if found else str(e)[:200]
            raise InputError(f"cannot search for {shorten(text)}: Lucene cannot read it ({reason}); an AND, OR or "
                             "NOT needs a word on each side and quotes and brackets must close, or quote the whole "
                             "text (\"…\") to search for its words") from e
        top = max((r["score"] for r in rows), default=1.0) or 1.0
        return [{**r, "match": "full-text", "score": round(r["score"] / top, 3)} for r in rows]
    typed = text.split()
    if len(typed) > 1:
        return _near_any(store, [w for w in typed if len(w) > 2] or typed, repo, fetch)
    query = lucene_query(text)
    if not query:
        return []
    word = text.rsplit(".", 1)[-1]
    ranked = []
    for r in store.read("search_symbols", search=query, repo=repo, limit=fetch):
        found = match(text, r["qname"].rsplit(".", 1)[-1], r["qname"])
        if found:
            ranked.append({**r, "match": found.kind, "score": found.score})
        elif word.lower() in (r.get("doc") or "").lower():
            ranked.append({**r, "match": "docstring", "score": 0.2})
    ranked.sort(key=lambda r: (-r["score"], len(r["qname"]), r["qname"], r.get("repo") or ""))
    return ranked


def _near_any(store: Store, typed: list[str], repo: str | None, fetch: int) -> list[dict[str, Any]]:
    """Several words (`Cart checkout`, `divided zero`): symbols whose name is near one of them or whose docstring
    holds one, those whose name, dotted name or docstring has more of the words first."""
    query = " ".join(q for q in map(lucene_query, typed) if q)
    if not query:
        return []
    ranked = []
    for r in store.read("search_symbols", search=query, repo=repo, limit=fetch):
        name, text = r["qname"].rsplit(".", 1)[-1], f"{r['qname']} {r.get('doc') or ''}".lower()
        found = [match(w, name, r["qname"]) for w in typed]
        hits = sum(1 for w, m in zip(typed, found, strict=True) if m or w.lower() in text)
        if hits:
            best = max((m for m in found if m), key=lambda m: m.score, default=Match("docstring", 0.2))
            # every further word matched outranks any closeness of the best one
            ranked.append({**r, "match": best.kind, "score": round((hits - 1 + best.score) / len(typed), 3)})
    ranked.sort(key=lambda r: (-r["score"], len(r["qname"]), r["qname"], r.get("repo") or ""))
    return ranked
