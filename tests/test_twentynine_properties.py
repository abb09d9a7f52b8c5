"""Properties of random legal Twenty-Nine matches under every option combination.

Hypothesis drives the bot's seed and habits and the options; each property names
the rulings it guards: N8 the 29 points, N9 the round value and the match end,
N11 reneges, and the log's undo and export (the scenario format).
"""
import itertools
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from assistant.sim.bot_twentynine import TwentyNineBot, play_match
from assistant.rules.cards import card_name
from assistant.rules.match import Match
from assistant.replay import replay_lines
from assistant.rules.shared import Refused
from assistant.rules.scenario import OPTIONS, Action

COMBOS = [dict(zip(OPTIONS, values)) for values in itertools.product(*OPTIONS.values())]
options = st.sampled_from(COMBOS)
bots = st.builds(
    TwentyNineBot,
    seed=st.integers(0, 2**32),
    renege_rate=st.sampled_from([0.0, 0.1, 0.4]),
    known_hands=st.booleans(),
    claim_rate=st.sampled_from([0.0, 0.05]),
    accuse_rate=st.sampled_from([0.0, 0.02]),
    finish_rate=st.sampled_from([0.0, 0.3]),
    seventh_rate=st.sampled_from([0.0, 0.5]),
)
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def value_of(state, opts):
    """N9 and the options, from the public state only."""
    two_point = int(opts["two_point_bid"])
    return (2 if state["bid"] >= two_point else 1) * state["double"]


@SETTINGS
@given(bots, options)
def test_points_cards_round_value_and_match_end(bot, opts):
    """N8: a played-out round's card points sum to 29 and every card is played once;
    N9: each round moves the score by exactly its value (pagat: only the bidding side's);
    N9: the match ends exactly when a side reaches 6 (pagat: +6 wins, -6 loses)."""
    check_match(bot, opts)


@pytest.mark.parametrize("opts", COMBOS, ids=[",".join(c.values()) for c in COMBOS])
def test_every_option_combination_plays_legal_matches(opts):
    """N8, N9 and the options: the same checks, one seeded match of every option combination,
    with reneges, claims, accusations, doubles and pairs all in play."""
    seed = COMBOS.index(opts)
    check_match(TwentyNineBot(seed, renege_rate=0.1, claim_rate=0.05, accuse_rate=0.01,
                              double_rate=0.5, pair_rate=1.0), opts)


def check_match(bot, opts):
    pagat = opts["scoring"] == "pagat"
    match = Match("twenty-nine", options=opts)
    begin_score, cards, rounds = [0, 0], [], 0

    def check(action):
        nonlocal begin_score, cards, rounds
        e = match.engine
        s = e.state()
        if e.hand_no != rounds:  # the first auction action of a round (it moves no score)
            rounds, begin_score, cards = e.hand_no, list(s["score"]), []
        if action.kind == "play":
            cards.append(action.card)
        if not e.round_open and e.hand_no:
            if e.trick_no == 8:
                assert sum(s["points"]) == 29
                assert sum(s["tricks"]) == 8
                assert sorted(cards) == list(range(32))
            delta = [s["score"][i] - begin_score[i] for i in (0, 1)]
            v = value_of(s, opts)
            bs = e.bidder % 2
            if pagat:
                assert delta[1 - bs] == 0 and abs(delta[bs]) == v
            else:
                assert sorted(delta) == [0, v]
            if s["result"].startswith(("made", "missed")):
                made = s["points"][bs] >= s["target"]
                assert s["result"].startswith("made") == made
                assert (delta[bs] > 0) == made if pagat else delta[bs if made else 1 - bs] == v
        sc = s["score"]
        if pagat:
            over = max(sc) >= 6 or min(sc) <= -6
        else:
            over = max(sc) >= 6
        assert (s["winner"] is not None) == over == (s["phase"] == "over")
        if over:
            if pagat:
                win = 0 if sc[0] >= 6 or sc[1] <= -6 else 1
            else:
                win = 0 if sc[0] >= 6 else 1
            assert s["winner"] == [s["seats"][win], s["seats"][win + 2]]

    play_match(match, bot, on_action=check)
    assert match.engine.winner is not None
    try:
        match.apply(Action("pass"))
    except Refused as e:
        assert "the match is over" in str(e)
    else:
        raise AssertionError("an auction action after the match was accepted")


@SETTINGS
@given(bots, options)
def test_injected_reneges_are_proven(bot, opts):
    """N11/T9: every proven renege is one the bot made on purpose, and every one it made is
    proven by the end of its round unless a claim or a proven accusation ended that round early;
    with every hand known none is accepted at all."""
    engine = Match("twenty-nine", options=opts)
    bot.renege_rate = max(bot.renege_rate, 0.2)
    play_match(engine, bot)
    proven = Counter((r.seat, r.hand, r.trick) for r in engine.engine.book.proven)
    injected = Counter(bot.injected_log)
    assert not proven - injected
    for seat, hand, trick in injected - proven:
        assert bot.results[hand] in ("claim", "accusation proven")
    if bot.known_hands:
        assert bot.injected == 0 and not proven


@SETTINGS
@given(bots, options, st.integers(0, 2**32))
def test_undo_restores_and_refusals_change_nothing(bot, opts, junk_seed):
    """Undo (Match, by replay) restores the exact snapshot; a refused action leaves it unchanged;
    while trump is hidden no refusal names the face-down card."""
    rnd = random.Random(junk_seed)
    match = Match("twenty-nine", options=opts)
    n = 0
    while match.engine.phase != "over" and n < 400:
        action = bot.next_action(match.engine)
        before = match.engine.snapshot()
        if rnd.random() < 0.1:
            match.apply(action)
            match.apply(Action("undo"))
            assert match.engine.snapshot() == before
        junk = _junk(rnd)
        try:
            match.apply(junk)
        except Refused as e:
            assert match.engine.snapshot() == before
            e9 = match.engine
            if e9.trump_set and not e9.revealed and junk.kind == "play":
                assert card_name(e9._trump_card) not in str(e)
        else:
            match.apply(Action("undo"))
            assert match.engine.snapshot() == before
        match.apply(action)
        n += 1


def _junk(rnd):
    kind = rnd.choice(["play", "play", "bid", "pass", "call", "trump", "seventh", "finish", "claim",
                       "accuse", "double", "redouble", "pair", "hand", "flip", "upcard", "for2"])
    seat = rnd.choice([None, 0, 1, 2, 3])
    if kind in ("play", "trump", "upcard"):
        return Action(kind, seat=seat, cards=(rnd.randrange(32),))
    if kind == "bid":
        return Action(kind, seat=seat, value=rnd.randrange(10, 32))
    if kind == "hand":
        return Action(kind, seat=rnd.randrange(4), cards=tuple(rnd.sample(range(32), rnd.choice([7, 8, 8]))))
    if kind == "flip":
        return Action(kind, cards=(rnd.randrange(32),))
    if kind == "accuse":
        return Action(kind, seat=rnd.randrange(4))
    return Action(kind, seat=seat)


@SETTINGS
@given(bots, options)
def test_export_round_trips(bot, opts):
    """The scenario format: a match's export replays to the same state and the same snapshot."""
    match = Match("twenty-nine", options=opts)
    for _ in range(bot.rng.randrange(1, 600)):
        action = bot.next_action(match.engine)
        if action is None:
            break
        match.apply(action)
    again = replay_lines(match.export("round trip").splitlines())
    assert again.state() == match.state()
    assert again.engine.snapshot() == match.engine.snapshot()
