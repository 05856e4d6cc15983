"""What of a note gets embedded: its title, and each passage of its body, as separate texts.

The model reads at most 256 word pieces, so a long note is not embedded whole: its body is cut at
paragraph boundaries into passages of at most ``PASSAGE_WORDS`` words. A note scores as its best
vector, so a paragraph buried in a long note is findable by itself.

Title and passages apart, not the title in front of every passage: measured by
engines/eval/tuning/floor.py-style runs over 24 junk queries on the demo notebook and the olai roadmap,
separate vectors scored the paraphrase "protecting young plants from snails" 0.403 against the
slugs note (junk ceiling 0.306) where title-prefixed passages scored it 0.333 (junk ceiling 0.266):
a wider gap between a true paraphrase and junk.

Besides, each note has one vector of its whole text (``whole``: title and body as one text, of which the
model reads the first 256 word pieces), as a standard dense setup embeds a document. The floor is
still measured against the best passage (the calibration above); the whole vector only ranks: notes
rank by the mean of their best passage's cosine and their whole vector's. On the dev queries that
took the semantic tier alone from nDCG@10 0.465 to 0.494 on Vaswani and 0.348 to 0.368 on Cranfield,
and the shipped fill (fused with the words leg) from 0.506 to 0.519 and 0.393 to 0.398 (a note's title alone matches short
queries too eagerly; its whole text, too vaguely where one passage is on topic).
"""

from __future__ import annotations

import re

from engines.notes.corpus import Note
from engines.notes.vault import link_words

# ~1.3 word pieces per English word: 150 words stay inside the model's 256-piece window with the title.
PASSAGE_WORDS = 150
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def passages(note: Note) -> list[str]:
    """The texts to embed for a note, in order; never empty."""
    return _passages(note, _pieces(note.body))


def whole(note: Note) -> str:
    """The note as one text, title first (the model reads its first 256 word pieces): its whole vector."""
    return _whole(note, _pieces(note.body))


def note_texts(note: Note, body: str | None = None) -> list[str]:
    """Every text the semantic index embeds for a note: its passages, then its whole text. The body is
    cut and tidied once for both (twice, it was most of the 5 s the keys of 100,000 notes took).
    ``body``: the note's body where the caller has read it already."""
    pieces = _pieces(note.body if body is None else body)
    return _passages(note, pieces) + [_whole(note, pieces)]


def _pieces(body: str) -> list[str]:
    """The body's paragraphs, tidied, the empty ones left out."""
    return [p for p in map(_tidy, _PARAGRAPH_BREAK.split(body)) if p]


def _passages(note: Note, pieces: list[str]) -> list[str]:
    title = " ".join(note.title.split())
    # aliases are other titles: each embedded apart, as the title is
    head = list(dict.fromkeys(t for t in [title] + [" ".join(a.split()) for a in note.aliases] if t))
    if not pieces:
        return head or [note.id]
    chunks: list[str] = []
    current: list[str] = []
    count = 0
    for piece in _bounded(pieces):
        n = piece.count(" ") + 1  # its words: a tidied piece is words joined by single spaces
        if current and count + n > PASSAGE_WORDS:
            chunks.append(" ".join(current))
            current, count = [], 0
        current.append(piece)
        count += n
    if current:
        chunks.append(" ".join(current))
    return head + [chunk for chunk in chunks if chunk != title]


def _whole(note: Note, pieces: list[str]) -> str:
    # the title and the tidied pieces, each of words joined by single spaces, joined by single spaces
    text = " ".join(t for t in (" ".join(note.title.split()), *pieces) if t)
    return text or _passages(note, pieces)[0]


_DECORATION = re.compile(r"^\s{0,3}(#{1,6}|[-*+]|\d+[.)])\s+", flags=re.MULTILINE)


def _tidy(text: str) -> str:
    # Markdown decoration carries no meaning for the model; white space runs are one space.
    text = _DECORATION.sub("", text)
    if "[[" in text:
        text = link_words(text)  # [[target|label]] reads as its words
    return " ".join(text.split())


def _bounded(pieces: list[str]):
    """Paragraphs, with any longer than a passage cut at sentence ends (or, failing that, words)."""
    for piece in pieces:
        if piece.count(" ") < PASSAGE_WORDS:  # at most PASSAGE_WORDS words (single spaces between them)
            yield piece
            continue
        buffer: list[str] = []
        for sentence in _SENTENCE_END.split(piece):
            sentence_words = sentence.split()
            while len(sentence_words) > PASSAGE_WORDS:
                if buffer:
                    yield " ".join(buffer)
                    buffer = []
                yield " ".join(sentence_words[:PASSAGE_WORDS])
                sentence_words = sentence_words[PASSAGE_WORDS:]
            if len(buffer) + len(sentence_words) > PASSAGE_WORDS:
                yield " ".join(buffer)
                buffer = []
            buffer.extend(sentence_words)
        if buffer:
            yield " ".join(buffer)
