"""Undo rebuilds the match from marks (copies of the engine), never from the whole log each time.

Fault covered: an independent check of `card-assistant replay` found that every `undo` replayed
the match from its first action, so a file of play and undo lines (or a long evening of undos)
took time in proportion to the match for each one. The log stays the truth: the state after any
mix of actions and undos must equal a fresh replay of the actions in effect.
"""
import random

from hypothesis import HealthCheck, given, settings, strategies as st

from assistant.rules import match as match_module
from assistant.rules.match import MARK_EVERY, Match
from assistant.rules.scenario import Action
from assistant.sim.bot_towers import TowersBot
from assistant.sim.bot_twentynine import TwentyNineBot

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BOTS = {"towers": lambda seed: TowersBot(seed=seed, renege_rate=0.1, claim_rate=0.3, accuse_rate=0.05),
        "twenty-nine": lambda seed: TwentyNineBot(seed, renege_rate=0.1)}


def fresh(m):
    """The same actions replayed into a new match: what the log says the state is."""
    again = Match(m.game, m.seats, m.options)
    for a in m.actions:
        again.apply(a)
    return again.engine.snapshot()


def bot_match(game, seed):
    """The actions of one whole match a bot plays (reneges, claims and accusations among them)."""
    bot, m = BOTS[game](seed), Match(game)
    while (action := bot.next_action(m.engine)) is not None:
        m.apply(action)
    return m.actions


@SETTINGS
@given(game=st.sampled_from(sorted(BOTS)), seed=st.integers(0, 2**32), undo_rate=st.sampled_from([0.02, 0.2]))
def test_the_state_after_undos_is_the_replay_of_the_actions_in_effect(game, seed, undo_rate):
    """A bot's match played again with undos of one to forty actions anywhere, each undone action
    then played again (marks reused, dropped and made again): after each undo, the engine
    equals a fresh replay of the log."""
    script, rng, m = bot_match(game, seed), random.Random(seed), Match(game)
    undos = 60  # undo events at most, so the match gets to its end
    while len(m.actions) < len(script):
        if m.actions and undos and rng.random() < undo_rate:
            undos -= 1
            for _ in range(rng.choice((1, 1, 2, 5, 40))):
                if m.actions:
                    m.apply(Action("undo"))
            assert m.engine.snapshot() == fresh(m)
            continue
        m.apply(script[len(m.actions)])
    assert m.engine.snapshot() == fresh(m)


def test_an_undo_in_a_long_match_replays_at_most_the_actions_since_a_mark(monkeypatch):
    """The replayed actions per undo do not grow with the match: a first undo replays the match
    once (and makes its marks), each later one at most MARK_EVERY actions and the new ones."""
    script, m = bot_match("towers", 11), Match("towers")
    assert len(script) > 10 * MARK_EVERY + 1
    for action in script[:10 * MARK_EVERY]:
        m.apply(action)
    applied = []
    real = m._cls.apply
    monkeypatch.setattr(m._cls, "apply", lambda self, a: applied.append(a) or real(self, a))
    m.apply(Action("undo"))
    assert len(applied) == len(m.actions)  # the first undo: the whole match, once
    for _ in range(200):  # a play and its undo, again and again, as in a file of them
        applied.clear()
        m.apply(script[len(m.actions)])
        m.apply(Action("undo"))
        assert len(applied) <= MARK_EVERY + 1
    assert m.engine.snapshot() == fresh(m)


def test_a_refused_rebuild_changes_nothing_and_keeps_its_marks():
    """A rebuild that a refusal stops leaves the match, and the marks that serve it, as they were."""
    m = Match("towers")
    for action in bot_match("towers", 5)[:3 * MARK_EVERY]:
        m.apply(action)
    m.apply(Action("undo"))
    before, marks = (list(m.actions), m.engine.snapshot()), dict(m._marks)
    bad = m.actions[:MARK_EVERY] + [Action("flip", cards=())] + m.actions[MARK_EVERY:]
    try:
        m.rebuild(bad)
    except match_module.Refused:
        pass
    else:
        raise AssertionError("an empty flip in the middle of a hand was accepted")
    assert (list(m.actions), m.engine.snapshot()) == before
    assert m._marks == marks
