"""Which files are notes, and the walk of a folder that finds them: each file once, real folders before
symlinks, no cycle followed; with how a path under the folder and an error met are said.

Apart from corpus.py, which reads a note file into notes: a folder walked in a second process
(engines/notes/walk_apart.py) runs the walk alone, and that process imports nothing of the reading.
"""

from __future__ import annotations

import errno
import os
import stat

from engines.folders import listed
from engines.problems import Problem

FILE_SUFFIXES = (".md", ".markdown", ".txt")  # one note per file
OUTLINE_SUFFIXES = (".jsonl", ".olai")  # one JSON object (outline node) per line
# documents, one note per page or section: engines/notes/readers/ has a reader for each (a test pins it)
DOCUMENT_SUFFIXES = (".org", ".pdf", ".html", ".htm", ".xhtml", ".docx", ".odt", ".epub")
NOTE_KINDS = " ".join(FILE_SUFFIXES + OUTLINE_SUFFIXES + DOCUMENT_SUFFIXES)
# hidden folders (.git, .obsidian, .trash, .logseq ...) are skipped too; attachments (images, PDFs) are
# not note files, so never read; Logseq's own `logseq/` folder (config.edn, bak/ copies of pages) is skipped
SKIPPED_FOLDERS = {"__pycache__", "node_modules", ".venv"}
# files that are not notes are counted by kind, never listed one by one ("skipped 8 images: not notes (.png)")
OTHER_KINDS = {"images": (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp", ".tif", ".tiff", ".heic", ".ico"),
               "archives": (".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".zst"),
               "audio and video files": (".mp3", ".wav", ".ogg", ".flac", ".m4a", ".mp4", ".mkv", ".webm", ".mov", ".avi")}


def is_note_file(path: str | os.PathLike) -> bool:
    return os.fspath(path).lower().endswith(FILE_SUFFIXES + OUTLINE_SUFFIXES + DOCUMENT_SUFFIXES)


def is_document(path: str) -> bool:
    return path.lower().endswith(DOCUMENT_SUFFIXES)


def find_note_files(top: str, seen: dict | None = None) -> tuple[list[str], list[Problem]]:
    """Every note-like path under top, sorted by relative path; each real file and folder once;
    ``seen``, when given, gets each path's (relative path, stat as found): the saved index compares
    them, and a second stat of 100,000 files is a second they need not cost.

    Real folders are walked first and symlinks after, so a note reachable both ways keeps its real
    path as its id. Visited folders are tracked by real path, so a symlink cycle is never followed.
    """
    found: dict[tuple[int, int], str] = {}  # (device, inode) -> first path seen: each file once
    problems: list[Problem] = []
    seen_folders: set[str] = set()
    links: list[str] = []
    others: dict[str, set[str]] = {}  # kind -> the names of the files of that kind not read (counted)

    def rel(path: str) -> str:
        return relative_to(path, top)

    def walk(folder: str) -> None:
        pending = [folder]
        while pending:
            current = pending.pop()
            real = os.path.realpath(current)
            if real in seen_folders:
                continue
            seen_folders.add(real)
            for entry in listed(current, rel(current), problems, cause_of):
                if entry.name.startswith("."):  # .git, editor swap and lock files
                    continue
                try:
                    if entry.is_symlink():
                        links.append(entry.path)
                    elif entry.is_dir(follow_symlinks=False):
                        if entry.name not in SKIPPED_FOLDERS and not _logseq_own(entry.path):
                            pending.append(entry.path)
                    elif is_note_file(entry.name):
                        st = entry.stat(follow_symlinks=False)
                        if found.setdefault((st.st_dev, st.st_ino), entry.path) is entry.path and seen is not None:
                            seen[entry.path] = st
                    else:
                        others.setdefault(_kind(entry.name), set()).add(entry.path)
                except OSError as error:
                    problems.append(Problem(rel(entry.path), cause_of(error)))

    walk(top)
    while links:
        links.sort(reverse=True)
        link = links.pop()
        name = os.path.basename(link)
        try:
            st = os.stat(link)
        except OSError as error:
            # a dangling or looping link is only worth naming if it could have been a note or folder
            if is_note_file(name) or "." not in name:
                broken = isinstance(error, FileNotFoundError)
                problems.append(Problem(rel(link), "broken symlink (no target)" if broken else cause_of(error)))
            continue
        if stat.S_ISDIR(st.st_mode):
            target = os.path.realpath(link)
            here = os.path.realpath(os.path.dirname(link))
            if target in seen_folders:
                if here == target or here.startswith(target.rstrip(os.sep) + os.sep):
                    problems.append(Problem(rel(link), "symlink to a folder above it (a cycle): not followed"))
            elif name not in SKIPPED_FOLDERS:
                walk(link)
        elif is_note_file(name):
            if found.setdefault((st.st_dev, st.st_ino), link) is link and seen is not None:
                seen[link] = st
    for kind, paths in sorted(others.items()):
        suffixes = sorted({os.path.splitext(p)[1].lower() for p in paths} - {""})[:6]
        noun = kind if len(paths) > 1 else kind.replace("files", "file").removesuffix("s")
        problems.append(Problem(f"{len(paths):,} {noun}", f"not notes ({' '.join(suffixes) or 'no suffix'})"))
    # every path found starts with top and a separator and has no "." or ".." in it (scandir's own
    # names joined on): cut, not relative_to's checks (0.1 s of a 100,000-note open)
    cut = len(top if top.endswith(os.sep) else top + os.sep)
    paths = list(found.values())
    rels = [shown_relative(path[cut:]) for path in paths]
    # sorted by the relative path alone: (relative path, path) pairs compared twice per step (their
    # first items for equality, then for order), 0.2 s of a 100,000-note open
    order = sorted(range(len(paths)), key=rels.__getitem__)
    if seen is not None:
        for i in order:
            seen[paths[i]] = (rels[i], seen[paths[i]])
    return [paths[i] for i in order], problems


def _kind(name: str) -> str:
    suffix = os.path.splitext(name)[1].lower()
    return next((kind for kind, suffixes in OTHER_KINDS.items() if suffix in suffixes), "other files")


def _logseq_own(folder: str) -> bool:
    return os.path.basename(folder) == "logseq" and os.path.isfile(os.path.join(folder, "config.edn"))


def cause_of(error: OSError) -> str:
    if isinstance(error, PermissionError):
        return "unreadable (permission denied)"
    if error.errno == errno.ELOOP:
        return "symlink loop (too many levels of symbolic links)"
    if isinstance(error, FileNotFoundError):
        return "no such file or folder"
    return (error.strerror or str(error)).lower()


def shown_relative(rel: str) -> str:
    """A relative path as shown in ids and messages: posix slashes, and the bytes of a file name
    that is not UTF-8 written as \\xNN (they arrive as lone surrogates that no printer takes)."""
    if os.sep == "/" and rel.isascii():
        return rel  # most paths: nothing to change (100,000 of them cost 0.5 s the long way)
    return rel.replace(os.sep, "/").encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def relative_to(path: str, top: str) -> str:
    """``path`` relative to ``top`` (both absolute), as shown: cut, not os.path.relpath (6 s of a 100k-note open)."""
    prefix = top if top.endswith(os.sep) else top + os.sep
    if path.startswith(prefix) and os.sep + ".." + os.sep not in path and os.sep + "." + os.sep not in path:
        return shown_relative(path[len(prefix):])
    return shown_relative(os.path.relpath(path, top))
