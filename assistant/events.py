"""Events that adapters post on the daemon's input queue.

Adapters (the reader thread, gpiozero callbacks, the simulator) only build
these and ``queue.put`` them; the one thread that owns the state applies them.
"""
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TagArrived:
    """A tag came to rest on a pad (after the firmware's presence debounce).

    ``inferred`` is True when the reader did not see the change as it happened
    but worked it out from a snapshot (at connect, after a restart or a lost
    line): the card may have been there a while.
    """
    pad: int
    uid: str  # upper-case hex, as sent by the firmware
    inferred: bool = False


@dataclass(frozen=True, slots=True)
class TagRemoved:
    pad: int
    uid: str
    inferred: bool = False  # as for TagArrived


@dataclass(frozen=True, slots=True)
class PadConflict:
    """More than one tag on one pad: nothing on that pad is read until it clears."""
    pad: int


@dataclass(frozen=True, slots=True)
class PadCleared:
    """The tags in conflict on a pad were lifted: the pad reads again."""
    pad: int


@dataclass(frozen=True, slots=True)
class ReaderStatus:
    """The reader link came up or went down; ``reason`` is plain words for the screen."""
    connected: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A button press; ``held`` is True for a hold gesture (menu, undo)."""
    name: str
    held: bool = False


@dataclass(frozen=True, slots=True)
class Tick:
    """A timer tick (watchdog, alert expiry); carries no state."""
