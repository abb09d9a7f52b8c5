"""The web page (issue 13 items 3 and 6): JSON as replay gives it, the scenario download round
trip, names escaped, no path traversal, bounded requests, read-only, off unless enabled."""
import contextlib
import hashlib
import http.client
import json
import subprocess
import sys
import threading

import pytest

from assistant.box.journal import Journal
from assistant.replay import replay_lines
from assistant.rules.scenario import read_header
from assistant.web.server import make_server
from test_stats import MATCHES, SCN, write_journal


@contextlib.contextmanager
def served(folder):
    """The web page of the state folder ``folder``, serving until the block ends: its port."""
    server = make_server(str(folder), "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        server.site.close()


def played_by(folder, seats):
    """One more match in ``folder``'s journal, MATCHES[0]'s actions played by ``seats``."""
    j = Journal(str(folder / "journal.sqlite3"))
    sc = read_header((SCN / MATCHES[0]).read_text(encoding="utf-8").splitlines())
    j.new_match(sc.game, seats, sc.options)
    for _, action in sc.actions():
        j.append(action)
    j.close()


def begun(folder, n):
    """``n`` towers matches begun in ``folder``'s journal, each abandoned by the next."""
    j = Journal(str(folder / "journal.sqlite3"))
    for _ in range(n):
        j.new_match("towers", ("Ann", "Bob"), {})
    j.close()


@pytest.fixture
def site(tmp_path):
    write_journal(tmp_path)
    with served(tmp_path) as port:
        yield tmp_path, port


def request(port, method, path, body=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, dict(r.getheaders()), data.decode("utf-8", "replace")


def test_api_matches_score_and_winner_exactly_as_replay_json(site):
    folder, port = site
    status, _, text = request(port, "GET", "/api/matches")
    got = json.loads(text)
    assert status == 200 and [m["state"] for m in got] == [
        "finished", "finished", "abandoned", "finished", "finished", "in play"]
    for m in got:  # the journal keeps the time of each match's latest action: when it finished
        assert (m["finished"] is not None) == (m["state"] == "finished")
        assert m["finished"] is None or m["finished"] >= m["started"]
    for m, name in zip(got, MATCHES):
        state = replay_lines((SCN / name).read_text(encoding="utf-8").splitlines()).state()
        assert (m["score"], m["winner"], m["seats"], m["game"]) == (
            state["score"], state["winner"], state["seats"], state["game"])


def test_scenario_download_replays_to_the_same_final_state(site):
    """The bug report round trip; the match in play is refused (409): it holds hidden cards."""
    folder, port = site
    for mid, name in enumerate(MATCHES[:5], 1):
        status, headers, text = request(port, "GET", f"/api/matches/{mid}/scenario")
        assert status == 200 and f'match-{mid}.scn' in headers["Content-Disposition"]
        want = replay_lines((SCN / name).read_text(encoding="utf-8").splitlines())
        assert replay_lines(text.splitlines()).engine.snapshot() == want.engine.snapshot()
    status, _, text = request(port, "GET", "/api/matches/6/scenario")
    assert status == 409 and "hidden" in text
    assert request(port, "GET", "/api/matches/99/scenario")[0] == 404


def test_every_page_answers(site):
    folder, port = site
    for path in ("/", "/matches", "/matches/1", "/matches/4", "/matches/6", "/players", "/api/now",
                 "/api/players", "/static/style.css", "/static/now.js"):
        status, headers, text = request(port, "GET", path)
        assert status == 200, path
        assert "default-src 'none'" in headers["Content-Security-Policy"]
    players = json.loads(request(port, "GET", "/api/players")[2])
    assert players["standings"]["towers"]["players"]["P2"]["won"] == 2


def test_names_are_escaped(tmp_path):
    """Item 6: a player named <script>alert(1)</script> is shown as text, on every page."""
    j = Journal(str(tmp_path / "journal.sqlite3"))
    evil = "<script>alert(1)</script>"
    sc = read_header((SCN / MATCHES[0]).read_text(encoding="utf-8").splitlines())
    j.new_match("towers", (evil, "Bob&Co"), {})
    for _, a in sc.actions():
        j.append(a)
    j.new_match("towers", ('"><img src=x>', "Bob&Co"), {})
    j.close()
    server = make_server(str(tmp_path), "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        for path in ("/", "/matches", "/matches/1", "/matches/2", "/players"):
            text = request(port, "GET", path)[2]
            assert "<script>alert" not in text and "<img src=x" not in text, path
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in request(port, "GET", "/players")[2]
        assert json.loads(request(port, "GET", "/api/matches")[2])[0]["seats"][0] == evil
    finally:
        server.shutdown()
        server.server_close()


def test_no_path_traversal_and_bounded_requests(site):
    """Item 6: only the named static files are served; long lines, bodies and writes refused."""
    folder, port = site
    for path in ("/static/../journal.sqlite3", "/static/%2e%2e/%2e%2e/etc/passwd", "/static/style.css/..",
                 "/../journal.sqlite3", "//etc/passwd", "/static/journal.sqlite3", "/matches/1/../../x",
                 "/api/matches/-1/scenario", "/api/matches/1%2f..%2f/scenario"):
        status, _, text = request(port, "GET", path)
        assert status == 404 and "schema" not in text, path
    assert request(port, "GET", "/" + "a" * 5000)[0] == 414
    assert request(port, "GET", "/", body="x" * 10, headers={"Content-Length": "10"})[0] == 413
    for method in ("POST", "PUT", "DELETE"):
        assert request(port, method, "/api/matches")[0] == 405


def test_read_only_the_journal_is_never_changed(site):
    folder, port = site
    path = folder / "journal.sqlite3"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    for p in ("/", "/matches", "/players", "/api/players", "/api/matches/1/scenario"):
        request(port, "GET", p)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    j = Journal(str(path))  # the daemon can still write while the web page reads
    j.resume()
    j.new_match("towers", ("P1", "P2"), {})
    j.close()
    assert len(json.loads(request(port, "GET", "/api/matches")[2])) == 7


def test_off_unless_enabled_in_the_config(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[paths]\nstate_dir = "{tmp_path}"\n')
    r = subprocess.run([sys.executable, "-m", "assistant.cli", "web", "--config", str(cfg)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and "off" in r.stderr and "Traceback" not in r.stderr
    cfg.write_text(f'[paths]\nstate_dir = "{tmp_path}"\n[web]\nport = 70000\n')
    r = subprocess.run([sys.executable, "-m", "assistant.cli", "web", "--config", str(cfg)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "[web] port 70000" in r.stderr


def test_dev_py_web_makes_its_play_folder_private(tmp_path, monkeypatch):
    """Fault: `python3 dev.py web` made .play/ 0755 (the umask's), though its journal holds the
    face-down trumps and discards: now 0700 like the daemon's state folder, also when an earlier
    run left it 0755."""
    import os
    from pathlib import Path
    from test_sim_fixes import load_dev
    dev = load_dev()
    monkeypatch.setattr(dev, "ROOT", tmp_path)
    monkeypatch.setattr(dev, "BIN", Path(sys.executable).parent)

    start = dev.card_assistant

    def stop_before_the_bots(*cmd, **kw):  # the page is started; Ctrl-C as the bots would start
        if cmd[0] == "sim":
            raise KeyboardInterrupt
        return start(*cmd, **kw)
    monkeypatch.setattr(dev, "card_assistant", stop_before_the_bots)
    old = os.umask(0o022)
    try:
        dev.web(["--port", "0"])
        assert (tmp_path / ".play").stat().st_mode & 0o777 == 0o700
        os.chmod(tmp_path / ".play", 0o755)
        dev.web(["--port", "0"])
        assert (tmp_path / ".play").stat().st_mode & 0o777 == 0o700
    finally:
        os.umask(old)


def test_a_match_whose_actions_were_all_lost_says_so(tmp_path):
    """Fault: a match whose every action the storage lost (or the box set aside after damage)
    showed as "abandoned 0-0", as if it had been played to nothing. Now its score says "no
    actions kept", and why when the journal knows (rows set aside after damage)."""
    import sqlite3
    from journal_faults import fill
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 12), ("towers-random.scn", 12), ("towers-random.scn", 5)))
    db = sqlite3.connect(path)
    db.execute("DELETE FROM actions WHERE match=1")  # lost by the storage
    db.execute("UPDATE actions SET line='play QQ' WHERE match=2 AND seq=1")  # unreadable from the first
    db.commit()
    db.close()
    j = Journal(str(path))  # the box's next start sets match 2's rows aside
    j.resume(2)
    j.close()
    with served(tmp_path) as port:
        got = json.loads(request(port, "GET", "/api/matches")[2])
        assert [(m["state"], m["actions"]) for m in got] == [("abandoned", 0), ("abandoned", 0), ("in play", 5)]
        assert got[0]["note"] == "no actions kept"
        assert got[1]["note"].startswith("no actions kept: 12 set aside after journal damage")
        assert got[2]["note"] is None
        listing = request(port, "GET", "/matches")[2]
        rows = {int(r.split('"/matches/')[1].split('"')[0]): r for r in listing.split("<tr>")[2:]}
        for mid in (1, 2):
            assert "no actions kept" in rows[mid] and "Cy 0<" not in rows[mid]
        assert "Cy 0<" in rows[3]  # the match in play: 0 to 0 it is
        one = request(port, "GET", "/matches/1")[2]
        assert "No actions kept." in one and "0 – 0" not in one


def test_now_shows_the_box_screen_only_while_it_matches_the_journal(site):
    """The Now page is the OLED's View (its alert, the last trick and its winner) when the
    daemon's screen file belongs to the journal's latest match at its latest row; a file the
    journal has moved past, a damaged one or none: the table rebuilt from the journal, which says so."""
    import sqlite3
    from assistant.box.screen_file import FILE, ScreenFile
    from assistant.box.view import Alert, View
    folder, port = site
    db = sqlite3.connect(folder / "journal.sqlite3")
    rows = db.execute("SELECT count(*) FROM actions WHERE match=6").fetchone()[0]
    db.close()
    view = View(game="twenty-nine", seats=("P1", "P2", "P3", "P4"), phase="play", prompt="P2 takes trick 3",
                score=(0, 1), turn=1, trick=((0, 8), (1, 9), (2, 10), (3, 11)), trick_no=3,
                alert=Alert("renege", "P2 failed to follow ♥ (trick 3)"))
    screen = ScreenFile(folder / "run")

    def now():
        return json.loads(request(port, "GET", "/api/now")[2])
    assert now()["source"] == "journal"  # no box running
    screen.write(view, 6, rows)
    got = now()
    assert got["source"] == "box" and got["view"]["alert"] == {"kind": "renege", "text": "P2 failed to follow ♥ (trick 3)"}
    assert got["view"]["prompt"] == ["P2 takes trick 3"] and len(got["view"]["trick"]) == 4
    status, headers, board = request(port, "GET", "/now/board")
    assert "RENEGE!" in board and "P2 takes trick 3" in board and headers["X-Board-Version"] == got["version"]
    assert "P2 failed to follow" in request(port, "GET", "/")[2]
    screen.write(view, 6, rows - 1)  # the journal has one row more: the file lags
    assert now()["source"] == "journal"
    screen.write(view, 5, rows)  # another match's
    assert now()["source"] == "journal"
    (folder / "run" / FILE).write_text("{half a fi")
    got = now()
    assert got["source"] == "journal" and got["view"]["alert"] is None
    assert "Rebuilt from the journal" in request(port, "GET", "/now/board")[2]


def test_the_box_writes_its_screen_privately_and_removes_it_when_it_stops(tmp_path, caplog):
    """The daemon's screen file: 0600 in a 0700 folder (as the journal), gone when the box stops
    (the Now page then says the table is the journal's); a folder that cannot take it is said
    once in the log and the box plays on."""
    import os
    from assistant.box.screen_file import FILE
    from assistant.sim.simulator import SimBox
    sim = SimBox(tmp_path / "a").start()
    try:
        path = tmp_path / "a" / "run" / FILE
        assert json.loads(path.read_text())["view"]["phase"] == "menu"
        assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    finally:
        sim.stop()
    assert not path.exists()
    os.makedirs(tmp_path / "b")
    (tmp_path / "b" / "run").write_text("a file where the folder would go")
    sim = SimBox(tmp_path / "b").start()
    try:
        sim.press("right")
        sim.press("left")
        assert sim.box.handled >= 3
    finally:
        sim.stop()
    assert [r.message for r in caplog.records].count(next(
        r.message for r in caplog.records if "screen for the web page" in r.message)) == 1


def test_sim_pace_lets_a_person_watch_and_refuses_nonsense(capsys):
    """`dev.py web` plays its last matches at --pace 0.4 so the Now page can be watched (issue 13:
    a new user watches bots play): the sim takes seconds after each action, 0 to 10, and refuses
    anything else in one line."""
    from assistant.sim.simulator import parse_args
    assert parse_args(["--bots", "--pace", "0.4"]).pace == 0.4 and parse_args(["--bots"]).pace == 0.0
    for bad in ("-1", "11", "nan"):
        with pytest.raises(SystemExit):
            parse_args(["--bots", "--pace", bad])
        err = capsys.readouterr().err
        assert "--pace" in err and "Traceback" not in err


def test_now_gives_players_whole_names_where_the_oled_shortens_them():
    """The OLED cuts a long name to 5 characters and a dot (one rule, issue 13 item 1); a phone
    has room, so the Now page's seats, prompt, notes and alert carry the whole name again, and
    only where the short form stands as a word."""
    from assistant.box.screen_file import view_json
    from assistant.box.view import Alert, View
    v = View(game="towers", seats=("Alexa.", "Bob"), phase="play", prompt="Alexa. to play\nBob took 2",
             turn=0, extra=("pair Alexa.",), alert=Alert("renege", "Alexa. failed to follow ♥ (trick 3)"))
    d = view_json(v, ("Alexandra", "Bob"))
    assert d["seats"] == ["Alexandra", "Bob"] and d["turn"] == "Alexandra"
    assert d["prompt"] == ["Alexandra to play", "Bob took 2"] and d["extra"] == ["pair Alexandra"]
    assert d["alert"]["text"] == "Alexandra failed to follow ♥ (trick 3)"
    assert view_json(v)["prompt"][0] == "Alexa. to play"  # no whole names known: the OLED's words


def test_the_page_takes_suit_signs_and_alert_titles_from_where_they_live_not_a_copy():
    """Fault: assistant/web/pages.py kept its own copy of the suit signs and of the alert titles
    (its "Renege!", "No reader" beside the OLED's RENEGE!, NO READER in box/screen.py): a kind or a
    sign changed in one place would not change on the page. Now the page takes the signs from
    rules.cards and the titles from box.view (where the screen takes them too), without the web
    process importing the box's daemon."""
    from pathlib import Path
    from assistant.box.screen_file import view_json
    from assistant.box.view import ALERT_KINDS, ALERT_TITLES, Alert, View
    from assistant.rules.cards import SUIT_SYMBOLS
    from assistant.web.pages import board_html
    import ast
    sources = [p.read_text(encoding="utf-8") for p in
               Path(__file__).resolve().parent.parent.joinpath("assistant", "web").glob("*.py")]
    assert not set(SUIT_SYMBOLS) & set("".join(sources)), "a suit sign copied into assistant/web"
    words = {n.value.lower().rstrip("!?") for s in sources for n in ast.walk(ast.parse(s))
             if isinstance(n, ast.Constant) and isinstance(n.value, str)} - {"note"}  # /api/matches' key
    for long, short in ALERT_TITLES.values():
        assert not {long.lower().rstrip("!?"), short.lower().rstrip("!?")} & words, long
    for kind in ALERT_KINDS:
        v = View(game="towers", seats=("Ann", "Bob"), phase="play", trump=2,
                 alert=Alert(kind, "Bob failed to follow"))
        html = board_html({"id": 1, "view": view_json(v), "source": "box"})
        assert f"<strong>{ALERT_TITLES[kind][0]}</strong>" in html and f"Trump {SUIT_SYMBOLS[2]}" in html
    out = subprocess.run([sys.executable, "-c", "import sys, assistant.web.server; "
                          "print(sorted(m for m in sys.modules if m.startswith('assistant.box.')))"],
                         capture_output=True, text=True, check=True).stdout
    assert "assistant.box.view" in out and "daemon" not in out and "assistant.box.screen'" not in out, out


def test_a_page_that_is_not_there_is_a_page_with_the_links_not_a_bare_line(site):
    """Fault: /matches/99 (an old bookmark, a match number typed on a phone) answered the bare
    text "no such match", in monospace, with no way back but the browser's Back. Now a 404 page
    with the header's links says what is not there; an unknown /api/ path answers JSON."""
    folder, port = site
    for path, words in (("/matches/99", "no match 99"), ("/nowhere", "no such page"), ("/matches/", "no such page")):
        status, headers, text = request(port, "GET", path)
        assert status == 404 and headers["Content-Type"].startswith("text/html"), path
        assert words in text and 'href="/matches"' in text and 'href="/players"' in text, text
    status, headers, text = request(port, "GET", "/api/nowhere")
    assert status == 404 and json.loads(text) == {"error": "no such page"}
    assert request(port, "GET", "/static/nothing.css")[0] == 404


def test_a_chart_of_one_match_says_1_match_not_1_matches(tmp_path):
    """Fault: after a first match the Players page's chart read "1 matches" under its axis."""
    from assistant.web.svg import line_chart
    assert ">1 match<" in line_chart([("Ann", [0, 1])], "wins", "matches")
    assert ">2 matches<" in line_chart([("Ann", [0, 1, 1])], "wins", "matches")
    assert ">1 hand<" in line_chart([("Ann", [0, 1])], "score", "hands")


def test_the_readmes_two_terminal_bots_sit_the_players_dev_py_web_enrolled():
    """Fault: README's two-terminal way to watch bots (`dev.py run sim --bots ... --state-dir
    .play`) named no player, so its matches were played by guests P1 to P4, who then stood in the
    Players page's standings beside the Ann, Bob, Cleo and Dev that `dev.py web` had seated. Now the
    README's command seats the same players as dev.py web."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    command = re.search(r"python3 dev\.py run sim --bots --game twenty-nine[^\n]*--state-dir \.play(?:[^\n]*\\\n)*[^\n]*",
                        readme).group(0)
    names = re.findall(r'"--player", "(\w+)"', (root / "dev.py").read_text(encoding="utf-8"))
    assert names and re.findall(r"--player (\w+)", command) == names, command


def test_times_on_the_pages_name_their_zone(tmp_path):
    """Fault: the pages gave every time as "2026-12-01 17:01", in the zone of the machine that
    serves them, and said not which: a box (or the club's board) whose zone was never set shows
    UTC, which looked like local time to a club in another zone (and `export`'s files say UTC).
    Now each time names its zone, as the machine's clock has it."""
    import re
    write_journal(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "web", "--state-dir", str(tmp_path), "--port", "0"],
                            stderr=subprocess.PIPE, text=True, env={**__import__("os").environ, "TZ": "XST-5:30"})
    try:
        port = int(re.search(r":(\d+)/", proc.stderr.readline()).group(1))
        matches = request(port, "GET", "/matches")[2]
        match = request(port, "GET", "/matches/1")[2]
        started = json.loads(request(port, "GET", "/api/matches")[2])[0]["started"]
    finally:
        proc.terminate()
        proc.wait(10)
    import time
    shifted = time.strftime("%H:%M", time.gmtime(started + 5.5 * 3600))
    assert f'<span class="nw">{shifted}</span> <span class="nw">XST</span>' in matches, matches
    assert re.search(rf"started \d{{4}}-\d\d-\d\d {shifted} XST", match), match


def test_a_twenty_nine_match_page_says_round_where_its_list_says_round(site):
    """Fault: a Twenty-Nine match's page listed "Round 1: Bob bid 18, missed" under the heading
    "Hand by hand", its chart counted "8 hands" and its reneges said "Dev, hand 6, trick 1": one
    page, two words for one thing (the rulebook's and the standings' "round"). Now a Twenty-Nine
    page says round throughout, a towers page hand."""
    folder, port = site
    matches = json.loads(request(port, "GET", "/api/matches")[2])
    for m in matches:
        page = request(port, "GET", f"/matches/{m['id']}")[2]
        word, other = ("round", "hand") if m["game"] == "twenty-nine" else ("hand", "round")
        assert f"{word.capitalize()} by {word}" in page and f"<th>{word.capitalize()}</th>" in page or \
            f"No {word} scored yet" in page, (m["id"], page)
        assert f" {word}s<" in page or f" {word}<" in page, m["id"]
        assert other.capitalize() + " by" not in page and f" {other}s<" not in page, m["id"]


def test_of_as_many_wins_the_player_who_lost_fewer_stands_higher():
    """Fault: the standings broke a tie on wins by matches played, the most first, so a player who
    won 2 of 5 stood above one who won 2 of 2 (on the box's page and the club's board alike). Now
    of as many wins the one who lost fewer stands higher, then by name."""
    import re
    from assistant.box.stats import _blank
    from assistant.web.pages import table

    def figures(played, won):
        return dict(_blank("towers", True), played=played, won=won, average_hands=None, average_minutes=None,
                    win_rate=won / played)
    html = table("towers", {"Bob": figures(5, 2), "Ann": figures(2, 2), "Cat": figures(3, 3), "Dan": figures(2, 2)},
                 "Player")
    assert re.findall(r"<tr><td>(\w+)</td>", html) == ["Cat", "Ann", "Dan", "Bob"], html


def test_a_match_gone_between_two_reads_is_404_not_500(tmp_path, monkeypatch):
    """Fault (web page): the scenario download read the match's record, then its lines in a second
    read; a journal replaced in between (the box's repair at its start, a restored copy) without
    that match made the second read find nothing, and the page answered a plain 500 ("the box could
    not make this page"). The match is gone: 404, "no such match"."""
    import os
    from assistant.web import site as site_module
    write_journal(tmp_path)  # six matches
    smaller = tmp_path / "smaller"
    smaller.mkdir()
    write_journal(smaller, MATCHES[:2])  # another journal: matches 1 and 2 only
    server = make_server(str(tmp_path), "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    read_record = site_module.Site.record

    def record_then_replaced(self, mid):  # the journal replaced right after the record was read
        rec = read_record(self, mid)
        os.replace(smaller / "journal.sqlite3", tmp_path / "journal.sqlite3")
        return rec

    try:
        port = server.server_address[1]
        assert request(port, "GET", "/api/matches/4/scenario")[0] == 200
        monkeypatch.setattr(site_module.Site, "record", record_then_replaced)
        status, _, text = request(port, "GET", "/api/matches/4/scenario")
        assert status == 404 and json.loads(text) == {"error": "no such match"}, (status, text)
    finally:
        server.shutdown()
        server.server_close()
        server.site.close()


def test_a_pagat_match_page_names_its_house_rules_and_reads_its_negative_score(tmp_path):
    """Fault: a match played under scoring=pagat showed "P1 + P3 0 – -1 P2 + P4" and rounds
    scored "0–-1", and nowhere said the match was played under pagat scoring, so a negative score
    went unexplained. Now the page lists the house rules in the screen's words, and a negative
    score has a minus sign, spaced from the dash between the sides."""
    write_journal(tmp_path, ["twenty-nine/option-pagat-missed.scn", MATCHES[0]])
    with served(tmp_path) as port:
        status, _, text = request(port, "GET", "/matches/1")
        assert status == 200
        assert "House rules: Scoring: pagat (+6/-6)" in text
        assert "P1 + P3 0 – −1 P2 + P4" in text and "0 – −1</td>" in text and "–-" not in text
        assert "House rules" not in request(port, "GET", "/matches/2")[2]  # towers: none


def test_wins_over_time_puts_every_line_on_the_games_matches_in_order(tmp_path):
    """Fault: the chart "wins over time" drew each side's wins against its own count of matches,
    all from the left edge: two players who played only the last two of six matches drew their
    lines over the first two, as if they had played then, under an axis that said "6 matches".
    Now x is the game's finished matches, oldest first: a line begins just before its side's first
    match and stays level through the matches it did not play."""
    import re
    from assistant.web.pages import on_one_axis
    assert on_one_axis([("Ann", [(1, 1), (2, 1), (5, 2)]), ("Cy", [(5, 0)])]) == [
        ("Ann", [0, 1, 1, 2]), ("Cy", [None, None, 0, 0])]
    write_journal(tmp_path, [MATCHES[0], MATCHES[1], MATCHES[0]])  # P2 wins all three
    played_by(tmp_path, ("Ann", "Bob"))
    with served(tmp_path) as port:
        _, _, text = request(port, "GET", "/players")
    chart = text[text.index("Towers: wins over time"):]
    lines = dict((name, [tuple(map(float, p.split(","))) for p in points.split()]) for points, name in
                 re.findall(r'<polyline [^>]*points="([^"]*)"><title>([^<]*)</title>', chart))
    assert len(lines["P2"]) == 5 and len(lines["Bob"]) == 2  # 4 matches and the start; Bob: 1
    assert lines["Bob"][0][0] == lines["P2"][3][0] and lines["Bob"][1][0] == lines["P2"][4][0]


def test_thousands_of_matches_are_listed_a_hundred_a_page_not_all_at_once(tmp_path):
    """Fault: Matches listed every match of the journal on one page: 5,000 matches were 1.8 MB of
    HTML for a phone (bench: /matches 1.2 s to serve). Now 100 a page, newest first, with links to
    the newer and older pages; a page that is not there is a 404 page with the links, never a 500."""
    begun(tmp_path, 205)
    with served(tmp_path) as port:
        status, _, first = request(port, "GET", "/matches")
        assert status == 200 and first.count('<tr><td><a href="/matches/') == 100
        assert '<a href="/matches/205">' in first and '<a href="/matches/105">' not in first
        assert "Matches 205 to 106, newest first, of 205 in all" in first and 'href="/matches?page=2">Older' in first
        status, _, last = request(port, "GET", "/matches?page=3")
        assert status == 200 and last.count('<tr><td><a href="/matches/') == 5
        assert '<a href="/matches/1">' in last and 'href="/matches?page=2">Newer' in last and "Older" not in last
        for bad in ("0", "4", "x", "-1", "9" * 40, "1e3"):
            status, _, text = request(port, "GET", f"/matches?page={bad}")
            assert status == 404 and "pages 1 to 3" in text and 'href="/matches"' in text, bad


def test_a_ninth_player_s_line_is_not_drawn_exactly_as_the_first_s(tmp_path):
    """Fault: the charts had 8 colours and no other mark: at a club with a ninth player (or
    partnership) on the wins over time chart, their line and legend were the first's exactly.
    Past 8 the colours come round again dashed, in the line and in its legend."""
    import re
    j = Journal(str(tmp_path / "journal.sqlite3"))
    sc = read_header((SCN / MATCHES[0]).read_text(encoding="utf-8").splitlines())
    names = [f"N{k:02d}" for k in range(10)]
    for a, b in zip(names[::2], names[1::2]):
        j.new_match(sc.game, (a, b), sc.options)
        for _, action in sc.actions():
            j.append(action)
    j.close()
    with served(tmp_path) as port:
        _, _, text = request(port, "GET", "/players")
    lines = re.findall(r'<polyline fill="none" stroke="([^"]+)" stroke-width="2"(?: stroke-dasharray="([^"]+)")?', text)
    keys = re.findall(r'<line x1="1" x2="21" y1="6" y2="6" stroke="([^"]+)" stroke-width="3"(?: stroke-dasharray="([^"]+)")?', text)
    assert len(lines) == 10 and len(set(lines)) == 10, lines
    assert keys == lines  # the legend shows each line as it is drawn


def test_the_players_page_says_what_a_guest_s_line_adds_up(site):
    """Fault: the standings listed P1 to P4 beside the players known by their tags, with nothing
    saying that a guest keeps the seat's name, so "P1" adds up whoever sat in that seat, a
    different person from match to match."""
    folder, port = site
    status, _, text = request(port, "GET", "/players")
    assert status == 200 and "P1 to P4 are guests" in text


def test_a_players_page_of_players_known_by_their_tags_has_no_guest_note(tmp_path):
    """The other side of the guests' note (the test above): a page with no guest on it does not
    explain guests to a reader it would only puzzle."""
    played_by(tmp_path, ("Ann", "Bob"))
    with served(tmp_path) as port:
        status, _, text = request(port, "GET", "/players")
        assert status == 200 and "Bob" in text and "guests" not in text


def test_a_guest_is_one_definition_for_the_box_s_page_and_the_club_s_board(tmp_path):
    """Fault (the board's examiner): the box's page and the club's board each had a definition of a
    guest's name, and they differed: the board took "p2" (a seat name no player may have, in any
    case: players.check_name) as a guest, the box's page as a player, without its note. One
    definition now (box/players.py), which both import."""
    from assistant.club import standings
    from assistant.web import server
    assert server.GUEST is standings.GUEST
    played_by(tmp_path, ("Ann", "p2"))
    with served(tmp_path) as port:
        status, _, text = request(port, "GET", "/players")
        assert status == 200 and "P1 to P4 are guests" in text


def test_a_page_counts_again_only_the_rows_of_the_newest_matches_not_the_whole_journal(tmp_path):
    """Fault: every page (and Now, which a phone asks every second) counted every match's rows,
    reading the whole actions table: 5,000 matches, 0.25 s of the 0.5 s each page took. The box
    appends to its newest match only, and sets rows aside only in the match it resumes, so a
    read counts again from the newest match of the last read on, and a match with rows newly set
    aside; the records stay exactly as a full count gives them."""
    from assistant.web.history import History
    sc = read_header((SCN / MATCHES[0]).read_text(encoding="utf-8").splitlines())
    actions = [a for _, a in sc.actions()]
    j = Journal(str(tmp_path / "journal.sqlite3"))  # the box, writing while the page reads
    for _ in range(3):
        j.new_match(sc.game, sc.seats, sc.options)
        for a in actions[:30]:
            j.append(a)
    history = History(str(tmp_path))
    history.records()
    said = []
    history._journal.db.set_trace_callback(said.append)

    def read():
        got = [(r.id, r.actions, r.state) for r in history.records()]
        fresh = History(str(tmp_path))
        assert got == [(r.id, r.actions, r.state) for r in fresh.records()]
        fresh.close()
        return got

    for a in actions[30:40]:  # the newest match grows
        j.append(a)
    assert read()[-1] == (3, 40, "in play")
    j.new_match(sc.game, sc.seats, sc.options)  # a new one begins: the last is abandoned
    j.append(actions[0])
    assert read()[-2:] == [(3, 40, "abandoned"), (4, 1, "in play")]
    counted = [q for q in said if "count(*) FROM actions" in q]
    assert counted and all("WHERE match" in q for q in counted), counted
    history.close()
    j.close()


def test_the_players_figures_are_worked_out_again_only_once_a_match_changed(tmp_path, monkeypatch):
    """Fault: the Players page and /api/players worked out the standings and the wins over time
    from every match at each request (0.5 s at 5,000 matches, with a phone or several reloading
    it on the box's Pi). They are now kept until a record changes; a match played meanwhile is
    on the very next page."""
    import assistant.web.site as site_module
    made = []
    real = site_module.standings
    monkeypatch.setattr(site_module, "standings", lambda recs: made.append(len(recs)) or real(recs))
    write_journal(tmp_path)
    with served(tmp_path) as port:
        first = request(port, "GET", "/api/players")
        again = request(port, "GET", "/api/players")
        page = request(port, "GET", "/players")
        assert first[0] == again[0] == page[0] == 200 and first[2] == again[2]
        assert made == [len(MATCHES)]  # once for the three answers
        assert "Ann" not in first[2]
        played_by(tmp_path, ("Ann", "Bob"))  # the box plays one more match meanwhile
        after = request(port, "GET", "/api/players")
        assert made == [len(MATCHES), len(MATCHES) + 1]
        assert "Ann" in json.loads(after[2])["standings"]["towers"]["players"]


def test_api_matches_is_paged_a_hundred_a_page_with_the_links_a_client_needs(tmp_path):
    """Fault (the web page's examiner): /api/matches gave every match of the journal in one
    answer (5,000 matches: 1 MB, made and sent at each request, a phone's app included), where
    /matches lists 100 a page. Now 100 a page, oldest first (a page keeps its matches as new ones
    come), the Link header naming the first, previous, next and last pages and X-Total-Count the
    matches; a page that is not there is a 404 line, never a 500."""
    begun(tmp_path, 205)
    with served(tmp_path) as port:
        status, headers, text = request(port, "GET", "/api/matches")
        assert status == 200 and [m["id"] for m in json.loads(text)] == list(range(1, 101))
        assert headers["X-Total-Count"] == "205"
        assert headers["Link"] == ('</api/matches?page=1>; rel="first", </api/matches?page=2>; rel="next", '
                                   '</api/matches?page=3>; rel="last"')
        status, headers, text = request(port, "GET", "/api/matches?page=3")
        assert status == 200 and [m["id"] for m in json.loads(text)] == list(range(201, 206))
        assert json.loads(text)[-1]["state"] == "in play"
        assert headers["Link"] == ('</api/matches?page=1>; rel="first", </api/matches?page=2>; rel="prev", '
                                   '</api/matches?page=3>; rel="last"')
        assert [m["id"] for m in json.loads(request(port, "GET", "/api/matches?page=2")[2])] == list(range(101, 201))
        for bad in ("0", "4", "x", "-1", "9" * 40, "1e3"):
            status, _, text = request(port, "GET", f"/api/matches?page={bad}")
            assert status == 404 and json.loads(text) == {"error": "no such page of matches: they fill pages 1 to 3"}, bad


def test_a_chart_of_a_year_of_matches_draws_what_shows_not_every_point():
    """Fault (the examiner at 5,000 matches): each "wins over time" chart drew every one of its
    4,822 points and a dot on each, on a chart 320 units wide: 320 kB a chart, a Players page of
    704 kB for a phone. A line of more points than the chart is wide keeps, of each unit's column,
    its first, highest, lowest and last point, and dots are drawn on short lines only."""
    import re
    from assistant.web.svg import line_chart
    ann, bob = [k // 2 for k in range(5000)], [None] * 10 + [k // 3 for k in range(4990)]
    svg = line_chart([("Ann", ann), ("Bob", bob)], "wins", "matches")
    assert len(svg) < 40_000 and "<circle" not in svg, len(svg)
    lines = [[tuple(map(float, p.split(","))) for p in pts.split()]
             for pts in re.findall(r'<polyline [^>]*points="([^"]*)"', svg)]
    whole = [[tuple(map(float, p.split(","))) for p in pts.split()] for pts in re.findall(
        r'<polyline [^>]*points="([^"]*)"', line_chart([("Ann", ann[:300]), ("Bob", bob[:300])], "wins"))]
    assert [len(line) for line in whole] == [300, 290]  # as wide as the chart or less: every point
    assert lines[0][0] == (28.0, 158.0) and lines[0][-1] == (312.0, 10.0)  # from 0 to the top, at the ends
    assert lines[1][0][0] > 28.0 and lines[1][-1][0] == 312.0
    assert line_chart([("Ann", [0, 1, 2])], "score").count("<circle") == 3  # a match's few hands keep their dots
