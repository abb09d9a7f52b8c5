"""Faults the attack on the box's storage and processes found (folders replaced or removed under a
running box, journals of two boxes in one folder, ...): real files, real processes. Each test
names the fault and what the box did before."""
import os
import shutil
import stat

from assistant.box.screen_file import ScreenFile, runtime_dir
from assistant.box.view import View


def test_a_state_folder_removed_under_the_box_is_not_made_again_open_to_all(tmp_path):
    """Fault (the state folder removed, or moved away, while the box ran; and a box stopped just
    as its folder was removed): the next frame's screen file made the state folder again with
    os.makedirs, 0755 whatever the box's own rule (0700: the journal written back into it holds
    the hidden cards). The screen file makes only its own folder; the journal makes the state
    folder, private."""
    old = os.umask(0o022)
    try:
        state = tmp_path / "state"
        state.mkdir(mode=0o700)
        screen = ScreenFile(runtime_dir(str(state), env={}))
        shutil.rmtree(state)
        screen.write(View(game="towers", seats=("P1", "P2"), phase="play", score=(0, 0)), None, 0)
    finally:
        os.umask(old)
    assert not state.exists() or stat.S_IMODE(state.stat().st_mode) == 0o700
