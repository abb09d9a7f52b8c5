"""The fault campaign (issue 10, item 7), one test per trial: page overwrites at random offsets,
truncation at every page boundary, bad row values, the -wal deleted, torn or junk, the journal
file emptied or removed beside its -wal, read-only journal and folder (the real `card-assistant
run`), a reader reboot whose HELLO is lost, and a flood of taps. Each starts the simulated box
(the daemon's run_box) on the damaged state and checks: it starts, it says what happened whenever
anything saved is missing or moved, and it goes on from exactly the start of what was saved. The
numbers for the README's reliability section come from `python3 tests/fault_campaign.py`."""
import os
import shutil

import pytest

import fault_campaign as fc

TRIALS = fc.trials()


@pytest.mark.parametrize("kind,label,make", TRIALS, ids=[f"{k}: {lbl}" for k, lbl, _ in TRIALS])
def test_the_box_survives(tmp_path, kind, label, make):
    if kind.startswith("read-only") and os.geteuid() == 0 and shutil.which("unshare") is None:
        pytest.skip("as root, needs unshare(1) to mount the state folder read-only")
    try:
        outcome, saved = fc.run_trial(make, tmp_path)
    except fc.Unavailable as e:
        pytest.skip(str(e))
    assert outcome.started, "the box did not start"
    assert outcome.said, "something saved is missing or moved and the box said nothing"
    assert outcome.prefix, "the box goes on from something that is not the start of what was saved"
    assert outcome.missed == 0, "an action still readable in the damaged file was not kept"
    if kind in ("read-only journal and folder", "reader reboot, HELLO lost", "flood of taps"):
        assert outcome.lost == 0
    if kind == "bad row value":
        assert outcome.lost <= 1  # only the row holding the bad value
