"""The checks on one club message the board receives: its size, its start or action line as the
rules engines would take it, its time; and the words of a refusal, which never name a card."""
import json
import sys
import time

from assistant.rules.cards import parse_card
from assistant.rules.match import Match
from assistant.rules.scenario import GAMES, ScenarioError, _read_seats
from assistant.rules.shared import Refused

MAX_EVENT = 4096          # bytes: an event message is a scenario line and a few numbers
MAX_RECORD = 1 << 20      # bytes: a whole match's public events
MAX_NOW = 8192
MAX_N = 100_000           # actions in one match: more is no real match
MAX_MATCH = 999_999_999   # a match's number (a box numbers from 1; the pages' links take 9 digits): a
                          # larger one (2**63 and up) was refused as "could not be used (OverflowError)"


class Refusal(ValueError):
    """A message the board does not take; the words name no card."""


def checked(ev, n):
    """The event's meaning, checked: a start (n 0) or an action line (n >= 1)."""
    kind = ev.get("kind")
    if n == 0:
        game, seats, options = ev.get("game"), ev.get("seats"), ev.get("options")
        if kind != "start" or game not in GAMES or not isinstance(seats, list) or len(seats) != GAMES[game] \
                or not all(isinstance(s, str) and 0 < len(s) <= 40 for s in seats) or not isinstance(options, dict):
            raise Refusal("a malformed match start")
        started = ev.get("started")
        if started is not None and calendar_time(started) is None:  # 1e308 made every page a 500
            raise Refusal("a match start whose time is not a number a calendar holds")
        try:  # seats a scenario can name (one word each, all different) and house rules the engine takes
            if any(s.split() != [s] for s in seats):
                raise ValueError("a seat of more than one word")
            Match(game, _read_seats(seats, game, 0), options)
        except (ScenarioError, Refused, ValueError, TypeError, KeyError):
            raise Refusal("a match start whose seats or house rules the rules refuse") from None
        return {k: ev[k] for k in ("kind", "game", "seats", "options", "started") if k in ev}
    line = ev.get("line")
    if kind != "action" or not isinstance(line, str) or not 0 < len(line) <= 200 or not line.isprintable() \
            or not line.split():
        raise Refusal("a malformed action")
    if type(ev.get("hand")) is not int:
        raise Refusal("an action without its hand number")
    # kept in the board's memory for the whole night, so as little as it needs: the line once for
    # every event that says it ("play P1 QH" comes back all evening), the box's score only as a
    # few numbers (it is shown, never scored from), the winner not at all (the board's replay says it)
    body = {"kind": "action", "line": sys.intern(line), "hand": ev["hand"]}
    if "revealed" in ev:
        try:
            parse_card(str(ev["revealed"]))
        except ValueError:
            raise Refusal("an action revealing no card") from None
        body["revealed"] = sys.intern(str(ev["revealed"]))
    if ev.get("hidden"):
        body["hidden"] = True
    score = ev.get("score")
    if isinstance(score, list) and len(score) <= 4 and all(type(x) is int for x in score):
        body["score"] = score
    return body


def _no_constant(name):
    raise ValueError(f"{name} is no JSON")


def loads(text):
    """JSON as JSON has it: Python's json also reads NaN and Infinity, which the board would then
    write back out in /api/club, where no JSON reader takes them. ValueError for those too."""
    return json.loads(text, parse_constant=_no_constant)


def calendar_time(value):
    """``value`` if it is a time the pages can show (a finite number a calendar holds), else None."""
    if type(value) not in (int, float):
        return None
    try:  # written out too: localtime takes years past 2**31 (6.7768e16 s), which strftime refuses
        time.strftime("%Y", time.localtime(value))
    except (OverflowError, OSError, ValueError):  # inf, nan, 1e308, 10**30
        return None
    return value


def meaning(body):
    return {k: body.get(k) for k in ("kind", "line", "hand", "revealed", "game", "seats", "options")}


def shown_now(body):
    if not body:
        return None
    return {k: body.get(k) for k in ("match", "n", "game", "seats", "state", "t")}


def printable(text):
    return "".join(ch if ch.isprintable() else "?" for ch in str(text))[:80]
