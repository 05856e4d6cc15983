"""`olai-tui bench notes`: the notes engine's speed, memory and quality, as a table or as JSON.

Corpora: the demo notebook, the olai roadmap and the Vaswani collection (../shared/data/notes), or
one `--corpus` of your own: a note file is benchmarked as the corpora above; a folder as a vault
(opened cold and warm, the evidence tiers, the semantic leg at its size: engines/eval/bench/notes/vault.py).
Each is indexed cold into a throwaway cache, so a run takes a few minutes (the 11,429 Vaswani
abstracts are most of it); `--quick` leaves Vaswani out, and a vault's semantic leg. The vault's
semantic leg is measured on synthetic vectors grown from 1,000 real ones (embedding a large vault
takes hours on two cores; the report says so). Declared for the CLI in engines/eval/bench/__init__.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from engines.errors import BadInput
from engines.eval.emit import corpora_report, emit, machine
from engines.locations import demo_corpus as default_corpus, shared_data

if TYPE_CHECKING:
    from engines.contract import Console

DEMO_QUERIES = [
    "seedlings", "protecting young plants from snails", "jam", "sharpening", "my table in the shed rocks",
    "compost", "keeping blades keen", "copper tape", "rainwater tank leaking at the tap", "varnish",
    "frost", "what to sow in march", "rust on tools", "pickling", "bench vice",
]
ROADMAP_QUERIES = [
    "search", "nix flake", "command palette", "semantic recall", "mobile", "keyboard shortcuts",
    "drag and drop", "undo", "agent chat", "sync between devices", "outline mirrors", "dark theme",
    "export to markdown", "performance of large outlines", "tests in CI",
]


def bench_notes(corpus: Path | None, as_json: bool, quick: bool, console: Console) -> int:
    """`olai-tui bench notes [--corpus PATH] [--quick]`: a folder is benchmarked as a vault."""
    if corpus is not None and corpus.is_dir():
        return bench_vault_command(corpus, as_json, quick, console)
    from engines.eval.vaswani.load import load_vaswani
    from engines.eval.model import ready_embedder
    from engines.eval.bench.notes.measure import bench_corpus, cold_engine

    embedder = ready_embedder("notes")  # OLAI_EMBED_MODEL / config.toml [notes] model

    runs = []
    if corpus is not None:
        runs.append((str(corpus), corpus, None, DEMO_QUERIES, None, None))
    else:
        vaswani_dir = shared_data() / "notes" / "vaswani"
        if not quick and vaswani_dir.is_dir():
            c = load_vaswani(vaswani_dir)
            ids = sorted(c.queries, key=int)
            runs.append(("vaswani", vaswani_dir / "doc-text.trec", c.notes, [c.queries[i] for i in ids], c.judged, ids))
        roadmap = shared_data() / "notes" / "olai-roadmap.jsonl"
        if roadmap.is_file():
            runs.append(("olai-roadmap", roadmap, None, ROADMAP_QUERIES, None, None))
        runs.append(("demo notebook", default_corpus("notes"), None, DEMO_QUERIES, None, None))

    results = []
    for name, root, notes, queries, judged, ids in runs:
        engine, cache = cold_engine(root, embedder, notes=notes)
        try:
            progress = console.progress(f"indexing {name}")
            result = bench_corpus(name, engine, embedder, queries, judged=judged, query_ids=ids,
                                  progress=progress, baseline=(name == "vaswani"))
            progress.finish()
        finally:
            engine.close()
            cache.cleanup()
        results.append(result)

    return emit(corpora_report("notes", embedder.info().model_id, results), as_json, print_report, console.out)


def print_report(report: dict, out: Callable[[str], None]) -> None:
    out(f"olai-tui bench notes · model {report['model']} · {report['machine']['cpus']} CPUs")
    out("")
    out("| corpus | notes | query embed p50/p95 ms | exact p50 ms | semantic leg p50 ms | cold build tokens/s | ms/note | warm rebuild ms (passages) | RSS MB |")
    out("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in report["corpora"]:
        if "cold_build" not in r:
            out(f"| {r['corpus']} | {r['notes']:,} | semantic {r['semantic']['status']}: {r['semantic']['reason']} |")
            continue
        e, b, w = r["query_embedding_ms"], r["cold_build"], r["warm_rebuild_after_one_edit"]
        out(f"| {r['corpus']} | {r['notes']:,} | {e['p50']:.2f} / {e['p95']:.2f} | {r['exact_tier_ms']['p50']:.2f} "
              f"| {r['semantic_leg_ms']['p50']:.2f} | {b['tokens_per_s']:,} | {b['ms_per_note']:.1f} "
              f"| {w['ms']:.0f} ({w['passages_embedded']}) | {r['rss_mb_after_indexing']:.0f} |")
    for r in report["corpora"]:
        base = r.get("cold_build", {}).get("baseline_one_per_call_tokens_per_s")
        if base:
            b = r["cold_build"]
            out(f"\n{r['corpus']}: cold build {b['seconds']:.0f} s for {b['passages']:,} passages / {b['tokens']:,} tokens; "
                  f"batched {b['tokens_per_s']:,} tokens/s against {base:,} tokens/s one text per call "
                  f"(x{b['tokens_per_s'] / base:.2f}, same run)")
        if "quality" in r:
            out(f"\n{r['corpus']} quality ({len(r.get('quality', {}))} configurations, {r['query_embedding_ms']['n']} queries):")
            out("| answer | nDCG@10 | MRR@10 |")
            out("|---|---:|---:|")
            for config, q in r["quality"].items():
                out(f"| {config} | {q['ndcg@10']:.4f} | {q['mrr@10']:.4f} |")


SAMPLE = 1000  # real vectors the synthetic ones are grown from: ~40 s to embed on 2 cores


def bench_vault_command(corpus: Path, as_json: bool, quick: bool, console: Console) -> int:
    """`olai-tui bench notes --corpus DIR`: the vault opened cold and warm; unless --quick, the semantic leg."""
    from engines.eval.bench.notes.meaning_first import meaning_first
    from engines.eval.bench.notes.vault import VAULT_QUERIES, bench_vault, semantic_leg

    waiting = console.waiting("notes")
    try:
        waiting(0, 2, "opening the vault cold, then warm")
        report = {"engine": "notes", "machine": machine(),
                  "vault": bench_vault(corpus)}
        if not quick:
            waiting(1, 3, "embedding a sample, then the semantic leg")
            report["semantic_leg"] = semantic_leg(corpus, report["vault"]["notes"], VAULT_QUERIES, SAMPLE)
            waiting(2, 3, "meaning first: static vectors on a cold cache, then the model's build")
            report["meaning_first"] = meaning_first(corpus)
    except RuntimeError as exc:
        raise BadInput(str(exc)) from None
    finally:
        waiting.clear()
    return emit(report, as_json, print_vault_report, console.out)


def print_vault_report(report: dict, out: Callable[[str], None]) -> None:
    v = report["vault"]
    out(f"olai-tui bench notes --corpus {v['corpus']} · {v['notes']:,} notes · {report['machine']['cpus']} CPUs")
    out("")
    out("| open | open s (CPU s) | first exact ms | first words ms after open | exact p50/p90 ms | words p50/p90 ms "
          "| RSS MB | index written s |")
    out("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in ("cold", "warm"):
        o = v[name]
        e, w = o["query_ms"]["exact"], o["query_ms"]["words"]
        out(f"| {name} | {o['open_s']:.2f} ({o['open_cpu_s']:.2f}) | {o['first_exact_ms']:.0f} | {o['first_words_ms_after_open']:.0f} "
              f"| {e['p50']:.1f} / {e['p90']:.1f} | {w['p50']:.1f} / {w['p90']:.1f} | {o['rss_mb']:.0f} "
              f"| {o.get('saved_s', 0):.2f} |")
    edit = v["warm"]["edit_one_file_ms"]
    out(f"\nindex on disk: {v['index_bytes'] / 1e6:.1f} MB; one edited file (notes replaced, words answer from "
          f"the new text): {edit['ms']:.0f} ms ({edit['cpu_ms']:.0f} ms CPU)")
    for name in ("cold", "warm"):
        for notice in v[name].get("notices", []):
            out(f"{name}: {notice}")
    leg = report.get("semantic_leg")
    if leg and "layouts" in leg:
        out(f"\nsemantic leg on {leg['vectors']:,} synthetic vectors grown from {leg['real_sample']:,} real ones "
              f"({leg['model']}; {leg['queries']} real queries; not an embedded vault):")
        out("| layout | MB | score + order p50 / p90 ms | CPU p50 ms | recall@10 vs fp32 |")
        out("|---|---:|---:|---:|---:|")
        for name, m in leg["layouts"].items():
            recall = "-" if m["recall@10"] is None else f"{m['recall@10']:.4f}"
            out(f"| {name} | {m['mb']:.1f} | {m['p50_ms']:.2f} / {m['p90_ms']:.2f} | {m['cpu_p50_ms']:.2f} | {recall} |")
        e = leg.get("engine")
        if e:
            out(f"\nthe engine's semantic leg (SemanticIndex on the grown vectors: {e['notes']:,} notes, "
                f"{e['vectors']:,} vectors, {e['vector_mb']:.1f} MB fp32, built in {e['build_s']:.1f} s): p50 / p90 "
                f"{e['p50_ms']:.2f} / {e['p90_ms']:.2f} ms, CPU p50 {e['cpu_p50_ms']:.2f} ms, exhaustive "
                f"(its head against every note sorted: recall@10 {e['recall@10']:.4f})")
    elif leg:
        out(f"\nsemantic leg: {leg['status']}: {leg.get('reason')}")
    if report.get("meaning_first"):
        from engines.eval.bench.notes.meaning_first import print_meaning_first

        print_meaning_first(report["meaning_first"], out)
