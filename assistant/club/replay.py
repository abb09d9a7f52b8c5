"""One table's match on the board, rebuilt from its public events through the rules engines.

The board never takes a score from a box: it applies the public lines to a
:class:`Match`. A hidden card is not in them, so the engine gets a stand-in:

* a face-down trump (Twenty-Nine) is the card later ``revealed`` in the same round,
  or, never revealed, a card nobody played that round (trump that is never turned
  up decides no trick);
* a towers discard is the up-card unless the dealer plays it later in the hand,
  else a card nobody played that hand: the engine then knows exactly what the box
  knew about the dealer's trumps;
* a scanned hand is left out (the box already refused every card it made illegal).

Events are applied in their number order; one that arrives early waits for the
gap to fill. A line the engines refuse stops the match there, with a log line. An event
after it is stored, and the match rebuilt only when the event could change what was refused
(an undo, a face-down trump revealed, a card played that a stand-in had taken), as a match
with nothing refused is: replaying the whole match at every later event made 300 events of a
refused match take 3.2 s under the board's lock (bench/club_memory.py measures both ways).
"""
from assistant.rules.cards import card_name, pack_for, parse_card
from assistant.rules.match import Match
from assistant.rules.shared import Refused
from assistant.rules.scenario import ScenarioError, parse_action


class BoardMatch:
    def __init__(self, table, mid, start):
        self.table, self.mid = table, mid
        self.game, self.seats, self.options = start["game"], tuple(start["seats"]), start["options"]
        self.started = start.get("started")
        self.match = Match(self.game, self.seats, self.options)  # raises ValueError if unknown
        self.events = {}     # n -> event (n >= 1)
        self.next = 1        # the next event number to apply
        self.problem = None  # (n, words) when a line was refused
        self.said = None     # the refusal last logged (tables.py): logged once, not at every event after it
        self.claimed = None  # the box's own last score (shown beside ours, never used)
        self.scores = {}     # n -> the box's score an event not yet applied says (then only claimed)
        self.stand_ins = set()  # (hand, card) the latest rebuild took for hidden ones (a play of one: rebuild)
        self.upcard = None  # (n, event) the latest up-card in effect: a discard's stand-in reads it

    def add(self, n, event, more=False):
        """Store event ``n``; apply every event now in order. Returns words for a refusal or None.
        The box's score leaves the event (kept all night for a rebuild, which needs no score).
        ``more``: more events of this match follow at once (a start reading the board's file):
        stored only, applied with the last."""
        if "score" in event:
            self.scores[n] = event.pop("score")
        self.events[n] = event
        return None if more else self.flush()

    def flush(self):
        """Apply every event stored from the next one on, in order. Returns words for a refusal or None."""
        if self.next not in self.events:
            return None
        end = self.next
        while end in self.events:
            end += 1
        if end - self.next > max(1, self.next - 1):
            # more events at once than applied so far (a start, a long gap filled): one replay of the
            # whole match, whose stand-ins see every card played after them. Applied one at a time,
            # each towers discard's stand-in (the up-card) was found wrong when the dealer played the
            # up-card, and the match so far replayed again: a replay a hand, a start 309 s at 3,600 matches
            for k in range(self.next, end):
                if k in self.scores:
                    self.claimed = self.scores.pop(k)
            self.next = end
            return self.rebuild()
        refused = None
        while self.next in self.events:
            refused = self._apply_next() or refused
        return refused

    def _apply_next(self):
        n = self.next
        event = self.events[n]
        self.next += 1
        if n in self.scores:
            self.claimed = self.scores.pop(n)
        simple = not (event.get("hidden") or "revealed" in event or event["line"] == "undo")
        if self.problem is None and "revealed" not in event and event["line"] != "undo":
            # a hidden card, the latest action: its stand-in is what a rebuild would choose (no
            # later action yet), and it changes no earlier one's (it plays no card), so it is applied
            # alone, not by replaying the whole match (once a hand: most of a match's replay work)
            try:
                if simple:
                    self.match.apply(parse_action(event["line"].split(), self.game, self.seats, n))
                    if event["line"].startswith("upcard "):
                        self.upcard = (n, event)
                    return None
                before = [self.upcard] if self.upcard else []  # all a stand-in reads of what came before it
                action = self._action(before + [(n, event)], len(before))
                if action is not None:
                    self.match.apply(action)
                return None
            except (Refused, ScenarioError, ValueError):
                pass  # a stand-in chosen earlier may be the card just played: rebuild
        if self.problem is not None and not self._may_change(event):
            return self.refusal()  # refused at the same action again: the match as rebuilt stays
        return self.rebuild()

    def _may_change(self, event):
        """Could ``event``, after a refused action, change what the rebuild refuses? Only an undo
        (it may take the refused action back, or a play that decided a stand-in), a face-down
        trump revealed, or a card played in a hand where a stand-in had taken it: the actions after the
        refused one are never applied, and decide nothing else before it."""
        line = event["line"]
        if line == "undo" or "revealed" in event:
            return True
        if line.startswith("play "):
            try:
                return (event.get("hand"), parse_card(line.split()[-1])) in self.stand_ins
            except ValueError:
                return False  # no card: it changes no stand-in
        return False

    def rebuild(self):
        effective = []
        for n in range(1, self.next):
            event = self.events[n]
            if event["line"] == "undo":
                if effective:
                    effective.pop()
            else:
                effective.append((n, event))
        match = Match(self.game, self.seats, self.options)
        self.problem = None
        self.stand_ins = set()
        self.upcard = next(((k, e) for k, e in reversed(effective) if e["line"].startswith("upcard ")), None)
        for i, (n, event) in enumerate(effective):
            try:
                action = self._action(effective, i)
                if action is not None:
                    match.apply(action)
            except (Refused, ScenarioError, ValueError) as e:
                self.problem = (n, f"refused by the rules ({type(e).__name__})")
                break
        self.match = match
        return self.refusal()

    def refusal(self):
        """Words for the action the rules refused (None: none was)."""
        if self.problem:
            return f"table {self.table} match {self.mid} action {self.problem[0]} {self.problem[1]}"
        return None

    def _action(self, effective, i):
        n, event = effective[i]
        tokens = event["line"].split()
        kind = tokens[0]
        if kind == "hand":
            return None
        if kind in ("trump", "discard"):
            later = [e for _, e in effective[i + 1:] if e.get("hand") == event.get("hand")]
            played = {parse_card(e["line"].split()[-1]) for e in later if e["line"].startswith("play ")}
            card = None
            if kind == "trump":
                shown = [e["revealed"] for e in later if "revealed" in e]
                card = parse_card(shown[0]) if shown else None
            else:
                ups = [e["line"].split()[-1] for _, e in effective[:i] if e["line"].startswith("upcard ")]
                up = parse_card(ups[-1]) if ups else None
                card = up if up is not None and up not in played else None
            if card is None:
                card = min(c for c in pack_for(self.game) if c not in played)
            self.stand_ins.add((event.get("hand"), card))  # (a revealed trump too: a play of it rebuilds)
            tokens = tokens + [card_name(card)]
        return parse_action(tokens, self.game, self.seats, n)

    def summary(self):
        state = self.match.state()
        return {"table": self.table, "match": self.mid, "game": self.game, "seats": list(self.seats),
                "score": state["score"], "winner": state["winner"], "phase": str(state["phase"]),
                "hand": state.get("hand"), "events": self.next - 1, "waiting": len(self.events) - (self.next - 1),
                "box_score": self.claimed, "problem": self.problem and self.problem[1]}
