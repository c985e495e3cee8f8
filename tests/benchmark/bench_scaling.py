"""What bounds UST's two threads on two CPUs (bench.py --only=scaling,
manual 10.7): the two-int typed event with 1 and 2 threads, 10 M events a
thread so that a run lasts long enough to be timed on a shared machine,
with ustd draining the rings and in a flight recorder (UST_OVERWRITE=1),
whose rings nobody drains while the program runs. Both against the same
ustd, the four interleaved run by run; speed-ups are the medians of the
per-run ratios. The difference is what the drain takes from the writers
when both share the machine's CPUs."""

import statistics

EVENTS = 10000000
VARIANTS = (("drained", {}), ("flight recorder", {"UST_OVERWRITE": "1"}))


def measure(ust, runs, log):
    """{(variant, threads): [ns/event per run]}, {variant: events
    discarded in all}."""
    env = ust.extra_env
    items = [(label, more, n) for label, more in VARIANTS for n in (1, 2)]
    out = {(label, n): [] for label, _, n in items}
    lost = {label: 0 for label, _ in VARIANTS}
    ust.start()
    try:
        for _ in range(runs):
            for label, more, n in items:
                ust.session("ints")
                ust.extra_env = dict(env, **more)
                out[(label, n)].append(ust.fire("ints", n, EVENTS)[0])
                ust.extra_env = env
                lost[label] += ust.trace_stats()[1]
    finally:
        ust.extra_env = env
        ust.stop()
    for (label, n), v in out.items():
        log("UST ints x%d, %s: %s ns/event" % (n, label, " ".join("%.1f" % x for x in v)))
    return out, lost


def table(r, lost):
    rows = ["| UST, typed event, two ints, %d M events a thread | 1 thread, ns/event | "
            "2 threads, ns/event | 2 threads / 1 thread, events/s | events discarded |"
            % (EVENTS // 1000000), "|---|---|---|---|---|"]
    for label, _ in VARIANTS:
        one, two = r[(label, 1)], r[(label, 2)]
        rows.append("| %s | %.1f | %.1f | %.2f× (%.2f–%.2f) | %s |"
                    % ("ustd draining the rings" if label == "drained"
                       else "flight recorder (nothing drained)",
                       statistics.median(one), statistics.median(two),
                       statistics.median(a / b for a, b in zip(one, two)),
                       min(a / b for a, b in zip(one, two)),
                       max(a / b for a, b in zip(one, two)),
                       lost[label] if label == "drained" else "– (overwritten)"))
    return "\n".join(rows)
