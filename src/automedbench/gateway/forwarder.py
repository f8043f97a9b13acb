"""The forwarder run inside the sandbox (docs/sandbox.md "The gateway socket").

The sandbox has no network but its own loopback (bwrap's network namespace). An agent that speaks
only HTTP over TCP is pointed at http://127.0.0.1:PORT/v1; this script listens there and relays
each connection, byte for byte, to the gateway's Unix socket bound read-only into the sandbox.
It is written into the gateway's folder when a run starts (standard library only: it runs under
the sandbox's python), so the agent sees this script and nothing else of the harness.

    python3 forwarder.py serve PORT SOCKET      relay 127.0.0.1:PORT -> SOCKET until killed
    python3 forwarder.py post SOCKET PATH FILE  POST FILE's bytes to the gateway at PATH
"""
from __future__ import annotations

FORWARDER_SOURCE = r'''
import socket, sys, threading

def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

def relay(conn, path):
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        up.connect(path)
    except OSError:
        conn.close()
        return
    threading.Thread(target=pump, args=(up, conn), daemon=True).start()
    pump(conn, up)

def serve(port, path):
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind(("127.0.0.1", port))
    lst.listen(64)
    print("forwarder ready", flush=True)
    while True:
        conn, _ = lst.accept()
        threading.Thread(target=relay, args=(conn, path), daemon=True).start()

def post(path, url_path, name):
    try:
        with open(name, "rb") as fh:
            body = fh.read()
    except OSError:
        return 1
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(("POST %s HTTP/1.0\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n"
               % (url_path, len(body))).encode() + body)
    while s.recv(65536):
        pass
    return 0

if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(post(sys.argv[2], sys.argv[3], sys.argv[4]))
'''
