"""`olai-tui bench notes --corpus DIR`: a vault opened cold and warm, its evidence tiers, and the
semantic leg's search at its size (engines/eval/vault_bench.py, engines/eval/vector_search.py).

The semantic leg is measured on synthetic vectors grown from 1,000 real ones (embedding a large vault
takes hours on two cores; the report says so); ``--quick`` leaves it out.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

from olai_tui.emit import emit
from olai_tui.errors import UsageError
from olai_tui.progress import WaitLine

SAMPLE = 1000  # real vectors the synthetic ones are grown from: ~40 s to embed on 2 cores


def bench_vault_command(corpus: Path, as_json: bool, quick: bool) -> int:
    from engines.eval.vault_bench import VAULT_QUERIES, bench_vault, semantic_leg

    waiting = WaitLine("notes")
    try:
        waiting(0, 2, "opening the vault cold, then warm")
        report = {"engine": "notes", "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
                  "vault": bench_vault(corpus)}
        if not quick:
            waiting(1, 2, "embedding a sample, then the semantic leg")
            report["semantic_leg"] = semantic_leg(corpus, report["vault"]["notes"], VAULT_QUERIES, SAMPLE)
    except RuntimeError as exc:
        raise UsageError(str(exc)) from None
    finally:
        waiting.clear()
    return emit(report, as_json, print_vault_report)


def print_vault_report(report: dict) -> None:
    v = report["vault"]
    print(f"olai-tui bench notes --corpus {v['corpus']} · {v['notes']:,} notes · {report['machine']['cpus']} CPUs")
    print()
    print("| open | open s (CPU s) | first exact ms | first words ms after open | exact p50/p90 ms | words p50/p90 ms "
          "| RSS MB | index written s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in ("cold", "warm"):
        o = v[name]
        e, w = o["query_ms"]["exact"], o["query_ms"]["words"]
        print(f"| {name} | {o['open_s']:.2f} ({o['open_cpu_s']:.2f}) | {o['first_exact_ms']:.0f} | {o['first_words_ms_after_open']:.0f} "
              f"| {e['p50']:.1f} / {e['p90']:.1f} | {w['p50']:.1f} / {w['p90']:.1f} | {o['rss_mb']:.0f} "
              f"| {o.get('saved_s', 0):.2f} |")
    edit = v["warm"]["edit_one_file_ms"]
    print(f"\nindex on disk: {v['index_bytes'] / 1e6:.1f} MB; one edited file (notes replaced, words answer from "
          f"the new text): {edit['ms']:.0f} ms ({edit['cpu_ms']:.0f} ms CPU)")
    for name in ("cold", "warm"):
        for notice in v[name].get("notices", []):
            print(f"{name}: {notice}")
    leg = report.get("semantic_leg")
    if leg and "layouts" in leg:
        print(f"\nsemantic leg on {leg['vectors']:,} synthetic vectors grown from {leg['real_sample']:,} real ones "
              f"({leg['model']}; {leg['queries']} real queries; not an embedded vault):")
        print("| layout | MB | score + order p50 / p90 ms | CPU p50 ms | recall@10 vs fp32 |")
        print("|---|---:|---:|---:|---:|")
        for name, m in leg["layouts"].items():
            recall = "-" if m["recall@10"] is None else f"{m['recall@10']:.4f}"
            print(f"| {name} | {m['mb']:.1f} | {m['p50_ms']:.2f} / {m['p90_ms']:.2f} | {m['cpu_p50_ms']:.2f} | {recall} |")
    elif leg:
        print(f"\nsemantic leg: {leg['status']}: {leg.get('reason')}")
