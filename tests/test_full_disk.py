"""A full disk (issue 6, item 5): "a full disk gives a clear alert and loses nothing already
accepted", at the table, through the whole simulated box (real pty reader, MockFactory buttons,
the daemon's loop, the SQLite journal).

The disk fills for real as far as SQLite can tell: `PRAGMA max_page_count` on the journal's own
connection makes SQLite answer SQLITE_FULL ("database or disk is full") once the journal needs
one more page, the error a full storage card gives. The bot plays on until that happens.
"""
import logging

import pytest

from assistant.bot_towers import TowersBot
from assistant.cards import card_name
from assistant.scenario import Action
from assistant.sim import SimBox
from assistant.sim_bots import perform, start_match


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

