"""The notes corpus loader: the demo notebook, titles, outlines, and bad input named once with nothing lost."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from engines.notes.corpus import CorpusError, load_corpus, load_file
from engines.notes.note_files import is_note_file

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "notes"
# the project modules corpus.py imports (errors is stubbed in the child), then corpus.py itself
LOADER_MODULES = ("engines.problems", "engines.folders", "engines.notes.vault", "engines.notes.note_files",
                  "engines.notes.corpus")


def by_id(load):
    return {note.id: note for note in load.notes}


# ---- the demo notebook --------------------------------------------------------------------------


def test_the_demo_notebook_loads_whole_with_no_problems():
    load = load_corpus(DEMO)
    assert load.problems == []
    assert 30 <= len(load.notes) <= 40
    assert {note.id.split("/")[0] for note in load.notes} >= {"garden", "kitchen", "workshop"}
    assert len({note.id for note in load.notes}) == len(load.notes)


def test_the_slugs_note_is_filed_under_the_cold_frames():
    slugs = by_id(load_corpus(DEMO))["garden/cold-frames/slugs.md"]
    assert slugs.title == "The slugs got the seedlings last year"
    assert slugs.where == "garden/cold-frames/slugs.md"
    assert slugs.path == str(DEMO / "garden" / "cold-frames" / "slugs.md")
    assert "seedlings" in slugs.body
    # "protecting young plants from snails" must find it by meaning only: none of those words is in it
    text = (slugs.id + slugs.title + slugs.body).lower()
    assert not [word for word in ("protecting", "young", "plants", "from", "snails") if word in text]


def test_the_demo_notebook_says_nothing_about_the_off_topic_probes():
    text = " ".join(n.title + " " + n.body for n in load_corpus(DEMO).notes).lower()
    for word in ("bread", "recipe", "westphalia", "treaty", "tyre", "revenue", "apac"):
        assert word not in text, word


def test_the_demo_notebook_has_a_long_note_with_a_buried_paragraph():
    long_note = by_id(load_corpus(DEMO))["garden/season-review-2024.md"]
    words = long_note.body.split()
    assert len(words) > 1200
    middle = long_note.body.index("tap connector washer")
    assert 0.3 < middle / len(long_note.body) < 0.7


# ---- titles, bodies, tags -----------------------------------------------------------------------


def test_title_is_the_first_heading_or_first_line_and_body_the_rest_as_is(tmp_path):
    (tmp_path / "heading.md").write_text("\n\n##  Cold frames \nline one\n\n  indented\tline\n", encoding="utf-8")
    (tmp_path / "plain.txt").write_text("Pickled onions\r\nTwo kilos.\r\n", encoding="utf-8")
    (tmp_path / "only-heading.md").write_text("# Just a title\n", encoding="utf-8")
    (tmp_path / "bom.md").write_bytes("\ufeff# With a BOM\nbody".encode("utf-8"))
    (tmp_path / "setext.md").write_text("Jam\n===\nset at 12 minutes\n", encoding="utf-8")
    (tmp_path / "front.md").write_text("---\ntags:\n  - garden\n  - slugs\n---\n# Front\nbody #todo\n")
    notes = by_id(load_corpus(tmp_path))
    assert (notes["heading.md"].title, notes["heading.md"].body) == ("Cold frames", "line one\n\n  indented\tline\n")
    assert (notes["plain.txt"].title, notes["plain.txt"].body) == ("Pickled onions", "Two kilos.\r\n")
    assert (notes["only-heading.md"].title, notes["only-heading.md"].body) == ("Just a title", "")
    assert (notes["bom.md"].title, notes["bom.md"].body) == ("With a BOM", "body")
    assert (notes["setext.md"].title, notes["setext.md"].body) == ("Jam", "set at 12 minutes\n")
    assert (notes["front.md"].title, notes["front.md"].tags) == ("Front", ("todo", "garden", "slugs"))
    assert all(note.parent is None for note in notes.values())


def test_tags_come_from_hashtags_and_a_tags_line_but_not_from_headings_or_numbers(tmp_path):
    (tmp_path / "n.md").write_text("# Jam #preserves\ntags: kitchen, summer fruit\nPR #56, see x.html#top #todo\n")
    note = by_id(load_corpus(tmp_path))["n.md"]
    assert note.tags == ("preserves", "todo", "kitchen", "summer fruit")


def test_content_hash_is_sha256_of_title_and_body(tmp_path):
    (tmp_path / "a.md").write_text("# Compost\nthree bays\n")
    note = load_corpus(tmp_path).notes[0]
    assert note.content_hash == hashlib.sha256(b"Compost\nthree bays\n").hexdigest()


def test_note_files_are_recognised_by_suffix():
    assert all(is_note_file(name) for name in ("a.md", "b.MARKDOWN", "c.txt", "d.jsonl", "e.olai"))
    assert not any(is_note_file(name) for name in ("photo.png", "notes.md~", "data.json", "README"))


# ---- outlines -----------------------------------------------------------------------------------


def test_outline_nodes_are_notes_with_parent_ids_and_line_numbers():
    notes = by_id(load_corpus(DEMO))
    glue_up = notes["workshop/bench-build.jsonl#glue-up"]
    assert glue_up.title == "Glue-up in three sections"
    assert glue_up.parent == "workshop/bench-build.jsonl#top"
    assert glue_up.where == "workshop/bench-build.jsonl:5"
    assert glue_up.body.startswith("PVA")
    assert notes["workshop/bench-build.jsonl#bench"].parent is None
    assert notes["workshop/bench-build.jsonl#bench"].tags == ("project", "workbench")
    nodes = [n for n in notes.values() if n.id.startswith("workshop/bench-build.jsonl#")]
    assert len(nodes) == 10
    assert all(n.parent in notes for n in nodes if n.parent)


def test_a_single_outline_file_is_a_corpus_of_its_own(tmp_path):
    outline = tmp_path / "plan.olai"
    outline.write_text('{"id":"a","title":"A","desc":"first"}\n\n{"id":"b","parent":"a","title":"B"}\n')
    load = load_corpus(outline)
    assert [(n.id, n.where, n.parent, n.body) for n in load.notes] == [
        ("plan.olai#a", "plan.olai:1", None, "first"),
        ("plan.olai#b", "plan.olai:3", "plan.olai#a", ""),
    ]


def test_bad_outline_lines_are_named_by_line_and_the_good_lines_still_load(tmp_path):
    (tmp_path / "plan.jsonl").write_text(
        "\n".join([
            '{"id":"a","title":"A"}',
            '{"id":"b","title":',  # malformed
            '["not", "an", "object"]',
            '{"title":"no id"}',
            '{"id":"c"}',  # no title
            '{"id":"a","title":"again"}',  # duplicate
            '{"id":"m","parent":"a","mirror":"a"}',  # a mirror shows node a again: not a note, not a problem
            '{"id":"d","title":"D"}',
        ])
    )
    notes, problems = load_file(tmp_path / "plan.jsonl", tmp_path)
    assert [n.id for n in notes] == ["plan.jsonl#a", "plan.jsonl#d"]
    assert [p.path for p in problems] == [f"plan.jsonl:{line}" for line in (2, 3, 4, 5, 6)]
    causes = [p.cause for p in problems]
    assert "malformed JSON" in causes[0] and "not a JSON object" in causes[1]
    assert "`id`" in causes[2] and "`title`" in causes[3] and "duplicate id 'a' (first on line 1)" in causes[4]


# ---- bad input ----------------------------------------------------------------------------------


def snapshot(folder: Path) -> dict:
    """Every entry under folder (symlinks not followed, FIFOs never opened): type, size, mtime, bytes."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            st = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(st.st_mode) else None
            seen[str(path.relative_to(folder))] = (stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns, digest)
    return seen


@pytest.fixture
def shared_tmp(tmp_path):
    """A folder another user can enter: as root the unreadable file is only unreadable to someone else,
    and pytest's own temp root is private (0700)."""
    if os.geteuid() != 0:
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="olai-notes-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def interpreter_anyone_can_run() -> str | None:
    """The pyenv or venv interpreter may live under a private home; the system one does not."""
    system_python = shutil.which("python3", path="/usr/bin:/bin:/usr/local/bin")
    for candidate in (os.path.realpath(sys.executable), system_python):
        if not candidate:
            continue
        path = Path(candidate)
        if all(part.stat().st_mode & stat.S_IXOTH for part in [path, *path.parents]):
            return candidate
    return None


# Runs in a child (as nobody, when the test is root), so that a FIFO the loader wrongly opened would
# hang the child, not the test run, and so that file permissions apply. The loader's source comes on
# stdin: the child needs no access to the checkout.
LOAD_IN_CHILD = """
import json, sys, types
errors = types.ModuleType("engines.errors")  # the one project module corpus.py imports that is stubbed
exec("class BadInput(Exception): pass", errors.__dict__)
sys.modules["engines.errors"] = errors
sources = sys.stdin.read().split("\\n# ---- next module ----\\n")
for name, source in zip(%r, sources):
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(source, name, "exec"), module.__dict__)
load = module.load_corpus(sys.argv[1])
notes = [[n.id, n.title] for n in load.notes]
print(json.dumps({"notes": notes, "problems": [[p.path, p.cause] for p in load.problems]}))
""" % (LOADER_MODULES,)


def load_as_someone_else(corpus: Path) -> dict:
    as_nobody = {}
    python = sys.executable
    if os.geteuid() == 0:
        python = interpreter_anyone_can_run()
        if python is None:
            pytest.skip("no Python an unprivileged user may run, to test an unreadable file as root")
        as_nobody = {"user": 65534, "group": 65534, "extra_groups": []}
    done = subprocess.run(
        [python, "-I", "-c", LOAD_IN_CHILD, str(corpus)],
        input="\n# ---- next module ----\n".join(
            (REPO / (name.replace(".", "/") + ".py")).read_text(encoding="utf-8") for name in LOADER_MODULES),
        capture_output=True, text=True,
        timeout=60, cwd="/", env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}, **as_nobody,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_bad_input_is_named_once_and_good_notes_still_load(shared_tmp):
    corpus = shared_tmp / "notebook"
    (corpus / "garden").mkdir(parents=True)
    (corpus / "garden" / "slugs.md").write_text("# The slugs got the seedlings last year\ncopper tape\n")
    (corpus / "garden" / "compost.txt").write_text("Compost\nthree bays\n")
    good_lines = ['{"id":"a","title":"Bench"}', '{"id":"b","parent":"a","title":"Vice"}']
    (corpus / "plan.jsonl").write_text("\n".join([good_lines[0], '{"id": oops', good_lines[1]]))
    (corpus / "scan.txt").write_bytes(b"PK\x03\x04\x00\x00binary stuff")
    (corpus / "latin1.md").write_bytes(b"# Caf\xe9\nnot utf-8\n")
    (corpus / "empty.md").write_bytes(b"")
    (corpus / "blank.txt").write_text("  \n\n\t\n")
    with open(corpus / "huge.txt", "w") as f:  # 50 MB of real text, far over the cap
        chunk = "word " * 200_000
        for _ in range(50):
            f.write(chunk)
    (corpus / "loop.md").symlink_to("loop.md")  # ELOOP
    (corpus / "garden" / "up").symlink_to("..")  # a folder cycle
    (corpus / "linked.md").symlink_to(corpus / "garden" / "slugs.md")  # the same note twice: loaded once
    (corpus / "secret.md").write_text("# Secret\nnot for you\n")
    (corpus / "private").mkdir()
    (corpus / "private" / "diary.md").write_text("# Diary\n")
    os.mkfifo(corpus / "pipe.md")
    (corpus / ".git").mkdir()
    (corpus / ".git" / "HEAD.txt").write_text("ignored: hidden\n")
    for folder, dirs, files in os.walk(corpus):
        for name in dirs + files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755 if os.path.isdir(path) else 0o644)
    corpus.chmod(0o755)
    before = snapshot(corpus)
    (corpus / "secret.md").chmod(0)
    (corpus / "private").chmod(0)
    try:
        load = load_as_someone_else(corpus)
    finally:
        (corpus / "secret.md").chmod(0o644)
        (corpus / "private").chmod(0o755)
    assert snapshot(corpus) == before  # nothing created, changed or touched (chmod leaves mtimes alone)

    assert load["notes"] == [
        ["garden/compost.txt", "Compost"],
        ["garden/slugs.md", "The slugs got the seedlings last year"],
        ["plan.jsonl#a", "Bench"],
        ["plan.jsonl#b", "Vice"],
    ]
    named = {path: cause for path, cause in load["problems"]}
    assert len(named) == len(load["problems"]), "a bad file was named twice"
    expected = {
        "blank.txt": "whitespace",
        "empty.md": "empty",
        "garden/up": "cycle",
        "huge.txt": "too large (47.7 MB",
        "latin1.md": "not UTF-8 (invalid byte 0xe9 at offset 5)",
        "loop.md": "symlink loop",
        "pipe.md": "not a regular file (a FIFO)",
        "plan.jsonl:2": "malformed JSON",
        "private/": "permission denied",
        "scan.txt": "binary (NUL byte at offset 4)",
        "secret.md": "permission denied",
    }
    assert sorted(named) == sorted(expected)
    for path, words in expected.items():
        assert words in named[path], (path, named[path])


def test_a_missing_corpus_is_one_error_line_naming_the_path(tmp_path):
    missing = tmp_path / "no-such-notebook"
    with pytest.raises(CorpusError) as raised:
        load_corpus(missing)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(str(missing)) and "no such file" in message


def test_a_root_that_is_not_a_folder_or_note_file_is_an_error(tmp_path):
    (tmp_path / "photo.png").write_bytes(b"\x89PNG")
    with pytest.raises(CorpusError, match="photo.png: not a folder or a note file"):
        load_corpus(tmp_path / "photo.png")


def test_load_file_names_a_vanished_file_instead_of_raising(tmp_path):
    notes, problems = load_file(tmp_path / "gone.md", tmp_path)
    assert notes == [] and [str(p) for p in problems] == ["gone.md: no such file or folder"]
