"""Key -> position maps made when first asked (engines/notes/positions.py), shared by the notes tiers."""

from engines.notes.corpus import Note
from engines.notes.engine import NotesEngine
from engines.notes.positions import Positions, note_ids


def test_a_map_answers_as_the_dict_it_stands_for_and_is_made_only_when_asked():
    keys = ["b", "a", "c", "a"]
    positions = Positions(keys)
    assert positions._map is None, "nothing made before a question"
    assert positions.get("a") == 3 and positions["c"] == 2 and "b" in positions and "z" not in positions
    assert positions.get("z", -1) == -1 and len(positions) == 3
    notes = [Note(f"n{i}.md", f"T{i}", "b", f"n{i}.md", "/v") for i in range(3)]
    assert note_ids(notes)["n2.md"] == 2


def test_the_words_and_meaning_tiers_share_the_engines_one_map_of_its_notes(tmp_path):
    (tmp_path / "a.md").write_text("# Alpha\n\nfirst note\n")
    (tmp_path / "b.md").write_text("# Beta\n\nsecond note\n")
    engine = NotesEngine(tmp_path, cache_dir=str(tmp_path.parent / "cache"))
    try:
        index = engine._new_index()
        assert engine._words._ids is engine._ids and index._ids is engine._ids
        assert engine._ids["b.md"] == 1
    finally:
        engine.close()
