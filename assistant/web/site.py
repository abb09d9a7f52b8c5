"""What the box's web page is made of (:mod:`.server` serves it): the journal's records read
through SQLite's read-only mode, the Now page's data, a finished match's scenario, and their JSON.

Hidden cards are never served: the Now page is the OLED's view model (the daemon's screen
file, or the table rebuilt from the journal: assistant/web/now.py), the records hold hands'
results only, and the scenario of the match in play (which holds the face-down trump, the
discard and scanned hands) is refused until the match is over.
"""
import contextlib
import logging
import threading
import zlib
from importlib.resources import files

from assistant.rules.match import Match
from assistant.rules.shared import Refused
from assistant.rules.scenario import ScenarioError, parse_action
from assistant.box.stats import IN_PLAY, standings, wins_over_time
from assistant.repeated import Repeated
from assistant.web.history import History
from assistant.web.kept import NAME
from assistant.box.screen_file import read_screen, runtime_dir, view_json, writer_gone
from assistant.web.now import view_of

log = logging.getLogger("card-assistant.web")
UNREADABLE = "The journal cannot be read now; the box repairs it at its next start."
STATIC = {"style.css": "text/css; charset=utf-8", "now.js": "text/javascript; charset=utf-8"}


class Reading(Exception):
    """Another request has been replaying the journal's matches for longer than ``Site.patience``:
    a first start, or one after an upgrade of the rules or with the kept records removed, replays
    every match (5,000: a minute on a desktop, minutes on a Pi). ``progress``: (replayed, to
    replay); only such a replay is said (Site._held), other work is waited for."""

    def __init__(self, progress):
        super().__init__(progress)
        self.progress = progress

    def words(self):
        done, total = self.progress or (None, None)
        so_far = f": {done:,} of {total:,} so far" if total else ""
        return (f"The page is reading the journal's matches{so_far} (every match is read once after a "
                f"first start, an upgrade of the rules, or with {NAME} removed). This page comes by itself "
                f"when it is done.")


class MatchGone(LookupError):
    """The match was in the journal's records and is gone from it at the next read (the journal
    replaced in between: the box's repair at its start, a restored copy)."""


class Site:
    """What the pages are made of; one lock, since the journal connection and caches are shared."""

    def __init__(self, state_dir, runtime=None):
        self.history = History(state_dir)
        self.runtime = runtime or runtime_dir(state_dir)  # where the daemon writes its screen
        self.lock = threading.Lock()
        self.patience = 2.0  # seconds a request waits for another's reading before it is told so (Reading)
        self._now = (None, None)  # (version, answer)
        self._players = (None, None)  # (what the records were, (standings, wins over time))
        self.trouble = Repeated(log)  # a damaged journal: one line when it starts, one when it reads again
        self.static = {name: files(__package__).joinpath("static", name).read_bytes() for name in STATIC}

    @contextlib.contextmanager
    def _held(self, wait=None):
        """The lock, or Reading once another request held it for ``patience`` seconds (``wait``, -1:
        as long as it takes) while it replays matches: a page that hung for the whole replay of a
        year's matches looked like a broken box, and a phone gave up. Any other holder (the
        standings worked out again after an action, slow on a Pi) is waited for: the Now page then
        said "reading the journal's matches" in the middle of a match."""
        while not self.lock.acquire(timeout=self.patience if wait is None else wait):
            if self.history.progress is not None:
                raise Reading(self.history.progress)
        try:
            yield
        finally:
            self.lock.release()

    def records(self):
        with self._held():
            return self._read(self.history.records)

    def _read(self, read, *args):
        """``read(*args)`` from the journal; a damaged journal is logged when it starts and ends."""
        out = read(*args)
        if self.history.unreadable:
            self.trouble.happened("journal", f"card-assistant web: the journal cannot be read "
                                             f"({self.history.unreadable}); the pages say so until the box "
                                             f"repairs it at its next start")
        elif self.history.problem:
            self.trouble.happened("journal", f"card-assistant web: {self.history.problem} (every page says so)")
        else:
            self.trouble.ended("journal", "card-assistant web: the journal can be read again")
        return out

    def players(self, wait=None):
        """``(records, standings, wins over time)`` for the Players page and its JSON. The figures
        are worked out again only once a record changed (one made anew, a match added or gone, a
        finish time): over 5,000 matches they took 0.5 s, at each request. ``wait``: as ``_held``."""
        with self._held(wait):
            recs = self._read(self.history.records)
            key = (self.history.version, tuple((r.id, r.finished) for r in recs))
            if self._players[0] != key:
                self._players = (key, (standings(recs), wins_over_time(recs)))
            return (recs, *self._players[1])

    def cannot_read(self):
        """Why the journal that is there cannot be shown now (damaged, or written by a newer
        card-assistant), in words for every page; None when it can."""
        return UNREADABLE if self.history.unreadable else self.history.problem

    def record(self, mid):
        return next((r for r in self.records() if r.id == mid), None)

    def now(self):
        """The Now page's data: the box's own screen when it belongs to the journal's latest
        match at its latest row (``source``: "box"), else the table rebuilt from the journal
        ("journal"), or a message when there is neither."""
        with self._held():
            recs = self._read(self.history.records)
            latest = self.history.latest
            shown = read_screen(self.runtime)
            stopped = None  # when the screen was last written by a box that has since ended
            if shown is not None and writer_gone(shown[0]):  # killed: it never removed its screen
                stopped, shown = round(shown[2]), None
            rec = recs[-1] if recs and recs[-1].id == latest[0] else None
            state = rec.state if rec else None
            if shown is not None and (shown[0].get("match"), shown[0].get("rows")) == latest:
                return {"id": latest[0], "version": f"box:{zlib.crc32(shown[1].encode())}", "state": state,
                        "source": "box", "view": shown[0]["view"], "message": ""}
            if rec is None:
                return {"id": None, "version": "none", "state": None, "source": None, "view": None,
                        "message": self.history.problem or "No match in the journal yet."}
            version = f"{rec.id}:{rec.actions}:{len(rec.hands)}:{rec.state}:{stopped}"
            if self._now[0] == version:
                return self._now[1]
            found = self._read(self.history.scenario_lines, rec.id)
            view = view_of(rec, found[3], self.history.journal) if found else None
            answer = {"id": rec.id, "version": version, "state": rec.state, "source": "journal",
                      "view": None if view is None else view_json(view, rec.seats), "stopped": stopped,
                      "message": "" if view else "The match in play cannot be shown."}
            self._now = (version, answer)
            return answer

    def scenario(self, rec):
        """The match's actions in effect as a scenario file, or None for the journal's newest match:
        in play, or over but still the box's match, whose end an undo at the table can take back
        (S2), and the file would then have shown cards hidden again (the last hand's discard, the
        scanned hands). As the records say, and as the lines read for the file say (a journal
        replaced in between). MatchGone when the match is no longer in the journal."""
        if rec.state == IN_PLAY:
            return None
        with self._held():
            found = self._read(self.history.scenario_lines, rec.id)
        if found is None:
            raise MatchGone(rec.id)
        game, seats, options, lines, newest = found
        match = Match(game, seats, options)
        for n, line in enumerate(lines, 1):
            try:
                match.apply(parse_action(line.split(), game, seats, n))
            except (ScenarioError, Refused):
                break
        if rec.id == newest:
            return None
        return match.export(comment=f"match {rec.id} of the box's journal ({rec.state})")

    def close(self):
        self.history.close()


def match_json(rec):
    return {"id": rec.id, "game": rec.game, "seats": list(rec.seats), "score": rec.score,
            "winner": rec.winner, "started": rec.started, "finished": rec.finished, "state": rec.state,
            "hands": len(rec.hands), "actions": rec.actions, "note": rec.note}


def players_json(table, over_time):
    """The Players page's JSON from ``Site.players()``'s standings and wins over time."""
    return {"standings": table,
            "wins_over_time": {g: {n: [list(p) for p in s] for n, s in per.items()}
                               for g, per in over_time.items()}}
