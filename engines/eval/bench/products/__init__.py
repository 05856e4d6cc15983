"""`olai-tui bench products`: command.py is its face; measure.py times a catalogue (build, memory, recall,
the rules judge); milvus.py memory against Milvus in one run (publish, recall, a stalled server)."""
