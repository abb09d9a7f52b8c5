"""The club board over a season (run by bench_club.py): ``NIGHTS`` club nights of ``TABLES`` tables
and ``MATCHES`` matches a table, in the board's own file as a season leaves it (the real matches
club_memory.py has the bots play, each table's renumbered, received one night a day, the last
night tonight).

Side by side, each in a fresh process: the board that keeps every night in memory (as before:
``Board(..., keep=None)``, the unbounded alternative) and this board (the current night in memory,
older ones in its file, read from it when a page asks): the first start on a file an older board
wrote (it puts the old nights away, one match at a time), beside the same first start as it was
before (its matches' events applied one at a time, a replay of the match so far a towers hand:
patched in, ``as_before``), then its later starts. Printed: the
start-up's seconds and the process's resident memory after it (VmRSS) and at its peak (ru_maxrss),
medians of ``RUNS`` starts; then each page's p50 and p99 over ``REQUESTS`` requests (3 of the board
before, whose every page replays the season's matches, 20 of this one).

    CLUB_SEASON=30x20x2 python3 dev.py bench club        # nights x tables x matches a table
    CLUB_TABLES=none CLUB_MEMORY_FROM=3 python3 dev.py bench club   # a refused match, then the season
    CLUB_SEASON_ALL=no ...    # without the board that keeps every night in memory (minutes a start)
"""
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DAY = 86400
RUNS = int(os.environ.get("CLUB_SEASON_RUNS", "3"))
REQUESTS = (3, 20)  # requests of each page: the board before replays every match of the season for each


def season_file(path, samples, nights, tables, matches):
    """The board's file after ``nights`` nights: every event under its key, received that night."""
    from assistant.club.store import BoardFile
    from assistant.club.message import checked
    f = BoardFile(str(path))
    now = time.time()
    for night in range(nights):
        evening = now - (nights - 1 - night) * DAY - 3 * 3600  # the last night began 3 hours ago
        for k in range(tables):  # as the board stores them: an event a transaction
            table, journal = f"t{k + 1}", f"{k + 1:016x}"
            for m in range(matches):
                mid = night * matches + m + 1
                when = evening + m * 1200 + k
                for body in samples[(k + mid) % len(samples)]:
                    n = body["id"][2]
                    ev = dict(checked(body, n), **({"started": when} if n == 0 else {}))
                    f.add(table, journal, mid, n, json.dumps(ev), when + n - 0.05, when + n)
    f.close()
    return path


def rss_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def players_before(board):
    """``/players`` as the board drew it before (the alternative, measured beside): every older
    night's record read from the file three times a request (standings, wins over time, two tables
    at once), every pair of a player's matches compared."""
    from assistant.box.stats import standings, wins_over_time
    from assistant.club import page
    from assistant.club.standings import GUEST, SLACK, match_name, named
    from assistant.web import pages

    def every():
        k = 0
        for k, rec in enumerate(page.older_records(board), 1):
            yield rec
        for k, rec in enumerate(live, k + 1):
            rec.id = k
            yield rec

    live = page.records(board)
    spans, seated, clashes = board.spans(), {}, []
    for r in every():
        span = spans.get((r.table, r.journal, r.table_match)) or getattr(r, "span", None)
        for name in set(r.seats) if span else ():
            if not GUEST.fullmatch(name):
                seated.setdefault(name, []).append((span, r.table, match_name(r)))
    for name, places in sorted(seated.items()):
        for i, ((a0, a1), ta, ma) in enumerate(places):
            for (b0, b1), tb, mb in places[i + 1:]:
                if ta != tb and min(a1, b1) - max(a0, b0) > SLACK:
                    clashes.append((name, min((ta, *ma), (tb, *mb)), max((ta, *ma), (tb, *mb)),
                                    max(a0, b0), min(a1, b1)))
    table = {g: {k: {n: f for n, f in fs.items() if named(n)} for k, fs in kinds.items()}
             for g, kinds in standings(every()).items()}
    wins = {g: {s: w for s, w in sides.items() if named(s)} for g, sides in wins_over_time(every()).items()}
    return pages.players_page(table, wins, page.NAV, page.clash_note(clashes), page.NO_PLAYERS)


def as_before():
    """The first start as it was before (patched in, for the figures side by side): a match's events
    from the file applied one at a time, as if they came live (a towers discard's stand-in found
    wrong each hand, and the match so far replayed again), its record made by replaying its lines
    once more, and a commit (synced) a match put away."""
    from assistant.club import season
    from assistant.club.replay import BoardMatch
    from assistant.club.store import BoardFile
    add, put_away, match_record = BoardMatch.add, BoardFile.put_away, season.match_record
    BoardMatch.add = lambda self, n, event, more=False: add(self, n, event)
    BoardFile.put_away = lambda self, matches: [put_away(self, [m]) for m in matches]
    season.match_record = lambda k, t, j, run, mid, bm, lines, *rest: match_record(
        k, t, j, run, mid, bm, season.lines_of(bm) if lines is None else lines, *rest)


def worker(path, keep, pages, requests):
    """In a fresh process: start the board on ``path``; print its figures as JSON."""
    from assistant.club.board import Board
    if os.environ.get("SEASON_AS_BEFORE"):
        as_before()
    started = time.perf_counter()
    board = Board(path, "c", keep=None if keep == "all" else float(keep))
    took = time.perf_counter() - started
    out = {"s": took, "rss": rss_mb(), "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "live": len(board.matches), "stored": board.counts["stored"]}
    if pages:
        import urllib.error
        import urllib.request
        from assistant.club.page import serve
        server = serve(board, "127.0.0.1", 0)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        from assistant.club.season import night_of
        night = night_of(time.time() - (int(os.environ["SEASON_NIGHTS"]) - 1) * DAY - 3 * 3600)
        times = {}
        for name, address in (("/ (tonight)", "/"), ("/players (the season)", "/players"),
                              ("/nights", "/nights"), ("/nights/DAY (the first night)", f"/nights/{night}"),
                              ("/matches/t1/1 (the first night)", "/matches/t1/1")):
            took = []
            for _ in range(requests):
                t0 = time.perf_counter()
                try:
                    with urllib.request.urlopen(base + address, timeout=120) as r:
                        status = r.status
                        r.read()
                except urllib.error.HTTPError as e:  # the board before has no older night's page
                    status = e.code
                took.append((time.perf_counter() - t0) * 1000)
            times[name] = (status, *p50_p99(took))
        if keep != "all":  # the same board's /players as drawn before, beside (in this process, no HTTP)
            took = []
            for _ in range(requests):
                t0 = time.perf_counter()
                players_before(board)
                took.append((time.perf_counter() - t0) * 1000)
            times["/players before (3 reads a request)"] = (200, *p50_p99(took))
        out["pages"] = times
        out["rss_after_pages"] = rss_mb()
        server.shutdown()
    board.close()
    print(json.dumps(out))


def p50_p99(took):
    took = sorted(took)
    return took[len(took) // 2], took[min(len(took) - 1, int(len(took) * 0.99))]


def run(path, keep, pages=False, before=False):
    env = dict(os.environ, PYTHONPATH=str(ROOT), SEASON_NIGHTS=os.environ.get("CLUB_SEASON", "30x20x2").split("x")[0],
               SEASON_AS_BEFORE="1" if before else "")
    requests = REQUESTS[keep != "all"]
    done = subprocess.run([sys.executable, __file__, "worker", str(path), keep, "pages" if pages else "",
                           str(requests)],
                          capture_output=True, text=True, env=env)
    if done.returncode:
        sys.exit(f"the board's worker failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def copy(src, dst):
    db = sqlite3.connect(src)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    shutil.copy(src, dst)
    return dst


def season():
    from club_memory import sample_matches
    nights, tables, matches = (int(x) for x in os.environ.get("CLUB_SEASON", "30x20x2").split("x"))
    with tempfile.TemporaryDirectory(prefix="bench-club-season-") as folder:
        samples = sample_matches(folder)
        base = season_file(Path(folder) / "season.sqlite3", samples, nights, tables, matches)
        size = base.stat().st_size / 1e6
        print(f"board over a season: {nights} nights x {tables} tables x {matches} matches a table "
              f"({nights * tables * matches:,} matches), its file {size:.0f} MB; medians of {RUNS} starts, "
              "each in a fresh process")
        print(f"{'board':<44} {'live':>5} {'stored':>8} {'start s':>8} {'RSS MB':>7} {'peak MB':>8}")
        rows = []
        every = os.environ.get("CLUB_SEASON_ALL") != "no"  # no: leave out the board with every night in memory
        for name, keep in ((("every night in memory (before)", "all"),) * every
                           + (("first start, as before (a replay a hand)", "first-before"),
                              ("this board, first start (puts old nights away)", "first"),
                              ("this board, later starts", "later"))):
            figures = []
            for k in range(RUNS):
                if keep.startswith("first"):
                    path = copy(base, Path(folder) / f"{keep}-{k}.sqlite3")
                elif keep == "later":
                    path = Path(folder) / "first-0.sqlite3"
                else:
                    path = base
                figures.append(run(path, "all" if keep == "all" else str(12 * 3600), before=keep == "first-before"))
            med = {k: statistics.median(f[k] for f in figures) for k in ("s", "rss", "peak")}
            print(f"{name:<44} {figures[0]['live']:>5} {figures[0]['stored']:>8} {med['s']:>8.1f} "
                  f"{med['rss']:>7.0f} {med['peak']:>8.0f}", flush=True)
            rows.append(figures)
        print(f"pages, ms over {REQUESTS[0]} / {REQUESTS[1]} requests {'':<17} {'p50':>8} {'p99':>8}   "
              f"{'p50':>8} {'p99':>8}")
        print(f"{'':<44} {'every night in memory':>17}   {'this board':>17}")
        before = run(base, "all", pages=True) if every else {"pages": {}, "rss_after_pages": float("nan")}
        after = run(Path(folder) / "first-0.sqlite3", str(12 * 3600), pages=True)
        for page in after["pages"]:
            b, a = before["pages"].get(page, (0,)), after["pages"][page]
            show = (lambda x: f"{x[1]:>8.0f} {x[2]:>8.0f}" if x[0] == 200 else f"{'(' + str(x[0] or '-') + ')':>17}")
            print(f"{page:<44} {show(b)}   {show(a)}")
        print(f"RSS after the pages: every night in memory {before['rss_after_pages']:.0f} MB, "
              f"this board {after['rss_after_pages']:.0f} MB")


if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        worker(sys.argv[2], sys.argv[3], sys.argv[4] == "pages", int(sys.argv[5]))
    else:
        season()
