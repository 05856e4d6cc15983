"""A class in place of its constructor for a question asked in words (engines/code/constructors.py, issue 60):
the rule on rows made here, then the engine over a small tree written here with the shipped code table."""

from __future__ import annotations

from types import SimpleNamespace

from engines.answer import collect
from engines.code.constructors import TOP, classes_for_constructors, constructor_of
from engines.code.engine import CodeEngine
from engines.code.merge import EMBEDDING, LEXICAL, Merged


def test_a_constructor_or_special_method_names_its_class_and_nothing_else_does():
    assert constructor_of("JsonReader.__init__", "method") == "JsonReader"
    assert constructor_of("GuzzleHttp.Pool.__construct", "method") == "GuzzleHttp.Pool"
    assert constructor_of("Rack.Files.initialize", "method") == "Rack.Files"
    assert constructor_of("gson.JsonReader.JsonReader", "method") == "gson.JsonReader"  # Java, C#: named as its class
    assert constructor_of("Store.__call__", "method") == "Store"
    assert constructor_of("Store.subscribe", "method") is None
    assert constructor_of("__init__", "function") is None and constructor_of("Reader.__init__", "class") is None
    assert constructor_of("Reader.__", "method") is None


def _rows(*specs):
    """Symbols (qualname, kind, file) and each one's lexical row, in that order."""
    symbols = [SimpleNamespace(qualname=q, kind=k) for q, k, _ in specs]
    files = [f for _, _, f in specs]
    by_name: dict[str, list[int]] = {}
    for p, s in enumerate(symbols):
        by_name.setdefault(s.qualname.rsplit(".", 1)[-1], []).append(p)
    merged = [Merged(p, LEXICAL, 1.0 - p / 100, {LEXICAL: p + 1}, {LEXICAL: 1.0 - p / 100}, 1.0 - p / 100)
              for p in range(len(specs))]
    return symbols, files, by_name, merged


def test_the_class_takes_its_constructors_place_and_the_constructor_the_classs():
    symbols, files, by_name, merged = _rows(("Reader.__init__", "method", "a.py"), ("helper", "function", "a.py"),
                                            ("Reader", "class", "a.py"), ("Other", "class", "b.py"))
    out = [m.position for m in classes_for_constructors(merged, symbols, files, by_name, lambda p: None)]
    assert out == [2, 1, 0, 3]
    # a class already above its constructor, or one of that name in another file, is left where it is
    symbols, files, by_name, merged = _rows(("Reader", "class", "a.py"), ("Reader.__init__", "method", "a.py"))
    assert [m.position for m in classes_for_constructors(merged, symbols, files, by_name, lambda p: None)] == [0, 1]
    symbols, files, by_name, merged = _rows(("Reader.__init__", "method", "a.py"), ("Reader", "class", "b.py"))
    assert [m.position for m in classes_for_constructors(merged, symbols, files, by_name, lambda p: (1.0, 1))] == [0, 1]


def test_a_class_not_among_the_rows_comes_in_only_with_word_evidence_and_only_within_the_head():
    specs = [("Reader.__init__", "method", "a.py")] + [(f"f{i}", "function", "a.py") for i in range(TOP + 2)]
    symbols, files, by_name, merged = _rows(*specs, ("Reader", "class", "a.py"))
    shown = merged[:-1]  # the class is not among the rows the merge gave
    assert classes_for_constructors(shown, symbols, files, by_name, lambda p: None) == shown  # no evidence
    out = classes_for_constructors(shown, symbols, files, by_name, lambda p: (0.5, 40))
    assert out[0].position == len(specs) and out[0].tier == LEXICAL and out[0].ranks == {LEXICAL: 40}
    assert out[TOP].position == 0 and len(out) == len(shown) + 1  # the constructor just past the head
    # a constructor past the head is not moved
    late = [m for m in merged[1:TOP + 1]] + [merged[0]]
    assert classes_for_constructors(late, symbols, files, by_name, lambda p: (0.5, 40)) == late


def test_a_resemblance_row_neither_moves_nor_is_moved_above_evidence():
    symbols, files, by_name, merged = _rows(("Reader.__init__", "method", "a.py"), ("Reader", "class", "a.py"))
    meaning_only = [merged[0], Merged(1, EMBEDDING, 0.6, {EMBEDDING: 1}, {EMBEDDING: 0.6})]
    assert classes_for_constructors(meaning_only, symbols, files, by_name, lambda p: (1.0, 1)) == meaning_only
    guessed = [Merged(0, EMBEDDING, 0.6, {EMBEDDING: 1}, {EMBEDDING: 0.6}), merged[1]]
    assert classes_for_constructors(guessed, symbols, files, by_name, lambda p: (1.0, 1)) == guessed


TREE = {
    "stream/reader.py": '''
class TokenReader:
    """Hands out the tokens of a document one at a time."""

    def __init__(self, source, buffer_size=1024):
        """Read json from a stream one piece at a time: the stream, its buffer and the piece read."""
        self.stream = source
        self.buffer = bytearray(buffer_size)
        self.piece = 0

    def skip(self):
        self.piece += 1
''',
    "stream/writer.py": '''
def write_pieces(out, pieces):
    """Write each piece to the output."""
    for piece in pieces:
        out.write(piece)
''',
}


def test_asked_in_words_the_engine_answers_the_class_where_its_constructor_was(tmp_path):
    for rel, text in TREE.items():
        (tmp_path / "tree" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tree" / rel).write_text(text, encoding="utf-8")
    # the rule alone: MiniLM's re-read of the first rows (reread.py, tested on its own) off
    engine = CodeEngine(tmp_path / "tree", wait_for_index=True, cache_dir=str(tmp_path / "cache"), contextual=False,
                        reread=False)
    try:
        ids = lambda q, tiers=None: [h.id for h in collect("code", q, engine.search(q, 10, tiers=tiers)).hits]
        asked, words = ids("how does it read json one piece at a time from a stream"), \
            ids("how does it read json one piece at a time from a stream", "lexical")
        unasked = ids("read json one piece at a time from a stream")
    finally:
        engine.close()
    cls, init = "stream/reader.py::TokenReader", "stream/reader.py::TokenReader.__init__"
    assert words.index(init) < words.index(cls)  # the words find the constructor first
    assert asked.index(cls) < asked.index(init)  # asked in words: the class in its place
    assert unasked.index(init) < unasked.index(cls)  # not asked: the order the fusion gave
