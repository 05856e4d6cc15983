"""The olai-tui workbench: the Textual app, the command line and the palette; depends on engines."""
