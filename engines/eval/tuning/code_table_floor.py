"""The trained code table's floor: how high junk queries score against real code, and how high the
code a dev query wants scores. Dev repositories only (semble dev), never the held-out ones.

    .venv/bin/python -m engines.eval.tuning.code_table_floor [--table PATH] [--repos N]

Per repository: every junk query's best cosine (engines/eval/tuning/floor.py's JUNK, written for the notes
floor: none is about code) and, per dev query, the cosine of its best-placed wanted symbol. The floor
must sit over most junk maxima and under most wanted cosines; what it costs is printed for a few floors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def main(argv: list[str] | None = None) -> int:
    from engines.code.engine import CodeEngine
    from engines.embed.code_table import CodeTableEmbedder
    from engines.embed.trained_code_table import shipped_path
    from engines.eval.semble.load import load_queries, load_repos, matches
    from engines.eval.semble.run import RepoRun
    from engines.eval.tuning.floor import JUNK
    from engines.locations import shared_data

    parser = argparse.ArgumentParser(prog="python -m engines.eval.tuning.code_table_floor")
    parser.add_argument("--table", type=Path, default=None)
    parser.add_argument("--repos", type=int, default=42)
    args = parser.parse_args(argv)
    embedder = CodeTableEmbedder(args.table or shipped_path())
    data = shared_data() / "code" / "semble"
    repos = [r for r in load_repos(data).values() if r.split == "dev"][:args.repos]
    junk_max: list[float] = []
    wanted: list[float] = []
    for repo in repos:
        engine = CodeEngine(root=repo.root, embedder=embedder, wait_for_index=True, static=False)
        engine.build_index()
        run = RepoRun(repo)
        rows, _, _ = engine.vectors.scores(np.zeros(embedder.info().dims, np.float32))
        for q in JUNK:
            _, cosines, _ = engine.vectors.scores(embedder.embed([q], "query")[0])
            junk_max.append(float(cosines.max()) if len(cosines) else -1.0)
        for q in load_queries(data / "annotations" / f"{repo.name}.json", repo.name):
            _, cosines, _ = engine.vectors.scores(embedder.embed([q.text], "query")[0])
            hits = [float(cosines[i]) for i, p in enumerate(rows) if any(matches(run.chunk(int(p)), t) for t in q.targets)]
            if hits:
                wanted.append(max(hits))
        engine.close()
        run.close()
        print(f"{repo.name}: junk max p50 {np.median(junk_max):.3f}, wanted p10 {np.percentile(wanted, 10):.3f}",
              file=sys.stderr, flush=True)
    junk, want = np.asarray(junk_max), np.asarray(wanted)
    print(f"junk maxima ({len(junk)}): p50 {np.median(junk):.3f} p90 {np.percentile(junk, 90):.3f} max {junk.max():.3f}")
    print(f"wanted ({len(want)}): p10 {np.percentile(want, 10):.3f} p25 {np.percentile(want, 25):.3f} "
          f"p50 {np.median(want):.3f}")
    for floor in (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5):
        print(f"floor {floor:.2f}: junk maxima over it {np.mean(junk >= floor):.0%}, wanted under it "
              f"{np.mean(want < floor):.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
