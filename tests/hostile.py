"""A hostile corpus for all three engines: titles, bodies, doc comments, product names and brands, file
and folder names holding what a terminal would act on (issue 44).

Built into a test's own folder, not committed: a file name with ESC in it is a trap for every tool that
lists the repository. Each corpus also holds one plain, findable item beside the hostile ones.
"""

from __future__ import annotations

from pathlib import Path

ESC, BEL, CSI_C1 = "\x1b", "\x07", "\x9b"
SET_TITLE = f"{ESC}]2;PWNED{BEL}"  # OSC 2: the window title
RED = f"{ESC}[31m"  # SGR: recolours whatever follows
CLIPBOARD = f"{ESC}]52;c;cHduZWQ={BEL}"  # OSC 52: writes the clipboard where a terminal allows it
RLO = "\u202e"  # right-to-left override: reverses the rest of the line
HOSTILE = f"{SET_TITLE}{RED}{RLO}{CSI_C1}2J{CLIPBOARD}"
# A character of each kind the terminal must never receive raw from a corpus.
RAW = [ESC, BEL, CSI_C1, RLO, "\r", "\x08"]

NOTE_TITLE = f"The slugs got the seedlings {HOSTILE}again"
PRODUCT_NAME = f"Oat milk {HOSTILE}barista"
PRODUCT_BRAND = f"Oatly{RED}{CSI_C1}"
FUNCTION_DOC = f"Prompt the user for confirmation {HOSTILE}before deleting."


def notes(root: Path) -> Path:
    """A notes folder: a hostile title in a hostile folder, a hostile file name, a plain note."""
    folder = root / "notes"
    inner = folder / f"beds{ESC}[5m"
    inner.mkdir(parents=True)
    (inner / "slugs.md").write_text(f"# {NOTE_TITLE}\n\nSnails and slugs ate the seedlings.\x1b]0;x\x07\n",
                                    encoding="utf-8")
    (folder / f"snails{BEL}{ESC}[2J.md").write_text("# Snails by night\n\nSnails climb the frame.\n", encoding="utf-8")
    (folder / "plain.md").write_text("# Compost\n\nTurn the heap; snails hide under it.\n", encoding="utf-8")
    return folder


def catalogue(root: Path) -> Path:
    """A product CSV: a hostile name and brand, a row that cannot be read (its content is quoted back)."""
    path = root / f"catalogue{ESC}]2;x{BEL}.csv"
    rows = [
        "code,product_name,brands,quantity,categories",
        f'1001,"{PRODUCT_NAME}","{PRODUCT_BRAND}",1 l,oat drinks',
        "1002,Oat milk,Plain Oats,1 l,oat drinks",
        f'"1003,"broken{ESC}[31m row',
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def code(root: Path) -> Path:
    """A code tree: a hostile doc comment and function in a hostile folder, a plain function."""
    folder = root / "code"
    inner = folder / f"cli{ESC}[7m"
    inner.mkdir(parents=True)
    (inner / "prompts.py").write_text(
        f'def confirm(question):\n    """{FUNCTION_DOC}"""\n    return input(question) == "y"\n', encoding="utf-8")
    (folder / "plain.py").write_text('def ask_again(question):\n    """Ask the user again."""\n    return question\n',
                                     encoding="utf-8")
    return folder


def raw_controls(text: str) -> list[str]:
    """The characters in ``text`` that a terminal would act on, or a bidi override: none may be printed."""
    return [ch for ch in text if ch in RAW or "\x00" <= ch < " " and ch not in "\n\t" or "\x7f" <= ch <= "\x9f"
            or "\u202a" <= ch <= "\u202e" or "\u2066" <= ch <= "\u2069"]
