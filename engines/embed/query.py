"""A query's vector for a meaning tier: embedded, its width checked, or the tier's report of why not.

Meaning failing never takes the evidence tiers down, so every engine's meaning tier turns a missing
model into ``unavailable`` (with what enables it) and any other failure into ``failed``, the same way.
"""

from __future__ import annotations

import numpy as np

from engines.answer import TierReport
from engines.embed.base import Embedder, EmbedderUnavailable
from engines.embed.retry import check_shape


def query_vector(embedder: Embedder, query: str, tier: str) -> np.ndarray | TierReport:
    """The query embedded as a query, or ``tier``'s report (unavailable / failed) saying why not."""
    try:
        info = embedder.info()
        vectors = embedder.embed([query], "query")
        check_shape(vectors, 1, info.dims)  # a query vector of another width than the index's
        return vectors[0]
    except EmbedderUnavailable as exc:
        return TierReport(tier, "unavailable", None, 0, reason=exc.reason, enable=exc.enable)
    except Exception as exc:  # noqa: BLE001 - meaning failing never takes the evidence tiers down
        return TierReport(tier, "failed", None, 0, reason=f"embedding the query failed: {exc}")
