"""The club board's memory (run by bench_club.py): a club night, and one table's password sending
match start after match start.

Real matches first: the bots play three of towers and three of Twenty-Nine at the table layer, each
with its journal and club outbox, and their event messages are kept. A club night is 40 tables of
30 matches: every table gets those matches in turn, renumbered as its own (its table, its journal's
name, match 1 to 30), through ``Board.receive`` as paho gives them. The attacks are a fresh board
taking 5,000 match starts from one table, and one taking 100 real matches from one table (a night
is 30). ``CLUB_MEMORY_FROM=1`` skips the night (which takes minutes). Then the time a board takes
for one match with an action the rules refuse halfway (a box of an older version, or a lying one):
its events after the refusal, each replaying the whole match again as before and as the board
does now (kept as rebuilt), beside the same match with nothing refused. Printed: the matches the
board holds, the events it stored and refused, and what its Python objects take (tracemalloc: the
current size after the feed, the peak during it), the SQLite file on disk apart. Runs on the board
of any version (an older one ignores the journal's name), so the figures before and after a change
sit side by side.
"""
import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TABLES, MATCHES, STARTS = 40, 30, 5000


def sample_matches(folder):
    """Six real matches' event bodies, in order, as their boxes sent them."""
    from assistant.box.journal import Journal
    from assistant.box.table import Table
    from assistant.club.public import ClubOutbox
    from assistant.sim.bots import table_bot
    out = []
    for game, seats in (("towers", ("Ann", "Bob")), ("twenty-nine", ("Ann", "Bob", "Cat", "Dan"))):
        for seed in (1, 2, 3):
            j = Journal(str(Path(folder) / f"{game}-{seed}" / "journal.sqlite3"))
            j.outbox = ClubOutbox("c", "t", j)
            t, bot = Table(j, {}, game=game), table_bot(game, seed, 0.05)
            t.new_match(game, {}, seats=seats)
            while t.match.engine.phase != "over":
                assert t.apply(bot.next_action(t.match.engine))
            out.append([json.loads(p) for _, topic, p in j.outbox_rows(0, 100_000) if topic.endswith("/events")])
            j.close()
    return out


def feed(board, messages):
    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    started = time.perf_counter()
    for topic, payload in messages:
        board.receive(topic, payload)
    took = time.perf_counter() - started
    now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (now - before) / 1e6, (peak - before) / 1e6, took


def night(samples):
    for k in range(TABLES):
        table = f"t{k + 1}"
        for mid in range(1, MATCHES + 1):
            for body in samples[(k + mid) % len(samples)]:
                body = dict(body, id=[table, mid, body["id"][2]], journal=f"{k + 1:016x}")
                yield f"club/c/{table}/events", json.dumps(body).encode()


def one_table(samples, matches=100):
    """One table's password sending real matches, one after another, past a night's."""
    for mid in range(1, matches + 1):
        for body in samples[mid % len(samples)]:
            yield "club/c/t1/events", json.dumps(dict(body, id=["t1", mid, body["id"][2]],
                                                      journal="00000000000000bb")).encode()


def starts():
    for mid in range(1, STARTS + 1):
        yield "club/c/t1/events", json.dumps({"v": 1, "id": ["t1", mid, 0], "kind": "start", "game": "twenty-nine",
                                              "seats": ["Ann", "Bob", "Cat", "Dan"], "options": {},
                                              "journal": "00000000000000aa", "started": 1.7e9 + mid}).encode()


def memory():
    from assistant.club.board import Board
    with tempfile.TemporaryDirectory(prefix="bench-club-memory-") as folder:
        samples = sample_matches(folder)
        lengths = sorted(len(s) for s in samples)
        print(f"board memory: real matches of {lengths[0]} to {lengths[-1]} events; tracemalloc, "
              "the SQLite file apart")
        print(f"{'case':<40} {'matches':>7} {'stored':>7} {'refused':>7} {'MB now':>7} {'MB peak':>7} {'s':>6}")
        cases = ((f"a club night: {TABLES} tables x {MATCHES} matches", night(samples)),
                 (f"one table's password: {STARTS:,} starts", starts()),
                 ("one table's password: 100 real matches", one_table(samples)))
        for name, messages in cases[int(os.environ.get("CLUB_MEMORY_FROM", "0")):]:
            board = Board(str(Path(folder) / f"board-{len(name)}.sqlite3"), "c")
            now, peak, took = feed(board, messages)
            print(f"{name:<40} {len(board.matches):>7} {board.counts['stored']:>7} {board.counts['refused']:>7} "
                  f"{now:>7.1f} {peak:>7.1f} {took:>6.1f}", flush=True)
            board.close()
        refused(samples)


def with_refusal(sample):
    """The match's events with its play halfway through played again (refused by the rules), then
    ``AFTER`` more events: the rest of the match, and plays past its end."""
    k = next(k for k in range(len(sample) // 2, len(sample)) if sample[k - 1].get("line", "").startswith("play "))
    out = sample[:k] + [sample[k - 1]] + sample[k:]
    out += [dict(sample[k - 1])] * max(0, k + 1 + AFTER - len(out))
    return k, out


AFTER = 300  # events after the refused action
RUNS = 5     # boards fed each way: the median


def refused(samples):
    """Seconds a board takes for a match refused halfway, as before (replayed whole at each later
    event) and now, beside the match with nothing refused: the median of ``RUNS`` fresh boards."""
    import logging
    import statistics
    from unittest import mock
    from assistant.club.board import Board
    from assistant.club.replay import BoardMatch
    sample = max(samples, key=len)
    k, bodies = with_refusal(sample)

    def took(bodies, folder, name):
        board = Board(str(Path(folder) / f"{name}.sqlite3"), "c")
        messages = [("club/c/t1/events", json.dumps(dict(b, id=["t1", 1, n], journal="00000000000000cc")).encode())
                    for n, b in enumerate(bodies)]
        started = time.perf_counter()
        for topic, payload in messages:
            board.receive(topic, payload)
        out = time.perf_counter() - started, board.matches[("t1", "00000000000000cc", 1)].problem
        board.close()
        return out

    print(f"a match of {len(sample)} events refused by the rules at action {k}, then {len(bodies) - k - 1} "
          f"events: seconds for all its events (median of {RUNS})")
    logging.getLogger("assistant.club.board").setLevel(logging.ERROR)  # its one line a board, RUNS times
    clean, before, now, problems = [], [], [], set()
    with tempfile.TemporaryDirectory(prefix="bench-club-refused-") as folder:
        for run in range(RUNS):
            clean.append(took(sample, folder, f"clean{run}")[0])
            with mock.patch.object(BoardMatch, "_may_change", lambda self, event: True):  # replayed whole, as before
                s, problem = took(bodies, folder, f"before{run}")
            before.append(s)
            s, problem_now = took(bodies, folder, f"now{run}")
            now.append(s)
            problems |= {problem, problem_now}
    logging.getLogger("assistant.club.board").setLevel(logging.NOTSET)
    assert len(problems) == 1, problems  # refused at the same action, both ways
    clean, before, now = (statistics.median(x) for x in (clean, before, now))
    print(f"{'nothing refused':<40} {clean:>6.2f}\n{'refused, replayed at each event (before)':<40} {before:>6.2f}\n"
          f"{'refused, kept as rebuilt (now)':<40} {now:>6.2f}", flush=True)


if __name__ == "__main__":
    memory()
