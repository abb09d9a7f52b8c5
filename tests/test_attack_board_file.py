"""Faults a fourth attack on storage found in the club board's own file and its acknowledgements:
real SQLite files damaged on disk, the real ``card-assistant board`` process, the real Mosquitto.
Each test names the fault and what the board did before."""
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from journal_faults import overwrite, pages, rows_on_page
from test_club import bot_table, broker, deliver, play  # noqa: F401 (broker: a fixture)

ROOT = Path(__file__).resolve().parents[1]
HANG = 60.0  # seconds: only ever a guard against a hung process, never a measurement


@pytest.fixture(scope="module")
def season_file(tmp_path_factory):
    """A board file holding two tables' three towers matches each (every event and record
    delivered), and each match's summary as the board showed it."""
    from assistant.club.board import Board
    folder = tmp_path_factory.mktemp("season")
    path = folder / "board.sqlite3"
    board = Board(str(path), "c")
    for name, seed in (("t1", 11), ("t2", 12)):
        j, t, bot = bot_table(Path(tempfile.mkdtemp(dir=folder)), "towers", seed, name=name)
        for _ in range(3):
            play(t, bot, "towers", ("Ann", "Bob"))
        deliver(board, j)
        j.close()
    summaries = {key: bm.summary() for key, bm in board.matches.items()}
    stored = board.counts["stored"]
    board.close()
    return path, summaries, stored


def damaged_copy(season_file, tmp_path, kind):
    """A copy of the season's file damaged as ``kind`` says; the bytes it then holds."""
    src, _, _ = season_file
    path = tmp_path / "board.sqlite3"
    shutil.copyfile(src, path)
    if kind == "truncated":  # a power cut while the file grew, a copy stopped short
        os.truncate(path, path.stat().st_size // 2)
    elif kind == "page zeroed":  # a flash block lost: one leaf of the events table
        leaf = pages(path, "events", "leaf")[3]
        assert rows_on_page(path, "events", leaf) > 0
        overwrite(path, (leaf - 1) * 4096, bytes(4096))
    else:  # not a database at all: a log written over it, --db naming the wrong file
        path.write_bytes(b"INFO the night began\n" * 500)
    return path, path.read_bytes()


@pytest.mark.parametrize("kind", ["truncated", "page zeroed", "not a database"])
def test_a_damaged_board_file_is_set_aside_and_the_board_goes_on_with_what_reads_back(season_file, tmp_path,
                                                                                      kind, caplog):
    """Fault (the board's SQLite file truncated, a page zeroed, or no database at all): the board
    stopped at start, "cannot use board.sqlite3: database disk image is malformed", and a whole
    club night had no results board. Now the damaged file is set aside under a name that says so,
    byte for byte as it was (never deleted), every event that still reads back goes into a new
    file, one line says where the old one is and how many events are missing, and the board
    starts; a match none of whose events were lost is on the page exactly as before."""
    from assistant.club.board import Board
    _, before, stored = season_file
    path, damaged = damaged_copy(season_file, tmp_path, kind)
    with caplog.at_level(logging.WARNING, "assistant.club.board"):
        board = Board(str(path), "c")
    try:
        kept = [p for p in tmp_path.iterdir() if p.name.startswith("board.sqlite3.damaged-") and "-" not in p.name[-4:]]
        assert len(kept) == 1 and kept[0].read_bytes() == damaged
        lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert lines[0].startswith(f"board: {path} was damaged (") and f"set aside as {kept[0].name} (kept as it " \
            "was); " in lines[0] and lines[0].endswith("the boxes' own journals hold every match)"), lines
        got = board.counts["stored"]
        if kind == "not a database":
            assert got == 0 and not board.matches
            assert "0 event(s) of 0 match(es) read back" in lines[0]
        else:
            assert 0 < got < stored
            whole = [key for key, bm in board.matches.items() if bm.summary() == before[key]]
            assert len(whole) >= 2, "matches with no event lost are shown as before"
            if kind == "page zeroed":
                assert f"{got} event(s) of 6 match(es) read back from it into a new file, {stored - got} " \
                    "event(s) could not be read and are missing from the page" in lines[0], lines
        assert not any("Traceback" in ln for ln in lines)
    finally:
        board.close()
    again = Board(str(path), "c")  # the new file is sound: no second repair, the same events
    try:
        assert again.counts["stored"] == got
        assert len([p for p in tmp_path.iterdir() if ".damaged-" in p.name and "-" not in p.name[-4:]]) == 1
    finally:
        again.close()


def test_card_assistant_board_on_a_file_that_is_no_database_serves_its_page(tmp_path):
    """Fault (`card-assistant board --db FILE` where FILE is no database: a log written over it):
    the command ended at once, "cannot use FILE: file is not a database", and the club had no
    board. It sets the file aside, says so in one line and serves its page."""
    db = tmp_path / "board.sqlite3"
    db.write_bytes(b"not a database\n" * 400)
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "board", "--broker", "mqtt://board@127.0.0.1:1",
                             "--db", str(db), "--port", "0", "--host", "127.0.0.1"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    lines = []
    try:
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))
            if "serving http" in line:
                break
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rest = proc.communicate(timeout=HANG)[1]
        except subprocess.TimeoutExpired:
            proc.kill()
            rest = proc.communicate()[1]
    assert any("serving http://127.0.0.1:" in ln for ln in lines), lines + [rest]
    (said,) = [ln for ln in lines if "damaged" in ln]
    assert said.startswith(f"WARNING assistant.club.board: board: {db} was damaged (file is not a database): set aside "
                           "as board.sqlite3.damaged-")
    assert "Traceback" not in rest and proc.returncode == 0, rest


def test_an_event_the_board_could_not_store_on_a_full_disk_is_not_acknowledged_and_comes_again(tmp_path):
    """Fault (the board's disk full during a night; real Mosquitto, a real full file system, the real
    `card-assistant board` killed with SIGKILL while full, then started again once space is back):
    paho acknowledged every message once the board had seen it, stored or not; the broker then
    forgot it, the box had deleted it from its outbox, and the event was gone from the page until
    the match's record came at its end (never, for a match whose box then broke down). Now a
    message is acknowledged only once stored: the broker keeps the rest for the board's session and
    gives them to the board started again, which stores each event once, no record needed."""
    from test_attack_files_and_kills import _on_a_full_card
    from test_club import mosquitto_or_skip
    mosquitto_or_skip()
    got = _on_a_full_card(tmp_path, {}, (
        "import os, signal, sqlite3, subprocess, sys, tempfile, threading\n"
        "from pathlib import Path\n"
        "from test_club import bot_table, send_all, wait_for\n"
        "from assistant.club.broker import Broker\n"
        "broker = Broker(Path(tempfile.mkdtemp()), 'c', ['t1'], persistence=False).start()\n"
        "secret = Path(tempfile.mkdtemp()) / 'board-password'\n"
        "secret.write_text(broker.passwords['board'])\n"
        "j, t, bot = bot_table(Path(tempfile.mkdtemp()), 'towers', 5)\n"
        "t.new_match('towers', {}, seats=('Ann', 'Bob'))\n"
        "for _ in range(30):\n    assert t.apply(bot.next_action(t.match.engine))\n"  # in play: no record
        "rows = [(topic, p.encode()) for _, topic, p in j.outbox_rows(0, 100000) if topic.endswith('/events')]\n"
        "def board():\n"
        "    proc = subprocess.Popen([sys.executable, '-m', 'assistant.cli', 'board', '--broker',\n"
        "        f'mqtt://board@127.0.0.1:{broker.port}', '--password-file', str(secret), '--db', STATE + '/b.sqlite3',\n"
        "        '--port', '0', '--host', '127.0.0.1', '--club', 'c'], stderr=subprocess.PIPE, text=True)\n"
        "    proc.said = []\n"
        "    threading.Thread(target=lambda: proc.said.extend(proc.stderr), daemon=True).start()\n"
        "    return proc\n"
        "def stored():\n"
        "    try:\n"
        "        db = sqlite3.connect(f'file:{STATE}/b.sqlite3?mode=ro', uri=True)\n"
        "        try:\n"
        "            return db.execute('SELECT count(*), count(DISTINCT n) FROM events').fetchone()\n"
        "        finally:\n"
        "            db.close()\n"
        "    except sqlite3.Error:\n"
        "        return None\n"
        "def subscribed(proc):\n"
        "    import json, re, urllib.request\n"
        "    port = next((re.search(r'serving http://127.0.0.1:([0-9]+)/', ln) for ln in proc.said if 'serving' in ln), None)\n"
        "    return port and json.load(urllib.request.urlopen(f'http://127.0.0.1:{port[1]}/api/club', timeout=5))['subscribed']\n"
        "boards = []\n"
        "try:\n"
        "    boards.append(board())\n"
        "    assert wait_for(lambda: subscribed(boards[0])), boards[0].said\n"
        "    send_all(broker, 't1', rows[:10])\n"
        "    assert wait_for(lambda: stored() == (10, 10)), boards[0].said\n"
        "    FILL()\n"
        "    send_all(broker, 't1', rows[10:])\n"  # each acknowledged by the broker: gone from a box's outbox
        "    assert wait_for(lambda: any('cannot be written' in ln for ln in boards[0].said)), boards[0].said\n"
        "    boards[0].send_signal(signal.SIGKILL); boards[0].wait()\n"
        "    print('killed while full with', stored())\n"
        "    os.remove(STATE + '/fill')\n"
        "    boards.append(board())\n"
        "    wait_for(lambda: stored() == (len(rows), len(rows)), 30)\n"
        "    print('after a restart', stored(), 'of', len(rows))\n"
        "finally:\n"
        "    for proc in boards:\n"
        "        proc.kill(); proc.wait()\n"
        "    broker.stop()\n"
        "    print(''.join(ln for proc in boards for ln in proc.said), file=sys.stderr)\n"), fill=False)
    assert "Traceback" not in got.stderr, got.stderr
    assert got.stdout.splitlines() == ["killed while full with (10, 10)", "after a restart (31, 31) of 31"], \
        (got.stdout, got.stderr)
    said = [ln for ln in got.stderr.splitlines() if "cannot be written" in ln]
    assert len(said) == 1 and "cannot be written (the disk is full): the broker keeps what it could not store (not " \
        "acknowledged), and the board stores it as soon as it can" in said[0], got.stderr


def test_a_board_file_damaged_between_two_nights_is_made_whole_by_the_records_the_broker_keeps(broker, tmp_path):
    """Fault (a leaf of the board's file lost between two nights): the board would not start at all.
    Now it starts with what reads back, and the records of finished matches the broker keeps
    (retained) bring their events back as it subscribes: the page is whole again, each event once."""
    import threading
    from test_club import wait_for
    from assistant.club.board import Board
    from assistant.club.board_run import run_board
    from assistant.club.publisher import Publisher
    j, t, bot = bot_table(tmp_path / "box", "towers", 11)
    for _ in range(3):
        play(t, bot, "towers", ("Ann", "Bob"))
    rows = [topic for _, topic, _ in j.outbox_rows(0, 100_000)]
    pub = Publisher(j, j.outbox, broker.url("t1"))  # the box's own: records retained
    pub.start()
    assert wait_for(pub.idle)
    pub.stop()
    path = tmp_path / "board.sqlite3"

    def night():
        board = Board(str(path), "c")
        stop = threading.Event()
        th = threading.Thread(target=run_board, args=(board, broker.url("board"), 0), kwargs={"stop": stop})
        th.start()
        return board, stop, th
    board, stop, th = night()
    events = sum(1 for topic in rows if topic.endswith("/events"))
    assert wait_for(lambda: board.counts["stored"] == events)
    before = {key: bm.summary() for key, bm in board.matches.items()}
    stop.set()
    th.join(10)
    board.close()
    leaf = pages(path, "events", "leaf")[2]
    overwrite(path, (leaf - 1) * 4096, bytes(4096))
    board, stop, th = night()
    try:
        assert 0 < board.counts["stored"] < events  # what read back, before the broker's records come
        assert wait_for(lambda: board.counts["stored"] == events)
        with board.lock:  # the record's last event is counted before it is applied, under the lock
            assert {key: bm.summary() for key, bm in board.matches.items()} == before
    finally:
        stop.set()
        th.join(10)
        board.close()


@pytest.mark.parametrize("left", ["whole", "junk"])
def test_a_repair_of_the_board_file_cut_by_a_power_cut_is_finished_at_the_next_start(season_file, tmp_path, left,
                                                                                    caplog):
    """Fault (power cut during the repair of a damaged board file, after the new file was written
    whole as board.sqlite3.recovered, before it took the file's name): the next start must put it
    in place and keep the damaged file aside; a .recovered that is junk must never take the place
    of the file. Before, the board had no repair at all and would not start on the damaged file;
    the one line said "journal" of the board's file."""
    from assistant.club.board import Board
    src, before, stored = season_file
    path, damaged = damaged_copy(season_file, tmp_path, "page zeroed" if left == "whole" else "not a database")
    ready = tmp_path / "board.sqlite3.recovered"
    if left == "whole":
        shutil.copyfile(src, ready)
    else:
        shutil.copyfile(src, path)  # the file is sound; the junk is the interrupted repair's
        ready.write_bytes(b"half a file\n" * 100)
    with caplog.at_level(logging.WARNING, "assistant.club.board"):
        board = Board(str(path), "c")
    try:
        lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert board.counts["stored"] == stored and not ready.exists()
        kept = [p for p in tmp_path.iterdir() if ".damaged-" in p.name and "-" not in p.name[-4:]]
        if left == "whole":
            assert lines == [] and [p.read_bytes() for p in kept] == [damaged]
        else:
            assert len(lines) == 1 and lines[0].startswith("board: board.sqlite3.recovered (a repaired board file an "
                                                           "interrupted repair leaves) is not one: kept as "), lines
            assert lines[0].endswith("; the board file is opened as it is")
    finally:
        board.close()


def test_an_event_the_board_acknowledged_is_synced_to_the_card_before(tmp_path):
    """Fault (attacker on disk): the board acknowledges an event once its file has it, and the
    broker forgets it; with synchronous=NORMAL the commit was not synced, so a power cut took back
    events already acknowledged. No test here can cut the power; this checks the setting a power
    cut depends on, on the board's own connection (as tests/test_journal.py does the box's)."""
    from assistant.club.store import BoardFile
    board = BoardFile(str(tmp_path / "board.sqlite3"))
    try:
        assert board.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert board.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        board.db.close()


def test_a_full_disk_at_the_tidy_is_said_once_and_does_not_stop_the_board(tmp_path):
    """Fault (second read of the board's full-disk fix): the tidy that puts older nights away
    every 5 s wrote to the file outside any guard, and the board's loop had none round it: on a
    full disk its SQLITE_FULL ended `card-assistant board`, on the very fault the board had just
    learnt to live with for events. Now the loop's tidy says it once, goes on, and says when it
    can put them away again."""
    from test_attack_files_and_kills import _on_a_full_card
    got = _on_a_full_card(tmp_path, {}, (
        "import logging, os, shutil, sqlite3, tempfile\n"
        "from pathlib import Path\n"
        "from test_club import bot_table, deliver, play\n"
        "from assistant.club.board import Board\n"
        "from assistant.club.board_run import tidy\n"
        "from assistant.repeated import Repeated\n"
        "logging.basicConfig(level=logging.INFO, format='%(message)s')\n"
        "board = Board(tempfile.mkdtemp() + '/b.sqlite3', 'c')\n"  # filled elsewhere: its -wal outgrows the card
        "j, t, bot = bot_table(Path(tempfile.mkdtemp()), 'towers', 11, name='t1')\n"
        "for _ in range(2):\n    play(t, bot, 'towers', ('Ann', 'Bob'))\n"
        "deliver(board, j)\n"
        "board.close()\n"
        "shutil.copyfile(board.file.path, STATE + '/b.sqlite3')\n"
        "board = Board(STATE + '/b.sqlite3', 'c')\n"
        "board.keep = 0\n"  # match 1 is old enough at once; match 2, the table's latest, stays
        "FILL()\n"
        "try:\n    board.tidy()\nexcept sqlite3.OperationalError as e:\n    print('the tidy itself raises', e)\n"
        "stuck = Repeated(logging.getLogger('assistant.club.board'))\n"
        "for _ in range(3):\n    tidy(board, stuck)\n"
        "os.remove(STATE + '/fill')\n"
        "tidy(board, stuck)\n"
        "print('in memory', len(board.matches))\n"), fill=False)
    assert "Traceback" not in got.stderr, got.stderr
    assert got.stdout.splitlines() == ["the tidy itself raises database or disk is full", "in memory 1"], got
    said = [ln for ln in got.stderr.splitlines() if "older nights" in ln]
    assert len(said) == 2 and said[0] == "board: older nights cannot be put away now (the disk is full); tried " \
        "again every 5 s (logged once until it ends)", got.stderr
    assert said[1].startswith("board: older nights are put away again (after 3 times"), got.stderr
