"""Code on Milvus against the local engine: semble's dev queries over its repositories as one collection,
and many clients at once.

    .venv/bin/python -m engines.eval.bench.code.milvus semble [--uri URI] [--configs lexical,fused] [--repos a,b]
                                                              [--json]
    .venv/bin/python -m engines.eval.bench.code.milvus load [--uri URI] [--clients 8,32] [--seconds 20] [--json]

``semble``: every repository of semble's data (dev and held out: 63 trees) is published into one
collection (``olai_code_semble``), the dev ones with their MiniLM vectors when ``fused`` is asked for
(embedded first where the vector cache lacks them: engines/eval/semble/embed.py fills it faster), the held-out
ones words only (their code is searched, never their queries). ``--repos`` publishes and scores those
alone. Then each dev repository's
queries are asked of its local engine and of the same engine routed to Milvus (``milvus-only``: a
Milvus failure shows as a failure, never as the local answer), scored as `olai-tui eval code --dataset
semble` scores: nDCG@10 overall and per language, side by side.

``load``: semble's largest dev repository (by files) published alone, words only; ``clients`` threads
ask its dev queries round and round for ``seconds`` against the local backend, then against Milvus:
p50 / p99 per query and queries per second; then, where the server was started here, the same with
it stalled (SIGSTOP): what the deadline and the breaker make of a hung Milvus.

Without ``--uri`` milvus-lite's binary is started on 127.0.0.1 over a temporary data file.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

COLLECTION = "olai_code_semble"
DEPTH = 50  # as the semble runner: rows asked of each configuration
TIERS = {"lexical": ("lexical",), "fused": ("lexical", "embedding")}


@contextmanager
def milvus_at(uri: str | None):
    for at, _ in milvus_server(uri):
        yield at


def milvus_server(uri: str | None):
    """(the URI, the LocalMilvus started for it or None when ``uri`` was given), once."""
    if uri:
        yield uri, None
        return
    from engines.milvus.server import LocalMilvus

    with tempfile.TemporaryDirectory(prefix="olai-milvus-") as folder, LocalMilvus(Path(folder) / "data.db") as server:
        yield server.uri, server


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def publish_all(uri: str, repos, with_vectors) -> dict:
    """Every repository into one collection; (seconds, rows, which have vectors)."""
    from engines.code.engine import CodeEngine
    from engines.code.milvus import publish as pub
    from engines.milvus.versions import connect

    client = connect(uri)
    started, rows, vectored = time.perf_counter(), 0, []
    try:
        for n, repo in enumerate(repos, 1):
            engine = CodeEngine(root=repo.root, wait_for_index=True)
            try:
                vectors = None
                # embedded here unless the vector cache holds them (engines/eval/semble/embed.py)
                if with_vectors(repo):
                    vectors = pub.tree_vectors(engine, progress=lambda done, of: None)
                    vectored.append(repo.name)
                done = pub.publish_tree(client, engine, repo.name, COLLECTION, vectors)
                rows += done["count"]
            finally:
                engine.close()
            _say(f"published {n}/{len(repos)} {repo.name}: {done['count']:,} symbols"
                 f"{'' if vectors is not None else ', words only'}")
    finally:
        client.close()
    return {"publish_s": round(time.perf_counter() - started, 1), "rows": rows, "with_vectors": vectored}


def score_semble(uri: str | None, configs: list[str], only: set[str] | None) -> dict:
    from engines.answer import collect
    from engines.code.engine import CodeEngine
    from engines.code.milvus.router import SearchSettings
    from engines.eval.semble.load import load_queries, load_repos, mean, ndcg
    from engines.eval.semble.run import RepoRun
    from engines.locations import shared_data

    data = shared_data() / "code" / "semble"
    repos = list(load_repos(data).values())
    dev = [r for r in repos if r.split == "dev" and (only is None or r.name in only)]
    with milvus_at(uri) as at:
        published = publish_all(at, [r for r in repos if only is None or r.name in only],
                                lambda r: r.split == "dev" and "fused" in configs)
        per_repo = []
        fallbacks = 0
        for n, repo in enumerate(dev, 1):
            queries = load_queries(data / "annotations" / f"{repo.name}.json", repo.name)
            run = RepoRun(repo)
            remote = CodeEngine(root=repo.root, wait_for_index=True,
                                search=SearchSettings(backend="milvus-only", uri=at, tree=repo.name,
                                                      collection=COLLECTION, deadline_ms=5000))
            row = {"repo": repo.name, "language": repo.language, "queries": len(queries)}
            try:
                for config in configs:
                    if config == "fused" and repo.name not in published["with_vectors"]:
                        continue
                    rank = run.ranker(config)
                    positions = {s.id: i for i, s in enumerate(remote.symbols)}
                    mine, theirs, same_first = [], [], 0
                    for q in queries:
                        ours = rank(q.text)
                        answer = collect("code", q.text, remote.search(q.text, limit=DEPTH, tiers=TIERS[config]))
                        fallbacks += answer.extras.get("backend") != "milvus"
                        got = [run.chunk(positions[h.id]) for h in answer.hits]
                        mine.append(ndcg(ours, q.targets))
                        theirs.append(ndcg(got, q.targets))
                        same_first += ours[:1] == got[:1]
                    row[config] = {"local": mean(mine), "milvus": mean(theirs), "same_first": same_first}
            finally:
                remote.close()
                run.close()
            per_repo.append(row)
            _say(f"{n}/{len(dev)} {repo.name}: " + "  ".join(
                f"{c} {row[c]['local']:.3f} / {row[c]['milvus']:.3f}" for c in configs if c in row))
    return {"published": published, "repos": per_repo, "fallbacks": fallbacks, **summary(per_repo, configs)}


def summary(per_repo: list[dict], configs: list[str]) -> dict:
    from engines.eval.semble.load import mean

    out = {"overall": {}, "by_language": {}}
    for config in configs:
        rows = [r for r in per_repo if config in r]
        if not rows:
            continue
        out["overall"][config] = {side: round(mean(r[config][side] for r in rows), 4) for side in ("local", "milvus")}
        out["overall"][config]["same_first"] = sum(r[config]["same_first"] for r in rows)
        out["overall"][config]["queries"] = sum(r["queries"] for r in rows)
        for language in sorted({r["language"] for r in rows}):
            mine = [r for r in rows if r["language"] == language]
            out["by_language"].setdefault(language, {})[config] = {
                side: round(mean(r[config][side] for r in mine), 4) for side in ("local", "milvus")}
    return out


def print_semble(result: dict, configs: list[str]) -> None:
    print(f"published {result['published']['rows']:,} symbols of {len(result['repos'])} dev repositories and the "
          f"rest in {result['published']['publish_s']} s; {result['fallbacks']} answers not from Milvus")
    head = [c for c in configs if c in result["overall"]]
    print("| language | " + " | ".join(f"{c} local | {c} milvus" for c in head) + " |")
    print("|---|" + "---:|---:|" * len(head))
    for language, figures in result["by_language"].items():
        print(f"| {language} | " + " | ".join(
            f"{figures[c]['local']:.3f} | {figures[c]['milvus']:.3f}" if c in figures else "- | -" for c in head) + " |")
    print("| **all** | " + " | ".join(
        f"**{result['overall'][c]['local']:.4f}** | **{result['overall'][c]['milvus']:.4f}**" for c in head) + " |")
    for c in head:
        o = result["overall"][c]
        print(f"{c}: the same first chunk on {o['same_first']} of {o['queries']} queries")


def load_test(uri: str | None, clients: list[int], seconds: float) -> dict:
    from engines.code.engine import CodeEngine
    from engines.code.milvus import publish as pub
    from engines.code.milvus.router import SearchSettings
    from engines.eval.semble.load import load_queries, load_repos
    from engines.locations import shared_data
    from engines.milvus.versions import connect

    data = shared_data() / "code" / "semble"
    dev = [r for r in load_repos(data).values() if r.split == "dev"]
    repo = max(dev, key=lambda r: sum(1 for _ in Path(r.root).rglob("*") if _.is_file()))
    queries = [q.text for q in load_queries(data / "annotations" / f"{repo.name}.json", repo.name)]
    out = {"repo": repo.name, "queries": len(queries), "runs": []}
    for at, server in milvus_server(uri):
        local = CodeEngine(root=repo.root)
        client = connect(at)
        pub.publish_tree(client, local, repo.name, "olai_code_load")
        client.close()
        remote = CodeEngine(root=repo.root, search=SearchSettings(backend="milvus", uri=at, tree=repo.name,
                                                                  collection="olai_code_load"))
        phases = [("local", local, clients), ("milvus", remote, clients)]
        if server is not None:
            phases.append(("milvus, server stalled", remote, clients[:1]))
        try:
            for backend, engine, counts in phases:
                if backend.endswith("stalled"):
                    server.stall()
                for n in counts:
                    run = _hammer(engine, queries, n, seconds)
                    run = {"backend": backend, "clients": n, **run}
                    out["runs"].append(run)
                    _say(json.dumps(run))
        finally:
            if server is not None:
                server.resume()
            remote.close()
            local.close()
    return out


def _hammer(engine, queries: list[str], clients: int, seconds: float) -> dict:
    """``clients`` threads asking ``queries`` round and round for ``seconds``: p50, p99, queries/s, and
    how many answers came from the local index instead of the backend asked for."""
    from engines.answer import collect
    from engines.eval.metrics import percentile

    times, fell = [], [0]
    stop = time.monotonic() + seconds
    lock = threading.Lock()

    def ask(offset: int) -> None:
        i = offset
        while time.monotonic() < stop:
            q = queries[i % len(queries)]
            started = time.perf_counter()
            answer = collect("code", q, engine.search(q, limit=10, tiers=("lexical",)))
            took = (time.perf_counter() - started) * 1000
            with lock:
                times.append(took)
                fell[0] += answer.extras.get("backend") == "local"
            i += 1

    threads = [threading.Thread(target=ask, args=(k * 7,)) for k in range(clients)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - started
    return {"asked": len(times), "p50_ms": round(percentile(times, 50), 1), "p99_ms": round(percentile(times, 99), 1),
            "qps": round(len(times) / wall, 1), "fallbacks": fell[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engines.eval.bench.code.milvus")
    sub = parser.add_subparsers(dest="what", required=True)
    s = sub.add_parser("semble")
    s.add_argument("--configs", default="lexical,fused")
    s.add_argument("--repos", default=None)
    load = sub.add_parser("load")
    load.add_argument("--clients", default="8,32")
    load.add_argument("--seconds", type=float, default=20.0)
    for p in (s, load):
        p.add_argument("--uri", default=None)
        p.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.what == "semble":
        configs = [c for c in args.configs.split(",") if c]
        bad = [c for c in configs if c not in TIERS]
        if bad:
            parser.error(f"--configs: {bad[0]!r} is not one of {', '.join(TIERS)}")
        result = score_semble(args.uri, configs, set(args.repos.split(",")) if args.repos else None)
        print(json.dumps(result, indent=1)) if args.json else print_semble(result, configs)
        return 0
    result = load_test(args.uri, [int(c) for c in args.clients.split(",")], args.seconds)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{result['repo']}, {result['queries']} queries asked round and round")
        print("| backend | clients | p50 ms | p99 ms | queries/s | fallbacks |\n|---|---:|---:|---:|---:|---:|")
        for r in result["runs"]:
            print(f"| {r['backend']} | {r['clients']} | {r['p50_ms']} | {r['p99_ms']} | {r['qps']} | {r['fallbacks']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
