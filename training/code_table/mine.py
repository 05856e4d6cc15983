"""Mining (query, code) pairs from the training corpus with the code engine's own parser.

Every repository of ``<corpus>/manifest.json`` is read as the code pane reads a tree
(engines/code/corpus.py: ast for Python, tree-sitter for the other 18 languages), so a symbol's text
here is the text the pane embeds. Two kinds of pair, each measured for what it buys (docs/code-embedder.md):

- ``doc``: a symbol's doc comment -> its code with the doc's lines taken out (the code must be found
  by what it does, not by the words of its own comment), as CodeSearchNet and CornStack pair them;
- ``summary``: the doc's first line -> the whole chunk as the pane indexes it (a query-like line to
  the text a search meets);
- ``name``: a documented symbol's name split into words -> its code less its doc (how a person
  says what a function is called, against the camelCase its pieces are cut from);
- ``question``: a question about the repository built from the symbol's summary, name and module
  (questions.py: "how does X ...", "where is Y implemented", a bare name) -> the whole chunk.

Both sides at least MIN_CHARS (potion-code-16M's 32), deduplicated on either side, at most PER_REPO
pairs of a kind from one repository (chosen by a seeded hash, so no one repository dominates and a
rerun picks the same). Whole repositories are held out for the validation figure (``held_out``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

MIN_CHARS = 32
KINDS = ("doc", "summary", "name", "question")
PER_REPO = 1500  # of each kind: 57 repositories hold ~54,000 documented functions, lodash's alone ~600
HELD_OUT_LANGUAGES = 6  # languages that lend one repository each to validation
MAX_DOC_CHARS = 1000  # a doc's opening: the rest is parameter lists and examples


class CorpusRefused(Exception):
    """The corpus cannot be trained on: the message says which file or repository and why."""


@dataclass(frozen=True)
class Pair:
    repo: str
    language: str
    kind: str  # doc | summary
    query: str
    code: str


def benchmark_names(semble: Path) -> set[str]:
    """The 63 benchmark repositories' names and URLs (semble's repos.json), lower-cased."""
    path = semble / "repos.json"
    try:
        repos = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusRefused(f"{path}: cannot read the benchmark's repository list ({exc})") from None
    names = set()
    for r in repos:
        names.add(r["name"].lower())
        names.add(_url_name(r.get("url", "")))
    names.discard("")
    return names


def _url_name(url: str) -> str:
    return url.lower().rstrip("/").removesuffix(".git").rsplit("/", 1)[-1] if url else ""


def read_manifest(corpus: Path, semble: Path) -> list[dict]:
    """The corpus's repositories; refuses one that is a benchmark repository, by name or by URL."""
    path = corpus / "manifest.json"
    try:
        repos = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusRefused(f"{path}: cannot read the corpus manifest ({exc})") from None
    banned = benchmark_names(semble)
    for r in repos:
        for name in (r["name"].lower(), _url_name(r.get("url", ""))):
            if name in banned:
                raise CorpusRefused(f"{path}: {r['name']} is one of the benchmark's repositories ({name}): "
                                    "the table must never be trained on what it is measured on")
    on_disk = {p.name.lower() for p in (corpus / "repos").iterdir()} if (corpus / "repos").is_dir() else set()
    for name in on_disk & banned:
        raise CorpusRefused(f"{corpus / 'repos' / name}: a benchmark repository in the training corpus")
    return repos


def held_out(repos: list[dict], seed: int) -> set[str]:
    """One repository from each of HELD_OUT_LANGUAGES languages, chosen by a seeded hash."""
    languages = sorted({r["language"] for r in repos}, key=lambda lang: _rank(seed, lang))[:HELD_OUT_LANGUAGES]
    out = set()
    for lang in languages:
        out.add(min((r["name"] for r in repos if r["language"] == lang), key=lambda n: _rank(seed, n)))
    return out


def _rank(seed: int, text: str) -> bytes:
    return hashlib.sha256(f"{seed}:{text}".encode()).digest()


_SPACE = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


def without_doc(source: str, doc: str) -> str:
    """The source less every line that carries a line of its doc (comment markers and quotes vary by
    language; the doc's own words are what must go)."""
    marks = {line.strip() for line in doc.splitlines() if len(line.strip()) >= 4}
    if not marks:
        return source
    kept = [line for line in source.splitlines() if not any(m in line for m in marks)]
    return "\n".join(kept)


def repo_pairs(root: Path, repo: str, language: str, seed: int) -> list[Pair]:
    from engines.code.corpus import load_sources, tree_source
    from engines.code.symbols import embed_text
    from engines.lexical import split_identifier
    from training.code_table.questions import question

    load = load_sources([tree_source(root)])
    out: list[Pair] = []
    for s in load.symbols:
        if not s.docstring or "@" in s.id.rsplit("::", 1)[-1]:  # a long symbol's later parts have no doc
            continue
        doc = s.docstring.strip()[:MAX_DOC_CHARS]
        code = without_doc(embed_text(s), s.docstring).strip()
        if len(doc) >= MIN_CHARS and len(code) >= MIN_CHARS:
            out.append(Pair(repo, language, "doc", doc, code))
        words = _name_words(s.qualname)
        if len(words.split()) >= 2 and len(code) >= MIN_CHARS:
            out.append(Pair(repo, language, "name", words, code))
        summary = s.summary
        if len(summary) >= MIN_CHARS // 2 and len(embed_text(s)) >= MIN_CHARS:
            out.append(Pair(repo, language, "summary", summary, embed_text(s)))
        asked = question(seed, s.id, summary, words, s.qualname.rsplit(".", 1)[-1].rsplit("::", 1)[-1], s.kind,
                         " ".join(split_identifier(s.module.rsplit(".", 1)[-1])))
        if len(asked) >= MIN_CHARS // 4 and len(embed_text(s)) >= MIN_CHARS:
            out.append(Pair(repo, language, "question", asked, embed_text(s)))
    return out


def _name_words(qualname: str) -> str:
    """A symbol's own name as words: ``RateLimiter.allowRequest`` -> "allow request"."""
    from engines.lexical import split_identifier

    return " ".join(split_identifier(qualname.rsplit(".", 1)[-1].rsplit("::", 1)[-1]))


def mine(corpus: Path, semble: Path, seed: int, say=print) -> tuple[list[Pair], list[dict]]:
    """Every repository's pairs, deduplicated and capped; (pairs, the manifest's repositories)."""
    repos = read_manifest(corpus, semble)
    pairs: list[Pair] = []
    seen: dict[str, set[str]] = {kind: set() for kind in KINDS}
    for n, r in enumerate(repos, 1):
        found = repo_pairs(corpus / "repos" / r["name"], r["name"], r["language"], seed)
        kept = []
        for kind in KINDS:
            mine_ = sorted((p for p in found if p.kind == kind), key=lambda p: _rank(seed, p.query + "\0" + p.code))
            taken = 0
            for p in mine_:
                q, c = _norm(p.query), _norm(p.code)
                if q in seen[kind] or c in seen[kind] or taken >= PER_REPO:
                    continue
                seen[kind].update((q, c))
                kept.append(p)
                taken += 1
        pairs += kept
        say(f"mined {n}/{len(repos)} {r['name']} ({r['language']}): {len(kept)} pairs")
    return pairs, repos
