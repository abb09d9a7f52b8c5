"""`card-assistant sim --club`: a club in a box.

A private Mosquitto (generated config: loopback port, password per table, ACL), the
board as its own process (``card-assistant board``) and N simulated boxes. Each box
is the box's own table, journal (with its outbox) and publisher thread, driven by
the game bots at the table layer (``Table.apply``, as the buttons and pads would),
towers and Twenty-Nine at alternate tables, players moving between tables.

``--chaos`` kills the broker and the board with SIGKILL at random moments (both
start again shortly after), drops boxes' connections and takes a box's Wi-Fi away
for a while. At the end every box's journal is compared with the board: each event
stored once, none lost, and the board's scores (its own replay) equal the boxes'.
"""
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

NAMES = ["Ada", "Ben", "Cleo", "Dev", "Elsa", "Finn", "Gwen", "Hugo", "Iris", "Jude", "Kira", "Liam",
         "Mona", "Nils", "Olga", "Pavel", "Rosa", "Sven", "Tara", "Ugo", "Vera", "Wim", "Xena", "Yuri"]
PACE = 0.02  # seconds between two actions at a table: a hundred times real play, not flat out


def roster(count):
    return [f"{NAMES[i % len(NAMES)]}{i // len(NAMES) or ''}" for i in range(count)]


class SimTable(threading.Thread):
    def __init__(self, index, folder, broker, club, matches, seed, pace=PACE):
        super().__init__(name=f"table-{index}", daemon=True)
        from assistant.box.journal import Journal
        from assistant.box.table import Table
        from assistant.club.public import ClubOutbox
        from assistant.club.publisher import Publisher
        from assistant.rules.scenario import GAMES
        self.name_ = f"t{index + 1}"
        self.game = tuple(GAMES)[index % len(GAMES)]  # the club plays every game, table by table
        self.journal = Journal(str(Path(folder) / self.name_ / "journal.sqlite3"))
        self.journal.outbox = ClubOutbox(club, self.name_, self.journal)
        self.table = Table(self.journal, {}, game=self.game)
        self.publisher = Publisher(self.journal, self.journal.outbox, broker.url(self.name_))
        self.matches, self.seed, self.index, self.pace = matches, seed, index, pace
        self.events = 0
        self.error = None

    def run(self):
        try:
            self._play()
        except Exception as e:  # reported at the end, never a traceback
            self.error = f"{type(e).__name__}: {e}"

    def _play(self):
        from assistant.rules.scenario import GAMES
        from assistant.sim.bots import table_bot
        rng = random.Random(self.seed * 7919 + self.index)
        players = roster(200)
        size = GAMES[self.game]  # seats
        for k in range(self.matches):
            seats = rng.sample(players[: max(8, 4 * size)], size)
            self.table.new_match(self.game, {}, seats=tuple(seats))
            self.events += 1
            bot = table_bot(self.game, self.seed * 100000 + self.index * 100 + k, 0.05)
            bot.claim_rate = 0.5
            m = self.table.match
            while m.engine.phase != "over":
                action = bot.next_action(m.engine)
                if action is None:
                    break
                if not self.table.apply(action):
                    raise RuntimeError(f"table {self.name_} refused a bot's action ({self.table.alert})")
                self.events += 1
                time.sleep(self.pace)
            m = self.table.match


def board_process(folder, broker, port, club):
    """The board as the club's service runs it: its password in a file of its own (0600), never
    on its command line, which every user of the machine can read."""
    secret = Path(folder) / "board-password"
    if not secret.exists():
        fd = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(broker.passwords["board"] + "\n")
    log = open(Path(folder) / "board.log", "ab")
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "board", "--broker",
                             f"mqtt://board@127.0.0.1:{broker.port}", "--password-file", str(secret),
                             "--db", str(Path(folder) / "board.sqlite3"), "--port", str(port),
                             "--host", "127.0.0.1", "--club", club],
                            stdout=log, stderr=log, start_new_session=True)
    log.close()
    return proc


def fetch(port, timeout=2):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/club", timeout=timeout) as r:
        return json.load(r)


def _wait_subscribed(port, board, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if board["proc"].poll() is not None:
            raise RuntimeError("the board stopped at start (see board.log)")
        try:
            if fetch(port, 0.5).get("subscribed"):
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError("the board did not subscribe in time (see board.log)")


def cpu_seconds(pid):
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def run_club(tables, matches, seed, chaos=False, out=print, folder=None, pace=PACE):
    """Play the club night; returns (exit status, figures)."""
    from assistant.club.broker import Broker, free_port, held_stops, stop_process
    made = folder is None
    folder = Path(folder or tempfile.mkdtemp(prefix="card-assistant-club-"))
    club = "club"
    names = [f"t{i + 1}" for i in range(tables)]
    broker = Broker(folder / "broker", club, names)
    port = free_port()
    board = {"proc": None, "cpu": 0.0}
    boxes = []
    kills = {"broker": 0, "board": 0, "drops": 0, "offline": 0}
    done = threading.Event()
    chaos_thread = None
    started = time.monotonic()
    try:  # from the broker's start: a Ctrl-C or a stop at any moment leaves no broker or board running
        broker.start()
        if made:  # a new folder each night, kept (the tables' journals): said, or it is never found
            out(f"the night's files (each table's journal, the board's file, the broker's and the board's "
                f"logs) are kept in {folder} (--state-dir DIR keeps them where you say)")
        with held_stops():  # the cleanup below knows the board's process
            board["proc"] = board_process(folder, broker, port, club)
        boxes = [SimTable(i, folder, broker, club, matches, seed, pace) for i in range(tables)]
        _wait_subscribed(port, board)
        for b in boxes:
            b.publisher.start()
            b.start()
        if chaos:
            chaos_thread = threading.Thread(target=_chaos, args=(random.Random(seed), broker, board, boxes,
                                                                 folder, port, club, kills, done), daemon=True)
            chaos_thread.start()
        for b in boxes:
            b.join()
        done.set()
        if chaos_thread is not None:
            chaos_thread.join()
        play_time = time.monotonic() - started
        for b in boxes:
            b.publisher.offline.clear()
        deadline = time.monotonic() + 120
        expected = sum(b.events for b in boxes)
        snap = None
        while time.monotonic() < deadline:
            try:
                snap = fetch(port)
                if all(b.publisher.idle() for b in boxes) and snap["counts"]["stored"] >= expected \
                        and not any(m["waiting"] for t in snap["tables"] for m in t["matches"]):
                    break
            except OSError:
                pass
            time.sleep(0.2)
        drain_time = time.monotonic() - started - play_time
        snap = snap or {"tables": [], "counts": {"stored": 0}}
        board["cpu"] += cpu_seconds(board["proc"].pid)
        errors = [f"table {b.name_}: {b.error}" for b in boxes if b.error]
        status, figures = _compare(boxes, snap, folder, out)
        figures["events_per_s"] = figures["published"] / max(play_time, 1e-9)
        figures.update(tables=tables, matches=matches, play_s=play_time, drain_s=drain_time,
                       board_cpu_s=board["cpu"], **kills)
        for e in errors:
            out(e)
        if chaos:
            out(f"chaos: broker killed {kills['broker']}x, board killed {kills['board']}x, "
                f"connections dropped {kills['drops']}x, Wi-Fi off {kills['offline']}x")
        out(f"board: {figures['events_per_s']:.0f} events/s over {play_time:.1f} s of play, "
            f"board CPU {board['cpu']:.1f} s, all stored {drain_time:.1f} s after play ended")
        out(f"club: {tables} tables, {matches} matches each, events published {figures['published']}, "
            f"stored {figures['stored']}, lost {figures['lost']}, doubled {figures['doubled']}; "
            f"publish -> board p50 {figures['p50']:.0f} ms p99 {figures['p99']:.0f} ms")
        return (1 if errors else status), figures
    finally:
        with held_stops():  # a second Ctrl-C cut this short: broker and board ran on
            done.set()  # the chaos ends first: else it could start a broker or a board after the stop
            if chaos_thread is not None:
                chaos_thread.join()
            for b in boxes:
                b.publisher.stop()
                b.journal.close()
            if board["proc"] is not None:
                stop_process(board["proc"])
            broker.stop()


def _chaos(rng, broker, board, boxes, folder, port, club, kills, done):
    while not done.wait(rng.uniform(0.3, 1.2)):
        what = rng.choice(("broker", "board", "drop", "drop", "offline"))
        if what == "broker":
            broker.kill()
            kills["broker"] += 1
            time.sleep(rng.uniform(0.1, 0.6))
            broker.start()
        elif what == "board":
            proc = board["proc"]
            board["cpu"] += cpu_seconds(proc.pid)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills["board"] += 1
            time.sleep(rng.uniform(0.1, 0.6))
            board["proc"] = board_process(folder, broker, port, club)
        elif what == "drop":
            rng.choice(boxes).publisher.drop()
            kills["drops"] += 1
        else:
            box = rng.choice(boxes)
            box.publisher.offline.set()
            kills["offline"] += 1
            threading.Timer(rng.uniform(0.5, 2.0), box.publisher.offline.clear).start()


def _compare(boxes, snap, folder, out):
    """Every box's journal against the board: events lost or doubled, and the scores."""
    import sqlite3
    board_matches = {(t["table"], m["journal"], m["match"]): m for t in snap["tables"] for m in t["matches"]}
    published = lost = doubled = 0
    mismatched = []
    for b in boxes:
        j = b.journal
        for mid in j.match_ids():
            match, rows, _ = j.read(mid)
            want = len(rows) + 1  # the start and every action
            published += want
            got = board_matches.get((b.name_, j.name(), mid))
            have = 0 if got is None else got["events"] + 1
            lost += max(0, want - have)
            doubled += max(0, have - want)
            s = match.state()
            if got is None or got["score"] != s["score"] or got["winner"] != s["winner"]:
                mismatched.append(f"{b.name_} match {mid}: box {s['score']} board "
                                  f"{None if got is None else got['score']}")
    from assistant.box.journal_files import read_only_uri
    db = sqlite3.connect(read_only_uri(str(Path(folder) / 'board.sqlite3')), uri=True)
    stored = db.execute("SELECT count(*) FROM events").fetchone()[0]
    lat = sorted((r[0] - r[1]) * 1000 for r in db.execute("SELECT received, t FROM events WHERE t IS NOT NULL"))
    db.close()
    p50 = statistics.median(lat) if lat else 0.0
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else 0.0
    for line in mismatched[:10]:
        out(f"score differs: {line}")
    figures = {"published": published, "stored": stored, "lost": lost, "doubled": doubled, "p50": p50,
               "p99": p99, "mismatched": len(mismatched), "events_per_s": 0.0}
    return (0 if not lost and not doubled and not mismatched and stored == published else 1), figures
