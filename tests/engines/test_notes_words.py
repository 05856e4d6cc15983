"""The words leg's index: built in the background when the notes change, and always of the notes held now."""

from __future__ import annotations

import threading

from engines.notes.corpus import Note
from engines.notes.words import WordsIndex


def note(i: int, body: str) -> Note:
    return Note(id=f"n{i}", title=f"note {i}", body=body, where=f"n{i}.md", path=f"/n{i}.md", content_hash=str(i))


def test_a_search_always_reads_the_notes_held_now_however_fast_they_change():
    index = WordsIndex()
    for n in range(30):  # edits arrive faster than the background builds finish
        index.set_notes([note(i, "dielectric constant" if i == n else "plain text") for i in range(n + 1)])
    ranking = index.ranked("dielectric")
    assert ranking.scores.size == 30
    assert [ranking.notes[i].id for i in ranking.order] == ["n29"], "the last set of notes, not an older build"


def test_searches_while_the_index_builds_wait_for_that_one_build():
    index = WordsIndex()
    index.set_notes([note(i, f"word{i % 7} shared") for i in range(2000)])
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(index.ranked("word3").order.size)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert answers == [286] * 4  # 2000 notes, every seventh holds word3
    assert index._building == {}, "no build left pending"


def test_close_stops_a_build_at_its_next_note_and_waits_for_it():
    index = WordsIndex()
    index.set_notes([note(i, f"word{i % 97} text {i} and more words to read") for i in range(60_000)])  # seconds of reading
    (thread,) = index._threads
    index.close()
    assert not thread.is_alive(), "close waited for the build"
    assert index._built is None and index._building == {}, "stopped before it was done: nothing built"
    index.set_notes([note(0, "after close")])
    assert index._threads == [thread], "a closed index starts no build"


EXITS_DURING_A_BUILD = """
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from engines.notes.engine import NotesEngine
root = Path(sys.argv[2])
for i in range(4000):
    (root / f"n{i:05d}.md").write_text(f"# Note {i}\\n\\nword{i % 97} and a few more words about {i}.\\n")
engine = NotesEngine(root, cache_dir=sys.argv[3])
print(len(engine.notes))
if sys.argv[4] == "save":
    engine.words_tier.ranked("word1")  # built and saved, so the next process opens warm
    engine.close()
# else no close: the process ends while the words build reads the notes (cold) or the saved index (warm)
"""


def test_a_process_ending_during_a_words_build_stops_it_first_and_exits_cleanly(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root, cache = tmp_path / "vault", tmp_path / "cache"
    root.mkdir()
    repo = str(Path(__file__).resolve().parents[2])
    for step in ("exit", "save", "exit"):  # cold, then warm: a build from the saved index at exit
        run = subprocess.run([sys.executable, "-c", EXITS_DURING_A_BUILD, repo, str(root), str(cache), step],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and run.stdout.strip() == "4000" and run.stderr == "", (step, run.stderr)
        assert not [p for p in cache.rglob("*") if ".tmp" in p.name], "no half-written file left in the cache"
