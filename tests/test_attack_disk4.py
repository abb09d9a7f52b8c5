"""Attacker at the box's storage and power, fourth round: a lying fsync, a clock that jumps, a kill
at every moment of the commands that write files. Each test names the fault it covers."""
import json
import os
import sqlite3

import pytest

from assistant.box.config import Config
from assistant.web import kept
from assistant.web.history import History
from test_stats import write_journal
from test_web_kept import replayed


def flip_a_bit_in_a_kept_score(path):
    """One bit flipped on the card inside a kept record's score, as the file's bytes (not through
    SQLite): ``"score":[a, b]`` whose digit 5 becomes 7 (0x35 ^ 0x02), or 4 becomes 6."""
    data = bytearray(path.read_bytes())
    at = data.find(b'"score": [')
    assert at > 0
    for i in range(at + 10, at + 20):
        if data[i] in b"45":
            data[i] ^= 0x02
            break
    else:
        raise AssertionError("no digit 4 or 5 in the kept score")
    path.write_bytes(bytes(data))


def test_a_bit_flipped_in_the_web_pages_kept_record_never_shows_a_wrong_score(tmp_path):
    """Fault (a card that flips a bit in web-records.sqlite3, the web page's own file): SQLite keeps
    no checksum of a page, so a record whose score read 5-3 read 7-3 and the page served it as the
    match's score, for as long as the file lasted (its key, of what the replay reads, was still
    the match's). A record is kept sealed with a digest of its own text: one that is not what was
    kept is replayed, never served."""
    write_journal(tmp_path)
    History(str(tmp_path)).records()
    path = tmp_path / kept.NAME
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    flip_a_bit_in_a_kept_score(path)
    recs = History(str(tmp_path)).records()
    assert [(r.score, r.winner, r.state) for r in recs] == [(r.score, r.winner, r.state) for r in replayed(tmp_path)]


@pytest.mark.parametrize("left", ["empty", "zeros"])
def test_players_txt_emptied_by_a_power_cut_after_a_lying_fsync_keeps_the_list_before(tmp_path, capsys, caplog, left):
    """Fault (a card whose fsync returns before the data is on it, then a power cut just after
    `players rename`): the rename reached the card and the new file's bytes did not, so
    players.txt was left empty (or zeros). Empty, it read as no players at all: every player the
    box knew was gone without a word, the box seated guests and `players list` said "no players
    yet". Each save keeps the list it replaces as players.txt.previous; a players.txt that is
    empty or holds zeros is damage, and the list before its last change is used, said in one line
    (the box's log, the command's error line); the next change writes players.txt whole again."""
    from assistant.box.daemon import open_table
    from assistant.box.players import FILE, load_players, main as players_main
    from test_players import ALEX, ANN, taps
    d = ["--state-dir", str(tmp_path)]
    assert players_main(["add", "Ann", *d], events=taps(ANN)) == 0
    assert players_main(["add", "Bo", *d], events=taps(ALEX)) == 0
    assert players_main(["rename", "Bo", "Cleo", *d]) == 0
    path = tmp_path / FILE
    size = path.stat().st_size
    path.write_bytes(b"" if left == "empty" else b"\0" * size)  # what the power cut left of it
    capsys.readouterr()
    assert players_main(["list", *d]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["Ann  (tag 04AA000000000A)", "Bo  (tag 04AA000000000B)"]
    assert len(err.splitlines()) == 1 and "players.txt" in err and "previous" in err and "Traceback" not in err
    caplog.clear()
    table = open_table(str(tmp_path), {}, Config().game, ("P1", "P2", "centre"))
    assert table.players == {ANN: "Ann", ALEX: "Bo"}
    assert [r.getMessage() for r in caplog.records if "players.txt" in r.getMessage()] != []
    table.journal.close()
    assert players_main(["rename", "Bo", "Cleo", *d]) == 0  # done again: written whole
    assert load_players(tmp_path) == {ANN: "Ann", ALEX: "Cleo"}
    capsys.readouterr()
    assert players_main(["list", *d]) == 0 and capsys.readouterr().err == ""


@pytest.mark.parametrize("previous", ["none", "damaged"])
def test_players_txt_emptied_at_its_first_save_is_no_players_said_not_a_refusal_for_good(tmp_path, capsys, previous):
    """Fault (second read of d369b61): a power cut at the very first `players add` left
    players.txt empty with no players.txt.previous (there was no list before it): every `players`
    command, `players add` too, then refused with "add the players again", the one thing it would
    not do, and the message said there was no .previous when one was there but damaged. Now
    there are no players, said in one line that is true, and `players add` writes the list anew."""
    from assistant.box.players import FILE, PREVIOUS, load_players, main as players_main
    from test_players import ANN, taps
    d = ["--state-dir", str(tmp_path)]
    (tmp_path / FILE).write_bytes(b"")  # the first save's rename reached the card, its bytes did not
    if previous == "damaged":
        (tmp_path / PREVIOUS).write_bytes(b"\0" * 40)
    assert players_main(["list", *d]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["no players yet: card-assistant players add NAME"]
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert ("there is no players.txt.previous" in err) == (previous == "none")
    assert ("players.txt.previous is damaged too" in err) == (previous == "damaged")
    assert players_main(["add", "Ann", *d], events=taps(ANN)) == 0
    assert load_players(tmp_path) == {ANN: "Ann"}


KILLED_MID_WRITE = r'''
import os, sys
from assistant import textfile
real_fsync = os.fsync
def killed(fd):  # the kill comes while the new file is written: after its bytes, before its rename
    real_fsync(fd)
    os.kill(os.getpid(), 9)
os.fsync = killed
textfile.write_text(sys.argv[1], "the new text\n")
'''


@pytest.mark.parametrize("name", ["players.txt", "match-3.scn"])
def test_what_a_kill_while_players_or_export_wrote_left_is_taken_away_by_the_next_write(tmp_path, name):
    """Fault (SIGKILL during `card-assistant players add` or `export --all`, a kill or a power cut
    at any moment): the new list or scenario was written into a temporary file beside it
    (players.txt.k3j9x2ab.tmp), which a kill before its rename left there for good, one more at
    each kill (15 after 40 kills of `players rename` in a loop), in the box's state folder and, a
    match's hidden cards in it, in the folder export wrote to. A writer now holds its temporary
    file locked (flock) until it has its name, and the next write of that file takes away the ones
    nobody holds: a kill leaves at most one, and the list or scenario is the old one or the new one."""
    import subprocess
    import sys
    from pathlib import Path
    from assistant.textfile import write_text
    (tmp_path / name).write_text("the old text\n")
    for _ in range(2):
        got = subprocess.run([sys.executable, "-c", KILLED_MID_WRITE, str(tmp_path / name)],
                             cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, timeout=60)
        assert got.returncode == -9, got.stderr
        assert len(list(tmp_path.iterdir())) == 2  # the one it left (the earlier one taken away)
        assert (tmp_path / name).read_text() == "the old text\n"
    write_text(tmp_path / name, "the next text\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    assert (tmp_path / name).read_text() == "the next text\n"


def test_a_temporary_file_a_living_writer_holds_is_never_taken_away(tmp_path):
    """The other side of the same fix: a second `players` command (or export) writing the same file
    at the same moment finds the first one's temporary file held, and leaves it: both writes end
    in a whole file, neither refused."""
    import fcntl
    from assistant.textfile import _new_file, write_text
    path = tmp_path / "players.txt"
    fd, tmp = _new_file(path)  # another writer, mid-write
    try:
        write_text(path, "the second writer's\n")
        assert os.path.exists(tmp)
        with pytest.raises(BlockingIOError):
            fcntl.flock(os.open(tmp, os.O_RDONLY), fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.replace(tmp, path)
    finally:
        os.close(fd)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["players.txt"]


def test_a_temporary_file_swept_before_its_writer_locked_it_is_made_again(tmp_path, monkeypatch):
    """Fault (two `players` commands, or a command and export, writing the same file at once): the
    second one's sweep could open and take away the first one's temporary file in the moment
    between its making and its lock; the first then found its name gone (lstat: no such file),
    took that for a file system without locks, wrote into the unlinked file and was refused at
    its rename ('No such file or directory'), its list lost. ``_new_file`` says such a file is
    made again: now it is."""
    import tempfile
    from assistant import textfile
    path = tmp_path / "players.txt"
    made = tempfile.mkstemp
    swept = []

    def made_then_swept(*a, **k):  # the other writer's sweep lands between mkstemp and flock
        got = made(*a, **k)
        if not swept:
            swept.append(got[1])
            textfile._sweep(path)
        return got

    monkeypatch.setattr(tempfile, "mkstemp", made_then_swept)
    textfile.write_text(path, "the first writer's\n")
    assert not os.path.exists(swept[0])
    assert path.read_text() == "the first writer's\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["players.txt"]


class Clock:
    """The box's wall clock, set by hand (or by NTP) while its boot clock runs on as it does."""

    def __init__(self, monkeypatch):
        import time as time_module
        self.wall = 1_700_000_000.0  # the time a Pi with no clock kept since it was switched off
        self.boot = 100.0
        monkeypatch.setattr(time_module, "time", lambda: self.wall)
        monkeypatch.setattr(time_module, "clock_gettime", lambda which: self.boot)

    def run(self, seconds):
        self.wall += seconds
        self.boot += seconds


def test_a_clock_set_forward_during_a_match_never_makes_it_days_long(tmp_path, monkeypatch):
    """Fault (a Pi has no clock of its own: it starts at the time it was switched off, days ago,
    until network time sets it, a step of days, often just after a match began): the match's start
    stayed on the old clock and its last action on the new, so the page said it lasted 3 days
    (4,320 minutes a match for its players) and began three days before it did. The box sees its
    clock set (the wall clock moves apart from the clock that counts time since boot) and keeps
    by how much for the match in play: its start and its minutes are on the new clock."""
    from assistant.box.journal import Journal
    from assistant.rules.scenario import read_header
    from test_stats import SCN
    clock = Clock(monkeypatch)
    sc = read_header((SCN / "towers/T8-first-to-five-two-tower-carries-to-six.scn").read_text().splitlines())
    j = Journal(str(tmp_path / "journal.sqlite3"))
    j.new_match(sc.game, sc.seats, sc.options)
    actions = [a for _, a in sc.actions()]
    for n, action in enumerate(actions):
        clock.run(10)
        if n == 3:
            clock.wall += 3 * 86400  # network time: three days forward
        j.append(action)
    j.new_match(sc.game, sc.seats, sc.options)  # the match above is finished, the next begun
    j.close()
    rec = History(str(tmp_path)).records()[0]
    assert rec.state == "finished"
    assert rec.minutes == round(10 * len(actions) / 60, 6) or abs(rec.minutes - 10 * len(actions) / 60) < 1e-6
    assert rec.started == 1_700_000_000.0 + 3 * 86400


def test_a_bit_flipped_in_a_put_away_record_of_the_board_is_made_again_from_its_events(tmp_path, caplog):
    """Fault (a card that flips a bit in the board's file): an older night's match is kept as its
    record (what its page shows, with the standings' figures), and SQLite keeps no checksum of a
    page: a score of 6 read as 4 was counted in the season's standings for good. A record is
    kept sealed with a digest of its own text; one that is not what was kept is made again from
    the match's events at the board's start, in one log line."""
    import time
    from assistant.club.board import Board
    from test_club import bot_table, deliver, page_of, play
    from test_club_season import LATER, standings
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 5)
    for seats in (("Ann", "Bob"), ("Ann", "Cat"), ("Bob", "Cat")):
        play(t, bot, "towers", seats)
    deliver(board, j)
    j.close()
    assert board.tidy(now=time.time() + LATER) == 2
    before = standings(board), page_of(board, "/matches/t1/1"), page_of(board, "/nights")
    board.close()
    db = sqlite3.connect(tmp_path / "board.sqlite3")
    with db:
        (text,) = db.execute("SELECT record FROM matches WHERE match=1").fetchone()
        at = text.index('"score":[') + len('"score":[')
        flipped = text[:at] + chr(ord(text[at]) ^ 0x02) + text[at + 1:]  # 4 <-> 6, 5 <-> 7, 0 <-> 2
        db.execute("UPDATE matches SET record=? WHERE match=1", (flipped,))
    db.close()
    caplog.clear()
    again = Board(str(tmp_path / "board.sqlite3"), "c")
    said = [r.getMessage() for r in caplog.records if "not as kept" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("board: 1 match record(s) put away were not as kept"), said
    try:
        assert again.tidy(now=time.time() + LATER) == 1  # put away again, with its record made anew
        assert (standings(again), page_of(again, "/matches/t1/1"), page_of(again, "/nights")) == before
    finally:
        again.close()


def test_the_players_previous_link_is_no_leftover_another_writer_sweeps_away(tmp_path):
    """Fault (second read of d369b61 and 903ffd7): the link players.txt.previous is made through,
    players.txt.previous.tmp, has the shape of a killed writer's leftover (NAME.xxxxxxxx.tmp:
    "previous" is 8 letters), so another players command sweeping between the link and its
    rename took it away, and .previous was quietly not updated. It is named .previous.new now."""
    from assistant import textfile
    from assistant.box.players import FILE, PREVIOUS, save_players
    save_players({"04AA000000000A": "Ann"}, tmp_path)
    link = tmp_path / f"{PREVIOUS}.new"
    link.write_text("being linked\n")
    textfile._sweep(tmp_path / FILE)
    assert link.exists()
    save_players({"04AA000000000A": "Ann", "04AA000000000B": "Bo"}, tmp_path)  # it links through it
    assert not link.exists() and "Ann" in (tmp_path / PREVIOUS).read_text()
