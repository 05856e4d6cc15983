"""Enter on a document hit: a PDF opens in the person's viewer at the hit's page, an Org section in
$EDITOR at its heading's line (olai_tui/ui/viewer.py, the adapter's target)."""

from __future__ import annotations

import time

from engines.notes.engine import NotesEngine
from olai_tui.ui.generic_adapter import EngineAdapter
from olai_tui.ui.viewer import start_viewer, viewer_command
from tests.documents_written import write_folder


def test_the_viewer_command_takes_the_path_and_the_page():
    assert viewer_command("my paper.pdf", 3, "zathura --page={page} {path}") == ["zathura", "--page=3", "my paper.pdf"]
    assert viewer_command("a.pdf", None, "okular -p {page}") == ["okular", "-p", "1", "a.pdf"]


def test_a_pdf_hit_opens_at_its_page_and_an_org_section_at_its_line(tmp_path):
    folder = write_folder(tmp_path / "notebook")
    adapter = EngineAdapter(NotesEngine(folder, cache_dir=str(tmp_path / "cache")))
    engine = adapter.engine
    pdf_hit = engine.collect("q", engine.search("zeppelinword", tiers=("exact",))).hits[0]
    target = adapter.target(pdf_hit, "zeppelinword")
    assert (target.path, target.line, target.page) == (str(folder / "paper.pdf"), None, 3)
    org_hit = engine.collect("q", engine.search("marigoldsentinel", tiers=("exact",))).hits[0]
    assert adapter.target(org_hit, "marigoldsentinel").line == 16
    said = tmp_path / "said"  # a real viewer command, run apart, told the page
    start_viewer(viewer_command(target.path, target.page, f"sh -c 'echo {{page}} > {said}'"))
    deadline = time.monotonic() + 10
    while not (said.exists() and said.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert said.read_text().strip() == "3"
