"""Which of the workbench's keys reach it inside tmux and GNU screen: the real app on the demo corpora in a
detached 80x24 session, each key sent as that multiplexer sends it (tmux: send-keys KEY; screen: the bytes a
terminal sends, stuffed into the window), the screen read back after each and checked.

    python tools/keys_in_mux.py tmux      # or: screen      (docs/keys-in-tmux.md holds the last results)

A developer's check, not a test: it takes about a minute and needs tmux or screen installed. The app runs with
this checkout first on the path, no $EDITOR, and a throwaway config and data folder (a grade it gives is
given and taken back there).
"""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MUX = sys.argv[1] if len(sys.argv) > 1 else "tmux"
ROOT = Path(__file__).resolve().parent.parent
SCRATCH = tempfile.mkdtemp(prefix="olai-keys-")
APP = (f"env -u EDITOR -u VISUAL XDG_DATA_HOME={SCRATCH}/data XDG_CONFIG_HOME={SCRATCH}/config PYTHONPATH={ROOT} "
       f"{sys.executable} -c 'from olai_tui.cli import main; main()'")
S = f"olai-keys-{os.getpid()}"

def sh(*a): return subprocess.run(a, capture_output=True, text=True).stdout
def start():
    if MUX == "tmux":
        sh("tmux", "new", "-d", "-s", S, "-x", "80", "-y", "24", APP)
    else:
        subprocess.run(["screen", "-U", "-dmS", S, "bash", "-c", APP])
    time.sleep(7)
def stop():
    if MUX == "tmux": sh("tmux", "kill-session", "-t", S)
    else: sh("screen", "-S", S, "-X", "quit")
# key -> (tmux send-keys name, bytes a terminal sends for it, stuffed into screen)
KEYS = {"enter": ("Enter", "\r"), "ctrl+j": ("C-j", "\n"), "ctrl+enter": ("C-Enter", "\r"), "alt+enter": ("M-Enter", "\x1b\r"),
        "ctrl+t": ("C-t", "\x14"), "ctrl+r": ("C-r", "\x12"), "ctrl+p": ("C-p", "\x10"), "ctrl+q": ("C-q", "\x11"),
        "ctrl+pagedown": ("C-NPage", "\x1b[6;5~"), "ctrl+pageup": ("C-PPage", "\x1b[5;5~"), "escape": ("Escape", "\x1b"),
        "down": ("Down", "\x1b[B"), "y": ("y", "y"), "e": ("e", "e"), "q": ("q", "q"), "slash": ("/", "/"), "3": ("3", "3")}
def send(key):
    if MUX == "tmux": sh("tmux", "send-keys", "-t", S, KEYS[key][0])
    else: sh("screen", "-S", S, "-X", "stuff", KEYS[key][1])
    time.sleep(2.5)
def type_(text):
    if MUX == "tmux": sh("tmux", "send-keys", "-t", S, "-l", text)
    else: sh("screen", "-S", S, "-X", "stuff", text)
    time.sleep(2.5)
def screen_text():
    if MUX == "tmux": return sh("tmux", "capture-pane", "-p", "-t", S)
    path = f"{SCRATCH}/hardcopy"
    sh("screen", "-S", S, "-X", "hardcopy", path); time.sleep(0.5)
    return open(path, errors="replace").read()

results = []
def check(key, what, ok):
    results.append((key, what, ok)); print(f"{key:14} {'works' if ok else 'NOT'}  {what}", flush=True)

start()
try:
    type_("seedlings")
    s = screen_text(); check("(typing)", "rows for 'seedlings'", "The slugs got" in s)
    for key in ("ctrl+j", "ctrl+enter", "alt+enter"):
        send(key); s = screen_text(); ok = "side by side" in s
        check(key, "opens compare", ok)
        if ok:
            send("e"); s2 = screen_text(); check("e", "compare → evaluation view", "Evaluation" in s2)
            send("escape"); send("escape")
        else:  # an enter that moved the focus to the rows, or an escape: back to the box
            send("escape"); send("escape")
    s = screen_text(); check("(state)", "back in the search box, rows shown", "The slugs got" in s and " Open" not in s.splitlines()[-1])
    send("ctrl+t"); s = screen_text(); check("ctrl+t", "exact only (words off, semantic off)", "semantic off" in s)
    send("ctrl+t"); s = screen_text(); check("ctrl+t", "again: every tier", "semantic off" not in s)
    send("ctrl+pagedown"); s = screen_text(); check("ctrl+pagedown", "next pane (products)", "recall" in s)
    send("ctrl+pageup"); s = screen_text(); check("ctrl+pageup", "previous pane (notes)", "semantic" in s and "recall" not in s)
    send("ctrl+r"); s = screen_text(); check("ctrl+r", "re-reads the corpus", "re-read" in s.lower() or "Re-reading" in s)
    send("down"); s = screen_text(); check("down", "to the rows (their keys shown)", "Open" in s)
    send("y"); s = screen_text(); check("y", "copies the row's path", "Copied" in s)
    send("3"); s = screen_text(); check("3", "grades the row 3", "3 exact" in s)
    send("3"); time.sleep(0.5)
    send("enter"); s = screen_text(); ok = "escape closes" in s or "Close" in s
    check("enter", "opens the row (shown, no $EDITOR)", ok)
    send("escape"); send("slash"); s = screen_text(); check("slash", "back to the search box", "Open" not in s.splitlines()[-1])
    send("ctrl+p"); s = screen_text(); check("ctrl+p", "opens the palette", "Search for" in s or "Compare tiers for" in s or "Next pane" in s)
    send("escape")
    send("ctrl+q"); time.sleep(2)
    s = screen_text() if (MUX == "tmux" and S in sh("tmux", "ls")) or (MUX == "screen" and S in sh("screen", "-ls")) else ""
    check("ctrl+q", "quits", "seedlings" not in s)
finally:
    stop()
