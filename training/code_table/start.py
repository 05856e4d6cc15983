"""What a training run starts from: the mined pairs, the distilled table with its PCA basis, the
tokenizer, the teacher's texts and vectors; and how its results are written (atomically).

The slow inputs are kept under the user cache dir (``<cache>/code-table/``), keyed by what makes them:
the pairs by the corpus manifest, the miner's source and the seed; MiniLM's token vectors by the
source weights' sha256; the teacher's vectors by text (teacher.py).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from training.code_table.mine import Pair

# A code text's opening that the teacher reads (~200 word pieces): MiniLM reads at most 256 and a
# chunk's cost grows with its length (8 code texts a second against 11 doc texts on 2 loaded cores);
# the regression's static side reads the same opening, so both see one text.
TEACHER_CHARS = 800
MIN_COMMENT = 16  # a comment line's characters, the shortest a teacher's text it is worth


def _cache_dir() -> Path:
    from engines.locations import cache_root

    folder = cache_root() / "code-table"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def mined_pairs(corpus: Path, semble: Path, seed: int, say: Callable[[str], None]) -> tuple[list[Pair], list[dict]]:
    from training.code_table import mine

    repos = mine.read_manifest(corpus, semble)  # refuses a benchmark repository before any cache is read
    from training.code_table import questions

    key = hashlib.sha256((corpus / "manifest.json").read_bytes() + Path(mine.__file__).read_bytes()
                         + Path(questions.__file__).read_bytes() + str(seed).encode()).hexdigest()[:16]
    path = _cache_dir() / f"pairs-{key}.json"
    if path.is_file():
        say(f"pairs from {path}")
        return [Pair(**p) for p in json.loads(path.read_text(encoding="utf-8"))], repos
    pairs, repos = mine.mine(corpus, semble, seed, say)
    write_text(path, json.dumps([p.__dict__ for p in pairs]))
    return pairs, repos


def training_chunks(corpus: Path, repos: Sequence[dict], held: set[str], seed: int,
                    say: Callable[[str], None]) -> list[str]:
    """chunks.mine_chunks, cached by the corpus manifest, the miner's source, the seed and the held-out set."""
    from training.code_table import chunks

    key = hashlib.sha256((corpus / "manifest.json").read_bytes() + Path(chunks.__file__).read_bytes()
                         + f"{seed}:{TEACHER_CHARS}:{sorted(held)}".encode()).hexdigest()[:16]
    path = _cache_dir() / f"chunks-{key}.json"
    if path.is_file():
        say(f"chunks from {path}")
        return json.loads(path.read_text(encoding="utf-8"))
    out = chunks.mine_chunks(corpus, repos, held, seed, TEACHER_CHARS, say)
    write_text(path, json.dumps(out))
    return out


def distilled(say: Callable[[str], None], split: bool = False, punctuation: bool = True):
    """(the embedder that tokenizes as the run-time code table does, the distilled table as float32,
    the PCA basis (mean, basis))."""
    from engines.embed import distill
    from engines.embed.convert import find_source

    folder = find_source(None)
    weights = folder / "model.safetensors"
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()[:16]
    path = _cache_dir() / f"token-vectors-{digest}.npy"
    if path.is_file():
        vectors = np.load(path)
    else:
        say("MiniLM's token vectors (every WordPiece through the encoder, numpy float64: about a minute)")
        vectors = distill.token_vectors(folder)
        write_bytes(path, _npy(vectors))
    table = distill.table_from(vectors).astype(np.float16).astype(np.float32)  # the shipped table, exactly
    return code_embedder(split, (), punctuation), table, distill.pca_basis(vectors)


def code_embedder(split: bool, words: Sequence[str] = (), punctuation: bool = True):
    """The run-time code table's tokenizer as the manifest will describe it (no table read)."""
    from engines.embed.code_table import CodeTableEmbedder

    return CodeTableEmbedder(_cache_dir() / "unused.npy", split=split, words=list(words), punctuation=punctuation)


def tokenizer(embedder) -> Callable[[Sequence[str]], list[np.ndarray]]:
    """Texts -> token ids exactly as engines/embed/static.py cuts them at run time."""
    def tok(texts: Sequence[str]) -> list[np.ndarray]:
        return [np.asarray(ids, np.int64) for ids in embedder.token_ids(list(texts))]
    return tok


def teacher_texts(pairs: Sequence[Pair], codes_cap: int, queries_cap: int, seed: int,
                  names_cap: int = 0, comments_cap: int = 0, chunks: Sequence[str] = (),
                  chunks_cap: int = 0) -> list[str]:
    """Distinct texts of the training pairs: up to ``codes_cap`` chunks as indexed (their first
    TEACHER_CHARS), ``queries_cap`` queries (doc comments and summary lines), ``names_cap`` symbol names
    as words (the name pairs' queries) and ``comments_cap`` line comments from inside the chunks
    (``comments``), each the head of its own seeded shuffle (so a larger cap keeps the teacher's cached
    vectors of a smaller one), in that order; then the first ``chunks_cap`` of ``chunks`` (every chunk of
    the training repositories, already shuffled: training_chunks) not taken before. A text already taken
    is not taken twice."""
    rng = np.random.default_rng(seed)
    names = sorted({p.query for p in pairs if p.kind == "name"})
    pairs = [p for p in pairs if p.kind in ("doc", "summary")]  # the teacher's cache is of these texts
    codes = sorted({p.code for p in pairs if p.kind == "summary"} or {p.code for p in pairs})
    queries = sorted({p.query for p in pairs})
    codes = [codes[i][:TEACHER_CHARS] for i in rng.permutation(len(codes))[:codes_cap]]
    queries = [queries[i] for i in rng.permutation(len(queries))[:queries_cap]]
    out = codes + queries
    if names_cap or comments_cap:  # their own generator: the caps above pick what they always picked
        more = np.random.default_rng([seed, 1])
        taken = set(out)
        names = [t for t in names if t not in taken]
        out += [names[i] for i in more.permutation(len(names))[:names_cap]]
        taken.update(out)
        lines = [t for t in comments(sorted({p.code for p in pairs if p.kind == "summary"})) if t not in taken]
        out += [lines[i] for i in more.permutation(len(lines))[:comments_cap]]
    if chunks_cap:
        taken = set(out)
        out += [t for t in chunks if t not in taken][:chunks_cap]
    return out


_COMMENT = re.compile(r"^\s*(?:#|//|--|;;|/?\*+)\s*(.+?)\s*(?:\*/)?$")
_WORD = re.compile(r"[A-Za-z]{2,}")


def comments(chunks: Sequence[str]) -> list[str]:
    """The distinct line comments inside ``chunks`` (#, //, --, ;;, and a block comment's lines), each at
    least MIN_COMMENT characters and three words long: the natural language a code's author wrote beside
    it, which the teacher reads as a query's words; sorted."""
    found = set()
    for chunk in chunks:
        for line in chunk.splitlines():
            m = _COMMENT.match(line)
            if m and len(m.group(1)) >= MIN_COMMENT and len(_WORD.findall(m.group(1))) >= 3:
                found.add(m.group(1))
    return sorted(found)


# A language as a person names it in a query ("python read a file", "c++ sort a vector")
SPOKEN = {"cpp": "c++", "csharp": "c#"}


def language_queries(pairs: Sequence[Pair], share: float, seed: int) -> list[Pair]:
    """``pairs`` with a seeded ``share`` of their queries led by their language's name, as web queries
    often are (a query names the language, the code does not): the table learns what that word is worth."""
    from dataclasses import replace

    if share <= 0:
        return list(pairs)
    chosen = np.random.default_rng([seed, 2]).random(len(pairs)) < share
    return [replace(p, query=f"{SPOKEN.get(p.language, p.language)} {p.query}") if c else p
            for p, c in zip(pairs, chosen.tolist())]


def regressed(table: np.ndarray, ids: Sequence[np.ndarray], targets: np.ndarray, epochs: int, batch: int,
              lr: float, seed: int, say: Callable[[str], None]) -> np.ndarray:
    """train.regress on a copy of ``table``, cached by everything it reads (the table, the texts' ids, the
    targets, the settings): runs that differ only after the regression share it (~8 minutes on 2 cores)."""
    from training.code_table import train

    digest = hashlib.sha256(table.tobytes() + targets.tobytes() + f"{epochs}:{batch}:{lr}:{seed}".encode())
    for t in ids:
        digest.update(t.tobytes() + b"\xff" * 8)
    path = _cache_dir() / f"regressed-{digest.hexdigest()[:16]}.npy"
    if path.is_file():
        say(f"the regression from {path}")
        return np.load(path)
    out = table.copy()
    train.regress(out, ids, targets, epochs, batch, lr, seed, say)
    write_bytes(path, _npy(out))
    return out


def teacher(texts: Sequence[str], say: Callable[[str], None], cached_only: bool = False):
    from training.code_table.teacher import teacher_vectors

    return teacher_vectors(texts, say, cached_only)


TARGETS = ("token-mean", "rotated", "centred")


def projected(vectors: np.ndarray, basis: tuple[np.ndarray, np.ndarray], how: str = "token-mean") -> np.ndarray:
    """MiniLM's sentence vectors into the table's PCA space, unit length (the regression's targets).
    ``token-mean``: less the token vectors' mean first, as the table's rows were (the first recipe: its
    targets share one direction, a mean pairwise cosine of 0.93 against MiniLM's own 0.09); ``rotated``:
    the sentence vectors turned into the basis as they are; ``centred``: less the targets' own mean."""
    mean, components = basis
    if how == "rotated":
        mean = np.zeros_like(mean)
    out = ((vectors.astype(np.float64) - mean) @ components).astype(np.float32)
    if how == "centred":
        out -= out.mean(axis=0, keepdims=True)
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
    return out


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def write_table(path: Path, table: np.ndarray) -> str:
    data = _npy(table.astype(np.float16))
    write_bytes(path, data)
    return hashlib.sha256(data).hexdigest()


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path: Path, data: bytes) -> None:
    """A temporary file beside ``path``, then a rename: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
