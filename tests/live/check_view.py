#!/usr/bin/env python3
"""check_view.py LOG -- checks a log of runtime/liveview.c at work against a
model of docs/live-protocol.md written apart from it.

tests/test_liveview.c feeds records to a view and logs, for each step, the
record's bytes (as the Lua thread lays them out, runtime/live.h), what
li_live_view_feed returned and every message that came out.  Here the
records are decoded again with `struct` (the layouts checked against the
C sizes the log starts with), a model of the view predicts each step's
messages, and each message that came out is read by Python's json module
and compared with the prediction, field by field and type by type (an
integer is not a boolean, a count is not a float).  Every message must
also be valid UTF-8 with nothing in it an HTML <script> would stop at.

Log (binary, line-headed):
  sizes NAME=N ...
  view STATE
  feed KIND RC LEN\\n<LEN bytes>\\n | feednull KIND RC LEN\\n | flush\\n
  | catchup\\n
  out N\\n then N times: m DROPPABLE LEN\\n<LEN bytes>\\n
  download N LEN\\n<LEN bytes>\\n   (LEN -1: NULL)
  bad N
Exit 0 when everything matches; else the first difference on stderr.
"""
import codecs
import json
import math
import struct
import sys

FRAMES_KEPT = 600
SPIKES_KEPT = 1024
SPIKE_BYTES = 4 << 20
FUNCS_MAX = 1 << 24
FUNCS_MSG = 1024
NONE = 0xFFFFFFFF

HELLO, FRAME, FUNCS, SPIKE, TABLE, MEMORY, STATUS, ACK, END = range(1, 10)

# the records' fixed parts: native byte order, C's layout (padding explicit)
S = {
    "hello": struct.Struct("=QIIdII"),
    "frame": struct.Struct("=7QII"),
    "funcs": struct.Struct("=II"),
    "func": struct.Struct("=6I"),
    "spike": struct.Struct("=3QI4x"),
    "node": struct.Struct("=IIQqqQ"),
    "table": struct.Struct("=QII"),
    "row": struct.Struct("=I4xQqqQq"),
    "memory": struct.Struct("=QQQq"),
    "status": struct.Struct("=4IddQ"),
    "ack": struct.Struct("=QII16s"),
}


def latin1_fallback(e):
    return "".join(chr(b) for b in e.object[e.start:e.end]), e.end


codecs.register_error("li_latin1", latin1_fallback)


def text(b):
    """What the view's escaping reads bytes as: UTF-8, else Latin-1."""
    return b.decode("utf-8", errors="li_latin1")


class Mismatch(Exception):
    pass


class F(float):
    """A double the view writes: null when not finite."""


def same(want, got, where):
    if isinstance(want, F):
        if not math.isfinite(want):
            if got is not None:
                raise Mismatch(f"{where}: {got!r}, want null")
            return
        if type(got) not in (int, float) or float(got) != float(want):
            raise Mismatch(f"{where}: {got!r}, want {float(want)!r}")
        return
    if type(want) is not type(got):
        raise Mismatch(f"{where}: {got!r} ({type(got).__name__}), want {want!r}")
    if isinstance(want, dict):
        if set(want) != set(got):
            raise Mismatch(f"{where}: keys {sorted(got)}, want {sorted(want)}")
        for k in want:
            same(want[k], got[k], f"{where}.{k}")
    elif isinstance(want, list):
        if len(want) != len(got):
            raise Mismatch(f"{where}: {len(got)} items, want {len(want)}")
        for i, (a, b) in enumerate(zip(want, got)):
            same(a, b, f"{where}[{i}]")
    elif want != got:
        raise Mismatch(f"{where}: {got!r}, want {want!r}")


def no_constants(name):
    raise ValueError(f"{name} is not JSON")


def parse(raw, where):
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Mismatch(f"{where}: not UTF-8: {e}")
    for c in s:
        if ord(c) < 0x20 or c in "<>&\u2028\u2029":
            raise Mismatch(f"{where}: raw {c!r} in {s[:200]!r}")
    try:
        v = json.loads(s, parse_constant=no_constants)
    except ValueError as e:
        raise Mismatch(f"{where}: not JSON: {e}: {s[:200]!r}")
    if not isinstance(v, dict):
        raise Mismatch(f"{where}: not an object")
    return v


class Model:
    def __init__(self, state):
        self.state = state
        self.bad = 0
        self.hello = None
        self.status = None
        self.funcs = {}            # id -> dict of the functions message
        self.nfuncs = 0
        self.rows = {}             # id -> row list
        self.table_t = None
        self.frames = []           # every frame dict, in order
        self.pending = 0
        self.spikes = []           # kept: (message dict, bytes)
        self.downloads = []

    def msg(self, type_, **fields):
        m = {"type": type_, "state": self.state}
        m.update(fields)
        return m

    def frames_msg(self, frames, droppable):
        return (self.msg("frames", frames=list(frames)), droppable)

    def flush(self):
        out = []
        if self.pending:
            out.append(self.frames_msg(self.frames[-self.pending:], 1))
            self.pending = 0
        return out

    def hello_msg(self):
        h, name = self.hello
        pid, ver, jit, npt, fon, mon = h
        lua = "LuaJIT" if jit else f"Lua {ver // 100}.{ver % 100}"
        return (self.msg("hello", lua=lua, frames=fon != 0, memory=mon != 0,
                         ns_per_tick=F(npt), pid=pid, name=text(name)), 0)

    def status_msg(self):
        coll, fon, mon, keep, fac, ms, lost = self.status
        return (self.msg("status",
                         collection=["running", "paused", "stopped"][coll],
                         frames=fon != 0, memory=mon != 0,
                         spike_factor=F(fac), spike_ms=F(ms),
                         spikes_keep=keep, lost=lost), 0)

    def functions_msg(self, ids):
        fs = [self.funcs[i] for i in ids if i in self.funcs]
        return [(self.msg("functions", functions=fs), 0)] if fs else []

    # ---- records: (rc, messages); rc -1 malformed -------------------------
    def feed(self, kind, b):
        if kind == FRAME:
            if len(b) != S["frame"].size:
                return -1, []
            v = S["frame"].unpack(b)
            keys = ["index", "t_ns", "duration_ns", "busy_ns", "idle_ns",
                    "calls", "alloc_bytes"]
            f = dict(zip(keys, v[:7]))
            f["spike"] = v[7] != 0
            f["lost"] = v[8]
            self.frames.append(f)
            self.pending += 1
            if self.pending == FRAMES_KEPT:
                return 0, self.flush()
            return 0, []
        out = self.flush()
        fn = {HELLO: self.r_hello, FUNCS: self.r_funcs, SPIKE: self.r_spike,
              TABLE: self.r_table, MEMORY: self.r_memory,
              STATUS: self.r_status, ACK: self.r_ack,
              END: self.r_end}.get(kind)
        if fn is None:
            return -1, out
        r = fn(b)
        if r is None:
            return -1, out
        return 0, out + r

    def r_hello(self, b):
        n = S["hello"].size
        if len(b) < n:
            return None
        self.hello = (S["hello"].unpack(b[:n]), b[n:])
        return [self.hello_msg()]

    def r_funcs(self, b):
        h, fs = S["funcs"], S["func"]
        if len(b) < h.size:
            return None
        first, count = h.unpack(b[:h.size])
        at = h.size
        if first > self.nfuncs or count > (len(b) - at) // (fs.size + 2) \
                or count > FUNCS_MAX - first:
            return None
        got = []
        for i in range(count):
            if len(b) - at < fs.size:
                return None
            line, last, zone, nl, sl, _ = fs.unpack(b[at:at + fs.size])
            at += fs.size
            if zone > 3 or nl == 0 or sl == 0 or nl + sl > len(b) - at:
                return None
            name, src = b[at:at + nl], b[at + nl:at + nl + sl]
            if name[-1] != 0 or src[-1] != 0:
                return None
            at += nl + sl
            f = {"id": first + i, "name": text(name[:-1]),
                 "source": text(src[:-1]), "line": line,
                 "lastline": last, "zone": 0 if zone == 3 else zone}
            if zone == 3:               # counted, not timed (count_small)
                f["counted"] = True
            got.append(f)
        if at != len(b):
            return None
        for f in got:
            self.funcs[f["id"]] = f
        self.nfuncs = max(self.nfuncs, first + count)
        return self.functions_msg(range(first, first + count))

    def r_spike(self, b):
        h, ns = S["spike"], S["node"]
        if len(b) < h.size:
            return None
        frame, dur, busy, n = h.unpack(b[:h.size])
        if n == 0 or len(b) != h.size + n * ns.size:
            return None
        tree = []
        for i in range(n):
            func, parent, calls, total, self_, alloc = \
                ns.unpack_from(b, h.size + i * ns.size)
            if i == 0:
                if func != NONE or parent != NONE:
                    return None
                func = parent = -1
            elif func >= self.nfuncs or parent >= i:
                return None
            tree.append([func, parent, calls, total, self_, alloc])
        m = self.msg("spike", index=frame, duration_ns=dur, busy_ns=busy,
                     tree=tree)
        return [("spike", m)]     # kept once its bytes are known (check)

    def keep_spike(self, m, nbytes):
        if nbytes > SPIKE_BYTES:
            return
        while self.spikes and (len(self.spikes) == SPIKES_KEPT or
                               sum(n for _, n in self.spikes) + nbytes > SPIKE_BYTES):
            self.spikes.pop(0)
        self.spikes.append((m, nbytes))

    def r_table(self, b):
        h, rs = S["table"], S["row"]
        if len(b) < h.size:
            return None
        t, n, _ = h.unpack(b[:h.size])
        if len(b) != h.size + n * rs.size:
            return None
        rows = [list(rs.unpack_from(b, h.size + i * rs.size)) for i in range(n)]
        if any(r[0] >= self.nfuncs for r in rows):
            return None
        for r in rows:
            self.rows[r[0]] = r
        self.table_t = t
        return [(self.msg("table", t_ns=t, rows=rows), 1)]

    def r_memory(self, b):
        if len(b) != S["memory"].size:
            return None
        t, lua, alloc, live = S["memory"].unpack(b)
        return [(self.msg("memory", t_ns=t, lua_bytes=lua, alloc_total=alloc,
                          live_tracked=live), 1)]

    def r_status(self, b):
        if len(b) != S["status"].size:
            return None
        s = S["status"].unpack(b)
        if s[0] > 2:
            return None
        self.status = s
        return [self.status_msg()]

    def r_ack(self, b):
        n = S["ack"].size
        if len(b) < n:
            return None
        id_, ok, dl, fmt = S["ack"].unpack(b[:n])
        body = b[n:]
        fmt = fmt.split(b"\0")[0]
        m = self.msg("ack", id=id_, ok=ok != 0)
        if ok and dl:
            if not body or b"\0" in body:
                return None
            self.downloads.append(body)
            m["download"] = f"/download/{self.state}/{len(self.downloads)}"
        elif not ok:
            m["error"] = text(body)
        elif body:
            m["message"] = text(body)
        if fmt:
            m["format"] = text(fmt)
        return [(m, 0)]

    def r_end(self, b):
        if b:
            return None
        return [(self.msg("end"), 0)]

    def catchup(self):
        out = []
        if self.hello:
            out.append(self.hello_msg())
        if self.status:
            out.append(self.status_msg())
        for i in range(0, self.nfuncs, FUNCS_MSG):
            out += self.functions_msg(range(i, min(i + FUNCS_MSG, self.nfuncs)))
        if self.table_t is not None:
            rows = [self.rows[k] for k in sorted(self.rows)]
            out.append((self.msg("table", t_ns=self.table_t, rows=rows), 0))
        kept = self.frames[-FRAMES_KEPT:]
        if self.pending:
            kept = kept[:-self.pending]
        if kept:
            out.append(self.frames_msg(kept, 0))
        for m, _ in self.spikes:
            out.append((m, 0))
        return out


def read_log(path):
    data = open(path, "rb").read()
    pos = 0

    def line():
        nonlocal pos
        end = data.index(b"\n", pos)
        s = data[pos:end].decode()
        pos = end + 1
        return s

    def blob(n):
        nonlocal pos
        b = data[pos:pos + n]
        if len(b) != n or data[pos + n:pos + n + 1] != b"\n":
            raise Mismatch("log: truncated")
        pos += n + 1
        return b

    while pos < len(data):
        words = line().split()
        if words[0] in ("feed", "m", "download"):
            n = int(words[-1])
            yield words, (blob(n) if n >= 0 else None)
        else:
            yield words, None


def check(path):
    model = None
    want = None              # the step's predicted messages
    step = ""
    it = read_log(path)
    nsteps = nmsgs = 0
    for words, b in it:
        w = words[0]
        if w == "sizes":
            for kv in words[1:]:
                k, v = kv.split("=")
                if S[k].size != int(v):
                    raise Mismatch(f"struct {k}: C has {v} bytes, the model "
                                   f"{S[k].size}")
        elif w == "view":
            model = Model(int(words[1]))
        elif w == "feed":
            kind, rc = int(words[1]), int(words[2])
            step = f"step {nsteps} (feed kind {kind}, {len(b)} bytes)"
            mrc, want = model.feed(kind, b)
            if mrc != rc:
                raise Mismatch(f"{step}: returned {rc}, the model {mrc}")
            if mrc < 0:
                model.bad += 1
            nsteps += 1
        elif w == "feednull":          # no bytes at all, len > 0
            step = f"step {nsteps} (feed kind {words[1]} from NULL)"
            if int(words[2]) != -1:
                raise Mismatch(f"{step}: returned {words[2]}, want -1")
            model.bad += 1
            want = []
            nsteps += 1
        elif w == "flush":
            step = f"step {nsteps} (flush)"
            want = model.flush()
            nsteps += 1
        elif w == "catchup":
            step = f"step {nsteps} (catchup)"
            want = model.catchup()
            nsteps += 1
        elif w == "out":
            n = int(words[1])
            if n != len(want):
                kinds = [m[0] if m[0] == "spike" else m[0]["type"] for m in want]
                raise Mismatch(f"{step}: {n} messages, want {len(want)} {kinds}")
            for i in range(n):
                mw, raw = next(it)
                if mw[0] != "m":
                    raise Mismatch("log: a message expected")
                got = parse(raw, f"{step} message {i}")
                exp, dr = want[i]
                if exp == "spike":            # a live spike: kept as sent
                    exp, dr = dr, 0
                    same(exp, got, f"{step} message {i}")
                    model.keep_spike(exp, len(raw))
                else:
                    same(exp, got, f"{step} message {i}")
                if int(mw[1]) != dr:
                    raise Mismatch(f"{step} message {i} ({got['type']}): "
                                   f"droppable {mw[1]}, want {dr}")
                nmsgs += 1
        elif w == "download":
            n = int(words[1])
            exp = model.downloads[n - 1] if 1 <= n <= len(model.downloads) else None
            if exp != b:
                raise Mismatch(f"download {n}: {b!r}, want {exp!r}")
        elif w == "bad":
            if int(words[1]) != model.bad:
                raise Mismatch(f"bad: {words[1]}, the model {model.bad}")
        else:
            raise Mismatch(f"log: {w}?")
    return nsteps, nmsgs


def main():
    try:
        steps, msgs = check(sys.argv[1])
    except Mismatch as e:
        print(f"check_view.py: {sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    print(f"check_view.py: {steps} steps, {msgs} messages as the model says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
