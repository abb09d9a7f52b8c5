"""Defects a stranger found in the simulator (the sim fix-up): bots on a state folder whose
latest match is still in play, dev.py's failing child, the game of a resumed match, a read-only
state folder, names differing only in case, a stale menu alert, private state files."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.sim.simulator import SimBox
from assistant.sim.bots import run_bots, start_match

ROOT = Path(__file__).resolve().parent.parent


def test_the_bots_take_up_a_match_left_in_play_without_a_crash(tmp_path):
    """Fault: an interrupted `sim --bots` left a match in play and the next run crashed
    (ValueError in menu_pick_open). The bots now finish it (next test)."""
    sim = SimBox(tmp_path).start()
    try:
        start_match(sim, "towers")
    finally:
        sim.stop()
    sim = SimBox(tmp_path).start()
    try:
        assert sim.table.match is not None and sim.table.match.engine.phase != "over"
        assert run_bots(sim, "towers", 1, 1, 0.0, out=lambda _: None) == 0
        assert sim.table.match.engine.phase == "over"
    finally:
        sim.stop()


def _match_in_play(state, game):
    """A journal whose match the bots did not deal: played on the engine alone, then stopped in
    the middle of its last hand's play."""
    from assistant.box.journal import Journal
    from assistant.rules.match import Match
    from assistant.rules.scenario import Action
    from assistant.sim.bots import bot_class
    seed = {"towers": 3, "twenty-nine": 4}[game]  # the resumed match ends with its hand in play (fast)
    match, bot = Match(game), bot_class(game)(seed=seed, claim_rate=0.0, accuse_rate=0.0)
    e, mid_trick = match.engine, []  # (actions so far, hand) at each point inside a trick
    while (a := bot.next_action(e)) is not None:
        for one in ([Action("flip", cards=(c,)) for c in a.cards] if a.kind == "flip" else [a]):
            match.apply(one)
            if e.phase == "play" and e.trick:
                mid_trick.append((len(match.actions), e.hand_no))
    cut = next(n for n, hand in mid_trick if hand == e.hand_no)
    journal = Journal(str(state / "journal.sqlite3"))
    journal.db.execute("PRAGMA synchronous=OFF")  # a fixture: no power cut to survive
    journal.new_match(game, match.seats, {})
    for one in match.actions[:cut]:
        journal.append(one, match.seats)
    journal.close()
    return match.actions[:cut]


@pytest.mark.parametrize("game", ["towers", "twenty-nine"])
def test_the_bots_finish_the_match_in_play_and_say_so_first(tmp_path, game):
    """Fault: `sim --bots` on a state folder with a match in play began a new match over it
    without a word (the bots play only hands they dealt), leaving it abandoned. Now they say so
    in one line, play the hand in play from what the rules still allow, then finish the match."""
    kept = _match_in_play(tmp_path, game)
    said = []
    sim = SimBox(tmp_path, game, pads=("P1", "P2", "P3", "P4")).start()
    try:
        assert run_bots(sim, game, 1, 1, 0.0, out=said.append) == 0
        m = sim.table.match
        assert m.engine.phase == "over" and m.actions[:len(kept)] == kept
        assert sim.table.journal.match_ids() == [1]
    finally:
        sim.stop()
    hand = "round" if game == "twenty-nine" else "hand"  # (fault: a Twenty-Nine round was a "hand")
    assert said[0].startswith(f"a {m.engine.title} match is in play in this state folder ({hand} ")
    assert f"did not deal its {hand} in play" in said[0]
    assert "the bots finish it before they begin one" in said[0] and said[1].startswith("match 1 (resumed): ")


def load_dev():
    spec = importlib.util.spec_from_file_location("dev_under_test", ROOT / "dev.py")
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    return dev


def test_dev_py_reports_a_failing_child_in_one_line(capsys, monkeypatch):
    """Fault: `python3 dev.py web` printed a CalledProcessError traceback when a child failed.
    Now one line and the child's own status."""
    dev = load_dev()
    monkeypatch.setattr(dev, "dispatch", lambda argv: dev.sh(sys.executable, "-c", "raise SystemExit(70)"))
    with pytest.raises(SystemExit) as exit_:
        dev.main(["dev.py", "web"])
    assert exit_.value.code == 70
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and "70" in err


def test_a_resumed_twenty_nine_match_keeps_its_game_and_pads(tmp_path):
    """Fault: `sim --state-dir DIR` on a Twenty-Nine match in play took towers' pads (no pad 4).
    Without --game the sim takes the game of the match in play from the journal."""
    from assistant.sim.simulator import DEFAULT_PADS, parse_args
    sim = SimBox(tmp_path, "twenty-nine", DEFAULT_PADS["twenty-nine"]).start()
    try:
        start_match(sim, "twenty-nine")
    finally:
        sim.stop()
    args = parse_args(["--state-dir", str(tmp_path)])
    assert args.game == "twenty-nine" and args.pads == DEFAULT_PADS["twenty-nine"]
    assert parse_args(["--state-dir", str(tmp_path), "--game", "towers"]).game == "towers"
    assert parse_args(["--state-dir", str(tmp_path / "new")]).game == "towers"


def test_the_sim_writes_its_deck_and_players_only_when_missing_or_different(tmp_path):
    """Fault: the sim rewrote deck.txt at every start, so a read-only state folder could not
    start. A second start over the same files leaves them alone (same inode)."""
    SimBox(tmp_path, players=["Ann"]).start().stop()
    files = [tmp_path / "deck.txt", tmp_path / "players.txt"]
    before = [f.stat().st_ino for f in files]
    SimBox(tmp_path, players=["Ann"]).start().stop()
    assert [f.stat().st_ino for f in files] == before


def test_the_sim_starts_on_a_read_only_state_folder(tmp_path):
    """Fault 3 end to end: on a folder mounted read-only (as root; a folder without write bits
    otherwise) the sim starts and shows the match read-only."""
    from readonly import run_read_only
    state = tmp_path / "state"
    SimBox(state).start().stop()
    got = run_read_only(state, [sys.executable, "-m", "assistant.cli", "sim", "--state-dir", str(state)],
                        input="q\n", timeout=120, cwd=ROOT)
    assert got.returncode == 0, got.stderr
    assert "read-only" in got.stdout and "Read-only file system" not in got.stderr


def test_the_sims_state_folder_and_files_are_private(tmp_path):
    """Fault 7: the journal's rule (folder 0700, files 0600) holds for the sim's folder, deck and
    players, whatever the umask."""
    import os
    old = os.umask(0o022)
    try:
        SimBox(tmp_path / "new" / "state", players=["Ann"]).start().stop()
    finally:
        os.umask(old)
    state = tmp_path / "new" / "state"
    assert state.stat().st_mode & 0o777 == 0o700
    for name in ("deck.txt", "players.txt"):
        assert (state / name).stat().st_mode & 0o777 == 0o600, name


@pytest.mark.parametrize("flags", [["--game", "twenty-nine"], ["--frames", "f"], ["--player", "Ann"],
                                   ["--option", "pair=on"], ["--renege-rate", "0.1"], ["--deal-scan"]])
def test_the_club_sim_refuses_the_flags_it_ignores(flags, capsys):
    """Fault 4: `sim --club --bots --game twenty-nine --frames DIR` played towers and wrote no
    frames, silently. Each flag the club night ignores is refused in one line."""
    from assistant.sim.simulator import parse_args
    with pytest.raises(SystemExit) as exit_:
        parse_args(["--club", "--bots", "--tables", "1", *flags])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and flags[0] in err
    assert parse_args(["--club", "--bots", "--game", "towers"]).club


def test_player_names_that_differ_only_in_case_are_refused(capsys):
    """Fault 5: `--player Ann --player ann` silently dropped the second name. Refused in one
    line, as a scenario file's players are."""
    from assistant.sim.simulator import parse_args
    with pytest.raises(SystemExit) as exit_:
        parse_args(["--player", "Ann", "--player", "ann"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "already a player" in err
    assert parse_args(["--player", "Ann", "--player", "Bob"]).player == ["Ann", "Bob"]


def test_leaving_the_menu_clears_its_finish_the_menu_first_alert(tmp_path):
    """Fault 6: a card tapped in the house-rules menu says "Finish the menu first"; after Back
    left the menu that info stayed on the flip screen. Leaving the menu clears it."""
    from assistant.sim.bots import menu_pick, menu_pick_open
    sim = SimBox(tmp_path).start()
    try:
        start_match(sim, "towers")
        menu_pick(sim, "New match")
        menu_pick_open(sim, "Yes, new match")
        menu_pick_open(sim, "Twenty-Nine")
        assert sim.table.menu[0] == "House rules"
        sim.tap(0, 5)
        assert "Finish the menu first" in sim.table.alert.text
        sim.press("back")
        assert sim.table.menu is None and sim.table.alert is None
        assert sim.box.view.alert is None
    finally:
        sim.stop()


def test_dev_py_web_stops_at_once_when_its_port_is_taken(tmp_path, monkeypatch, capsys):
    """Harden item 4 (outside tester): `python3 dev.py web` with its port taken said "cannot
    listen on 127.0.0.1:8029 (Address already in use)", played all the bots anyway, said "The bots
    are done; the page stays up" and exited 0. Now it stops at once, with that line, non-zero."""
    import socket
    dev = load_dev()
    monkeypatch.setattr(dev, "ROOT", tmp_path)
    monkeypatch.setattr(dev, "BIN", Path(sys.executable).parent)
    played = []
    monkeypatch.setattr(dev, "sh", lambda *cmd, **kw: played.append(cmd))
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        with pytest.raises(SystemExit) as exit_:
            dev.web(["--port", str(port)])
    finally:
        taken.close()
    assert exit_.value.code not in (0, None) and played == []
    out, err = capsys.readouterr()
    assert f"cannot listen on 127.0.0.1:{port} (Address already in use)" in err
    assert "bots are done" not in out + err


def test_a_match_of_either_game_begun_from_the_menu_has_its_seats_pads(tmp_path):
    """Harden item 6 (outside tester): a Twenty-Nine match begun from the menu of a sim started
    for towers had only pads 1-3 ("there is no pad 4" when tapping for P4). The sim's default pads
    are now four seats' pads, as on a four-pad box: each Twenty-Nine seat taps its own, and in
    towers the pads of P3 and P4 act as the centre."""
    from assistant.rules.cards import parse_card
    from assistant.sim.simulator import parse_args
    args = parse_args(["--state-dir", str(tmp_path)])  # started for towers
    assert args.game == "towers"
    sim = SimBox(tmp_path, args.game, args.pads).start()
    try:
        start_match(sim, "twenty-nine")
        sim.tap(3, parse_card("9H"))  # on pad 4
        assert [a.kind for a in sim.table.match.actions] == ["flip"]
        for game in ("twenty-nine", "towers"):  # the bots finish the Twenty-Nine match in play first
            assert run_bots(sim, game, 1, 3, 0.05, out=lambda _: None) == 0
            assert sim.table.match.game == game and sim.table.match.engine.phase == "over"
    finally:
        sim.stop()


def test_a_sim_on_a_temporary_folder_says_where_its_journal_is(tmp_path):
    """Harden item 6 (outside tester): `python3 dev.py run sim` without --state-dir kept its journal
    in a temporary folder and said so nowhere, so quitting and starting again began a fresh match.
    One line at the start says where it is and how to keep it."""
    import os
    env = dict(os.environ, TMPDIR=str(tmp_path))
    got = subprocess.run([sys.executable, "-m", "assistant.cli", "sim"], input="q\n", capture_output=True,
                         text=True, timeout=120, cwd=ROOT, env=env)
    assert got.returncode == 0, got.stderr
    folder = next(tmp_path.glob("card-assistant-sim-*"))
    assert (f"card-assistant sim: the journal is in {folder}, a new temporary folder; to keep the match "
            f"and resume it after quitting, start with --state-dir FOLDER") in got.stdout.splitlines()
    assert (folder / "journal.sqlite3").exists()
    got = subprocess.run([sys.executable, "-m", "assistant.cli", "sim", "--state-dir", str(folder)],
                         input="q\n", capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert got.returncode == 0 and "the journal is in" not in got.stdout


def test_a_house_rule_given_twice_to_the_sim_is_refused(capsys):
    """Harden item 7 (outside tester): `sim --option pair=on --option pair=off` was taken silently
    (the last won), where a scenario refuses a second 'option' line for one key."""
    from assistant.sim.simulator import parse_args
    with pytest.raises(SystemExit) as exit_:
        parse_args(["--game", "twenty-nine", "--option", "pair=on", "--option", "pair=off"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--option pair is given twice (on and off)" in err, err
