"""What is scored where several datasets share it: notes.py, the notes engine's configurations over a test
collection (vaswani, cranfield). A dataset's own configurations live in its package."""
