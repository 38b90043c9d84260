"""Where the graph is and how to reach it.

Each value comes from the first of: a command-line flag, the environment, the project file `.agent/kg.yaml`, the
default. With no URI configured anywhere the graph is kg's own local Neo4j (`kg server`), started on demand.

The project file comes with the repository, so it may not decide where kg keeps data or which server receives the
user's credentials: `neo4j.uri`, `neo4j.user`, `server.data_dir` and the ports there are ignored (`Settings.ignored`
lists them and the CLI says so in one note); they come from flags or the environment only.

One local server per user serves every repository: its data folder defaults to `$XDG_DATA_HOME/kg/neo4j`
(`~/.local/share/kg/neo4j`), whatever folder a command runs in. A per-project folder is used only when asked for
(`--data-dir` or KG_DATA_DIR, relative to where the command runs). When the server of the chosen data folder
already runs, its ports are the ones it runs on, wherever they came from then.

The project file never holds a password: kg refuses one there. The local server's password is generated on first
start into `<data_dir>/password` (mode 0600, the folder 0700) unless NEO4J_PASSWORD is set.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import ConfigError
from kg.server import state

PROJECT_FILE = Path(".agent") / "kg.yaml"
LOCAL_USER = "neo4j"
URI_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")

# setting name → (environment variable, (section, key) in kg.yaml, default)
_SOURCES: dict[str, tuple[str, tuple[str, str], Any]] = {
    "uri": ("NEO4J_URI", ("neo4j", "uri"), None),
    "user": ("NEO4J_USER", ("neo4j", "user"), LOCAL_USER),
    "database": ("NEO4J_DATABASE", ("neo4j", "database"), "neo4j"),
    "data_dir": ("KG_DATA_DIR", ("server", "data_dir"), None),  # None: the user-level folder
    "bolt_port": ("KG_BOLT_PORT", ("server", "bolt_port"), 7687),
    "http_port": ("KG_HTTP_PORT", ("server", "http_port"), 7474),
    "heap": ("KG_NEO4J_HEAP", ("server", "heap"), "1g"),
    "pagecache": ("KG_NEO4J_PAGECACHE", ("server", "pagecache"), "512m"),
    "min_free_mb": ("KG_MIN_FREE_MB", ("server", "min_free_mb"), 256),
}
# What a repository may not choose: where kg writes and which server is sent the user's password.
USER_ONLY = {"uri": "--uri or NEO4J_URI", "user": "NEO4J_USER", "data_dir": "--data-dir or KG_DATA_DIR",
             "bolt_port": "KG_BOLT_PORT", "http_port": "KG_HTTP_PORT"}
# Neo4j's own rule for database names (ASCII letter first, then letters, digits, dots and dashes, 3–63 characters):
# the name also goes into the path of the HTTP Query API request, where a `\r\n` would add headers.
DATABASE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9.-]{2,62}")
MEMORY_SIZE = re.compile(r"[1-9][0-9]{0,12}[kKmMgG]?")  # what Neo4j and -Xmx both read: 512m, 2g, 1048576
RUNNING = "running server"  # the origin of ports taken from the server already running on the data folder


@dataclass(frozen=True)
class Settings:
    project: Path
    uri: str
    user: str
    database: str
    data_dir: Path
    bolt_port: int
    http_port: int
    heap: str
    pagecache: str
    min_free_mb: int  # refuse a write phase when the data folder's disk has less free (0: never refuse)
    uri_configured: bool  # False: the graph is kg's local server, which kg may start itself
    origin: dict[str, str] = field(default_factory=dict, compare=False)  # setting → "flag" | "env" | file | "default"
    ignored: tuple[str, ...] = ()  # USER_ONLY settings the project file tried to set ("server.data_dir", …)

    @property
    def ignored_note(self) -> str | None:
        """One line saying which project-file settings were ignored and where they belong instead."""
        if not self.ignored:
            return None
        names = [_SOURCES[n][1][0] + "." + _SOURCES[n][1][1] for n in self.ignored]
        instead = "; ".join(f"{_SOURCES[n][1][1]}: {USER_ONLY[n]}" for n in self.ignored)
        return (f"{PROJECT_FILE} sets {', '.join(names)}, ignored: a repository does not choose kg's server or data "
                f"folder (give {instead})")

    @property
    def password(self) -> str:
        env = os.environ.get("NEO4J_PASSWORD")
        if env:
            return env
        if self.uri_configured:
            given = {"flag": "--uri is given", "env": "NEO4J_URI is set"}.get(
                self.origin["uri"], f"neo4j.uri is set in {self.origin['uri']}")
            raise ConfigError(f"{given} but NEO4J_PASSWORD is not: export NEO4J_PASSWORD=... for that server")
        return local_password(self.data_dir)

    @property
    def browser_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/browser/"


def load(overrides: dict[str, Any] | None = None, cwd: Path | None = None) -> Settings:
    """Settings from flags (`overrides`, None values ignored), environment, project file and defaults."""
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    project = find_project(cwd or Path.cwd())
    file_values = _read_project_file(project / PROJECT_FILE)

    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    ignored = []
    for name, (env, (section, key), default) in _SOURCES.items():
        in_file = key in file_values.get(section, {})
        if in_file and name in USER_ONLY:
            ignored.append(name)
            in_file = False
        if name in overrides:
            values[name], origin[name] = overrides[name], "flag"
        elif os.environ.get(env):
            values[name], origin[name] = os.environ[env], "env"
        elif in_file:
            values[name], origin[name] = file_values[section][key], str(PROJECT_FILE)
        else:
            values[name], origin[name] = default, "default"

    for port in ("bolt_port", "http_port"):
        values[port] = _port(values[port], port, origin[port])
    values["min_free_mb"] = _count(values["min_free_mb"], "min_free_mb", origin["min_free_mb"])
    for size in ("heap", "pagecache"):
        values[size] = _memory_size(values[size], size, origin[size])
    if not isinstance(values["database"], str) or not DATABASE_NAME.fullmatch(values["database"]):
        raise ConfigError(f"database {str(values['database'])[:40]!r} from {origin['database']} is no Neo4j database "
                          "name (a letter, then 2–62 letters, digits, dots or dashes): fix it")
    data_dir = _data_dir(values["data_dir"], cwd or Path.cwd())
    uri_configured = values["uri"] is not None
    if not uri_configured and (server := state.running(data_dir)):
        for port in ("bolt_port", "http_port"):
            if server.get(port) and server[port] != values[port]:
                values[port], origin[port] = server[port], RUNNING
    if uri_configured and str(values["uri"]).split("://", 1)[0] not in URI_SCHEMES:
        raise ConfigError(f"NEO4J_URI {values['uri']!r} from {origin['uri']} is not a Neo4j URI: "
                          f"use one of {', '.join(s + '://' for s in URI_SCHEMES)}")
    return Settings(
        project=project,
        uri=values["uri"] or f"bolt://127.0.0.1:{values['bolt_port']}",
        user=values["user"],
        database=values["database"],
        data_dir=data_dir,
        bolt_port=values["bolt_port"],
        http_port=values["http_port"],
        heap=str(values["heap"]),
        pagecache=str(values["pagecache"]),
        min_free_mb=values["min_free_mb"],
        uri_configured=uri_configured,
        origin=origin,
        ignored=tuple(ignored),
    )


def user_data_dir() -> Path:
    """The data folder of the user's one local server: `$XDG_DATA_HOME/kg/neo4j`, `~/.local/share/kg/neo4j`."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "kg" / "neo4j"


def find_project(start: Path) -> Path:
    """The nearest folder at or above `start` with `.agent/kg.yaml`, else with `.git`, else `start` itself.

    The project is where kg keeps per-project things (ingest caches, the project file); it no longer decides
    which server or data folder is used."""
    if os.environ.get("KG_PROJECT"):
        return Path(os.environ["KG_PROJECT"]).resolve()
    start = start.resolve()
    for marker in (PROJECT_FILE, Path(".git")):
        for folder in (start, *start.parents):
            if (folder / marker).exists():
                return folder
    return start


def local_password(data_dir: Path) -> str:
    """The local server's password, generated once and kept next to its data (never in a tracked file)."""
    path = data_dir / "password"
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    state.make_private_dir(data_dir)
    import secrets  # only when a data folder gets its first password

    password = secrets.token_urlsafe(18)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(password + "\n")
    return password


def _read_project_file(path: Path) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    import yaml  # only when there is a project file: every kg command reads the settings, few have one

    from kg.source_files import read_config

    try:
        data = yaml.safe_load(read_config(path)) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}{where} is not valid YAML: fix it or delete it") from e
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror or e}") from e
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ConfigError(f"{path} must map sections (neo4j:, server:) to settings")
    for section in data.values():
        if "password" in section:
            raise ConfigError(f"{path} holds a password: remove it and set NEO4J_PASSWORD in the environment")
    return data


def _data_dir(value: Any, cwd: Path) -> Path:
    """A flag or variable is relative to where the command runs."""
    if value is None:
        return user_data_dir()
    path = Path(str(value)).expanduser()
    if not path.is_absolute():
        path = cwd.resolve() / path
    return Path(os.path.normpath(path))


def _where(name: str, origin: str) -> str:
    """The setting as its source names it: `server.heap in .agent/kg.yaml`, `KG_NEO4J_HEAP`, `heap (flag)`."""
    env, (section, key), _ = _SOURCES[name]
    return {"env": env, "flag": f"{name} (flag)"}.get(origin, f"{section}.{key} in {origin}")


def _memory_size(value: Any, name: str, origin: str) -> str:
    """A size Neo4j's config and the JVM's -Xmx both read; anything else (a `\r` starting another setting) is
    refused before it reaches neo4j.conf or a command line."""
    text = str(value)
    if not MEMORY_SIZE.fullmatch(text):
        shown = text if len(text) <= 40 else text[:40] + "…"
        raise ConfigError(f"{_where(name, origin)} is {shown!r}: give a memory size such as 512m or 2g")
    return text


def _count(value: Any, name: str, origin: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if number < 0:
        raise ConfigError(f"{name} from {origin} is {value!r}: give a whole number of megabytes (0 or more)")
    return number


def _port(value: Any, name: str, origin: str) -> int:
    try:
        port = int(value)
    except (TypeError, ValueError):
        port = -1
    if not 0 < port < 65536:
        raise ConfigError(f"{name} from {origin} is {value!r}: give a port number between 1 and 65535")
    return port
