"""mergecheck.py -- what tests/merge/run.sh's checks of merged reports
share: a csv report's rows by function, and the rule for merged peaks and
one call's min and max."""
import csv


def rows(path):
    with open(path, newline="") as f:
        return {(r["name"], r["source"], r["line"]): r for r in csv.DictReader(f)}
def check_min_max(o, have, k):
    # peaks: the most; one call's min and max: the least and the most,
    # unknown (0) when a report where it took time does not know them (pprof)
    for c in ("peak_live_bytes", "max_alloc_bytes"):
        assert int(o[c]) == max(int(r[c]) for r in have), (k, c)
    ran = [r for r in have if int(r["calls"]) > 0]
    if any(int(r["max_ns"]) == 0 and int(r["total_ns"]) > 0 for r in ran):
        assert int(o["min_ns"]) == 0 and int(o["max_ns"]) == 0, (k, "min/max")
    else:
        assert int(o["max_ns"]) == max(int(r["max_ns"]) for r in have), (k, "max_ns")
        assert int(o["min_ns"]) == min([int(r["min_ns"]) for r in ran] or [0]), (k, "min_ns")
