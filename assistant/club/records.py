"""What every page of the board is made of: the matches it holds as their pages show them, where
a box renamed or reset went, and the board's menu.

``records`` are the matches in memory (the current night, each table's latest: season.py), each
a :class:`~assistant.box.stats.MatchRecord` built by ``stats.replay_match`` from the board's own
replay (:mod:`.replay`), never from a box's figures; only public facts are in them.
"""
import copy
import re
import time
import weakref

from assistant.club import season
from assistant.club.clocks import shifted

NAV = (("/", "Tables"), ("/nights", "Nights"), ("/players", "Players"))  # the board's (a box's: Now, Matches, Players)


def records(board):
    """MatchRecords of every match the board holds, numbered 1.. in the order they started (on the
    board's clock: ``on_board``). Each
    says its table, its number at the table (``table_match``), its journal and which of the
    table's journals that is (``run``: 2 and on after a box began a new journal). A match's record
    is made again only once an event of it was applied (or its place changed): replaying tonight's
    matches was most of every page's time."""
    return records_at(board)[0]


def records_at(board):
    """``(records, board.put_away_version)`` of one moment: which matches were put away when the
    records were read (players.season_now adds the older nights of the same moment to them)."""
    with board.lock:
        version = board.put_away_version
        latest = {}
        for key in board.ordered():  # the newest journal's newest match, the last of its table
            latest[key[0]] = key
        gone = moved(board)
        kept = _records.setdefault(board, {})
        for key in [k for k in kept if k not in board.matches]:
            del kept[key]  # put away
        made = []
        for key, bm in board.matches.items():
            if key in gone:
                continue
            table, journal, mid = key
            seen = (bm, bm.next, board.run(table, journal), latest[table] == key,
                    on_board(board, table, journal, bm.started) or 0,
                    on_board(board, table, journal, board.clocks.last.get(key)))
            if kept.get(key, (None,))[0] != seen:
                kept[key] = (seen, None, season.lines_of(bm))
            made.append((seen[4], table, seen[2], mid, key, kept[key]))
    made.sort(key=lambda m: m[:4])
    out = []
    for k, (*_, key, entry) in enumerate(made, 1):
        seen, rec, lines = entry
        if rec is None:  # minutes a match (start and end on the board's clock by one difference: the box's own
            # length); a match in play or abandoned has not finished (season.match_record)
            rec = season.match_record(k, *key[:2], seen[2], key[2], seen[0], lines, *seen[3:])
            kept[key] = (seen, rec, None)
        out.append(copy.copy(rec))  # numbered for this page: the kept one is shared
        out[-1].id = k
    return out, version


_records = weakref.WeakKeyDictionary()  # board -> {match key: (what it was made of, its record, lines)}


def moved(board):
    """``{(table, journal, match): the table it went on at}`` (the board's lock held): a box renamed
    mid-match (its ``[club] table``) goes on with the match in play under its new name, whole, so
    the board holds it under both; the copy under the name its box left is never finished, and
    is left out. The same match: one journal, number, game, seats and start (two boxes that share
    a journal's name, a card copied, play matches that differ)."""
    names = {}
    for (table, journal, mid), bm in board.matches.items():
        if journal is not None:
            names.setdefault((journal, mid, bm.game, tuple(bm.seats), bm.started), []).append(table)
    out = {}
    for (journal, mid, *_), tables in names.items():
        now = max(tables, key=lambda t: board.heard.get(t) or 0)  # the name its box sent under last
        out.update({(t, journal, mid): now for t in tables if t != now})
    return out


def renamed(board):
    """``{table: the table its box plays as now}`` (the board's lock held): a box renamed between
    matches (its ``[club] table``) names the same journal under its new name, in its statuses and
    events; the old name's box is not gone. A journal is where its box says it is connected, else
    where the board heard it last (a restarted board gets the retained statuses in any order)."""
    heard = dict(board.tables.latest)  # (table, journal) -> when the board last received its events
    for table, journal in board.said_by.items():
        heard[(table, journal)] = max(board.said.get(table, 0), heard.get((table, journal), 0))
    now, latest = {}, {}  # journal -> (connected, when, table) it is at now; table -> (when, journal) last heard
    for (table, journal), when in heard.items():
        if journal:
            here = (board.online.get(table) is True and board.said_by.get(table) == journal, when, table)
            now[journal] = max(now.get(journal, here), here)
        latest[table] = max(latest.get(table, (0, "")), (when, journal))
    return {table: now[journal][2] for table, (_, journal) in latest.items()
            if journal and now[journal][2] != table}


def on_board(board, table, journal, t):
    """A time ``t`` by that box's clock, on the board's (clocks.py): a box whose clock is days out
    (a Pi that kept the time it was switched off) played tonight, not on the day its clock says."""
    behind = board.clocks.behind.get((table, journal))
    return shifted(t, behind) if t and behind is not None else t


def of_older_nights(recs, now=None):
    """The records in memory of nights before the current one: each table's latest match (kept for
    ``/``) and those not yet put away (12 hours after their last event). /nights counted only the
    matches put away, so a night's last match at every table was missing from it."""
    current = season.night_of(now or time.time())
    return [r for r in recs if r.started and season.night_of(r.started) < current]


def run_of(board, table, journal):
    with board.lock:  # the paho thread may add a journal meanwhile
        return board.run(table, journal)


def in_order(table):
    """A sort key that puts t2 before t10 (install.sh names a club's tables t1 to tN).

    >>> sorted(["t10", "t2", "red", "t1"], key=in_order)
    ['red', 't1', 't2', 't10']
    """
    # ASCII digits only: "²" is a digit to isdigit() and no number to int() (the page a 500)
    return [(int(part), "") if part.isascii() and part.isdigit() else (-1, part)
            for part in re.split(r"(\d+)", table)]
