"""`olai-tui eval code --dataset semble`: semble's code-search benchmark, scored as its README says.

Reads the arguments, chooses the repositories and their annotation files, runs engines/eval/semble/run.py
over each repository with progress, and gives the tables (or one JSON object) to the face's console.
Declared as the code engine's ``semble`` dataset, with its own runner (engines/eval/suite.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from engines.errors import BadInput, shown
from engines.locations import shared_data

if TYPE_CHECKING:
    from engines.contract import Console

PEERS = (("ripgrep", "ripgrep"), ("bm25_raw", "BM25 raw"), ("ck", "ck --hybrid"), ("colgrep", "ColGREP"),
         ("coderankembed", "CodeRankEmbed"), ("semble_bm25_plus_ranking", "semble BM25 + ranking"),
         ("semble_hybrid", "semble hybrid"), ("coderankembed_hybrid", "CodeRankEmbed hybrid"))


def choose(data: Path, split: str, queries_dir: str | None, repos: str | None, say):
    """(repositories with their queries, in order) for the split; BadInput names a bad file or name."""
    from engines.eval.semble.load import SembleError, load_queries, load_repos

    try:
        known = load_repos(data)
    except SembleError as exc:
        raise BadInput(str(exc)) from None
    folder = Path(queries_dir) if queries_dir is not None else None
    if folder is not None and not folder.is_dir():
        raise BadInput(f"--queries: {shown(queries_dir)}: no such folder")
    wanted = [r.strip() for r in repos.split(",") if r.strip()] if repos is not None else None
    if wanted is not None:
        if not wanted:
            raise BadInput("--repos: no repository named (give NAME[,NAME...])")
        unknown = [r for r in wanted if r not in known]
        if unknown:
            raise BadInput(f"--repos: unknown repository {unknown[0]!r} (the 63 are listed in {data / 'repos.json'})")
    splits = ("dev", "heldout") if split == "both" else (split,)
    chosen = {s: [] for s in splits}
    for s in splits:
        names = [n for n, r in known.items() if r.split == s and (wanted is None or n in wanted)]
        missing = []
        for name in names:
            own = folder / f"{name}.json" if folder is not None else None
            if own is not None and own.is_file():
                path = own
            elif s == "dev":
                path = data / "annotations" / f"{name}.json"
            else:
                missing.append(name)
                continue
            try:
                chosen[s].append((known[name], load_queries(path, name)))
            except SembleError as exc:
                raise BadInput(str(exc)) from None
        if s == "heldout" and missing:
            if folder is None:
                say(f"heldout: no queries for its {len(missing)} repositories here (they are kept apart); "
                    f"give --queries DIR with <repo>.json files to score them")
            else:
                say(f"heldout: no <repo>.json in {shown(str(folder))} for {', '.join(missing)}: not scored")
    return chosen


def evaluate_semble(configs: str | None, split: str, fresh: bool, queries: str | None, as_json: bool,
                    console: Console, repos: str | None = None) -> int:
    """Each repository of the split, its table; ``fresh`` is not read: semble's answers are not cached."""
    from engines.eval.semble.load import load_peers
    from engines.eval.semble.run import CONFIGS, DEFAULT_CONFIGS, run_repo, summary

    data, say, queries_dir = shared_data() / "code" / "semble", console.say, queries
    names = [c.strip() for c in configs.split(",") if c.strip()] if configs else list(DEFAULT_CONFIGS)
    unknown = [c for c in names if c not in CONFIGS]
    if unknown:
        raise BadInput(f"--configs: unknown configuration {unknown[0]!r} (known: {', '.join(CONFIGS)})")
    if not names:
        raise BadInput("--configs: nothing left to run")
    if not (data / "repos.json").is_file():
        raise BadInput(f"{data / 'repos.json'}: no such file (the semble benchmark is not staged)")
    chosen = choose(data, split, queries_dir, repos, say)
    if not configs:
        say("embedding and fused are not run by default: they embed every chunk (the 42 dev repositories' "
            "112,047: 90 minutes on 2 cores with engines/eval/semble/embed.py, cached after); add them with --configs")
    peers = load_peers(data)
    out = {"engine": "code", "dataset": "semble", "split": split, "configs": {}, "requests": [],
           "per_repo": {}, "per_language": {}, "per_category": {}}
    text = []
    for s, pairs in chosen.items():
        if not pairs:
            continue
        results = []
        for n, (repo, queries) in enumerate(pairs, 1):
            say(f"{s} {n}/{len(pairs)}: {repo.name} ({repo.language}, {len(queries)} queries)")
            results.append(run_repo(repo, queries, names, progress=console.progress(f"embedding {repo.name}")))
        table = summary(results, names)
        if split == "both":
            for c, m in table["metrics"].items():
                out["configs"].setdefault(c, {"metrics": {}})["metrics"][s] = m
            out["per_language"][s], out["per_category"][s] = table["per_language"], table["per_category"]
        else:
            out["configs"] = {c: {"metrics": m} for c, m in table["metrics"].items()}
            out["per_language"], out["per_category"] = table["per_language"], table["per_category"]
        out["per_repo"].update(table["per_repo"])
        out["requests"] += [row | {"split": s} for r in results for row in r.requests]
        text.append(markdown(s, table, names, peers, [r.repo.name for r in results]))
    console.out(json.dumps(out) if as_json else "\n\n".join(text) if text else "no repositories with queries to score")
    return 0


def _f(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def markdown(split: str, table: dict, names: list[str], peers: dict, repos: list[str]) -> str:
    m = table["metrics"]
    lines = [f"code · semble · {split}: {len(repos)} repositories, {m[names[0]]['requests']} queries", "",
             "| config | ndcg@10 | file ndcg@10 | semantic | architecture | symbol | query p50 ms |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for c in names:
        x = m[c]
        lines.append(f"| {c} | {_f(x['ndcg@10'])} | {_f(x['file_ndcg@10'])} | {_f(x['ndcg@10_semantic'])} | "
                     f"{_f(x['ndcg@10_architecture'])} | {_f(x['ndcg@10_symbol'])} | {x['p50_ms']:.2f} |")
    published = [(label, [x for r in repos if (x := peers.get(r, {}).get(key)) is not None]) for key, label in PEERS]
    published = [(label, v) for label, v in published if v]
    if published:
        lines += ["", "Published on the same repositories (peer-results.json; a method that skipped some is "
                      "averaged over those it ran):", "", "| method | ndcg@10 | repositories |", "|---|---:|---:|"]
        lines += [f"| {label} | {sum(v) / len(v):.3f} | {len(v)} |" for label, v in published]
    lines += ["", "| language | repos | " + " | ".join(names) + " |", "|---|---:|" + "---:|" * len(names)]
    for lang, row in table["per_language"].items():
        lines.append(f"| {lang} | {row['repos']} | " + " | ".join(_f(row[c]) for c in names) + " |")
    lines += ["", "| repository | language | chunks | index ms | " + " | ".join(f"{c}" for c in names)
              + " | " + " | ".join(f"{c} p50 ms" for c in names) + " |",
              "|---|---|---:|---:|" + "---:|" * (2 * len(names))]
    for name, r in table["per_repo"].items():
        lines.append(f"| {name} | {r['language']} | {r['chunks']} | {r['index_ms']:.0f} | "
                     + " | ".join(_f(r["configs"][c]["ndcg@10"]) for c in names) + " | "
                     + " | ".join(f"{r['configs'][c]['p50_ms']:.2f}" for c in names) + " |")
    index_ms = sorted(r["index_ms"] for r in table["per_repo"].values())
    lines += ["", f"Index (read, parse, BM25): median {index_ms[len(index_ms) // 2]:.0f} ms a repository, "
                  f"{sum(index_ms) / 1000:.1f} s for all {len(index_ms)}."]
    return "\n".join(lines)
