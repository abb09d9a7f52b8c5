"""Statistics from the log: every match of the journal replayed through the engines.

Pure: a match goes in as its journal rows (``game``, ``seats``, ``options``, the scenario lines,
undo lines included) and comes out as a :class:`MatchRecord`, built from the game interface's
typed results (``outcome``: :class:`~assistant.rules.game.HandResult` or
:class:`~assistant.rules.game.Penalty`, and ``match_end``). :func:`standings` adds records up per
player and per partnership, per game. Only public facts are kept: hands' results, scores,
proven reneges, bids; never a hand, a discard or a face-down trump.

A match is ``finished`` when it has a winner, ``in play`` when it is the journal's latest match
and has none, else ``abandoned`` (a newer match began): abandoned matches are kept, shown as such,
and counted apart (never as played or lost). Standings count finished matches only.

>>> rec = replay_match(1, "towers", ("Ann", "Bob"), {}, ["flip JS", "upcard 9H", "accept"], 0, True)
>>> rec.state, rec.score, rec.winner, rec.hands
('in play', [0, 0], None, [])
"""
from dataclasses import dataclass, field

from assistant.rules.game import HandResult, Penalty
from assistant.rules.match import Match
from assistant.rules.shared import Refused
from assistant.rules.scenario import ScenarioError, parse_action

FINISHED, ABANDONED, IN_PLAY = "finished", "abandoned", "in play"


@dataclass
class Hand:
    """One hand (towers) or round (Twenty-Nine) as it was finally scored."""
    hand: int
    kind: str                 # "result" (its own play) or "penalty" (a claim or an accusation)
    what: str                 # HandResult.what ("sweep", "made"...) or Penalty.why ("claim"...)
    side: int | None          # the side (towers: the seat) that scored, None when nobody did
    value: int
    bidder: int | None        # the seat that made trump (towers) or won the auction (Twenty-Nine)
    bid: int | None = None    # Twenty-Nine: the winning bid
    for_two: bool = False     # towers: the bidder declared for 2
    score: tuple = (0, 0)     # the match score after this hand
    words: str = ""


@dataclass
class MatchRecord:
    id: int
    game: str
    seats: tuple
    options: dict
    started: float | None  # None: the journal's time is not readable
    state: str                                   # FINISHED, ABANDONED or IN_PLAY
    score: list = field(default_factory=list)    # exactly as ``replay --json`` gives it
    winner: list | None = None                   # names, exactly as ``replay --json`` gives it
    winner_side: int | None = None
    hands: list = field(default_factory=list)    # Hand, in order
    reneges: list = field(default_factory=list)  # {"seat", "hand", "trick"} as replay gives them
    actions: int = 0                             # actions in effect
    problem: str | None = None                   # a journal tail that could not be read
    note: str | None = None                      # no action kept (the web page's words)
    side_of: tuple = (0, 1)                      # the side of each seat, as the engine has it
    finished: float | None = None                # when a finished match's last action was kept

    @property
    def minutes(self):
        """How long a finished match lasted, from its start to its last action; None if unknown."""
        if self.finished is None or self.started is None or self.state != FINISHED:
            return None
        return max(0.0, (self.finished - self.started) / 60)

    def sides(self):
        """Each side's players, from the engine's side of each seat (towers: one seat a side,
        Twenty-Nine: P1+P3 and P2+P4)."""
        return tuple(tuple(n for n, k in zip(self.seats, self.side_of) if k == side) for side in (0, 1))

    def side_name(self, side):
        return " + ".join(self.sides()[side])


def replay_match(mid, game, seats, options, lines, started, latest, match=None):
    """A MatchRecord from a match's journal lines (undo lines included). A line that cannot be
    applied ends the replay there (as the box's resume does) and is noted in ``problem``.
    ``match``: the Match those lines make, already made (the club's board has it): not made again."""
    problem = None
    seen = []  # after each action in effect: the engine's outcome, and what a hand's record reads then
    if match is None:  # read in the one pass that applies the lines: a second replay was 40% of the time
        match = Match(game, seats, options)
        for n, line in enumerate(lines, 1):
            try:
                action = parse_action(line.split(), game, match.seats, n)
                match.apply(action)
            except (ScenarioError, Refused):
                problem = f"the journal's actions from number {n} on could not be read"
                break
            if action.kind == "undo":  # its outcome is the one after the action before (Match.rebuild)
                seen.pop()
                continue
            _see(seen, match.engine)
        engine = match.engine
    else:  # a match already made: its actions in effect replayed once for their outcomes
        engine = type(match.engine)(match.seats, match.options)
        for action in match.actions:
            engine.apply(action)
            _see(seen, engine)
    hands = []
    last = None
    for o, read in seen:
        if o is None or o == last:
            continue
        last = o
        if hands and hands[-1].hand == o.hand:  # a penalty that replaces the hand's own result
            first = hands.pop()
            bid, for_two = first.bid, first.for_two
        else:
            bid, for_two = read["bid"], read["for_two"]
        hands.append(_hand(o, read, bid, for_two))
    state = engine.state()
    end = engine.match_end
    rec = MatchRecord(mid, game, match.seats, dict(options), started,
                      FINISHED if end else (IN_PLAY if latest else ABANDONED),
                      state["score"], state["winner"], None if end is None else end.winner, hands,
                      state["reneges"], len(match.actions), problem, side_of=tuple(engine.side_of))
    for h, moved in zip(hands, score_moves(hands)):
        h.words = hand_words(rec, h, moved)
    return rec


def score_moves(hands):
    """What each side's score did in each hand, from the match score after it (``scoring=pagat``:
    only the bidders' moves, down on a missed bid, though the rules give the round to the others)."""
    before = (0, 0)
    for h in hands:
        yield tuple(a - b for a, b in zip(h.score, before))
        before = h.score


def _see(seen, engine):
    """The engine's outcome after an action, and what a hand's record reads of it then, onto ``seen``."""
    o = engine.outcome
    seen.append(seen[-1] if seen and o == seen[-1][0] else (o, _read(engine, o)))


def _read(engine, o):
    """What a hand's record reads of the engine as its outcome ``o`` comes (None: nothing)."""
    if o is None:
        return None
    return {"score": tuple(engine.score), "bidder": engine.bidder,
            "bid": engine.bid if engine.has_auction else None,
            "for_two": bool(engine.has_for_two and engine.for_two)}


def _hand(o, read, bid, for_two):
    if isinstance(o, HandResult):
        return Hand(o.hand, "result", o.what, o.side, o.value, o.bidder, bid, for_two, read["score"])
    assert isinstance(o, Penalty)
    return Hand(o.hand, "penalty", o.why, o.side, o.value, read["bidder"], bid, for_two, read["score"])


def hand_words(rec, h, moved):
    """One line for the hand-by-hand record, public facts only. What it says each side scored is
    what its score did: under ``scoring=pagat`` a missed bid takes the value off the bidders'
    score, and the other side's does not move (the rules award it to them, not their score)."""
    who = rec.seats[h.bidder] if h.bidder is not None else "?"
    scored = ", ".join(f"{rec.side_name(s)} {'+' if d > 0 else '−'}{abs(d)}"
                       for s, d in enumerate(moved) if d) or "nobody scores"
    hand = f"{_engine(rec.game).hand_word.capitalize()} {h.hand}"  # the rules' word, as the screen's
    if h.kind == "penalty":
        return f"{hand}: {h.what} ({scored})"
    if h.bid is not None:
        return f"{hand}: {who} bid {h.bid}, {h.what} ({scored})"
    return f"{hand}: {who} made trump{' for 2' if h.for_two else ''}, {h.what} ({scored})"


# --- standings ------------------------------------------------------------------------------

def _engine(game):
    from assistant.rules.match import engine_class
    return engine_class(game)


def _blank(game, whole_side):
    """The figures of a player or partnership. Claims and accusations are a side's: they are
    counted for ``whole_side`` figures only (a towers player, a Twenty-Nine partnership),
    since a Twenty-Nine claim or accusation is made by either partner."""
    figures = dict(played=0, won=0, abandoned=0, hands=0, hands_won=0, scored=0, reneges=0,
                   minutes=0.0, timed=0)
    if whole_side:
        figures.update(claims_won=0, accusations_true=0, accusations_false=0)
    if _engine(game).has_for_two:  # the game interface says what there is to count
        figures.update(for2_declared=0, for2_made=0)
    if _engine(game).has_auction:
        figures.update(bids={})  # bid level -> [made, missed]
    return figures


def standings(records):
    """Per game: ``{"players": {name: figures}, "partnerships": {name: figures}}``, figures as
    :func:`_blank` lists them, plus ``average_hands`` (hands per finished match),
    ``average_minutes`` (start to last action, where the journal kept the time) and ``win_rate``.
    ``scored`` is what the side's score counts (towers: towers won; Twenty-Nine: game points),
    ``hands_won`` the hands or rounds whose result or penalty scored for the side."""
    return finish(tally(records))


def tally(records, out=None):
    """The figures of :func:`standings` before :func:`finish` works out their averages, added to
    ``out`` (another tally: the club board keeps one of its older nights and adds tonight's)."""
    out = {} if out is None else out
    for rec in records:
        game = out.setdefault(rec.game, {"players": {}, "partnerships": {}})
        sides = rec.sides()
        moves = list(score_moves(rec.hands)) if rec.state == FINISHED else None  # once a match
        for side, names in enumerate(sides):
            for name in names:
                _add(_figures(game["players"], name, rec.game, len(names) == 1), rec, side, {name}, sides, moves)
            if len(names) > 1:
                pair = " + ".join(sorted(names))
                _add(_figures(game["partnerships"], pair, rec.game, True), rec, side, set(names), sides, moves)
    return out


def finish(out):
    """A :func:`tally` with its averages and win rates (in place)."""
    for game in out.values():
        for table in game.values():
            for f in table.values():
                f["average_hands"] = round(f["hands"] / f["played"], 1) if f["played"] else None
                f["average_minutes"] = round(f.pop("minutes") / f["timed"], 1) if f["timed"] else None
                del f["timed"]
                f["win_rate"] = round(f["won"] / f["played"], 3) if f["played"] else None
    return out


def _figures(table, name, game, whole_side):
    """``table[name]``, made blank the first time (not for every match: 5,000 matches asked for
    20,000 blank figures, each looking its engine up)."""
    f = table.get(name)
    if f is None:
        f = table[name] = _blank(game, whole_side)
    return f


def _add(f, rec, side, mine, sides, moves):
    """Add one match to the figures ``f`` of a player or a partnership (``mine``: their names),
    who sat on ``side`` (``sides``: the match's, ``moves``: its score_moves, worked out once a
    match). Reneges and bids are their own; claims and accusations their side's."""
    if rec.state == ABANDONED:
        f["abandoned"] += 1
    elif rec.state == FINISHED:
        f["played"] += 1
        f["won"] += rec.winner_side == side
        f["hands"] += len(rec.hands)
        if rec.minutes is not None:
            f["minutes"] += rec.minutes
            f["timed"] += 1
    if rec.state != FINISHED:
        return  # abandoned: kept and shown, never counted as played, won or lost; in play: not yet
    seat_side = {name: s for s, names in enumerate(sides) for name in names}
    f["reneges"] += sum(1 for r in rec.reneges if r["seat"] in mine)
    for h, moved in zip(rec.hands, moves):
        f["scored"] += moved[side]  # what the side's score did (pagat: the bidders' alone moves)
        if h.side == side:
            f["hands_won"] += 1
        if h.kind == "penalty" and "claims_won" in f:
            if h.what == "claim" and h.side == side:
                f["claims_won"] += 1
            elif h.what == "accusation proven" and h.side == side:
                f["accusations_true"] += 1
            elif h.what == "false accusation" and h.side == 1 - side:
                f["accusations_false"] += 1
        bidder = rec.seats[h.bidder] if h.bidder is not None else None
        if bidder not in mine or seat_side.get(bidder) != side:
            continue
        if h.for_two:
            f["for2_declared"] += 1
            f["for2_made"] += h.what == "for-2 sweep"
        elif h.kind == "result" and h.bid is not None:
            made_missed = f["bids"].setdefault(str(h.bid), [0, 0])
            made_missed[h.what != "made"] += 1


def wins_over_time(records):
    """Per game, per side (a player, or a partnership ``"Ann + Cy"``, whose partners' lines
    would lie on each other): ``[(match id, wins so far)]`` after each finished match the side
    played, for the chart over time."""
    out = {}
    for rec in records:
        if rec.state != FINISHED:
            continue
        game = out.setdefault(rec.game, {})
        for side, names in enumerate(rec.sides()):
            series = game.setdefault(" + ".join(sorted(names)), [])
            before = series[-1][1] if series else 0
            series.append((rec.id, before + (rec.winner_side == side)))
    return out
