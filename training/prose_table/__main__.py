"""Train the notes pane's static prose table from ../shared/data/notes/train (a developer's tool, numpy only).

    .venv/bin/python -m training.prose_table --out PATH [--corpus DIR] [--seed 0]
        [--steps regress,contrast] [--kinds title,heading,cloze] [--targets token-mean,rotated] ...

The code table's recipe (training/code_table), its parts imported: pairs from the design documents' own
structure (mine.py: title -> summary, heading -> paragraph, first sentence -> the rest), the distilled
MiniLM table and its PCA basis to start from (start.distilled), a regression onto MiniLM's own vectors of
the training texts (texts.py picks them; the code table's teacher embeds and caches them under a scope of
their own), then contrastive training (train.contrast), two regression targets averaged (a model soup).
The table keeps MiniLM's WordPiece rows only, punctuation and all, so it reads a text exactly as the
distilled table does at run time (engines/embed/static.py). Writes the float16 table atomically with a
manifest beside it (PATH + ".json": sources, licences, pair counts, steps, validation figures).

Never trained on evaluation data: the corpus must be the training folder (``refused``), and every
document of it is checked against the notes evaluation sets' texts before a pair is mined.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

EPOCHS = 3
BATCH = 512
LR = 5e-3
KINDS = "title,heading,cloze"
SOUP = "token-mean,rotated"  # the code table's soup (CoSQA dev alone 0.3613 / 0.3720 -> 0.384)
REGRESS_EPOCHS = 20
JOINT = "5"
# The written table is this share of the distilled table plus the rest of the trained one (WiSE-FT,
# Wortsman et al. 2022: weights interpolated between the start and the fine-tuned model keep most of the
# gain where the training data is like the use and lose less where it is not). Design documents are not a
# garden notebook: the trained table alone put the README's slugs note 14th of 37 for "protecting young
# plants from snails" (the distilled table 2nd, a half-and-half mix 4th), for Vaswani dev before MiniLM
# 0.4187 / 0.4243 / 0.3915 (trained / mix / distilled) (docs/notes-prose-table.md).
DISTILLED_SHARE = 0.5


def parse(argv):
    from engines.locations import shared_data
    from training.prose_table import texts

    p = argparse.ArgumentParser(prog="python -m training.prose_table", description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--corpus", type=Path, default=shared_data() / "notes" / "train")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", default="regress,contrast")
    p.add_argument("--kinds", default=KINDS)
    p.add_argument("--teacher-passages", type=int, default=texts.TEACHER_PASSAGES)
    p.add_argument("--teacher-queries", type=int, default=texts.TEACHER_QUERIES)
    p.add_argument("--teacher-cached-only", action="store_true",
                   help="regress on the texts the teacher's cache holds already (an experiment, not a reproduction)")
    p.add_argument("--epochs", type=int, default=EPOCHS)
    p.add_argument("--regress-epochs", type=int, default=REGRESS_EPOCHS)
    p.add_argument("--lr", type=float, default=LR)
    p.add_argument("--batch", type=int, default=BATCH)
    p.add_argument("--symmetric", type=int, default=1)
    p.add_argument("--hard", type=int, default=1, help="1: each batch from one collection (PEPs, RFCs, Go)")
    p.add_argument("--targets", default=SOUP)
    p.add_argument("--joint", default=JOINT, help="weight of the regression's loss kept in each contrastive step")
    p.add_argument("--distilled-share", type=float, default=DISTILLED_SHARE,
                   help="the share of the distilled table in the table written (0: the trained table as it is)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    from training.code_table import start, train
    from training.code_table.__main__ import _member, say
    from training.prose_table import mine, provenance, texts

    args = parse(argv)
    steps = [s for s in args.steps.split(",") if s]
    kinds = [k for k in args.kinds.split(",") if k]
    members = [m for m in args.targets.split(",") if m]
    if bad := [s for s in steps if s not in ("regress", "contrast")]:
        print(f"--steps: unknown step {bad[0]!r} (regress, contrast)", file=sys.stderr)
        return 2
    if bad := [k for k in kinds if k not in mine.KINDS]:
        print(f"--kinds: unknown kind {bad[0]!r} ({', '.join(mine.KINDS)})", file=sys.stderr)
        return 2
    if bad := [m for m in members if m not in start.TARGETS] or not members:
        print(f"--targets: {bad[0] if bad else args.targets!r} is not one of {', '.join(start.TARGETS)}", file=sys.stderr)
        return 2
    try:
        joint = float(args.joint)
    except ValueError:
        print(f"--joint: {args.joint!r} is not a number", file=sys.stderr)
        return 2
    if reason := provenance.refused(args.corpus):
        print(f"refused: {reason}", file=sys.stderr)
        return 2
    pairs, docs = mine.mine(args.corpus, say)
    if reason := provenance.overlap(docs, say):
        print(f"refused: {reason}", file=sys.stderr)
        return 2
    held = mine.held_out(docs, args.seed)
    fit = [p for p in pairs if p.repo not in held and p.kind in kinds]
    val = [p for p in pairs if p.repo in held and p.kind in ("title", "heading")]
    say(f"{len(fit):,} training pairs ({', '.join(f'{k} {sum(p.kind == k for p in fit):,}' for k in kinds)}), "
        f"{len(val):,} validation pairs (titles and headings of {len(held)} held-out documents)")
    embedder, table, basis = start.distilled(say, False, True)  # WordPiece as the run-time static table cuts it
    distilled = table.copy()
    tok = start.tokenizer(embedder)
    val_q, val_c, val_groups = tok([p.query for p in val]), tok([p.code for p in val]), [p.language for p in val]
    figures = {"distilled": train.retrieval_mrr(table, val_q, val_c, val_groups)}
    say(f"validation MRR@10, distilled table: {figures['distilled']:.4f}")
    chosen: list[str] = []
    vectors = None
    if "regress" in steps:
        chosen = texts.teacher_texts(fit, args.teacher_passages, args.teacher_queries, args.seed)
        from training.code_table.teacher import teacher_vectors

        kept, vectors = teacher_vectors(chosen, say, args.teacher_cached_only, scope=texts.SCOPE)
        chosen = [chosen[i] for i in kept]
        say(f"regression on {len(chosen):,} texts")
    teacher_ids = tok(chosen)
    # the contrast's batches are drawn from one collection where --hard says so (_member groups by .repo)
    grouped = [replace(p, repo=p.language) for p in fit]
    pairs_ids = (tok([p.query for p in fit]), tok([p.code for p in fit])) if "contrast" in steps else None
    tables = []
    for how in members:
        targets = start.projected(vectors, basis, how) if chosen else None
        prefix = f"{how}_" if len(members) > 1 else ""
        tables.append(_member(table.copy(), steps, args, grouped, (val_q, val_c, val_groups), pairs_ids,
                              teacher_ids, targets, joint, prefix, figures))
    table = tables[0] if len(tables) == 1 else np.mean(tables, axis=0, dtype=np.float32)
    if len(tables) > 1:
        figures["soup"] = train.retrieval_mrr(table, val_q, val_c, val_groups)
        say(f"validation MRR@10 of the members' mean: {figures['soup']:.4f}")
    if args.distilled_share > 0:  # of the trained table as float16, as it would have been written alone
        trained = table.astype(np.float16).astype(np.float32)
        table = args.distilled_share * distilled + (1 - args.distilled_share) * trained
        figures["interpolated"] = train.retrieval_mrr(table, val_q, val_c, val_groups)
        say(f"validation MRR@10 of {args.distilled_share} distilled + {1 - args.distilled_share:g} trained: "
            f"{figures['interpolated']:.4f}")
    digest = start.write_table(args.out, table)
    manifest = {
        "table": args.out.name, "for": "notes", "sha256": digest, "dims": int(table.shape[1]), "dtype": "float16",
        "tokenizer": "all-MiniLM-L6-v2 WordPiece (the shipped GGUF's vocabulary, through llama.cpp), as the "
                     "distilled static table: punctuation kept, no vocabulary of its own",
        "seed": args.seed, "steps": steps, "kinds": kinds, "epochs": args.epochs, "batch": args.batch,
        "lr": args.lr, "symmetric": bool(args.symmetric), "hard_negatives": bool(args.hard), "joint": joint,
        "targets": members[0] if len(members) == 1 else members, "regress_epochs": args.regress_epochs,
        "distilled_share": args.distilled_share,
        "teacher_texts": len(chosen),
        "teacher_caps": {"passages": args.teacher_passages, "queries": args.teacher_queries},
        "pairs": {"train": len(fit), "validation": len(val),
                  **{f"train_{k}": sum(p.kind == k for p in fit) for k in kinds}},
        "validation": {"held_out_documents": sorted(held), "metric": "MRR@10, title or heading -> its paragraph "
                       "within each collection's held-out documents, mean over collections",
                       **{k: round(v, 4) for k, v in figures.items()}},
        "corpus": provenance.SOURCES,
        "corpus_readme_sha256": hashlib.sha256((args.corpus / "README.md").read_bytes()).hexdigest(),
    }
    start.write_text(args.out.with_suffix(".json"), json.dumps(manifest, indent=1) + "\n")
    say(f"wrote {args.out} (sha256 {digest}) and its manifest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
