"""Towers engine speed: complete random-bot matches per second, actions per second, and the
p50/p99 time of one ``Towers.apply``. Goals (issue 2): >= 200 matches/s, p99 < 50 us.
And one ``undo`` late in whole matches, from the match's marks (engine copies every
``MARK_EVERY`` actions) against a replay from the first action, in the same run.

    python3 dev.py bench towers
"""
import statistics
import time

from assistant.sim.bot_towers import TowersBot, play_match
from assistant.rules.match import MARK_EVERY, Match
from assistant.rules.scenario import Action
from assistant.rules.towers import Towers

ROUNDS, MATCHES = 5, 200


def matches_per_second(seed0):
    actions = 0
    start = time.perf_counter()
    for s in range(seed0, seed0 + MATCHES):
        actions += play_match(Towers(), TowersBot(s))
    elapsed = time.perf_counter() - start
    return MATCHES / elapsed, actions / elapsed


def apply_times(n_matches=200):
    times = []
    clock = time.perf_counter_ns
    for s in range(n_matches):
        engine, bot = Towers(), TowersBot(10_000 + s)
        while engine.phase != "over":
            action = bot.next_action(engine)
            t0 = clock()
            engine.apply(action)
            times.append(clock() - t0)
    times.sort()
    return times


def undo_times(n_matches=20, pairs=100):
    """Per match: its last action played and undone ``pairs`` times; the undo's time with the
    marks a first undo made, and with them dropped each time (a replay from the start)."""
    marked, scratch, lengths = [], [], []
    clock = time.perf_counter_ns
    for s in range(n_matches):
        engine, bot, actions = Towers(), TowersBot(20_000 + s), []
        while engine.phase != "over":
            actions.append(bot.next_action(engine))
            engine.apply(actions[-1])
        m = Match("towers")
        for a in actions[:-1]:
            m.apply(a)
        m.apply(Action("undo"))  # the first undo replays the match once and makes the marks
        lengths.append(len(actions))
        for out, keep in ((marked, True), (scratch, False)):
            for _ in range(pairs):
                m.apply(actions[len(m.actions)])
                if not keep:
                    m._marks.clear()
                t0 = clock()
                m.apply(Action("undo"))
                out.append(clock() - t0)
    return sorted(marked), sorted(scratch), statistics.median(lengths)


def main():
    runs = [matches_per_second(r * MATCHES) for r in range(ROUNDS)]
    mps = statistics.median(r[0] for r in runs)
    aps = statistics.median(r[1] for r in runs)
    times = apply_times()
    p50 = times[len(times) // 2] / 1000
    p99 = times[int(len(times) * 0.99)] / 1000
    print(f"towers: {mps:,.0f} complete random-bot matches/s (median of {ROUNDS} x {MATCHES}; goal 200, "
          f"ratio {mps / 200:.1f}x)")
    print(f"towers: {aps:,.0f} actions/s including the bot's choices")
    print(f"towers: Towers.apply p50 {p50:.1f} us, p99 {p99:.1f} us over {len(times):,} actions "
          f"(goal p99 < 50 us, ratio {50 / p99:.1f}x)")
    marked, scratch, length = undo_times()
    q = lambda t, f: t[int(len(t) * f)] / 1000  # noqa: E731
    print(f"towers: undo late in a match (median {length:.0f} actions), from marks every {MARK_EVERY}: "
          f"p50 {q(marked, .5):.0f} us, p99 {q(marked, .99):.0f} us; replayed from the first action: "
          f"p50 {q(scratch, .5):.0f} us, p99 {q(scratch, .99):.0f} us (ratio {q(scratch, .5) / q(marked, .5):.1f}x)")


if __name__ == "__main__":
    main()
