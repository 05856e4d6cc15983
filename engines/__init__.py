"""UI-free search engines. Nothing under engines/ imports textual (tests/test_layering.py pins it)."""
