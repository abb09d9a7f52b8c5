"""The card reader's serial port for the commands that tap tags at the keyboard (`enroll`, `players
add`): said at once, in one line, when it cannot be used, never waited for."""
import os
import queue

DEFAULT_PORT = "/dev/card-reader"


def reader_problem(port):
    """Why the reader at ``port`` cannot be used, or None: said at once, never waited for."""
    import serial
    if not os.path.exists(port):
        return (f"no card reader at {port}: plug the reader in (or name its port with --port)")
    try:
        serial.Serial(port, 115200, timeout=0, exclusive=True).close()
    except (serial.SerialException, OSError, ValueError) as e:
        if "lock" in str(e):
            return (f"the card reader at {port} is in use by another program: stop the box first "
                    f"(sudo systemctl stop card-assistant)")
        errno = getattr(e, "errno", None)  # pyserial's strerror repeats the port and the errno
        why = (os.strerror(errno) if isinstance(errno, int)
               else "it is not a serial port" if "configure port" in str(e) else e)
        return f"cannot open the card reader at {port}: {why}"
    return None


def open_reader(port):
    """``(events, reader)``: the reader at ``port`` started, posting to a new queue; ValueError
    with the reason, said at once, when it cannot be used (also for `card-assistant players`)."""
    problem = reader_problem(port)
    if problem:
        raise ValueError(problem)
    from assistant.hw.reader import Reader
    events = queue.Queue()
    return events, Reader(port, events).start()
