import os
import shutil
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


# The tests' folders (tmp_path) in memory, on /dev/shm, where this machine has one: the journal
# and the board commit with synchronous=FULL and sync their records after each action, and on this
# VM's disk those syncs were most of the suite's time (a season of 5,000 actions: 40 s on the disk,
# 3.5 s in memory). No test can see whether a sync reached a disk (none cuts the power), so every
# check is the same; the files are real files of a real file system. --basetemp given: kept.
# The systemd chroot's Debian stays on the disk (tests/test_systemd_chroot.py makes its own folder).
SHM = Path("/dev/shm")
SHM_PREFIX = "ca-tests-"  # short: a test reads a line that names a journal path, cut to its width


def _in_memory(config):
    if config.option.basetemp or hasattr(config, "workerinput"):  # given, or the controller's
        return None
    try:
        shm = os.statvfs(SHM)
        if not os.access(SHM, os.W_OK) or shm.f_bavail * shm.f_frsize < 2 << 30 \
                or shm.f_flag & os.ST_NOEXEC:  # tests run stand-in programs from their folders
            return None
    except OSError:
        return None
    for old in SHM.glob(SHM_PREFIX + "*"):  # a run killed before it could remove its folder
        pid = old.name[len(SHM_PREFIX):]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(old, ignore_errors=True)
    return SHM / f"{SHM_PREFIX}{os.getpid()}"


def pytest_configure(config):
    folder = _in_memory(config)
    if folder is not None:
        config.option.basetemp = str(folder)
        config._card_assistant_shm = folder


def pytest_unconfigure(config):
    folder = getattr(config, "_card_assistant_shm", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
