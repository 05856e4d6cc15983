"""The local embedding model as the benchmarks load it: loaded now, or one line saying why it cannot be.

The faces (`olai-tui bench`, the app benchmark) take it from here, the evaluation's public API, rather
than from engines/embed: what they use of an engine is the contract and the evaluation (issue 23)."""

from __future__ import annotations

from engines.errors import BadInput


def ready_embedder(engine: str = "notes"):
    """The local embedder that engine uses (OLAI_EMBED_MODEL, config.toml), its model loaded; BadInput
    (exit 2 on the command line) naming why it is unavailable and what enables it."""
    from engines.embed.base import EmbedderUnavailable
    from engines.embed.choose import embedder_for

    embedder = embedder_for(engine)
    try:
        embedder.info()
    except EmbedderUnavailable as exc:
        raise BadInput(f"the embedder is unavailable: {exc.reason} (to enable: {exc.enable})") from None
    return embedder
