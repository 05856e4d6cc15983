"""Where the prose table's training text comes from (its manifest's ``corpus``), and the two checks that
keep evaluation data out of it: the corpus must be the training folder, and no run of WINDOW words of an
evaluation set's notes (Vaswani, Cranfield, the olai roadmap) may be in a training document.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable, Sequence

# ../shared/data/notes/train/README.md's table: what each folder is and the licence it is under
SOURCES = [
    {"name": "peps", "what": "Python Enhancement Proposals", "url": "https://github.com/python/peps",
     "commit": "ba4deeb7", "path": "peps/pep-*.rst (those that say they are public domain or CC0)",
     "license_spdx": "CC0-1.0 OR public domain", "files": 703},
    {"name": "rust-rfcs", "what": "Rust RFCs", "url": "https://github.com/rust-lang/rfcs", "commit": "354518a8",
     "path": "text/*.md", "license_spdx": "MIT OR Apache-2.0", "files": 650},
    {"name": "go-proposals", "what": "Go design proposals", "url": "https://github.com/golang/proposal",
     "commit": "f6e2e6b7", "path": "design/*.md", "license_spdx": "BSD-3-Clause", "files": 125},
]
WINDOW = 12  # words in a row that an evaluation note and a training document may not share
_WORD = re.compile(r"[a-z0-9]+")


def refused(corpus: Path) -> str | None:
    """Why ``corpus`` may not be trained on (None: it may): it must hold the three collections, and
    neither be, lie inside nor hold an evaluation set's folder."""
    from engines.locations import shared_data, shared_heldout

    here = corpus.resolve()
    for name in ("vaswani", "cranfield", "reading"):
        folder = (shared_data() / "notes" / name).resolve()
        if here == folder or folder in here.parents or here in folder.parents:
            return f"{corpus}: {name} is an evaluation set; the table must never be trained on what it is measured on"
    if shared_heldout().resolve() in (here, *here.parents):
        return f"{corpus}: held-out data is never trained on"
    missing = [s["name"] for s in SOURCES if not (corpus / s["name"]).is_dir()]
    if missing:
        return f"--corpus: {corpus} holds no {missing[0]}/ (the training folder's collections: " \
               f"{', '.join(s['name'] for s in SOURCES)})"
    return None


def _windows(text: str, step: int) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[i:i + WINDOW]) for i in range(0, max(0, len(words) - WINDOW + 1), step)}


def evaluation_texts() -> list[str]:
    """The notes evaluation sets' texts (their notes, titles and bodies)."""
    from engines.eval.cranfield.load import load_cranfield
    from engines.eval.vaswani.load import load_vaswani
    from engines.locations import shared_data

    notes = shared_data() / "notes"
    out = [f"{n.title}\n{n.body}" for n in load_vaswani(notes / "vaswani").notes]
    out += [f"{n.title}\n{n.body}" for n in load_cranfield(notes / "cranfield").notes]
    for line in (notes / "olai-roadmap.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            node = json.loads(line)
            out.append(f"{node.get('title', '')}\n{node.get('desc', '')}")
    return out


def overlap(docs: Sequence, say: Callable[[str], None], evaluation: Sequence[str] | None = None) -> str | None:
    """Why the training documents may not be trained on (None: they may): a run of WINDOW words one of
    them shares with an evaluation note. Every window of the evaluation notes against every
    ``WINDOW // 2``-th window of the documents: a shared run of 1.5 windows is always caught."""
    seen = set()
    for text in (evaluation_texts() if evaluation is None else evaluation):
        seen |= _windows(text, 1)
    for doc in docs:
        text = " ".join(p for _, paragraphs in doc.sections for p in paragraphs)
        shared = _windows(text, WINDOW // 2) & seen
        if shared:
            return f"{doc.path}: shares '{' '.join(next(iter(shared)))}' with an evaluation set's notes"
    say(f"no run of {WINDOW} words shared with the evaluation sets' notes ({len(seen):,} windows checked)")
    return None
