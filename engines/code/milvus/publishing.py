"""`olai-tui index code --backend milvus --uri URI [--tree NAME] [--collection NAME] [--words-only]
[--rollback | --status | --force]`: publish the tree's symbols to Milvus, roll its pointer back, or list
its versions. The code spec declares these options and this command (engines/registry.py)."""

from __future__ import annotations

from typing import Any, Callable

from engines.contract import Console, Engine
from engines.milvus.command import publish_uri, published_line, rolled_back_line, said, status_lines


def publish_command(open_engine: Callable[[], Engine], options: dict[str, Any], console: Console) -> int:
    """0 done, 1 Milvus refused or failed (one line said), BadInput for arguments that do not go together."""
    uri = publish_uri(options)
    from engines.code.milvus import collection as coll
    from engines.code.milvus import publish as pub
    from engines.milvus.versions import connect

    collection = options.get("collection") or coll.COLLECTION
    engine = open_engine()
    tree = options.get("tree") or coll.tree_name(engine.corpus_label)

    def work() -> int:
        client = connect(uri)
        if options.get("status"):
            for line in status_lines(f"{collection}/{tree}", pub.status(client, collection, tree),
                                     lambda v: f"{v['version']}  {v['count']:,} symbols  {v['published']}  "
                                               f"{v['model_id'] or 'words only'}"):
                console.out(line)
            return 0
        if options.get("rollback"):
            moved = pub.rollback(client, collection, tree)
            console.out(rolled_back_line(f"{collection}/{tree}", moved["version"], moved))
            return 0
        words_only = bool(options.get("words_only"))
        model_id = None if words_only else engine.embedder.info().model_id
        unchanged = None if options.get("force") else pub.published_unchanged(client, collection, tree,
                                                                                engine.symbols, model_id)
        if unchanged:
            console.out(f"{collection}/{tree} -> {unchanged} (unchanged: {len(engine.symbols):,} symbols as "
                        "published; --force publishes anyway)")
            return 0
        vectors = None if words_only else pub.tree_vectors(engine, progress=console.progress("embedding symbols"))
        done = pub.publish_tree(client, engine, tree, collection, vectors,
                                progress=console.progress(f"publishing to {uri}"))
        what = f"{done['count']:,} symbols" + ("" if done["vectors"] else ", words only")
        console.out(published_line(f"{collection}/{tree}", done["version"], what, done))
        return 0

    try:
        return said(console, uri, work)
    finally:
        engine.close()
