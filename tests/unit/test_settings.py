"""Where each connection setting comes from: flag > environment > .agent/kg.yaml > default."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg import settings
from kg.errors import ConfigError


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_DATABASE", "KG_DATA_DIR", "KG_BOLT_PORT",
                 "KG_HTTP_PORT", "KG_PROJECT", "KG_NEO4J_HEAP", "KG_NEO4J_PAGECACHE", "KG_MIN_FREE_MB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))


def write_project_file(root: Path, text: str) -> None:
    (root / ".agent").mkdir(parents=True, exist_ok=True)
    (root / ".agent" / "kg.yaml").write_text(text, encoding="utf-8")


def test_defaults_are_the_local_server(tmp_path: Path) -> None:
    s = settings.load(cwd=tmp_path)
    assert (s.uri, s.user, s.database, s.uri_configured) == ("bolt://127.0.0.1:7687", "neo4j", "neo4j", False)
    assert s.data_dir == tmp_path / "xdg-data" / "kg" / "neo4j" and s.origin["data_dir"] == "default"
    assert s.browser_url == "http://127.0.0.1:7474/browser/"
    assert s.min_free_mb == 256


def test_every_repository_shares_the_users_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `.git` folder marks a project but no longer a server of its own (issue 10.1)."""
    one, two = tmp_path / "one", tmp_path / "two" / "src"
    (one / ".git").mkdir(parents=True)
    (tmp_path / "two" / ".git").mkdir(parents=True)
    two.mkdir()
    first, second = settings.load(cwd=one), settings.load(cwd=two)
    assert first.project == one and second.project == tmp_path / "two"
    assert first.data_dir == second.data_dir == tmp_path / "xdg-data" / "kg" / "neo4j"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert settings.load(cwd=one).data_dir == tmp_path / "home" / ".local" / "share" / "kg" / "neo4j"


def test_a_relative_data_dir_flag_or_variable_is_relative_to_where_kg_runs(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    here = tmp_path / "sub"
    here.mkdir()
    assert settings.load({"data_dir": "graph"}, cwd=here).data_dir == here / "graph"
    monkeypatch.setenv("KG_DATA_DIR", "../elsewhere")
    s = settings.load(cwd=here)
    assert s.data_dir == tmp_path / "elsewhere" and s.origin["data_dir"] == "env"


def test_flag_beats_env_beats_file_beats_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_project_file(tmp_path, "neo4j:\n  database: filedb\nserver:\n  heap: 2g\n  pagecache: 300m\n")
    monkeypatch.setenv("NEO4J_URI", "neo4j+s://env.example:7687")
    monkeypatch.setenv("NEO4J_DATABASE", "envdb")
    monkeypatch.setenv("KG_NEO4J_PAGECACHE", "128M")
    s = settings.load({"database": "flagdb", "uri": None}, cwd=tmp_path)
    assert s.database == "flagdb" and s.origin["database"] == "flag"
    assert s.uri == "neo4j+s://env.example:7687" and s.origin["uri"] == "env" and s.uri_configured
    assert s.heap == "2g" and s.origin["heap"] == ".agent/kg.yaml"
    assert s.pagecache == "128M" and s.origin["pagecache"] == "env"
    assert s.http_port == 7474 and s.origin["http_port"] == "default"
    assert s.ignored == () and s.ignored_note is None


def test_project_found_from_a_subfolder(tmp_path: Path) -> None:
    write_project_file(tmp_path, "server:\n  heap: 3g\n")
    nested = tmp_path / "src" / "pkg"
    nested.mkdir(parents=True)
    s = settings.load(cwd=nested)
    assert s.project == tmp_path and s.heap == "3g"


def test_a_repository_does_not_choose_the_server_its_data_folder_or_ports(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack report #3/#6: a cloned repository's `.agent/kg.yaml` named the Bolt server that received the user's
    NEO4J_PASSWORD and the data folder kg writes and chmods. Those settings are ignored, with one note."""
    write_project_file(tmp_path, "neo4j:\n  uri: bolt://127.0.0.1:17805\n  user: admin\n  database: filedb\n"
                                 "server:\n  data_dir: ..\n  bolt_port: 17806\n  http_port: 17807\n")
    monkeypatch.setenv("NEO4J_PASSWORD", "MyRealNeo4jSecret")
    s = settings.load(cwd=tmp_path)
    assert (s.uri, s.uri_configured, s.user) == ("bolt://127.0.0.1:7687", False, "neo4j")
    assert s.data_dir == tmp_path / "xdg-data" / "kg" / "neo4j" and s.origin["data_dir"] == "default"
    assert (s.bolt_port, s.http_port) == (7687, 7474)
    assert s.database == "filedb"  # which database of the user's own server: the repository may say
    assert s.ignored == ("uri", "user", "data_dir", "bolt_port", "http_port")
    assert s.ignored_note == (
        ".agent/kg.yaml sets neo4j.uri, neo4j.user, server.data_dir, server.bolt_port, server.http_port, ignored: "
        "a repository does not choose kg's server or data folder (give uri: --uri or NEO4J_URI; user: NEO4J_USER; "
        "data_dir: --data-dir or KG_DATA_DIR; bolt_port: KG_BOLT_PORT; http_port: KG_HTTP_PORT)")
    monkeypatch.setenv("KG_DATA_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("KG_BOLT_PORT", "17812")
    s = settings.load(cwd=tmp_path)
    assert s.data_dir == tmp_path / "mine" and s.bolt_port == 17812 and s.origin["bolt_port"] == "env"


@pytest.mark.parametrize("text, message", [
    ('server:\n  pagecache: "64m\\rserver.logs.config=/tmp/evil.xml"\n',
     r"^server.pagecache in .agent/kg.yaml is '64m\\rserver.logs.config=/tmp/evil.xml': give a memory size such "
     r"as 512m or 2g$"),
    ("server:\n  heap: 1g -XX:OnOutOfMemoryError=sh\n", r"^server.heap in .agent/kg.yaml is '1g -XX:On"),
    ("server:\n  heap: lots\n", "give a memory size"),
    ("server:\n  pagecache: 0\n", "give a memory size"),
])
def test_memory_sizes_are_sizes(tmp_path: Path, text: str, message: str) -> None:
    """Attack report #2: a `\\r` in pagecache started a second line in neo4j.conf (any Neo4j setting)."""
    write_project_file(tmp_path, text)
    with pytest.raises(ConfigError, match=message):
        settings.load(cwd=tmp_path)


def test_a_bad_memory_size_from_the_environment_names_the_variable(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_NEO4J_HEAP", "768m\rserver.directories.logs=/tmp")
    with pytest.raises(ConfigError, match=r"^KG_NEO4J_HEAP is '768m\\rserver"):
        settings.load(cwd=tmp_path)
    monkeypatch.setenv("KG_NEO4J_HEAP", "768m")
    assert settings.load(cwd=tmp_path).heap == "768m"


def test_password_in_project_file_is_refused(tmp_path: Path) -> None:
    write_project_file(tmp_path, "neo4j:\n  uri: bolt://db:7687\n  password: hunter22\n")
    with pytest.raises(ConfigError, match="remove it and set NEO4J_PASSWORD"):
        settings.load(cwd=tmp_path)


@pytest.mark.parametrize("text, message", [
    ("neo4j: [unclosed", "is not valid YAML"),
    ("- a\n- b\n", "must map sections"),
    ("server:\n  min_free_mb: lots\n", "give a whole number"),
    # the name goes into the HTTP request's path: a `\r\n` would add headers (or a second request)
    ('neo4j:\n  database: "neo4j/query/v2 HTTP/1.1\\r\\nX-Evil: 1"\n', "is no Neo4j database name"),
    ("neo4j:\n  database: 7\n", "is no Neo4j database name"),
])
def test_bad_project_file_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    write_project_file(tmp_path, text)
    with pytest.raises(ConfigError, match=message):
        settings.load(cwd=tmp_path)


def test_database_names_neo4j_accepts_pass(tmp_path: Path) -> None:
    write_project_file(tmp_path, "neo4j:\n  database: shop-2.archive\n")
    assert settings.load(cwd=tmp_path).database == "shop-2.archive"


def test_local_password_is_generated_once_and_private(tmp_path: Path) -> None:
    s = settings.load(cwd=tmp_path)
    first = s.password
    assert len(first) >= 20 and s.password == first
    assert (s.data_dir / "password").stat().st_mode & 0o777 == 0o600
    assert s.data_dir.stat().st_mode & 0o777 == 0o700


def test_env_password_wins_and_remote_uri_needs_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "neo4j://cluster:7687")
    with pytest.raises(ConfigError, match="^NEO4J_URI is set but NEO4J_PASSWORD is not"):
        _ = settings.load(cwd=tmp_path).password
    monkeypatch.setenv("NEO4J_PASSWORD", "from-env")
    assert settings.load(cwd=tmp_path).password == "from-env"
    assert not (tmp_path / ".kg").exists() and not (tmp_path / "xdg-data").exists()


def test_missing_password_error_names_what_gave_the_uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--uri without a password blames the flag, not NEO4J_URI (issue 10.1)."""
    with pytest.raises(ConfigError, match="^--uri is given but NEO4J_PASSWORD is not"):
        _ = settings.load({"uri": "bolt://db.example:7687"}, cwd=tmp_path).password
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example:7687")
    with pytest.raises(ConfigError, match=r"^NEO4J_URI is set but NEO4J_PASSWORD is not"):
        _ = settings.load(cwd=tmp_path).password


def test_min_free_must_be_a_whole_number(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_MIN_FREE_MB", "lots")
    with pytest.raises(ConfigError, match="min_free_mb from env is 'lots'"):
        settings.load(cwd=tmp_path)
    monkeypatch.setenv("KG_MIN_FREE_MB", "0")
    assert settings.load(cwd=tmp_path).min_free_mb == 0


@pytest.mark.parametrize("variable, value, message", [
    ("KG_BOLT_PORT", "seventy", "give a port number"),
    ("NEO4J_URI", "http://db:7474", "is not a Neo4j URI"),
])
def test_bad_environment_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str,
                                            value: str, message: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=message):
        settings.load(cwd=tmp_path)


def test_a_project_file_that_links_to_a_device_or_a_pipe_is_one_line(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A repository can commit `.agent/kg.yaml` as a link: to /dev/zero it was read until memory ran out (every
    command of anyone who cloned it failed with a traceback), to a FIFO it hung every command."""
    import os

    (tmp_path / ".git").mkdir()
    (tmp_path / ".agent").mkdir()
    link = tmp_path / ".agent" / "kg.yaml"
    link.symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="is not a regular file"):
        settings.load(cwd=tmp_path)
    link.unlink()
    os.mkfifo(link)
    with pytest.raises(ConfigError, match="is not a regular file"):
        settings.load(cwd=tmp_path)
    link.unlink()
    (tmp_path / "real.yaml").write_text("server: {heap: 3g}\n")
    link.symlink_to(tmp_path / "real.yaml")  # a link to a plain file is fine (dotfile setups)
    assert settings.load(cwd=tmp_path).heap == "3g"
