"""The view model: what every player at the table may see now, and nothing more.

The table builds a ``View`` after each accepted action; the screen renderer
(``assistant.box.screen.render``) and the alerts read only this. There is no field
for a hand, a scanned card or the face-down trump card: hidden information has
nowhere to go. ``trump`` is the suit index once revealed, ``"hidden"`` while set
face down, else ``None``.

Seats are 0-based indices into ``seats`` (P1 is 0). Cards are ints from
``assistant.rules.cards`` (suit * 8 + rank).

>>> v = View(game="towers", seats=("P1", "P2"), phase="play", prompt="P2 to play",
...          score=(3, 1), dealer=0, turn=1, hand_size=6, trump=1, bidder=1,
...          tricks=(2, 1), trick=((0, 8),))
>>> v.side_names()
('P1', 'P2')
"""
from dataclasses import dataclass, field

from assistant.rules.game import CODES
from assistant.rules.scenario import GAMES as SEATS_OF

GAMES = tuple(SEATS_OF)
PHASES = frozenset({
    "menu",        # choosing game / options (``menu`` carries the list)
    "flip",        # black-jack flip for the deal (``flipped`` carries the cards shown)
    "scan",        # deal-scan: players tap their hands (only counts may go in the prompt)
    "upcard",      # towers: waiting for the up-card
    "trump1",      # towers: accept or pass the up-card's suit
    "trump2",      # towers: name a suit (not ``turned_down``) or pass
    "discard",     # towers: dealer picked up, discards face down
    "for2",        # towers: bidder may declare for 2
    "bidding",     # Twenty-Nine auction (``bidder``/``bid`` = highest so far)
    "trump-card",  # Twenty-Nine: bidder sets the trump card face down
    "seventh",     # Twenty-Nine: the seventh card is to be pulled face down
    "lead",        # Twenty-Nine: trump is set, the second four are dealt, the first lead awaited
    "double",      # Twenty-Nine option double=on: double / redouble window (before the first lead)
    "play",        # tricks being played (``trick`` carries the current trick)
    "hand-over",   # a hand/round is scored; ``prompt`` says the result
    "match-over",  # ``winner`` carries the winning seats
})
ALERT_TITLES = {  # each kind's title bar: (in full, where the OLED has room for it; short); the web page's too
    "renege": ("RENEGE!", "RENEGE!"),
    "refused": ("REFUSED", "REFUSED"),
    "unknown-tag": ("UNKNOWN TAG", "UNKNOWN"),
    "reader-lost": ("NO READER", "READER?"),
    "info": ("NOTE", "NOTE"),
}
ALERT_KINDS = tuple(ALERT_TITLES)
# Why an alert is up: one of these, or a refusal code of the rules (assistant.rules.game.CODES).
CAUSES = {
    "renege-proven": "a card just played proved a renege (T9, N11)",
    "accusation": "an accusation was heard: pending until the hand's end, or without effect",
    "hidden-card": "a trump card, discard, scanned hand or face-down card was refused; the same for "
                   "every card, as the rules' own reason could hint at it",
    "pad-conflict": "two cards lie on one pad",
    "card-lying": "a card was found lying on a pad: never taken as a play",
    "unknown-tag": "a tag that is not in the enrolled pack",
    "unknown-pad": "a pad that is not one of this box's [table] pads",
    "too-few-pads": "a game chosen that some seat could not play: no pad of its own and no centre",
    "wrong-pad": "a card on a pad that does not take it now",
    "player-tag": "a player's tag where a card was wanted, or a second seat for one player",
    "menu-first": "a card tapped while a menu is open",
    "not-the-pair": "a card tapped while a pair is shown that is not its K or Q of trump",
    "scan": "a deal-scan tap refused, or a scanned card taken back",
    "reader-lost": "the card reader is disconnected",
    "journal": "the journal could not store an action or a setting, was recovered, or is newer",
    "deck": "the enrolled deck could not be read",
    "house-rules": "the house rules in play",
    "deal-scan": "deal scan was switched on or off",
}
TRUMP_HIDDEN = "hidden"


@dataclass(frozen=True, slots=True)
class Alert:
    """A message that takes over the screen (and sounds the buzzer) until cleared."""
    kind: str  # one of ALERT_KINDS: how it looks and sounds
    text: str  # plain words, e.g. "P2 failed to follow ♥ (trick 3)"
    cause: str | None = None  # why it is up: one of CAUSES or of the rules' refusal codes

    def __post_init__(self):
        if not self.text.isprintable():  # a path's newline split the sim's screen line in two
            from assistant.cli import shown
            object.__setattr__(self, "text", shown(self.text))
        if self.kind not in ALERT_KINDS:
            raise ValueError(f"alert kind {self.kind!r} is not one of {', '.join(ALERT_KINDS)}")
        if self.cause is not None and self.cause not in CAUSES and self.cause not in CODES:
            raise ValueError(f"alert cause {self.cause!r} is not one of CAUSES or the rules' codes")


@dataclass(frozen=True, slots=True)
class Menu:
    """A list to choose from with left/right and OK."""
    title: str
    items: tuple[str, ...]
    selected: int = 0

    def __post_init__(self):
        object.__setattr__(self, "items", tuple(self.items))
        if not self.items:
            raise ValueError("a menu needs at least one item")
        if not 0 <= self.selected < len(self.items):
            raise ValueError(f"menu selection {self.selected} is outside its {len(self.items)} items")


def _pairs(value, name, seats):
    out = tuple((int(s), int(c)) for s, c in value)
    for s, c in out:
        if not 0 <= s < seats:
            raise ValueError(f"{name}: seat {s} is not at this table")
        if not 0 <= c < 32:
            raise ValueError(f"{name}: {c} is not a card")
    return out


@dataclass(frozen=True, slots=True)
class View:
    """Everything the screen may show. Defaults make a blank table of the game."""
    game: str                                   # "towers" | "twenty-nine"
    seats: tuple[str, ...]                      # names in play order (2 or 4)
    phase: str                                  # one of PHASES
    prompt: str = ""                            # who acts and what the box waits for
    score: tuple[int, ...] = (0, 0)             # towers per seat, Twenty-Nine per side (P1+P3, P2+P4)
    dealer: int | None = None                   # seat index, None while a flip decides
    turn: int | None = None                     # seat index to act now (highlighted), if one
    hand_size: int | None = None                # towers: cards dealt each this hand
    trump: int | str | None = None              # suit 0..3 (S H D C), "hidden", or None
    up_card: int | None = None                  # towers: the face-up card (upcard/trump1/discard)
    turned_down: int | None = None              # towers round two: the suit turned down
    bidder: int | None = None                   # seat index (towers: who made trump)
    bid: int | None = None                      # Twenty-Nine: 16..29 (highest so far while bidding)
    target: int | None = None                   # Twenty-Nine: what the bidders need (a pair moves it)
    for_two: bool = False                       # towers: the bidder declared for 2
    double: int = 1                             # Twenty-Nine: 1, 2 doubled, 4 redoubled
    tricks: tuple[int, ...] = ()                # towers: tricks this hand, per seat
    points: tuple[int, ...] = ()                # Twenty-Nine: card points this round, per side
    trick: tuple[tuple[int, int], ...] = ()     # current trick, (seat, card) in play order
    trick_no: int | None = None                 # 1-based number of the current trick
    flipped: tuple[tuple[int, int], ...] = ()   # flip: last card turned for each seat so far
    winner: tuple[int, ...] = ()                # match-over: winning seat indices
    alert: Alert | None = None
    menu: Menu | None = None
    extra: tuple[str, ...] = field(default=())  # short public notes ("pair P2", "called")

    def __post_init__(self):
        if self.game not in GAMES:
            raise ValueError(f"game {self.game!r} is not one of {', '.join(GAMES)}")
        want = SEATS_OF[self.game]
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        set_("seats", tuple(str(s) for s in self.seats))
        if len(self.seats) != want:
            raise ValueError(f"{self.game} has {want} seats, not {len(self.seats)}")
        if self.phase not in PHASES:
            raise ValueError(f"phase {self.phase!r} is not one of {', '.join(sorted(PHASES))}")
        for name in ("score", "tricks", "points", "winner", "extra"):
            set_(name, tuple(getattr(self, name)))
        if len(self.score) != 2:
            raise ValueError("score has two entries: per seat (towers) or per side (Twenty-Nine)")
        for name in ("dealer", "turn", "bidder"):
            s = getattr(self, name)
            if s is not None and not 0 <= s < want:
                raise ValueError(f"{name}: seat {s} is not at this table")
        t = self.trump
        if not (t is None or t == TRUMP_HIDDEN or (type(t) is int and 0 <= t < 4)):
            raise ValueError(f"trump {t!r} must be a suit 0..3, {TRUMP_HIDDEN!r} or None")
        for name in ("bid", "target"):
            n = getattr(self, name)
            if n is not None and not 16 <= n <= 29:
                raise ValueError(f"{name} {n} is outside 16..29")
        if self.double not in (1, 2, 4):
            raise ValueError(f"double {self.double} must be 1, 2 or 4")
        if self.up_card is not None and not 0 <= self.up_card < 32:
            raise ValueError(f"up_card {self.up_card} is not a card")
        set_("trick", _pairs(self.trick, "trick", want))
        set_("flipped", _pairs(self.flipped, "flipped", want))
        if self.phase == "menu" and self.menu is None:
            raise ValueError("the menu phase needs a menu")

    @property
    def towers(self):
        """One player a side (towers' screen layout), not partners."""
        return len(self.seats) == 2

    def side_names(self):
        """Towers: the two seat names; Twenty-Nine: "P1+P3", "P2+P4" (partners sit opposite)."""
        return tuple("+".join(self.seats[side::2]) for side in (0, 1))
