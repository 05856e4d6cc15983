"""The prose table's training tool (training/prose_table): the pairs it mines from a document's own
structure, and what it refuses (an evaluation set's folder, a document sharing text with one)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from training.prose_table import mine, provenance, texts

REPO = Path(__file__).resolve().parents[2]

PEP = """PEP: 9999
Title: Frozen Mappings in the Standard Library
Author: Someone <someone@example.org>
Status: Draft

Abstract
========

This PEP proposes a frozen mapping type whose keys and values cannot be changed once it is built,
so that it can be hashed and kept in a set. See :pep:`416` for an earlier attempt.

Motivation
==========

::

    d = frozenmap(a=1)

Hashing a mapping today means copying it into a tuple of pairs first. That copy costs time and
memory on every lookup, and libraries each write their own version of it with subtle differences.

Hashing the Contents
--------------------

The hash of a frozen mapping is computed once from its items and then kept with the object.
"""

RFC = """# Summary

Let a closure borrow only the fields of a struct that it actually uses inside its body.

# Motivation

```rust
let c = || self.a.push(1);
```

Today a closure that touches one field captures the whole struct, and the borrow checker then
refuses any other use of the struct while the closure lives, even of fields it never reads.
"""


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "train"
    for name in ("peps", "rust-rfcs", "go-proposals"):
        (corpus / name).mkdir(parents=True)
    (corpus / "peps" / "pep-9999.rst").write_text(PEP, encoding="utf-8")
    (corpus / "rust-rfcs" / "2229-capture-disjoint-fields.md").write_text(RFC, encoding="utf-8")
    (corpus / "README.md").write_text("training prose\n", encoding="utf-8")
    return corpus


def test_pairs_come_from_the_documents_own_structure_without_code_or_markup(tmp_path):
    pairs, docs = mine.mine(_corpus(tmp_path), lambda _: None)
    by_kind = {}
    for p in pairs:
        by_kind.setdefault(p.kind, []).append(p)
    titles = {p.query: p.code for p in by_kind["title"]}
    # a PEP's title from its header, an RFC's from its file name; each paired with its summary's paragraph
    assert titles["Frozen Mappings in the Standard Library"].startswith("This PEP proposes a frozen mapping")
    assert ":pep:" not in titles["Frozen Mappings in the Standard Library"]
    assert titles["capture disjoint fields"].startswith("Let a closure borrow only the fields")
    # a heading of the document's own is a query; the code blocks are nobody's passage
    heading = {p.query: p.code for p in by_kind["heading"]}
    assert heading["Hashing the Contents"].startswith("The hash of a frozen mapping")
    assert not any("frozenmap(" in p.code or "push(1)" in p.code for p in pairs)
    cloze = {p.query: p.code for p in by_kind["cloze"]}
    first = "Hashing a mapping today means copying it into a tuple of pairs first."
    assert cloze[first].startswith("That copy costs time") and first not in cloze[first]


def test_a_heading_many_documents_share_names_no_section(tmp_path):
    corpus = _corpus(tmp_path)
    for n in range(mine.GENERIC_IN):
        (corpus / "go-proposals" / f"{n}-x.md").write_text(
            f"# Proposal: thing {n}\n\n## Background\n\nA paragraph of enough words to count as prose here, number {n}.\n",
            encoding="utf-8")
    pairs, _ = mine.mine(corpus, lambda _: None)
    assert not any(p.kind == "heading" and p.query == "Background" for p in pairs)
    assert any(p.kind == "title" and p.query == "thing 3" for p in pairs)


def test_teacher_texts_of_a_smaller_cap_are_a_prefix_of_a_larger_caps(tmp_path):
    pairs, _ = mine.mine(_corpus(tmp_path), lambda _: None)
    small, large = texts.teacher_texts(pairs, 1, 1, 0), texts.teacher_texts(pairs, 3, 3, 0)
    assert len(small) == 2 and set(small) <= set(large)


def test_a_document_sharing_a_run_of_words_with_an_evaluation_note_is_refused(tmp_path):
    _, docs = mine.mine(_corpus(tmp_path), lambda _: None)
    clean = ["Transistor noise at low frequencies measured in a series of germanium junction devices."]
    assert provenance.overlap(docs, lambda _: None, clean) is None
    copied = clean + ["an abstract: today a closure that touches one field captures the whole struct, and the borrow checker"]
    found = provenance.overlap(docs, lambda _: None, copied)
    assert found and "2229-capture-disjoint-fields.md" in found


def test_the_command_refuses_an_evaluation_folder_in_one_line_with_exit_2(tmp_path):
    from engines.locations import shared_data

    done = subprocess.run([sys.executable, "-m", "training.prose_table", "--out", str(tmp_path / "t.npy"),
                           "--corpus", str(shared_data() / "notes" / "cranfield")], capture_output=True, text=True,
                          cwd=REPO)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0 and "cranfield" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "t.npy").exists()
