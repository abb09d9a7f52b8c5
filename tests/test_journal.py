"""The journal: every accepted action survives a restart; damage and a full disk lose nothing
already accepted, and hidden actions never reach an alert's words."""
import sqlite3

import pytest

from assistant.rules.cards import parse_card
from assistant.box.journal import Journal, JournalError
from assistant.rules.scenario import Action


def cards(*names):
    return tuple(parse_card(n) for n in names)


def towers_opening(j):
    j.new_match("towers", ("Ann", "Bob"), {})
    for a in (Action("flip", cards=cards("JH", "JS")), Action("upcard", cards=cards("9H")),
              Action("accept"), Action("play", cards=cards("AS"))):
        j.append(a)


def test_resume_rebuilds_the_match_exactly(tmp_path):
    path = tmp_path / "j.sqlite3"
    j = Journal(str(path))
    towers_opening(j)
    j.append(Action("undo"))
    j.close()
    r = Journal(str(path)).resume()
    assert r.problems == []
    s = r.match.state()
    assert (s["seats"], s["dealer"], s["trump"], s["to_act"]) == (["Ann", "Bob"], "Bob", "H", "Ann")
    assert [a.kind for a in r.match.actions] == ["flip", "upcard", "accept"]


def test_latest_match_is_resumed_and_older_ones_export(tmp_path):
    j = Journal(str(tmp_path / "j.sqlite3"))
    towers_opening(j)
    first = j.match_id
    j.new_match("twenty-nine", ("P1", "P2", "P3", "P4"), {"pair": "on"})
    r = j.resume()
    assert r.match.game == "twenty-nine" and r.match.options == {"pair": "on"}
    text = j.export(first)
    assert text.splitlines() == ["game towers", "seats Ann Bob", "flip JH JS", "upcard 9H",
                                 "accept", "play AS"]


def test_a_damaged_tail_is_set_aside_and_the_rest_resumes(tmp_path):
    path = str(tmp_path / "j.sqlite3")
    j = Journal(path)
    towers_opening(j)
    j.db.execute("INSERT INTO actions VALUES (?, 6, 'play QQ')", (j.match_id,))
    j.db.execute("INSERT INTO actions VALUES (?, 7, 'play KS')", (j.match_id,))
    j.close()
    j = Journal(path)
    r = j.resume()
    assert len(r.match.actions) == 4 and r.match.actions[-1].kind == "play"
    assert "could not be read" in r.problems[0] and "QQ" not in r.problems[0]
    kept = j.db.execute("SELECT seq, line FROM set_aside ORDER BY seq").fetchall()
    assert kept == [(6, "play QQ"), (7, "play KS")]
    j.append(Action("play", cards=cards("KS")))  # numbering goes on after the good part
    assert Journal(path).resume().match.actions[-1] == Action("play", cards=cards("KS"))


def test_a_refused_row_names_no_card(tmp_path):
    path = str(tmp_path / "j.sqlite3")
    j = Journal(path)
    j.new_match("twenty-nine", ("P1", "P2", "P3", "P4"), {})
    j.db.execute("INSERT INTO actions VALUES (?, 1, 'trump QS')", (j.match_id,))
    r = Journal(path).resume()
    assert r.match.actions == [] and "QS" not in " ".join(r.problems)


def test_an_unreadable_file_is_kept_aside_not_overwritten(tmp_path):
    path = tmp_path / "j.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    j = Journal(str(path))
    assert "Journal damaged: 0 action(s) recovered" in j.problems[0]
    aside = [p for p in tmp_path.iterdir() if ".damaged-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not")
    assert j.resume().match is None


def test_a_full_disk_refuses_the_action_and_keeps_the_rest(tmp_path):
    path = str(tmp_path / "j.sqlite3")
    j = Journal(path)
    towers_opening(j)
    pages = j.db.execute("PRAGMA page_count").fetchone()[0]
    j.db.execute(f"PRAGMA max_page_count={pages}")  # SQLite's own 'database or disk is full'
    with pytest.raises(JournalError) as e:
        for _ in range(2000):
            j.append(Action("play", cards=cards("AS")))
    assert "full" in str(e.value) and "not saved" in str(e.value)
    j.close()
    r = Journal(path).resume()
    assert [a.kind for a in r.match.actions][:4] == ["flip", "upcard", "accept", "play"]


def test_a_journal_on_a_read_only_card_opens_read_only_and_writes_nothing(tmp_path):
    """Issue 10 (journal_open.py, the read-only box): on a card mounted read-only the journal
    opens for reading, says so once, and never tries to write (no count record is written, so no
    second complaint about it); its match still resumes. As root the folder is mounted read-only
    (unshare(1)); otherwise its write bits are taken away."""
    import os
    import sys
    from pathlib import Path
    from readonly import run_read_only
    state = tmp_path / "state"
    state.mkdir()
    path = state / "j.sqlite3"
    j = Journal(str(path))
    towers_opening(j)
    j.close()
    code = ("from assistant.box.journal import Journal\n"
            f"j = Journal({str(path)!r})\n"
            "print(j.readonly, j.record is None, len(j.resume().match.actions), len(j.problems))\n")
    root = Path(__file__).resolve().parents[1]
    got = run_read_only(state, [sys.executable, "-c", code], files=[path], timeout=60, cwd=root,
                        env=dict(os.environ, PYTHONPATH=str(root)))
    assert got.returncode == 0, got.stderr
    assert got.stdout.split() == ["True", "True", "4", "1"], got.stdout + got.stderr
    assert "count record" not in got.stderr


def test_journal_is_real_sqlite_with_full_sync(tmp_path):
    j = Journal(str(tmp_path / "j.sqlite3"))
    assert j.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert j.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert isinstance(j.db, sqlite3.Connection)
