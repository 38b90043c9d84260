"""`kg observe` on real suites from PyPI sdists (tests/suites.py): flask's whole suite with the default command
(the project's `.venv`, here a link to a cached virtualenv with flask's test dependencies), and a part of
requests' suite given after `--`. Each is skipped, with the reason, only when its test dependencies cannot be
installed. The facts checked are ones static analysis cannot see: werkzeug's test client calling
`Flask.__call__`, http.cookiejar calling requests' `MockRequest.unverifiable`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from kg.ingest.observe.observer import ObserveReport, observe
from kg.ingest.pipeline import Ingestor

from kg.navigate import answers
from kg.store import Store
from tests import suites


def observed_checkout(store: Store, name: str, tmp: Path, command: bool) -> Iterator[tuple[Path, ObserveReport]]:
    try:
        root = suites.checkout(name, tmp / name)
    except suites.SuiteUnavailable as e:
        pytest.skip(str(e))
    store.write("graph_wipe")
    Ingestor(store, root, repo=name, excludes=("docs/", "examples/", "artwork/", "*.rst", "*.md")).run()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYTHONPATH", str(root / "src"))  # the copy's code, not an installed one
        mp.delenv("PYTEST_ADDOPTS", raising=False)
        extra = ("tests/test_requests.py", "tests/test_hooks.py", "-k", "cookie or hook")
        report = observe(store, root, name, suites.command(name, root, *extra) if command else None)
    yield root, report


@pytest.fixture(scope="module")
def flask(session_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ObserveReport]]:
    yield from observed_checkout(session_store, "flask", tmp_path_factory.mktemp("sdist"), command=False)


def test_flask_whole_suite_with_the_projects_own_venv(session_store: Store, flask: tuple[Path, ObserveReport]) -> None:
    root, report = flask
    assert report.mode == "full" and "the project's .venv" in report.origin
    assert report.tests >= 480 and report.outcomes.get("passed", 0) >= 470
    # werkzeug's test client calls Flask.__call__: invisible to static analysis, seen by the run
    found = answers.tests_for(session_store, ["flask.app.Flask.__call__"], "flask", limit=None)
    observed = [r for r in found.rows if r["source"] in ("observed", "both")]
    assert len(observed) >= 100 and not any(r["stale"] for r in observed)
    callers = answers.callers(session_store, "flask.app.Flask.__call__", "flask", evidence="observed")
    assert ("flask.testing.FlaskClient.open", "observed via library") in {(r["caller"], r["resolution"])
                                                                           for r in callers.rows}
    # the dispatch chain behind it was observed directly
    path = answers.call_path(session_store, "flask.app.Flask.wsgi_app", "flask.app.Flask.dispatch_request",
                             "flask", evidence="observed")
    assert path.rows and path.rows[0]["length"] == 2


def test_requests_part_of_the_suite_through_a_given_command(session_store: Store,
                                                            tmp_path_factory: pytest.TempPathFactory) -> None:
    (root, report), = list(observed_checkout(session_store, "requests", tmp_path_factory.mktemp("sdist"),
                                             command=True))
    assert report.mode == "merge" and report.tests >= 20 and report.failed == 0
    # http.cookiejar (library code) asks requests' MockRequest whether the request is unverifiable
    callers = answers.callers(session_store, "requests.cookies.MockRequest.is_unverifiable", "requests", depth=2,
                              evidence="observed")
    seen = {(r["depth"], r["caller"], r["resolution"]) for r in callers.rows}
    assert (1, "requests.cookies.MockRequest.unverifiable", "observed") in seen
    assert (2, "requests.cookies.extract_cookies_to_jar", "observed via library") in seen
    tests = answers.tests_for(session_store, ["requests.cookies.MockRequest.is_unverifiable"], "requests",
                              limit=None)
    assert tests.rows and all(r["source"] in ("observed", "both") for r in tests.rows)
    assert os.environ.get("PYTHONPATH") != str(root / "src")  # the environment is restored
