"""A small text file (a deck, players.txt) read whole, or a refusal in plain words naming it:
never Python's own ``'utf-8' codec can't decode byte 0xff`` or ``[Errno 21] Is a directory``.

>>> read_text("/")
Traceback (most recent call last):
ValueError: / is a folder, not a file
"""
from pathlib import Path


def read_text(path):
    """The UTF-8 text of ``path``; ValueError saying why not (a folder, not UTF-8, unreadable)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder, not a file")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file (not UTF-8)") from None
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist") from None
    except OSError as e:
        raise ValueError(f"{path} cannot be read ({e.strerror or type(e).__name__})") from None
