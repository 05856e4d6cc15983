"""Build a deterministic Obsidian-style vault of N Markdown notes (default 100,000) for the notes bench.

    python tools/make_vault.py /tmp/vault-100k [--notes 100000] [--seed 22]

The notes come from the shared notes corpora (../shared/data/notes): the 11,429 Vaswani abstracts,
the 1,400 Cranfield abstracts and the 181 nodes of the olai roadmap, about 13,000 texts. Each note
takes one text and varies it, so no two notes are the same: a sentence borrowed from another text of
the same corpus, a line of its own ("Seen again in ...") and its own front matter (title, tags from a
small vocabulary, created/updated dates, sometimes aliases). Notes go into nested folders (area /
year / month), at most a few hundred notes a folder, as vaults grow. The same seed and count write
the same bytes; file mtimes are set from the note's `updated` date, so two runs also stat the same.

The vault is written where you say (a temporary folder: never committed, never inside the repository).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.eval.cranfield.load import load_cranfield  # noqa: E402
from engines.eval.vaswani.load import load_vaswani  # noqa: E402
from engines.locations import shared_data  # noqa: E402
from engines.notes.corpus import load_corpus  # noqa: E402

AREAS = ("physics", "engineering", "reading", "projects", "inbox", "archive", "work", "ideas")
TAGS = ("physics", "aero", "flow", "heat", "paper", "todo", "review", "idea", "draft", "reading",
        "plasma", "electronics", "radio", "roadmap", "ui", "search", "sync", "question", "summary", "later")
EPOCH = dt.datetime(2019, 1, 1, tzinfo=dt.timezone.utc)
SPAN_DAYS = 6 * 365
SENTENCE = re.compile(r"(?<=[.!?])\s+")


def source_texts(data: Path) -> list[tuple[str, str, str]]:
    """(corpus, title, body) for every text of the shared notes corpora, in a fixed order."""
    texts: list[tuple[str, str, str]] = []
    notes_dir = data / "notes"
    if (notes_dir / "vaswani").is_dir():
        for note in load_vaswani(notes_dir / "vaswani").notes:
            body = " ".join(note.body.split())
            texts.append(("vaswani", _title_of(note.title, body), body))
    if (notes_dir / "cranfield").is_dir():
        for note in load_cranfield(notes_dir / "cranfield").notes:
            texts.append(("cranfield", note.title, " ".join(note.body.split())))
    roadmap = notes_dir / "olai-roadmap.jsonl"
    if roadmap.is_file():
        for note in load_corpus(roadmap).notes:
            texts.append(("roadmap", note.title, note.body.strip() or note.title))
    if not texts:
        raise SystemExit(f"make_vault: no notes corpora under {notes_dir}")
    return texts


def _title_of(title: str, body: str) -> str:
    """Vaswani's records are numbered, not titled: a title from the abstract's first words."""
    if title and not title.isdigit():
        return title
    words = body.split()[:8]
    return " ".join(words).rstrip(".,;:").capitalize() or f"Note {title}"


def note_text(i: int, source: tuple[str, str, str], borrowed: str, rng: random.Random) -> tuple[str, str, float]:
    """(relative path, file text, updated epoch) of note i."""
    corpus, title, body = source
    created = EPOCH + dt.timedelta(days=rng.randrange(SPAN_DAYS), minutes=rng.randrange(24 * 60))
    updated = created + dt.timedelta(days=rng.randrange(120))
    tags = sorted(rng.sample(TAGS, rng.randint(1, 3)))
    area = AREAS[rng.randrange(len(AREAS))]
    front = ["---", f"title: \"{title.replace(chr(34), chr(39))} ({i})\"",
             f"tags: [{', '.join(tags)}]", f"created: {created:%Y-%m-%d}", f"updated: {updated:%Y-%m-%d}"]
    if rng.random() < 0.15:
        front.append(f"aliases: [\"{corpus} note {i}\"]")
    front.append("---")
    sentences = [s for s in SENTENCE.split(body) if s]
    if sentences and rng.random() < 0.5:
        rng.shuffle(sentences)  # the same abstract told in another order
    lines = front + ["", " ".join(sentences)]
    if borrowed:
        lines += ["", f"See also: {borrowed}"]
    lines += ["", f"Seen again in {area} on {updated:%d %B %Y}; #{tags[0]}", ""]
    rel = f"{area}/{created:%Y}/{created:%m}/{corpus}-{i:06d}.md"
    return rel, "\n".join(lines), updated.timestamp()


def make_vault(out: Path, count: int, seed: int, data: Path) -> int:
    texts = source_texts(data)
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        source = texts[i % len(texts)]
        other = texts[rng.randrange(len(texts))]
        pieces = [s for s in SENTENCE.split(other[2]) if s]
        borrowed = pieces[rng.randrange(len(pieces))] if pieces else ""
        rel, text, updated = note_text(i, source, borrowed, rng)
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (updated, updated))
        if (i + 1) % 10_000 == 0:
            print(f"make_vault: {i + 1:,} of {count:,} notes", file=sys.stderr)
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the vault's folder (created; e.g. /tmp/vault-100k)")
    parser.add_argument("--notes", type=int, default=100_000, help="how many notes (default 100,000)")
    parser.add_argument("--seed", type=int, default=22, help="the random seed (default 22)")
    args = parser.parse_args(argv)
    if args.notes < 1:
        parser.error("--notes: must be at least 1")
    repo = Path(__file__).resolve().parent.parent
    if args.out.resolve().is_relative_to(repo):
        parser.error(f"{args.out}: inside the repository; write the vault elsewhere (e.g. /tmp)")
    written = make_vault(args.out, args.notes, args.seed, shared_data())
    print(f"make_vault: {written:,} notes under {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
