"""The web page on a journal of 500 bot matches (issue 13 item 3): idle memory and the time to
serve the Players page, for the standard library's http.server (what `card-assistant web` uses)
side by side with bottle serving the very same pages.

    python3 dev.py bench web        # bottle's side is skipped when bottle is not installed

First, the first page after a start (a power cut) and the later ones, from the records kept
beside the journal (web-records.sqlite3) side by side with replaying every match (the file
removed: what every start did until 2 December), with the process's memory.
``BENCH_WEB_MATCHES=5000 python3 dev.py bench web`` builds a journal of 5,000 matches instead.

Printed for each stack: the time to import it, the resident memory (VmRSS) of the idle process on
an empty journal and on the 500 matches (both replay the journal once at start, so this holds the
cached records), the first Players page and the median and p99 of 50 more; and the time one
process takes to replay the 500 matches (what a start costs, or the first page before it is done).
"""
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from assistant.sim.bot_towers import TowersBot
from assistant.sim.bot_twentynine import TwentyNineBot
from assistant.box.journal import SCHEMA
from assistant.rules.match import Match
from assistant.rules.scenario import format_action

MATCHES = int(os.environ.get("BENCH_WEB_MATCHES", "500"))
BOTTLE_APP = r'''
import sys, threading, bottle
from assistant.web.server import Site
from assistant.web import pages
site = Site(sys.argv[1])
threading.Thread(target=site.records, daemon=True).start()  # as card-assistant web: replayed at start
@bottle.route("/players")
def players():
    _, table, over_time = site.players()
    return pages.players_page(table, over_time)
class Quiet(bottle.WSGIRefServer):
    def run(self, app):
        from wsgiref.simple_server import WSGIRequestHandler
        class H(WSGIRequestHandler):
            def log_request(*a, **k): pass
        self.options["handler_class"] = H
        super().run(app)
print(f"serving http://127.0.0.1:{sys.argv[2]}/", file=sys.stderr, flush=True)
bottle.run(server=Quiet, host="127.0.0.1", port=int(sys.argv[2]), quiet=True)
'''


def build(folder):
    """500 bot matches (towers and Twenty-Nine alternately) written as the journal stores them."""
    db = sqlite3.connect(os.path.join(folder, "journal.sqlite3"))
    db.executescript(SCHEMA)
    db.execute("INSERT INTO meta VALUES ('schema', '1')")
    for k in range(MATCHES):
        game = "towers" if k % 2 == 0 else "twenty-nine"
        seats = ("Ann", "Bob") if game == "towers" else ("Ann", "Bob", "Cy", "Di")
        bot = (TowersBot(k, renege_rate=0.03) if game == "towers" else TwentyNineBot(k, renege_rate=0.03))
        m = Match(game, seats)
        while m.engine.phase != "over":
            a = bot.next_action(m.engine)
            if a is None:
                break
            m.apply(a)
        mid = db.execute("INSERT INTO matches (game, seats, options, started) VALUES (?, ?, ?, ?)",
                         (game, json.dumps(seats), "{}", time.time() - (MATCHES - k) * 3600)).lastrowid
        db.executemany("INSERT INTO actions VALUES (?, ?, ?)",
                       [(mid, i, format_action(a, seats)) for i, a in enumerate(m.actions, 1)])
    db.commit()
    db.close()


def rss(pid):
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", text).group(1)) / 1024


def fetch(url):
    """The time to the page; while the journal is being read (503: "reading the journal's matches"),
    asked again every 0.1 s, as a browser that reloads (every 5 s) would, only sooner."""
    t = time.perf_counter()
    while True:
        try:
            with urllib.request.urlopen(url, timeout=120) as r:
                r.read()
            return time.perf_counter() - t
        except urllib.error.HTTPError as e:
            if e.code != 503 or time.perf_counter() - t > 1800:  # a 503 for ever: not a replay
                raise
            time.sleep(0.1)


def import_time(module):
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
            for _ in range(5)]
    return statistics.median(runs)


def idle_empty(cmd):
    """VmRSS (MiB) of the process serving an empty state folder, once listening."""
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    try:
        proc.stderr.readline()
        time.sleep(1.0)
        return rss(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)


def measure(name, cmd, module, empty):
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        base = re.search(r"(http://[\d.]+:\d+)/", line).group(1)
        time.sleep(3.0)
        idle = rss(proc.pid)
        first = fetch(base + "/players")
        times = sorted(fetch(base + "/players") for _ in range(50))
        warm = rss(proc.pid)
        print(f"{name:<18} import {import_time(module) * 1000:6.1f} ms  idle RSS: empty journal {empty:5.1f} MiB, "
              f"500 matches {idle:5.1f} MiB,  "
              f"after pages {warm:5.1f} MiB  Players page: first {first * 1000:7.1f} ms, "
              f"median {statistics.median(times) * 1000:6.1f} ms, p99 {times[-1] * 1000:6.1f} ms", flush=True)
        return statistics.median(times)
    finally:
        proc.terminate()
        proc.wait(10)


def after_a_start(folder, kept):
    """``card-assistant web`` started on ``folder``, its kept records there (``kept`` True), removed
    (False) or "upgraded" (each kept under another key, as after an upgrade that changed the code
    a record is made by: kept.MADE_BY): the time from its "serving" line to the end of the first
    Players page, the median of 20 more, and its memory (VmRSS, MiB) then, and its peak (VmHWM)."""
    from assistant.web.kept import NAME
    path = os.path.join(folder, NAME)
    if not kept and os.path.exists(path):
        os.remove(path)
    if kept == "upgraded":
        db = sqlite3.connect(path)
        db.execute("UPDATE records SET key = 'made by other code ' || key")
        db.commit()
        db.close()
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "web", "--port", "8733", "--state-dir", folder],
                            stderr=subprocess.PIPE, text=True)
    try:
        base = re.search(r"(http://[\d.]+:\d+)/", proc.stderr.readline()).group(1)
        t = time.perf_counter()
        fetch(base + "/players")
        first = time.perf_counter() - t
        later = statistics.median(fetch(base + "/players") for _ in range(20))
        hwm = int(re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{proc.pid}/status").read_text()).group(1)) / 1024
        return first, later, rss(proc.pid), hwm
    finally:
        proc.terminate()
        proc.wait(10)


def starts(folder):
    """The first Players page after a start, replaying every match against from the kept records,
    and after an upgrade that changed the rules (the kept records are another code's: every match
    is replayed, and the file's records replaced). An upgrade that changed no code a record is made
    by (kept.MADE_BY: the OLED's or the page's words, say) starts as "from the kept records"; until
    2 December every upgrade started as "after an upgrade of the rules"."""
    after_a_start(folder, kept=True)  # makes the file
    rows = {"replaying every match": after_a_start(folder, kept=False),
            "from the kept records": after_a_start(folder, kept=True),
            "after an upgrade of the rules": after_a_start(folder, kept="upgraded")}
    for name, (first, later, now, hwm) in rows.items():
        print(f"first Players page after a start, {name:<29}: {first * 1000:8.1f} ms; later ones median "
              f"{later * 1000:6.1f} ms; RSS {now:5.1f} MiB (peak {hwm:5.1f} MiB)", flush=True)
    print(f"first page after a start, kept / replayed: {rows['from the kept records'][0] / rows['replaying every match'][0]:.3f}")


def figures(folder, n=30):
    """The Players page's figures: worked out from every match at each request (until 2 December),
    against kept by the site until a record changes (Site.players), in one process."""
    from assistant.box.stats import standings, wins_over_time
    from assistant.web.site import Site
    site = Site(folder)
    recs = site.records()

    def times(f):
        out = []
        for _ in range(n):
            t = time.perf_counter()
            f()
            out.append(time.perf_counter() - t)
        return sorted(out)
    each = times(lambda: (standings(recs), wins_over_time(recs)))
    site.players()
    kept = times(site.players)
    print(f"Players figures over {MATCHES} matches, {n} requests: worked out at each request median "
          f"{statistics.median(each) * 1000:.1f} ms, p99 {each[-1] * 1000:.1f} ms; kept until a record changes "
          f"(the records read as every page does) median {statistics.median(kept) * 1000:.1f} ms, p99 "
          f"{kept[-1] * 1000:.1f} ms; ratio {statistics.median(kept) / statistics.median(each):.2f}")
    site.close()


def main():
    with tempfile.TemporaryDirectory() as folder:
        t = time.perf_counter()
        build(folder)
        print(f"journal of {MATCHES} bot matches built in {time.perf_counter() - t:.1f} s")
        from assistant.web.history import History
        t = time.perf_counter()
        History(folder).records()
        print(f"replaying the {MATCHES} matches in one process: {time.perf_counter() - t:.2f} s")
        starts(folder)
        figures(folder)
        ours_cmd = [sys.executable, "-m", "assistant.cli", "web", "--port", "8731", "--state-dir"]
        with tempfile.TemporaryDirectory() as nothing:
            empty = idle_empty(ours_cmd + [nothing])
        ours = measure("http.server", ours_cmd + [folder], "http.server", empty)
        try:
            import bottle  # noqa: F401
        except ImportError:
            print("bottle: not installed, skipped (pip install bottle to compare)")
            return
        with tempfile.TemporaryDirectory() as nothing:
            empty = idle_empty([sys.executable, "-c", BOTTLE_APP, nothing, "8732"])
        theirs = measure(f"bottle {bottle.__version__}", [sys.executable, "-c", BOTTLE_APP, folder, "8732"],
                         "bottle", empty)
        print(f"Players page median, bottle / http.server: {theirs / ours:.2f}")


if __name__ == "__main__":
    main()
