"""Text from a corpus made safe for a terminal: shown, never executed.

Notes come from cloned vaults, catalogues from partners' files, code from any repository: their text is
not the user's to trust. An escape sequence in a title would recolour the screen, set the window title
or (OSC 52) write the clipboard; a bidi override would reorder what follows on the line (Trojan Source,
CVE-2021-42574; kubectl's CVE-2021-25743 is the same class). This module is the one place that maps
such characters to something visible; the workbench (olai_tui/ui/text.py) and the command line
(``ShownStream`` around stdout and stderr) both use it, and ``--json`` keeps the exact text, escaped
(``json_text``).

- C0 controls and DEL: their control pictures (ESC as ␛, BEL as ␇, NUL as ␀, DEL as ␡); newline and
  tab kept (each output lays them out as it expects); a CR that ends a CRLF line is dropped, a lone CR
  is pictured (it would draw the rest of a line over its start).
- C1 controls (U+0080-U+009F): ␛ and the 7-bit character that stands for them (ECMA-48 5.3: CSI U+009B
  is ESC [), so U+009B shows as ␛[.
- Bidi embeddings, overrides and isolates (U+202A-E, U+2066-9): removed; right-to-left letters stay.
- Lone surrogates (a file name's undecodable bytes, read with surrogateescape): U+FFFD, so printing
  never fails on them.

Pure ``str`` functions: no terminal library, importable by engines and by the UI alike.
"""

from __future__ import annotations

import re
from typing import TextIO

_C0 = {code: chr(0x2400 + code) for code in range(0x20) if chr(code) not in "\n\t"}
_C0[0x7F] = "\u2421"
_C1 = {code: "\u241b" + chr(code - 0x40) for code in range(0x80, 0xA0)}
# Embeddings, overrides and isolates (U+202A-E, U+2066-9): they reorder what follows on the line.
BIDI_CONTROLS = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
_SURROGATES = {code: "\ufffd" for code in range(0xD800, 0xE000)}
_SHOWN = str.maketrans({**_C0, **_C1, **{code: None for code in BIDI_CONTROLS}, **_SURROGATES})
# What a terminal could act on, or what a strict UTF-8 writer cannot write: a fast test before translating.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_WHITESPACE = re.compile(r"\s+")
# What json.dumps(ensure_ascii=False) leaves raw that a terminal would act on or cannot print: it
# escapes C0 itself. Escaped as \\uXXXX the JSON still reads back to the exact text.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def shown(text: str) -> str:
    """Text with its control characters pictured and bidi controls removed; newlines and tabs kept."""
    if not _UNSAFE.search(text):
        return text
    return text.replace("\r\n", "\n").translate(_SHOWN)


def one_line(text: str) -> str:
    """For a table cell or a one-line message: every run of white space as one space, controls shown."""
    return _WHITESPACE.sub(" ", shown(text)).strip()


def json_text(dumped: str) -> str:
    """A JSON document (``json.dumps(..., ensure_ascii=False)``) with what a terminal would act on
    escaped: it still decodes to the exact text."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)


class ShownStream:
    """A text stream whose ``write`` shows what it is given (``shown``): the command line wraps stdout
    and stderr in it, so no path that prints a title, a path or a row can reach the terminal raw, and
    a path added later cannot either. The program's own terminal sequences (a progress line's redraw,
    bold) go through ``write_control``, the one way around it."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(shown(text))

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def write_control(self, sequence: str) -> int:
        return self._stream.write(sequence)

    def __getattr__(self, name: str):  # flush, isatty, fileno, encoding, buffer: the stream's own
        return getattr(self._stream, name)


def write_control(stream: TextIO, sequence: str) -> None:
    """Write the program's own terminal sequence (``\\r\\x1b[2K``, bold on and off) to ``stream``
    unshown: through a ``ShownStream``'s one way around, or as it is to any other stream."""
    getattr(stream, "write_control", stream.write)(sequence)


def print_bold(line: str, out: TextIO, bold: bool) -> None:
    """A summary line, bold where asked (a terminal, NO_COLOR unset): the line may name a file or a
    tier's reason, so only the bold is written raw."""
    if bold:
        write_control(out, "\x1b[1m")
    out.write(line)
    if bold:
        write_control(out, "\x1b[0m")
    out.write("\n")
