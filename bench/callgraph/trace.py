"""A dynamic call graph: run Python code under a profile hook and record which project function called which.

    python bench/callgraph/trace.py --root ROOT --names names.json --out edges.json [--builtins] -- SCRIPT [ARGS...]
    python bench/callgraph/trace.py --root ROOT --names names.json --out edges.json -- -m pytest -q tests

Standalone on purpose (only the standard library): it runs inside the traced project's own environment, which
need not have kg installed. `names.json` maps each project file (posix path relative to ROOT) to its dotted module
name as kg computes it (`kg.ingest.languages.python.LANGUAGE.module_names`); only frames whose code comes from one
of those files are project frames.

How a frame becomes a kg qname: the file's source is compiled once and its code objects walked, so each code
object maps to the name kg gives the same definition — module code → the module, a function or class body →
`<enclosing>.<name>` (`<locals>` dropped), a lambda → `<enclosing>.<lambdaN>` (numbered from 1 in source order
within the enclosing function, class or module), a comprehension → the function that holds it (kg has no node for
comprehensions, their calls belong to the enclosing function). A runtime code object is matched to its compiled
twin by (qualname, first line, position of its first two instructions).

An edge is recorded on every `call` event whose frame and whose caller frame (`f_back`) are both project frames;
a frame that is a comprehension is replaced by the function holding it, and a callee that is a module body, a
class body or a comprehension is not recorded (kg has no call edges to those). With `--builtins`, `c_call` events
from a project frame add `<builtin>.name` / `<builtin>.type.method` edges. Calls made from library frames (pytest
calling a test, werkzeug's test client calling `Flask.__call__`) are not project → project and are left out:
static analysis cannot see them by construction. Generators record an edge each time a project frame resumes them.
Threads started after tracing begins are traced too (`threading.setprofile`).
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import threading
import types
from collections import Counter
from itertools import islice
from pathlib import Path

_COMPREHENSIONS = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"})
CodeKey = tuple


def code_key(code: types.CodeType) -> CodeKey:
    return code.co_qualname, code.co_firstlineno, tuple(islice(code.co_positions(), 2))


def kg_names(source: str, filename: str, module: str) -> dict[CodeKey, tuple[str, str]]:
    """Code key → (kg qname, role) for every code object compiled from `source`; role is module, class, function,
    lambda or comprehension (a comprehension maps to the qname of the scope holding it)."""
    out: dict[CodeKey, tuple[str, str]] = {}
    top = compile(source, filename, "exec", dont_inherit=True)
    out[code_key(top)] = (module, "module")
    counters: Counter[str] = Counter()

    def walk(code: types.CodeType, scope: str) -> None:
        for const in code.co_consts:
            if not isinstance(const, types.CodeType):
                continue
            name = const.co_name
            if name in _COMPREHENSIONS:
                out[code_key(const)] = (scope, "comprehension")
                walk(const, scope)  # its lambdas count in the enclosing scope
                continue
            if name == "<lambda>":
                counters[scope] += 1
                qname, role = f"{scope}.<lambda{counters[scope]}>", "lambda"
            else:
                qname = f"{scope}.{name}" if scope else name
                role = "class" if _is_class_body(const) else "function"
            out[code_key(const)] = (qname, role)
            walk(const, qname)

    walk(top, module)
    return out


def _is_class_body(code: types.CodeType) -> bool:
    # A class body stores __module__ and __qualname__ first thing; functions never assign those names.
    return "__qualname__" in code.co_names and "__module__" in code.co_names and not code.co_varnames


class Recorder:
    def __init__(self, root: Path, names: dict[str, str], builtins: bool) -> None:
        self.root = str(root.resolve())
        self.modules = {os.path.join(self.root, path): module for path, module in names.items()}
        self.builtins = builtins
        self.files: dict[str, dict[CodeKey, tuple[str, str]] | None] = {}
        self.codes: dict[types.CodeType, tuple[str, str] | None] = {}
        self.edges: Counter[tuple[str, str]] = Counter()

    def lookup(self, code: types.CodeType) -> tuple[str, str] | None:
        known = self.codes.get(code, False)
        if known is not False:
            return known
        filename = code.co_filename
        table = self.files.get(filename, False)
        if table is False:
            table = None
            module = self.modules.get(os.path.realpath(filename)) or self.modules.get(filename)
            if module is not None:
                try:
                    with open(filename, encoding="utf-8") as fh:
                        table = kg_names(fh.read(), filename, module)
                except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
                    table = None
            self.files[filename] = table
        found = table.get(code_key(code)) if table is not None else None
        self.codes[code] = found
        return found

    def profile(self, frame: types.FrameType, event: str, arg: object) -> None:
        if event == "call":
            callee = self.lookup(frame.f_code)
            if callee is None or callee[1] in ("module", "class", "comprehension"):
                return
            back = frame.f_back
            caller = self.lookup(back.f_code) if back is not None else None
            if caller is not None:
                self.edges[(caller[0], callee[0])] += 1
        elif event == "c_call" and self.builtins:
            caller = self.lookup(frame.f_code)
            if caller is None:
                return
            name = _builtin_name(arg)
            if name and name != "<builtin>.__build_class__":  # the class statement itself, not a call
                self.edges[(caller[0], name)] += 1


def _builtin_name(function: object) -> str:
    owner = getattr(function, "__self__", None)
    qualname = getattr(function, "__qualname__", "")
    if isinstance(owner, types.ModuleType):
        return f"<builtin>.{qualname}" if owner.__name__ == "builtins" else f"{owner.__name__}.{qualname}"
    if type(owner).__module__ == "builtins" and "." in qualname:
        return f"<builtin>.{qualname}"
    return ""


def run(argv: list[str], recorder: Recorder) -> int:
    """Run `argv` (a script path with arguments, or `-m module ...`) like `python argv...` under the recorder."""
    module = argv[1] if argv and argv[0] == "-m" else None
    sys.argv = argv[1:] if module else list(argv)
    if not module:
        sys.path.insert(0, str(Path(argv[0]).resolve().parent))
    else:
        sys.path.insert(0, os.getcwd())
    code = 0
    threading.setprofile(recorder.profile)
    sys.setprofile(recorder.profile)
    try:
        if module:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--names", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--builtins", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    recorder = Recorder(args.root, json.loads(args.names.read_text()), args.builtins)
    code = run(command, recorder)
    edges = [{"caller": a, "callee": b, "count": n} for (a, b), n in sorted(recorder.edges.items())]
    args.out.write_text(json.dumps({"exit_code": code, "edges": edges}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
