"""`olai-tui search products`, `index products` and `bench products`: the products engine from the shell."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from engines.products.catalogue import CatalogueError
from olai_tui.errors import UsageError, shown
from olai_tui.progress import Progress


def open_products(corpus: Path, wait_for_index: bool = True, judge=None):
    from engines.products.engine import ProductsEngine

    try:
        engine = ProductsEngine(corpus, wait_for_index=wait_for_index, judge=judge)
    except CatalogueError as exc:
        raise UsageError(str(exc)) from None
    except (OSError, ValueError) as exc:  # the knowledge map beside a catalogue is unreadable or malformed
        raise UsageError(f"{shown(str(corpus))}: {exc}") from None
    skipped = engine.problems
    for problem in skipped[:5]:  # each bad line named; the good ones are still searched
        print(f"olai-tui: skipped {problem}", file=sys.stderr)
    if len(skipped) > 5:
        print(f"olai-tui: skipped {len(skipped) - 5} more lines ({len(skipped)} in all)", file=sys.stderr)
    return engine


def search_products(query: str, corpus: Path, limit: int, tiers: str | None, as_json: bool) -> int:
    from engines.products.engine import parse_tiers
    from engines.products.http_judge import judge_from_config

    try:
        wanted = parse_tiers(tiers)
    except ValueError as exc:
        raise UsageError(f"--tiers: {exc}") from None
    judge, problem = judge_from_config()
    if problem:
        print(f"olai-tui: {problem}", file=sys.stderr)
    engine = open_products(corpus, judge=judge)
    try:
        from engines.products.backends.router import router_from_config

        engine.router, problem = router_from_config(engine)
        if problem:
            print(f"olai-tui: {problem}", file=sys.stderr)
        answer = engine.answer(query, limit=limit, tiers=wanted)
    finally:
        engine.close()
    if as_json:
        json.dump(answer.to_json(), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print_products(answer)
    return 0


def index_products(corpus: Path) -> int:
    engine = open_products(corpus)
    progress = Progress("embedding products")
    state = engine.build_index(progress=progress)
    if state.state == "ready":
        progress.finish(f"{state.of:,} products, {len(engine.vectors.embedded_texts):,} embedded now")
        return 0
    print(f"olai-tui: product vectors {state.state}: {state.reason}"
          + (f" (to enable: {state.enable})" if state.enable else ""), file=sys.stderr)
    return 1


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
    engine = open_products(corpus)
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


BADGES = {"exact": "=", "variant": "~", "standin": "»", None: " "}


def print_products(answer, stream=None) -> None:
    out = stream or sys.stdout
    u = answer.extras.get("understood", {})
    read = [f"{k}: {', '.join(v) if isinstance(v, list) else v}" for k, v in u.items() if v and k != "notes"]
    print("understood: " + ("; ".join(read) or "nothing"), file=out)
    for note in u.get("notes", []):
        print(f"  note: {note}", file=out)
    flags = answer.extras.get("flags", [])
    if "not_sold" in flags:
        print("we do not sell that" + (" - instead:" if "only_standins" in flags else ""), file=out)
    for hit in answer.hits:
        label = hit.extras.get("label")
        title = " ".join(hit.title.split())[:56]
        print(f"{BADGES.get(label, ' ')} {hit.marker or ' '} {title:<56} {(label or hit.tier):<8} "
              f"{hit.extras.get('quantity') or '':>10}  {', '.join(hit.extras.get('checks', []))[:60]}", file=out)
    if not answer.hits:
        print("(no products)", file=out)
    chips = [f"{t.name}: {t.status}" + (f" {t.ms:.1f} ms" if t.ms is not None else "") for t in answer.tiers]
    if answer.extras.get("recall_backend"):
        chips.append(f"recall via {answer.extras['recall_backend']}"
                     + (f" ({answer.extras['recall_fallback']})" if answer.extras.get("recall_fallback") else ""))
    line = " · ".join(chips) + f" · path {answer.extras.get('path')}" + (f" ({answer.extras['reason']})"
                                                                          if answer.extras.get("reason") else "")
    bold = out.isatty() and not os.environ.get("NO_COLOR") if hasattr(out, "isatty") else False
    print(f"\x1b[1m{line}\x1b[0m" if bold else line, file=out)


SHARED_ICECAT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "products" / "icecat"


def bench_products(corpus: Path | None, as_json: bool, quick: bool) -> int:
    """The default food catalogue (food dev requests) and, unless --quick, Icecat (its dev queries)."""
    from engines.eval.products_bench import default_queries, icecat_queries, measure
    from engines.locations import demo_corpus as default_corpus

    runs: list[tuple[Path, list[str]]] = []
    if corpus is not None:
        if not corpus.exists():
            raise UsageError(f"{shown(str(corpus))}: no such file or directory")
        folder = corpus if corpus.is_dir() else corpus.parent
        runs.append((corpus, icecat_queries(folder) or default_queries()))
    else:
        runs.append((default_corpus("products"), default_queries()))
        if not quick and SHARED_ICECAT.is_dir():
            runs.append((SHARED_ICECAT, icecat_queries(SHARED_ICECAT)))
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
