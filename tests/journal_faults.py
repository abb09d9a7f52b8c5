"""Damage a real journal the way an SD card does, for the journal and fault-campaign tests.

A journal is filled from the example scenarios (real, legal matches); pages are found with
SQLite's own ``dbstat`` table and overwritten in the file itself.
"""
import random
import sqlite3
from pathlib import Path

import pytest

from assistant.box.journal import Journal
from assistant.rules.scenario import read_header

EXAMPLES = Path(__file__).parent / "scenarios" / "examples"
PAGE = 4096


def example(name):
    """(game, seats, options, action lines) of an example scenario."""
    lines = (EXAMPLES / name).read_text().splitlines()
    sc = read_header(lines)
    body = [" ".join(tokens) for _, tokens in sc.body]
    return sc.game, sc.seats, sc.options, body


def fill(path, matches=(("towers-random.scn", None),), close=True):
    """A journal at ``path`` holding the given examples (each cut to its first N actions);
    returns {match id: [lines]}."""
    from assistant.rules.scenario import parse_action
    j = Journal(str(path))
    stored = {}
    for name, count in matches:
        game, seats, options, body = example(name)
        mid = j.new_match(game, seats, options)
        body = body[:count] if count else body
        for n, line in enumerate(body, 1):
            j.append(parse_action(line.split(), game, seats, n), seats)
        stored[mid] = body
    if close:
        j.close()
    return stored if close else (stored, j)


def pages(path, table, kind=None):
    """Page numbers of ``table``'s b-tree (leaf/internal), from SQLite's dbstat table."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT pageno, pagetype FROM dbstat WHERE name=?", (table,)).fetchall()
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no dbstat table to find pages with")
    finally:
        db.close()
    return [p for p, t in rows if kind is None or t == kind]


def rows_on_page(path, table, page):
    """How many rows of ``table`` the given leaf page holds (dbstat's ncell)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT ncell FROM dbstat WHERE name=? AND pageno=?", (table, page)).fetchone()[0]
    finally:
        db.close()


def overwrite(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def overwrite_page(path, page, rng, size=16):
    """``size`` random bytes at a random offset inside page ``page`` (1-based)."""
    at = (page - 1) * PAGE + rng.randrange(PAGE - size)
    overwrite(path, at, bytes(rng.getrandbits(8) for _ in range(size)))
    return at


def journal_lines(path, match_id):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [r[0] for r in db.execute("SELECT line FROM actions WHERE match=? ORDER BY seq", (match_id,))]
    finally:
        db.close()


RNG = random.Random
