"""UI-free search engines. Nothing under engines/ imports textual (tests/engines/test_import_graph.py pins it)."""
