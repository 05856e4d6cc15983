"""The Embedder protocol every meaning tier talks to (ARCHITECTURE.md, "The embedder seam")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, Sequence

import numpy as np

Kind = Literal["query", "document"]


@dataclass(frozen=True)
class EmbedderInfo:
    model_id: str  # name + file sha256: a cache key, so another model invalidates every vector
    dims: int
    floor: float  # the cosine under which a hit is noise in this vector space (measured, see the embedder)
    margin: float = 0.08  # over the probes' p75, a notebook's junk ceiling (engines/notes/floor.py), on this scale
    name: str = ""  # the model's own name: status lines and the footer say which model answered
    note: str | None = None  # why another model than the one asked for answers, and what enables it


class EmbedderUnavailable(RuntimeError):
    """The embedder cannot run here. ``reason`` says why, ``enable`` what would make it run."""

    def __init__(self, reason: str, enable: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.enable = enable


class Embedder(Protocol):
    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        """float32 [n, dims], L2-normalised; all or throw."""
        ...

    def info(self) -> EmbedderInfo: ...
