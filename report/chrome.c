/*
** chrome.c -- `chrome`: the Trace Event Format (JSON object form) that
** Perfetto and chrome://tracing open.  One track (tid) per Lua thread: the
** main thread and each coroutine; calls are B/E duration events, yields and
** resumes instant events.  Built from the trace of trace mode; a trace
** is always balanced: calls still open where it stops (the run ended
** inside them, or the buffer filled) are closed at the last timestamp, and
** calls that began before its first event (a ring that kept the recent
** events overwrote their begins; trace mode was turned on inside them) are
** begun at its first timestamp, flagged "begun_before_trace".  Synthesized
** rather than left out: an end without a begin is an import error in
** Perfetto and dropped by chrome://tracing, and what was open when the
** ring starts is the game loop and the frame's callers, the context a
** late spike is read in.
**
** Zones are calls too, in category "zone" (functions: "lua"), so a viewer
** can tell them apart or filter them.  With frame marking, the kept frames
** (li_pframe) are complete events on a track of their own, "frames", at the
** top, also when trace mode was off; spike frames carry "spike": true and a
** warning colour.  Frame marks in the trace ('F') are global instants, a
** line across every track.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writers.h"

/* The frames' track: a tid no Lua thread has (they count up from 0). */
#define FRAMES_TID 2147483647u

/* Open frames of one thread while the trace is replayed. */
typedef struct track {
  uint32_t *func;       /* functions of the open calls, bottom first */
  uint32_t n, cap;
  int seen;             /* its name was written */
  uint32_t *before;     /* calls begun before the trace, innermost first */
  uint32_t nbefore, capbefore;
} track;

/* Timestamps are microseconds with nanosecond digits. */
static void put_ts(FILE *f, uint64_t ns) {
  fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/* The frame's name, "name (source:line)" so that functions stay apart, a
** zone's own name ("zone NAME"): made once per function (names[func],
** malloc'd on first use), not once per event.  NULL: out of memory. */
static const char *frame_name(const li_profile *p, char **names, uint32_t func) {
  const li_pfunc *fn = &p->funcs[func];
  size_t n;
  if (names[func] != NULL) return names[func];
  n = strlen(fn->name) + strlen(fn->source) + 16;
  names[func] = malloc(n);
  if (names[func] == NULL) return NULL;
  if (fn->zone) snprintf(names[func], n, "%s", fn->name);
  else if (fn->line == 0) snprintf(names[func], n, "%s (%s)", fn->name, fn->source);
  else snprintf(names[func], n, "%s (%s:%" PRIu32 ")", fn->name, fn->source, fn->line);
  return names[func];
}

/* error: 1 an exit by an error, 2 a call begun before the trace */
static int put_event(FILE *f, const li_profile *p, char **names, char ph,
                     uint32_t func, uint32_t tid, uint64_t ts, int error,
                     int *first) {
  const char *name = frame_name(p, names, func);
  if (name == NULL) return 0;
  fputs(*first ? "\n" : ",\n", f);
  *first = 0;
  fputs("{\"name\":", f);
  li_json_string(f, name);
  fprintf(f, ",\"cat\":\"%s\",\"ph\":\"%c\",\"pid\":1,\"tid\":%" PRIu32 ",\"ts\":",
          p->funcs[func].zone ? "zone" : "lua", ph, tid);
  put_ts(f, ts);
  if (error) fputs(error == 1 ? ",\"args\":{\"error\":true}"
                              : ",\"args\":{\"begun_before_trace\":true}", f);
  putc('}', f);
  return 1;
}

static int grow_tracks(track **t, uint32_t *n, uint32_t need) {
  if (need <= *n) return 1;
  track *nt = realloc(*t, (size_t)need * sizeof *nt);
  if (nt == NULL) return 0;
  memset(&nt[*n], 0, (size_t)(need - *n) * sizeof *nt);
  *t = nt;
  *n = need;
  return 1;
}

static int push_on(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t func) {
  if (*n == *cap) {
    uint32_t c = *cap ? *cap * 2 : 32;
    uint32_t *nv = realloc(*v, (size_t)c * sizeof *nv);
    if (nv == NULL) return 0;
    *v = nv;
    *cap = c;
  }
  (*v)[(*n)++] = func;
  return 1;
}

static int push(track *t, uint32_t func) {
  return push_on(&t->func, &t->n, &t->cap, func);
}

/* The calls each thread had open when the trace began: ends that come
** before any begin of that depth, innermost first.  0: out of memory. */
static int find_before(const li_profile *p, track **tr, uint32_t *ntr) {
  int ok = 1;
  for (uint64_t i = 0; i < p->nevents && ok; i++) {
    const li_pevent *e = &p->events[i];
    track *t;
    if (e->func >= p->nfuncs || (e->kind != 'B' && e->kind != 'E' && e->kind != 'X'))
      continue;
    if (!grow_tracks(tr, ntr, e->thread + 1)) return 0;
    t = &(*tr)[e->thread];
    if (e->kind == 'B') t->n++;                 /* (n: a depth here) */
    else if (t->n > 0) t->n--;
    else ok = push_on(&t->before, &t->nbefore, &t->capbefore, e->func);
  }
  for (uint32_t tid = 0; tid < *ntr; tid++) (*tr)[tid].n = 0;
  return ok;
}

/* A thread's name, the first time it is seen. */
static void put_thread(FILE *f, track *t, uint32_t tid, int *first) {
  if (t->seen) return;
  t->seen = 1;
  fputs(*first ? "\n" : ",\n", f);
  *first = 0;
  fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%"
          PRIu32 ",\"args\":{\"name\":", tid);
  if (tid == 0) fputs("\"main thread\"", f);
  else fprintf(f, "\"coroutine %" PRIu32 "\"", tid);
  fputs("}}", f);
}

/* Begin the calls open before the trace at its first timestamp, outermost
** first, so that their ends close them. */
static int put_before(FILE *f, const li_profile *p, char **names, track *tr,
                      uint32_t ntr, int *first) {
  uint64_t ts = p->nevents > 0 ? p->events[0].ts_ns : 0;
  for (uint32_t tid = 0; tid < ntr; tid++) {
    track *t = &tr[tid];
    if (t->nbefore > 0) put_thread(f, t, tid, first);
    for (uint32_t i = t->nbefore; i-- > 0;)
      if (!push(t, t->before[i]) ||
          !put_event(f, p, names, 'B', t->before[i], tid, ts, 2, first))
        return 0;
  }
  return 1;
}

/* The kept frames, one complete event each, on the frames' track. */
static void put_frames(FILE *f, const li_profile *p, int *first) {
  uint64_t n = p->frames != NULL ? p->nframes : 0;
  if (n == 0) return;
  fprintf(f, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
          "\"args\":{\"name\":\"frames\"}},\n"
          "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
          "\"args\":{\"sort_index\":-1}}", *first ? "\n" : ",\n",
          FRAMES_TID, FRAMES_TID);
  *first = 0;
  for (uint64_t i = 0; i < n; i++) {
    const li_pframe *fr = &p->frames[i];
    fprintf(f, ",\n{\"name\":\"frame %" PRIu64 "\",\"cat\":\"frame\",\"ph\":\"X\","
            "\"pid\":1,\"tid\":%u,\"ts\":", fr->index, FRAMES_TID);
    put_ts(f, fr->start_ns);
    fputs(",\"dur\":", f);
    put_ts(f, fr->duration_ns);
    fprintf(f, ",\"args\":{\"index\":%" PRIu64 ",\"calls\":%" PRIu64
            ",\"alloc_bytes\":%" PRIu64 ",\"spike\":%s}%s}", fr->index,
            fr->calls, fr->alloc_bytes, fr->spike ? "true" : "false",
            fr->spike ? ",\"cname\":\"terrible\"" : "");
  }
}

int li_write_chrome(const li_profile *p, FILE *f) {
  track *tr = NULL;
  uint32_t ntr = 0, tid;
  uint64_t last = 0;
  int first = 1, ok = 1;
  char **names = calloc(p->nfuncs ? p->nfuncs : 1, sizeof *names);
  if (names == NULL) return -1;
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
  ok = find_before(p, &tr, &ntr) && put_before(f, p, names, tr, ntr, &first);
  if (ok && p->events_dropped > 0 && p->trace_recent && p->nevents > 0) {
    fputs(first ? "\n" : ",\n", f);
    first = 0;
    fprintf(f, "{\"name\":\"luainstr: trace ring, %" PRIu64 " older events "
            "overwritten before here\",\"ph\":\"i\",\"s\":\"g\",\"pid\":1,"
            "\"tid\":0,\"ts\":", p->events_dropped);
    put_ts(f, p->events[0].ts_ns);
    putc('}', f);
  }
  for (uint64_t i = 0; i < p->nevents && ok; i++) {
    const li_pevent *e = &p->events[i];
    if (!grow_tracks(&tr, &ntr, e->thread + 1)) { ok = 0; break; }
    put_thread(f, &tr[e->thread], e->thread, &first);
    last = e->ts_ns;
    switch (e->kind) {
    case 'B':
      if (e->func >= p->nfuncs || !push(&tr[e->thread], e->func)) break;
      ok = put_event(f, p, names, 'B', e->func, e->thread, e->ts_ns, 0, &first);
      break;
    case 'E': case 'X':
      if (tr[e->thread].n == 0 || e->func >= p->nfuncs) break;  /* (none) */
      tr[e->thread].n--;
      ok = put_event(f, p, names, 'E', e->func, e->thread, e->ts_ns,
                     e->kind == 'X', &first);
      break;
    case 'Y': case 'R':
      fputs(first ? "\n" : ",\n", f);
      first = 0;
      fprintf(f, "{\"name\":\"%s\",\"cat\":\"coroutine\",\"ph\":\"i\",\"s\":\"t\","
              "\"pid\":1,\"tid\":%" PRIu32 ",\"ts\":",
              e->kind == 'Y' ? "yield" : "resume", e->thread);
      put_ts(f, e->ts_ns);
      putc('}', f);
      break;
    case 'F':
      fputs(first ? "\n" : ",\n", f);
      first = 0;
      fprintf(f, "{\"name\":\"frame mark\",\"cat\":\"frame\",\"ph\":\"i\","
              "\"s\":\"g\",\"pid\":1,\"tid\":%" PRIu32 ",\"ts\":", e->thread);
      put_ts(f, e->ts_ns);
      putc('}', f);
      break;
    default:
      break;
    }
  }
  /* close what is still open, innermost first, at the trace's end */
  for (tid = 0; tid < ntr && ok; tid++)
    while (tr[tid].n > 0 && ok) {
      uint32_t func = tr[tid].func[--tr[tid].n];
      ok = put_event(f, p, names, 'E', func, tid, last, 0, &first);
    }
  if (p->events_dropped > 0 && !p->trace_recent) {
    fputs(first ? "\n" : ",\n", f);
    first = 0;
    fprintf(f, "{\"name\":\"luainstr: trace buffer full, %" PRIu64
            " events dropped from here on\",\"ph\":\"i\",\"s\":\"g\",\"pid\":1,"
            "\"tid\":0,\"ts\":", p->events_dropped);
    put_ts(f, last);
    putc('}', f);
  }
  if (ok) put_frames(f, p, &first);
  fputs("\n],\n\"otherData\":{\"generator\":\"luainstr\",", f);
  if (p->version != NULL) {
    fputs("\"luainstr\":", f);
    li_json_string(f, p->version);
    putc(',', f);
  }
  fputs("\"tracing\":", f);
  fputs(p->tracing ? "true" : "false", f);
  fprintf(f, ",\"events\":%" PRIu64 ",\"events_dropped\":%" PRIu64
          ",\"trace_capacity\":%" PRIu64, p->nevents, p->events_dropped,
          p->trace_capacity);
  if (p->trace_recent) fputs(",\"trace_keeps\":\"recent\"", f);
  if (p->count_small > 0)   /* counted functions have no events: say why */
    fprintf(f, ",\"count_small\":%" PRIu32 ",\"counted\":\"functions of at "
            "most %" PRIu32 " tokens with no call or loop were counted, not "
            "timed: no events of their own, their time in their callers'\"",
            p->count_small, p->count_small);
  if (p->framing)       /* only then: traces without frames stay as they were */
    fprintf(f, ",\"framing\":true,\"frames\":%" PRIu64 ",\"frames_marked\":%"
            PRIu64 ",\"spikes_seen\":%" PRIu64,
            p->frames != NULL ? p->nframes : 0, p->frames_marked,
            p->spikes_seen);
  fputs(",\"note\":", f);
  if (!p->tracing)
    li_json_string(f, "trace mode was off: no calls were recorded (luaprof "
                      "-f chrome or --trace, or luainstr_set_option(L, "
                      "\"trace\", \"on\"), or p.trace())");
  else if (p->events_dropped > 0 && p->trace_recent)
    li_json_string(f, "the trace ring kept the most recent events: older "
                      "ones were overwritten (events_dropped); calls open "
                      "at its start begin at its first timestamp");
  else if (p->events_dropped > 0)
    li_json_string(f, "the trace buffer filled up: later events were dropped "
                      "(raise it with --trace=N or p.trace(N), or keep the "
                      "recent ones: --trace=recent)");
  else
    li_json_string(f, "complete");
  fputs("}}\n", f);
  for (tid = 0; tid < ntr; tid++) free(tr[tid].func), free(tr[tid].before);
  free(tr);
  for (uint32_t i = 0; i < p->nfuncs; i++) free(names[i]);
  free(names);
  if (!ok) return -1;
  return ferror(f) ? -1 : 0;
}
