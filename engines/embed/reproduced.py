"""What "reproducible" means for the trained code table, as measured (issue 60), and its check (the prose
table's too: training/prose_table, issue 61, the same teacher and the same tolerance).

`.venv/bin/python -m training.code_table --out PATH` rebuilds the table from its corpus. On the machine
that trained it, with the teacher's vectors cached, it wrote the shipped bytes again. On a fresh machine
with an empty cache it did not (sha256 ``19cb8d0d...``, not the shipped ``c2988d0c...``): the teacher,
MiniLM through llama.cpp, sums its floats in an order that depends on the CPU's vector units and
threads, so its vectors differ in the last bits, and 50 minutes of training carry that into every row.
What held there: every validation figure within 0.0002 of the manifest's, and every row's cosine to the
shipped row at least 0.9998. Making the teacher's sums the same on every CPU would mean running MiniLM
without the kernels llama.cpp picks for the CPU it finds (not tried here: no cheap way was found), so
the bytes are not promised: the tolerance is, and this module checks a rebuilt table against it:

    .venv/bin/python -m engines.embed.reproduced PATH     # PATH: what training.code_table --out wrote

Exit 0 when the rebuilt table is within the tolerance of the shipped one (same bytes or not), 1 when it
is not (each failure one line), 2 when PATH cannot be read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

VALIDATION_WITHIN = 0.0002  # each validation figure's distance from the shipped manifest's, at most
ROW_COSINE_AT_LEAST = 0.9998  # each row's cosine to the shipped row, at least (rows of zeros: equal)


def row_cosines(table: np.ndarray, shipped: np.ndarray) -> np.ndarray:
    """Each row's cosine to the same row of ``shipped`` (1 where both rows are zero)."""
    a, b = np.asarray(table, np.float64), np.asarray(shipped, np.float64)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    dots = np.einsum("ij,ij->i", a, b)
    both_zero = (np.linalg.norm(a, axis=1) == 0) & (np.linalg.norm(b, axis=1) == 0)
    return np.where(both_zero, 1.0, dots / np.where(norms == 0, 1.0, norms))


def _figures(validation: dict) -> dict[str, float]:
    return {k: float(v) for k, v in validation.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def differences(table: np.ndarray, manifest: dict, shipped: np.ndarray, shipped_manifest: dict) -> list[str]:
    """Why a rebuilt table is not the shipped one within the tolerance: one line each; [] when it is."""
    out = []
    if table.shape != shipped.shape:
        return [f"shape {table.shape}, the shipped table's {shipped.shape}"]
    ours, theirs = _figures(manifest.get("validation", {})), _figures(shipped_manifest.get("validation", {}))
    if not theirs.keys() & ours.keys():
        out.append("its manifest has none of the shipped manifest's validation figures")
    for name in sorted(theirs.keys() & ours.keys()):
        if abs(ours[name] - theirs[name]) > VALIDATION_WITHIN:
            out.append(f"validation {name} {ours[name]:.4f}, the shipped {theirs[name]:.4f} "
                       f"(more than {VALIDATION_WITHIN} apart)")
    cosines = row_cosines(table, shipped)
    worst = int(np.argmin(cosines))
    if cosines[worst] < ROW_COSINE_AT_LEAST:
        below = int((cosines < ROW_COSINE_AT_LEAST).sum())
        out.append(f"{below:,} rows' cosine to the shipped row under {ROW_COSINE_AT_LEAST} "
                   f"(row {worst}: {cosines[worst]:.6f})")
    return out


def shipped_for(manifest: dict) -> Path:
    """The shipped table a rebuilt one is held to: the notes pane's prose table where its manifest says
    it is for notes (training.prose_table writes ``"for": "notes"``), else the code table."""
    from engines.embed import trained_code_table, trained_prose_table

    return (trained_prose_table if manifest.get("for") == "notes" else trained_code_table).shipped_path()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m engines.embed.reproduced PATH (a table training.code_table or training.prose_table "
              "wrote)", file=sys.stderr)
        return 2
    path = Path(argv[0])
    try:
        table, manifest = np.load(path), json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"{path}: cannot be read ({exc})", file=sys.stderr)
        return 2
    shipped = shipped_for(manifest)
    found = differences(table, manifest, np.load(shipped),
                        json.loads(shipped.with_suffix(".json").read_text(encoding="utf-8")))
    for line in found:
        print(f"{path}: {line}")
    if not found:
        print(f"{path}: within the tolerance of the shipped table (validation within {VALIDATION_WITHIN}, "
              f"every row's cosine at least {ROW_COSINE_AT_LEAST})")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
