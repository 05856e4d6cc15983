"""The notes corpus: a folder (or one file) of notes read into Note records (the walk that finds a
folder's note files is engines/notes/note_files.py).

Bad input never stops a load: each bad file (or outline line) is named once as a Problem and every
good note still loads. Only a root that is missing, unreadable or not a folder/note file raises
CorpusError. Nothing is ever written.
"""

from __future__ import annotations

from engines.errors import BadInput

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass

from engines.notes.vault import journal_date, read_meta, _epoch as epoch_of
from engines.notes.note_files import (NOTE_KINDS, OUTLINE_SUFFIXES, cause_of, find_note_files, is_document,
                                      is_note_file, relative_to, shown_relative)
from engines.problems import Problem

# 5 MB is some 850,000 words: not a note but a log, a dump or a book pasted in. The biggest real notes
# file here, olai-roadmap.jsonl (181 nodes), is 0.24 MB: 20x headroom. Past the cap, at the 2,125
# tokens/s measured for the embedder on 2 cores, one such file (~1.2M tokens) would hold up the index
# for ten minutes; the 50 MB of the bad-input test, for over an hour.
MAX_FILE_BYTES = 5 * 1024 * 1024
BINARY_SNIFF_BYTES = 8192  # a NUL byte this early means a binary file, as git and grep decide it
UTF8_BOM = b"\xef\xbb\xbf"
LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")

# A '#tag' starts with a letter and is not glued to a word, a '/' (URL fragments) or '&' (entities):
# "PR #56", "bun2nix#2" and "# Heading" are not tags.
HASHTAG = re.compile(r"(?<![\w&#/])#([^\W\d_][\w-]*(?:/[\w-]+)*)")
TAGS_LINE = re.compile(r"^[ \t]*tags[ \t]*:[ \t]*(.*)$", re.IGNORECASE | re.MULTILINE)
SETEXT_UNDERLINE = re.compile(r"^[ \t]*(=+|-+)[ \t]*\r?$")


class _BodyKept:
    __slots__ = ("_body",)  # where a Note keeps its body (below): its text, or a SavedBody


# slots: 100,000 notes held 20.8 MB as objects with a __dict__ each, 10.4 MB fewer with slots
# (the 100,000-note vault, 2026-12-03)
@dataclass(frozen=True, slots=True)
class Note(_BodyKept):
    id: str  # relative posix path (files); "relpath#node-id" (outline nodes)
    title: str  # first heading or first non-empty line (files); `title` (outline)
    body: str  # the rest of the text as is (files: everything after the title line; outline: `desc`)
    where: str  # relative path (files); "relpath:LINE", 1-based (outline nodes)
    path: str  # absolute path of the file it came from
    tags: tuple[str, ...] = ()  # without the '#'
    parent: str | None = None  # outline: the parent's Note.id; files: None
    content_hash: str = ""  # sha256 of title + "\n" + body: the key of its cached vectors
    aliases: tuple[str, ...] = ()  # other names (front matter `aliases`), searched like the title
    date: float | None = None  # seconds since the epoch: front matter date/created/updated, else the file's mtime


def stored_body(note: Note):
    """The body as the note keeps it: its text, or a SavedBody not read yet (engines/notes/bodies.py)."""
    return note._body


def _body(note: Note) -> str:
    body = stored_body(note)
    return body if body.__class__ is str else body.text()


keep_body = _BodyKept._body.__set__  # only __init__ (and a Note read back) sets it: the dataclass is frozen


def _keep_body(note: Note, body) -> None:
    keep_body(note, body)


# A note's body is kept as its text, or, for a note read back from the notes index, as a SavedBody
# read when asked for (engines/notes/bodies.py); the dataclass's __init__, __eq__, __repr__, pickling
# and dataclasses.replace all go through this property, so both read as the same text. (The slot the
# dataclass made for ``body`` stays empty.)
Note.body = property(_body, _keep_body, doc="the rest of the text as is (files: everything after the title line; "
                                             "outline: `desc`)")


def held_list(notes) -> list[Note]:
    """``notes`` as a list the caller keeps: the engine's own list as it is (it is never changed once
    handed over; a copy per tier held 0.8 MB each at 100,000 notes), anything else copied."""
    return notes if type(notes) is list else list(notes)


@dataclass
class CorpusLoad:
    notes: list[Note]
    problems: list[Problem]


class CorpusError(BadInput):
    """The corpus root itself is missing, unreadable or not a folder or note file (one-line message)."""


def load_corpus(root: str | os.PathLike) -> CorpusLoad:
    shown = os.fspath(root).replace("\n", "\\n")  # the error is one line, whatever the name
    top = os.path.abspath(os.fspath(root))
    try:
        st = os.stat(top)
        if stat.S_ISDIR(st.st_mode):
            os.scandir(top).close()
        elif not is_note_file(top):
            raise CorpusError(f"{shown}: not a folder or a note file ({NOTE_KINDS})")
        elif not stat.S_ISREG(st.st_mode):
            raise CorpusError(f"{shown}: not a regular file ({_kind_of(st.st_mode)})")
        else:
            os.close(os.open(top, os.O_RDONLY | os.O_NONBLOCK))
    except OSError as error:
        raise CorpusError(f"{shown}: {cause_of(error)}") from None
    if not stat.S_ISDIR(st.st_mode):
        notes, problems = load_file(top, top)
        return CorpusLoad(notes, problems)
    files, problems = find_note_files(top)
    notes: list[Note] = []
    for path in files:
        file_notes, file_problems = load_file(path, top)
        notes += file_notes
        problems += file_problems
    problems.sort(key=lambda p: natural_key(p.path))
    return CorpusLoad(notes, problems)


def load_file(path: str | os.PathLike, root: str | os.PathLike) -> tuple[list[Note], list[Problem]]:
    """The notes of one file (the watcher calls this on change), or the one problem that stops it."""
    path, root = os.path.abspath(os.fspath(path)), os.path.abspath(os.fspath(root))
    rel = shown_relative(os.path.basename(path)) if path == root else relative_to(path, root)
    if is_document(path):  # PDF, Org, HTML, Word, OpenDocument, EPUB: engines/notes/readers/
        from engines.notes.documents import document_notes

        try:
            mtime = os.stat(path).st_mtime
        except OSError as error:
            return [], [Problem(rel, cause_of(error))]
        return document_notes(path, rel, mtime, _note)
    text = _read_text(path)
    if isinstance(text, Problem):
        text.path = rel
        return [], [text]
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        mtime = None
    if path.lower().endswith(OUTLINE_SUFFIXES):
        return _outline_notes(text, rel, path, mtime)
    note, problem = _file_note(text, rel, path, mtime)
    return [note], [Problem(rel, problem, skipped=False)] if problem else []


def _read_text(path: str) -> str | Problem:
    """The file's text, BOM stripped, or the Problem that makes it unusable (the caller names the path)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            # a FIFO would block the open until someone writes to it; a device may never end
            return Problem(path, f"not a regular file ({_kind_of(st.st_mode)}): not opened")
        if st.st_size > MAX_FILE_BYTES:
            return Problem(path, _too_large(st.st_size))
        # O_NONBLOCK: should a FIFO have replaced the file since the stat, the open still returns
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return Problem(path, "not a regular file: not read")
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        return Problem(path, cause_of(error))
    if len(data) > MAX_FILE_BYTES:  # it grew since the stat
        return Problem(path, _too_large(len(data)))
    nul = data.find(b"\0", 0, BINARY_SNIFF_BYTES)
    if nul >= 0:
        return Problem(path, f"binary (NUL byte at offset {nul})")
    skipped = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    try:
        text = data[skipped:].decode("utf-8")
    except UnicodeDecodeError as error:
        bad = data[skipped + error.start]
        return Problem(path, f"not UTF-8 (invalid byte 0x{bad:02x} at offset {skipped + error.start})")
    if not text.strip():
        return Problem(path, "empty file" if not text else "only whitespace")
    return text


def _outliner_page(text: str, path: str) -> bool:
    return path.lower().endswith((".md", ".markdown")) and text.lstrip().startswith(("- ", "* ")) \
        and not text.lstrip().startswith(("---", "***"))


def _page_name(rel: str) -> str:
    """Logseq's page name from its file: "pages/Cold frame.md" -> "Cold frame", journals "2024_03_01" -> "2024-03-01"."""
    stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    stem = stem.replace("%2F", "/").replace("___", "/")
    return re.sub(r"^(\d{4})_(\d{2})_(\d{2})$", r"\1-\2-\3", stem)


def _file_note(text: str, rel: str, path: str, mtime: float | None = None) -> tuple[Note, str | None]:
    """The note of a file, and the problem with its front matter (named once; the note is still read)."""
    meta = read_meta(text)
    start = meta.start
    title, body = "", ""
    for line, line_end in _lines(text, start):
        title = line.strip().lstrip("#").strip()
        if title.strip("-=*_ \t"):  # the first line with words in it: not "###" alone, not a "---" rule
            body = text[line_end:]
            heading = line.lstrip().startswith("#")
            under = next(_lines(body, 0), None)
            if not heading and under and path.lower().endswith((".md", ".markdown")):
                if SETEXT_UNDERLINE.match(under[0]):  # "Title\n=====" is a heading too
                    body = body[under[1]:]
            break
    else:  # nothing but rules and bare '#'s
        title, body = "", text[start:]
    if meta.title:  # the front matter's title names the note; the first line stays part of its text
        title, body = meta.title, text[start:]
    elif _outliner_page(text[start:], path):  # a Logseq page is all bullets: its name is its file name
        title, body = _page_name(rel), text[start:]
    date = meta.date if meta.date is not None else journal_date(rel) if journal_date(rel) is not None else mtime
    tags = _tags_in(text[start:]) + tuple(meta.tags)
    return _note(rel, title, body, rel, path, tags, None, tuple(meta.aliases), date), meta.problem


def _outline_notes(text: str, rel: str, path: str, mtime: float | None = None) -> tuple[list[Note], list[Problem]]:
    notes: list[Note] = []
    problems: list[Problem] = []
    first_line_of: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{rel}:{number}"
        try:
            node = json.loads(line)
        except (ValueError, RecursionError) as error:
            detail = f"{error.msg}, column {error.colno}" if isinstance(error, json.JSONDecodeError) else "too deep"
            problems.append(Problem(where, f"malformed JSON ({detail})"))
            continue
        if not isinstance(node, dict):
            problems.append(Problem(where, f"not a JSON object (a {type(node).__name__})"))
            continue
        node_id = node.get("id")
        if isinstance(node_id, int) and not isinstance(node_id, bool):
            node_id = str(node_id)
        if not isinstance(node_id, str) or not node_id.strip():
            problems.append(Problem(where, "node without an `id`: skipped"))
            continue
        if "title" not in node and "mirror" in node:
            continue  # a mirror shows another node (its `mirror` id) in a second place: that node is the note
        if not isinstance(node.get("title"), str):
            problems.append(Problem(where, f"node {node_id!r} without a `title`: skipped"))
            continue
        if node_id in first_line_of:
            first = first_line_of[node_id]
            problems.append(Problem(where, f"duplicate id {node_id!r} (first on line {first}): skipped"))
            continue
        first_line_of[node_id] = number
        desc, parent, listed = node.get("desc"), node.get("parent"), node.get("tags")
        title = _text(node["title"].strip())
        body = _text(desc if isinstance(desc, str) else "" if desc is None else json.dumps(desc, ensure_ascii=False))
        listed = [_text(str(tag).lstrip("#")) for tag in listed] if isinstance(listed, list) else []
        parent = f"{rel}#{_text(str(parent))}" if isinstance(parent, (str, int)) and str(parent) else None
        tags = tuple(listed) + _tags_in(title + "\n" + body)
        date = epoch_of(node.get("date"))
        notes.append(_note(f"{rel}#{_text(node_id)}", title, body, where, path, tags, parent,
                           date=date if date is not None else mtime))
    return notes, problems


def _note(id: str, title: str, body: str, where: str, path: str, tags: tuple[str, ...], parent: str | None,
          aliases: tuple[str, ...] = (), date: float | None = None) -> Note:
    digest = hashlib.sha256((title + "\n" + body).encode("utf-8")).hexdigest()
    return Note(id, title, body, where, path, tuple(dict.fromkeys(tags)), parent, digest, aliases, date)


def _lines(text: str, start: int):
    """(line without its newline, offset just past its newline) from start on; not str.splitlines,
    which also splits at form feeds and U+2028 and would lose the exact body offsets."""
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield text[start:end], min(end + 1, len(text))
        start = end + 1


def _tags_in(text: str) -> tuple[str, ...]:
    """'#hashtags' anywhere and the words of a 'tags:' line (the front matter's come from vault.py)."""
    tags = [match.rstrip("-/") for match in HASHTAG.findall(text)]
    for line in TAGS_LINE.findall(text):
        words = re.split(r"\s*,\s*" if "," in line else r"\s+", line.strip().strip("[]"))
        tags += [word.strip("'\"#[] ") for word in words if word.strip("'\"#[] ")]
    return tuple(tag for tag in tags if tag)


def _too_large(size: int) -> str:
    return f"too large ({size / 1048576:.1f} MB; notes over {MAX_FILE_BYTES // 1048576} MB are skipped)"


def _kind_of(mode: int) -> str:
    kinds = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
             stat.S_IFBLK: "a block device", stat.S_IFDIR: "a folder"}
    return kinds.get(stat.S_IFMT(mode), "not a plain file")


def natural_key(rel: str) -> tuple:
    # problems by path, then by outline line as a number ("a:10" after "a:9")
    head, _, line = rel.rpartition(":")
    return (head, int(line)) if line.isdigit() and head else (rel, 0)


def _text(value: str) -> str:
    # a JSON "\ud800" escape decodes to a lone surrogate, which no encoder or printer accepts
    return LONE_SURROGATE.sub("\ufffd", value)

