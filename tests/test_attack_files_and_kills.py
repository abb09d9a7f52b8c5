"""Faults a third attack on the box's storage found (a pipe or a link left under a name the box
writes through, a card that fills up or turns read-only under a command that asks for a tap
first, processes killed mid-write): real files, real mounts, real processes. Each test names
the fault and what the box did before."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HANG = 60.0  # seconds: only ever a guard against a hung process, never a measurement


def _write_screen(run_dir):
    """One frame's screen file written into ``run_dir`` by the daemon's own ScreenFile, in a
    process of its own (a hang is then a failed test, not a hung suite)."""
    code = ("import sys; from assistant.box.screen_file import ScreenFile; from assistant.box.view import View; "
            "ScreenFile(sys.argv[1]).write(View(game='towers', seats=('P1', 'P2'), phase='play', score=(0, 0)), 1, 3)")
    try:
        return subprocess.run([sys.executable, "-c", code, str(run_dir)], cwd=ROOT, capture_output=True,
                              text=True, timeout=HANG, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail("the box's screen file waited for ever on what holds its temporary name")


def test_a_pipe_under_the_screen_files_temporary_name_never_holds_the_box(tmp_path):
    """Fault (a pipe left as run/screen.json.tmp, the fixed name the screen for the web page was
    written through): opening it waited for a reader, so the box's loop stopped at its first
    frame, the watchdog restarted it and it stopped there again, for ever. The screen is written
    through a new file each time: the frame is shown, the page gets it."""
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    os.mkfifo(run / "screen.json.tmp")
    got = _write_screen(run)
    assert got.returncode == 0, got.stderr
    assert '"rows":3' in (run / "screen.json").read_text()
    assert sorted(p.name for p in run.iterdir()) == ["screen.json"]


def test_a_link_under_the_screen_files_temporary_name_never_writes_through_it(tmp_path):
    """Fault (a link left as run/screen.json.tmp, pointing at the journal or any file the box's
    user may write): the screen was written through it, over the file it points to (a journal
    so overwritten is a few hundred bytes of JSON: every match gone), and the link then renamed
    to screen.json. The link is removed, never followed."""
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    victim = tmp_path / "journal.sqlite3"
    victim.write_bytes(b"SQLite format 3\x00" + bytes(4080))
    (run / "screen.json.tmp").symlink_to(victim)
    got = _write_screen(run)
    assert got.returncode == 0, got.stderr
    assert victim.read_bytes() == b"SQLite format 3\x00" + bytes(4080)
    assert not (run / "screen.json").is_symlink() and '"rows":3' in (run / "screen.json").read_text()
