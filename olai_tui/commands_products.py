"""`olai-tui index products --backend milvus` and `bench products`: what the products engine does from
the shell beyond the generic search and index (olai_tui/commands.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engines.products.catalogue import CatalogueError
from olai_tui.commands import open_engine
from olai_tui.errors import UsageError, shown
from olai_tui.progress import Progress


def index_products_milvus(corpus: Path, args) -> int:
    """`index products --backend milvus --uri URI [--rollback | --status]`: publish, roll back, list versions."""
    if args.rollback and args.status:
        raise UsageError("--rollback and --status: give one or the other")
    if not args.uri:
        raise UsageError("--uri: the Milvus to publish to is needed (for example http://127.0.0.1:19530)")
    if args.backend != "milvus":
        raise UsageError("--uri/--rollback/--status: add --backend milvus")
    try:
        from engines.products.backends import publish as pub
        from engines.products.backends.router import catalogue_name
    except ImportError:
        raise UsageError("pymilvus is not installed: pip install -e '.[milvus]'") from None
    engine = open_engine("products", corpus, wait_for_index=True)
    alias = pub.alias_for(catalogue_name(engine.catalogue))
    try:
        client = pub.connect(args.uri)
        if args.status:
            state = pub.status(client, alias)
            print(f"{alias} -> {state['current'] or 'nothing published'}")
            for v in state["versions"]:
                print(f"{'*' if v['current'] else ' '} {v['collection']}  {v['count']:,} products  "
                      f"{v['published']}  {v['index_type']}")
            return 0
        if args.rollback:
            moved = pub.rollback(client, alias)
            print(f"{alias} -> {moved['collection']} (was {moved['previous']})")
            return 0
        unchanged = None if getattr(args, "force", False) else _published_unchanged(pub, client, alias, engine, args)
        if unchanged:
            print(unchanged)
            return 0
        vectors = pub.catalogue_vectors(engine, progress=Progress("embedding products"))
        done = pub.publish(client, alias, engine.catalogue, engine.knowledge, engine.index.masks, vectors,
                           engine.vectors.embedder.info().model_id, args.index_type,
                           progress=Progress(f"publishing to {args.uri}"))
    except pub.PublishError as exc:
        print(f"olai-tui: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - a refused connection, a server error: one line, never a traceback
        print(f"olai-tui: {args.uri}: {' '.join(str(exc).split())[:300]}", file=sys.stderr)
        return 1
    finally:
        engine.close()
    print(f"{alias} -> {done['collection']} ({done['count']:,} products in {done['publish_s']} s"
          + (f"; was {done['previous']}" if done["previous"] else "")
          + (f"; dropped {', '.join(done['dropped'])}" if done["dropped"] else "") + ")")
    return 0


def _published_unchanged(pub, client, alias: str, engine, args) -> str | None:
    """The line to print when the version behind the alias already holds these rows (same fingerprint:
    product ids, embedded texts and words), the same model and index type; None when a publish is due."""
    from engines.products.backends.collection import fingerprint

    current = pub.read_pointer(client, alias).current
    if not current:
        return None
    meta = pub.describe(client, current)
    if (meta.get("fingerprint") == fingerprint(engine.catalogue, engine.knowledge)
            and meta.get("model_id") == engine.vectors.embedder.info().model_id
            and meta.get("index_type") == args.index_type):
        return (f"{alias} -> {current} (unchanged: {meta.get('count', len(engine.catalogue)):,} products as published;"
                f" --force publishes anyway)")
    return None


def bench_products(corpus: Path | None, as_json: bool, quick: bool) -> int:
    """The default food catalogue (food dev requests) and, unless --quick, Icecat (its dev queries)."""
    from engines.eval.products_bench import default_queries, icecat_queries, measure
    from engines.locations import demo_corpus as default_corpus, shared_data

    icecat = shared_data() / "products" / "icecat"

    runs: list[tuple[Path, list[str]]] = []
    if corpus is not None:
        if not corpus.exists():
            raise UsageError(f"{shown(str(corpus))}: no such file or directory")
        folder = corpus if corpus.is_dir() else corpus.parent
        runs.append((corpus, icecat_queries(folder) or default_queries()))
    else:
        runs.append((default_corpus("products"), default_queries()))
        if not quick and icecat.is_dir():
            runs.append((icecat, icecat_queries(icecat)))
    results = []
    for path, queries in runs:
        try:
            results.append(measure(path, queries, progress=lambda text: print(f"olai-tui: {text}", file=sys.stderr)))
        except CatalogueError as exc:
            raise UsageError(str(exc)) from None
    if as_json:
        json.dump({"engine": "products", "runs": results}, sys.stdout)
        sys.stdout.write("\n")
        return 0
    print("| catalogue | products | load s | index ms | memory MB | recall p50 ms | recall p90 ms | rules judge p50 ms | queries |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {Path(r['corpus']).name} | {r['products']:,} | {r['load_s']} | {r['index_build_ms']} | "
              f"{r['memory_peak_mb']} | {r.get('recall_p50_ms', '-')} | {r.get('recall_p90_ms', '-')} | "
              f"{r.get('rules_judge_p50_ms', '-')} | {r['queries']} |")
        if r.get("note"):
            print(f"  {r['note']}")
    return 0
