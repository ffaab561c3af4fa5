"""CLI: `config`, `doctor`, and the local services (`neo4j ...`, `llm ...`, `up`, `down`)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..config import Settings
from ..errors import ConfigError
from .common import Ctx, Table, console, friendly


@click.command("config")
@click.option("--write-page", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              hidden=True, help="write the settings' rows of this page (docs/configuration.md) "
              "from their descriptions")
@click.pass_obj
@friendly
def config_cmd(obj: Ctx, write_page: Path | None) -> None:
    """Show the effective settings (secrets masked), the query methods' own included."""
    from ..query.registry import SETTINGS
    if write_page is not None:  # the maintainers' command: the page follows the code
        from ..config.page import rewrite
        write_page.write_text(rewrite(write_page.read_text(), SETTINGS))
        console.print(f"{write_page}: the settings' rows written", highlight=False)
        return
    table = Table("setting", "value")
    for k, v in obj.settings.masked(SETTINGS).items():
        table.add_row(k, v)
    console.print(table)


# --- services ---------------------------------------------------------------------------

def _service_group(name: str, doc: str, module: str, remote_setting: str,
                   remote_value: Callable[[Settings], str | None]) -> click.Group:
    """`neo4j-retag <name> start|stop|status` for one local service module in .server;
    ``remote_value`` reads ``remote_setting``, which names a remote service to use instead."""

    def service() -> Any:
        return importlib.import_module(f"neo4j_retag.services.{module}")

    group = click.Group(name, help=doc)

    @group.command("start")
    @click.pass_obj
    @friendly
    def start(obj: Ctx) -> None:
        """Start it (fetching what it needs first) and wait until it answers."""
        remote = remote_value(obj.settings)
        if remote:
            raise ConfigError(f"{remote_setting} is set ({remote}): nothing to start")
        console.print_json(data=service().start(obj.settings), default=str)

    @group.command("stop")
    @click.pass_obj
    @friendly
    def stop(obj: Ctx) -> None:
        """Stop it cleanly."""
        console.print("stopped" if service().stop(obj.settings) else "not running")

    @group.command("status")
    @click.pass_obj
    @friendly
    def status(obj: Ctx) -> None:
        """What runs where."""
        console.print_json(data=service().status(obj.settings), default=str)

    return group


neo4j = _service_group(
    "neo4j", "The local Neo4j 5 + GDS server (fetched from Maven Central, run with Java 17).",
    "neo4j_local", "NEO4J_URI", lambda s: s.neo4j.uri)
llm = _service_group("llm", "The local OpenAI-compatible LLM server (llama.cpp's server with "
                     "LLM_MODEL: Qwen2.5-Coder-1.5B-Instruct by default, SmolLM2-135M-Instruct; "
                     "or the GGUF in LLM_MODEL_PATH).", "llm_local",
                     "OPENAI_BASE_URL", lambda s: s.llm.base_url)

@click.group("embed")
def embed() -> None:
    """The local embedding model: all-MiniLM-L6-v2 (int8 ONNX, from pinned PyPI wheels), run
    in process by whatever embeds (`ingest`, `ask`, `serve`); no server to start."""


@embed.command("status")
@click.pass_obj
@friendly
def embed_status(obj: Ctx) -> None:
    """Where embeddings are made, and the local model's files (installed and verified, or
    the problem); non-zero exit when the local model is used and a file has a problem."""
    from ..llm import embed_files
    s = obj.settings
    local = s.embedding.local(s.llm)
    files = embed_files.files()
    console.print_json(data={"in_process": local, "endpoint": s.embedding.endpoint(s.llm),
                             "model": s.embedding.model, "files": files}, default=str)
    if local and any(v.startswith("problem:") for v in files.values()):
        sys.exit(1)



@llm.command("fetch")
@click.argument("name", type=click.Choice(["qwen2.5-coder-1.5b"]))
@click.option("--force", is_flag=True, help="download and assemble again")
@click.pass_obj
@friendly
def llm_fetch(obj: Ctx, name: str, force: bool) -> None:
    """Assemble the local model from PyPI wheels into the cache, kept only if its SHA-256 is
    that of the official release (qwen2.5-coder-1.5b: Qwen2.5-Coder-1.5B-Instruct Q4_K_M,
    1.1 GB, Apache-2.0; the default LLM_MODEL; scripts/setup.sh fetches it)."""
    from ..services import llm_fetch as fetcher
    path = fetcher.fetch(obj.settings, name, force=force)
    console.print(f"verified {path} (sha256 {fetcher.MODELS[name].sha256[:16]}...): the "
                  f"local server runs it (LLM_MODEL={name}, the default)",
                  highlight=False, soft_wrap=True)


@neo4j.command("install")
@click.pass_obj
@friendly
def neo4j_install(obj: Ctx) -> None:
    """Fetch Neo4j, Browser and GDS from Maven Central into the cache (idempotent)."""
    from ..services import neo4j_install
    console.print(f"installed in {neo4j_install.install(obj.settings)}")


@click.command()
@click.pass_obj
@friendly
def up(obj: Ctx) -> None:
    """Start whatever local services the settings need (Neo4j + GDS, the LLM, embeddings)."""
    from ..services import llm_local, neo4j_local
    if obj.settings.neo4j.local:
        info = neo4j_local.start(obj.settings)
        console.print(f"Neo4j + GDS: {info.get('bolt_uri')}  Browser: {info.get('browser_url')}")
    if obj.settings.llm.local:
        info = llm_local.start(obj.settings)
        console.print(f"LLM: {info.get('base_url')}  model: {info.get('model')}")
    if obj.settings.embedding.enabled and obj.settings.embedding.local(obj.settings.llm):
        from ..llm import embed_files
        try:  # a missing or altered file stops here, not at the ingest
            for f in (embed_files.MODEL, embed_files.TOKENIZER):
                embed_files.verify(f)
        except RuntimeError as err:
            raise ConfigError(str(err)) from err
        console.print(f"embeddings: in process, model: {embed_files.ALIAS} (files verified)")


@click.command()
@click.pass_obj
@friendly
def down(obj: Ctx) -> None:
    """Stop the local services."""
    from ..services import llm_local, neo4j_local
    llm_local.stop(obj.settings)
    neo4j_local.stop(obj.settings)
    console.print("stopped")


@click.command()
@click.pass_obj
@friendly
def doctor(obj: Ctx) -> None:
    """Check Neo4j, GDS, indexes, the LLM endpoint and the tokenizer; non-zero exit on failure."""
    from ..ops.doctor import run_checks
    checks = run_checks(obj.settings)
    table = Table("check", "ok", "detail")
    for c in checks:
        said = c.ok and not c.warn  # a warning is told with its fix, as a failure is
        table.add_row(c.name, "[red]NO[/red]" if not c.ok else
                      "[yellow]slow[/yellow]" if c.warn else "[green]yes[/green]",
                      # a detail that names its fix already is not told it twice
                      c.detail if said or not c.fix or c.fix in c.detail
                      else f"{c.detail}\n[yellow]fix:[/yellow] {c.fix}")
    console.print(table)
    if not all(c.ok for c in checks):
        sys.exit(1)
