"""`olai-tui eval notes --dataset roadmap`: plain paraphrases and off-topic queries on olai's own roadmap.

The roadmap (../shared/data/notes/olai-roadmap.jsonl, 181 outline nodes) is a notebook as a person
keeps it: terse titles, long descriptions in the project's own jargon. The dev set
(engines/eval/roadmap/dev.jsonl, written before any tuning) holds paraphrases a person would type
about a node, not the node's own words, each with the node ids that answer it, and off-topic
queries that no node answers. One line each::

    {"query": "how do I take back a change I just made", "accept": ["undo"]}
    {"query": "best recipe for banana bread", "off_topic": true}

The figures, per configuration: ``paraphrases`` (how many), ``top3`` (paraphrases with an acceptable
node among the first three rows, weak or confident), ``top3_weak`` (of those, how many were found as
a weak guess ``≈?`` only), ``offtopic`` (how many) and ``offtopic_confident`` (off-topic queries that
drew a confident resemblance row ``≈``). Counts, not fractions: the sets are small.

The held-out split is not in this repository: ``--queries FILE`` (same format) scores it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Sequence

from engines.answer import RESEMBLANCE, collect
from engines.eval.datasets import DataFileError
from engines.eval.runner import Outcome, Ranker, Request
from engines.eval.suite import Suite, Verdict, need
from engines.notes.engine import SEMANTIC, TIERS, WORDS, NotesEngine

DEV = Path(__file__).resolve().parent / "dev.jsonl"
CONFIGS = ("words", "semantic", "merged")
COLUMNS = ("paraphrases", "top3", "top3_weak", "offtopic", "offtopic_confident", "p50_ms", "p90_ms")
SUMMED = frozenset({"paraphrases", "top3", "top3_weak", "offtopic", "offtopic_confident"})
LIMIT = 10  # what the workbench shows on a first screen


class RoadmapSetError(DataFileError):
    """A request file that cannot be read: the message names the file and line."""


def load_requests(path: Path, split: str, prefix: str) -> list[Request]:
    """The requests of one file; ``prefix`` turns a node id into the engine's note id (file#node)."""
    out = []
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise RoadmapSetError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            query = row["query"]
            accept = row.get("accept") or []
            if not isinstance(query, str) or not query.strip() or not isinstance(accept, list):
                raise ValueError
            if not accept and not row.get("off_topic"):
                raise ValueError
        except (ValueError, KeyError, TypeError):
            raise RoadmapSetError(f"{path}:{number}: expected {{\"query\": ..., \"accept\": [ids]}} or "
                                  f"{{\"query\": ..., \"off_topic\": true}}") from None
        judged = {prefix + str(node): 1.0 for node in accept}
        out.append(Request(f"{split}-{number}", query, judged, split, spec={"off_topic": not accept}))
    return out


def strength_of(hit) -> str:
    """evidence (exact, words), confident (≈) or weak (≈?)."""
    if hit.extras.get("strength") == "weak":
        return "weak"
    return "confident" if hit.marker == RESEMBLANCE else "evidence"


class RoadmapConfigs:
    def __init__(self, corpus: Path, embedder=None, progress=None) -> None:
        self.corpus = corpus
        self._embedder = embedder
        self._engine: NotesEngine | None = None
        self.progress = progress

    def engine(self) -> NotesEngine:
        if self._engine is None:
            self._engine = NotesEngine(self.corpus, embedder=self._embedder, wait_for_index=True)
            self._engine.build_index(progress=self.progress)
        return self._engine

    def factories(self) -> dict[str, Callable[[], Ranker]]:
        return {"words": lambda: self._tiers(("exact", WORDS)),
                "semantic": lambda: self._tiers((SEMANTIC,)),
                "merged": lambda: self._tiers(TIERS)}

    def _tiers(self, tiers: Sequence[str]) -> Ranker:
        engine = self.engine()

        def rank(query: str):
            answer = collect("notes", query, engine.search(query, limit=LIMIT, tiers=tiers))
            return [h.id for h in answer.hits], {"strength": [strength_of(h) for h in answer.hits]}

        return rank

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()


def score(outcome: Outcome, request: Request) -> dict[str, float | None]:
    strengths = outcome.extras.get("strength") or ["evidence"] * len(outcome.ranked)
    if request.spec and request.spec.get("off_topic"):
        confident = any(s == "confident" for s in strengths)
        return {"paraphrases": None, "top3": None, "top3_weak": None, "offtopic": 1,
                "offtopic_confident": int(confident)}
    first = next((n for n, i in enumerate(outcome.ranked[:3]) if i in request.judged), None)
    weak = first is not None and strengths[first] == "weak"
    return {"paraphrases": 1, "top3": int(first is not None), "top3_weak": int(weak), "offtopic": None,
            "offtopic_confident": None}


def roadmap_suite(corpus: Path, queries: Path | None, progress, embedder=None) -> Suite:
    """The dev paraphrases here, and ``queries`` (kept outside the repository) as the held-out split;
    ``embedder``: the engine's model (None: the shipped one; a table measured as the model)."""
    need(corpus)
    prefix = corpus.name + "#"
    requests = load_requests(DEV, "dev", prefix)
    if queries is not None:
        need(queries)
        requests += load_requests(queries, "heldout", prefix)
    setup = RoadmapConfigs(corpus, embedder=embedder, progress=progress)
    titles = {}

    def verdicts(request: Request, ranked: Sequence[str], extras: dict) -> list[Verdict]:
        if not titles:
            titles.update({n.id: n.title for n in setup.engine().notes})
        strengths = extras.get("strength") or []
        return [Verdict(i, titles.get(i, i), request.judged.get(i, 0.0), i in request.judged,
                        label=strengths[n] if n < len(strengths) else None) for n, i in enumerate(ranked)]

    return Suite("notes", "roadmap", requests, setup.factories(), COLUMNS, verdicts, score_outcome=score,
                 summed=SUMMED, salt=f"{corpus.resolve()}|{DEV.read_text(encoding='utf-8')}", close=setup.close,
                 setup=setup)
