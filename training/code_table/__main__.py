"""Train the code pane's static table from ../shared/data/code/train (a developer's tool, numpy only).

    .venv/bin/python -m training.code_table --out PATH [--corpus DIR] [--semble DIR] [--seed 0]
        [--steps regress,contrast] [--kinds doc,summary,name,question] [--targets token-mean,rotated] ...

Mines pairs with the code engine's parser (mine.py), starts from the table distilled from MiniLM
(engines/embed/distill.py, recomputed: its PCA basis is the space the teacher's vectors are projected
into), regresses onto MiniLM's own vectors of the training texts (teacher.py, cached), then trains
contrastively (train.py); with several ``--targets`` one table each, averaged (a model soup). Writes the
float16 table atomically with a manifest beside it (PATH + ".json": corpus commits and licences, pair
counts, steps, the validation figures).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

# Texts MiniLM embeds for the regression, the slow step: ~25 code texts a second (800 characters each)
# on 2 quiet cores, ~9 beside another job; doc lines 14-39 a second on loaded cores (docs/code-embedder.md).
TEACHER_CODES = 40000  # every chunk of the training pairs (37,609 at seed 0)
TEACHER_QUERIES = 70000  # every doc line of the training pairs (65,517 at seed 0)
EPOCHS = 3
KINDS = "doc,summary,name,question"  # question pairs: semble dev alone 0.6245 -> 0.6391 (q2, docs/code-embedder.md)
# two tables, one regressed onto MiniLM's vectors less the token mean, one onto them as they are, averaged:
# CoSQA dev alone 0.3613 / 0.3720 -> 0.384 (docs/code-embedder.md, s_q2)
SOUP = "token-mean,rotated"
BATCH = 512  # potion-code-16M's recipe: batch 512, lr 5e-3, 3 epochs
LR = 5e-3
TEACHER_NAMES = 0
TEACHER_COMMENTS = 0
TEACHER_CHUNKS = 0  # chunks of the training repositories beyond the pairs' (chunks.py)
VOCABULARY = 20000  # a cap: 7,577 words are seen 20 times or more at seed 0 in doc,summary chunks, 9,217 with every kind
PUNCTUATION = 0
LANGUAGE_QUERIES = 0.5
REGRESS_EPOCHS = 20
REGRESS_LR = 1e-2


def parse(argv):
    from engines.locations import shared_data

    code = shared_data() / "code"
    p = argparse.ArgumentParser(prog="python -m training.code_table", description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--corpus", type=Path, default=code / "train")
    p.add_argument("--semble", type=Path, default=code / "semble", help="the benchmark whose repositories are refused")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", default="regress,contrast")
    p.add_argument("--kinds", default=KINDS)
    p.add_argument("--teacher-codes", type=int, default=TEACHER_CODES)
    p.add_argument("--teacher-queries", type=int, default=TEACHER_QUERIES)
    p.add_argument("--teacher-names", type=int, default=TEACHER_NAMES, help="symbol names as words")
    p.add_argument("--teacher-comments", type=int, default=TEACHER_COMMENTS, help="line comments inside the chunks")
    p.add_argument("--teacher-chunks", type=int, default=TEACHER_CHUNKS,
                   help="chunks of the training repositories, documented or not, beyond the pairs' own")
    p.add_argument("--teacher-cached-only", action="store_true",
                   help="regress on the texts the teacher's cache holds already (an experiment, not a reproduction)")
    p.add_argument("--epochs", type=int, default=EPOCHS)
    p.add_argument("--regress-epochs", type=int, default=REGRESS_EPOCHS)
    p.add_argument("--lr", type=float, default=LR)
    p.add_argument("--batch", type=int, default=BATCH)
    p.add_argument("--symmetric", type=int, default=1)
    p.add_argument("--split", type=int, default=0, help="1: camelCase cut into words before WordPiece")
    p.add_argument("--language-queries", type=float, default=LANGUAGE_QUERIES,
                   help="share of the contrastive pairs' queries led by their language's name")
    p.add_argument("--punctuation", type=int, default=PUNCTUATION,
                   help="0: word pieces with no letter or digit left out of every text")
    p.add_argument("--vocabulary", type=int, default=VOCABULARY,
                   help="rows of the corpus's own frequent words beside WordPiece's (0: none)")
    p.add_argument("--vocabulary-min-count", type=int, default=vocabulary_min_count(),
                   help="the fewest times a word is seen in the training chunks to get a row")
    p.add_argument("--hard", type=int, default=1, help="1: each batch from one repository (hard negatives)")
    p.add_argument("--targets", default=SOUP,
                   help=f"how MiniLM's vectors are put into the table's space for the regression ({', '.join(start_targets())});"
                        " several, comma-separated: one table each, and their mean is written")
    p.add_argument("--joint", default="5",
                   help="weight of the regression's loss kept in each contrastive step (0: none)")
    return p.parse_args(argv)


def start_targets() -> tuple[str, ...]:
    from training.code_table.start import TARGETS

    return TARGETS


def vocabulary_min_count() -> int:
    from training.code_table.vocabulary import MIN_COUNT

    return MIN_COUNT


def say(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


def _member(table, steps, args, fit, validation, pairs_ids, teacher_ids, targets, joint, prefix, figures):
    """One table from the start: the regression onto ``targets`` (cached), then the contrast over
    ``pairs_ids`` (the queries' and the codes' ids), anchored to the targets by ``joint``; validation
    figures into ``figures`` under ``prefix``."""
    from training.code_table import start, train

    val_q, val_c, groups_val = validation
    if "regress" in steps:
        table = start.regressed(table, teacher_ids, targets, args.regress_epochs, args.batch, REGRESS_LR, args.seed, say)
        figures[f"{prefix}regress"] = train.retrieval_mrr(table, val_q, val_c, groups_val)
        say(f"validation MRR@10 after the regression ({prefix or 'the table'}): {figures[f'{prefix}regress']:.4f}")
    if "contrast" in steps:
        q, c = pairs_ids

        def checked(epoch: int) -> None:
            figure = train.retrieval_mrr(table, val_q, val_c, groups_val)
            figures[f"{prefix}contrast_epoch{epoch + 1}"] = figure
            say(f"validation MRR@10 after contrastive epoch {epoch + 1}: {figure:.4f}")

        groups = [p.repo for p in fit] if args.hard else None
        anchor = (teacher_ids, targets, joint) if joint > 0 and "regress" in steps else None
        train.contrast(table, q, c, args.epochs, args.batch, args.lr, args.seed, bool(args.symmetric), say, checked,
                       groups, anchor)
    return table


def main(argv: list[str] | None = None) -> int:
    from training.code_table import mine, start, train, vocabulary
    from training.code_table.mine import CorpusRefused

    args = parse(argv)
    steps = [s for s in args.steps.split(",") if s]
    kinds = [k for k in args.kinds.split(",") if k]
    if bad := [s for s in steps if s not in ("regress", "contrast")]:
        print(f"--steps: unknown step {bad[0]!r} (regress, contrast)", file=sys.stderr)
        return 2
    members = [m for m in args.targets.split(",") if m]
    bad = [m for m in members if m not in start.TARGETS]
    if bad or not members:
        print(f"--targets: {bad[0] if bad else args.targets!r} is not one of {', '.join(start.TARGETS)}", file=sys.stderr)
        return 2
    try:
        joints = [float(j) for j in args.joint.split(",")]
    except ValueError:
        joints = []
    if len(joints) not in (1, len(members)):
        print(f"--joint: {args.joint!r} is not one weight, nor one for each of --targets' {len(members)}", file=sys.stderr)
        return 2
    if not (args.corpus / "manifest.json").is_file():
        print(f"--corpus: {args.corpus} holds no manifest.json", file=sys.stderr)
        return 2
    try:
        pairs, repos = start.mined_pairs(args.corpus, args.semble, args.seed, say)
    except CorpusRefused as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    held = mine.held_out(repos, args.seed)
    fit = [p for p in pairs if p.repo not in held and p.kind in kinds]
    val = [p for p in pairs if p.repo in held and p.kind == "doc"]
    say(f"{len(fit):,} training pairs ({', '.join(f'{k} {sum(p.kind == k for p in fit):,}' for k in kinds)}), "
        f"{len(val):,} validation pairs from {', '.join(sorted(held))}")
    embedder, table, basis = start.distilled(say, bool(args.split), bool(args.punctuation))
    words: list[str] = []
    if args.vocabulary:
        words = vocabulary.mine_words(sorted({p.code for p in fit}), embedder, args.vocabulary,
                                       args.vocabulary_min_count)
        table = vocabulary.extended(table, embedder, words)
        embedder = start.code_embedder(bool(args.split), words, bool(args.punctuation))
        say(f"code vocabulary: {len(words):,} words ({', '.join(words[:8])}, ...), table {table.shape[0]:,} rows")
    tok = start.tokenizer(embedder)
    val_q, val_c = tok([p.query for p in val]), tok([p.code for p in val])
    figures = {"distilled": train.retrieval_mrr(table, val_q, val_c, [p.repo for p in val])}
    say(f"validation MRR@10, distilled table: {figures['distilled']:.4f}")
    texts: list[str] = []
    if "regress" in steps:
        names = [p for p in pairs if p.repo not in held and p.kind == "name"] if args.teacher_names else []
        more = start.training_chunks(args.corpus, repos, held, args.seed, say) if args.teacher_chunks else []
        texts = start.teacher_texts(fit + names, args.teacher_codes, args.teacher_queries, args.seed,
                                    args.teacher_names, args.teacher_comments, more, args.teacher_chunks)
        kept, vectors = start.teacher(texts, say, args.teacher_cached_only)
        texts = [texts[i] for i in kept]
        say(f"regression on {len(texts):,} texts")
    teacher_ids = tok(texts)
    pairs_ids = None
    if "contrast" in steps:  # the same pairs for every member: tokenized once
        led = start.language_queries(fit, args.language_queries, args.seed)
        pairs_ids = (tok([p.query for p in led]), tok([p.code for p in fit]))
    tables = []
    for n, how in enumerate(members):
        targets = start.projected(vectors, basis, how) if texts else None
        joint = joints[n] if len(joints) > 1 else joints[0]
        prefix = f"{how}_" if len(members) > 1 else ""
        tables.append(_member(table.copy(), steps, args, fit, (val_q, val_c, [p.repo for p in val]), pairs_ids,
                              teacher_ids, targets, joint, prefix, figures))
    # several members: the mean of their tables (a model soup). Tables whose regressions aimed at differently
    # placed targets err differently: e10 (token-mean) and a rotated one, each 0.3691 and 0.3608 on CoSQA
    # dev alone, give 0.384 averaged (docs/code-embedder.md)
    table = tables[0] if len(tables) == 1 else np.mean(tables, axis=0, dtype=np.float32)
    if len(tables) > 1:
        figures["soup"] = train.retrieval_mrr(table, val_q, val_c, [p.repo for p in val])
        say(f"validation MRR@10 of the members' mean: {figures['soup']:.4f}")
    digest = start.write_table(args.out, table)
    manifest = {
        "table": args.out.name, "sha256": digest, "dims": int(table.shape[1]), "dtype": "float16",
        "tokenizer": "all-MiniLM-L6-v2 WordPiece (the shipped GGUF's vocabulary, through llama.cpp)",
        "seed": args.seed, "steps": steps, "kinds": kinds, "epochs": args.epochs, "batch": args.batch, "lr": args.lr,
        "symmetric": bool(args.symmetric), "split_identifiers": bool(args.split),
        "punctuation": bool(args.punctuation), "language_queries": args.language_queries,
        **({"code_vocabulary": {"first_id": int(table.shape[0]) - len(words), "min_count": args.vocabulary_min_count,
                                "words": words}} if words else {}),
        "hard_negatives": bool(args.hard), "joint": joints[0] if len(joints) == 1 else joints,
        "targets": members[0] if len(members) == 1 else members, "regress_epochs": args.regress_epochs,
        "teacher_texts": len(texts) if "regress" in steps else 0,
        "teacher_caps": {"codes": args.teacher_codes, "queries": args.teacher_queries, "names": args.teacher_names,
                         "comments": args.teacher_comments, "chunks": args.teacher_chunks},
        "pairs": {"train": len(fit), "validation": len(val),
                  **{f"train_{k}": sum(p.kind == k for p in fit) for k in kinds}},
        "validation": {"held_out_repositories": sorted(held), "metric": "MRR@10, doc -> code within each repository, "
                       "mean over repositories", **{k: round(v, 4) for k, v in figures.items()}},
        "corpus": [{k: r[k] for k in ("name", "language", "url", "commit", "license_spdx")} for r in repos],
        "corpus_manifest_sha256": hashlib.sha256((args.corpus / "manifest.json").read_bytes()).hexdigest(),
    }
    start.write_text(args.out.with_suffix(".json"), json.dumps(manifest, indent=1) + "\n")
    say(f"wrote {args.out} (sha256 {digest}) and its manifest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
