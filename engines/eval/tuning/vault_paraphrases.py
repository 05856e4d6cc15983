"""Paraphrases over a generated vault, after a minute of `olai-tui index notes` (issue 61).

    python tools/make_vault.py /tmp/vault-30k --notes 30000
    XDG_CACHE_HOME=/tmp/cache timeout -s INT 60 olai-tui index notes --corpus /tmp/vault-30k
    XDG_CACHE_HOME=/tmp/cache python -m engines.eval.tuning.vault_paraphrases /tmp/vault-30k [--modes static,oneshot]

vault_paraphrases.jsonl: 27 paraphrases of vault notes, written before any was searched, none sharing a
content word (Snowball stem, stopwords aside) with its note's title (checked here). A paraphrase is
found when a note made from the same source text (the vault repeats each text about 2.3 times, under
the same title and its own number) is in the top 10. Modes: ``static`` answers with the vectors there
are (no model embedding at query time: the answer before the model's index), ``oneshot`` as `olai-tui
search` does (a 1.5 s deadline, the query's candidates embedded by the model: first_notes.py).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NUMBER = re.compile(r"\s*\(\d+\)\s*$")


def requests() -> list[dict]:
    return [json.loads(line) for line in (HERE / "vault_paraphrases.jsonl").read_text().splitlines() if line.strip()]


def shared_words(query: str, title: str) -> set[str]:
    from engines.lexical import standard_tokenize

    return set(standard_tokenize(query)) & set(standard_tokenize(NUMBER.sub("", title)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("vault", type=Path)
    parser.add_argument("--modes", default="static,oneshot")
    parser.add_argument("--budget", type=float, default=1.5)
    args = parser.parse_args()
    from engines.answer import collect
    from engines.notes.engine import NotesEngine

    started = time.monotonic()
    engine = NotesEngine(args.vault)
    engine.static_vectors  # the static index, read from the cache `index notes` left
    engine.start_indexing = lambda: None  # no build beside the measurement: what the vectors there answer
    print(f"opened {engine.items():,} notes in {time.monotonic() - started:.1f} s", flush=True)
    base = {n.id: NUMBER.sub("", n.title) for n in engine.notes}
    by_file = {Path(n.path).stem: n.id for n in engine.notes}
    wanted = []
    for r in requests():
        target = by_file[r["note"]]
        clash = shared_words(r["query"], base[target])
        assert not clash, (r, clash)
        wanted.append((r["query"], target))
    for mode in args.modes.split(","):
        found, ranks, times = 0, [], []
        for query, target in wanted:
            engine.answer_by = time.monotonic() + args.budget if mode == "oneshot" else None
            t = time.monotonic()
            answer = collect("notes", query, engine.search(query, limit=10))
            times.append(time.monotonic() - t)
            at = next((i + 1 for i, h in enumerate(answer.hits) if base.get(h.id) == base[target]), None)
            found += at is not None
            ranks.append(at)
            print(f"{mode}\t{at}\t{query}", flush=True)
        sem = answer.tier("semantic")
        times.sort()
        print(f"{mode}: {found} of {len(wanted)} in the top 10 (ranks {ranks}); "
              f"median {times[len(times) // 2]:.2f} s a query; last tier: {sem.status} {sem.reason}", flush=True)
    engine.close()


if __name__ == "__main__":
    main()
