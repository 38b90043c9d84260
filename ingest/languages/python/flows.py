"""Phase 2b: what parameters hold — the arguments call sites pass, across files.

A parameter evaluates to a symbolic value in resolve.py. This module gives it its values:

1. `summarize` reads one module's calls: for each call whose callee resolve.py finds without knowing any parameter
   (a function, a class → its `__init__` / `__new__`, an object → its `__call__`; decorator applications count,
   with the decorated definition as argument), it maps the arguments to the callee's parameters (positional,
   keyword, `*xs`, `**kw`, extra ones into `*args` / `**kwargs`; a bound method's first parameter is skipped) and
   records what each argument may be: the module's *argument flows*, a frozenset of (parameter key, value kind,
   value name, select, key) rows (see resolve.bind_args for select and key). A summary depends only on the
   module's facts and what they import, like resolve.py's answers, so the incremental update recomputes it when it
   would re-resolve the module, and the rows that changed say whose parameters changed.
2. `Flows.expand` turns symbolic values into what they may be: the values of every argument flow into the
   parameter (expanded in turn: a parameter passed on to another function carries its own values), then the
   segments after the parameter applied (`param.save` → `save` of each value). Flows are context-insensitive (a
   parameter holds what any call site passes) except where resolve.py substitutes one call's arguments for the
   parameters a function returns. An expansion goes through at most DEPTH parameters (see `Flows`), and does not
   apply an attribute, a call or a subscript to more than MAX_VALUES different values (the result is unknown): a
   popular parameter's values are all called when the parameter is (`dispatch_request` calls every view function),
   but following each of them further says little and costs more than the rest of the resolution.

A call whose callee is only known through a parameter (`def apply(fn, x): fn(x)`) does not feed its arguments to
the functions it may call: summaries never depend on other summaries, which keeps them local to their module.

Which flows an expansion read is recorded (`reads`, parameter keys `function#parameter`): when the flows into a
parameter change, the modules whose edges read it are re-resolved (ingest.project).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kg.ingest.languages.core import Tally
from kg.ingest.languages.python.facts import ITER, Call, PyModule, is_subscript, subscript_key
from kg.ingest.languages.python.resolve import (
    BUILTIN_TYPES,
    OPAQUE,
    SEP,
    Resolved,
    Resolver,
    Value,
    bind_args,
    dedupe,
    param_key,
    params_of,
    typed,
)

# (parameter key, value kind, value name, select, key, via: "self" for a call on `self`, DECORATED, or "")
Row = tuple[str, str, str, str, str, str]
DECORATED = "decorated"  # the `via` of a row a decoration passes (`@d def f` calls `d(f)`)
SUBCLASSES = "<sub>"  # the "parameter" of a class whose rows are its project subclasses
_LITERAL_ROOTS = frozenset({"?", "<lit>", "<str>", "<bytes>", "<list>", "<dict>", "<set>", "<tuple>"})
_USELESS = frozenset({"unknown", "opaque"})
_ANY_TYPES = frozenset({"Any", "object", "Callable", "Protocol", "Self"})  # annotations that say nothing of methods
_STAR_METHODS = frozenset({"get", "pop", "setdefault", "values"})
_SYMBOLIC = frozenset({"param", "starel"})
MAX_VALUES = 32  # different values an expansion follows further (an attribute, a call...) before it gives up
DEPTH = 4  # parameters an expansion may go through (see Flows)


class _Entries:
    """parameter key → its flows' (value, select, key) entries, sorted, one per row (rows of `via` that `keep`)."""

    def __init__(self, flows: Tally, keep: Callable[[str], bool]) -> None:
        self._flows, self._keep, self._memo = flows, keep, {}

    def get(self, target: str, default: Sequence = ()) -> Sequence[tuple[Value, str, str]]:
        found = self._memo.get(target)
        if found is None:
            found = self._memo[target] = sorted(
                ((kind, name), select, key) for (kind, name, select, key, via), times in self._flows.get(target).items()
                if self._keep(via) for _ in range(times))
        return found or default


class _Decorated:
    """parameter key → the values only decorations pass to it (see `Flows.__init__`)."""

    def __init__(self, flows: Tally) -> None:
        self._flows, self._memo = flows, {}

    def get(self, target: str, default: set[Value] | None = None) -> set[Value] | None:
        found = self._memo.get(target)
        if found is None:
            rows = self._flows.get(target)
            decorated = {(kind, name) for kind, name, _select, _key, via in rows if via == DECORATED}
            if decorated:
                decorated -= {(kind, name) for kind, name, _select, _key, via in rows if via != DECORATED}
            found = self._memo[target] = decorated
        return found or default


def _passes_something(chain: tuple[str, ...]) -> bool:
    return not (chain[0] in _LITERAL_ROOTS and (len(chain) == 1 or chain[0] == "?"))


def callees(res: Resolver, call: Call) -> list[tuple[str, bool, str]]:
    """The functions a call runs that take its arguments, found without parameter flows: (qname, bound, via), via
    "self" when the method was looked up on `self` (the object may be of a subclass overriding it)."""
    out: list[tuple[str, bool, str]] = []
    found, _accessors = res.callee(call)
    for (kind, name), _label, receiver in found:
        if kind in ("func", "wrapper"):
            # a wrapper passes its arguments on to the function it wraps: both get them
            names = [name] if kind == "func" else [name.split(SEP)[0], *name.split(SEP)[2:3]]
            for function in names:
                _info, scope = res.scope(function)
                method = scope.method if scope is not None else ""
                if method == "class":
                    bound = True
                elif receiver[0] in ("instance", "super", "self"):
                    bound = method != "static"
                else:  # a plain function, or a method looked up on its class (`Base.__init__(self, ...)`)
                    bound = False
                via = "self" if receiver[0] == "self" else ""
                out.append((function, bound, via))
        elif kind == "class":
            for dunder in ("__init__", "__new__"):
                for (k, target), _ in res.member(("class", name), "local", dunder, 1):
                    if k == "func":
                        out.append((target, True, ""))
        elif kind == "instance":
            for (k, target), _ in res.member((kind, name), "local", "__call__", 1):
                if k == "func":
                    out.append((target, True, ""))
    return out


def summarize(res: Resolver, data: PyModule) -> frozenset[Row]:
    """The argument flows of one module (see the module docstring), and its classes' project ancestors (rows
    `base#<sub>` → the class: what a method called on `self` may be overridden by)."""
    rows: set[Row] = set()
    for call in data.calls:
        if call.kind != "call" or not call.args or not any(_passes_something(a.chain) for a in call.args):
            continue
        for function, bound, via in callees(res, call):
            for param, arg, select, key in bind_args(params_of(res, function), call.args, bound):
                if not _passes_something(arg.chain):
                    continue
                target = param_key(function, param.name)
                # a decoration (`@d` passes the definition, `=qname`) is told apart: see `Flows.decorated`
                how = DECORATED if arg.chain[0].startswith("=") else via
                for (kind, name), _ in res.chain(arg.chain, call.scope, 0, call.line):
                    if kind not in _USELESS:
                        rows.add((target, kind, name, select, key, how))
    for scope in data.scopes:
        if scope.kind == "class":  # its direct bases only: one row per ancestor made n²/2 rows of a chain of n
            for base in res.bases(scope.qname, 0):
                if not base.startswith("<"):
                    rows.add((param_key(base, SUBCLASSES), "class", scope.qname, "", "", ""))
    return frozenset(rows)


class Flows:
    """The argument flows of a whole project, expanded on demand (memoized, with what each expansion read).

    Expansion follows a value through at most DEPTH parameters (a parameter passed on to another function's
    parameter, an attribute set from a parameter...): each hop spends one unit of the budget, and a value met with
    no budget left counts as unknown. That keeps every expansion finite without a fixpoint (recursion passing a
    parameter to itself just runs out of budget) and deterministic (a result depends on the value and the budget
    only), and bounds its cost on large projects where a popular parameter's flows reach much of the code.
    """

    def __init__(self, flows: Tally) -> None:
        # The project's rows grouped by parameter key (`tally` of every module's `summarize`, kept up to date file by
        # file by the pipeline): each parameter's entries are derived from it when first read, so a new table after
        # a change costs what the resolution reads of it, not the size of the project.
        self.flows = flows
        self.table = _Entries(flows, lambda via: True)
        self.dispatched = _Entries(flows, lambda via: via == "self")  # the rows of calls made on `self`
        # parameter key → the definitions only decorations pass to it (`@timed def work` passes `work` to
        # `timed#fn`): a wrapper's call of that parameter runs each of them only for its own decorated name
        self.decorated = _Decorated(flows)
        # (value, budget) → (what it may be, the flows read, property getters / descriptors its own segments run)
        self.memo: dict[tuple[Value, int], tuple[Resolved, frozenset[str], tuple[str, ...]]] = {}
        self.typed_params: dict[str, bool] = {}  # parameter key → annotated with a type from outside the project
        self.subclass_methods: dict[tuple[str, str], list[str]] = {}  # (class, method) → subclasses' (edges.py)
        self.single_base: dict[str, bool] = {}  # class → whether it has one base (edges.py)

    # -- public
    def expand(self, res: Resolver, values: Resolved, reads: set[str], accessors: list[str] | None = None) -> Resolved:
        """`values` with every symbolic one replaced by what it may be; the flows read are added to `reads`, the
        property getters and descriptors the symbolic values' own segments run to `accessors`."""
        if not any(v[0] == "param" for v, _ in values):
            return values
        out: Resolved = []
        for value, label in values:
            if value[0] != "param":
                out.append((value, label))
                continue
            expanded, read, hits = self.entry(res, value, DEPTH)
            reads |= read
            if accessors is not None:
                accessors.extend(hits)
            if not expanded:  # nothing flows in: an object of unknown type (its methods get `name_only` candidates)
                if self.typed_outside(res, value) or any(typed(v) for v, _ in values):
                    continue  # its type is known to be no project class's, or another value's class is known
                segments = value[1].split(SEP)[1:]
                hint = segments[-1] if segments and segments[-1][0] not in "([<" else ""
                expanded = [(("unknown", hint), "inferred")]
            out.extend((v, "inferred" if label in ("local", "import", "self") else label) for v, _ in expanded)
        return dedupe(out)

    def typed_outside(self, res: Resolver, value: Value) -> bool:
        """Whether a parameter's method (`param.m`, nothing flowing in) is called on an object its annotation says
        is of a type from outside the project or a builtin one (`file: t.TextIO`): no project class's `m` is a
        candidate then. `Any`, `object`, a TypeVar or a protocol of the project leave it unknown."""
        if value[0] != "param":
            return False
        key, *segments = value[1].split(SEP)
        if len(segments) != 1:
            return False
        known = self.typed_params.get(key)
        if known is None:
            function, name = key.rsplit("#", 1)
            annotation = next((p.annotation for p in params_of(res, function) if p.name == name), ())
            found = res.chain(annotation, function) if annotation and annotation[-1] not in _ANY_TYPES else []
            known = bool(found) and all(v[0] == "external" or (v[0] == "builtin" and v[1] in BUILTIN_TYPES)
                                        for v, _ in found)
            self.typed_params[key] = known
        return known

    # -- expansion
    def entry(self, res: Resolver, value: Value, budget: int) -> tuple[Resolved, frozenset[str], tuple[str, ...]]:
        """(values, reads, hits) of a symbolic value (`param`, or `starel`: the elements of a `*args` / `**kwargs`
        parameter at a key) with `budget` hops left."""
        memo = (value, budget)
        found = self.memo.get(memo)
        if found is None:
            reads: set[str] = set()
            hits: list[str] = []
            if budget > 0:
                values = self._expand(res, value, budget, reads, hits)
            else:
                values = []
                if value[0] == "param":
                    reads.add(value[1].split(SEP, 1)[0])
            found = (values, frozenset(reads), tuple(dict.fromkeys(hits)))
            self.memo[memo] = found
        return found

    def value(self, res: Resolver, value: Value, budget: int, reads: set[str]) -> Resolved:
        """What `value` may be (a non-symbolic value is itself), the flows read added to `reads`."""
        if value[0] not in _SYMBOLIC:
            return [(value, "inferred")]
        values, read, _hits = self.entry(res, value, budget)
        reads |= read
        return values

    def _expand(self, res: Resolver, value: Value, budget: int, reads: set[str], hits: list[str]) -> Resolved:
        if value[0] == "starel":
            key, _, element = value[1].partition(SEP)
            return self._star_elements(res, key, element, budget, reads)
        key, *segments = value[1].split(SEP)
        function, name = key.rsplit("#", 1)
        reads.add(key)
        kind = next((p.kind for p in params_of(res, function) if p.name == name), "arg")
        current: Resolved = ([(("star", key), "inferred")] if kind in ("star", "dstar") else
                             self._base(res, key, budget, reads))
        for segment in segments:
            if len(current) > MAX_VALUES:  # too many things to follow further: unknown
                return []
            nxt: Resolved = []
            for v, label in current:
                if v[0] == "star":
                    nxt += self._star_step(res, v[1], segment, budget, reads)
                elif v[0] == "starm":
                    nxt += self._star_method(res, v[1], segment, budget, reads)
                else:
                    for w, lab in res.step(v, label, segment, 1, hits):
                        if w[0] == "param":
                            values, read, more = self.entry(res, w, budget - 1)
                            reads |= read
                            hits.extend(more)
                            nxt += [(x, lab) for x, _ in values]
                        else:
                            nxt.append((w, lab))
            current = dedupe(nxt)
            if not current:
                break
        return [(v, "inferred") for v, _ in current]

    def subclasses(self, cls: str, reads: set[str]) -> list[str]:
        """The project classes that have `cls` among their ancestors, sorted: its subclasses, theirs, and so on
        (each one's rows are read, so a change below any of them resolves the reader again)."""
        found: set[str] = {cls}
        frontier = [cls]
        while frontier:
            key = param_key(frontier.pop(), SUBCLASSES)
            reads.add(key)
            for (_kind, name), _select, _key in self.table.get(key, ()):
                if name not in found:
                    found.add(name)
                    frontier.append(name)
        found.discard(cls)
        return sorted(found)

    def direct_subclasses(self, cls: str) -> list[str]:
        """The project classes that name `cls` among their bases (rows `subclasses` has read already)."""
        return [name for (_kind, name), _select, _key in self.table.get(param_key(cls, SUBCLASSES), ())]

    def _rows(self, res: Resolver, key: str, reads: set[str]) -> list[tuple[Value, str, str]]:
        """The argument flows into parameter `key`: the calls of its function, and, for a method, the calls made on
        `self` of an ancestor's method it overrides (the object may be of this class)."""
        rows = list(self.table.get(key, ()))
        function, name = key.rsplit("#", 1)
        cls, _, method = function.rpartition(".")
        if res.is_method(function):
            for ancestor in res.mro(cls)[1:]:
                if not ancestor.startswith("<"):
                    inherited = param_key(f"{ancestor}.{method}", name)
                    reads.add(inherited)
                    rows += self.dispatched.get(inherited, ())
        return rows

    def _base(self, res: Resolver, key: str, budget: int, reads: set[str]) -> Resolved:
        """What parameter `key` holds: the values of every argument flowing into it."""
        out: Resolved = []
        for value, select, _key in self._rows(res, key, reads):
            values = self.value(res, value, budget - 1, reads)
            if not select:
                out += values
            elif select == "*":
                out += self._elements(res, values, "", budget, reads)
            elif select.startswith("**:"):
                out += self._elements(res, values, repr(select[3:]), budget, reads)
        return dedupe(out)

    def _elements(self, res: Resolver, values: Resolved, key: str, budget: int, reads: set[str]) -> Resolved:
        out: Resolved = []
        for v, label in values:
            if v[0] == "star":
                out += self.value(res, ("starel", f"{v[1]}{SEP}{key}"), budget - 1, reads)
            elif v[0] in ("container", "pair", "instance", "generator", "pairs", "elems"):
                found = res.item_of(v, label, key, 1) if v[0] != "generator" else res.iterate(v, label, 1)
                for w, lab in found:
                    out += self.value(res, w, budget - 1, reads) if w[0] == "param" else [(w, lab)]
        return out

    def _star_elements(self, res: Resolver, key: str, element: str, budget: int, reads: set[str]) -> Resolved:
        """Elements of the `*args` / `**kwargs` parameter `key` (at `element`, "" for any)."""
        reads.add(key)
        out: Resolved = []
        for value, select, at in self._rows(res, key, reads):
            values = self.value(res, value, budget - 1, reads)
            if not select:
                if not element or not at or at == element:
                    out += values
            elif select in ("*", "**"):
                out += self._elements(res, values, element if select == "**" else "", budget, reads)
        return dedupe(out)

    def _star_step(self, res: Resolver, key: str, segment: str, budget: int, reads: set[str]) -> Resolved:
        """A segment applied to `*args` / `**kwargs`: an element, iteration (elements of `*args`; the keys of
        `**kwargs`, which kg does not follow), or a method of the mapping (`kwargs.get(...)`)."""
        if is_subscript(segment):
            return self.value(res, ("starel", f"{key}{SEP}{subscript_key(segment)}"), budget, reads)
        if segment == ITER:
            function, name = key.rsplit("#", 1)
            star = next((p.kind == "star" for p in params_of(res, function) if p.name == name), False)
            return self.value(res, ("starel", f"{key}{SEP}"), budget, reads) if star else []
        if segment in _STAR_METHODS:
            return [(("starm", f"{key}{SEP}{segment}"), "inferred")]
        return [(OPAQUE, "inferred")]

    def _star_method(self, res: Resolver, key: str, segment: str, budget: int, reads: set[str]) -> Resolved:
        base, method = key.rsplit(SEP, 1)
        if segment != "()":
            return [(OPAQUE, "inferred")]
        if method == "values":
            return [(("star", base), "inferred")]
        return self.value(res, ("starel", f"{base}{SEP}"), budget, reads)
