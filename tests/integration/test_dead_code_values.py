"""Dead code that is used by name without a call: `staticmethod(f)`, `property(_get)`, `X.as_view(...)`, a class
passed or returned as a value (flask's `_lazy_sha1` and `AsyncView` were reported dead at 0.90). Real Neo4j, real
files written here, ingested as they are; kg.navigate.value_uses reads the defining files' tokens."""

from __future__ import annotations

from pathlib import Path

import pytest
from kg.ingest.pipeline import Ingestor

from kg.navigate import answers
from kg.navigate.value_uses import Candidate, used_by_name
from kg.store import Store

MODULE = '''\
import hashlib


def _lazy_sha1(string=b""):
    return hashlib.sha1(string)


def _as_class(cls):
    return cls


def _getter(self):
    return 1


def _really_dead():
    """Not used: _mentioned_only is named in this docstring only."""
    return 2


def _mentioned_only():
    return 3  # _mentioned_only in a comment does not count either


def _keyword_only():
    return 4


class _Session:
    digest_method = staticmethod(_lazy_sha1)
    make = classmethod(_as_class)
    value = property(_getter)

    def _get_size(self):
        return 5

    def _unused_method(self):
        return 6

    size = property(_get_size)


class _View:
    @classmethod
    def as_view(cls, name):
        return cls


class _AsyncView(_View):
    pass


class _PassedView(_View):
    pass


class _DeadView(_View):
    pass


class _App:
    def __init__(self, rules):
        options = {}
        options["view"] = self._index  # a bound method stored (flask: options["autoescape"] = self.select_…)
        rules.add("/", **options)
        self._called_only()

    def _index(self):
        return 7

    def _called_only(self):
        return 8

    def _never_named(self):
        return self._never_named_either  # an attribute, not this method

    def _never_named_either_(self):
        return 9


def _register(app):
    app.add_url_rule("/", view_func=_AsyncView.as_view("view"))
    app.register(_PassedView)
    app.configure(_keyword_only=1)
    return _Session


_register(None)
'''


@pytest.fixture
def values_repo(store: Store, tmp_path: Path) -> str:
    (tmp_path / "vals" / "pkg").mkdir(parents=True)
    (tmp_path / "vals" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "vals" / "pkg" / "mod.py").write_text(MODULE)
    Ingestor(store, tmp_path / "vals", repo="vals").run()
    return "vals"


def test_names_used_as_values_are_not_dead(store: Store, values_repo: str) -> None:
    answer = answers.dead_code(store, values_repo, include_maybe=True, include_public=True, limit=None)
    reported = {r["symbol"].removeprefix("pkg.mod.") for r in answer.rows}
    for used in ("_lazy_sha1", "_as_class", "_getter", "_Session._get_size", "_AsyncView", "_PassedView",
                 "_Session", "_App._index"):
        assert used not in reported, used
    # what is really unused still is, whatever names its comments, docstrings or keyword arguments carry
    assert {"_really_dead", "_mentioned_only", "_keyword_only", "_DeadView", "_Session._unused_method",
            "_App._never_named", "_App._never_named_either_"} <= reported


def test_a_method_counts_only_as_the_argument_of_a_wrapper() -> None:
    text = "class A:\n    def get(self):\n        return 1\n    get2 = get\n    p = property(get)\n"
    method = Candidate("get", "method", 2, 3)
    assert used_by_name(text, [method]) == {method}
    assert used_by_name(text.replace("p = property(get)\n", ""), [method]) == set()
    assert used_by_name("def f(:\n  '''", [Candidate("f", "function", 1, 1)]) == set()  # does not tokenize


DISPATCH = '''\
class _BaseView:
    def dispatch(self, method, request):
        handler = getattr(
            self, method.lower(), self._not_allowed
        )
        return handler(request)

    def _not_allowed(self, request):
        return 405


class _Formatter:
    def format(self, pieces):
        return [str(getattr(self, piece)()) for piece in pieces]


class _Model:
    def _pk(self, meta):
        return getattr(self, meta.attname)  # a value read, not a call

    def _literal(self):
        return getattr(self, "_named")()


class _ItemView(_BaseView):
    def _get(self, request):
        return 200


class _DateFormat(_Formatter):
    def _Y(self):
        return 2026


class _Person(_Model):
    def _rename(self):
        return 1
'''


def test_methods_a_base_class_calls_by_a_computed_name_are_maybe(store: Store, tmp_path: Path) -> None:
    """newuser3 #14: `handler = getattr(self, request.method.lower())` in a view base class runs the subclass's `get`
    (django's View.dispatch, flask's MethodView): those were "dead" at 0.90. A getattr whose value is only read
    (`getattr(self, meta.pk.attname)`, django's Model) leaves its subclasses' unused methods dead."""
    (tmp_path / "disp" / "pkg").mkdir(parents=True)
    (tmp_path / "disp" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "disp" / "pkg" / "views.py").write_text(DISPATCH)
    Ingestor(store, tmp_path / "disp", repo="disp").run()
    answer = answers.dead_code(store, "disp", include_maybe=True, include_public=True, limit=None)
    status = {r["symbol"].removeprefix("pkg.views."): (r["status"], r["why"]) for r in answer.rows}
    assert status["_ItemView._get"][0] == "maybe" and "pkg/views.py:3" in status["_ItemView._get"][1]
    assert status["_DateFormat._Y"][0] == "maybe" and "pkg/views.py:14" in status["_DateFormat._Y"][1]
    assert status["_Person._rename"][0] == "dead"
