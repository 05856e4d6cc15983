"""In English the head of a compound comes last: a "label printer" is a printer, a "printer label" a
label. A request of words alone whose every word is in a product's name may still name another thing:
the name holds the request's last word straight before another word said, so there it only says what
the product is for or fits ("Brother DK-1201 printer label" for "label printer"). Found on Icecat graded
by hand (docs/tuning.md, "On Icecat, graded by hand": today's top 10 for "label printer" held 6 label rolls,
each called exact). The limit: words typed in the other order are read by their last word all the same, so
for "bag laptop" a "laptop bag" is a stand-in (Icecat dev, whose requests put the head last, is unchanged)."""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from engines.lexical import fold


def _forms(word: str) -> str:
    """The word and its English plural ("label", "labels"), as a regular expression."""
    stem = word[:-1] if word.endswith("s") and len(word) > 3 else word
    return re.escape(stem) + "(?:e?s)?"


def head_used_as_modifier(said: Sequence[str], names: Iterable[str]) -> str | None:
    """The name's two words where the request's last word stands before another word said, joined by
    a space or a hyphen only ("printer label", "printer-label"), unless the name also holds them in the
    request's order ("label printer"); None otherwise, and for a request of one word."""
    if len(said) < 2:
        return None
    head, others = said[-1], [t for t in said[:-1] if t != said[-1]]
    texts = [fold(n) for n in names]
    for other in others:
        in_order = re.compile(rf"\b{_forms(other)}[\s-]+{_forms(head)}\b")
        reversed_ = re.compile(rf"\b({_forms(head)})[\s-]+({_forms(other)})\b")
        if any(in_order.search(t) for t in texts):
            return None
        for text in texts:
            found = reversed_.search(text)
            if found:
                return f"{found.group(1)} {found.group(2)}"
    return None
