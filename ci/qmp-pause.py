#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Pauses a qemu guest through its QMP socket when the guest asks.

ci/guest-x86.sh runs it beside qemu. It follows the guest's console log
and, for each line "TSC-GUEST: pause-me SECONDS", stops the VM (QMP
"stop"), waits SECONDS, and lets it run on ("cont"), printing one line per
pause. It ends when qemu closes the socket.
Usage: qmp-pause.py QMP_SOCKET CONSOLE_LOG"""
import json
import os
import socket
import sys
import time


def command(sock, f, name):
    sock.sendall(json.dumps({"execute": name}).encode() + b"\n")
    while True:  # (events may come before the answer)
        line = f.readline()
        if not line:
            raise EOFError
        msg = json.loads(line)
        if "return" in msg or "error" in msg:
            return msg


def main():
    path, log = sys.argv[1], sys.argv[2]
    for _ in range(600):  # qemu makes the socket as it starts
        if os.path.exists(path):
            break
        time.sleep(0.1)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    f = sock.makefile("r")
    f.readline()  # the greeting
    command(sock, f, "qmp_capabilities")
    done, pos = 0, 0
    try:
        while True:
            with open(log, "rb") as c:
                c.seek(pos)
                text = c.read()
            asks = [l for l in text.decode("latin-1").replace("\r", "").split("\n")
                    if l.startswith("TSC-GUEST: pause-me ")]
            if len(asks) > done:
                seconds = float(asks[done].split()[2])
                t0 = time.monotonic()
                command(sock, f, "stop")
                time.sleep(seconds)
                command(sock, f, "cont")
                print("qmp-pause: paused the guest for %.2f s" % (time.monotonic() - t0), flush=True)
                done += 1
                continue
            time.sleep(0.05)
            sock.settimeout(0.0)
            try:  # qemu gone?
                if sock.recv(4096, socket.MSG_PEEK) == b"":
                    return 0
            except BlockingIOError:
                pass
            except OSError:
                return 0
            finally:
                sock.settimeout(None)
    except (EOFError, OSError):
        return 0


if __name__ == "__main__":
    sys.exit(main())
