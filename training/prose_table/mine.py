"""Pairs from the design documents' own structure (../shared/data/notes/train: PEPs, Rust RFCs, Go
proposals), each a (query, passage) in training/code_table's Pair, so its training step reads them as
they are:

- ``title``: the document's title -> the first prose paragraph of its summary (a note's title and body);
- ``heading``: a heading of the document's own (one few other documents share: not "Motivation") -> the
  first prose paragraph under it;
- ``cloze``: a paragraph's first sentence -> the rest of that paragraph (the inverse cloze task of ORQA,
  Lee et al. 2019: a sentence and the text around it say one thing in other words).

A pair's ``repo`` is its document (validation holds out whole documents), ``language`` its collection.
Code blocks, tables, directives and link lines are not prose and are left out; markup is undone
(``:pep:`8```, ``[text](url)``, emphasis) so the words are what a person reads.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator

from training.code_table.mine import Pair

KINDS = ("title", "heading", "cloze")
COLLECTIONS = ("peps", "rust-rfcs", "go-proposals")
HELD_OUT_SHARE = 0.05  # of each collection's documents, by a seeded hash: the validation's
GENERIC_IN = 5  # a heading found in this many documents or more says where, not what ("Motivation")
MIN_WORDS = 8  # a paragraph's fewest words to be prose
MIN_SENTENCE_WORDS = 5
PASSAGE_CHARS = 800  # a passage's opening (start.TEACHER_CHARS: what the teacher reads of it)
SUMMARY = re.compile(r"^(summary|abstract|introduction|overview|proposal)$", re.I)


class Document:
    def __init__(self, path: Path, collection: str, title: str, sections: list[tuple[str, list[str]]]):
        self.path, self.collection, self.title, self.sections = path, collection, title, sections


_RST_ROLE = re.compile(r":[a-z:]+:`([^`<]*?)\s*(?:<[^`]*>)?`")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_RST_LINK = re.compile(r"`([^`<]+?)\s*<[^`]*>`_+")
_REF = re.compile(r"\[[0-9#*]+\]_|\[\^?[0-9]+\]")
_MARKS = re.compile(r"\*\*|__|``|`|\*(?=\S)|(?<=\S)\*")
_SPACE = re.compile(r"\s+")
_LETTERS = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)\"'][.!?])\s+(?=[A-Z])")


def plain(text: str) -> str:
    text = _RST_ROLE.sub(r"\1", text)
    text = _RST_LINK.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _REF.sub("", text)
    text = _MARKS.sub("", text)
    return _SPACE.sub(" ", text).strip()


def is_prose(block: str) -> bool:
    """A paragraph a person wrote in sentences: enough words, mostly letters, not a list of links,
    a table, a directive or a header field."""
    first = block.lstrip()
    if first.startswith(("..", "|", "+-", "    ", "\t", ">", "<", "{", "PEP:", "-", "*", "#", "=")):
        return False
    words = _WORD.findall(block)
    if len(words) < MIN_WORDS:
        return False
    letters = len(_LETTERS.findall(block))
    return letters >= 0.6 * len(block.replace(" ", "").replace("\n", ""))


def _blocks(lines: list[str]) -> Iterator[str]:
    """Blank-line separated blocks, fenced code left out."""
    block: list[str] = []
    fenced = False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            block = []
            continue
        if fenced:
            continue
        if line.strip():
            block.append(line)
        elif block:
            yield "\n".join(block)
            block = []
    if block:
        yield "\n".join(block)


_MD_HEADING = re.compile(r"^(#{1,6})\s*(.+?)\s*#*\s*$")
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")


def read_document(path: Path, collection: str) -> Document:
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    title = ""
    if path.suffix == ".rst":
        for line in lines[:40]:
            if line.startswith("Title:"):
                title = line.split(":", 1)[1].strip()
                break
    # sections: (heading, its lines), headings as Markdown's # or reStructuredText's underlines
    sections: list[tuple[str, list[str]]] = [("", [])]
    skip = False
    for n, line in enumerate(lines):
        if skip:
            skip = False
            continue
        m = _MD_HEADING.match(line) if path.suffix == ".md" else None
        underlined = (path.suffix == ".rst" and n + 1 < len(lines) and line.strip()
                      and _RST_UNDERLINE.match(lines[n + 1]) and not _RST_UNDERLINE.match(line))
        if m:
            sections.append((plain(m.group(2)), []))
        elif underlined:
            sections.append((plain(line.strip()), []))
            skip = True
        else:
            sections[-1][1].append(line)
    if not title and path.suffix == ".md":
        first = next((h for h, _ in sections[1:] if h), "")
        if collection == "go-proposals" and first:
            title = re.sub(r"^(design\s+)?proposal:\s*", "", first, flags=re.I)
        else:  # an RFC's file name is its title: 0016-more-attributes.md
            title = re.sub(r"^\d+-", "", path.stem).replace("-", " ").replace("_", " ")
    out = []
    for heading, body in sections:
        paragraphs = [plain(b) for b in _blocks(body) if is_prose(b)]
        # an indented literal block in reStructuredText follows "::": that paragraph's code is not kept
        out.append((heading, [p for p in paragraphs if p]))
    return Document(path, collection, plain(title), out)


def documents(corpus: Path) -> list[Document]:
    out = []
    for collection in COLLECTIONS:
        folder = corpus / collection
        for path in sorted(folder.glob("*.md")) + sorted(folder.glob("*.rst")):
            if path.name.upper().startswith(("README", "LICENSE", "0000-TEMPLATE")):
                continue
            out.append(read_document(path, collection))
    return out


def held_out(docs: list[Document], seed: int) -> set[str]:
    """A seeded HELD_OUT_SHARE of each collection's documents (by name)."""
    out = set()
    for collection in COLLECTIONS:
        names = sorted((d.path.name for d in docs if d.collection == collection),
                       key=lambda n: hashlib.sha256(f"{seed}:{n}".encode()).digest())
        out.update(names[:max(1, round(len(names) * HELD_OUT_SHARE))])
    return out


def sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(paragraph) if s.strip()]


def pairs_of(doc: Document, generic: set[str]) -> list[Pair]:
    name, coll = doc.path.name, doc.collection
    out: list[Pair] = []
    filled = [(h, ps) for h, ps in doc.sections if ps]
    summary = next((ps[0] for h, ps in filled if SUMMARY.match(h)), filled[0][1][0] if filled else None)
    if doc.title and summary:
        out.append(Pair(name, coll, "title", doc.title, summary[:PASSAGE_CHARS]))
    for heading, paragraphs in filled:
        if heading and heading.lower() not in generic and len(_WORD.findall(heading)) >= 1:
            out.append(Pair(name, coll, "heading", heading, paragraphs[0][:PASSAGE_CHARS]))
        for paragraph in paragraphs:
            said = sentences(paragraph)
            if len(said) >= 2 and len(_WORD.findall(said[0])) >= MIN_SENTENCE_WORDS:
                rest = " ".join(said[1:])
                if len(_WORD.findall(rest)) >= MIN_WORDS:
                    out.append(Pair(name, coll, "cloze", said[0], rest[:PASSAGE_CHARS]))
    return out


def mine(corpus: Path, say: Callable[[str], None] = print) -> tuple[list[Pair], list[Document]]:
    docs = documents(corpus)
    seen = Counter(h.lower() for d in docs for h in {h for h, _ in d.sections if h})
    generic = {h for h, n in seen.items() if n >= GENERIC_IN}
    pairs = [p for d in docs for p in pairs_of(d, generic)]
    say(f"{len(docs):,} documents, {len(pairs):,} pairs ({', '.join(f'{k} {n:,}' for k, n in sorted(Counter(p.kind for p in pairs).items()))}); "
        f"{len(generic)} headings too common to name a section")
    return pairs, docs
