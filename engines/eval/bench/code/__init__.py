"""`olai-tui bench code`: command.py is its face; measure.py times CoSQA, the standard library, httpx and the
demo tree; large_tree.py one large tree (`--corpus DIR`) in fresh processes; parsing.py the parse and index
time of a folder of repositories; milvus.py code on Milvus against the local engine (semble dev, load)."""
