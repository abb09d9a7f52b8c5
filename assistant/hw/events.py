"""Events that adapters post on the daemon's input queue.

Adapters (gpiozero callbacks, the simulator, a reader on a thread of its own) only build
these and ``queue.put`` them on the bounded ``event_queue()``; the one thread that owns the
state applies them.
"""
import queue
from dataclasses import dataclass

QUEUE_SIZE = 256  # events waiting for the loop; a full queue makes the posting thread wait


class EventQueue(queue.Queue):
    """A queue.Queue whose ``waker`` (when set) is called by the put that makes it non-empty: the
    box's thread may be waiting on the reader's serial line rather than on the queue, and that
    call ends the wait (the reader's ``wake``)."""
    waker = None

    def _put(self, item):  # under the queue's lock, so no put is missed
        if not self.queue and self.waker is not None:
            self.waker()
        super()._put(item)


def event_queue():
    """The daemon's input queue: bounded, so a flood makes the adapters wait instead of dropping
    events or growing without limit (a reader on a thread of its own stops reading, the serial
    buffers fill, the firmware waits; the box reads its reader itself, between queued events)."""
    return EventQueue(maxsize=QUEUE_SIZE)


def post(events, event, stopping):
    """Put ``event`` on a bounded queue, waiting while it is full, unless ``stopping`` is set (a
    threading.Event): then False, and the event is not posted (the box is going down)."""
    while not stopping.is_set():
        try:
            events.put(event, timeout=0.25)
            return True
        except queue.Full:
            continue
    return False


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
