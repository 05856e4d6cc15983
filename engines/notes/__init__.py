"""The notes engine: corpus loading, the exact tier, semantic recall and live re-indexing."""
