#!/usr/bin/env python3
"""live_test.py -- the live view's server with real clients
(docs/live-protocol.md): WebSocket clients of python3-websocket and plain
HTTP (urllib) against live_host (a Lua 5.4 game loop with the profiler,
option "live") and multistate (several states on several threads).

    live_test.py LIVE_HOST MULTISTATE CASE

CASE is one of the functions case_* below (ctest runs each as live_CASE).
Every figure checked comes from the server's own messages or the host's
own output (its marks, its report); the test times nothing itself but
for generous bounds on waiting.  Exit status 0 when the case passed.
"""
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import websocket  # Debian's python3-websocket

WAIT = 30          # seconds: the most any single wait may take


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


class Closed(Exception):
    """The server closed the WebSocket (status: its close code)."""

    def __init__(self, status):
        super().__init__("closed with %r" % (status,))
        self.status = status


# --- the host ----------------------------------------------------------------

class Host:
    """A host program: its stdout and stderr lines collected as they come,
    the live view's URL read from stderr."""

    def __init__(self, argv, env=None):
        self.argv = argv
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, env=env,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.out, self.err = [], []
        self.cv = threading.Condition()
        self.readers = [threading.Thread(target=self._read, args=(f, l), daemon=True)
                        for f, l in ((self.p.stdout, self.out), (self.p.stderr, self.err))]
        for t in self.readers:
            t.start()

    def _read(self, f, lines):
        for line in f:
            with self.cv:
                lines.append(line.rstrip("\n"))
                self.cv.notify_all()
        with self.cv:
            lines.append(None)      # end of file
            self.cv.notify_all()

    def wait_err(self, pred, what):
        """The first stderr line for which pred holds."""
        deadline = time.monotonic() + WAIT
        with self.cv:
            i = 0
            while True:
                while i < len(self.err):
                    line = self.err[i]
                    i += 1
                    if line is None:
                        raise Fail("%s: the host ended first (stderr: %s)"
                                   % (what, "\n".join(l for l in self.err if l)))
                    if pred(line):
                        return line
                left = deadline - time.monotonic()
                check(left > 0, "%s: not within %d s" % (what, WAIT))
                self.cv.wait(left)

    def url(self):
        line = self.wait_err(lambda l: l.startswith("luainstr: live view at "),
                             "the live view's URL")
        url = line.split(" at ", 1)[1]
        base, token = url.split("/?token=")
        self.base, self.token = base, token
        self.port = int(base.rsplit(":", 1)[1])
        return base, token

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def finish(self):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        rc = self.p.wait(timeout=120)
        for t in self.readers:
            t.join(WAIT)
        self.rc = rc
        return rc

    def stdout(self):
        return [l for l in self.out if l is not None]

    def stderr(self):
        return "\n".join(l for l in self.err if l is not None)

    def marks(self):
        """(index, t_ns, cost_ns, end_ns) of every mark the host made (end_ns
        on CLOCK_MONOTONIC, as time.monotonic_ns)."""
        return [tuple(int(x) for x in l.split()[1:5])
                for l in self.stdout() if l.startswith("mark ")]

    def summary(self):
        line = [l for l in self.stdout() if l.startswith("host: marks=")]
        check(line, "the host's summary line is missing:\n" + "\n".join(self.stdout()[-5:]))
        return dict(kv.split("=") for kv in line[-1].split()[1:])


# --- clients -----------------------------------------------------------------

def ws_url(base, token):
    return base.replace("http://", "ws://") + "/live?token=" + token


def connect(base, token, **kw):
    ws = websocket.create_connection(ws_url(base, token), timeout=WAIT, **kw)
    return ws


def refused_status(base, token, **kw):
    """The HTTP status of a refused upgrade (None: it was accepted)."""
    try:
        ws = websocket.create_connection(ws_url(base, token), timeout=WAIT, **kw)
    except websocket.WebSocketBadStatusException as e:
        return e.status_code
    ws.close()
    return None


def recv(ws):
    """The next message as an object; Closed when the server closes."""
    while True:
        try:
            op, frame = ws.recv_data_frame(True)
        except websocket.WebSocketConnectionClosedException:
            raise Closed(None)
        if op == websocket.ABNF.OPCODE_TEXT:
            m = json.loads(frame.data.decode("utf-8"))
            m["_rx_ns"] = time.monotonic_ns()     # (not the server's: ours)
            return m
        if op == websocket.ABNF.OPCODE_CLOSE:
            status = struct.unpack("!H", frame.data[:2])[0] if len(frame.data) >= 2 else None
            raise Closed(status)
        if op == websocket.ABNF.OPCODE_PING:
            ws.pong(frame.data)
            continue
        raise Fail("unexpected frame opcode %d" % op)


def recv_until(ws, pred, what, keep=None):
    """Messages until one for which pred holds (returned); the others are
    appended to keep when given."""
    deadline = time.monotonic() + WAIT
    last = []
    while True:
        check(time.monotonic() < deadline, "%s: not within %d s (the last messages: %s)"
              % (what, WAIT, json.dumps(last)[:2000]))
        m = recv(ws)
        if pred(m):
            return m
        last = (last + [m])[-5:]
        if keep is not None:
            keep.append(m)


def read_all(ws):
    """Every message until the server closes: (messages, close status)."""
    msgs = []
    while True:
        try:
            msgs.append(recv(ws))
        except Closed as c:
            return msgs, c.status


def http_get(url):
    """(status, headers, body) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=WAIT) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def server_counters(ws, pred=lambda s: True, what="states"):
    """The next `states` message whose server counters satisfy pred."""
    m = recv_until(ws, lambda m: m["type"] == "states" and pred(m["server"]), what)
    return m


def subscribe(ws, state=None, msg_id=None):
    cmd = {"cmd": "subscribe"}
    if state is not None:
        cmd["state"] = state
    if msg_id is not None:
        cmd["id"] = msg_id
    ws.send(json.dumps(cmd))


class Stream:
    """What a subscribed client read of its state until the server closed:
    frames by index, spikes, functions, acks, lost counts, order checks."""

    def __init__(self, msgs, status, state):
        self.msgs, self.status, self.state = msgs, status, state
        mine = [m for m in msgs if m.get("state") == state]
        self.types = [m["type"] for m in mine]
        self.frames = [f["index"] for m in mine if m["type"] == "frames" for f in m["frames"]]
        self.spike_flags = {f["index"] for m in mine if m["type"] == "frames"
                            for f in m["frames"] if f["spike"]}
        self.spikes = [m for m in mine if m["type"] == "spike"]
        self.funcs = {f["id"]: f for m in mine if m["type"] == "functions"
                      for f in m["functions"]}
        self.lost = sum(m["count"] for m in mine if m["type"] == "lost")
        self.mine = mine

    def check_order(self, who):
        check(self.types and self.types[0] == "hello",
              "%s: the first message of state %d is %s, not hello"
              % (who, self.state, self.types[:1]))
        check("end" in self.types, "%s: no end for state %d" % (who, self.state))
        check(self.types.index("end") == len(self.types) - 1,
              "%s: messages of state %d after its end" % (who, self.state))
        check(self.frames == sorted(set(self.frames)),
              "%s: frame indices not strictly increasing" % who)
        for m in self.mine:
            for key in ("frames", "spike", "table"):
                if m["type"] == key:
                    names = [f[0] if isinstance(f, list) else f.get("func")
                             for f in (m.get("rows") or m.get("tree") or [])]
                    for fid in names:
                        check(fid == -1 or fid in self.funcs,
                              "%s: %s names function %r before `functions` did"
                              % (who, key, fid))

    def check_contiguous(self, first, last, who):
        """Every frame from first to last, unless the client was told it
        lost some."""
        if self.lost == 0:
            check(self.frames == list(range(first, last + 1)),
                  "%s: frames %s..%s with gaps (%d of %d), none said lost"
                  % (who, self.frames[:1], self.frames[-1:], len(self.frames),
                     last - first + 1))


def host_argv(exe, *args):
    return [exe, "--live", "127.0.0.1:0"] + list(args)


# --- the cases ---------------------------------------------------------------

def case_token(exe, _multi):
    """The token is required on all three paths: refused with 403 without
    it or with a wrong one, each refusal counted."""
    h = Host(host_argv(exe, "--frames", "100000", "--wait"))
    base, tok = h.url()
    check(len(tok) == 32 and all(c in "0123456789abcdef" for c in tok),
          "the generated token is not 32 hex digits: %r" % tok)
    bad = ["", "?token=", "?token=bad", "?token=" + tok[:-1],
           "?token=" + tok + "0", "?tok=" + tok, "?token=" + tok.upper()]
    refusals = 0
    for path in ("/", "/live", "/download/1/1"):
        for q in bad:
            st, _, _ = http_get(base + path + q)
            check(st == 403, "GET %s%s: %d, not 403" % (path, q, st))
            refusals += 1
    for t in ("", "bad", tok[:-1] + "x"):
        st = refused_status(base, t)
        check(st == 403, "WebSocket with token %r: %r, not 403" % (t, st))
        refusals += 1
    # with the token: the page (or 503 if it cannot be made, never a fake)
    st, hdr, body = http_get(base + "/?token=" + tok)
    check(st == 200, "GET / with the token: %d" % st)
    check(hdr["Content-Type"].startswith("text/html"), "page type %r" % hdr["Content-Type"])
    check("no-store" in hdr.get("Cache-Control", ""), "the page may be cached: %r"
          % hdr.get("Cache-Control"))
    check(b"<html" in body[:2000].lower(), "the page is not html")
    st, _, _ = http_get(base + "/download/1/1?token=" + tok)
    check(st == 404, "a download that does not exist: %d, not 404" % st)
    st, _, _ = http_get(base + "/download/1/01?token=" + tok)
    check(st == 404, "/download/1/01: %d, not 404" % st)
    ws = connect(base, tok)
    m = recv(ws)
    check(m["type"] == "states", "first message %r" % m["type"])
    check(m["server"]["refused"] == refusals,
          "refused counter %d, %d refusals made" % (m["server"]["refused"], refusals))
    ws.close()
    h.send("quit")
    check(h.finish() == 0, "host exit status %d:\n%s" % (h.rc, h.stderr()))
    print("ok: %d refusals (403) on /, /live, /download; the page with the token "
          "(%d bytes)" % (refusals, len(body)))


def case_token_given(exe, _multi):
    """A token given by the user is the one required; a token that cannot
    travel in a URL is refused with a clear error (the game runs on)."""
    h = Host(host_argv(exe, "--token", "my-Token_1.2~x", "--frames", "100000", "--wait"))
    base, tok = h.url()
    check(tok == "my-Token_1.2~x", "the URL carries %r" % tok)
    check(http_get(base + "/?token=my-Token_1.2~x")[0] == 200, "the given token refused")
    check(http_get(base + "/?token=my-Token_1.2~y")[0] == 403, "another token accepted")
    h.send("quit")
    check(h.finish() == 0, "host exit status %d" % h.rc)
    h = Host(host_argv(exe, "--token", "a b&c", "--frames", "5"))
    check(h.finish() == 0, "host exit status %d with a bad token" % h.rc)
    check("host: option live:" in h.stderr() and "token" in h.stderr(),
          "no clear error for a bad token:\n" + h.stderr())
    check(int(h.summary()["marks"]) == 5, "the game did not run on")
    print("ok: a given token; a bad one refused clearly")


def case_token_rules(exe, _multi):
    """One rule for a token everywhere (1 to 128 URL-safe characters); at
    least 16 beyond loopback, where the traffic is not encrypted and a
    warning says so; the token from the environment, which other users
    cannot read (a command line they can); wrong tokens at most 30 a
    second, then 429 until the second is over."""
    for tok, ok in (("t" * 128, True), ("t" * 129, False), ("t" * 200, False)):
        h = Host(host_argv(exe, "--token", tok, "--frames", "100000", "--wait"))
        if ok:
            base, got = h.url()
            check(got == tok, "a %d-character token: the URL carries %r" % (len(tok), got))
            h.send("quit")
            check(h.finish() == 0, "host exit status %d" % h.rc)
        else:
            h.wait_err(lambda l: "1 to 128" in l, "the error for a %d-character token" % len(tok))
            h.send("quit")
            h.finish()
            check("live view at" not in h.stderr(), "a %d-character token was taken" % len(tok))
    # beyond loopback: a short token refused, a long one taken with a warning
    h = Host([exe, "--live", "0.0.0.0:0", "--token", "short-token", "--frames", "5"])
    check(h.finish() == 0, "host exit status %d" % h.rc)
    check("at least 16" in h.stderr() and "live view at" not in h.stderr(),
          "a short token beyond loopback:\n" + h.stderr())
    h = Host([exe, "--live", "0.0.0.0:0", "--token", "a-long-enough-token-17", "--frames",
              "100000", "--wait"])
    h.url()
    h.wait_err(lambda l: "not encrypted" in l, "the warning beyond loopback")
    h.send("quit")
    check(h.finish() == 0, "host exit status %d" % h.rc)
    h = Host(host_argv(exe, "--frames", "100000", "--wait"))
    h.url()
    h.send("quit")
    check(h.finish() == 0 and "not encrypted" not in h.stderr(), "a warning on loopback")
    # from the environment
    env = dict(os.environ, LUAINSTR_LIVE_TOKEN="from-the-environment")
    h = Host(host_argv(exe, "--frames", "100000", "--wait"), env=env)
    base, tok = h.url()
    check(tok == "from-the-environment", "LUAINSTR_LIVE_TOKEN not used: %r" % tok)
    # wrong tokens: 30 a second, then 429 whatever the token (tried until
    # one comes: on a busy machine a second may hold fewer than 30 tries)
    statuses = []
    t0 = time.monotonic()
    while 429 not in statuses and len(statuses) < 3000:
        statuses.append(http_get(base + "/?token=wrong%d" % len(statuses))[0])
    secs = time.monotonic() - t0
    check(429 in statuses, "%d wrong tokens in %.1f s, none refused with 429"
          % (len(statuses), secs))
    check(set(statuses) <= {403, 429} and statuses.count(403) >= 30,
          "wrong tokens: %r" % sorted(set(statuses)))
    time.sleep(2.1)
    check(http_get(base + "/?token=" + tok)[0] == 200, "the right token after the pause")
    h.send("quit")
    check(h.finish() == 0, "host exit status %d" % h.rc)
    print("ok: tokens of 128 taken, 129 and 200 refused; beyond loopback 16 at least and a "
          "warning; the environment's; wrong ones %d x 403 then 429" % statuses.count(403))


def case_half_open(exe, _multi):
    """Requests begun and never ended, as fast as a peer can open them, no
    token needed: the server holds at most its 128 file descriptors (they
    took all 1024 of the process's in 0.4 s), says nothing per refusal
    (stderr got 2,000 "accept: errno 24" lines), the program runs on, and
    once the peer is gone a client gets in again."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 1500 if hard == resource.RLIM_INFINITY else min(1500, hard - 64)
    if soft < want + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want + 64, hard))
    h = Host(host_argv(exe, "--frames", "100000", "--wait"))
    base, tok = h.url()
    before = len(os.listdir("/proc/%d/fd" % h.p.pid))
    socks = []
    for _ in range(want):
        try:
            c = socket.create_connection(("127.0.0.1", h.port), timeout=5)
            c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            socks.append(c)
        except OSError:
            break
    time.sleep(1.0)
    held = len(os.listdir("/proc/%d/fd" % h.p.pid))
    check(held <= before + 130, "the host holds %d file descriptors with %d half-open "
          "requests (%d before)" % (held, len(socks), before))
    for c in socks:
        c.close()
    # a client gets in again (the half-open ones time out, 5 s each round)
    deadline = time.monotonic() + 120
    st = None
    while time.monotonic() < deadline:
        try:
            st = http_get(base + "/?token=" + tok)[0]
            if st == 200:
                break
        except OSError:
            pass
        time.sleep(0.5)
    check(st == 200, "no page after the peer left: %r" % st)
    h.send("quit")
    check(h.finish() == 0, "host exit status %d:\n%s" % (h.rc, h.stderr()[-2000:]))
    noise = [l for l in h.stderr().split("\n") if "accept" in l or "errno" in l]
    check(len(noise) <= 5, "%d lines of refusals on stderr, e.g. %r" % (len(noise), noise[:2]))
    print("ok: %d half-open requests: the host held %d file descriptors (%d before); "
          "the page again after" % (len(socks), held, before))


def case_term_cleanup(exe, _multi):
    """luaprof stopped by SIGTERM (timeout, systemd, CI) while it serves the
    live view: its report is written, it ends by the signal, and the files
    the view's commands wrote (a report to download, in TMPDIR) are removed
    as at a normal end (907 MB of snapshots stayed after a SIGTERM)."""
    luaprof = os.path.join(os.path.dirname(exe), "luaprof")
    d = tempfile.mkdtemp()
    tmpdir = os.path.join(d, "tmp")
    os.mkdir(tmpdir)
    script = os.path.join(d, "spin.lua")
    with open(script, "w") as f:
        f.write("local function work(i) return i * 2 end\n"
                "while true do for i = 1, 1000 do work(i) end end\n")
    report = os.path.join(d, "report.json")
    h = Host([luaprof, "-f", "json", "-o", report, "--live", "127.0.0.1:0", script],
             env=dict(os.environ, TMPDIR=tmpdir))
    base, tok = h.url()
    ws = connect(base, tok)
    keep = []
    recv(ws)
    subscribe(ws)
    recv_until(ws, lambda m: m["type"] == "hello", "its hello", keep)
    a = ack(ws, {"cmd": "report", "format": "text", "id": 1}, keep)
    check(a["ok"] and a.get("download"), "report: %r" % a)
    check([n for n in os.listdir(tmpdir) if n.startswith("luainstr-live-")],
          "no folder for the downloads in TMPDIR: %r" % os.listdir(tmpdir))
    ws.close()
    h.p.terminate()
    rc = h.finish()
    check(rc == -15, "status %r, not ended by SIGTERM" % rc)
    with open(report) as f:
        rep = json.load(f)
    check(any(fn["name"] == "local work" for fn in rep["functions"]),
          "the report does not name work")
    check(os.listdir(tmpdir) == [], "left in TMPDIR: %r" % os.listdir(tmpdir))
    print("ok: SIGTERM: the report written, the downloads' folder removed")


def case_names(exe, _multi):
    """A state's name is anything the host gave: one that is not UTF-8 (a
    script named in Latin-1) and one longer than a name holds (63 bytes of
    Cyrillic) must still make UTF-8 messages (a browser closes the
    connection on a text frame that is not: "no state" on the page), a
    byte that is not UTF-8 reading as its Latin-1 character, a long name
    cut at a character, never inside one: in `states` and in `hello`."""
    def cut(name):      # what fits in 63 bytes, whole characters only
        return name.encode()[:63].decode("utf-8", "ignore")
    cases = (("caf\udce9.lua", "caf\u00e9.lua"),      # (b"caf\xe9.lua" as argv)
             ("\u0416" * 40, "\u0416" * 31),           # 80 bytes: 31 whole characters fit
             ("ab\u20ac" * 30, cut("ab\u20ac" * 30)))
    check(cut("ab\u20ac" * 30) == "ab\u20ac" * 12 + "ab", "the test's own cut")
    for arg, want in cases:
        h = Host(host_argv(exe, "--name", arg, "--frames", "100000", "--wait"))
        base, tok = h.url()
        ws = connect(base, tok)
        m = recv_until(ws, lambda m: m["type"] == "states" and m["states"], "the state listed")
        name = m["states"][0]["name"]
        check(name == want, "states names it %r, not %r" % (name, want))
        subscribe(ws)
        hello = recv_until(ws, lambda m: m["type"] == "hello", "its hello")
        check(hello.get("name") == want, "hello names it %r, not %r" % (hello.get("name"), want))
        ws.close()
        h.send("quit")
        check(h.finish() == 0, "host exit status %d:\n%s" % (h.rc, h.stderr()))
    print("ok: %d names: Latin-1 bytes as their characters, long names cut at a "
          "character; every message UTF-8" % len(cases))


def case_origin(exe, _multi):
    """An upgrade from another origin is refused (403); no Origin (not a
    browser) and the server's own origin, by any loopback name, are not."""
    h = Host(host_argv(exe, "--frames", "100000", "--wait"))
    base, tok = h.url()
    port = h.port
    refused = ["http://evil.example", "http://evil.example:%d" % port,
               "http://127.0.0.1:%d" % (port + 1), "https://127.0.0.1:%d" % port,
               "null", "http://127.0.0.1.evil.example:%d" % port,
               "http://127.0.0.1:%d.evil" % port, "file://"]
    for o in refused:
        st = refused_status(base, tok, origin=o)
        check(st == 403, "Origin %r: %r, not 403" % (o, st))
    accepted = [None, "http://127.0.0.1:%d" % port, "http://localhost:%d" % port,
                "http://LOCALHOST:%d" % port, "http://[::1]:%d" % port]
    for o in accepted:
        kw = {"suppress_origin": True} if o is None else {"origin": o}
        ws = connect(base, tok, **kw)
        m = recv(ws)
        check(m["type"] == "states", "Origin %r: first message %r" % (o, m))
        ws.close()
    ws = connect(base, tok)
    m = recv(ws)
    check(m["server"]["refused"] == len(refused),
          "refused %d, %d origins refused" % (m["server"]["refused"], len(refused)))
    ws.close()
    h.send("quit")
    check(h.finish() == 0, "host exit status %d" % h.rc)
    print("ok: %d origins refused (403), %d accepted" % (len(refused), len(accepted)))


def case_limit(exe, _multi):
    """At most 32 clients: the 33rd gets 503; when one leaves, a new one
    gets in."""
    h = Host(host_argv(exe, "--frames", "100000", "--wait"))
    base, tok = h.url()
    clients = []
    for i in range(32):
        ws = connect(base, tok)
        check(recv(ws)["type"] == "states", "client %d: no states" % (i + 1))
        clients.append(ws)
    st = refused_status(base, tok)
    check(st == 503, "the 33rd client: %r, not 503" % (st,))
    clients.pop().close()
    server_counters(clients[0], lambda s: s["clients"] == 31,
                    "31 clients once one left")
    ws = connect(base, tok)
    m = recv(ws)
    check(m["server"]["clients"] == 32 and m["server"]["refused"] == 1,
          "after the refusal: %r" % m["server"])
    clients.append(ws)
    for ws in clients:
        ws.close()
    h.send("quit")
    check(h.finish() == 0, "host exit status %d" % h.rc)
    print("ok: 32 clients, the 33rd refused (503), room again when one left")


def case_long(exe, _multi):
    """A client message of 4096 bytes is read (and, not a command,
    counted); one byte more closes that connection with 1009."""
    h = Host(host_argv(exe, "--frames", "100000", "--wait"))
    base, tok = h.url()
    watcher = connect(base, tok)
    recv(watcher)
    ws = connect(base, tok)
    recv(ws)
    msg = '{"cmd":"bogus","pad":"' + "x" * 4096
    msg = msg[:4094] + '"}'
    check(len(msg) == 4096, "test message length")
    ws.send(msg)
    subscribe(ws)              # still open: it answers
    m = recv_until(ws, lambda m: m["type"] == "hello", "hello after a 4096-byte message")
    ws.send("x" * 4097)
    status = None
    try:
        recv_until(ws, lambda m: False, "the close")
    except Closed as c:
        status = c.status
    check(status == 1009, "close status %r, not 1009" % (status,))
    # in fragments: the whole message counts
    ws = connect(base, tok)
    recv(ws)
    ws.send_frame(websocket.ABNF.create_frame("x" * 3000, websocket.ABNF.OPCODE_TEXT, 0))
    ws.send_frame(websocket.ABNF.create_frame("y" * 3000, websocket.ABNF.OPCODE_CONT, 1))
    try:
        recv_until(ws, lambda m: False, "the close")
    except Closed as c:
        status = c.status
    check(status == 1009, "fragmented: close status %r, not 1009" % (status,))
    server_counters(watcher, lambda s: s["malformed"] == 3 and s["clients"] == 1,
                    "malformed 3 (the 4096-byte one, two too long), 1 client")
    watcher.close()
    h.send("quit")
    check(h.finish() == 0, "host exit status %d" % h.rc)
    print("ok: 4096 bytes read, 4097 and 6000 in fragments closed with 1009")


def case_malformed(exe, _multi):
    """Messages that are not commands are counted and ignored: the
    connection stays, `states` counts them."""
    h = Host(host_argv(exe, "--frames", "100000", "--wait"))
    base, tok = h.url()
    ws = connect(base, tok)
    recv(ws)
    bad = ["not json", "", "[1,2]", '{"cmd":"bogus"}', '{"cmd":"spike_rule","factor":0.5}',
           '{"cmd":"report","format":"../../etc/passwd"}', '{"cmd":"pause"', "null",
           '{"cmd":"start","id":"one"}', '{"cmd":"os.execute(\\"touch x\\")"}']
    for b in bad:
        ws.send(b)
    ws.send_binary(b"\x00\x01\x02")
    subscribe(ws)
    recv_until(ws, lambda m: m["type"] == "hello", "hello after malformed messages")
    m = server_counters(ws, lambda s: s["malformed"] >= len(bad) + 1, "the malformed count")
    check(m["server"]["malformed"] == len(bad) + 1,
          "malformed %d, %d sent" % (m["server"]["malformed"], len(bad) + 1))
    ws.close()
    h.send("quit")
    check(h.finish() == 0, "host exit status %d" % h.rc)
    print("ok: %d malformed messages counted and ignored" % (len(bad) + 1))


def ack(ws, cmd, keep):
    """Send a command, return its ack."""
    ws.send(json.dumps(cmd))
    return recv_until(ws, lambda m: m["type"] == "ack" and m.get("id") == cmd["id"],
                      "the ack of %r" % cmd, keep)


def case_commands(exe, _multi):
    """Commands are applied by the Lua thread and acked: pause, resume,
    spike rule, reset, stop, start, a report and a heap snapshot to
    download (as attachments, with the token only)."""
    h = Host(host_argv(exe, "--frames", "100000", "--wait"))
    base, tok = h.url()
    ws = connect(base, tok)
    recv(ws)
    subscribe(ws)
    h.send("go")
    keep = []
    a = ack(ws, {"cmd": "pause", "id": 1}, keep)
    check(a["ok"] is True, "pause: %r" % a)
    st = recv_until(ws, lambda m: m["type"] == "status", "status after pause", keep)
    check(st["collection"] == "paused", "after pause: %r" % st)
    a = ack(ws, {"cmd": "resume", "id": 2}, keep)
    st = recv_until(ws, lambda m: m["type"] == "status", "status after resume", keep)
    check(a["ok"] and st["collection"] == "running", "after resume: %r %r" % (a, st))
    a = ack(ws, {"cmd": "spike_rule", "factor": 3.5, "ms": 1, "id": 3}, keep)
    st = recv_until(ws, lambda m: m["type"] == "status", "status after spike_rule", keep)
    check(a["ok"] and st["spike_factor"] == 3.5 and st["spike_ms"] == 1,
          "after spike_rule: %r" % st)
    for i, c in ((4, "reset"), (5, "stop"), (6, "start")):
        a = ack(ws, {"cmd": c, "id": i}, keep)
        check(a["ok"] is True, "%s: %r" % (c, a))
    a = ack(ws, {"cmd": "report", "format": "text", "id": 7}, keep)
    check(a["ok"] and a.get("download", "").startswith("/download/"), "report: %r" % a)
    st, hdr, body = http_get(base + a["download"] + "?token=" + tok)
    check(st == 200, "report download: %d" % st)
    disp = hdr.get("Content-Disposition", "")
    check(disp.startswith("attachment;") and 'filename="luainstr-' in disp,
          "report download: Content-Disposition %r" % disp)
    check(b"update" in body, "the report does not name the game's update")
    check(http_get(base + a["download"])[0] == 403, "a download without the token")
    a = ack(ws, {"cmd": "snapshot", "collect": True, "id": 8}, keep)
    check(a["ok"] and a.get("download"), "snapshot: %r" % a)
    st, hdr, body = http_get(base + a["download"] + "?token=" + tok)
    check(st == 200 and "json" in hdr["Content-Type"], "snapshot download: %d %s"
          % (st, hdr["Content-Type"]))
    snap = json.loads(body)
    check("snapshot" in snap and "nodes" in snap, "not a heap snapshot")
    check(".heapsnapshot" in hdr.get("Content-Disposition", ""),
          "snapshot file name: %r" % hdr.get("Content-Disposition"))
    a = ack(ws, {"cmd": "pause", "state": 99, "id": 9}, keep)
    check(a["ok"] is False and "no such state" in a.get("error", ""), "state 99: %r" % a)
    ws.close()
    h.send("quit")
    check(h.finish() == 0, "host exit status %d" % h.rc)
    print("ok: 9 commands acked; a report (%s) and a snapshot downloaded"
          % disp.split("filename=")[1])


def case_subscribe(exe, _multi):
    """A subscriber gets the catch-up, then every frame and the planted
    spike's tree; one that subscribes mid-stream gets the recent frames and
    then the rest, none twice; both end with `end` and a normal close."""
    h = Host(host_argv(exe, "--frames", "240", "--spike-every", "100", "--wait"))
    base, tok = h.url()
    ws = connect(base, tok)
    m = recv(ws)
    check(len(m["states"]) == 1 and m["states"][0]["pid"] == h.p.pid,
          "states: %r" % m["states"])
    sid = m["states"][0]["id"]
    subscribe(ws, sid)
    first = recv(ws)
    check(first["type"] == "hello" and first["state"] == sid and first["lua"] == "Lua 5.4",
          "first after subscribe: %r" % first)
    h.send("go")
    late_msgs = []

    def late():
        # subscribes when the game is past frame 100
        c = connect(base, tok)
        recv(c)
        while len([l for l in h.stdout() if l.startswith("mark ")]) < 100:
            time.sleep(0.05)
        subscribe(c)
        late_msgs.append(read_all(c))

    t = threading.Thread(target=late)
    t.start()
    msgs, status = read_all(ws)
    t.join(WAIT * 2)
    check(h.finish() == 0, "host exit status %d" % h.rc)
    n = len(h.marks())
    check(n == 240, "the host made %d marks" % n)
    s = Stream([first] + msgs, status, sid)
    s.check_order("subscriber")
    s.check_contiguous(1, n, "subscriber")
    check(status == 1000, "close status %r, not 1000" % (status,))
    spikes = {50, 150}
    check(spikes <= s.spike_flags, "frames flagged spike: %s" % sorted(s.spike_flags))
    named = []
    for sp in s.spikes:
        names = [s.funcs[node[0]]["name"] for node in sp["tree"] if node[0] in s.funcs]
        if sp["index"] in spikes:
            named.append(sp["index"])
            check(any("spike_here" in x for x in names),
                  "spike %d's tree does not hold spike_here: %s" % (sp["index"], names))
    check(set(named) == spikes, "spike trees for %s, planted at %s" % (named, spikes))
    # a frame's way from its mark to this client: both clocks are this
    # machine's CLOCK_MONOTONIC; a generous bound (the protocol says about
    # 100 ms; a timer that never fired would make it seconds)
    mark_end = {m[0]: m[3] for m in h.marks()}
    lat = sorted(m["_rx_ns"] - mark_end[f["index"]] for m in s.mine if m["type"] == "frames"
                 for f in m["frames"] if f["index"] in mark_end)
    med, p99 = lat[len(lat) // 2] / 1e6, lat[len(lat) * 99 // 100] / 1e6
    check(med < 1000, "a frame took %.0f ms (median) from its mark to the client" % med)
    check(late_msgs, "the late subscriber read nothing")
    lmsgs, lstatus = late_msgs[0]
    ls = Stream(lmsgs, lstatus, sid)
    ls.check_order("late subscriber")
    check(ls.frames and ls.frames[0] == 1, "the late catch-up starts at frame %s"
          % ls.frames[:1])
    ls.check_contiguous(1, n, "late subscriber")
    print("ok: %d frames in order, mark to client %.1f ms median, %.1f ms 99th "
          "percentile; spikes %s with spike_here in their trees, a late "
          "subscriber caught up (%d frames, none twice)"
          % (len(s.frames), med, p99, sorted(named), len(ls.frames)))


def case_disconnect(exe, _multi):
    """Clients that vanish mid-stream (no close, a close frame) leave the
    others and the game untouched."""
    h = Host(host_argv(exe, "--frames", "300", "--wait"))
    base, tok = h.url()
    cs, first = [], {}
    for _ in range(5):
        c = connect(base, tok)
        recv(c)
        subscribe(c)
        first[c] = [recv_until(c, lambda m: m["type"] == "hello", "hello")]
        cs.append(c)
    h.send("go")
    while len([l for l in h.stdout() if l.startswith("mark ")]) < 60:
        time.sleep(0.05)
    # two cut without a word, one with a close frame
    for c in cs[:2]:
        c.sock.shutdown(socket.SHUT_RDWR)
        c.sock.close()
    cs[2].close()
    late = connect(base, tok)
    server_counters(late, lambda s: s["clients"] == 3, "3 clients left")
    subscribe(late)
    results = []
    first[late] = []

    def reader(c):
        msgs, status = read_all(c)
        results.append((first[c] + msgs, status))

    ths = [threading.Thread(target=reader, args=(c,)) for c in cs[3:] + [late]]
    for t in ths:
        t.start()
    for t in ths:
        t.join(WAIT * 2)
    check(h.finish() == 0, "host exit status %d" % h.rc)
    n = len(h.marks())
    check(n == 300, "the host made %d marks" % n)
    check(len(results) == 3, "%d readers finished" % len(results))
    for i, (msgs, status) in enumerate(results):
        s = Stream(msgs, status, 1)
        s.check_order("reader %d" % i)
        check(s.frames[-1] == n, "reader %d: last frame %d" % (i, s.frames[-1]))
    print("ok: 3 clients gone mid-stream; the others got all %d frames" % n)


def case_slow(exe, _multi):
    """A client that never reads costs the game nothing: its marks keep
    their pace (the host's own figures), frames for it are dropped and
    counted, and once its undroppable backlog passes 8 MB it is closed
    (1008); one that reads late is told what it lost."""
    h = Host(host_argv(exe, "--frames", "1200", "--fps", "240", "--wait"))
    base, tok = h.url()
    small = ((socket.SOL_SOCKET, socket.SO_RCVBUF, 4096),)
    reader = connect(base, tok)
    recv(reader)
    subscribe(reader)
    never = connect(base, tok, sockopt=small)
    subscribe(never)
    late = connect(base, tok, sockopt=small)
    subscribe(late)
    h.send("go")
    got = []
    rt = threading.Thread(target=lambda: got.append(read_all(reader)))
    rt.start()
    # each subscribe queues a catch-up, none of it droppable: `never`
    # asks again and again and reads nothing
    sent_never = 0
    for i in range(400):
        try:
            subscribe(never)
            sent_never += 1
            if 100 <= i < 140:
                subscribe(late)
        except (OSError, websocket.WebSocketException):
            break              # closed by the server
        time.sleep(0.005)
    time.sleep(1)
    lmsgs, lstatus = read_all(late)
    rt.join(WAIT * 2)
    check(h.finish() == 0, "host exit status %d" % h.rc)
    msgs, status = got[0]
    # the one that never reads was disconnected while the game ran: with
    # 1008 if its close frame got through, else hung up on (its buffers
    # are full: that is why), and the reader saw the count drop
    try:
        nmsgs, nstatus = read_all(never)
    except (OSError, websocket.WebSocketException):
        nstatus = None
    check(nstatus in (1008, None), "the client that never reads: closed with %r"
          % (nstatus,))
    counts = [m["server"]["clients"] for m in msgs if m["type"] == "states"]
    check(3 in counts and counts[-1] == 2,
          "the never-reader was not disconnected: clients %s (%d subscribes sent)"
          % (counts, sent_never))
    marks = h.marks()
    summ = h.summary()
    check(len(marks) == 1200 and int(summ["marks"]) == 1200, "the host made %d marks" % len(marks))
    # the game's pace, from its own output: a mark costs microseconds;
    # the bound is generous (a mark that waited for a client would take
    # the client's time)
    max_cost = int(summ["max_mark_ns"])
    check(max_cost < 50_000_000, "a mark took %.1f ms" % (max_cost / 1e6))
    span = marks[-1][1] - marks[0][1]
    check(span < 1199 * 1e9 / 240 * 3, "1200 frames at 240 fps took %.1f s" % (span / 1e9))
    s = Stream(msgs, status, 1)
    s.check_order("reader")
    s.check_contiguous(1, 1200, "reader")
    last_states = [m for m in msgs if m["type"] == "states"]
    dropped = max(m["server"]["dropped"] for m in last_states)
    check(dropped > 0, "no droppable message was dropped for the slow clients")
    ls = Stream(lmsgs, lstatus, 1)
    check(ls.lost > 0, "the late reader was not told what it lost (closed %r, %d messages: %s)"
          % (lstatus, len(lmsgs), sorted(set(ls.types))))
    check(lstatus == 1000, "the late reader: close %r" % (lstatus,))
    print("ok: marks kept their pace (max mark %.0f us, 1200 frames in %.2f s); "
          "%d dropped for slow clients; never-reader disconnected (%s) after %d subscribes; "
          "late reader told it lost %d" % (max_cost / 1e3, span / 1e9, dropped,
                                           nstatus, sent_never, ls.lost))


def case_load(exe, _multi):
    """32 clients at once, all subscribed, all served to the end; 16 more
    trying at the same moment are refused (503)."""
    h = Host(host_argv(exe, "--frames", "600", "--fps", "120", "--wait"))
    base, tok = h.url()
    results, errors = [], []
    lock = threading.Lock()
    barrier = threading.Barrier(48)

    def one(i):
        try:
            barrier.wait(WAIT)
            c = websocket.create_connection(ws_url(base, tok), timeout=WAIT)
        except websocket.WebSocketBadStatusException as e:
            with lock:
                errors.append(e.status_code)
            return
        recv(c)
        subscribe(c)
        r = read_all(c)
        with lock:
            results.append(r)

    ths = [threading.Thread(target=one, args=(i,)) for i in range(48)]
    for t in ths:
        t.start()
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        with lock:
            if len(errors) == 16:
                break
        time.sleep(0.05)
    h.send("go")
    for t in ths:
        t.join(WAIT * 4)
    check(h.finish() == 0, "host exit status %d" % h.rc)
    check(sorted(errors) == [503] * 16, "refused: %s" % errors)
    check(len(results) == 32, "%d clients served" % len(results))
    n = len(h.marks())
    lost = 0
    for i, (msgs, status) in enumerate(results):
        s = Stream(msgs, status, 1)
        s.check_order("client %d" % i)
        s.check_contiguous(1, n, "client %d" % i)
        lost += s.lost
        check(status == 1000, "client %d closed with %r" % (i, status))
    print("ok: 32 clients served %d frames each (%d messages said lost), "
          "16 refused (503)" % (n, lost))


def case_end(exe, _multi):
    """The program ends with clients connected: each subscriber gets `end`
    last for its state, every socket is closed normally, and the report is
    still written."""
    with tempfile.TemporaryDirectory() as d:
        rep = os.path.join(d, "report.txt")
        h = Host(host_argv(exe, "--frames", "180", "--report", rep, "--wait"))
        base, tok = h.url()
        subs = []
        for _ in range(3):
            c = connect(base, tok)
            recv(c)
            subscribe(c)
            subs.append(c)
        idle = connect(base, tok)
        recv(idle)
        h.send("go")
        results = []
        ths = [threading.Thread(target=lambda c=c: results.append(read_all(c)))
               for c in subs + [idle]]
        for t in ths:
            t.start()
        for t in ths:
            t.join(WAIT * 2)
        check(h.finish() == 0, "host exit status %d" % h.rc)
        check(len(results) == 4, "%d clients saw the end" % len(results))
        for msgs, status in results:
            check(status == 1000, "closed with %r, not 1000" % (status,))
            if any(m.get("state") == 1 for m in msgs):
                Stream(msgs, status, 1).check_order("subscriber")
        check("host: closed" in h.stderr(), "the host did not close its state")
        with open(rep) as f:
            text = f.read()
        check("spike_here" in text and "update" in text,
              "the report does not name the game's functions")
    print("ok: 3 subscribers got end, 4 sockets closed (1000), the report written")


def case_port_in_use(exe, _multi):
    """A port another program holds: a clear error, and the game runs on,
    its report written."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as d:
        rep = os.path.join(d, "report.txt")
        h = Host([exe, "--live", "127.0.0.1:%d" % port, "--frames", "60",
                  "--report", rep])
        rc = h.finish()
        err = h.stderr()
        check(rc == 0, "host exit status %d:\n%s" % (rc, err))
        check("live view at" not in err, "a live view started:\n" + err)
        check("host: option live:" in err and "127.0.0.1:%d" % port in err and
              "Address already in use" in err,
              "no clear error for a port in use:\n" + err)
        check(int(h.summary()["marks"]) == 60, "the game did not run to its end")
        check(os.path.getsize(rep) > 0, "no report")
    s.close()
    print("ok: %s" % [l for l in err.splitlines() if "host: option live:" in l][0])


def case_no_library(exe, _multi):
    """libwebsockets, opened only when the server starts (nothing links
    it), found but unusable: a clear error naming it and saying why
    (dlerror), and the game runs on, its report written.  Two libraries
    of its SONAME (LI_LWS_SONAME, from CMake) put first on the loader's
    path: an empty file (dlopen fails) and, when a compiler is given
    (LI_CC), one without libwebsockets' functions (dlsym fails)."""
    soname = os.environ.get("LI_LWS_SONAME", "")
    check(soname != "", "LI_LWS_SONAME is not set (tests/CMakeLists.txt sets it)")
    if "/" in soname:
        print("ok: the server opens %s by its path: LD_LIBRARY_PATH cannot "
              "stand in for it (nothing checked)" % soname)
        return
    stub = "int lws_service(void *c, int t) { (void)c; (void)t; return 0; }\n"
    with tempfile.TemporaryDirectory() as d:
        lib = os.path.join(d, soname)
        kinds = [("empty file", None, "cannot load")]
        if os.environ.get("LI_CC"):
            kinds.append(("library without its functions", stub, "undefined symbol"))
        for what, src, words in kinds:
            if src is None:
                open(lib, "w").close()
            else:
                with open(os.path.join(d, "stub.c"), "w") as f:
                    f.write(src)
                subprocess.run([os.environ["LI_CC"], "-shared", "-fPIC",
                                "-Wl,-soname," + soname, "-o", lib,
                                os.path.join(d, "stub.c")], check=True)
            rep = os.path.join(d, "report.txt")
            env = dict(os.environ)
            env["LD_LIBRARY_PATH"] = d + (":" + env["LD_LIBRARY_PATH"]
                                          if env.get("LD_LIBRARY_PATH") else "")
            h = Host([exe, "--live", "127.0.0.1:0", "--frames", "60",
                      "--report", rep], env=env)
            rc = h.finish()
            err = h.stderr()
            check(rc == 0, "%s: host exit status %d:\n%s" % (what, rc, err))
            check("live view at" not in err, "%s: a live view started:\n%s" % (what, err))
            line = [l for l in err.splitlines() if "host: option live:" in l]
            check(line and soname in line[0] and words in line[0],
                  "%s: no clear error naming %s (%r):\n%s" % (what, soname, words, err))
            check(int(h.summary()["marks"]) == 60, "%s: the game did not run to its end" % what)
            check(os.path.getsize(rep) > 0, "%s: no report" % what)
            print("ok: %s: %s" % (what, line[0]))


def case_multistate(_exe, multi):
    """Several states in one process, each on its own thread: all listed,
    each subscribable, each streaming its own frames."""
    n, frames = 3, 120
    h = Host([multi, "127.0.0.1:0", str(n), str(frames), "60"])
    base, tok = h.url()
    h.wait_err(lambda l: l == "multistate: %d states attached" % n, "the states attached")
    ws = connect(base, tok)
    m = recv_until(ws, lambda m: m["type"] == "states" and len(m["states"]) == n,
                   "%d states listed" % n)
    names = sorted(s["name"] for s in m["states"])
    check(names == ["state-%d" % k for k in range(1, n + 1)], "names %s" % names)
    check({s["pid"] for s in m["states"]} == {h.p.pid}, "pids %r" % m["states"])
    ids = {s["name"]: s["id"] for s in m["states"]}
    check(len(set(ids.values())) == n, "ids not distinct: %r" % ids)
    ws.close()
    clients = {}
    for k in range(1, n + 1):
        c = connect(base, tok)
        recv(c)
        subscribe(c, ids["state-%d" % k])
        clients[k] = c
    # one client that moves from state to state
    mover = connect(base, tok)
    recv(mover)
    h.send("go")
    results = {}
    ths = [threading.Thread(target=lambda k=k: results.__setitem__(k, read_all(clients[k])))
           for k in clients]
    for t in ths:
        t.start()
    seen = []
    for k in range(1, n + 1):
        subscribe(mover, ids["state-%d" % k])
        hello = recv_until(mover, lambda m: m["type"] == "hello", "hello of state-%d" % k)
        check(hello["state"] == ids["state-%d" % k] and hello.get("name", "state-%d" % k)
              == "state-%d" % k, "the mover's hello: %r" % hello)
        fr = recv_until(mover, lambda m: m["type"] == "frames" and m["state"] == hello["state"],
                        "frames of state-%d" % k)
        seen.append(fr["frames"][-1]["index"])
    mover.close()
    for t in ths:
        t.join(WAIT * 2)
    check(h.finish() == 0, "exit status %d:\n%s" % (h.rc, h.stderr()))
    for k in range(1, n + 1):
        sid = ids["state-%d" % k]
        msgs, status = results[k]
        s = Stream(msgs, status, sid)
        s.check_order("state-%d" % k)
        check(not [m for m in msgs if m.get("state") not in (None, sid)],
              "state-%d's subscriber got another state's messages" % k)
        fnames = {f["name"] for f in s.funcs.values()}
        check(any("state_%d_update" % k in x for x in fnames),
              "state-%d: its update function is not listed: %s" % (k, sorted(fnames)))
        check(not any("state_%d_update" % j in x for x in fnames for j in range(1, n + 1)
                      if j != k), "state-%d lists another state's function" % k)
        s.check_contiguous(1, frames + 10 * k, "state-%d" % k)
        check(s.frames[-1] == frames + 10 * k, "state-%d: last frame %d" % (k, s.frames[-1]))
    print("ok: %d states listed and streamed apart (last frames %s); a client "
          "moved between them" % (n, [frames + 10 * k for k in range(1, n + 1)]))


def main():
    if len(sys.argv) != 4:
        print("usage: live_test.py LIVE_HOST MULTISTATE CASE", file=sys.stderr)
        return 2
    exe, multi, case = sys.argv[1:]
    fn = globals().get("case_" + case)
    if fn is None:
        print("live_test.py: no case %r" % case, file=sys.stderr)
        return 2
    try:
        fn(exe, multi)
    except (Fail, Closed) as e:
        print("FAIL %s: %s" % (case, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
