"""The club's Players page in figures: standings, wins over time and "two tables at once" across
tables, players known by their tags, over the season the board holds and for tonight.

A season is many nights: the older ones are put away in the board's file (season.py), tonight's
are in its memory. Reading every put-away record at each request made ``/players`` grow with the
season (three reads a request: 4.6 s for 30 nights of 20 tables). Here the older nights are added
up once into an :class:`Older` (a few figures a player, each player's wins and when they played;
never the records), which the page keeps until a match is put away or brought back, and each
request adds tonight's matches to it.

Guests keep their seat's name (P1 to P4) at every table: they are different people, so they are
left out rather than added up as one player (a game played by guests only has no one standing).
"""
import bisect
import copy

from assistant.box.players import GUEST  # noqa: F401 (callers import it here)
from assistant.box.stats import FINISHED, finish, tally

SLACK = 2.0  # seconds two matches may seem to overlap by: the boxes' clocks read on the board's
SHOWN = 30   # clashes the page lists, the latest (one tag used at two tables all season made thousands)


def named(side):
    """Is every player of ``side`` (a name, or partners' ``"Ann + Cy"``) known by a tag?"""
    return not any(GUEST.fullmatch(n) for n in side.split(" + "))


def club_standings(figures):
    """Finished standings of a :func:`~assistant.box.stats.tally`, guests left out. Every game
    played stays, with nobody in it when guests alone played it (the page says so)."""
    out = finish(figures)
    for game in out.values():
        for kind in game:
            game[kind] = {name: f for name, f in game[kind].items() if named(name)}
    return out


def add_wins(recs, out):
    """Add ``recs`` (finished ones count) to ``out``: ``{game: {"players": {name: [(match id, wins so
    far)]}, "partnerships": {...}}}``, a line a player (Twenty-Nine's too, whose partners change
    from table to table) and a partnership, guests left out."""
    for rec in recs:
        if rec.state != FINISHED:
            continue
        game = out.setdefault(rec.game, {"players": {}, "partnerships": {}})
        for side, names in enumerate(rec.sides()):
            won = rec.winner_side == side
            lines = [("players", n) for n in names]
            if len(names) > 1:
                lines.append(("partnerships", " + ".join(sorted(names))))
            for kind, name in lines:
                if named(name):
                    series = game[kind].setdefault(name, [])
                    series.append((rec.id, (series[-1][1] if series else 0) + won))
    return out


def match_name(rec):
    """``(number,)`` at its table, ``(number, run)`` in a box's later journal."""
    return (rec.table_match,) if rec.run == 1 else (rec.table_match, rec.run)


def add_places(recs, spans, out):
    """Where each named player sat and when: ``{name: [(start, end, table, match name)]}`` added to
    ``out``, by the boxes' clocks read on the board's (``spans``, or the record's own once put away)."""
    for r in recs:
        span = spans.get((r.table, r.journal, r.table_match)) or getattr(r, "span", None)
        if span:
            for name in set(r.seats):
                if not GUEST.fullmatch(name):
                    out.setdefault(name, []).append((span[0], span[1], r.table, match_name(r)))
    return out


def _clash(name, a, b):
    """``a`` and ``b`` (places) overlap by more than ``SLACK`` at two tables: the clash, or None."""
    (a0, a1, ta, ma), (b0, b1, tb, mb) = a, b
    if ta != tb and min(a1, b1) - max(a0, b0) > SLACK:
        return name, min((ta, *ma), (tb, *mb)), max((ta, *ma), (tb, *mb)), max(a0, b0), min(a1, b1)
    return None


def clashes_within(places):
    """Every pair of one player's places at two tables at the same time (each list sorted by start:
    a place overlaps only those that start before it ends)."""
    out = []
    for name, ps in places.items():
        for i, a in enumerate(ps):
            for b in ps[i + 1:]:
                if b[0] >= a[1] - SLACK:
                    break
                if (c := _clash(name, a, b)) is not None:
                    out.append(c)
    return out


def latest(clashes):
    """The ``SHOWN`` latest ``clashes`` (by when they began)."""
    return sorted(clashes, key=lambda c: (c[3], c))[-SHOWN:]


class Older:
    """The older nights' matches (put away: season.py) added up once: the standings' tally, the wins
    over time, where each player sat and when, and the clashes among them; the latest night's own
    tally (a night longer than the 12 hours a match stays in memory is partly put away while it
    lasts). ``count``: how many matches (tonight's are numbered on from it)."""

    def __init__(self, recs, version=None):
        self.version = version
        self.count, self.tally, self.wins, places = 0, {}, {}, {}
        self.night, self.of_night = None, {}
        for rec in recs:  # one at a time: the season is never in memory at once
            self.count = rec.id
            tally([rec], self.tally)
            night = getattr(rec, "night", None)
            if night is not None and (self.night is None or night >= self.night):
                if night != self.night:
                    self.night, self.of_night = night, {}
                tally([rec], self.of_night)
            add_wins([rec], self.wins)
            add_places([rec], {}, places)
        self.places = {name: sorted(ps) for name, ps in places.items()}
        self.starts = {name: [p[0] for p in ps] for name, ps in self.places.items()}
        self.longest = {name: max(p[1] - p[0] for p in ps) for name, ps in self.places.items()}
        found = clashes_within(self.places)
        self.clashes = latest(found)
        self.earlier = len(found) - len(self.clashes)

    def figures(self, live, spans):
        """``(tally, wins, clashes, more)`` of the season: these older nights and ``live`` (tonight's
        records, numbered after them), without changing this aggregate; ``clashes``: the latest
        ``SHOWN``, ``more``: how many before them."""
        figures = self.season(live)
        wins = add_wins(live, copy.deepcopy(self.wins))
        tonight = {name: sorted(ps) for name, ps in add_places(live, spans, {}).items()}
        clashes = list(self.clashes) + clashes_within(tonight)
        for name, ps in tonight.items():  # tonight's places against the older nights' of the same name
            older, starts = self.places.get(name, ()), self.starts.get(name, ())
            for p in ps:
                first = bisect.bisect_left(starts, p[0] - self.longest.get(name, 0) - SLACK)
                last = bisect.bisect_right(starts, p[1])
                clashes.extend(c for o in older[first:last] if (c := _clash(name, o, p)) is not None)
        shown = latest(clashes)
        return figures, wins, sorted(shown), self.earlier + len(clashes) - len(shown)

    def season(self, live):
        """The tally of the season: these older nights and ``live`` (/api/club's standings: not
        the wins over time, nor the clashes, which it does not show)."""
        return tally(live, copy.deepcopy(self.tally))

    def tonight(self, night, live):
        """The tally of ``night`` (tonight): its matches put away, if any, and ``live`` (of it)."""
        return tally(live, copy.deepcopy(self.of_night) if night == self.night else {})
