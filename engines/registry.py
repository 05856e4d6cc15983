"""The engines there are: one line each. The CLI, the workbench, the evaluation and the MCP face loop
over this list; none of them names an engine.

A built-in engine is one :func:`register` call below. A separate package adds one through the
``olai_tui.engines`` entry-point group (an :class:`EngineSpec`), read once on first use, as harlequin
finds its adapters. A test adds one by calling :func:`register` (and :func:`unregister` after).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from engines.contract import Console, Engine, Option, WaitProgress
from engines.declared import Declared
from engines.errors import BadInput


class UnknownEngine(BadInput):
    """An engine name the registry does not list; the message names the known ones."""


@dataclass(frozen=True)
class EngineSpec:
    name: str
    summary: str  # one line, for help texts and the MCP tool description
    # open(corpus, wait_for_index=..., **options) -> Engine. BadInput (one line) for an unreadable corpus.
    open: Callable[..., Engine]
    default_corpus: Callable[[], Path | None]  # the embedded demo corpus, or None where there is none
    options: tuple[Option, ...] = ()
    corpus_required: bool = False  # True: no default corpus; open() without one is a bad argument
    # True: open() takes ``progress=`` (a WaitProgress) and reports reading the corpus through it.
    # Every engine is told afterwards, through ``Engine.progress``, of the builds a search waits on.
    reads_with_progress: bool = False
    # For the contract test, which holds every registered engine to the contract: a query its default
    # corpus answers with evidence (and its meaning tiers too, where it has them), and one its cheap
    # tier answers on its own (empty: the same query). An engine without them fails that test by name.
    # URL schemes the engine reads as a corpus beside paths (products: a catalogue kept in a database)
    corpus_urls: tuple[str, ...] = ()
    sample_query: str = ""
    cheap_query: str = ""
    # The engine's class, imported when asked: what a face reads before the engine is opened (its
    # shown tiers and presentation: the workbench opens a pane's engine only when the pane is shown).
    # None: the engine is opened to learn them.
    engine_class: Callable[[], type] | None = None
    # Options of `olai-tui index NAME` beyond the corpus (products: publishing to Milvus) and the command
    # that runs instead of the plain index when one of them is given (a value other than its default):
    # index_command(open_engine, options, console) -> exit status. ``open_engine()`` opens the engine over
    # the corpus asked for (the face shows its skipped files), called once the options are checked;
    # ``options`` holds every index option by name; BadInput for a bad combination (exit 2).
    index_options: tuple[Option, ...] = ()
    index_command: Callable[[Callable[[], Engine], dict[str, Any], Console], int] | None = None
    # check(corpus): BadInput for a corpus open() would refuse before reading anything, found without
    # reading it (products: a folder with no product file). The workbench runs it before it draws, so a
    # bad corpus is one line however slowly the open itself starts on a loaded machine.
    check: Callable[[Path], None] | None = None


_REGISTRY: Declared[str, EngineSpec] = Declared()
_PLUGINS_READ = False


def register(spec: EngineSpec) -> EngineSpec:
    return _REGISTRY.declare(spec.name, spec)


def unregister(name: str) -> None:
    _REGISTRY.forget(name)


def names() -> tuple[str, ...]:
    _read_plugins()
    return tuple(sorted(_REGISTRY.keys()))


def specs() -> list[EngineSpec]:
    """Every engine, in the order registered: the workbench's panes from left to right."""
    _read_plugins()
    return _REGISTRY.values()


def spec(name: str) -> EngineSpec:
    _read_plugins()
    found = _REGISTRY.get(name)
    if found is None:
        raise UnknownEngine(f"unknown engine {name!r} (known: {', '.join(names())})")
    return found


def for_commands() -> None:
    """This process runs commands, with nobody typing into it: its threads will share one heap, which
    holds less (engines/memory.py: 580 against 616 MB on the 100,000-note vault with meaning on). The
    workbench does not call it: there it slowed the meaning build while a person typed. Call it before
    the first engine opens."""
    from engines.memory import share_one_heap

    share_one_heap()


def open_engine(name: str, corpus: Path | None = None, *, wait_for_index: bool = False,
                progress: WaitProgress | None = None, **options: Any) -> Engine:
    """The engine ``name`` over ``corpus`` (None: its demo corpus). BadInput for a bad name, option or corpus.
    ``progress(done, of, what)`` is told how the long work a caller waits on moves: reading a large
    corpus (engines that declare ``reads_with_progress``) and, with ``wait_for_index``, the index a
    search waits for."""
    found = spec(name)
    known = {o.name for o in found.options}
    for key, value in options.items():
        if key not in known and value not in (None, (), []):
            raise BadInput(f"--{key}: {name} takes no such option"
                           + (f" (its options: {', '.join(sorted(known))})" if known else ""))
    if corpus is None:
        corpus = found.default_corpus()
    if corpus is None and found.corpus_required:
        raise BadInput(f"{name}: give a corpus (--corpus PATH)")
    chosen = {k: v for k, v in options.items() if k in known}
    if progress is not None and found.reads_with_progress:
        chosen["progress"] = progress
    settings = _settings_in_force(found, corpus)  # before the engine is made: a build reads them
    engine = found.open(corpus, wait_for_index=wait_for_index, **chosen)
    engine.progress = progress
    if settings is not None and settings.problems:
        from engines.problems import Problem

        engine.problems = list(engine.problems) + [Problem(*line.partition(": ")[::2], skipped=False)
                                                   for line in settings.problems]
    return engine


def _settings_in_force(found: EngineSpec, corpus):
    """The corpus's settings (engines/knobs.py) put in force for its engine; None where it declares none."""
    from engines.knobs import knobs_of, put_in_force

    declared = knobs_of(found.engine_class()) if found.engine_class is not None else None
    return put_in_force(declared, corpus) if declared is not None else None


def _read_plugins() -> None:
    global _PLUGINS_READ
    if _PLUGINS_READ:
        return
    _PLUGINS_READ = True
    from importlib.metadata import entry_points

    for point in entry_points(group="olai_tui.engines"):
        try:
            loaded = point.load()
        except Exception:  # noqa: BLE001 - a broken plug-in must not take the built-in engines down
            continue
        if isinstance(loaded, EngineSpec):
            register(loaded)


# -- the built-in engines ------------------------------------------------------------------------
def _open_notes(corpus: Path, wait_for_index: bool = False, progress: WaitProgress | None = None) -> Engine:
    from engines.notes.engine import NotesEngine

    return NotesEngine(corpus, wait_for_index=wait_for_index, progress=progress)


def _open_code(corpus: Path | None, wait_for_index: bool = False, modules: list[str] | tuple = (),
               progress: WaitProgress | None = None, backend: str | None = None, uri: str | None = None,
               tree: str | None = None) -> Engine:
    from engines.code.engine import CodeEngine

    modules = [m for m in (modules or []) if m]
    read = None if progress is None else (lambda done, of: progress(done, of, "reading files"))
    return CodeEngine(None if modules else corpus, modules=modules, wait_for_index=wait_for_index, progress=read,
                      search=_code_search(backend, uri, tree))


def _code_search(backend: str | None, uri: str | None, tree: str | None):
    """``--backend``/``--uri``/``--tree`` over config's ``[code.search]``; None when none is given."""
    if not (backend or uri or tree):
        return None
    from dataclasses import replace

    from engines.code.milvus.router import checked, settings_from_config

    settings = replace(settings_from_config()[0], **{k: v for k, v in
                                                     {"backend": backend, "uri": uri, "tree": tree}.items() if v})
    settings, problem = checked(settings, "--backend/--uri")
    if problem:
        raise BadInput(problem.replace("; the local index answers", ""))
    return settings


def _publish_code(open_engine: Callable[[], Engine], options: dict[str, Any], console: Console) -> int:
    from engines.code.milvus.publishing import publish_command

    return publish_command(open_engine, options, console)


def _open_products(corpus: Path, wait_for_index: bool = False) -> Engine:
    from engines.products.configured import open_configured

    return open_configured(corpus, wait_for_index=wait_for_index)


def _check_products(corpus: Path) -> None:
    from engines.products.catalogue import refuse_at_once

    refuse_at_once(corpus)


def _publish_products(open_engine: Callable[[], Engine], options: dict[str, Any], console: Console) -> int:
    from engines.products.publishing import publish_command

    return publish_command(open_engine, options, console)


# `olai-tui index products --backend milvus --uri URI [--rollback | --status | --force] [--index-type T]`
PRODUCTS_INDEX = (
    Option("backend", "milvus publishes the catalogue to Milvus at --uri", choices=("memory", "milvus"),
           default="memory"),
    Option("uri", "the Milvus to publish to (http://HOST:19530)"),
    Option("rollback", "with milvus, move the alias back one version", kind="flag", default=False),
    Option("status", "with milvus, list the published versions", kind="flag", default=False),
    Option("index_type", "with milvus, the vector index (FLAT; HNSW on a cluster)", default="FLAT"),
    Option("force", "with milvus, publish a new version even when the rows are those already published",
           kind="flag", default=False),
)


# `olai-tui index code --backend milvus --uri URI [--tree NAME] [--collection NAME] [--words-only]
# [--rollback | --status | --force]`
CODE_INDEX = (
    Option("backend", "milvus publishes the tree's symbols to Milvus at --uri", choices=("local", "milvus"),
           default="local"),
    Option("uri", "the Milvus to publish to (http://HOST:19530)"),
    Option("tree", "the name the tree is published and searched under (default: its folder's name)"),
    Option("collection", "the collection holding the trees (default: olai_code)"),
    Option("rollback", "with milvus, move the tree's pointer back one version", kind="flag", default=False),
    Option("status", "with milvus, list the tree's published versions", kind="flag", default=False),
    Option("force", "with milvus, publish a new version even when the symbols are those already published",
           kind="flag", default=False),
    Option("words_only", "with milvus, publish the words without vectors (the fused tier stays local)",
           kind="flag", default=False),
)
CODE_SEARCH = (
    Option("modules", "installed modules to search instead of a folder", "list", instead_of_corpus=True),
    Option("backend", "who answers the tiers: local (default), milvus (the local index the fallback), "
           "milvus-only", choices=("local", "milvus", "milvus-only")),
    Option("uri", "the Milvus a milvus backend asks (http://HOST:19530)"),
    Option("tree", "the name the tree is published under (default: its folder's name)"),
)


def _class(module: str, name: str) -> Callable[[], type]:
    def load() -> type:
        from importlib import import_module

        return getattr(import_module(module), name)

    return load


def _demo(engine: str) -> Callable[[], Path]:
    def default() -> Path:
        from engines.locations import demo_corpus

        return demo_corpus(engine)

    return default


register(EngineSpec("notes", "your notes: exact words first, then ranked words and meaning fill what is left",
                    _open_notes, _demo("notes"), reads_with_progress=True, sample_query="seedlings",
                    engine_class=_class("engines.notes.engine", "NotesEngine")))
register(EngineSpec("products", "a product catalogue: hard rules, fused recall, a judge; says what is not sold",
                    _open_products, _demo("products"),
                    corpus_urls=("sqlite://", "postgresql://", "postgres://"),  # = products.database.SCHEMES (test)
                    sample_query="laktoositon maito 1 l",
                    cheap_query="Latte parziamente scremato",  # a product's name said outright
                    index_options=PRODUCTS_INDEX, index_command=_publish_products, check=_check_products,
                    engine_class=_class("engines.products.engine", "ProductsEngine")))
register(EngineSpec("code", "source code: symbols ranked by BM25; an opt-in embedding tier; source never leaves",
                    _open_code, _demo("code"),
                    options=CODE_SEARCH, index_options=CODE_INDEX, index_command=_publish_code,
                    reads_with_progress=True, sample_query="rate limiter",
                    engine_class=_class("engines.code.engine", "CodeEngine")))
