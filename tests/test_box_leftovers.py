"""The box's leftovers of the last session (the daemon, the simulator, the command line), each a
fault a user could meet: a path shown on two lines, a relative RUNTIME_DIRECTORY. Real processes."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HANG = 60.0  # a guard against a hang, never a measurement
ENV = dict(os.environ, GPIOZERO_PIN_FACTORY="mock")
FORGED = "a\nERROR card-assistant: forged"  # a folder's name that would start a log line of its own


def cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "assistant.cli", *map(str, args)], cwd=kw.pop("cwd", ROOT),
                          env=kw.pop("env", ENV), capture_output=True, text=True, timeout=HANG,
                          **({} if "input" in kw else {"stdin": subprocess.DEVNULL}), **kw)


def test_a_newline_in_a_path_never_splits_a_log_or_error_line(tmp_path):
    """Fault (leftover of the last session): a newline in a path (the config, the state folder)
    went into the log line or the one-line refusal as it was, so one line became two, the second
    one anything the name said ("ERROR card-assistant: forged"). Each path is shown on one line,
    its newline as \\n."""
    odd = tmp_path / FORGED
    odd.mkdir()
    got = cli("run", "--config", odd / "config.toml")  # no such config: one log line naming it
    assert got.returncode == 2 and got.stderr.splitlines() == [
        f"ERROR card-assistant: {tmp_path}/a\\nERROR card-assistant: forged/config.toml: no such config file"]
    (odd / "state").write_text("a file, not a folder")
    got = cli("sim", "--bots", "--state-dir", odd / "state" / "sub")  # cannot be made: one line
    assert got.returncode != 0 and len(got.stderr.splitlines()) == 1, got.stderr
    assert "a\\nERROR card-assistant: forged" in got.stderr
    got = cli("players", "list", "--state-dir", odd)
    assert all(not line.startswith("ERROR card-assistant: forged") for line in got.stdout.splitlines() + got.stderr.splitlines())


def test_a_newline_in_an_alert_never_splits_the_sims_screen_line():
    """The same fault on a screen: an alert naming a path (a state folder that cannot hold the
    journal: "No journal: PATH: ...") is one line of the sim's screen line and of the OLED's words."""
    from assistant.box.view import Alert, View
    from assistant.sim.keyboard import screen_words
    alert = Alert("info", f"No journal: /tmp/{FORGED}: no such folder", "journal")
    assert alert.text == "No journal: /tmp/a\\nERROR card-assistant: forged: no such folder"
    view = View(game="towers", seats=("P1", "P2"), phase="play", prompt="P1: tap a card", alert=alert)
    assert "\n" not in screen_words(view)


def test_a_relative_runtime_directory_is_said_and_the_state_folders_run_is_used(tmp_path):
    """Fault (leftover of the last session): systemd sets $RUNTIME_DIRECTORY absolute
    (systemd.exec(5)); one set by hand as "run-here" was taken from the box's working folder, so
    the box wrote its screen where the web page, started from another folder, never looked. It is
    said in one line and the screen goes in STATE/run, where the web page looks too."""
    state, elsewhere = tmp_path / "state", tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(ENV, RUNTIME_DIRECTORY="run-here", PYTHONPATH=str(ROOT))
    got = cli("sim", "--bots", "--matches", "1", "--state-dir", state, env=env, cwd=elsewhere)
    assert got.returncode == 0, got.stderr
    assert got.stderr.splitlines() == [
        f"WARNING card-assistant: RUNTIME_DIRECTORY=run-here is not an absolute path (systemd sets one, "
        f"such as /run/card-assistant): the screen for the web page goes in {state}/run"]
    assert list(elsewhere.iterdir()) == [] and (state / "run").is_dir()


def test_a_match_begun_with_deal_scan_resumes_with_it_when_the_sim_starts_without_the_flag(tmp_path):
    """Fault (leftover of the last session): `sim --deal-scan` turned deal scan on for the box
    without keeping it in the journal (only the menu's switch was kept), so started again on the
    same --state-dir without the flag, the match resumed with deal scan off: the three cards P1
    had scanned were dropped and the hands went unscanned. The match goes on as it was, and the
    sim says so (the menu's switch, like the other flags, is for the next new match)."""
    state = tmp_path / "state"
    got = cli("sim", "--deal-scan", "--state-dir", state, input="\nJH\nJS\n1 AS KS QS\nq\n")
    assert "Scan P1 3/7 P2 0/7" in got.stdout.splitlines()[-2], got.stdout[-400:]
    got = cli("sim", "--state-dir", state, input="q\n")
    said = [line for line in got.stdout.splitlines() if line.startswith(("card-assistant sim:", "  screen:"))]
    assert said[0] == (f"card-assistant sim: {state} holds a match in play begun with --deal-scan, which goes on "
                       "with deal scan on; without --deal-scan, the next new match has it off (hold OK: the menu "
                       "switches it)") and said[-1] == "  screen: scan: P2 deals 7 each / Scan P1 3/7 P2 0/7", said


def test_the_now_page_says_when_a_killed_sim_stopped_being_heard(tmp_path):
    """Fault (leftover of the last session): a box killed (SIGKILL, a crash) never removes its
    screen file; on the box it lives on a tmpfs that goes with the service, but a sim's stays in
    STATE/run, and its Now page showed that last screen, alerts and all, as live for ever. The
    file names its writer (process number and start time): once that process is gone the page
    shows the table from the journal and says when the box stopped being heard."""
    import json
    import signal
    import time
    from assistant.box.screen_file import FILE
    from assistant.web.pages import board_html
    from assistant.web.site import Site
    state = tmp_path / "state"
    sim = subprocess.Popen([sys.executable, "-m", "assistant.cli", "sim", "--state-dir", str(state)], cwd=ROOT,
                           env=ENV, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           text=True)
    site = None
    try:
        sim.stdin.write("\nJH\n")  # a towers match, one card flipped
        sim.stdin.flush()
        deadline = time.monotonic() + HANG
        while True:  # (a guard against a hang, not a measurement)
            try:
                if json.loads((state / "run" / FILE).read_text())["rows"] == 1:
                    break
            except (OSError, ValueError, KeyError):
                pass
            assert time.monotonic() < deadline, "the sim never showed its first flip"
            time.sleep(0.05)
        site = Site(str(state))
        now = site.now()
        assert now["source"] == "box" and "stopped" not in now
        sim.send_signal(signal.SIGKILL)
        sim.wait(HANG)
        assert (state / "run" / FILE).exists()  # left behind, as a killed box leaves it
        now = site.now()
        assert now["source"] == "journal" and now["stopped"] == round((state / "run" / FILE).stat().st_mtime)
        assert "The box stopped being heard at " in board_html(now)
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.wait(HANG)
        if site is not None:
            site.close()
