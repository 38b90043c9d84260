"""Project memory against the real Neo4j, on a copy of examples/tinyshop (real files, real ingest): decisions and
their conflicts, staleness after an edit and a re-ingest, orphaning, the lifecycle commands, bad input, the
Browser queries with their own `:param` values, and writers in several processes at once. No LLM is involved."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from kg.ingest.pipeline import Ingestor

from kg import queries
from kg.cli import cli
from kg.errors import InputError
from kg.memory import audit, items
from kg.memory import config as memory_config
from kg.memory.config import MemoryConfig
from kg.memory.writes import MemoryConflict, MemoryWriter
from kg.navigate.catalog import describe
from kg.navigate.targets import AmbiguousName
from kg.store import Store

REPO_ROOT = Path(__file__).resolve().parents[2]
TINYSHOP = REPO_ROOT / "examples" / "tinyshop"
CONFIG = MemoryConfig()


@pytest.fixture
def shop(store: Store, tmp_path: Path) -> Path:
    """A copy of tinyshop ingested as `tinyshop` (the name `make demo` gives it)."""
    root = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, root)
    Ingestor(store, root, repo="tinyshop").run()
    return root


def person(store: Store, name: str = "Ada") -> MemoryWriter:
    return MemoryWriter(store, CONFIG, name, "cli")


def env(store: Store) -> dict[str, str]:
    s = store.settings
    return {"KG_BOLT_PORT": str(s.bolt_port), "KG_HTTP_PORT": str(s.http_port), "KG_DATA_DIR": str(s.data_dir)}


def kg(store: Store, *args: str):
    return CliRunner().invoke(cli, list(args), env=env(store))


def count(store: Store, label: str) -> int:
    return store.read_text(f"MATCH (n:{label}) RETURN count(n) AS n")[0]["n"]


def test_decide_checks_against_what_is_recorded(store: Store, shop: Path) -> None:
    ada = person(store)
    first = ada.decide("Checkout never mutates the cart", ["Cart.checkout"], "orders are replayed from carts")
    assert (first.action, first.status, first.conflicts) == ("created", "confirmed", [])
    again = ada.decide("checkout never mutates the cart.", ["shop.cart.Cart.checkout"])
    assert (again.action, again.id) == ("exists", first.id)  # the same decision is not stored twice
    contra = ada.decide("Checkout mutates the cart", ["Cart.checkout"])
    assert contra.status == "proposed" and contra.conflicts[0]["kind"] == "contradiction"
    assert contra.conflicts[0]["id"] == first.id and "negated" in contra.conflicts[0]["reason"]
    dup = person(store, "Bob").decide("Checkout does never mutate the cart", ["Cart.checkout"])
    assert dup.status == "proposed"
    assert {c["id"]: c["kind"] for c in dup.conflicts} == {first.id: "duplicate", contra.id: "contradiction"}
    other = ada.decide("Checkout mutates the cart", ["shop/pricing.py"])  # another target: nothing to compare
    assert (other.status, other.conflicts) == ("confirmed", [])

    listed = json.loads(kg(store, "decisions", "--about", "Cart.checkout", "--json").stdout)
    assert {d["id"] for d in listed["decisions"]} == {first.id, contra.id, dup.id}
    assert {(c["id"], c["with"]) for c in listed["conflicts"]} == {(contra.id, first.id), (dup.id, first.id),
                                                                    (dup.id, contra.id)}
    flags = {d["id"]: d["flags"] for d in listed["decisions"]}
    assert flags[contra.id] == ["unverified", "conflict"] and flags[first.id] == ["conflict"]
    text = kg(store, "decisions", "--about", "Cart.checkout").stdout
    assert "unsettled conflicts" in text and f"kg decisions settle {contra.id} {first.id}" in text

    # a person settles each: both stand, a rejection, a supersession
    person(store).settle(dup.id, first.id)
    assert kg(store, "decisions", "reject", contra.id).exit_code == 0
    newer = ada.supersede(first.id, text="Checkout works on a copy of the cart lines", rationale="simpler")
    assert newer.action == "superseded"
    after = {i.id: i for i in items.load(store, "tinyshop")}
    assert after[first.id].status == "superseded" and after[contra.id].status == "rejected"
    successor = after[first.id].superseded_by[0]
    assert after[successor].text == "Checkout works on a copy of the cart lines"
    assert after[successor].status == "confirmed"  # not flagged against the decision it replaces
    assert after[successor].about == after[first.id].about
    assert not any(f.kind == "conflict" for f in audit.audit(store, CONFIG, "tinyshop"))
    shown = kg(store, "decisions", "show", first.id).stdout
    assert "superseded" in shown and f"superseded by {successor}" in shown
    assert store.read_text("MATCH (r:Revision {of: $id}) RETURN count(r) AS n", id=first.id)[0]["n"] == 1


def test_agent_and_mcp_decisions_need_the_threshold(store: Store, shop: Path) -> None:
    agent = MemoryWriter(store, MemoryConfig(confirm_threshold=0.8), "agent:run-1", "agent")
    sure = agent.decide("OrderStore.save writes one order per call", ["OrderStore.save"], confidence=0.9)
    unsure = agent.decide("JsonOrderStore keeps the file open", ["JsonOrderStore"], confidence=0.5)
    assert (sure.status, unsure.status) == ("confirmed", "proposed")
    found = {i.id: i for i in items.load(store, "tinyshop")}
    assert found[unsure.id].flags(0.8) == ["unverified"] and found[sure.id].flags(0.8) == []
    assert found[sure.id].author == "agent:run-1" and found[sure.id].source == "agent"


def test_a_repository_file_cannot_make_agent_decisions_confirm_themselves(store: Store, shop: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """`.agent/memory.yaml` comes with the repository: `confirm_threshold: 0` there is ignored, saying so."""
    monkeypatch.delenv("KG_CONFIRM_THRESHOLD", raising=False)
    (shop / ".agent").mkdir(exist_ok=True)
    (shop / ".agent" / "memory.yaml").write_text("confirm_threshold: 0\n")
    config = memory_config.load(shop)
    unsure = MemoryWriter(store, config, "agent:run-1", "agent").decide(
        "JsonOrderStore keeps the file open", ["JsonOrderStore"], confidence=0.5)
    assert unsure.status == "proposed"
    monkeypatch.chdir(shop)
    shown = kg(store, "memory", "audit")
    assert shown.exit_code == 0
    assert "note: " in shown.stderr and "confirm_threshold 0, ignored" in shown.stderr
    assert "KG_CONFIRM_THRESHOLD" in shown.stderr


def test_staleness_follows_the_code_after_an_edit_and_reingest(store: Store, shop: Path) -> None:
    ada = person(store)
    checkout = ada.decide("Checkout prices the order with the coupon last", ["Cart.checkout"])
    add = ada.decide("Cart.add accepts only positive quantities", ["Cart.add"])
    pricing = ada.decide("Discounts never stack", ["shop/pricing.py"])
    knowledge = ada.put_knowledge(["shop/cart.py"], "Holds the lines of one order until checkout.",
                                  ["Totals are integer cents."])
    assert audit.audit(store, CONFIG, "tinyshop") == []

    cart = shop / "shop" / "cart.py"
    source = cart.read_text()
    edited = source.replace("class Cart", "# carts live in memory only\n\n\nclass Cart", 1)  # every symbol moves
    body = edited.splitlines()
    at = next(i for i, line in enumerate(body) if "def checkout" in line)
    body.insert(at + 1, "        assert self.items, 'nothing to check out'")  # checkout's own lines change
    cart.write_text("\n".join(body) + "\n")
    Ingestor(store, shop, repo="tinyshop").run()

    findings = audit.audit(store, CONFIG, "tinyshop")
    stale = {f.id for f in findings if f.kind == "stale"}
    assert stale == {checkout.id, knowledge.id}  # Cart.add only moved; pricing.py did not change
    assert add.id not in stale and pricing.id not in stale
    row = next(f for f in findings if f.id == checkout.id)
    assert "shop.cart.Cart.checkout" in row.detail and row.settle.startswith(f"kg decisions confirm {checkout.id}")
    browser = store.read("stale_decisions", repo="tinyshop")
    assert {r["id"] for r in browser if r["finding"] == "stale"} == stale

    check = kg(store, "memory", "audit", "--check")
    assert check.exit_code == 3 and "stale" in check.stdout  # findings: 3, as `kg review --check`
    failed = kg(store, "memory", "audit", "--check", "--repo", "no-such-repo")
    assert failed.exit_code == 1 and failed.output.startswith("error: ")  # an error: 1, as every command
    assert kg(store, "decisions", "confirm", checkout.id).exit_code == 0  # it still holds: hashes recorded again
    assert kg(store, "memory", "confirm", knowledge.id).exit_code == 0
    assert kg(store, "memory", "audit", "--check").exit_code == 0


def test_orphaned_when_the_target_is_gone_and_retarget_or_return_settles_it(store: Store, shop: Path) -> None:
    ada = person(store)
    decision = ada.decide("JsonOrderStore.save rewrites the whole file", ["JsonOrderStore.save"])
    storage = shop / "shop" / "storage.py"
    original = storage.read_text()
    storage.write_text(original.replace("def save(", "def store(", 2))  # renamed: the old symbols are deleted
    Ingestor(store, shop, repo="tinyshop").run()

    (finding,) = [f for f in audit.audit(store, CONFIG, "tinyshop") if f.id == decision.id]
    assert finding.kind == "orphaned" and "shop.storage.JsonOrderStore.save" in finding.detail
    assert "retarget" in finding.settle
    item = items.get(store, decision.id)
    assert item.orphaned == ["shop/storage.py#shop.storage.JsonOrderStore.save"] and item.targets == []
    shown = kg(store, "decisions", "show", decision.id).stdout
    assert "orphaned" in shown and "JsonOrderStore.save" in shown

    result = kg(store, "decisions", "retarget", decision.id, "--about", "JsonOrderStore.store")
    assert result.exit_code == 0, result.output
    assert audit.audit(store, CONFIG, "tinyshop") == []
    assert items.get(store, decision.id).about == ["shop/storage.py#shop.storage.JsonOrderStore.store"]

    other = ada.decide("OrderStore.store is abstract", ["OrderStore.store"])
    storage.write_text(original)  # renamed back: `store` is gone, `save` is back
    Ingestor(store, shop, repo="tinyshop").run()
    assert {f.id for f in audit.audit(store, CONFIG, "tinyshop") if f.kind == "orphaned"} == {decision.id, other.id}


def test_bad_input_is_one_line_and_changes_nothing(store: Store, shop: Path) -> None:
    person(store).decide("Checkout never mutates the cart", ["Cart.checkout"])
    before = (count(store, "Decision"), count(store, "Revision"), count(store, "Knowledge"))
    for args, message in [
        (["decide", "x", "--about", "no.such.thing"], "no symbol or module named 'no.such.thing'"),
        (["decide", "x", "--about", "save"], "'save' is ambiguous (2 candidates)"),
        (["decide", "   ", "--about", "Cart.checkout"], "empty decision text"),
        (["decide", "x", "--about", "Cart.checkout", "--confidence", "1.5"], "confidence must be a number from 0.0"),
        (["decide", "x", "--about", ""], "empty --about"),
        (["decisions", "confirm", "dec-000000000000"], "no decision or knowledge with id 'dec-000000000000'"),
        (["decisions", "--status", "maybe"], "status 'maybe' is not one of"),
        (["memory", "show", "Nope"], "no symbol or module named 'Nope'"),
        (["memory", "set", "shop/cart.py"], "nothing to record"),
        (["memory", "set", "shop/cart.py", "--pitfall", " "], "empty pitfall"),
    ]:
        result = kg(store, *args)
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert result.exit_code == 1 and errors and message in errors[0], (args, result.output)
        assert "Traceback" not in result.stderr
    assert (count(store, "Decision"), count(store, "Revision"), count(store, "Knowledge")) == before
    with pytest.raises(AmbiguousName):
        person(store).decide("x", ["save"])
    with pytest.raises(InputError, match="must be about something"):
        person(store).decide("x", [])


def test_a_stale_write_merges_or_becomes_a_conflict(store: Store, shop: Path) -> None:
    ada, bob = person(store, "Ada"), person(store, "Bob")
    decision = items.get(store, ada.decide("Coupons apply after bulk discounts", ["shop/pricing.py"],
                                           propose=True).id)
    bob.update(decision, {"rationale": "the order matters for rounding"})  # Bob writes first (version 2)
    merged = ada.update(decision, {"status": "confirmed"})  # Ada read version 1: different field, merged
    assert merged.merged and merged.status == "confirmed"
    now = items.get(store, decision.id)
    assert (now.version, now.status, now.rationale) == (3, "confirmed", "the order matters for rounding")
    with pytest.raises(MemoryConflict, match="its status is now 'confirmed'"):
        bob.update(decision, {"status": "rejected"})  # Bob read version 1 too: the same field, differently
    assert items.get(store, decision.id).version == 3  # nothing written
    knowledge = items.get(store, ada.put_knowledge(["shop/cart.py"], "Holds lines.", ["A"]).id)
    ada.update(knowledge, {"pitfalls": ["A", "B"]})
    bob.update(knowledge, {"pitfalls": ["A", "C"]})  # from the same version 1: both additions kept
    assert items.get(store, knowledge.id).pitfalls == ["A", "B", "C"]


def test_browser_queries_answer_with_their_own_param_values(store: Store, shop: Path) -> None:
    """`:param` lines pasted into Browser (repo tinyshop, shop/cart.py) show the module's decisions."""
    ada = person(store)
    ada.decide("Checkout never mutates the cart", ["Cart.checkout"])
    ada.put_knowledge(["shop/cart.py"], "Holds the lines of one order.", [])
    for name in ("module_decisions", "stale_decisions"):
        info = describe(name)
        params = {k: store.read_text(f"RETURN {v} AS v")[0]["v"] for k, v in info.examples.items()}
        rows = store.read(name, **params)
        if name == "module_decisions":
            assert {(r["type"], r["about"], r["stale"]) for r in rows} == {
                ("decision", "shop.cart.Cart.checkout", False), ("knowledge", "shop.cart", False)}
        else:
            assert rows == []
    assert "module_decisions" in queries.names() and "stale_decisions" in queries.names()


_WRITER = """
import sys, time
from pathlib import Path
from kg import settings
from kg.memory.config import MemoryConfig
from kg.memory.writes import MemoryWriter
from kg.store import Store
n, start = int(sys.argv[1]), float(sys.argv[2])
s = settings.load({}, cwd=Path(sys.argv[3]))
with Store.connect(s) as store:
    writer = MemoryWriter(store, MemoryConfig(), f"writer-{n}", "cli")
    while time.time() < start:
        time.sleep(0.005)
    merged = 0
    for i in range(4):
        merged += writer.put_knowledge(["shop/cart.py"], None, [f"pitfall {n}.{i}"]).merged
        merged += writer.decide(sys.argv[4 + i], ["shop/cart.py"]).merged
print(merged)
"""


def test_concurrent_writers_in_several_processes_lose_nothing(store: Store, shop: Path, tmp_path: Path) -> None:
    """Four processes write about shop/cart.py at once: 16 pitfalls into one knowledge item, 16 decisions, two of
    which contradict each other. Every write lands, and the contradiction is flagged whichever process came last."""
    person(store).put_knowledge(["shop/cart.py"], "Holds the lines of one order until checkout.", [])
    names = ("red", "green", "blue", "amber")
    texts = {n: [f"Writer {names[n]} rule {word}" for word in ("alpha", "beta", "gamma", "delta")] for n in range(4)}
    texts[0][3] = "The cart keeps at most 50 lines"
    texts[3][3] = "The cart keeps at most 80 lines"
    start = time.time() + 4
    s = store.settings
    child_env = {**os.environ, **env(store), "NEO4J_PASSWORD": s.password}
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(n), str(start), str(REPO_ROOT), *texts[n]],
                              env=child_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n in range(4)]
    results = [p.communicate(timeout=180) for p in procs]
    assert all(p.returncode == 0 for p in procs), [r[1][-2000:] for r in results]
    print("writes that met a newer version and merged:", sum(int(r[0]) for r in results))

    (knowledge,) = [i for i in items.load(store, "tinyshop") if i.type == "knowledge"]
    assert sorted(knowledge.pitfalls) == sorted(f"pitfall {n}.{i}" for n in range(4) for i in range(4))
    assert knowledge.version == 17  # created, then 16 updates, none lost
    decisions = [i for i in items.load(store, "tinyshop") if i.type == "decision"]
    assert sorted(d.text for d in decisions) == sorted(t for ts in texts.values() for t in ts)
    flagged = [(d.text, c.other) for d in decisions for c in d.conflicts if c.flagged_by]
    by_id = {d.id: d.text for d in decisions}
    assert [(text, by_id[other]) for text, other in flagged] in (
        [("The cart keeps at most 50 lines", "The cart keeps at most 80 lines")],
        [("The cart keeps at most 80 lines", "The cart keeps at most 50 lines")])
    assert store.read_text("MATCH (m:Module {repo: 'tinyshop', path: 'shop/cart.py'}) RETURN m.memory_version AS v")[
        0]["v"] == 16
