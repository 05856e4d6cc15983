"""A floor per notebook: its own junk ceiling, measured from off-topic probe queries when its index builds.

With all-MiniLM-L6-v2 no single cosine separates a paraphrase from an off-topic query on every
notebook: a big notebook, or one of short titles, gives junk a higher best neighbour than a small
one of long notes. So each notebook measures itself: the probe queries shipped beside this module
(probes.txt, 217 of them, varied in subject and length, none about anything in particular) are scored
against its passages as a query is (a note = its best passage), and

- the **confident floor** is the upper quartile (p75) of the probes' best cosines plus ``MARGIN``,
  never under the embedder's own floor (the lower bound): a row at or over it is a confident ``≈``;
- the **weak lower bound** is the upper quartile (p75) of the probes' best cosines, no margin: a
  neighbour under the confident floor but over what three junk queries in four reach may be shown
  as a weak guess ``≈?`` when no evidence answered (engine.py). On the roadmap dev set the median
  (p50, 0.218) and p75 (0.258) found the same paraphrases (35 of 55 in the top 3), but with the
  median 10 of the 44 off-topic queries drew weak guesses, with p75 5.

Why the upper quartile and not a high percentile: the probes are off-topic for a notebook on any
one subject, but a notebook of everyday life meets some of them on its own ground. Measured with
engines/eval/tuning/notebook_floor.py: on the demo notebook (kitchen, garden, workshop; 37 notes) a
quarter of the probes are near its subjects ("making jam from strawberries" 0.674 against its jam
note), so its p95 is 0.438 and its p90 0.382, over the true paraphrase "protecting young plants from
snails" (0.403 against the slugs note); its p75 is 0.307. On the olai roadmap (179 nodes) p75 is
0.258 and the 44 off-topic queries of the dev set (engines/eval/roadmap/dev.jsonl) reach at most
0.349, p90 0.285: 0.09 over p75. ``MARGIN`` = 0.08 puts the demo notebook's floor at 0.387 (under the
snails paraphrase) and the roadmap's at 0.338 (so the embedder's 0.38 holds there).

Cached with the index: one small JSON file under ``$XDG_CACHE_HOME/olai-tui/floors/``, keyed by the
model, the probes, the method and the notebook's passages, so a change of notes or model measures
again; the probes' vectors are kept beside the floors in a vector cache of their own.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from engines.atomic import atomic_file
from engines.embed.cache import VectorCache, cache_root, text_key

PROBES = Path(__file__).resolve().parent / "probes.txt"
SHIPPED_PROBE_VECTORS = PROBES.parent / "probe_vectors.npz"  # the shipped model's (probe_vectors.py)
CEILING_PERCENTILE = 75
MARGIN = 0.08
WEAK_PERCENTILE = 75
METHOD = f"p{CEILING_PERCENTILE}+{MARGIN}|weak p{WEAK_PERCENTILE}|v1"


@dataclass(frozen=True)
class NotebookFloor:
    confident: float  # a meaning row at or over this is a confident resemblance (≈)
    weak: float  # a weak guess (≈?) must reach this; == confident when no weak guesses are possible
    ceiling: float | None  # the measured junk ceiling (p75 + margin); None: not measured
    embedder: float  # the embedder's own floor: the lower bound of ``confident``
    probes: int = 0


def load_probes(path: Path = PROBES) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def unmeasured(embedder_floor: float) -> NotebookFloor:
    """The embedder's floor alone: no weak guesses (the notebook has not been measured)."""
    return NotebookFloor(embedder_floor, embedder_floor, None, embedder_floor)


def from_best(best: np.ndarray, embedder_floor: float, margin: float = MARGIN) -> NotebookFloor:
    """The floors from the probes' best cosines on a notebook; ``margin`` is on the model's own cosine
    scale (MARGIN is MiniLM's; the model registry, engines/embed/models.py, carries each model's)."""
    if len(best) == 0:
        return unmeasured(embedder_floor)
    ceiling = float(np.percentile(best, CEILING_PERCENTILE)) + margin
    confident = max(embedder_floor, ceiling)
    weak = min(float(np.percentile(best, WEAK_PERCENTILE)), confident)
    return NotebookFloor(round(confident, 4), round(weak, 4), round(ceiling, 4), embedder_floor, len(best))


class ProbeFloors:
    """Measures (and caches) a notebook's floors from its passage matrix."""

    def __init__(self, embedder, cache_dir: str | None = None, probes: Sequence[str] | None = None) -> None:
        self.embedder = embedder
        self.cache_dir = cache_dir
        self.probes = list(probes) if probes is not None else load_probes()
        self._vectors: np.ndarray | None = None

    def probe_vectors(self) -> np.ndarray:
        if self._vectors is None:
            info = self.embedder.info()
            # beside the floors, not among the notebooks' vector files (one .vec per notebook there)
            cache = VectorCache(info.model_id, info.dims, scope="olai-tui probe queries", directory=self._folder())
            keys = [text_key("query:" + p) for p in self.probes]
            missing = [(k, p) for k, p in zip(keys, self.probes) if k not in cache]
            if missing and len(missing) == len(keys):  # none here yet: the shipped model's are shipped
                vectors = shipped_probe_vectors(info.model_id, self.probes)
                if vectors is not None:
                    self._vectors = vectors
                    return vectors
            if missing:
                cache.put_many([k for k, _ in missing], self.embedder.embed([p for _, p in missing], "query"))
                cache.save(keep=set(keys))
            self._vectors = cache.get_many(keys)
        return self._vectors

    def measure(self, matrix, passage_keys: bytes | None, save: bool) -> NotebookFloor:
        """The floors of a notebook whose passage vectors are the rows of ``matrix`` (an array, or
        anything with ``len`` and ``dot``); read from and ``save``d to the cache by ``passage_keys``, its
        distinct passage keys sorted and joined (NoteKeys.distinct_sorted; None: an index still
        building, measured and not kept)."""
        info = self.embedder.info()
        if len(matrix) == 0:
            return unmeasured(info.floor)
        path = None
        if passage_keys is not None:
            path = self._path(info.model_id, self._key(info.model_id, passage_keys))
            cached = _read(path)
            if cached is not None and cached.embedder == info.floor:
                return cached
        probes = self.probe_vectors().T
        # per probe: its best passage in the notebook (block by block where the rows can: rows.py)
        best = matrix.max_dot(probes) if hasattr(matrix, "max_dot") else matrix.dot(probes).max(axis=0)
        floor = from_best(best, info.floor, info.margin)
        if save and path is not None:
            _write(path, floor)
        return floor

    def _key(self, model_id: str, passage_keys: bytes) -> str:
        digest = hashlib.sha256(f"{model_id}|{METHOD}|".encode())
        digest.update("\n".join(self.probes).encode("utf-8"))
        digest.update(passage_keys)  # the same digest as updating key by key: floors cached before still hold
        return digest.hexdigest()[:24]

    def _folder(self) -> Path:
        return (Path(self.cache_dir) if self.cache_dir is not None else cache_root()) / "floors"

    def _path(self, model_id: str, key: str) -> Path:
        return self._folder() / f"floor-{key}.json"


def probes_digest(probes: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(probes).encode("utf-8")).hexdigest()


def shipped_probe_vectors(model_id: str, probes: Sequence[str], path: Path = SHIPPED_PROBE_VECTORS):
    """The shipped vectors of ``probes`` where they are this model's and these probes', else None:
    embedding the 217 probes took 2.0-2.6 s of a cold first answer on 2 loaded cores, more than a
    one-shot's budget for meaning (engines/notes/probe_vectors.py makes them)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["model_id"]) != model_id or str(data["probes"]) != probes_digest(probes):
                return None
            vectors = np.asarray(data["vectors"], np.float32)
    except (OSError, KeyError, ValueError):
        return None
    return vectors if vectors.shape[0] == len(probes) else None


def _read(path: Path) -> NotebookFloor | None:
    try:
        return NotebookFloor(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None  # missing or torn: measured again


def _write(path: Path, floor: NotebookFloor) -> None:
    try:
        with atomic_file(path, "w") as fh:
            json.dump(asdict(floor), fh)
    except OSError:
        pass  # measured again next time
