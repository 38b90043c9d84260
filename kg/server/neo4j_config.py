"""Every Neo4j setting kg's local server runs with, in one place: one line each, with the reason.

`kg server start` writes them to `<data_dir>/neo4j.conf` and the launcher loads that file, so adding a setting is
adding a line to `neo4j_settings` below. Neo4j validates the names strictly: a misspelt one stops the server with
one clear line (`kg server start` shows it). The names are those of Neo4j 5.26 (the launcher's pom pins 5.26.30).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from kg.errors import ConfigError
from kg.server.state import write_private
from kg.settings import Settings

LOOPBACK = "127.0.0.1"


def neo4j_settings(settings: Settings) -> dict[str, str]:
    data = settings.data_dir
    bolt, http = f"{LOOPBACK}:{settings.bolt_port}", f"{LOOPBACK}:{settings.http_port}"
    return {
        # ── reach: this machine only ────────────────────────────────────────────────────────────────────────────
        "server.default_listen_address": LOOPBACK,
        "server.default_advertised_address": LOOPBACK,
        "server.bolt.enabled": "true",
        "server.bolt.listen_address": bolt,
        "server.bolt.advertised_address": bolt,
        "server.http.enabled": "true",  # Neo4j Browser at /browser/
        "server.http.listen_address": http,
        "server.http.advertised_address": http,
        "server.https.enabled": "false",
        "dbms.routing.enabled": "false",  # no routing connector (a cluster feature) listening on another port
        "dbms.security.auth_enabled": "true",
        # Only the Browser and the authenticated Cypher endpoints; no unmanaged extensions.
        "server.http_enabled_modules": "TRANSACTIONAL_ENDPOINTS,QUERY_API_ENDPOINTS,BROWSER",
        # Browser is served from this origin; no other web page gets CORS access to the HTTP API.
        "dbms.security.http_access_control_allow_origin": f"http://{http}",
        # ── no way from Cypher to the host's files or network ──────────────────────────────────────────────────
        "dbms.security.allow_csv_import_from_file_urls": "false",
        "server.directories.import": str(data / "import"),  # kept empty (see local.start), in case of the above
        # Kept empty (local.start refuses to start otherwise): no procedures or functions beyond Neo4j's own.
        "server.directories.plugins": str(data / "plugins"),
        # LOAD CSV FROM 'http://…' refuses every address (Neo4j checks resolved IPs against this list).
        "internal.dbms.cypher_ip_blocklist": "0.0.0.0/0,::/0",
        # ── nothing phones home ─────────────────────────────────────────────────────────────────────────────────
        "dbms.usage_report.enabled": "false",
        "client.allow_telemetry": "false",  # Browser's product analytics
        "browser.remote_content_hostname_whitelist": "localhost,127.0.0.1",  # Browser guides from here only
        # ── a full disk is survivable ───────────────────────────────────────────────────────────────────────────
        # A transaction log preallocates 256 MB per file by default: that alone failed a fresh store on 300 MB.
        "db.tx_log.preallocate": "false",
        "db.tx_log.rotation.size": "32m",
        # kg keeps no log-based backups: keep what recovery needs plus one older file, pruned at each checkpoint.
        "db.tx_log.rotation.retention_policy": "2 files",
        "db.checkpoint.interval.volume": "64m",  # checkpoint (and prune) after every 64 MB of log
        # Reserve store space before a commit reaches the log: a full disk then fails that one transaction and
        # turns the database read-only, instead of a half-applied commit that panics it.
        "internal.dbms.out_of_disk_space_protection": "true",
        # The query log would copy every ingested file's text (as parameters) onto the disk.
        "db.logs.query.enabled": "OFF",
        # ── memory ──────────────────────────────────────────────────────────────────────────────────────────────
        "server.memory.pagecache.size": settings.pagecache,
    }


def write_conf(settings: Settings, path: Path) -> None:
    """Neo4j's `key=value` format, one setting a line. Neo4j ends a line at `\n` and at `\r` (and reads other
    escapes), so a value with any control character could smuggle in a setting: refused."""
    lines = ["# Written by kg at every `kg server start` (kg/server/neo4j_config.py); edits here are overwritten."]
    for key, value in neo4j_settings(settings).items():
        if "=" in key or any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in key + value):
            raise ConfigError(f"Neo4j setting {key} would be {value[:60]!r}, with a control character or '=': "
                              f"give a value without one (a data folder path comes from --data-dir or KG_DATA_DIR)")
        lines.append(f"{key}={value}")
    write_private(path, "\n".join(lines) + "\n")
