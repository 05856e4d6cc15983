"""`olai-tui index products --backend milvus --uri URI [--rollback | --status]`: publish the catalogue
to Milvus, roll the alias back, or list the published versions. The products spec declares these
options and this command (engines/registry.py), so a face runs it without naming the engine; what it
prints goes through the :class:`~engines.contract.Console` the face gives."""

from __future__ import annotations

from typing import Any, Callable

from engines.contract import Console, Engine
from engines.milvus.command import publish_uri, published_line, rolled_back_line, said, status_lines


def publish_command(open_engine: Callable[[], Engine], options: dict[str, Any], console: Console) -> int:
    """0 done, 1 Milvus refused or failed (one line said), BadInput for arguments that do not go together."""
    uri, index_type = publish_uri(options), options.get("index_type") or "FLAT"
    from engines.products.backends import publish as pub
    from engines.products.backends.router import catalogue_name

    engine = open_engine()
    alias = pub.alias_for(catalogue_name(engine.catalogue))

    def work() -> int:
        client = pub.connect(uri)
        if options.get("status"):
            for line in status_lines(alias, pub.status(client, alias),
                                     lambda v: f"{v['collection']}  {v['count']:,} products  {v['published']}  "
                                               f"{v['index_type']}"):
                console.out(line)
            return 0
        if options.get("rollback"):
            moved = pub.rollback(client, alias)
            console.out(rolled_back_line(alias, moved["collection"], moved))
            return 0
        unchanged = None if options.get("force") else pub.published_unchanged(client, alias, engine, index_type)
        if unchanged:
            console.out(f"{alias} -> {unchanged} (unchanged: {len(engine.catalogue):,} products as published;"
                        f" --force publishes anyway)")
            return 0
        vectors = pub.catalogue_vectors(engine, progress=console.progress("embedding products"))
        done = pub.publish(client, alias, engine.catalogue, engine.knowledge, engine.index.masks, vectors,
                           engine.vectors.embedder.info().model_id, index_type,
                           progress=console.progress(f"publishing to {uri}"))
        console.out(published_line(alias, done["collection"], f"{done['count']:,} products", done))
        return 0

    try:
        return said(console, uri, work)
    finally:
        engine.close()
