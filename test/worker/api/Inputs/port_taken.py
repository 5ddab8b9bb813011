"""port_taken.py CMD ARGS...: listens on a free loopback port, runs CMD with
PORT in its arguments replaced by that port, and exits with CMD's status."""
import socket
import subprocess
import sys

s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
port = str(s.getsockname()[1])
sys.exit(subprocess.run([a.replace("PORT", port) for a in sys.argv[1:]]).returncode)
