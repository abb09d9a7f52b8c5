"""A command run with a folder read-only, as on a card the kernel has made read-only: as root, in
a mount namespace of its own (unshare) where the folder is bound read-only; as a normal user, with
the write bits of the folder (and of ``files``) taken away. Skips, saying why, where neither works."""
import os
import shutil
import subprocess

import pytest


def run_read_only(folder, exe, files=(), **kw):
    """``subprocess.run(exe, **kw)`` (text, output captured) with ``folder`` read-only."""
    if os.geteuid() == 0:
        if not shutil.which("unshare"):
            pytest.skip("as root, needs unshare(1) to mount the folder read-only")
        exe = ["unshare", "-m", "sh", "-c", f"mount --bind {folder} {folder} && "
               f"mount -o remount,bind,ro {folder} && exec \"$@\"", "sh", *exe]
    else:
        for path in files:
            os.chmod(path, 0o444)
        os.chmod(folder, 0o555)
    got = subprocess.run(exe, capture_output=True, text=True, **kw)
    if got.returncode != 0 and "mount: " in got.stderr:  # mount(8) itself, not a box that says "mounted"
        pytest.skip(f"cannot mount read-only here: {got.stderr[:120]}")
    return got
