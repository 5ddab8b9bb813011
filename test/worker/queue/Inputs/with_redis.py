"""Runs a shell command with its own redis-server on a free loopback port.

usage: with_redis.py [--requirepass PW] -- SHELL-COMMAND

In the command, @PORT@ becomes the port and @URL@ redis://127.0.0.1:PORT/0;
the server is stopped afterwards. Exits with the command's status.
"""
import socket
import subprocess
import sys
import tempfile
import time

argv = sys.argv[1:]
extra = []
if argv[:1] == ["--requirepass"]:
    extra = ["--requirepass", argv[1]]
    argv = argv[2:]
if argv[:1] == ["--"]:
    argv = argv[1:]
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
d = tempfile.mkdtemp()
server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", d,
                           "--save", "", "--appendonly", "no", "--logfile", d + "/redis.log"] + extra,
                          stdout=subprocess.DEVNULL)
try:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    script = " ".join(argv).replace("@URL@", "redis://127.0.0.1:%d/0" % port).replace("@PORT@", str(port))
    rc = subprocess.call(["/bin/sh", "-c", script])
finally:
    server.terminate()
    server.wait()
sys.exit(rc)
