"""The board's Players page (``/players``): tonight's standings, then the season's (every night
the board holds), wins over time a line a player, and who sat at two tables at once.

The older nights are put away in the board's file (season.py) and added up once
(standings.Older), again only after a match is put away or brought back; each request adds
tonight's records to them (:func:`season_now`: both of one moment).
"""
import threading
import time
import weakref
from contextlib import closing
from html import escape

from assistant.club import season
from assistant.club.records import NAV, records_at, run_of
from assistant.club.standings import Older, add_places, club_standings, clashes_within
from assistant.web import pages

NO_PLAYERS = "No match yet of players known by their tags (enrol them: card-assistant players add NAME)."
GUESTS_ONLY = '<p class="quiet">Played by guests only so far: nobody stands in it.</p>'
GUESTS_NOTE = ('<p class="quiet">Guests (a seat nobody tapped a player tag for keeps its name, P1 to P4) '
               'are different people at every table and match, so they are left out here.</p>')


def older_records(board):
    """The older nights' records, from the board's file (season.py), numbered 1.. in the order they
    started. A generator: the season is never in memory at once."""
    with closing(board.file.reader()) as db:
        for k, (table, journal, mid, text) in enumerate(season.put_away(db), 1):
            yield season.loads(text, k, table, journal, run_of(board, table, journal), mid)


_older = weakref.WeakKeyDictionary()  # board -> standings.Older of its put-away matches
_adding_up = threading.Lock()         # one request adds the older nights up; the others wait for it


def older(board):
    """The older nights added up once (standings.Older), again only after a match was put away or
    brought back (``board.put_away_version``); read again when one was while they were added up."""
    with _adding_up:
        while True:
            with board.lock:
                version = board.put_away_version
            kept = _older.get(board)
            if kept is not None and kept.version == version:
                return kept
            made = Older(older_records(board), version)
            with board.lock:
                if board.put_away_version != version:
                    continue  # a match put away (or back) while the file was read: its figures may be half in
                _older[board] = made
            return made


def season_now(board):
    """``(tonight's records, the older nights added up)`` of one moment, numbered on after them: a
    match put away between the two reads was counted twice, in both."""
    while True:
        live, version = records_at(board)
        before = older(board)
        if before.version == version:
            break
    for k, rec in enumerate(live, before.count + 1):
        rec.id = k
    return live, before


def tonight(recs, now=None):
    """``(night, its records)``: the current night (season.night_of) and those of ``recs`` begun in it."""
    night = season.night_of(now or time.time())
    return night, [r for r in recs if r.started and season.night_of(r.started) == night]


def two_tables_at_once(board, recs):
    """Players (by name: guests left out) seated at two tables at the same time, by the boxes' own
    clocks read on the board's (clocks.py: not when the board received the events, which a box
    back in the Wi-Fi sends in a burst), by more than ``SLACK`` seconds: two people with one name,
    or one tag at two tables, whom the standings add up as one. ``[(name, (table, match),
    (table, match), start, end)]``; a match is ``(table, its number)``, with ``run`` 2 and on for
    a box's later journal: ``(table, number, run)``."""
    places = {name: sorted(ps) for name, ps in add_places(recs, board.spans(), {}).items()}
    return sorted(clashes_within(places))


def match_words(table, mid, run=1):
    return f"table {escape(table)} match {mid}" + (f" (the box's journal {run})" if run > 1 else "")


def clash_note(clashes, more=0):
    lines = "".join(f"<li>{escape(name)}: {match_words(*a)} and {match_words(*b)}, both in play at "
                    f"{pages.when(start)}</li>" for name, a, b, start, _ in clashes)
    earlier = f"<p>And {more} more before these.</p>" if more else ""
    return (f'<div class="warn"><p>Seated at two tables at the same time: two people with one name, or one '
            f'player tag at two tables? Their figures are added up here as one player\'s.</p><ul>{lines}</ul>'
            f'{earlier}</div>' if lines else "")


def standing_tables(game, kinds):
    """A game's standings tonight: its players and partnerships."""
    out = pages.table(game, kinds["players"], "Player")
    if kinds["partnerships"]:
        out += (f'<h3>{pages.GAME_NAMES[game]}: partnerships tonight</h3>'
                + pages.table(game, kinds["partnerships"], "Partnership"))
    return out


def players_page(board):
    """``/players``: tonight's standings before the season's (every night the board holds, drawn as
    a box's Players page: web.pages.players_page), wins over time a line a player (Twenty-Nine's
    partners change from table to table), and who sat at two tables at once."""
    live, before = season_now(board)
    figures, wins, clashes, more = before.figures(live, board.spans())
    the_season = club_standings(figures)
    night, recs = tonight(live)
    tonights = club_standings(before.tonight(night, recs))
    parts = [GUESTS_NOTE, clash_note(clashes, more), f'<h2>Tonight (the night of {escape(night)})</h2>']
    if not tonights:
        parts.append('<p class="quiet">No match tonight yet.</p>')
    for game, kinds in tonights.items():
        parts.append(f'<h3>{pages.GAME_NAMES[game]}: tonight</h3>' + standing_tables(game, kinds) if kinds["players"]
                     else f'<h3>{pages.GAME_NAMES[game]}: tonight</h3>{GUESTS_ONLY}')
    parts.append('<h2>The season</h2><p class="quiet">Every night the board holds, tonight\'s too; older '
                 'nights on <a href="/nights">Nights</a>.</p>')
    parts.extend(f'<h3>{pages.GAME_NAMES[game]}: the season</h3>{GUESTS_ONLY}'
                 for game, kinds in the_season.items() if not kinds["players"])
    named = {game: kinds for game, kinds in the_season.items() if kinds["players"]}
    return pages.players_page(named, {game: lines["players"] for game, lines in wins.items()}, NAV,
                              "".join(parts), NO_PLAYERS)
