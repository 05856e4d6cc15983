"""The embedder seam: the protocol, the llama.cpp embedder, the model's provenance, the vector cache and
the one background index lifecycle every meaning tier builds on (background_index.py)."""

from engines.embed.base import Embedder, EmbedderInfo, EmbedderUnavailable

__all__ = ["Embedder", "EmbedderInfo", "EmbedderUnavailable"]
