"""A local Neo4j 5 Community server with OpenGDS (assembled by :mod:`.neo4j_install`), run on
Java 17.

NEO4J_HOME holds only jars and can be shared. Everything mutable lives in the data folder
(``settings.neo4j_data_dir``, default ``<home>/neo4j-data``): ``conf/neo4j.conf`` (rewritten from
:class:`Settings` on every :func:`start`), ``data/``, ``logs/``, ``neo4j.pid`` and the generated
``password``; so several servers (other ports, other data folder) can run from one NEO4J_HOME and
data survives a version change. The server listens on 127.0.0.1 only.
"""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path

import neo4j
from neo4j.exceptions import ClientError, DriverError, Neo4jError

from neo4j_retag.config import Settings
from neo4j_retag.services import process
from neo4j_retag.services.neo4j_install import (
    ADMIN_TOOL,
    ENTRY_POINT,
    MARKER,
    classpath,
    file_lock,
    install,
    java_executable,
)

JVM_FLAGS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    *(
        f"--add-opens=java.base/{pkg}=ALL-UNNAMED"
        for pkg in ("java.lang", "java.lang.invoke", "java.nio", "java.io", "sun.nio.ch",
                    "java.util.stream")
    ),
]


# --- paths -------------------------------------------------------------------------------

def data_dir(settings: Settings) -> Path:
    """Per-server state: ``conf/``, ``data/``, ``logs/``, ``neo4j.pid``, ``password``."""
    return settings.neo4j_data_dir


def _pid_file(settings: Settings) -> Path:
    return data_dir(settings) / "neo4j.pid"


def _log_file(settings: Settings) -> Path:
    return data_dir(settings) / "logs" / "console.log"


def _conf_dir(settings: Settings) -> Path:
    return data_dir(settings) / "conf"


# --- configuration and password ----------------------------------------------------------

def write_conf(settings: Settings) -> Path:
    """Write ``<data dir>/conf/neo4j.conf`` from settings; returns its path."""
    home, data = settings.neo4j_home, data_dir(settings)
    bolt, http = settings.neo4j.bolt_port, settings.neo4j.http_port
    conf = {
        "server.default_listen_address": "127.0.0.1",
        "server.default_advertised_address": "127.0.0.1",
        "server.bolt.listen_address": f"127.0.0.1:{bolt}",
        "server.bolt.advertised_address": f"127.0.0.1:{bolt}",  # what the Browser connects to
        "server.http.listen_address": f"127.0.0.1:{http}",
        "server.http.advertised_address": f"127.0.0.1:{http}",
        "server.https.enabled": "false",
        "server.directories.data": data / "data",
        "server.directories.logs": data / "logs",
        "server.directories.import": data / "import",
        "server.directories.run": data / "run",
        "server.directories.plugins": home / "plugins",
        "dbms.security.procedures.unrestricted": "gds.*",
        "server.memory.heap.initial_size": settings.services.neo4j_heap,
        "server.memory.heap.max_size": settings.services.neo4j_heap,
        "server.memory.pagecache.size": settings.services.neo4j_pagecache,
        "dbms.usage_report.enabled": "false",
        "client.allow_telemetry": "false",
        # Community has no browser.allow_outgoing_connections (Enterprise only; strict config
        # validation rejects it); restricting remote content to localhost is the closest.
        "browser.remote_content_hostname_whitelist": "localhost",
    }
    if settings.services.neo4j_tx_memory:
        conf["db.memory.transaction.max"] = settings.services.neo4j_tx_memory
    path = _conf_dir(settings) / "neo4j.conf"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# written by neo4j_retag.services.neo4j_local; edits are overwritten\n"
                    + "".join(f"{k}={v}\n" for k, v in conf.items()))
    return path


def _env(settings: Settings) -> dict[str, str]:
    return {"NEO4J_HOME": str(settings.neo4j_home), "NEO4J_CONF": str(_conf_dir(settings))}


def _ensure_password(settings: Settings, java: str) -> None:
    """First start only: generate a password, store it 0600, set it with neo4j-admin."""
    pw_file = settings.password_file
    if pw_file.exists():
        return
    if (data_dir(settings) / "data" / "databases" / "system").exists():
        raise RuntimeError(
            f"{pw_file} is missing but {data_dir(settings)} already holds a database, so a new "
            "initial password would not take effect; restore the file or delete the data dir")
    password = new_password()
    pw_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(pw_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(password + "\n")
    os.chmod(pw_file, 0o600)
    res = subprocess.run(
        [java, "-cp", classpath(settings.neo4j_home), ADMIN_TOOL, "dbms",
         "set-initial-password", password],
        capture_output=True, text=True, env={**os.environ, **_env(settings)},
        cwd=settings.neo4j_home,
    )
    if res.returncode != 0:
        pw_file.unlink(missing_ok=True)
        raise RuntimeError(f"neo4j-admin dbms set-initial-password failed:\n"
                           f"{(res.stdout + res.stderr)[-3000:]}")


def new_password() -> str:
    """A random initial password (32 URL-safe characters) that does not start with "-":
    neo4j-admin would read one that does as an option and fail the start ("Missing required
    parameter: '<password>'"), once in 64 fresh data folders."""
    while True:
        password = secrets.token_urlsafe(24)
        if not password.startswith("-"):
            return password


# --- probing -----------------------------------------------------------------------------

def _urls(settings: Settings) -> dict[str, str]:
    http = f"http://127.0.0.1:{settings.neo4j.http_port}"
    return {"bolt_uri": f"bolt://127.0.0.1:{settings.neo4j.bolt_port}", "http_url": http,
            "browser_url": f"{http}/browser/"}


def _versions(settings: Settings) -> dict[str, str] | None:
    """Neo4j + GDS versions from the server, None while it is not ready.

    Raises RuntimeError on a wrong password or a missing GDS plugin (waiting would not help).
    """
    if not settings.password_file.exists():
        return None
    auth = (settings.neo4j.username, settings.password_file.read_text().strip())
    try:
        with (neo4j.GraphDatabase.driver(_urls(settings)["bolt_uri"], auth=auth,
                                         connection_timeout=3.0) as driver,
              driver.session() as session):  # session.run: one try, no retry loop
            rec = session.run(
                "CALL dbms.components() YIELD versions, edition "
                "RETURN versions[0] AS neo4j, edition, gds.version() AS gds").single(strict=True)
    except ClientError as exc:  # includes AuthError; the server answered, so this is final
        if exc.code == "Neo.ClientError.Database.DatabaseNotFound":
            return None  # default database not created yet
        raise RuntimeError(f"Neo4j answered with an error ({exc.code}): {exc.message}; "
                           f"password file {settings.password_file}") from exc
    except (DriverError, Neo4jError, OSError):
        return None  # not up yet, database still starting, ...
    return {"neo4j_version": rec["neo4j"], "edition": rec["edition"], "gds_version": rec["gds"]}


# --- public API --------------------------------------------------------------------------

def status(settings: Settings) -> dict[str, object]:
    """Whether the local server runs, its pid, ports, and versions if it answers.

    Never raises for a stopped or unreachable server (``ready`` is then False).
    """
    pid = process.read_pid(_pid_file(settings))
    info: dict[str, object] = {
        "running": pid is not None, "ready": False, "pid": pid, **_urls(settings),
        "bolt_port": settings.neo4j.bolt_port, "http_port": settings.neo4j.http_port,
        "neo4j_version": None, "gds_version": None, "edition": None,
        "installed": (settings.neo4j_home / MARKER).exists(),
        "home": str(settings.neo4j_home), "data_dir": str(data_dir(settings)),
        "log_file": str(_log_file(settings)), "conf_file": str(_conf_dir(settings) / "neo4j.conf"),
    }
    if pid is not None:
        try:
            versions = _versions(settings)
        except RuntimeError as exc:
            info["error"] = str(exc)
            versions = None
        if versions:
            info.update(versions, ready=True)
    return info


def start(settings: Settings, timeout: float = 240) -> dict[str, object]:
    """Install if needed, then start the server and wait until ``RETURN gds.version()`` answers.

    Returns :func:`status` (bolt_uri, http_url, browser_url, pid, versions, home, data_dir ...).
    A server already running from this data folder is left alone (only waited for). Raises
    RuntimeError when NEO4J_URI points elsewhere, mvn or Java 17 is missing, install fails, the
    password is rejected, or the server exits or is not ready within ``timeout`` seconds (a
    server this call spawned is then stopped; the message carries the log tail).
    """
    if not settings.neo4j.local:
        raise RuntimeError(f"NEO4J_URI is set ({settings.neo4j.uri}); unset it to use the "
                           "local server")
    pid_file, log_file = _pid_file(settings), _log_file(settings)
    with file_lock(data_dir(settings) / "start.lock"):
        running = process.read_pid(pid_file)
        if running is None:
            home = install(settings)
            java = java_executable()
            write_conf(settings)
            _ensure_password(settings, java)
            heap = settings.services.neo4j_heap
            cmd = [java, f"-Xms{heap}", f"-Xmx{heap}", *JVM_FLAGS,
                   "-cp", classpath(home), ENTRY_POINT, f"--home-dir={home}",
                   f"--config-dir={_conf_dir(settings)}", "--console-mode"]
            process.spawn(cmd, pid_file, log_file, env=_env(settings), cwd=home)
        try:
            process.wait_until(lambda: _versions(settings) is not None, timeout, pid_file,
                               log_file, "Neo4j")
        except RuntimeError as exc:
            if running is None:
                process.stop(pid_file)  # ours and broken: do not leave it half-started
                raise
            raise RuntimeError(
                f"Neo4j pid {running} (data {data_dir(settings)}) is running but does not answer "
                f"on bolt port {settings.neo4j.bolt_port}; was it started with other ports? "
                f"Stop it first.\n{exc}") from exc
    return status(settings)


def stop(settings: Settings, timeout: float = 120) -> bool:
    """Clean shutdown (SIGTERM, SIGKILL after ``timeout`` s). True if a server was running."""
    return process.stop(_pid_file(settings), timeout=timeout)
