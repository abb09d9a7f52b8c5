"""The one game interface (assistant/rules/game.py), for both engines.

- "An action is accepted if and only if it is in legal_actions()", for every action kind
  of the scenario format, on random states of random bot matches (with reneges, claims,
  accusations, known hands and every Twenty-Nine option) and after the match ends
  (S2).
- A hypothesis RuleBasedStateMachine per game drives the engine through legal_actions()
  and through chosen illegal actions, so a failure shrinks to a short action list.
- waiting_for() agrees with legal_actions(); refusals carry a documented code; the typed
  results (HandResult, Penalty, MatchEnd) say what the rulings (T6, T9, N9, N11) say.
"""
import itertools
import json
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from assistant.sim.bot_towers import TowersBot
from assistant.sim.bot_twentynine import TwentyNineBot
from assistant.rules.cards import BLACK_JACKS, card_name, parse_card
from assistant.rules.game import CODES, HandResult, MatchEnd, Penalty, Phase, Refused, Waiting
from assistant.replay import replay_lines
from assistant.rules.scenario import OPTIONS, Action
from assistant.rules.towers import PACK as TOWERS_PACK, Towers
from assistant.rules.twentynine import TwentyNine

SCENARIOS = Path(__file__).parent / "scenarios"
COMBOS = [dict(zip(OPTIONS, values)) for values in itertools.product(*OPTIONS.values())]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def towers_universe():
    """Every towers action of the scenario format with at most one card (hand lines apart)."""
    out = [Action("flip", seat=s, cards=(c,)) for s in (None, 0, 1) for c in TOWERS_PACK]
    out += [Action(k, cards=(c,)) for k in ("upcard", "discard", "play") for c in range(32)]
    out += [Action("accept"), Action("pass"), Action("for2")] + [Action("name", value=v) for v in range(4)]
    out += [Action("claim", seat=s) for s in (None, 0, 1)] + [Action("accuse", seat=s) for s in (0, 1)]
    return out


def twentynine_universe():
    out = [Action("flip", seat=s, cards=(c,)) for s in (None, 0, 1, 2, 3) for c in range(32)]
    out += [Action(k, cards=(c,)) for k in ("trump", "play") for c in range(32)]
    out += [Action(k) for k in ("pass", "seventh", "call", "finish")]
    out += [Action("bid", value=v) for v in range(14, 31)]
    out += [Action(k, seat=s) for k in ("claim", "double", "redouble", "pair") for s in (None, 0, 1, 2, 3)]
    out += [Action("accuse", seat=s) for s in range(4)]
    return out


UNIVERSE = {Towers: towers_universe(), TwentyNine: twentynine_universe()}


def accepted(engine, action, before=None):
    """Whether ``engine`` takes ``action`` (tried on a copy). ``before``: ``engine.snapshot()``,
    when the caller tries many actions on one state (each was a second snapshot: a third of
    this file's time)."""
    trial = engine.copy()
    try:
        trial.apply(action)
    except Refused as e:
        assert e.code in CODES
        assert trial.snapshot() == (engine.snapshot() if before is None else before)  # a refusal changes nothing
        return False
    return True


def check_iff(engine):
    """Accepted if and only if listed, for every action of the universe; hand forms by seat."""
    legal = engine.legal_actions()
    listed = set(legal)
    assert len(listed) == len(legal), "an action is listed twice"
    before = engine.snapshot()
    for a in UNIVERSE[type(engine)]:
        assert (a in listed) == accepted(engine, a, before), (engine.phase, a, a in listed)
    for a in legal:
        assert a.kind == "hand" or a in UNIVERSE[type(engine)], a  # nothing outside the format
    size = engine.hand_size if isinstance(engine, Towers) else 8
    for seat in range(len(engine.seats)):
        if Action("hand", seat=seat) not in listed:  # not listed: refused whatever the cards
            cards = tuple(sorted(TOWERS_PACK if isinstance(engine, Towers) else range(32))[:size])
            assert not accepted(engine, Action("hand", seat=seat, cards=cards), before)
    assert engine.snapshot() == before  # the trials were on copies: the state checked is unchanged


def drive(engine, bot, every=2):
    n = 0
    while True:
        if n % every == 0:
            check_iff(engine)
        action = bot.next_action(engine)
        if action is None:
            break
        engine.apply(action)
        n += 1
    assert engine.match_end == MatchEnd(engine.winner, tuple(engine.score))
    check_iff(engine)  # after the match: claims and accusations still heard


towers_bots = st.builds(TowersBot, seed=st.integers(0, 2**32), renege_rate=st.sampled_from([0.0, 0.3]),
                        known_hands=st.booleans(), claim_rate=st.sampled_from([0.0, 0.5]),
                        accuse_rate=st.sampled_from([0.0, 0.05]), for_two_rate=st.sampled_from([0.1, 0.5]))
twentynine_bots = st.builds(TwentyNineBot, seed=st.integers(0, 2**32), renege_rate=st.sampled_from([0.0, 0.3]),
                            known_hands=st.booleans(), claim_rate=st.sampled_from([0.0, 0.2]),
                            accuse_rate=st.sampled_from([0.0, 0.05]), seventh_rate=st.sampled_from([0.0, 0.5]),
                            double_rate=st.sampled_from([0.2, 0.8]), pair_rate=st.sampled_from([0.7, 1.0]))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(towers_bots)
def test_towers_accepts_exactly_the_legal_actions(bot):
    """T1-T9 and S1-S4: apply accepts an action iff legal_actions lists it."""
    drive(Towers(), bot, every=3)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(twentynine_bots, st.sampled_from(COMBOS))
def test_twentynine_accepts_exactly_the_legal_actions(bot, opts):
    """N1-N11, the options and S1-S4: accepted iff listed."""
    drive(TwentyNine(options=opts), bot, every=4)


def test_a_flip_of_several_cards_is_accepted_when_each_card_would_be():
    """T1/N2: a multi-card flip is not listed; it is accepted iff its cards are, one by one."""
    for engine in (Towers(), TwentyNine()):
        pack = sorted(TOWERS_PACK) if isinstance(engine, Towers) else list(range(32))
        for first, second in itertools.permutations(pack[:12], 2):
            one = engine.copy()
            one_ok = Action("flip", cards=(first,)) in set(one.legal_actions())
            if one_ok:
                one.apply(Action("flip", cards=(first,)))
            both_ok = one_ok and Action("flip", cards=(second,)) in set(one.legal_actions())
            assert accepted(engine, Action("flip", cards=(first, second))) == both_ok


class GameMachine(RuleBasedStateMachine):
    """Drive an engine through legal_actions() and chosen illegal actions."""
    engine_class = None
    options = {}

    def __init__(self):
        super().__init__()
        self.engine = self.engine_class(options=self.options) if self.options else self.engine_class()

    @rule(data=st.data())
    def legal(self, data):
        actions = [a for a in self.engine.legal_actions() if a.kind != "hand"]
        kind = data.draw(st.sampled_from(sorted({a.kind for a in actions})))  # a kind, then one of it
        actions = [a for a in actions if a.kind == kind]
        jacks = [a for a in actions if kind == "flip" and a.cards[0] in BLACK_JACKS]
        if jacks and data.draw(st.booleans()):  # the flip ends soon, so play is reached
            actions = jacks
        action = data.draw(st.sampled_from(actions))
        self.engine.apply(action)  # listed, so accepted

    @rule(data=st.data())
    def illegal(self, data):
        listed = set(self.engine.legal_actions())
        illegal = [a for a in UNIVERSE[self.engine_class] if a not in listed]
        hidden = self.hidden_card()
        about_hidden = [a for a in illegal if hidden in a.cards]
        if about_hidden and data.draw(st.booleans()):  # the face-down card, tried often
            illegal = about_hidden
        action = data.draw(st.sampled_from(illegal))
        before = self.engine.snapshot()
        try:
            self.engine.apply(action)
        except Refused as e:
            assert e.code in CODES and str(e) == e.words and e.words
            if hidden is not None and action.kind not in ("trump", "discard", "hand"):
                assert card_name(hidden) not in e.words  # never named in a refusal of a shown action
        else:
            raise AssertionError(f"{action} was not listed but accepted")
        assert self.engine.snapshot() == before

    def hidden_card(self):
        """The face-down card the table must never see named: Twenty-Nine's trump card until
        revealed, the towers dealer's recorded discard (unless it is the up-card, which all saw)."""
        e = self.engine
        if isinstance(e, TwentyNine):
            return None if e.revealed else e._trump_card
        if e.phase != Phase.PLAY or e.discard == e.up_card:  # the up-card was seen by all
            return None
        return e.discard

    @precondition(lambda self: self.engine.hand_no)
    @rule(data=st.data())
    def claim_or_accuse(self, data):
        """Claims and accusations come at any moment (T9, N11): listed ones are accepted."""
        actions = [a for a in self.engine.legal_actions() if a.kind in ("claim", "accuse")]
        self.engine.apply(data.draw(st.sampled_from(actions)))

    @invariant()
    def interface(self):
        e = self.engine
        assert isinstance(e.phase, Phase)
        json.dumps(e.state())
        w = e.waiting_for()
        assert isinstance(w, Waiting) and w
        kinds = {a.kind for a in e.legal_actions()}
        assert set(w.kinds) <= kinds, (w, w.kinds, kinds)
        if w.seat is not None:
            assert w.seat == (e.to_act if e.phase != Phase.TRUMP_CARD else e.bidder)
        assert (e.phase == Phase.MATCH_OVER) == (e.match_end is not None)
        assert e.outcome is None or isinstance(e.outcome, (HandResult, Penalty))
        assert e.outcome is None or not e.hand_open  # a scored hand is over (T6, N9, T9, N11)


class TowersMachine(GameMachine):
    engine_class = Towers


class TwentyNineMachine(GameMachine):
    engine_class = TwentyNine
    options = {"pair": "on", "double": "on"}


MACHINE_SETTINGS = settings(max_examples=60, stateful_step_count=60, deadline=None,
                            suppress_health_check=[HealthCheck.too_slow])
TestTowersMachine = TowersMachine.TestCase
TestTowersMachine.settings = MACHINE_SETTINGS
TestTwentyNineMachine = TwentyNineMachine.TestCase
TestTwentyNineMachine.settings = MACHINE_SETTINGS


# -- typed results and refusal codes -----------------------------------------------------------

def engine_after(path):
    return replay_lines((SCENARIOS / path).read_text(encoding="utf-8").splitlines()).engine


def test_t6_a_sweep_is_a_typed_hand_result():
    """T6: a sweep wins the sweeper one tower: HandResult names it."""
    r = engine_after("towers/T6-sweep-one-tower.scn").outcome
    assert isinstance(r, HandResult) and r.what == "sweep" and r.value == 1 and r.how == "played out"


def test_t6_each_hand_result_is_named_and_valued_as_the_rules_say():
    """T6.1: without "for 2" a bidder who takes no trick is swept: the result is a sweep of one
    tower to the defender, not the for-2 zero the history would otherwise name. T6.3: a hand
    after which the tower goes on wins nobody anything."""
    r = engine_after("towers/T6-bidder-zero-without-for2-is-the-defenders-sweep.scn").outcome
    assert isinstance(r, HandResult) and (r.what, r.side, r.value) == ("sweep", 1, 1)
    r = engine_after("towers/T6-for2-bidder-zero-two-to-defender.scn").outcome
    assert isinstance(r, HandResult) and (r.what, r.side, r.value) == ("for-2 zero", 1, 2)
    # T6.3: a hand the tower goes on from scores nothing: no side, no value
    r = engine_after("towers/T6-minority-defender-deals.scn").outcome
    assert isinstance(r, HandResult) and (r.what, r.side, r.value) == ("minority", None, 0)
    r = engine_after("towers/T6-for2-majority-continues.scn").outcome
    assert isinstance(r, HandResult) and (r.what, r.side, r.value) == ("majority", None, 0)


def test_t9_a_claim_after_the_hand_is_a_penalty_that_replaces_it():
    """T9: a claim after the hand's result replaces that result."""
    r = engine_after("towers/T9-claim-after-hand-replaces-result.scn").outcome
    assert isinstance(r, Penalty) and r.why == "claim" and r.replaces and r.value == 1


def test_n9_a_made_round_and_n11_a_false_accusation_are_typed():
    """N9 a round made or missed, N11 a false accusation that replaces the round's result."""
    r = engine_after("twenty-nine/N9-made-twenty-worth-two.scn").outcome
    assert isinstance(r, HandResult) and r.what == "made" and r.value == 2
    assert (r.bidder, r.side) == (0, 0)  # made: the bidding side (P1's) scores it
    r = engine_after("twenty-nine/N9-missed-other-side-scores.scn").outcome
    assert isinstance(r, HandResult) and (r.what, r.value, r.bidder, r.side) == ("missed", 1, 1, 0)  # the other side
    r = engine_after("twenty-nine/N11-false-accusation.scn").outcome
    assert isinstance(r, Penalty) and r.why == "false accusation" and r.replaces


def test_t9_the_correction_is_refused_with_the_must_follow_code():
    """T9: with a known hand a failure to follow is refused at once, code must-follow."""
    text = (SCENARIOS / "towers/T9-known-hand-refuses-renege.scn").read_text(encoding="utf-8")
    lines = text.splitlines()
    engine = replay_lines(lines[:-2]).engine  # all but the refused play and the expectation
    try:
        engine.apply(Action("play", cards=(parse_card("KC"),)))  # to a spade lead
    except Refused as e:
        assert e.code == "must-follow" and str(e) == "P1 must follow spades ♠"
    else:
        raise AssertionError("the renege was accepted")


def test_the_documented_refusal_codes_are_the_codes_raised():
    """game.CODES is the documented list: every code raised in assistant/ is in it, and each
    of its codes is raised somewhere (the list stays honest)."""
    root = Path(__file__).resolve().parent.parent / "assistant"
    source = "".join(p.read_text(encoding="utf-8") for p in root.rglob("*.py"))
    raised = set(re.findall(r'Refused\(\s*"([a-z-]+)"', source))
    assert raised == set(CODES)


def test_each_engine_says_what_its_game_has():
    """N1, T8 and the options: the class attributes the layers above ask instead of the game's
    name (seats, sides, house rules, an auction, for 2) agree with what the engine does."""
    from assistant.rules.match import engine_class
    from assistant.rules.scenario import GAME_OPTIONS, GAMES
    for game in GAMES:
        cls = engine_class(game)
        engine = cls()
        assert cls.game == game and len(engine.seats) == cls.players == GAMES[game]
        assert len(cls.side_of) == cls.players and set(cls.side_of) == {0, 1}
        assert cls.partnerships == (cls.players > 2)
        assert cls.OPTIONS == GAME_OPTIONS[game]
        assert cls.has_auction == hasattr(engine, "bid") == ("bid" in {a.kind for a in _reach(engine, "bid")})
        assert cls.has_for_two == hasattr(engine, "for_two")


def _reach(engine, kind, steps=400):
    """The legal actions met on the way through a match played by legal actions, until ``kind``."""
    import random
    rng, seen = random.Random(5), []
    for _ in range(steps):
        actions = [a for a in engine.legal_actions() if a.kind not in ("hand", "claim", "accuse")]
        seen += actions
        if not actions or any(a.kind == kind for a in actions):
            break
        engine.apply(rng.choice(actions))
    return seen


def test_s2_t9_n11_a_malformed_claim_accusation_or_flip_is_refused_alike():
    """S2, T9, N11 (shared.Rules): both engines refuse an accusation naming no seat, a claim or
    accusation naming no seat of the game, and a flip of no cards, with a code, changing nothing."""
    for engine in (Towers(), TwentyNine()):
        before = engine.snapshot()
        for action, code in ((Action("flip", cards=()), "not-an-action"),
                             (Action("claim", seat=7), "bad-seat"),
                             (Action("accuse"), "bad-seat"),
                             (Action("dance"), "not-an-action")):
            try:
                engine.apply(action)
            except Refused as e:
                assert e.code == code, (type(engine).__name__, action, e.code)
            else:
                raise AssertionError(f"{type(engine).__name__} accepted {action}")
            assert engine.snapshot() == before
