"""A season on the board: each match's record as its page shows it, and the older nights' records
kept in the board's file rather than in its memory.

A table's night of real play is about 3.6 MB of the board's memory (each event, and the engines'
state of each match), so a board that kept every night it heard in memory filled a Pi's within a
season, and read the whole season at every start. The board (board.py) keeps in memory the
matches of the current night only (``KEEP``: those it received an event of in the last 12 hours,
and every table's latest match); an older match is *put away*: its record (the
:class:`~assistant.box.stats.MatchRecord` its page shows, a few KB) is written into the board's
file (store.py, ``matches.record``), its events stay there, and it leaves the memory. Its page,
its night's page and the standings read it from the file, so they show the same as before; an
event of it that comes after all (a box's backlog after weeks off) brings it back into memory.

A match's *night* is the day its evening began, on the board's clock: its start, by its box's
clock read on the board's (clocks.py), less ``TURN`` hours, so a match begun after midnight
belongs to the evening before.
"""
import json
import time
from dataclasses import asdict

from assistant.box.stats import FINISHED, Hand, MatchRecord, replay_match
from assistant.club.message import calendar_time
from assistant.rules.scenario import format_action

KEEP = 12 * 3600   # seconds since the board received a match's latest event: then it may be put away
TURN = 6 * 3600    # a night runs from 6:00 to 6:00 the next morning (a match at 1:00 is the evening's)
AT_ONCE = 50       # matches put away in one go (the board's lock is held meanwhile: a fraction of a second)


def lines_of(bm):
    """The scenario lines of the board's match ``bm`` (read under the board's lock: the paho
    thread applies events to it)."""
    return [format_action(a, bm.seats) for a in bm.match.actions]


def match_record(k, table, journal, run, mid, bm, lines, latest, started, last):
    """The record of the board's match ``bm`` (its own replay of ``lines``: stats.replay_match),
    numbered ``k``; ``latest``: the table's latest match (in play, not abandoned, while it has no
    winner); ``started`` and ``last``: its start and its latest event as the pages show them (the
    finish of a finished match). ``lines`` None: ``bm``'s match as it is, not replayed again (the
    board's lock held: putting a match away, where the replay again was a third of a season's start)."""
    rec = replay_match(k, bm.game, bm.seats, bm.options, lines, started, latest, bm.match if lines is None else None)
    rec.table, rec.table_match, rec.journal, rec.run = table, mid, journal, run
    # minutes a match; a match in play or abandoned has not finished
    rec.finished = last if started and rec.state == FINISHED else None
    return rec


def night_of(start):
    """The night (``YYYY-MM-DD``) of a match begun at ``start`` by the board's clock."""
    t = (start or 0) - TURN
    return time.strftime("%Y-%m-%d", time.localtime(t if calendar_time(t) is not None else start))  # (its edge)


def dumps(rec, night, span):
    """The record to keep in the board's file (its table, journal and number are the file's key);
    ``span``: when it was played on the board's clock (clocks.py), for "two tables at once"."""
    out = {k: v for k, v in asdict(rec).items() if k != "id"}
    out.update(night=night, span=span)
    text = json.dumps(out, separators=(",", ":"))
    return f'{text[:-1]},"seal":"{_digest(text)}"}}'


def _digest(text):
    import hashlib
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def sound(text):
    """Is ``text`` a record as :func:`dumps` kept it? Its seal is a digest of the rest: SQLite keeps
    no checksum of a page, and a bit a card flipped in a record (a score of 6 read as 4) was shown
    and counted for good. A record an older board kept, with no seal, is taken as it is."""
    if not isinstance(text, str):
        return False
    head, sep, tail = text.rpartition(',"seal":"')
    if not sep:
        return text.startswith("{") and '"seal"' not in text
    return len(tail) == 34 and tail.endswith('"}') and _digest(head + "}") == tail[:32]


def unsealed(db, bring_back):
    """How many records put away in the board's file ``db`` are not :func:`sound`; each is brought
    back (``bring_back(table, journal, match)``), to be made again from its events."""
    bad = [key for *key, text in db.execute("SELECT tbl, journal, match, record FROM matches "
                                            "WHERE record IS NOT NULL") if not sound(text)]
    for key in bad:
        bring_back(*key)
    return len(bad)


def loads(text, k, table, journal, run, mid):
    """A record kept by :func:`dumps`, numbered ``k``, as :func:`match_record` made it."""
    d = json.loads(text)
    d.pop("seal", None)
    night, span = d.pop("night", None), d.pop("span", None)
    d["hands"] = [Hand(**dict(h, score=tuple(h["score"]))) for h in d["hands"]]
    d["seats"], d["side_of"] = tuple(d["seats"]), tuple(d["side_of"])
    rec = MatchRecord(k, **d)
    rec.table, rec.table_match, rec.journal, rec.run = table, mid, journal, run
    rec.night, rec.span = night, span and tuple(span)
    return rec


def put_away(db):
    """``(table, journal, match, record text)`` of the matches put away, from ``db`` (a read-only
    connection of the board's file), in the order they started."""
    return db.execute("SELECT tbl, journal, match, record FROM matches WHERE record IS NOT NULL "
                      "ORDER BY json_extract(record, '$.started'), tbl, journal, match")


def count(db):
    return db.execute("SELECT count(*) FROM matches WHERE record IS NOT NULL").fetchone()[0]


def nights(db):
    """``[(night, tables, matches)]`` of the matches put away, the latest night first."""
    return db.execute("SELECT json_extract(record, '$.night') AS night, count(DISTINCT tbl), count(*) FROM matches "
                      "WHERE record IS NOT NULL GROUP BY night ORDER BY night DESC").fetchall()


def has_table(db, night, table):
    """Whether a match of ``table`` on ``night`` is put away."""
    return db.execute("SELECT 1 FROM matches WHERE record IS NOT NULL AND tbl = ? AND "
                      "json_extract(record, '$.night') = ? LIMIT 1", (table, night)).fetchone() is not None


def of_night(db, night):
    return db.execute("SELECT tbl, journal, match, record FROM matches WHERE record IS NOT NULL AND "
                      "json_extract(record, '$.night') = ? ORDER BY tbl, journal, match", (night,)).fetchall()


def one(db, table, journal, mid):
    row = db.execute("SELECT record FROM matches WHERE tbl=? AND journal=? AND match=? AND record IS NOT NULL",
                     (table, journal, mid)).fetchone()
    return row and row[0]
