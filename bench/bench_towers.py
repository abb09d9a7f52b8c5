"""Towers engine speed: complete random-bot matches per second, actions per second, and the
p50/p99 time of one ``Towers.apply``. Goals (issue 2): >= 200 matches/s, p99 < 50 us.

    python3 dev.py bench towers
"""
import statistics
import time

from assistant.sim.bot_towers import TowersBot, play_match
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


if __name__ == "__main__":
    main()
