"""The zip container of DOCX, ODT and EPUB, read with bounds: a zip bomb posing as a document is
stopped at what it expands to, not at what it claims (a member's declared size can lie), and named."""

from __future__ import annotations

import io
import zipfile

from engines.notes.readers import Unreadable

# what one document's members may expand to, read, in all: a 600-page novel's EPUB holds ~3 MB of
# XHTML, a 300-page report's document.xml ~10 MB
MAX_EXPANDED_BYTES = 48 * 1024 * 1024
MAX_MEMBERS = 10_000
CHUNK = 1 << 20


class Container:
    def __init__(self, data: bytes, kind: str) -> None:
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, ValueError, OSError):
            raise Unreadable(f"damaged (not a {kind}: no zip container)") from None
        if len(self.zip.infolist()) > MAX_MEMBERS:
            raise Unreadable(f"{len(self.zip.infolist()):,} parts in one {kind}: not read (a zip bomb?)")
        self.names = set(self.zip.namelist())
        self.left = MAX_EXPANDED_BYTES
        self.kind = kind

    def read(self, name: str) -> bytes | None:
        """A member's bytes, or None where there is none; Unreadable once the document expands past the cap."""
        if name not in self.names:
            return None
        out = bytearray()
        try:
            with self.zip.open(name) as member:
                while True:
                    chunk = member.read(min(CHUNK, self.left + 1))
                    if not chunk:
                        break
                    out += chunk
                    self.left -= len(chunk)
                    if self.left < 0:
                        raise Unreadable(f"expands past {MAX_EXPANDED_BYTES // 1048576} MB: not read (a zip bomb?)")
        except (zipfile.BadZipFile, EOFError, NotImplementedError, RuntimeError) as error:
            raise Unreadable(f"damaged ({name}: {' '.join(str(error).split())[:100]})") from None
        return bytes(out)
