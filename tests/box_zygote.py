"""A Python that has imported the box once and forks a fresh `python -m assistant.cli ...` for each
start (tests/test_power_cut.py restarts the box 60 times a match: its interpreter's start and the
imports were three quarters of that test's time).

Run as ``python tests/box_zygote.py FD``: FD is a UNIX socket. Each request on it is one line,
``start ARG...``, with three descriptors (the child's stdin, stdout and stderr); the answer is
``pid N``. ``wait N TIMEOUT`` answers ``exit N STATUS`` (STATUS as Popen's returncode: -9 for a
SIGKILL) or ``timeout N``. End of the socket: the zygote ends.

The child is a real process of its own, as `python -m assistant.cli` makes one: its own pty,
threads, SQLite connections, killed by SIGKILL; it runs the module as __main__ (runpy, as -m
does), with sys.argv, sys.path[0] and the working folder as -m gives them, and exits through
the interpreter's own shutdown. Only the imports were done before it existed; the zygote holds no
thread, file or connection it could inherit. Only a test's helper: never a way the box starts.
"""
import os
import runpy
import socket
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[0] = ROOT  # as `python -m` in the checkout has it: this checkout's code, not an installed one

# what `card-assistant sim` imports before it reads its journal (the rest is imported as it runs)
import assistant.cli  # noqa: F401
import assistant.sim.simulator  # noqa: F401
import assistant.sim.simbox  # noqa: F401
import assistant.sim.keyboard  # noqa: F401
import assistant.box.daemon  # noqa: F401
import assistant.box.screen  # noqa: F401
import gpiozero.pins.mock  # noqa: F401
import serial  # noqa: F401


def status_of(code):
    return -os.WTERMSIG(code) if os.WIFSIGNALED(code) else os.WEXITSTATUS(code)


def serve(sock, root):
    while True:
        msg, fds, _, _ = socket.recv_fds(sock, 4096, 3)
        if not msg:
            return
        words = msg.decode().split()
        if words[0] == "start":
            pid = os.fork()
            if pid == 0:  # the child: the descriptors given are its 0, 1 and 2
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                for fd in (*fds, sock.fileno()):
                    os.close(fd)
                os.chdir(root)
                sys.argv = [os.path.join(root, "assistant", "cli.py"), *words[1:]]
                runpy.run_module("assistant.cli", run_name="__main__", alter_sys=True)
                sys.exit(0)  # never reached: the module's __main__ block exits
            for fd in fds:
                os.close(fd)
            sock.sendall(f"pid {pid}\n".encode())
        elif words[0] == "wait":
            pid, limit = int(words[1]), time.monotonic() + float(words[2])
            while True:
                done, code = os.waitpid(pid, os.WNOHANG)
                if done:
                    sock.sendall(f"exit {pid} {status_of(code)}\n".encode())
                    break
                if time.monotonic() > limit:
                    sock.sendall(f"timeout {pid}\n".encode())
                    break
                time.sleep(0.005)


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])), ROOT)
