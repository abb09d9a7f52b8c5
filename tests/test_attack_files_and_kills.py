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


def _on_a_full_card(tmp_path, files, code, fill=True):
    """Run ``code`` (Python, ``STATE`` naming the folder) in a process of its own whose folder
    ``STATE`` is a small tmpfs holding ``files`` (name: text) and filled up (unless not ``fill``:
    then ``code`` calls ``FILL()``): every write there gets ENOSPC, as on a full SD card. As
    root, in a mount namespace of its own (unshare)."""
    import shutil
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare(1) to mount a small file system and fill it")
    state = tmp_path / "state"
    state.mkdir()
    seed = tmp_path / "seed"
    seed.mkdir()
    for name, text in files.items():
        (seed / name).write_text(text)
    filling = f"dd if=/dev/zero of={state}/fill bs=4k 2>/dev/null; true"
    script = (f"mount -t tmpfs -o size={'64k' if fill else '1m'} tmpfs {state} && cp -a {seed}/. {state}/ && "
              f"({filling if fill else 'true'}) && exec \"$@\"")
    prelude = (f"import sys, subprocess; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests')!r}]; "
               f"STATE = {str(state)!r}\nFILL = lambda: subprocess.run({filling!r}, shell=True)\n")
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


@pytest.mark.parametrize("readable", [True, False], ids=["readable", "unreadable"])
@pytest.mark.parametrize("suffix", ["-wal", "-shm"])
def test_a_wal_or_shm_of_another_user_is_named_not_called_a_read_only_card(tmp_path, suffix, readable):
    """Fault (the journal's -wal or -shm left another user's, as a restore or a tool run as root
    leaves it, the box killed with its match in play): one the box could read opened the journal
    read-only, saying "the journal ... is read-only (attempt to write a readonly database)", and
    each tap after that "the storage card is read-only (FOLDER): this action was not saved": the
    owner looked at the card, which was fine; one it could not read was "the journal cannot be
    opened (unable to open database file)". Now each names the file, its owner and what to do;
    the match is shown where it can be read, and nothing is changed. As root the box runs as the
    user nobody and the file is root's; as a normal user its mode takes the bits away."""
    import shutil
    import tempfile
    top = Path(tempfile.mkdtemp(prefix="another-user-", dir="/tmp"))  # reachable by all, as /var/lib
    try:
        out, odd = _a_file_of_another_user(tmp_path, top, suffix, readable)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    owner = "root's (mode 644)" if os.geteuid() == 0 and readable else "root's (mode 600)" if os.geteuid() == 0 \
        else "'s (mode 400)" if readable else "'s (mode 000)"
    cannot = "may not write it" if readable else "may not read or write it"
    if readable:
        assert out[0] == "resumed 30" and out[1].startswith("start: ") and out[2].startswith("tap: "), out
        assert out[2].endswith(": this action was not saved"), out
    else:
        assert len(out) == 1 and out[0].startswith("open: ") and out[0].endswith("; it is left as it is"), out
    for line in out[1:] if readable else out:
        assert f"{odd} is " in line and owner in line and cannot in line, line
        assert "make it the box user's, mode 600" in line, line
        assert "storage card is read-only" not in line and "attempt to write" not in line, line
        assert "unable to open" not in line, line


def _a_file_of_another_user(tmp_path, top, suffix, readable):
    import shutil
    from journal_faults import fill
    top.chmod(0o755)
    state = top / "state"
    _, box = fill(tmp_path / "writer" / "journal.sqlite3", (("towers-random.scn", 30),), close=False)
    state.mkdir()
    for s in ("", "-wal", "-shm", ".count"):  # the files as a kill leaves them
        shutil.copyfile(str(tmp_path / "writer" / "journal.sqlite3") + s, str(state / "journal.sqlite3") + s)
    box.close()
    odd = state / f"journal.sqlite3{suffix}"
    kw, python = {}, sys.executable
    if os.geteuid() == 0:
        for p in (state, *state.iterdir()):
            os.chown(p, 65534, 65534)
        os.chown(odd, 0, 0)
        odd.chmod(0o644 if readable else 0o600)
        kw["user"] = 65534
        python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    else:
        odd.chmod(0o400 if readable else 0o000)
    code = ("import sys; from assistant.box.journal import Journal, JournalError, JournalUnavailable\n"
            "from assistant.rules.scenario import Action\n"
            "try:\n    j = Journal(sys.argv[1])\nexcept JournalUnavailable as e:\n    print('open:', e); sys.exit()\n"
            "r = j.resume(); print('resumed', len(r.match.actions))\n"
            "print('start:', *r.problems)\n"
            "try:\n    j.append(Action('undo'))\nexcept JournalError as e:\n    print('tap:', e)\n")
    got = subprocess.run([python, "-c", code, str(state / "journal.sqlite3")], capture_output=True, text=True,
                         timeout=HANG, env={"PYTHONPATH": str(ROOT)}, cwd=ROOT, **kw)
    assert got.returncode == 0, got.stderr
    return got.stdout.splitlines(), odd


def test_a_board_whose_disk_fills_up_says_so_not_that_a_message_could_not_be_used(tmp_path):
    """Fault (the club board's disk full during a night): every event was refused as "it could
    not be used (OperationalError); the board goes on", a storm of refusals that sent the owner
    to the boxes, not to the board's disk. Now one line names the board's file and the full disk,
    and says what brings the events again; the board goes on."""
    got = _on_a_full_card(tmp_path, {}, (
        "import logging\n"
        "logging.basicConfig(level=logging.WARNING, format='%(message)s')\n"
        "from test_club import bot_table, play\n"
        "from assistant.club.board import Board\n"
        "from pathlib import Path\n"
        "import tempfile\n"
        "j, t, bot = bot_table(Path(tempfile.mkdtemp()), 'towers', 5)\n"
        "play(t, bot, 'towers', ('Ann', 'Bob'))\n"
        "rows = [(topic, p.encode()) for _, topic, p in j.outbox_rows(0, 100000) if topic.endswith('/events')]\n"
        "board = Board(STATE + '/b.sqlite3', 'c')\n"
        "for topic, p in rows[:20]:\n    board.receive(topic, p)\n"
        "FILL()\n"
        "for topic, p in rows[20:]:\n    board.receive(topic, p)\n"
        "print('stored', board.counts['stored'], 'refused', board.counts['refused'] > 0)\n"), fill=False)
    assert "Traceback" not in got.stderr, got.stderr
    assert got.stdout.splitlines()[-1].endswith("refused True"), got.stdout
    lines = [ln for ln in got.stderr.splitlines() if "refused a message" in ln]
    assert len(lines) == 1, got.stderr
    assert f"the board's file {tmp_path / 'state' / 'b.sqlite3'} cannot be written (the disk is full)" in lines[0]
    assert "OperationalError" not in lines[0]


def test_a_folder_under_the_repairs_temporary_name_never_holds_up_the_repair(tmp_path):
    """Fault (a folder left as journal.sqlite3.recovering, the name the repaired journal is
    written under, and the journal then damaged): every start said "the journal is damaged and a
    repaired copy cannot be written (Is a directory)" and the box showed no match, for ever. The
    folder is moved aside, kept as it was, and the repair goes on: every action kept."""
    from journal_faults import fill, journal_lines, overwrite, pages
    from assistant.box.journal import Journal
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", None), ("twenty-nine-random.scn", 60)))
    stored = {mid: journal_lines(path, mid) for mid in (1, 2)}
    leaf = pages(path, "sqlite_autoindex_actions_1", "leaf")[0]
    overwrite(path, (leaf - 1) * 4096 + 4096 - 40, b"\x07" * 16)  # the index's cells: nothing lost
    (tmp_path / "journal.sqlite3.recovering").mkdir()
    (tmp_path / "journal.sqlite3.recovering" / "kept").write_text("someone's file\n")
    j = Journal(str(path))
    try:
        r = j.resume()
        assert r.problems and r.problems[0].startswith(f"Journal damaged: {sum(map(len, stored.values()))} "
                                                       "action(s) recovered"), r.problems
        assert [journal_lines(path, mid) for mid in stored] == list(stored.values())
    finally:
        j.close()
    kept = [p for p in tmp_path.iterdir() if p.name.endswith(".recovering") and ".damaged-" in p.name]
    assert len(kept) == 1 and (kept[0] / "kept").read_text() == "someone's file\n"


@pytest.mark.parametrize("suffix", ["-journal", "-wal"])
def test_a_pipe_beside_the_boards_file_never_holds_or_stops_the_board(tmp_path, suffix):
    """Fault (a pipe left as board.sqlite3-journal, a name SQLite reads at every start to see
    whether a transaction must be rolled back, or as board.sqlite3-wal): with the -journal the
    board's start waited for ever for a writer of the pipe, and the club's page never came up;
    with the -wal the board started and refused every event of the night ("disk I/O error").
    The box's journal had been mended of the same, the board's file had not. It is moved aside,
    said in one line, and the board starts with its events."""
    from assistant.club.board import Board
    Board(str(tmp_path / "board.sqlite3"), "c").close()
    os.mkfifo(tmp_path / f"board.sqlite3{suffix}")
    code = ("import logging, sys; logging.basicConfig(format='%(message)s')\n"
            "from assistant.club.board import Board\n"
            "Board(sys.argv[1], 'c').close(); print('started')\n")
    try:
        got = subprocess.run([sys.executable, "-c", code, str(tmp_path / "board.sqlite3")], cwd=ROOT,
                             capture_output=True, text=True, timeout=HANG, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail("the board waited for ever on a pipe beside its file")
    assert got.returncode == 0 and got.stdout == "started\n", got.stderr
    assert got.stderr.splitlines() == [
        f"board: board.sqlite3{suffix} (where SQLite keeps its own files) was not a file: moved aside as "
        f"{next(p.name for p in tmp_path.iterdir() if '.damaged-' in p.name)}; the board's file is opened as it is"]


@pytest.mark.parametrize("kind", ["pipe", "folder"])
def test_a_board_file_that_is_a_pipe_or_a_folder_is_said_what_it_is(tmp_path, kind):
    """Fault (`card-assistant board --db PATH` naming a pipe or a folder): the board said
    "cannot use PATH: disk I/O error" (a pipe) or "unable to open database file" (a folder),
    SQLite's words, which sent the owner to the disk. Now it says what the path is, status 2."""
    db = tmp_path / "board.sqlite3"
    os.mkfifo(db) if kind == "pipe" else db.mkdir()
    got = subprocess.run([sys.executable, "-m", "assistant.cli", "board", "--broker", "mqtt://board@127.0.0.1:1",
                          "--db", str(db)], cwd=ROOT, capture_output=True, text=True, timeout=HANG,
                         stdin=subprocess.DEVNULL)
    what = "not a file (a device, a pipe or a socket)" if kind == "pipe" else "a folder"
    assert got.returncode == 2 and got.stderr.splitlines() == [
        f"card-assistant board: error: --db {db} is {what}: name the board's own SQLite file (made if missing) "
        "(see card-assistant board --help)"], got.stderr


def test_players_add_on_a_read_only_card_says_read_only_before_the_tap(tmp_path):
    """Fault (`players add` and `enroll` with the state folder on a card mounted read-only):
    they said "cannot be written (permission denied)", which sent the owner to sudo or chmod; a
    read-only card is said as one, before anyone taps a tag, and nothing changes."""
    from readonly import run_read_only
    state = tmp_path / "state"
    state.mkdir()
    (state / "players.txt").write_text("04AA000000000B Bo\n")
    got = run_read_only(state, [sys.executable, "-m", "assistant.cli", "players", "add", "Ann", "--state-dir",
                                str(state), "--port", "/nonexistent/reader"],
                        files=[state / "players.txt"], cwd=ROOT, timeout=HANG, stdin=subprocess.DEVNULL)
    assert got.returncode == 1 and "Tap" not in got.stdout, (got.stdout, got.stderr)
    want = "the card is mounted read-only" if os.geteuid() == 0 else "permission denied"
    assert got.stderr.splitlines() == [f"card-assistant players: {state / 'players.txt'} cannot be written "
                                       f"({want}): no player can be added"], got.stderr
    assert (state / "players.txt").read_text() == "04AA000000000B Bo\n"


def test_a_rename_made_while_players_add_waits_for_the_tag_is_kept(tmp_path):
    """Fault (two terminals: `players add Ann` waiting for Ann to tap her tag, and meanwhile
    `players rename Bo Bea`, which said "Bo is now Bea"): the add wrote the list as it had read
    it at its start, so Bea was Bo again, a change said to be done lost without a word. The list
    is read again just before the add writes it: both changes are kept. (A real reader line: the
    virtual firmware on a pty.)"""
    from assistant.sim.virtual_firmware import VirtualFirmware
    state = tmp_path / "state"
    state.mkdir()
    (state / "players.txt").write_text("04AA000000000B Bo\n")
    link = tmp_path / "card-reader"
    vf = VirtualFirmware(link).plug()
    cli = [sys.executable, "-m", "assistant.cli", "players"]
    add = subprocess.Popen([*cli, "add", "Ann", "--state-dir", str(state), "--port", str(link)], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        assert add.stdout.readline().startswith("Tap Ann's player tag")  # waiting for the tag
        renamed = subprocess.run([*cli, "rename", "Bo", "Bea", "--state-dir", str(state)], cwd=ROOT,
                                 capture_output=True, text=True, timeout=HANG, stdin=subprocess.DEVNULL)
        assert renamed.returncode == 0 and "Bo is now Bea" in renamed.stdout, renamed.stderr
        vf.tap(1, "04AA000000000A")
        out, err = add.communicate(timeout=HANG)
    finally:
        if add.poll() is None:
            add.kill()
            add.wait()
        vf.unplug()
    assert add.returncode == 0 and "Ann = tag 04AA000000000A" in out, (out, err)
    from assistant.box.players import load_players
    assert load_players(state) == {"04AA000000000A": "Ann", "04AA000000000B": "Bea"}
