"""semble's code-search benchmark (../shared/data/code/semble): its repositories, queries and scoring.

Scored exactly as the data's README says (and as semble's benchmarks/metrics.py does):

- the unit ranked is the top 10 **chunks** a search returns, not deduplicated by file;
- a query's targets are ``relevant + secondary``, each gaining 1; a target's rank is the 1-based
  position of the first chunk that matches it; a position counts once however many targets it holds;
- paths match when equal or when either ends with ``/`` + the other (backslashes read as ``/``);
  chunk paths are relative to the repository's ``benchmark_root``, as semble stores them;
- a target with both ``start_line`` and ``end_line`` needs the chunk's lines to overlap it
  (inclusive); with one bound or none it is a whole-file target;
- IDCG counts every annotated target (min(10, targets) ones), found or not;
- a repository's figure is the mean over its queries; the headline the unweighted mean over
  repositories; a language's the mean over its repositories; a category's the mean over the
  repositories that have it of each one's category mean.

The file-level view (``file_ndcg@10``) is ck's unit: the ranking deduplicated by file, its first 10
files, line ranges ignored. Bad input raises ``SembleError`` with one line naming the file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from engines.eval.datasets import DataFileError

K = 10
CATEGORIES = ("semantic", "architecture", "symbol")


class SembleError(DataFileError):
    """A benchmark file that cannot be read: the message is one line naming the file and cause."""


@dataclass(frozen=True)
class Target:
    path: str
    start_line: int | None = None
    end_line: int | None = None

    @property
    def has_span(self) -> bool:
        return self.start_line is not None and self.end_line is not None


@dataclass(frozen=True)
class Query:
    repo: str
    text: str
    category: str
    targets: tuple[Target, ...]  # relevant + secondary, in that order


@dataclass(frozen=True)
class Repo:
    name: str
    language: str
    split: str  # dev | heldout
    root: Path  # the folder indexed: repos/<name>/<benchmark_root>


@dataclass(frozen=True)
class Chunk:
    """One ranked row as the scoring sees it: its path relative to the indexed root and its lines."""

    path: str
    start_line: int
    end_line: int


# -- reading -----------------------------------------------------------------------------------

def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SembleError(f"{path}: no such file") from None
    except json.JSONDecodeError as exc:
        raise SembleError(f"{path}:{exc.lineno}: malformed JSON ({exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise SembleError(f"{path}: not UTF-8 ({exc.reason})") from None
    except OSError as exc:
        raise SembleError(f"{path}: {(exc.strerror or str(exc)).lower()}") from None


def load_repos(data: Path) -> dict[str, Repo]:
    """Every repository of repos.json with its split (splits.json) and the folder to index."""
    listed = _read_json(data / "repos.json")
    splits = _read_json(data / "splits.json")
    if not isinstance(listed, list) or not isinstance(splits, dict):
        raise SembleError(f"{data / 'repos.json'}: expected a list of repositories (and splits.json an object)")
    split_of = {name: split for split, names in splits.items() for name in names}
    out = {}
    for n, item in enumerate(listed):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise SembleError(f"{data / 'repos.json'}: entry {n + 1}: expected an object with a name")
        name = item["name"]
        if name not in split_of:
            continue
        root = data / "repos" / name
        if item.get("benchmark_root"):
            root = root / item["benchmark_root"]
        out[name] = Repo(name, str(item.get("language") or "?"), split_of[name], root)
    return out


def _target(raw, path: Path, n: int) -> Target:
    if isinstance(raw, str):
        return Target(raw)
    if isinstance(raw, dict) and isinstance(raw.get("path"), str):
        lines = []
        for key in ("start_line", "end_line"):
            value = raw.get(key)
            if value is not None and not (isinstance(value, int) or (isinstance(value, str) and value.isdigit())):
                raise SembleError(f"{path}: query {n}: {key} {value!r} is not a line number")
            lines.append(int(value) if value is not None else None)
        return Target(raw["path"], *lines)
    raise SembleError(f"{path}: query {n}: a target is a path or an object with a path")


def load_queries(path: Path, repo: str) -> list[Query]:
    """The queries of one annotation file (semble's format: query, relevant, secondary, category)."""
    rows = _read_json(path)
    if not isinstance(rows, list):
        raise SembleError(f"{path}: expected a list of queries")
    out = []
    for n, row in enumerate(rows, 1):
        if not isinstance(row, dict) or not isinstance(row.get("query"), str):
            raise SembleError(f"{path}: query {n}: expected an object with a query string")
        targets = []
        for field in ("relevant", "secondary"):
            listed = row.get(field) or []
            if not isinstance(listed, list):
                raise SembleError(f"{path}: query {n}: {field} is not a list")
            targets += [_target(t, path, n) for t in listed]
        category = row.get("category")
        out.append(Query(repo, row["query"], category if isinstance(category, str) else infer_category(row["query"]),
                         tuple(targets)))
    return out


def infer_category(query: str) -> str:
    """semble's rule for an annotation without a category."""
    if " " not in query.strip():
        return "symbol"
    return "architecture" if query.lower().startswith("how ") else "semantic"


# -- scoring -----------------------------------------------------------------------------------

def path_matches(chunk_path: str, target_path: str) -> bool:
    a, b = chunk_path.replace("\\", "/"), target_path.replace("\\", "/")
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def matches(chunk: Chunk, target: Target) -> bool:
    if not path_matches(chunk.path, target.path):
        return False
    if not target.has_span:
        return True
    return not (chunk.end_line < target.start_line or chunk.start_line > target.end_line)


def target_rank(chunks: Sequence[Chunk], target: Target, k: int = K) -> int | None:
    for rank, chunk in enumerate(chunks[:k], 1):
        if matches(chunk, target):
            return rank
    return None


def _dcg_of_ranks(ranks: Iterable[int], k: int) -> float:
    return sum(1.0 / math.log2(r + 1) for r in set(ranks) if 1 <= r <= k)  # a position counts once


def ndcg(chunks: Sequence[Chunk], targets: Sequence[Target], k: int = K) -> float:
    """NDCG@k over chunks, semble's way."""
    if not targets:
        return 0.0
    ranks = [r for t in targets if (r := target_rank(chunks, t, k)) is not None]
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(targets))))
    return _dcg_of_ranks(ranks, k) / ideal


def files_of(chunks: Iterable[Chunk]) -> list[str]:
    """The ranking's files, each once, in the order of their first chunk."""
    return list(dict.fromkeys(c.path for c in chunks))


def file_ndcg(chunks: Sequence[Chunk], targets: Sequence[Target], k: int = K) -> float:
    """NDCG@k over deduplicated files, line ranges ignored (ck's and ColGREP's unit)."""
    files = [Chunk(p, 0, 0) for p in files_of(chunks)[:k]]
    return ndcg(files, [Target(t.path) for t in targets], k)


def mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def load_peers(data: Path) -> dict[str, dict[str, float]]:
    """repository -> {method: NDCG@10} as semble published them (empty when the file is absent)."""
    try:
        peers = _read_json(data / "peer-results.json")
    except SembleError:
        return {}
    return peers if isinstance(peers, dict) else {}
