"""The embedder seam: the protocol, the llama.cpp embedder, the model's provenance and the vector cache."""

from engines.embed.base import Embedder, EmbedderInfo, EmbedderUnavailable

__all__ = ["Embedder", "EmbedderInfo", "EmbedderUnavailable"]
