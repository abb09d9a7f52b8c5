"""Properties of random legal towers matches (hypothesis drives the bot's seed and habits).

Each property names the ruling it guards: T2 hand sizes, T6 outcomes, T8 the match end, T9 reneges.
"""
from hypothesis import HealthCheck, given, settings, strategies as st

from assistant.sim.bot_towers import TowersBot
from assistant.rules.match import Match
from assistant.replay import replay_lines
from assistant.rules.shared import Refused
from assistant.rules.scenario import Action
from assistant.rules.towers import Towers

bots = st.builds(
    TowersBot,
    seed=st.integers(0, 2**32),
    renege_rate=st.sampled_from([0.0, 0.1, 0.5]),
    known_hands=st.booleans(),
    claim_rate=st.sampled_from([0.0, 0.5]),
    accuse_rate=st.sampled_from([0.0, 0.05]),
    skip_discard_rate=st.sampled_from([0.0, 1.0]),
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run(bot, check):
    engine = Towers()
    while engine.phase != "over":
        action = bot.next_action(engine)
        before = _facts(engine)
        engine.apply(action)
        check(before, action, engine)
    return engine


def _facts(e):
    return {"score": tuple(e.score), "size": e.hand_size, "done": e.done, "trick": len(e.trick),
            "for_two": e.for_two, "bidder": e.bidder, "tricks": tuple(e.tricks),
            "accused": bool(e.book.accusations), "proven": len(e.book.proven),
            "hand_over": e.hand_over, "played": len(e.played)}


@SETTINGS
@given(bots)
def test_hands_towers_and_the_match_end(bot):
    """T2, T6, T8: hand sizes run 7..1, tricks sum to the hand size, towers end only by a sweep,
    a for-2 result, a claim or an accusation, and the match ends exactly when a player reaches 5."""
    hands = []

    def check(before, action, e):
        assert len(e.played) == len(set(e.played))  # no card twice in a hand
        if action.kind == "upcard":
            hands.append(e.hand_size)
            assert 1 <= e.hand_size <= 7
        played_out = action.kind == "play" and before["done"] + (before["trick"] == 1) == before["size"]
        if played_out and before["proven"] == len(e.book.proven):
            assert sum(e.tricks) == before["size"]  # T2: a played-out hand's tricks sum to its size
        if tuple(e.score) != before["score"]:
            gained = [a - b for a, b in zip(e.score, before["score"])]
            replaced = action.kind in ("claim", "accuse") and before["hand_over"]
            assert replaced or all(g >= 0 for g in gained), "tower counts never fall but by a replacement"
            by_penalty = action.kind in ("claim", "accuse") or (
                action.kind == "play" and before["accused"] and len(e.book.proven) > before["proven"])
            if not by_penalty:
                assert played_out
                bidder, size = before["bidder"], before["size"]
                taken = e.tricks[bidder]
                sweep = taken in (0, size)
                for_two_short = before["for_two"] and taken <= size // 2
                assert sweep or for_two_short or before["accused"], "T6: a tower ends only so"
                if size == 1:
                    assert sweep
        assert (e.winner is not None) == (max(e.score) >= 5) == (e.phase == "over")  # T8

    engine = run(bot, check)
    assert max(engine.score) >= 5 and engine.score[engine.winner] == max(engine.score)
    # T2: within a tower hand sizes count down by one from 7
    for a, b in zip(hands, hands[1:]):
        assert b == 7 or b == a - 1


@SETTINGS
@given(st.integers(0, 2**32), st.sampled_from([0.1, 0.3]))
def test_every_injected_renege_is_proven_by_the_end_of_its_hand(seed, rate):
    """T9: with unknown hands and hands played out, every failure to follow is proven, and no
    renege is proven that was not injected."""
    bot = TowersBot(seed, renege_rate=rate, claim_rate=0.0)
    engine = run(bot, lambda *a: None)
    assert len(engine.book.proven) == bot.injected


@SETTINGS
@given(bots, st.data())
def test_undo_export_and_refusal_leave_exact_state(bot, data):
    """Undo restores the exact previous state; export then replay gives the same state; a refused
    action changes nothing (scenario format: undo, export; T9: corrections by undo)."""
    match = Match("towers")
    probes = set(data.draw(st.lists(st.integers(0, 400), max_size=4)))
    n = 0
    while match.engine.phase != "over" and n < 450:
        action = bot.next_action(match.engine)
        before = match.engine.snapshot()
        if n in probes:
            history = list(match.actions)
            match.apply(action)
            match.apply(Action("undo"))
            assert match.engine.snapshot() == before and match.actions == history
            for junk in (Action("play", cards=(7,)), Action("upcard", cards=(0,)), Action("name", value=0),
                         Action("for2"), Action("discard", cards=(5,))):
                try:
                    match.engine.apply(junk)
                except Refused:
                    assert match.engine.snapshot() == before
                else:
                    match.rebuild(history)
        match.apply(action)
        n += 1
    again = replay_lines(match.export().splitlines())
    assert again.engine.snapshot() == match.engine.snapshot()
