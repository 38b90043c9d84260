"""The architecture rules of `.agent/architecture.yaml`, checked by pydantic and turned into query parameters.

    exclude:                 # paths the review leaves out, gitignore-style (default: tests and docs)
      - tests/
    layers:                  # top first: a layer may depend on the layers below it, never on one above
      - {name: cli, modules: [kg.cli, kg.navigate.cli]}
      - {name: core, modules: [kg]}
    forbidden:               # dependencies that must not exist
      - {from: kg.ingest, to: kg.agent, reason: ingest knows nothing of the agent}
    allowed:                 # exceptions: a dependency matching one of these breaks no rule
      - {from: kg.navigate.mcp_server, to: kg.cli}
    independent:             # modules (or packages) that must not depend on each other
      - {modules: [kg.ingest.languages.python, kg.ingest.languages.go]}
    limits:                  # size and coupling limits per module
      - {modules: ["**"], max_loc: 1500, max_fan_in: 60, max_fan_out: 30}

Module patterns are dotted names: `*` stands for one part of a name, `**` for any number of parts, and a pattern
names the modules it matches *and everything inside them* (`kg.ingest` is the package and all its modules). A module
belongs to the first layer that names it. Dependencies are the import dependencies of the DEPENDS_ON graph.

The patterns become regular expressions that Python and Neo4j (Java) read the same way, so the rule queries in
queries/review/ run unchanged in Neo4j Browser with the parameters the report prints.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from kg.errors import ConfigError

RULES_FILE = Path(".agent") / "architecture.yaml"
DEFAULT_EXCLUDE = ("tests/", "test/", "docs/", "vendor/", "*.min.js", "test_*.py", "*_test.py", "conftest.py",
                   "*_test.go", "*.test.js", "*.test.ts", "*.spec.js", "*.spec.ts")


def _as_list(value: Any) -> Any:
    """`from: kg.ingest` reads as `from: [kg.ingest]`."""
    return [value] if isinstance(value, str) else value


Patterns = Annotated[list[str], BeforeValidator(_as_list), Field(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Layer(_Strict):
    name: str
    modules: Patterns


class Dependency(_Strict):
    source: Patterns = Field(alias="from")
    target: Patterns = Field(alias="to")
    reason: str = ""


class Independent(_Strict):
    modules: Annotated[list[str], Field(min_length=2)]
    reason: str = ""


class Limit(_Strict):
    modules: Patterns = ["**"]
    max_loc: int | None = Field(default=None, ge=1)
    max_fan_in: int | None = Field(default=None, ge=1)
    max_fan_out: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _some_limit(self) -> Limit:
        if self.max_loc is None and self.max_fan_in is None and self.max_fan_out is None:
            raise ValueError("give at least one of max_loc, max_fan_in, max_fan_out")
        return self


class Architecture(_Strict):
    exclude: Annotated[list[str], BeforeValidator(_as_list)] = list(DEFAULT_EXCLUDE)
    layers: list[Layer] = []
    forbidden: list[Dependency] = []
    allowed: list[Dependency] = []
    independent: list[Independent] = []
    limits: list[Limit] = []

    @property
    def has_rules(self) -> bool:
        return bool(self.layers or self.forbidden or self.independent or self.limits)

    def dependency_params(self) -> dict[str, Any]:
        """Parameters of queries/review/rule_violations.cypher."""
        return {
            "layers": [{"name": layer.name, "modules": [module_regex(p) for p in layer.modules]}
                       for layer in self.layers],
            "forbidden": [{"rule": f"forbidden: {_names(d.source)} → {_names(d.target)}", "reason": d.reason,
                           "source": [module_regex(p) for p in d.source],
                           "target": [module_regex(p) for p in d.target]} for d in self.forbidden],
            "independent": [{"rule": f"independent: {_names(g.modules)}", "reason": g.reason,
                             "members": [module_regex(p) for p in g.modules]} for g in self.independent],
            "allowed": [{"source": [module_regex(p) for p in d.source], "target": [module_regex(p) for p in d.target]}
                        for d in self.allowed],
        }

    def limit_params(self) -> dict[str, Any]:
        """Parameters of queries/review/limit_violations.cypher."""
        return {"limits": [{"rule": f"limits: {_names(lim.modules)}", "modules": [module_regex(p) for p in lim.modules],
                            "max_loc": lim.max_loc, "max_fan_in": lim.max_fan_in, "max_fan_out": lim.max_fan_out}
                           for lim in self.limits]}

    def exclude_regexes(self) -> list[str]:
        return [path_regex(p) for p in self.exclude]


def _names(patterns: list[str]) -> str:
    return ", ".join(patterns)


def load(path: Path | None) -> Architecture:
    """The rules in `path`; no file (None or missing) means no rules and the default exclusions."""
    if path is None or not path.exists():
        return Architecture()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"{path}: not valid YAML{where}: {problem}") from e
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it: {e.strerror or e}") from e
    if data is None:
        return Architecture()
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of keys (layers, forbidden, allowed, independent, limits, "
                          f"exclude), found {type(data).__name__}")
    try:
        return Architecture.model_validate(data)
    except ValidationError as e:
        raise ConfigError(f"{path}: {_first_error(e)}") from e


def _first_error(error: ValidationError) -> str:
    """The first problem, naming its key as a dotted path (`layers.0.modules`)."""
    problems = sorted(error.errors(), key=lambda p: p["type"] != "extra_forbidden")  # a misspelt key explains more
    first = problems[0]
    key = ".".join(str(part) for part in first["loc"]) or "(top level)"
    if first["type"] == "extra_forbidden":
        model = _model_at(first["loc"][:-1])
        known = ", ".join(f.alias or name for name, f in model.model_fields.items()) if model else ""
        message = f"unknown key{f' (known: {known})' if known else ''}"
    elif first["type"] == "missing":
        message = "missing"
    else:
        message = first["msg"].removeprefix("Value error, ")
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    return f"{key}: {message}{more}"


def _model_at(loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The pydantic model that holds the key at `loc` (list indexes skipped), to list the keys it knows."""
    model: type[BaseModel] = Architecture
    for part in loc:
        if isinstance(part, int):
            continue
        field = next((f for n, f in model.model_fields.items() if part in (n, f.alias)), None)
        if field is None:
            return None
        inner = getattr(field.annotation, "__args__", (field.annotation,))[0]
        if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
            return None
        model = inner
    return model


# ── patterns → regular expressions that Python's re and Java's java.util.regex read alike ─────────────────────────

_META = set(".^$+{}[]()|\\")


def _literal(text: str) -> str:
    return "".join("\\" + c if c in _META else c for c in text)


def module_regex(pattern: str) -> str:
    """A dotted module pattern as a regex over the whole name: `*` one part, `**` any parts, descendants included."""
    pattern = pattern.strip()
    if pattern in ("**", "*"):
        return ".*" if pattern == "**" else "[^.]+(\\..*)?"
    out = []
    for i, part in enumerate(pattern.split(".")):
        sep = "\\." if i else ""
        if part == "**":
            out.append(f"({sep}[^.]+)*" if i else "([^.]+)?(\\.[^.]+)*")
            continue
        if part == "*":
            out.append(sep + "[^.]+")
            continue
        out.append(sep + "".join("[^.]*" if c == "*" else "[^.]" if c == "?" else _literal(c) for c in part))
    regex = "".join(out)
    if regex.startswith("([^.]+)?(\\.[^.]+)*\\."):  # `**.admin`: any prefix, or none
        regex = "([^.]+\\.)*" + regex[len("([^.]+)?(\\.[^.]+)*\\."):]
    return regex + "(\\..*)?"


def path_regex(pattern: str) -> str:
    """A gitignore-style path pattern as a regex over a relative path; what it matches includes everything below."""
    pattern = pattern.strip()
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    body = pattern.strip("/")
    out = []
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(_literal(body[i]))
            i += 1
    return ("" if anchored else "(.*/)?") + "".join(out) + "(/.*)?"


def matches(regex: str, text: str) -> bool:
    """Whole-string match, as Cypher's `=~` does."""
    return re.fullmatch(regex, text) is not None
