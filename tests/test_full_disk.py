"""A full disk (issue 6, item 5): "a full disk gives a clear alert and loses nothing already
accepted", at the table, through the whole simulated box (real pty reader, MockFactory buttons,
the daemon's loop, the SQLite journal).

The disk fills for real as far as SQLite can tell: `PRAGMA max_page_count` on the journal's own
connection makes SQLite answer SQLITE_FULL ("database or disk is full") once the journal needs
one more page, the error a full storage card gives. The bot plays on until that happens.
A journal that cannot be opened at start-up (locked, a failing card) is left as it is.
"""
import logging
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.sim.bot_towers import TowersBot
from assistant.rules.cards import card_name
from assistant.rules.scenario import Action
from assistant.sim.simulator import SimBox
from assistant.sim.bots import perform, start_match

ROOT = Path(__file__).resolve().parents[1]
HANG_GUARD = 60.0  # seconds: only a guard against a hang, never a measurement


@pytest.fixture
def state_dir(tmp_path):
    return tmp_path / "state"


def single_actions(bot, engine):
    """The bot's next action, a multi-card flip split into one-card flips (one per tap)."""
    a = bot.next_action(engine)
    return [Action("flip", cards=(c,)) for c in a.cards] if a.kind == "flip" else [a]


def test_a_full_card_alerts_refuses_the_action_and_keeps_everything_accepted(state_dir, caplog):
    caplog.set_level(logging.INFO, logger="card-assistant")
    sim = SimBox(state_dir, "towers").start()
    try:
        start_match(sim, "towers")
        table = sim.table
        m = table.match
        db = table.journal.db
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count={pages}")  # the card is full: no page can be added
        bot = TowersBot(4, claim_rate=0.0, accuse_rate=0.0)
        refused = None
        while refused is None and m.engine.phase != "over":
            for action in single_actions(bot, m.engine):
                before, snapshot = list(m.actions), m.engine.snapshot()
                perform(sim, action)
                alert = sim.box.view.alert
                if len(m.actions) == len(before) or (alert and "storage" in alert.text):
                    refused = action
                    break
                assert m.actions == before + [action]
        assert refused is not None, "the journal never filled up: the test did not test anything"
        assert len(before) > 0

        # a clear alert: what happened and that the action was not kept; no card named
        alert = sim.box.view.alert
        assert alert is not None and alert.kind == "refused"
        assert "storage card is full" in alert.text and "not saved" in alert.text
        logged = [r.getMessage() for r in caplog.records if "storage card is full" in r.getMessage()]
        assert logged, "the daemon did not log the full card"
        for card in refused.cards:
            assert card_name(card) not in alert.text and not any(card_name(card) in x for x in logged)
        # the refused action is not applied in memory either: the match is as it was
        assert m.actions == before and m.engine.snapshot() == snapshot

        # the daemon goes on: Back clears the alert, and a retry on the still-full card is refused
        # the same way with nothing changed
        assert sim._thread.is_alive()
        sim.press("back")
        assert sim.box.view.alert is None
        perform(sim, refused)
        assert "storage card is full" in sim.box.view.alert.text
        assert m.actions == before and m.engine.snapshot() == snapshot
        sim.press("back")

        # space returns (the card is cleaned up): the very same action is accepted now, and play goes on
        db.execute("PRAGMA max_page_count=1073741823")
        perform(sim, refused)
        assert m.actions == before + [refused]
        for _ in range(10):
            for action in single_actions(bot, m.engine):
                perform(sim, action)
        accepted = list(m.actions)
        assert len(accepted) > len(before) + 1
        final = m.engine.snapshot()
    finally:
        sim.stop()

    # after a restart every action accepted before, during and after the full card is there
    again = SimBox(state_dir, "towers").start()
    try:
        assert again.table.match.actions == accepted
        assert again.table.match.engine.snapshot() == final
        assert again.box.view.alert is None
    finally:
        again.stop()



def test_a_journal_that_cannot_be_opened_is_left_as_it_is_and_resumed_later(state_dir):
    """Storage trouble at start-up (here another program holding the journal locked; a full or
    failing card gives the same kind of SQLite error): the box does not set the sound journal
    aside as damaged and start an empty one. It says why in one log line and exits, so systemd
    tries again; once the journal can be opened the match resumes where it was."""
    sim = SimBox(state_dir, "towers").start()
    try:
        start_match(sim, "towers")
        bot = TowersBot(2, claim_rate=0.0, accuse_rate=0.0)
        for _ in range(12):
            for action in single_actions(bot, sim.table.match.engine):
                perform(sim, action)
        accepted = list(sim.table.match.actions)
    finally:
        sim.stop()
    path = state_dir / "journal.sqlite3"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA locking_mode=EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")  # SQLite's own busy wait (5 s) runs out: "database is locked"
    try:
        proc = subprocess.run([sys.executable, "-m", "assistant.cli", "sim", "--state-dir", str(state_dir)],
                              cwd=ROOT, input="q\n", capture_output=True, text=True, timeout=HANG_GUARD)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert proc.returncode == 1
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("ERROR")]
    assert len(errors) == 1 and "could not be opened (database is locked)" in errors[0], proc.stderr
    assert "left as it is" in errors[0]
    assert not [p for p in state_dir.iterdir() if "damaged" in p.name]
    again = SimBox(state_dir, "towers").start()
    try:
        assert again.table.match.actions == accepted
        assert again.box.view.alert is None
    finally:
        again.stop()
