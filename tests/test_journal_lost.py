"""The box can tell that the storage lost actions it had saved (issue 10, item 2).

The journal is copied as a power cut leaves it (the writer still open: the last transactions
only in the -wal), then the -wal is lost, torn or overwritten with junk. SQLite opens what is
left without a word; the count record beside the journal (journal.sqlite3.count, synced after
each commit) tells how many saved actions are missing. A clean stop, a power cut with the -wal
intact, a torn record or none at all are never reported as a loss.
"""
import random
import shutil
import sqlite3

import pytest

from assistant.rules.cards import parse_card
from assistant.box.journal import Journal
from assistant.rules.scenario import Action
from journal_faults import fill

SAVED, CHECKPOINTED = 40, 25


def power_cut_copy(tmp_path, wal=lambda data: data):
    """A journal of SAVED actions (the first CHECKPOINTED in the file, the rest only in the -wal),
    copied while its writer is open, the -wal passed through ``wal`` (None: lost)."""
    src = tmp_path / "box" / "journal.sqlite3"
    src.parent.mkdir()
    _, box = fill(src, (("towers-random.scn", CHECKPOINTED),), close=False)
    box.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    from journal_faults import example
    from assistant.rules.scenario import parse_action
    game, seats, _, body = example("towers-random.scn")
    for n in range(CHECKPOINTED + 1, SAVED + 1):
        box.append(parse_action(body[n - 1].split(), game, seats, n), seats)
    dst = tmp_path / "after" / "journal.sqlite3"
    dst.parent.mkdir()
    shutil.copyfile(src, dst)
    shutil.copyfile(str(src) + ".count", str(dst) + ".count")
    data = wal(open(str(src) + "-wal", "rb").read())
    if data is not None:
        open(str(dst) + "-wal", "wb").write(data)
    box.close()
    return dst


def reopen(path):
    j = Journal(str(path))
    r = j.resume()
    j.close()
    return r


def test_a_lost_wal_is_reported_with_the_number_of_actions_lost(tmp_path):
    r = reopen(power_cut_copy(tmp_path, wal=lambda data: None))
    assert len(r.match.actions) == CHECKPOINTED  # SQLite resumes earlier without a word ...
    assert r.problems == [f"the storage lost the last {SAVED - CHECKPOINTED} action(s) of the match "
                          "after they were saved: they are not in the journal"]  # ... the record tells


def test_a_torn_wal_loses_its_last_transaction_and_says_so(tmp_path):
    r = reopen(power_cut_copy(tmp_path, wal=lambda data: data[:len(data) - 3000]))
    kept = len(r.match.actions)
    assert CHECKPOINTED <= kept < SAVED
    assert r.problems == [f"the storage lost the last {SAVED - kept} action(s) of the match "
                          "after they were saved: they are not in the journal"]


def test_junk_in_the_wal_is_read_past_and_said(tmp_path):
    """Junk in the middle of the -wal made SQLite drop every frame after it (fault report "a damaged
    -wal loses every action after the damage"): the frames after it are read, the -wal set aside."""
    def junk(data):
        at = len(data) // 2
        return data[:at] + bytes(random.Random(5).getrandbits(8) for _ in range(64)) + data[at + 64:]
    r = reopen(power_cut_copy(tmp_path, wal=junk))
    assert len(r.match.actions) == SAVED
    assert r.problems[0].startswith(f"Journal damaged: {SAVED} action(s) recovered, 0 lost")
    assert "its -wal is damaged" in r.problems[0]


@pytest.mark.parametrize("earlier, words", [(1, "the box goes on from match 1"),
                                             (0, "the box starts a new match")])  # was "from match none"
def test_a_lost_match_is_reported(tmp_path, earlier, words):
    src = tmp_path / "journal.sqlite3"
    if earlier:
        fill(src, (("towers-random.scn", 5),))
    j = Journal(str(src))
    j.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    j.new_match("towers", ("P1", "P2"), {})
    j.append(Action("flip", cards=(parse_card("JS"),)))
    shutil.copyfile(src, tmp_path / "copy.sqlite3")
    shutil.copyfile(str(src) + ".count", tmp_path / "copy.sqlite3.count")
    j.close()
    r = reopen(tmp_path / "copy.sqlite3")
    assert r.match_id == (1 if earlier else None)
    assert r.problems == [f"the storage lost the latest match (1 action(s) saved); {words}"]


def test_actions_lost_from_an_earlier_match_only_are_reported(tmp_path):
    """Issue 10, item 2 (journal_losses.py, the branch where the current match is whole): the
    storage dropped an earlier match's saved actions; the count record's total tells it."""
    src = tmp_path / "journal.sqlite3"
    fill(src, (("towers-random.scn", 5),))
    j = Journal(str(src))
    j.new_match("towers", ("P1", "P2"), {})
    j.append(Action("flip", cards=(parse_card("JS"),)))
    j.close()
    db = sqlite3.connect(src)  # the storage loses match 1's rows (as a card that drops writes)
    with db:
        db.execute("DELETE FROM actions WHERE match=1")
    db.close()
    j = Journal(str(src))
    r = j.resume()
    j.close()
    assert r.match_id == 2 and len(r.match.actions) == 1
    assert r.problems == ["the storage lost 5 saved action(s) of earlier matches"]
    assert j.summary == "Journal: the storage lost 5 saved action(s); see the log"


@pytest.mark.parametrize("case", ["clean stop", "power cut, -wal kept", "record torn", "no record"])
def test_no_loss_is_never_reported_as_one(tmp_path, case):
    if case == "clean stop":
        path = tmp_path / "journal.sqlite3"
        fill(path, (("towers-random.scn", SAVED),))
    else:
        path = power_cut_copy(tmp_path)
        if case == "record torn":
            with open(str(path) + ".count", "r+b") as f:
                f.seek(10)
                f.write(b"99")
        elif case == "no record":
            (path.parent / (path.name + ".count")).unlink()
    r = reopen(path)
    assert r.problems == [] and len(r.match.actions) == SAVED
    assert reopen(path).problems == []


def test_a_loss_is_said_once(tmp_path):
    path = power_cut_copy(tmp_path, wal=lambda data: None)
    assert reopen(path).problems
    assert reopen(path).problems == []  # the record now says what the journal has
