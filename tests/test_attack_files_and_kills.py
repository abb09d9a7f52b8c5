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


def _on_a_full_card(tmp_path, files, code):
    """Run ``code`` (Python, ``STATE`` naming the folder) in a process of its own whose folder
    ``STATE`` is a small tmpfs holding ``files`` (name: text) and filled up: every write there
    gets ENOSPC, as on a full SD card. As root, in a mount namespace of its own (unshare)."""
    import shutil
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare(1) to mount a small file system and fill it")
    state = tmp_path / "state"
    state.mkdir()
    seed = tmp_path / "seed"
    seed.mkdir()
    for name, text in files.items():
        (seed / name).write_text(text)
    script = (f"mount -t tmpfs -o size=64k tmpfs {state} && cp -a {seed}/. {state}/ && "
              f"(dd if=/dev/zero of={state}/fill bs=4k 2>/dev/null; true) && exec \"$@\"")
    prelude = f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests')!r}]; STATE = {str(state)!r}\n"
    got = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", sys.executable, "-c", prelude + code],
                         cwd=ROOT, capture_output=True, text=True, timeout=HANG, stdin=subprocess.DEVNULL)
    if "mount: " in got.stderr:
        pytest.skip(f"cannot mount a tmpfs here: {got.stderr[:120]}")
    return got


def test_players_add_on_a_card_that_is_full_says_so_in_one_line_and_keeps_the_list(tmp_path):
    """Fault (`players add NAME` on a full card: the tag tapped, then the list could not be
    written): Python's OSError ended the command, "internal error (OSError)" as if a bug, after
    the player had tapped their tag. Now one line names the file and what was not saved, the
    status is 1, and the list is as it was; rename and remove say the same."""
    before = "04AA000000000B Bo\n"
    got = _on_a_full_card(tmp_path, {"players.txt": before}, (
        "from test_players import taps\n"
        "from assistant.box.players import main\n"
        "print('rc', main(['add', 'Ann', '--state-dir', STATE], events=taps('04AA000000000A')))\n"
        "print('rc', main(['rename', 'Bo', 'Bea', '--state-dir', STATE]))\n"
        "print('rc', main(['remove', 'Bo', '--state-dir', STATE]))\n"
        "print('list', open(STATE + '/players.txt').read().replace(chr(10), '/'))\n"))
    assert "Traceback" not in got.stderr, got.stderr
    assert [ln for ln in got.stdout.splitlines() if ln.startswith(("rc", "list"))] == \
        ["rc 1", "rc 1", "rc 1", "list " + before.replace("\n", "/")], got.stdout
    path = tmp_path / "state" / "players.txt"
    assert got.stderr.splitlines() == [
        f"card-assistant players: {path}: cannot be saved (the card is full): Ann's tag 04AA000000000A "
        "was not saved; the list is as it was",
        f"card-assistant players: {path}: cannot be saved (the card is full): the new name Bea was not "
        "saved; the list is as it was",
        f"card-assistant players: {path}: cannot be saved (the card is full): the removal of Bo was not "
        "saved; the list is as it was"], got.stderr
    assert "Ann = tag" not in got.stdout


def test_enroll_on_a_card_that_fills_up_says_so_in_one_line_never_that_the_card_is_done(tmp_path):
    """Fault (`enroll` while the storage card fills up: a card tapped, its deck file then not
    written): enroll said "7S = tag ..." and ended in "internal error (OSError)", as if a bug,
    with the card said to be done and not in the file. Now the deck is saved before the card is
    said to be done, and a deck that cannot be saved is one line, status 1, the file as it was."""
    before = "04BB000000000C JS\n"
    got = _on_a_full_card(tmp_path, {"deck.txt": before}, (
        "from test_players import taps\n"
        "from assistant.box.enroll import main\n"
        "print('rc', main([STATE + '/deck.txt', '--card', '7S'], events=taps('04AA000000000A')))\n"
        "print('deck', open(STATE + '/deck.txt').read().replace(chr(10), '/'))\n"))
    assert "Traceback" not in got.stderr, got.stderr
    assert [ln for ln in got.stdout.splitlines() if ln.startswith(("rc", "deck"))] == \
        ["rc 1", "deck " + before.replace("\n", "/")], got.stdout
    assert "= 04AA000000000A" not in got.stdout
    assert got.stderr.splitlines() == [
        f"card-assistant enroll: {tmp_path / 'state' / 'deck.txt'}: cannot be saved (the card is full): the "
        "card just tapped was not saved; the file keeps the cards it had before it"], got.stderr
