"""The Neo4j 5 Community + OpenGDS server, assembled from Maven Central jars (once).

There is no server tarball on Maven Central, so :func:`install` assembles a NEO4J_HOME:

* ``lib/``     -- ``org.neo4j:neo4j``, ``org.neo4j.app:neo4j-server`` and
  ``org.neo4j.client:neo4j-browser`` with all runtime dependencies (``maven/neo4j/pom.xml``,
  maven-dependency-plugin);
* ``plugins/`` -- one OpenGDS jar shaded from the five GDS modules with third-party packages
  relocated, as GDS's own packaging does (``maven/gds/pom.xml``, maven-shade-plugin);

checked for classes that clash between the two, and a Java 17 (or 21) to run it on.
NEO4J_HOME holds only jars and can be shared; :mod:`.neo4j_local` runs servers from it.
"""

from __future__ import annotations

import fcntl
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from neo4j_retag.config import Settings

MAVEN_DIR = Path(__file__).resolve().parent / "maven"
BROWSER_VERSION = "5.24.0"  # the last Neo4j Browser jar published to Maven Central
MARKER = ".installed.json"
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"
SUPPORTED_JAVA = (17, 21)  # Neo4j 5.26 and GDS 2.13 run on both; 17 is preferred


def classpath(home: Path) -> str:
    return f"{home / 'plugins'}/*{os.pathsep}{home / 'lib'}/*"


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Exclusive inter-process lock (two CLI calls must not install or start twice)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


# --- tools -------------------------------------------------------------------------------

def _mvn() -> str:
    mvn = shutil.which("mvn")
    if not mvn:
        raise RuntimeError("mvn not found: apt-get install maven")
    return mvn


def _java_major(java: str) -> int | None:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r'version "(\d+)', out)
    return int(m.group(1)) if m else None


def java_executable() -> str:
    """A Java 17 (or 21) ``java``: $JAVA_HOME, then /usr/lib/jvm/java-17-*, then PATH.

    Raises RuntimeError when none is found.
    """
    java_home = os.environ.get("JAVA_HOME")
    candidates = [os.path.join(java_home, "bin", "java")] if java_home else []
    candidates += sorted(glob.glob("/usr/lib/jvm/java-17-*/bin/java"))
    candidates += [j for j in [shutil.which("java")] if j]
    candidates += sorted(glob.glob("/usr/lib/jvm/java-21-*/bin/java"))
    for java in candidates:
        if os.access(java, os.X_OK) and _java_major(java) in SUPPORTED_JAVA:
            return java
    raise RuntimeError(
        "java 17 not found: apt-get install openjdk-17-jre-headless (or set JAVA_HOME)")


# --- install -----------------------------------------------------------------------------

def _run_mvn(pom: Path, props: dict[str, str], what: str) -> None:
    cmd = [_mvn(), "-q", "-B", "-ntp", "-Dstyle.color=never", "-f", str(pom), "package",
           *(f"-D{k}={v}" for k, v in props.items())]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        out = "\n".join((res.stdout + res.stderr).splitlines()[-25:])
        raise RuntimeError(f"mvn failed to build {what} (exit {res.returncode}):\n{out}")


def _jar_classes(jar: Path) -> set[str]:
    with zipfile.ZipFile(jar) as zf:
        return {n for n in zf.namelist()
                if n.endswith(".class") and not n.startswith("META-INF/")
                and not n.endswith("module-info.class")}


def check_jars(home: Path) -> None:
    """Fail if a plugin jar duplicates a class that is also in ``lib/`` (a version clash).

    Raises RuntimeError naming the clashing jars.
    """
    lib: dict[str, str] = {}
    for jar in sorted((home / "lib").glob("*.jar")):
        for cls in _jar_classes(jar):
            lib.setdefault(cls, jar.name)
    if not any(c.replace("/", ".") == ENTRY_POINT + ".class" for c in lib):
        raise RuntimeError(f"{ENTRY_POINT} is missing from {home / 'lib'}")
    clashes: dict[tuple[str, str], int] = {}
    for jar in sorted((home / "plugins").glob("*.jar")):
        for cls in _jar_classes(jar) & lib.keys():
            key = (jar.name, lib[cls])
            clashes[key] = clashes.get(key, 0) + 1
    if clashes:
        desc = ", ".join(f"{p} vs lib/{j} ({n} classes)" for (p, j), n in clashes.items())
        raise RuntimeError(f"duplicate classes between plugins/ and lib/: {desc}")


def install(settings: Settings) -> Path:
    """Build ``settings.neo4j_home`` from Maven Central (once; a marker file records success).

    Returns the NEO4J_HOME path. Raises RuntimeError if mvn is missing, an artifact or version
    does not resolve, or the plugin jar clashes with ``lib/``.
    """
    home = settings.neo4j_home
    if (home / MARKER).exists():
        return home
    with file_lock(settings.home / "install.lock"):
        if (home / MARKER).exists():
            return home
        started = time.monotonic()
        staging = home.with_name(home.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        neo4j_version, gds_version = settings.services.neo4j_version, settings.services.gds_version
        try:
            with tempfile.TemporaryDirectory(prefix="mvn-build-", dir=settings.home) as build:
                _run_mvn(MAVEN_DIR / "neo4j" / "pom.xml", {
                    "neo4j.version": neo4j_version, "browser.version": BROWSER_VERSION,
                    "lib.dir": str(staging / "lib"), "build.dir": f"{build}/neo4j",
                }, f"Neo4j {neo4j_version}")
                _run_mvn(MAVEN_DIR / "gds" / "pom.xml", {
                    "gds.version": gds_version,
                    "plugin.jar": str(staging / "plugins" / f"open-gds-{gds_version}.jar"),
                    "build.dir": f"{build}/gds",
                }, f"OpenGDS {gds_version}")
            check_jars(staging)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        jars = list(staging.glob("*/*.jar"))
        (staging / MARKER).write_text(json.dumps({
            "neo4j_version": neo4j_version, "gds_version": gds_version,
            "browser_version": BROWSER_VERSION, "jars": len(jars),
            "jar_bytes": sum(j.stat().st_size for j in jars),
            "install_seconds": round(time.monotonic() - started, 1),
        }, indent=2))
        shutil.rmtree(home, ignore_errors=True)
        staging.rename(home)
    return home
