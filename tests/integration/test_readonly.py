"""Typed Cypher (MCP `cypher`, answers.run_cypher) may only read the graph: each probe an attacker tried is run
against the real Neo4j and must be refused in one line with nothing changed, nothing read from the host and no
request made; what reads the graph still works, stops at its limit and ends at the server's timeout."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest

from kg.errors import QueryError
from kg.navigate import answers
from kg.settings import Settings
from kg.store import Store

PROBES = {
    "load_csv_file": "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
    "load_csv_password": "LOAD CSV FROM 'file://{password}' AS line RETURN line",
    "load_csv_http": "LOAD CSV FROM 'http://127.0.0.1:{port}/steal' AS line RETURN line",
    "load_csv_after_match": "MATCH (n) WITH count(n) AS c LOAD CSV FROM 'file:///etc/hostname' AS l RETURN l",
    "show_users": "SHOW USERS",
    "show_users_lowercase_after_comment": "/* harmless */ // really\n show users",
    "show_transactions": "SHOW TRANSACTIONS",
    "terminate_transactions": "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    "show_settings": "SHOW SETTINGS",
    "show_procedures": "SHOW PROCEDURES",
    "use_system": "USE system SHOW USERS",
    "use_in_subquery": "CALL { USE system MATCH (n) RETURN n } RETURN n",
    "clear_query_caches": "CALL db.clearQueryCaches()",
    "list_config": "CALL dbms.listConfig() YIELD name, value RETURN name, value",
    "components": "CALL dbms.components()",
    "create_label": "CALL db.createLabel('Intruder')",
    "create": "CREATE (:Intruder) RETURN 1 AS one",
    "merge": "MERGE (i:Intruder {x: 1}) RETURN i",
    "set": "MATCH (r:Repo) SET r.name = 'owned' RETURN r",
    "delete": "MATCH (r:Repo) DETACH DELETE r",
    "remove": "MATCH (r:Repo) REMOVE r.root RETURN r",
    "foreach": "FOREACH (x IN [1] | CREATE (:Intruder))",
    "write_in_subquery": "MATCH (r:Repo) CALL { CREATE (:Intruder) } RETURN r",
    "in_transactions_write": "CALL { CREATE (:Intruder) } IN TRANSACTIONS",
    "in_transactions_read": "UNWIND [1] AS x CALL { WITH x RETURN x AS y } IN TRANSACTIONS RETURN y",
    "create_index": "CREATE INDEX intruder FOR (n:Intruder) ON (n.x)",
    "drop_constraint": "DROP CONSTRAINT symbol_key IF EXISTS",
    "create_database": "CREATE DATABASE intruder",
    "alter_password": "ALTER CURRENT USER SET PASSWORD FROM 'x' TO 'y'",
    "create_user": "CREATE USER intruder SET PASSWORD 'intruder-password'",
    "grant": "GRANT ROLE admin TO neo4j",
    "two_statements": "MATCH (n) RETURN count(n) AS c; CREATE (:Intruder)",
    "explain_prefix": "EXPLAIN CREATE (:Intruder)",
    "profile_prefix": "PROFILE CREATE (:Intruder)",
    "cypher_options": "CYPHER runtime=slotted CREATE (:Intruder)",
    "plugin_function": "RETURN apoc.util.sleep(100000) AS x",
    "plugin_procedure": "CALL apoc.load.json('file:///etc/passwd')",
}


class Recorder(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        Recorder.hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"stolen\n")

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture(scope="module")
def listener() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


def snapshot(store: Store) -> dict:
    return {"nodes": store.read("graph_node_counts"), "edges": store.read("graph_edge_counts"),
            "schema": sorted(r["name"] for r in store.read("schema_objects"))}


@pytest.mark.parametrize("name", sorted(PROBES))
def test_each_probe_is_refused_in_one_line_and_changes_nothing(store: Store, graph_settings: Settings,
                                                               listener: int, name: str) -> None:
    store.write("ingest/repo_put", repo="kept", root="/kept", role="target")
    before = snapshot(store)
    text = PROBES[name].replace("{password}", str(Path(graph_settings.data_dir).resolve() / "password"))
    text = text.replace("{port}", str(listener))
    with pytest.raises(QueryError) as refused:
        answers.run_cypher(store, text, {}, limit=5)
    message = str(refused.value)
    assert message.startswith("refused") and "\n" not in message, message
    assert snapshot(store) == before
    assert Recorder.hits == []
    with Store.connect(graph_settings) as again:  # the password still works: nothing was altered
        assert again.read("repos")[0]["repo"] == "kept"


def test_a_concurrent_transaction_survives_a_terminate_attempt(store: Store, graph_settings: Settings) -> None:
    with neo4j.GraphDatabase.driver(graph_settings.uri, auth=(graph_settings.user, graph_settings.password)) as d:
        with d.session(database=graph_settings.database) as session:
            tx = session.begin_transaction()
            tx.run("CREATE (:Survivor)").consume()
            for text in ("TERMINATE TRANSACTIONS 'neo4j-transaction-1', 'neo4j-transaction-2'",
                         "SHOW TRANSACTIONS YIELD transactionId AS t RETURN t"):
                with pytest.raises(QueryError, match="refused"):
                    answers.run_cypher(store, text, {}, limit=5)
            tx.commit()
    assert store.read_text("MATCH (s:Survivor) RETURN count(s) AS n")[0]["n"] == 1


@pytest.mark.parametrize("text, expected", [
    ("MATCH (r:Repo) RETURN r.name AS name ORDER BY name", [{"name": "a"}, {"name": "b"}]),
    ("CALL db.labels() YIELD label WHERE label = 'Repo' RETURN label", [{"label": "Repo"}]),
    ("CALL { MATCH (r:Repo) RETURN r } RETURN count(r) AS n", [{"n": 2}]),
    ("MATCH (r:Repo {name: 'a'}) RETURN r.name AS n UNION MATCH (r:Repo {name: 'b'}) RETURN r.name AS n",
     [{"n": "a"}, {"n": "b"}]),
    ("RETURN date.truncate('year', date('2024-05-06')) = date('2024-01-01') AS same, toUpper('show users') AS s",
     [{"same": True, "s": "SHOW USERS"}]),
    ("MATCH (r:Repo) WHERE r.name = $name RETURN r.role AS role", [{"role": "target"}]),
    ("// what is there?\nMATCH (use:Repo {name: 'a'}) RETURN use.name AS n;", [{"n": "a"}]),
])
def test_reading_queries_still_answer(store: Store, text: str, expected: list[dict]) -> None:
    for repo in ("a", "b"):
        store.write("ingest/repo_put", repo=repo, root=f"/{repo}", role="target")
    answer = answers.run_cypher(store, text, {"name": "a"}, limit=10)
    assert answer.rows == expected and not answer.truncated


def test_a_limit_stops_the_stream_instead_of_making_every_row(store: Store) -> None:
    """A trillion rows with a limit of 5: the answer comes back (a query that made every row first could only end
    in the server's timeout or out of memory), says there were more, and the fetch stopped at the limit."""
    answer = answers.run_cypher(store, "UNWIND range(1, 1000000000000) AS x RETURN x", {}, limit=5)
    assert [r["x"] for r in answer.rows] == [1, 2, 3, 4, 5]
    assert answer.truncated and answer.truncation_note() == "showing 5 of at least 6 rows (raise the limit to see more)"
    rows, more = store.read_untrusted("UNWIND range(1, 3) AS x RETURN x", {}, 3)
    assert [r["x"] for r in rows] == [1, 2, 3] and not more


def test_a_runaway_query_is_ended_by_the_server_timeout(store: Store) -> None:
    with pytest.raises(QueryError, match="ran out of time"):
        store.read_untrusted("UNWIND range(1, 1000000000000) AS x WITH x WHERE x < 0 RETURN x", {}, 5, timeout=1.0)


def test_a_query_over_the_memory_limit_says_so_over_bolt_and_http(store: Store) -> None:
    """attack4 B7: Neo4j's refusal of a transaction past its memory limit came out as "could not finish the work
    (…), even after retrying for 30 s" 3 s after the query started. Now the line says what happened and what to
    change, through the driver (MCP's `cypher`) and the Query API (one-shot CLI reads) alike."""
    from kg.query_api import QueryApiReader

    big = "UNWIND range(1, 3000000000) AS i WITH collect(i) AS l RETURN size(l) AS n"
    for ask in (lambda: store.read_untrusted(big, {}, 5), lambda: QueryApiReader(store.settings).read_text(big)):
        with pytest.raises(QueryError) as refused:
            ask()
        line = str(refused.value)
        assert line.startswith("the query needed more memory than Neo4j allows a transaction")
        assert "KG_NEO4J_HEAP" in line and "retrying" not in line and "\n" not in line


@pytest.mark.parametrize("limit", [0, -1])
def test_zero_and_negative_limits_are_clear_errors(store: Store, limit: int) -> None:
    with pytest.raises(Exception, match=f"limit must be at least 1, not {limit}"):
        answers.run_cypher(store, "RETURN 1 AS one", {}, limit=limit)


def test_named_queries_keep_working_through_store_read(store: Store) -> None:
    store.write("ingest/repo_put", repo="named", root="/named", role="target")
    assert store.read("repos")[0]["repo"] == "named"
    assert answers.run_query(store, "repos", {}).rows[0]["repo"] == "named"


@pytest.mark.parametrize("text", ["CALL db.clearQueryCaches()", "CALL dbms.listConfig()", "SHOW USERS",
                                  "TERMINATE TRANSACTIONS 'x'", "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l",
                                  "CALL { CREATE (:X) } IN TRANSACTIONS", "CALL db.createLabel('X')"])
def test_the_plan_check_alone_refuses_what_the_text_check_also_catches(graph_settings: Settings, text: str) -> None:
    """Two layers: Neo4j's own EXPLAIN plan refuses these even if the lexical check were fooled."""
    from kg.readonly import check_plan

    with neo4j.GraphDatabase.driver(graph_settings.uri, auth=(graph_settings.user, graph_settings.password)) as d:
        with d.session(database=graph_settings.database, default_access_mode=neo4j.READ_ACCESS) as session:
            summary = session.run(f"EXPLAIN {text}").consume()
    with pytest.raises(QueryError, match="refused"):
        check_plan(summary.query_type, summary.plan)


UNSTOPPABLE = {  # one row each, evaluated inside one expression: Neo4j's timeout marks them and they keep running
    "reduce_string": 'RETURN reduce(s = "", i IN range(1, 5000000) | s + "x") AS s',
    "reduce_upper_case": "RETURN REDUCE (n = 0, i IN [1, 2] | n + i) AS n",
    "huge_list": "RETURN [i IN range(1, 30000000) | i] AS l",
    "range_by_parameter": "RETURN size(range(1, $n)) AS n",
    "range_by_expression": "RETURN size(range(1, 10^9)) AS n",
    "nested_comprehension": "MATCH (s) WITH collect(s) AS q RETURN size([x IN q | [y IN q | 1]]) AS n",
    "nested_quantifier": "WITH [1] AS q RETURN all(x IN q WHERE any(y IN q WHERE y = x)) AS b",
    # attack4: a backticked function name is the function; a path's nodes plus another list, or an IN hidden in the
    # accumulator's first value, is not a path
    "backticked_range": "RETURN size([x IN `range`(1, 1500000000) WHERE x = -1]) AS n",
    "reduce_over_nodes_plus_a_list": "MATCH p = (:Repo)-[*0]-() WITH p, range(1, 10) AS l "
                                     "RETURN reduce(s = 0, x IN nodes(p) + l | s + 1) AS n",
    "reduce_with_an_in_in_its_first_value": "WITH [1, 2] AS l RETURN reduce(s = size([y IN nodes(null) | y]), "
                                            "x IN l | s + x) AS n",
    # attack6 D1: Java's backtracking regex kept a core busy for minutes after the timeout marked the transaction
    "regex": "RETURN 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' =~ "
             "'(.*a){12}b' AS hit",
    "regex_by_parameter": "MATCH (m:Module) WHERE m.path =~ $n RETURN m.path AS path",
}


@pytest.mark.parametrize("probe", sorted(UNSTOPPABLE))
def test_what_the_timeout_cannot_stop_is_refused_before_it_runs(store: Store, probe: str) -> None:
    with pytest.raises(QueryError, match=r"^refused: .*where the server's timeout cannot stop it"):
        answers.run_cypher(store, UNSTOPPABLE[probe], {"n": 10**9}, limit=5)


def test_bounded_loops_in_expressions_still_run(store: Store) -> None:
    """kg's own path queries reduce over relationships(p); small literal ranges and one level of comprehension over
    a collected list are what a person asks; UNWIND range is rows, stopped by the limit and the timeout."""
    store.write("ingest/repo_put", repo="looped", root="/looped", role="target")
    for text, expected in {
        "MATCH p = (:Repo)-[*0]-() RETURN reduce(w = 1.0, e IN relationships(p) | w) AS n": 1.0,
        "RETURN size([x IN range(1, 100000) | x * 2]) AS n": 100000,
        "RETURN size(range(-5, 5, 2)) AS n": 6,
        "UNWIND range(1, 10) AS i WITH collect(i) AS q RETURN size([x IN q WHERE x > 5]) AS n": 5,
        "RETURN any(x IN [1, 2] WHERE x > 1) AS n": True,
    }.items():
        assert answers.run_cypher(store, text, {}, limit=5).rows == [{"n": expected}], text
