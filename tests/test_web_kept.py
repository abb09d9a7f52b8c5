"""The web page's records kept beside the journal (assistant/web/kept.py). Fault (the web page's
examiner): the page's first request after a start replayed every match of the journal, 5,000
matches in 55-118 s on a busy desktop and minutes on a Raspberry Pi Zero 2 W, so a player opening the
page after a power cut waited for minutes. A finished or abandoned match's record is now kept in
``web-records.sqlite3`` under a key of what its replay reads; a start replays only what is new or
changed, and the figures stay those of a replay."""
import json
import os
import sqlite3

import pytest

import assistant.web.history as history_module
from assistant.box.journal import Journal
from assistant.box.stats import replay_match
from assistant.web import kept
from assistant.web.history import History
from test_stats import MATCHES, write_journal
from test_web import played_by, request, served


def replayed(folder):
    """Every match of the journal replayed afresh, as `export --all` + `replay` read them."""
    db = sqlite3.connect(os.path.join(folder, "journal.sqlite3"))
    matches = db.execute("SELECT id, game, seats, options, started FROM matches ORDER BY id").fetchall()
    out = []
    for mid, game, seats, options, started in matches:
        lines = [line for (line,) in db.execute("SELECT line FROM actions WHERE match=? ORDER BY seq", (mid,))]
        out.append(replay_match(mid, game, tuple(json.loads(seats)), json.loads(options), lines, started,
                                mid == matches[-1][0]))
    db.close()
    return out


def test_a_start_takes_finished_and_abandoned_records_from_the_kept_file_not_a_replay(tmp_path, monkeypatch):
    """The fault itself: a second start (the power cut) replays nothing but the match in play,
    and its records are exactly a replay's."""
    write_journal(tmp_path)
    first = History(str(tmp_path)).records()
    assert (tmp_path / kept.NAME).is_file()
    replays = []
    real = history_module.replay_match
    monkeypatch.setattr(history_module, "replay_match", lambda *a: replays.append(a[0]) or real(*a))
    again = History(str(tmp_path)).records()
    assert replays == [len(MATCHES)]  # the match in play only (it changes at every action)
    fresh = replayed(tmp_path)
    for recs in (first, again):
        for r in recs:
            r.note = r.finished = None  # set from the journal at each read, not replayed
    assert again == first == fresh


def test_a_match_whose_rows_changed_is_replayed_not_taken_from_the_file(tmp_path, monkeypatch):
    """A record is kept under what its replay reads: rows set aside by the box's repair change
    it, and the record is replayed (and says so), never the kept one served."""
    write_journal(tmp_path)
    History(str(tmp_path)).records()
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    db.execute("UPDATE actions SET line='play QQ' WHERE match=2 AND seq=1")  # damaged from its first row
    db.commit()
    db.close()
    j = Journal(str(tmp_path / "journal.sqlite3"))
    j.resume(2)  # the box's next start sets match 2's rows aside
    j.close()
    recs = History(str(tmp_path)).records()
    assert recs[1].id == 2 and recs[1].actions == 0 and recs[1].note.startswith("no actions kept: ")
    assert [r.score for r in recs] == [r.score for r in replayed(tmp_path)]


def test_another_journal_under_the_same_name_is_replayed_not_taken_from_the_file(tmp_path):
    """A journal restored from another box (or a copy): its match 1 is another match, whatever its
    id; the kept record of this box's match 1 is not it."""
    write_journal(tmp_path, MATCHES[:2])
    before = History(str(tmp_path)).records()
    for name in os.listdir(tmp_path):
        if name.startswith("journal.sqlite3"):
            os.remove(tmp_path / name)
    write_journal(tmp_path, MATCHES[3:5])  # two Twenty-Nine matches where two towers ones were
    after = History(str(tmp_path)).records()
    assert [r.game for r in before] == ["towers"] * 2 and [r.game for r in after] == ["twenty-nine"] * 2
    assert [(r.score, r.winner) for r in after] == [(r.score, r.winner) for r in replayed(tmp_path)]


def test_records_kept_by_other_code_are_replayed(tmp_path, monkeypatch):
    """An upgrade (a rule fixed) changes what a replay gives: a record kept by the code before is
    not taken."""
    write_journal(tmp_path)
    History(str(tmp_path)).records()
    monkeypatch.setattr(kept, "_code", "another card-assistant")
    replays = []
    real = history_module.replay_match
    monkeypatch.setattr(history_module, "replay_match", lambda *a: replays.append(a[0]) or real(*a))
    History(str(tmp_path)).records()
    assert replays == list(range(1, len(MATCHES) + 1))


@pytest.mark.parametrize("spoil", ["garbage", "folder", "record"])
def test_a_kept_file_that_cannot_be_used_costs_a_replay_and_nothing_else(tmp_path, spoil):
    """A damaged kept file (a power cut, a full card), a folder at its name, a record cut short:
    the records are replayed, exactly, with no exception; a file that is no database is made anew."""
    write_journal(tmp_path)
    path = tmp_path / kept.NAME
    if spoil == "garbage":
        path.write_bytes(b"not a database " * 100)
    elif spoil == "folder":
        path.mkdir()
    else:
        History(str(tmp_path)).records()
        db = sqlite3.connect(path)
        db.execute("UPDATE records SET record = substr(record, 1, 40)")
        db.commit()
        db.close()
    recs = History(str(tmp_path)).records()
    assert [(r.score, r.winner, r.state) for r in recs] == [(r.score, r.winner, r.state) for r in replayed(tmp_path)]
    if spoil == "garbage":
        assert sqlite3.connect(path).execute("SELECT count(*) FROM records").fetchone()[0] == len(MATCHES) - 1
    if spoil == "folder":
        assert path.is_dir()


def test_the_pages_after_a_start_from_the_kept_file_are_the_pages_of_a_replay(tmp_path, monkeypatch):
    """End to end: the JSON and the Players page served after a start from the kept file are byte
    for byte those served after a replay of every match; a match played since is on them."""
    write_journal(tmp_path)
    paths = ("/api/matches", "/api/players", "/players", "/matches", "/matches/2")
    with served(tmp_path) as port:
        replay = {p: request(port, "GET", p)[2] for p in paths}
    replays = []
    real = history_module.replay_match
    monkeypatch.setattr(history_module, "replay_match", lambda *a: replays.append(a[0]) or real(*a))
    with served(tmp_path) as port:
        assert {p: request(port, "GET", p)[2] for p in paths} == replay
        assert replays == [len(MATCHES)]  # the match in play only
        played_by(tmp_path, ("Ann", "Bob"))
        assert "Ann" in request(port, "GET", "/api/players")[2]


def test_the_kept_file_is_private_as_the_journal_is_whatever_the_umask(tmp_path):
    """Fault (the examiner): the kept file was made 0644 under a umask of 022 (the simulator, a
    page started by hand) beside a journal the box makes 0600: the players' names and results
    readable by every user of the machine."""
    write_journal(tmp_path)
    was = os.umask(0o022)
    try:
        History(str(tmp_path)).records()
    finally:
        os.umask(was)
    assert (tmp_path / kept.NAME).stat().st_mode & 0o777 == 0o600


def test_a_damaged_match_row_keeps_the_pages_up(tmp_path):
    """Fault (the examiner): a match row holding bytes where the box writes text (damage: its
    start as a blob) could not be keyed, and every page answered 500 where before the match was
    shown without its time."""
    write_journal(tmp_path)
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    db.execute("UPDATE matches SET started = x'00ff' WHERE id = 2")
    db.commit()
    db.close()
    with served(tmp_path) as port:
        for path in ("/", "/matches", "/matches/2", "/players", "/api/matches", "/api/players", "/api/now"):
            assert request(port, "GET", path)[0] == 200, path
    recs = History(str(tmp_path)).records()  # a second start, from the kept file
    assert recs[1].started is None and recs[1].score == replayed(tmp_path)[1].score
