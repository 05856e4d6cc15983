"""A request's last word is its head ("label printer" is a printer): a product whose name holds every
word said, but the head straight before another word said ("printer label"), is a stand-in saying why,
never exact; a name that also holds the request's order stays exact. On a catalogue written here."""

from __future__ import annotations

import pytest

from engines.products.head_word import head_used_as_modifier
from tests.engines.written_shop import NO_VECTORS, written_shop

CATALOGUE = ("id;title;brand;description\n"
             "1;Brother DK-1201 printer label White;Brother;Self-adhesive labels for label printers\n"
             "2;Brother QL-500 label printer Direct thermal;Brother;Prints address labels\n"
             "3;HERMA 4914 printer labels White;HERMA;A4 sheets of labels\n"
             "4;DYMO LabelManager 160 label printer;DYMO;Handheld\n")


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    with written_shop(tmp_path_factory, CATALOGUE) as engine:
        yield engine


def test_the_head_said_last_decides_what_the_product_is(shop):
    found = shop.answer("label printer", limit=10, sources=NO_VECTORS)
    rows = [(h.title, h.extras["label"], h.extras["why"]) for h in found.hits]
    assert {r[0] for r in rows[:2]} == {"Brother QL-500 label printer Direct thermal", "DYMO LabelManager 160 label printer"}
    assert all(r[1] == "exact" for r in rows[:2]), rows
    rolls = [r for r in rows if "printer label" in r[0]]
    assert len(rolls) == 2 and all(r[1] == "standin" and r[2].startswith("a printer label") for r in rolls), rows
    said = {w["word"]: w for w in found.extras["understood"]["words"]}
    assert said["printer"]["as"] == "word" and "the head" in said["printer"]["detail"]
    assert said["label"]["as"] == "word"  # no kind read: no word narrows one (it was said a "source")
    # and the other way round: asked for labels, the labels are the thing, the printers not
    found = shop.answer("printer labels", limit=10, sources=NO_VECTORS)
    labels = {h.title: h.extras["label"] for h in found.hits}
    assert labels["HERMA 4914 printer labels White"] == "exact" and labels["Brother QL-500 label printer Direct thermal"] != "exact"


@pytest.mark.parametrize("said, names, phrase", [
    (["label", "printer"], ["Brother DK-1201 printer label White"], "printer label"),
    (["label", "printer"], ["Label printer with printer labels"], None),  # the request's order there too
    (["label", "printer"], ["Printer, label maker"], None),  # a comma is no compound
    (["printer"], ["printer label"], None),
    (["usb", "hub"], ["USB-C hub with HDMI"], None),
])
def test_head_used_as_modifier(said, names, phrase):
    assert head_used_as_modifier(said, names) == phrase
