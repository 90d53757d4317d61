#!/usr/bin/env python3
"""client.py -- a live view client for bench/live/run.sh: a real WebSocket
client (python3-websocket) that subscribes to the first state and reads
every message until "end".

    client.py URL [FRAMES_FILE]

URL is the one the server printed (http://HOST:PORT/?token=T).  Prints
"connected" once the state's hello came, and at the end one line of
counts.  With FRAMES_FILE it writes "INDEX T_NS" for every frame it got:
time.monotonic_ns() (CLOCK_MONOTONIC) when its message arrived."""
import json
import sys
import time

import websocket


def main():
    url = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else None
    ws_url = url.replace("http://", "ws://", 1).replace("/?token=", "/live?token=", 1)
    ws = websocket.create_connection(ws_url, timeout=60)
    ws.send(json.dumps({"cmd": "subscribe"}))
    got = {}
    counts = {}
    while True:
        try:
            text = ws.recv()
        except websocket.WebSocketConnectionClosedException:
            break
        if not text:
            break
        t = time.monotonic_ns()
        m = json.loads(text)
        kind = m.get("type")
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "hello":
            print("connected", flush=True)
        elif kind == "frames":
            for f in m["frames"]:
                got.setdefault(f["index"], t)
        elif kind == "end":
            break
    ws.close()
    if out:
        with open(out, "w") as f:
            for i in sorted(got):
                f.write("%d %d\n" % (i, got[i]))
    print(" ".join("%s=%d" % kv for kv in sorted(counts.items())), flush=True)


if __name__ == "__main__":
    main()
