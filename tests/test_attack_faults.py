"""Faults an attack from outside found (a damaged file, garbage on a line, a kill), each one that
the earlier tests did not: the real commands as subprocesses on a real journal damaged in place.
Each test names the fault and what it did before."""
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from journal_faults import fill
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
