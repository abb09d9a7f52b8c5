"""The virtual firmware in a process of its own, for `bench box`: the reader as the Pico is, on
another chip, not a thread competing with the box's thread for the interpreter.

    python bench/firmware_process.py LINK PADS

plugs a VirtualFirmware at LINK, waits for the host's SYNC and says ``ready``; then reads one
command a line on stdin and answers one line on stdout:

    place PAD UID   -> the time.perf_counter() at which the ARRIVE line was written
    lift PAD        -> ok

perf_counter is CLOCK_MONOTONIC on Linux: one clock for every process, so the box's process can
subtract it from its own times.
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.sim.virtual_firmware import VirtualFirmware  # noqa: E402


def main(link, pads):
    vf = VirtualFirmware(link, pads=pads)
    write, arrived = vf._write, []

    def timed_write(data):
        if b" ARRIVE " in data:
            arrived.append(time.perf_counter())
        write(data)

    vf._write = timed_write
    vf.plug()
    if not vf.host_ready.wait(30):
        print("the box did not connect within 30 s", flush=True)
        return 1
    print("ready", flush=True)
    for line in sys.stdin:
        cmd, pad, *uid = line.split()
        if cmd == "place":
            vf.place(int(pad), uid[0])
            print(repr(arrived[-1]), flush=True)
        else:
            vf.lift(int(pad))
            print("ok", flush=True)
    vf.unplug()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
