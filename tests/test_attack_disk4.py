"""Attacker at the box's storage and power, fourth round: a lying fsync, a clock that jumps, a kill
at every moment of the commands that write files. Each test names the fault it covers."""
import json
import os
import sqlite3

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
