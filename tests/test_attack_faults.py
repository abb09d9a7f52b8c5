"""Faults an attack from outside found (a damaged file, garbage on a line, a kill), each one that
the earlier tests did not: the real commands as subprocesses on a real journal damaged in place.
Each test names the fault and what it did before."""
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from journal_faults import example, fill
from test_web_faults import UNREADABLE, Web

ROOT = Path(__file__).resolve().parents[1]
HANG = 60.0


def card_assistant(*args):
    return subprocess.run([sys.executable, "-m", "assistant.cli", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=HANG, stdin=subprocess.DEVNULL)


def damage(path, sql):
    db = sqlite3.connect(path)
    db.execute(sql)
    db.commit()
    db.close()


@pytest.mark.parametrize("value", ["abc", "-5", "99999999999999999999999999999"])
def test_a_schema_number_that_is_not_one_is_one_line_for_export_and_the_web_page(tmp_path, value):
    """Fault: a journal whose schema number is not a number (the box sets such a file aside and
    repairs it at its next start) made `export` an "internal error (BadRow)", and made every page
    of the web page a 500 and its log a 30-line traceback. Now one line each, and an honest 503."""
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 10),))
    damage(path, f"UPDATE meta SET value='{value}' WHERE key='schema'")
    before = path.read_bytes()
    proc = card_assistant("export", "--state-dir", tmp_path, "-")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "schema number is not a number" in proc.stderr and "repairs it" in proc.stderr
    web = Web(tmp_path)
    try:
        for p in ("/", "/matches", "/api/matches", "/api/now"):
            status, _, body = web.get(p)
            assert status == 503 and UNREADABLE in body, (p, status, body)
    finally:
        err = web.stop()
    assert len(err.splitlines()) == 2 and "Traceback" not in err, err
    assert path.read_bytes() == before


@pytest.mark.parametrize("started", ["1e308", "'noon'"])
def test_a_start_time_out_of_the_calendar_leaves_the_pages_and_export_working(tmp_path, started):
    """Fault: a match whose start time was a word, or a number no calendar holds (1e308, which the
    box's check lets through), made /matches, /players and the match's page a 500, and `export`
    refuse every match ("timestamp out of range"), saying the box would repair it when it never
    does. Now the pages show no time and export writes the match, saying its time is unknown."""
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 10), ("towers-random.scn", 12)))
    damage(path, f"UPDATE matches SET started={started} WHERE id=2")
    proc = card_assistant("export", "--state-dir", tmp_path, "-")
    if started == "'noon'":  # the box's own check refuses it, and so sets it aside at its next start
        assert proc.returncode == 1 and "start time is not readable" in proc.stderr, proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("# match 2 of the box's journal, started at a time the journal cannot say")
        proc = card_assistant("export", "--all", "--state-dir", tmp_path, tmp_path / "out")
        assert proc.returncode == 0 and len(list((tmp_path / "out").iterdir())) == 2, proc.stderr
    web = Web(tmp_path)
    try:
        for p in ("/matches", "/players", "/matches/2", "/api/matches", "/api/players"):
            status, _, body = web.get(p)
            assert status == 200, (p, status, body)
    finally:
        err = web.stop()
    assert len(err.splitlines()) == 1, err


def test_a_socket_given_as_the_config_is_named_a_socket_in_one_line(tmp_path):
    """Fault (leftover of the last session): `--config` naming a socket (a unix socket left by a
    program, tab-completed by mistake) was "cannot be read (No such device or address)", the
    kernel's words for opening one, and a pipe or device "not a file (a device, a pipe or a
    socket)": each is now one line saying what the name is."""
    import socket
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tmp_path / "config.toml"))
        for command in (("run", "--config"), ("export", "-", "--config"), ("web", "--config"),
                        ("sim", "--bots", "--config")):
            proc = card_assistant(*command, tmp_path / "config.toml")
            lines = proc.stderr.splitlines()
            assert proc.returncode != 0 and len(lines) == 1, proc.stderr
            assert f"{tmp_path / 'config.toml'}: is a socket, not a file" in lines[0], proc.stderr
        for command in (("web",), ("export", "-"), ("sim", "--bots")):  # given as the state folder
            proc = card_assistant(*command, "--state-dir", tmp_path / "config.toml")
            assert proc.returncode != 0 and len(proc.stderr.splitlines()) == 1, proc.stderr
            assert "config.toml is a socket, not a folder" in proc.stderr.replace(": that", ""), proc.stderr
    finally:
        sock.close()
    proc = card_assistant("export", "-", "--config", "/dev/null")
    assert proc.stderr.splitlines() == ["card-assistant export: /dev/null: is a device (a character device), "
                                        "not a file"], proc.stderr


def test_a_pipe_in_place_of_the_config_or_players_file_is_one_line_not_a_hang(tmp_path):
    """Fault: a config file or players.txt that is a pipe (or a device: `deck = "/dev/zero"` in the
    config read without end until the kernel killed the box for memory) was opened and read: the
    command waited forever for a writer. Now one line saying it is not a file, at once."""
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    proc = card_assistant("export", "--config", fifo, "-")
    assert proc.returncode != 0 and proc.stderr.splitlines() == [
        f"card-assistant export: {fifo}: is a named pipe (a FIFO), not a file"], proc.stderr
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / "players.txt")
    proc = card_assistant("players", "list", "--state-dir", state)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "players.txt is a named pipe (a FIFO), not a file" in proc.stderr


def test_a_deck_too_big_to_be_one_is_refused_before_it_is_read(tmp_path):
    """A deck is under 1 KiB; one of megabytes (or a device) is refused as too big, in one line."""
    from assistant.box.deck import deck_for_play
    deck = tmp_path / "deck.txt"
    deck.write_text("04005EED000080 AS\n" * 100_000)
    found, problem, screen = deck_for_play(deck)
    assert found == {} and "is too big (1800000 bytes" in problem and screen.startswith("Deck unreadable")


def test_the_bots_on_a_folder_that_cannot_hold_a_journal_stop_in_one_line(tmp_path):
    """Fault: `sim --bots` on a state folder whose journal's name is a folder (or a dangling link,
    or a -wal that is a folder) said the box's line, then "internal error (AttributeError)" and
    asked for a bug report. Now the box's one line and status 1."""
    (tmp_path / "journal.sqlite3").mkdir()
    proc = card_assistant("sim", "--bots", "--matches", "1", "--state-dir", tmp_path)
    assert proc.returncode == 1 and "internal error" not in proc.stderr, proc.stderr
    assert proc.stderr.splitlines() == [f"ERROR card-assistant: {tmp_path}/journal.sqlite3: the journal's name "
                                        "is taken by something that is not a file; move it away"]


SMALL_CARD = """import sys
from assistant.box import journal_open
connect = journal_open.Opening._connect
def small(self, checked=False):  # the card holds one more page of the journal, then is full
    db = connect(self, checked)
    db.execute("PRAGMA max_page_count=%d" % (db.execute("PRAGMA page_count").fetchone()[0] + 1))
    return db
journal_open.Opening._connect = small
from assistant.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_bots_stopped_by_a_full_card_say_so_in_one_line_naming_no_hidden_card(tmp_path):
    """Fault: `sim --bots` on a storage card that fills up (a tmpfs of 160 KiB in the attack; here
    `PRAGMA max_page_count` on the journal's own connection, as in test_full_disk.py: SQLite says
    "database or disk is full" once the journal needs one more page, the error a full card gives)
    ended in "internal error (SimError) ... report it", a bug report for a full card. Now one line
    saying the bots stopped and why; the action is named as the log names it, never a hidden
    card. (A trigger raising that error stood for the full card before: a trigger in the journal
    is now damage, repaired away at start.)"""
    fill(tmp_path / "journal.sqlite3", (("twenty-nine-random.scn", 0),))
    proc = subprocess.run([sys.executable, "-c", SMALL_CARD, "sim", "--bots", "--matches", "1", "--game",
                           "twenty-nine", "--state-dir", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=HANG, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1 and "internal error" not in proc.stderr, proc.stderr
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("card-assistant sim:")]
    assert line.startswith("card-assistant sim: the bots stopped: the box ") and "the storage card is full" in line


BAD_CONFIG = {  # what the config said, what the box did with it before
    "a NUL in the state folder": ('[paths]\nstate_dir = "/tmp/a\\u0000b"\n',  # run: internal error (ValueError)
                                  "[paths] state_dir holds a control character"),
    "a NUL in the reader's device": ('[reader]\ndevice = "/dev/tty\\u0000S0"\n',  # every retry, its NUL in the log
                                     "[reader] device holds a control character"),
    "a baud rate no port takes": ("[reader]\nbaud = 99999999999\n",  # a traceback in the log at every retry
                                  "[reader] baud 99999999999 is not a baud rate"),
    "a hold no one can make": ("[buttons]\nhold_time = 1e300\n",  # accepted: no menu, no undo, ever
                               "[buttons] hold_time 1e+300 s is longer than a hold"),
    "a negative I2C bus": ("[display]\ni2c_port = -3\n",  # accepted: '/dev/i2c--3 is not there'
                           "[display] i2c_port -3 is not an I2C bus number"),
}


@pytest.mark.parametrize("fault", sorted(BAD_CONFIG))
def test_a_config_value_no_box_can_use_is_one_line_naming_it(tmp_path, fault):
    """Faults found by attacking the config: each value was taken, and failed later (an internal
    error, a traceback in the log at every retry of the reader) or left the box unusable without
    a word. Now the config is refused in one line naming the section and key, as a typo is."""
    text, said = BAD_CONFIG[fault]
    cfg = tmp_path / "config.toml"
    cfg.write_text(text)
    proc = card_assistant("export", "--config", cfg, "-")
    assert proc.returncode != 0 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert said in proc.stderr and "Traceback" not in proc.stderr


def unreachable_folder(tmp_path):
    """A folder path this user may not even look at: one under a folder of mode 000 (the box's own
    state folder, 0700, seen by another user), or, for root, who enters any mode, a process's
    working directory where the kernel refuses it (else the test cannot be made: skipped)."""
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        (locked / "state").mkdir(parents=True)
        locked.chmod(0)
        return locked / "state"
    try:
        os.stat("/proc/1/cwd/x")
    except PermissionError:
        return Path("/proc/1/cwd")
    except OSError:
        pass
    pytest.skip("root may look into every folder here: no folder to refuse it")


@pytest.mark.parametrize("command", [("export", "-"), ("players", "list"), ("web", "--port", "0"),
                                     ("sim", "--bots")])
def test_a_state_folder_this_user_may_not_reach_is_one_line(tmp_path, command):
    """Fault: `export`, `players`, `web` and `sim` on a state folder the user may not look at (the
    box's own folder, 0700, from another user's shell; Python 3.11's Path.exists() raises
    PermissionError there) each said "internal error (PermissionError) ... report it". Now one
    line saying it cannot be reached."""
    folder = unreachable_folder(tmp_path)
    try:
        proc = card_assistant(command[0], "--state-dir", folder, *command[1:])
    finally:
        if folder.parent.name == "locked":
            folder.parent.chmod(0o700)
    assert proc.returncode != 0 and "internal error" not in proc.stderr, proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "cannot be reached" in proc.stderr, proc.stderr


def test_a_deck_in_a_folder_this_user_may_not_reach_is_not_called_missing(tmp_path):
    """Fault: the box started by a user who may not enter the state folder logged "no deck at
    ...: enrol the pack" (os.path.lexists says False for a path it may not look at), sending the
    owner to re-enrol a pack that is there; read whole, the deck's folder check raised
    PermissionError. Now the deck is said to be unreadable, and why."""
    from assistant.box.deck import deck_for_play
    folder = unreachable_folder(tmp_path)
    try:
        deck, problem, screen = deck_for_play(folder / "deck.txt")
    finally:
        if folder.parent.name == "locked":
            folder.parent.chmod(0o700)
    assert deck == {} and "no deck at" not in problem and "cannot be read (Permission denied)" in problem


SCREEN_FILES = {  # what lay in the web page's screen file, and what the page did before
    "a pipe": lambda path: os.mkfifo(path),  # every page hung: Now reads it holding the page's one lock
    "JSON nested 30,000 deep": lambda path: path.write_text(  # under the size limit: RecursionError,
        '{"view":' + "[" * 30000 + "]" * 30000 + "}"),       # uncaught: Now and /api/now answered 500
    # the latest match and row, but a view of another shape (numbers where words go, a part of
    # the fields, NaN): the Now page answered 500 "the box could not make this page"
    "numbers in every field": lambda path: path.write_text(json.dumps({"match": 1, "rows": 10, "view": dict.fromkeys(
        ("game", "seats", "sides", "phase", "prompt", "score", "dealer", "alert", "menu", "trump"), 5)})),
    "a view of a few fields": lambda path: path.write_text(json.dumps(
        {"match": 1, "rows": 10, "view": {"game": "towers", "prompt": ["<script>x</script>"], "alert": None}})),
    "NaN for a score": lambda path: path.write_text(
        '{"match": 1, "rows": 10, "view": {"game": "towers", "sides": ["a", "b"], "score": [NaN, 1]}}'),
}


@pytest.mark.parametrize("fault", sorted(SCREEN_FILES))
def test_a_screen_file_the_box_never_wrote_leaves_the_web_page_answering(tmp_path, fault):
    """Faults: a pipe in place of the screen file, one nested past Python's recursion limit, one
    whose view is not of the shape the box writes. Now each is no screen: the Now page shows the
    table from the journal, every page answers."""
    fill(tmp_path / "journal.sqlite3", (("towers-random.scn", 10),))
    (tmp_path / "run").mkdir()
    SCREEN_FILES[fault](tmp_path / "run" / "screen.json")
    web = Web(tmp_path)
    try:
        for p in ("/", "/api/now", "/now/board", "/matches"):
            status, _, body = web.get(p)
            assert status == 200, (p, status, body)
        assert '"source": "journal"' in web.get("/api/now")[2].replace('":"', '": "')
    finally:
        web.stop()


@pytest.mark.parametrize("removed", ["the journal's files", "the whole state folder"])
def test_a_journal_removed_while_the_box_runs_is_written_back_and_loses_nothing(tmp_path, removed):
    """Fault (an attack on the state folder while bots played): the journal's files removed while
    the box ran; SQLite went on writing into the open file that no longer had a name, so all 244
    actions the box accepted after that were gone at the next start (the count record said so).
    Now the first action after it writes the whole journal back under its name, from the box's
    own connection, and says so once in the log; the next start finds every action."""
    from assistant.box.journal import Journal
    from assistant.rules.scenario import parse_action
    state = tmp_path / "state"
    _, j = fill(state / "journal.sqlite3", (("towers-random.scn", 20),), close=False)
    before = [r[0] for r in j.db.execute("SELECT line FROM actions ORDER BY seq")]
    if removed == "the whole state folder":
        import shutil
        shutil.rmtree(state)
    else:
        for suffix in ("", "-wal", "-shm"):
            (state / f"journal.sqlite3{suffix}").unlink(missing_ok=True)
    game, seats, _, body = example("towers-random.scn")
    lines = body[20:30]
    for n, line in enumerate(lines, 21):
        j.append(parse_action(line.split(), game, seats, n), seats)
    j.close()
    # and the count record: it was written into the removed file until a restart, so the next start
    # had none and could not tell what the storage lost (found by the attack on the folder)
    from assistant.box.journal_files import CountRecord
    assert CountRecord(str(state / "journal.sqlite3.count")).read() == (1, 30, 30)
    again = Journal(str(state / "journal.sqlite3"))
    try:
        assert again.problems == []
        kept = [r[0] for r in again.db.execute("SELECT line FROM actions ORDER BY seq")]
    finally:
        again.close()
    assert len(before) == 20 and kept[:20] == before and len(kept) == 30


def test_the_web_page_of_a_journal_from_a_newer_version_says_so(tmp_path):
    """Fault: on a journal written by a newer card-assistant (which this version leaves exactly as
    it is) the Now page said "No match in the journal yet.", untrue: it has matches this version
    cannot read. Now it says the journal is from a newer card-assistant."""
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 10),))
    damage(path, "UPDATE meta SET value='99' WHERE key='schema'")
    web = Web(tmp_path)
    try:
        status, _, body = web.get("/api/now")
    finally:
        web.stop()
    assert status == 503 and "newer card-assistant" in body and "No match" not in body, body


def test_the_sim_pulls_its_reader_cable_when_the_link_cannot_be_removed(tmp_path):
    """Fault: the state folder's storage failing while `sim` ran (an I/O error for every call, as
    a card that dies does) made `sim` end, after "stopped cleanly", in "internal error (OSError)":
    removing its reader's link in that folder raised. Here the link's name is taken by a folder
    (unlink raises as it does then): the cable is pulled all the same, nothing raised."""
    from assistant.sim.virtual_firmware import VirtualFirmware
    link = tmp_path / "card-reader"
    vf = VirtualFirmware(link).plug()
    link.unlink()
    (link / "x").mkdir(parents=True)
    vf.unplug()
    assert vf._unplugged.is_set() and vf._master is None


@pytest.mark.parametrize("cut", [0, 5 * 4096, "zeroed"])
def test_a_journal_cut_short_while_the_box_runs_is_repaired_at_the_next_action(tmp_path, caplog, cut):
    """Fault (an attack on the journal's file while the box ran): `truncate -s 0 journal.sqlite3`
    (or to 5 pages). The box's connection cannot read the pages the file lost, so every action
    after it was refused ("database disk image is malformed") until a restart, which then said
    what was lost. Now the next action notices the file is shorter than it was (SQLite never
    shrinks it), sets the files aside, recovers what is left with the current match written back
    whole from what the box holds, says so once in the log, and is stored; the next start is
    clean and holds every action of the match in play. "zeroed": the file's bytes zeroed in place
    (its size kept) under a journal larger than the connection's page cache (here 2 pages): the
    append that meets the damage is refused by SQLite, then repaired the same way and stored."""
    import logging
    from assistant.box.journal import Journal
    from assistant.rules.scenario import format_action, parse_action
    state = tmp_path / "state"
    path = state / "journal.sqlite3"
    fill(path, (("towers-random.scn", None), ("twenty-nine-random.scn", None)) * 2 + (("towers-random.scn", 30),))
    j = Journal(str(path))
    assert j.resume().match_id == 5 and j.rows == 30
    if cut == "zeroed":
        j.db.execute("PRAGMA cache_size=2")
        with open(path, "r+b") as f:
            f.write(bytes(os.path.getsize(path)))
    else:
        os.truncate(path, cut)
    game, seats, _, body = example("towers-random.scn")
    with caplog.at_level(logging.ERROR):
        for n, line in enumerate(body[30:40], 31):
            j.append(parse_action(line.split(), game, seats, n), seats)
    j.close()
    said = [m for m in caplog.messages if "damaged while the box ran" in m]
    why = "database disk image is malformed" if cut == "zeroed" else "the journal file was cut short while the box ran"
    assert len(said) == 1 and why in said[0], caplog.messages
    assert any(".damaged-" in p.name for p in state.iterdir())
    again = Journal(str(path))
    try:
        assert again.problems == []
        r = again.resume()
        assert r.match_id == 5 and r.problems == []
        kept = [row[0] for row in again.db.execute("SELECT line FROM actions WHERE match=5 ORDER BY seq")]
    finally:
        again.close()
    assert kept == [format_action(parse_action(line.split(), game, seats, n), seats)
                    for n, line in enumerate(body[:40], 1)]
