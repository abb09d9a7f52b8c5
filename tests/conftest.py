import os
import sys
from pathlib import Path

# The tests run the box as child Pythons whose output they read as UTF-8 (the simulation draws the
# OLED with block characters). Say so, rather than rely on this machine's locale: with an ASCII
# locale (LC_ALL=C and no UTF-8 coercion) the children's stdout could not encode a frame (issue 15).
os.environ["PYTHONIOENCODING"] = "utf-8"

sys.path.insert(0, str(Path(__file__).parent))

import pytest


@pytest.fixture
def factory():
    """gpiozero's own MockFactory for one test, closed after it."""
    from gpiozero.pins.mock import MockFactory
    f = MockFactory()
    yield f
    f.close()


def pytest_collection_modifyitems(config, items):
    """The systemd chroot test first: it waits minutes on a booted Debian, and `dev.py test`'s
    other worker (pytest-xdist, a file at a time) runs the rest meanwhile. Otherwise in file order."""
    items.sort(key=lambda item: item.path.name != "test_systemd_chroot.py")
