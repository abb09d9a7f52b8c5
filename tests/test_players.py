"""Players by tag (issue 13 item 1): enrolled with `card-assistant players`, seated at a new match
by tapping their tag (OK for a guest), named on the screen (shortened by one rule), in the journal
and in exports; a player tag during play is refused as "not a card"."""
import queue

from assistant.hw.events import ReaderStatus, TagArrived
from assistant.export import main as export_main
from assistant.box.journal import Journal
from assistant.box.players import load_players, main as players_main
from assistant.box.table import Table
from test_table import DECK, Hands, towers_to_play, uid

ANN, ALEX, JS_TAG = "04AA000000000A", "04AA000000000B", "04BB000000000C"


def taps(*uids):
    q = queue.Queue()
    q.put(ReaderStatus(True, "connected"))
    for u in uids:
        q.put(TagArrived(1, u))
    return q


def test_players_add_list_rename_remove(tmp_path, capsys):
    (tmp_path / "deck.txt").write_text(f"{JS_TAG} JS\n")
    d = ["--state-dir", str(tmp_path)]
    # a card of the deck is refused; the next tag (not a card) is Ann's
    assert players_main(["add", "Ann", *d], events=taps(JS_TAG, ANN)) == 0
    assert "refused: that tag is a card of the deck" in capsys.readouterr().out
    assert players_main(["add", "Bo", *d], events=taps(ANN, ALEX)) == 0
    assert "already Ann's" in capsys.readouterr().out
    assert load_players(tmp_path) == {ANN: "Ann", ALEX: "Bo"}
    assert players_main(["rename", "Bo", "Alexandra", *d]) == 0
    assert players_main(["list", *d]) == 0
    assert "Alexandra  (tag 04AA000000000B)" in capsys.readouterr().out
    assert players_main(["remove", "ann", *d]) == 0
    assert load_players(tmp_path) == {ALEX: "Alexandra"}


def test_bad_names_refused_in_one_line(tmp_path, capsys):
    d = ["--state-dir", str(tmp_path)]
    for name in ("P2", "JS", "pass", "<script>", "a" * 13, "9lives"):
        assert players_main(["add", name, *d], events=taps()) == 2, name
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
    assert players_main(["rename", "Nobody", "Ann", *d]) == 2
    assert load_players(tmp_path) == {}


def seated(tmp_path, **kw):
    h = Hands.__new__(Hands)
    h.journal = Journal(str(tmp_path / "journal.sqlite3"))
    h.table = Table(h.journal, DECK, pads=("P1", "P2", "centre"), players={ANN: "Ann", ALEX: "Alexandra"})
    h.press("ok")  # Towers
    return h


def test_each_seat_taps_a_player_tag_or_ok_for_a_guest(tmp_path):
    h = seated(tmp_path)
    v = h.table.view()
    assert v.phase == "menu" and v.menu.title == "P1: tap player tag" and h.table.match is None
    h.table.handle(TagArrived(1, ALEX))
    h.table.handle(TagArrived(2, ALEX))  # one player, one seat
    assert h.table.alert.text == "Alexandra already has a seat" and h.table.match is None
    h.press("back")
    h.press("ok")  # P2 is a guest
    assert h.table.match.seats == ("Alexandra", "P2")
    assert h.journal.db.execute("SELECT seats FROM matches").fetchone()[0] == '["Alexandra", "P2"]'
    towers_to_play(h)
    v = h.table.view()
    assert v.seats == ("Alex.", "P2")  # the one rule on the OLED: 4 characters and a dot
    assert "Alexandra" not in v.prompt and "Alex." in v.prompt


def test_a_player_tag_during_play_is_refused_as_not_a_card(tmp_path):
    h = seated(tmp_path)
    h.table.handle(TagArrived(1, ANN))
    h.table.handle(TagArrived(1, ALEX))
    assert h.table.match.seats == ("Ann", "Alexandra")
    towers_to_play(h)
    before = list(h.table.match.actions)
    h.table.handle(TagArrived(3, ANN))
    assert h.table.alert.text == "That is Ann's player tag, not a card"
    assert h.table.match.actions == before


def test_names_in_the_exported_scenario(tmp_path, capsys):
    h = seated(tmp_path)
    h.table.handle(TagArrived(1, ANN))
    h.press("ok")
    towers_to_play(h)
    h.journal.close()
    assert export_main(["--state-dir", str(tmp_path), "-"]) == 0
    assert "seats Ann P2" in capsys.readouterr().out


def test_the_simulator_taps_a_players_tag_when_the_name_is_typed(tmp_path):
    """Item 1: works in the simulator, a key (the typed name) per player."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "assistant.cli", "sim", "--state-dir", str(tmp_path),
                        "--player", "Ann"], input="\nAnn\n\nq\n", capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "tapped Ann's player tag on pad 1" in r.stdout
    assert "screen: P2: tap player tag" in r.stdout
    assert "seats Ann P2" in Journal(str(tmp_path / "journal.sqlite3"), readonly=True).export()

