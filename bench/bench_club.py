"""Club night at scale (issue 14, item 6): 10, 25 and 50 tables through one Mosquitto and one board;
and the board's memory for a club night and for one table's password sending match after match.

    python3 dev.py bench club              # the store, memory, then 10, 25, 50 tables, 1 match each, calm and with chaos
    CLUB_TABLES=10 CLUB_MATCHES=2 python3 dev.py bench club   # other sizes
    CLUB_TABLES=50 CLUB_PACE=0.2 CLUB_CHAOS=no python3 dev.py bench club   # a slower pace, calm only
    CLUB_TABLES=none python3 dev.py bench club                # the store and memory parts only
    CLUB_TABLES=none CLUB_MEMORY_FROM=1 python3 dev.py bench club   # its attacks only (not the night)
    CLUB_TABLES=none CLUB_MEMORY_FROM=3 python3 dev.py bench club   # a refused match, then the season (club_season.py)
    CLUB_SEASON=30x20x2 ...                                          # its nights x tables x matches; none: skip it
    CLUB_STORE=no ...                                                # skip the store's commit (below)

Memory (club_memory.py): the board in this process, fed a club night's events (40 tables of 30
matches, real matches the bots played, each table's renumbered) and, on a fresh board, one table's
5,000 match starts; Python's own count of what the board holds (tracemalloc), the SQLite file apart.
Season (club_season.py): the board started on a season's file, every night in memory (as before)
and the current night only (this board): start-up seconds and resident memory, and its pages.

Store: one event stored in the board's file (store.BoardFile.add, 500 events, median and p99), with
the commit synced (synchronous=FULL: the board acknowledges an event to the broker once stored, so
a power cut must not take it back) side by side with synchronous=NORMAL (a killed process keeps the
commit, a power cut may not), on the disk the bench runs from.

Each run is ``card-assistant sim --club`` (assistant/club/club_sim.py): a private Mosquitto, the
board as its own process and N boxes whose bots play at a fast pace (club_sim.PACE between two
actions at a table) in one process. Printed per run: events published and stored, lost and
doubled (from every box's journal against the board), events per second over the play, the
latency from the box's journal commit to the board's commit (p50, p99) and the board's CPU time
(its share of the play's wall time is its load). Side by side: the same with --chaos (broker
and board killed with SIGKILL, connections dropped, a box's Wi-Fi off for a while).
"""
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from assistant.club.club_sim import PACE, run_club


def store_commit():
    from assistant.club import store
    print("the board storing one event (500 events):")
    medians, kept = {}, store.SYNCHRONOUS
    for mode in ("NORMAL", "FULL", "NORMAL", "FULL"):
        store.SYNCHRONOUS = mode
        with tempfile.TemporaryDirectory(dir=Path(__file__).resolve().parent.parent) as folder:
            board = store.BoardFile(os.path.join(folder, "board.sqlite3"))
            times = []
            for n in range(1, 501):
                t = time.perf_counter()
                board.add("t1", "journal", 1, n, '{"a": "play 9H"}', 0.0, float(n))
                times.append(time.perf_counter() - t)
            board.db.close()
        times.sort()
        medians[mode] = statistics.median(times)
        print(f"   synchronous={mode:<6} median {medians[mode] * 1000:.2f} ms, p99 {times[494] * 1000:.2f} ms")
    store.SYNCHRONOUS = kept
    print(f"   FULL / NORMAL (last runs' medians) {medians['FULL'] / medians['NORMAL']:.1f}")


def main():
    from club_memory import memory
    if os.environ.get("CLUB_STORE") != "no":
        store_commit()
    from club_season import season
    memory()
    if os.environ.get("CLUB_SEASON") != "none":
        season()
    if os.environ.get("CLUB_TABLES") == "none":
        return
    tables = [int(x) for x in os.environ.get("CLUB_TABLES", "10,25,50").split(",")]
    matches = int(os.environ.get("CLUB_MATCHES", "1"))
    pace = float(os.environ.get("CLUB_PACE", PACE))
    chaos_runs = (False, True) if os.environ.get("CLUB_CHAOS", "both") == "both" else (False,)
    print(f"{matches} match(es) a table, {pace * 1000:.0f} ms between two actions at a table")
    print(f"{'tables':>6} {'chaos':>5} {'events':>7} {'lost':>4} {'dbl':>3} {'ev/s':>6} "
          f"{'p50 ms':>7} {'p99 ms':>7} {'board CPU s':>11} {'of play':>7}")
    for n in tables:
        for chaos in chaos_runs:
            with tempfile.TemporaryDirectory(prefix="bench-club-") as folder:
                status, f = run_club(n, matches, 1, chaos, out=lambda line: None, folder=folder,
                                     pace=pace)
            share = f["board_cpu_s"] / max(f["play_s"] + f["drain_s"], 1e-9)
            print(f"{n:>6} {'yes' if chaos else 'no':>5} {f['published']:>7} {f['lost']:>4} {f['doubled']:>3} "
                  f"{f['events_per_s']:>6.0f} {f['p50']:>7.0f} {f['p99']:>7.0f} {f['board_cpu_s']:>11.1f} "
                  f"{share:>6.0%}{'' if status == 0 else '  FAILED'}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
