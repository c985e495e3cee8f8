"""Thread buffers for typed events (bench.py --only=thread-buffers,
manual 10.1): the two-int typed event of the events section, with 1 and 2
threads, in UST's per-CPU buffers, in its thread buffers
(UST_THREAD_BUFFERS=8 for every channel) and in LTTng-UST, the three
interleaved run by run against the same ustd and sessiond. Ratios are the
medians of the per-run ratios; the trace is read back each round to count
what was recorded and discarded."""

import statistics

THREADS = 8


def measure(ust, lt, runs, events, log):
    """{(variant, threads): [ns/event of each run]}, and the discards."""
    variants = [("UST, per-CPU buffers", {}),
                ("UST, thread buffers", {"UST_THREAD_BUFFERS": str(THREADS)})]
    res, lost, env = {}, {}, ust.extra_env
    ust.start()
    if lt:
        lt.start()
    try:
        for _ in range(runs):
            for n in (1, 2):
                for label, extra in variants:
                    ust.session("ints")
                    ust.extra_env = dict(env, **extra)
                    ns = ust.fire("ints", n, events)[0]
                    ust.extra_env = env
                    total, discarded = ust.trace_stats()
                    res.setdefault((label, n), []).append(ns)
                    lost[label] = lost.get(label, 0) + discarded
                    log("%s x%d: %.1f ns/event" % (label, n, ns))
                if lt:
                    token = lt.session("ints")
                    ns = lt.fire("ints", n, events)[0]
                    lt.end_session(token)
                    _, discarded = lt.trace_stats()
                    res.setdefault(("LTTng-UST", n), []).append(ns)
                    lost["LTTng-UST"] = lost.get("LTTng-UST", 0) + discarded
    finally:
        ust.stop()
        if lt:
            lt.stop()
    return res, lost


def table(res, lost, runs, events):
    out = ["| typed event, %d runs of %d events per thread | 1 thread, ns/event | "
           "2 threads, ns/event (wall / all) | 2 threads / 1 thread | ÷ LTTng-UST, 1 thread | "
           "events discarded |" % (runs, events), "|---|---|---|---|---|---|"]
    lt1 = res.get(("LTTng-UST", 1))
    for label in ("UST, per-CPU buffers", "UST, thread buffers", "LTTng-UST"):
        one, two = res.get((label, 1)), res.get((label, 2))
        if not one:
            continue
        speed = statistics.median(a / b for a, b in zip(one, two))
        ratio = ("%.2f" % statistics.median(a / b for a, b in zip(one, lt1))
                 if lt1 else "–")
        out.append("| %s | %.1f (%.1f–%.1f) | %.1f (%.1f–%.1f) | %.2fx | %s | %d |" %
                   (label, statistics.median(one), min(one), max(one), statistics.median(two),
                    min(two), max(two), speed, ratio, lost.get(label, 0)))
    return "\n".join(out)
