"""Twenty-Nine engine speed: random-bot rounds per second (bot choices included), actions per
second, and the p50/p99 time of one ``TwentyNine.apply``, overall and per action kind.
Goals (issue 3): >= 1,000 rounds/s on one core, p99 < 50 us.

    python3 dev.py bench twentynine
"""
import statistics
import time

from assistant.sim.bot_twentynine import TwentyNineBot, play_match
from assistant.rules.twentynine import TwentyNine

REPEATS, MATCHES = 5, 100
OPTIONS = {"trick_trumps": "after-call", "pair": "on", "double": "on"}


def rounds_per_second(seed0, options, played_out=False):
    rounds = actions = 0
    habits = dict(finish_rate=0.0, claim_rate=0.0) if played_out else dict(claim_rate=0.02)
    start = time.perf_counter()
    for s in range(seed0, seed0 + MATCHES):
        engine = TwentyNine(options=options)
        actions += play_match(engine, TwentyNineBot(s, renege_rate=0.05, **habits))
        rounds += engine.hand_no
    elapsed = time.perf_counter() - start
    return rounds / elapsed, actions / elapsed


def apply_times(n_matches=300):
    times, by_kind = [], {}
    clock = time.perf_counter_ns
    for s in range(n_matches):
        engine = TwentyNine(options=OPTIONS if s % 2 else None)
        bot = TwentyNineBot(50_000 + s, renege_rate=0.05, claim_rate=0.02)
        while engine.phase != "over":
            action = bot.next_action(engine)
            t0 = clock()
            engine.apply(action)
            dt = clock() - t0
            times.append(dt)
            by_kind.setdefault(action.kind, []).append(dt)
    times.sort()
    return times, by_kind


def pct(sorted_ns, q):
    return sorted_ns[min(len(sorted_ns) - 1, int(len(sorted_ns) * q))] / 1000


def main():
    cases = (("seed rules", None, False), ("options on", OPTIONS, False),
             ("every round played out: no finish, no claim", None, True))
    for label, options, played_out in cases:
        runs = [rounds_per_second(r * MATCHES, options, played_out) for r in range(REPEATS)]
        rps = statistics.median(r[0] for r in runs)
        aps = statistics.median(r[1] for r in runs)
        print(f"twenty-nine ({label}): {rps:,.0f} random-bot rounds/s (median of {REPEATS} x {MATCHES} "
              f"matches; goal 1,000, ratio {rps / 1000:.1f}x); {aps:,.0f} actions/s with the bot")
    times, by_kind = apply_times()
    p50, p99 = pct(times, 0.5), pct(times, 0.99)
    print(f"twenty-nine: TwentyNine.apply p50 {p50:.1f} us, p99 {p99:.1f} us over {len(times):,} actions "
          f"(goal p99 < 50 us, ratio {50 / p99:.1f}x)")
    for kind, ts in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
        ts.sort()
        print(f"  {kind:<9} n={len(ts):>7,}  p50 {pct(ts, 0.5):5.1f} us  p99 {pct(ts, 0.99):5.1f} us")


if __name__ == "__main__":
    main()
