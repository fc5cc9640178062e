"""Turns the JSON lines of `send_profile --late` into evaluation/profile/lateness.md."""
import json
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
seconds, rounds, load_before, load_after = sys.argv[2:6]
IMPS = ("in_order", "out_of_order", "actors")
print(f"Timer lateness (`evaluation/profile/lateness.sh {seconds} {rounds}`: the benchmark "
      "with its seeded costs, 50 requests/s, two worker threads; `ks` and `cs` note how late "
      "each session started (due time to the service's code running: the scheduled start's "
      "wake-up) and how late each work's sleep "
      "woke (deadline to the task running again); median / p99 in ms per run, "
      f"{rounds} alternating runs each; load average {load_before} before, {load_after} "
      "after):\n")
print("| implementation | sessions | ks start | ks work | cs start | cs work | "
      "`key` from costs alone | from costs + lateness | measured | rest (hops) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    s = dict((n, v) for n, v in r["series"])
    cells = " | ".join(f"{s[n]['median_ms']:.3f} / {s[n]['p99_ms']:.3f}"
                       for n in ("ks start", "ks work", "cs start", "cs work"))
    print(f"| {r['implementation']} | {r['sessions']} | {cells} | {r['cost_key_ms']:.3f} | {r['predicted_key_ms']:.3f} | "
          f"{r['key_ms']:.3f} | {r['key_ms'] - r['predicted_key_ms']:+.3f} |")

print("\nEach work's lateness split (median / p99 in ms): the timer's thread firing after the "
      "deadline (the harness's part) and the handoff from the firing to the task running "
      "again (the implementation's wake-up path).\n")
def series_table(names, digits=3):
    """One row per run: each of `names` as median / p99 in ms ("–" if not noted)."""
    print("| implementation | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for r in rows:
        s = dict((n, v) for n, v in r["series"])
        cells = " | ".join(f"{s[n]['median_ms']:.{digits}f} / {s[n]['p99_ms']:.3f}" if n in s
                           else "–" for n in names)
        print(f"| {r['implementation']} | {cells} |")


series_table(("ks fire", "ks handoff", "cs fire", "cs handoff"))

print("\n`key`'s delivery (median / p99 in ms): from `ks`'s work done to `key` recorded at `c`, "
      "noted by the services themselves, so the same span for every implementation: the send, "
      "`s`'s forward and every task switch between (in order it includes waiting for `txt`, "
      "which `s` forwards first).\n")
series_table(("key delivery",), digits=4)

def mean(imp, f):
    v = [f(r) for r in rows if r["implementation"] == imp]
    return sum(v) / max(len(v), 1)


def series(r, name, stat):
    return dict((n, v) for n, v in r["series"])[name][stat]


key = {i: mean(i, lambda r: r["key_ms"]) for i in IMPS}
pred = {i: mean(i, lambda r: r["predicted_key_ms"]) for i in IMPS}
ideal = {i: mean(i, lambda r: r["cost_key_ms"]) for i in IMPS}
ks_late = {i: mean(i, lambda r: series(r, "ks start", "mean_ms") + series(r, "ks work", "mean_ms"))
           for i in IMPS}
cs_late = {i: mean(i, lambda r: series(r, "cs start", "mean_ms") + series(r, "cs work", "mean_ms"))
           for i in IMPS}
red = lambda d: 100 * (1 - d["out_of_order"] / d["in_order"])
print(f"\nAveraged over the runs: `key` measured {key['in_order']:.3f} ms in order, "
      f"{key['out_of_order']:.3f} ms out of order ({-red(key):+.1f}%), {key['actors']:.3f} ms "
      f"for the actors. Costs plus the noted lateness alone give {pred['in_order']:.3f} and "
      f"{pred['out_of_order']:.3f} ms ({-red(pred):+.1f}%), the costs alone "
      f"{ideal['in_order']:.3f} and {ideal['out_of_order']:.3f} ms ({-red(ideal):+.1f}%): of what "
      "the runs add to the costs at the median, lateness accounts for "
      + ", ".join(f"{100 * (pred[i] - ideal[i]) / max(key[i] - ideal[i], 1e-9):.0f}% {n}"
                  for i, n in zip(IMPS, ("in order", "out of order", "for the actors")))
      + f"; the rest, the hops "
      f"`ks` → `s` → `c`, is {key['in_order'] - pred['in_order']:+.3f} ms in order and "
      f"{key['out_of_order'] - pred['out_of_order']:+.3f} ms out of order. Mean lateness of "
      f"`ks` (start + work): {ks_late['in_order']:.3f} ms in order, "
      f"{ks_late['out_of_order']:.3f} ms out of order, {ks_late['actors']:.3f} ms for the "
      f"actors; of `cs`: {cs_late['in_order']:.3f}, {cs_late['out_of_order']:.3f}, "
      f"{cs_late['actors']:.3f} ms.")
hops = max(key[i] - pred[i] for i in ("in_order", "out_of_order"))
if hops < 0.1:
    print(f"\nSo lateness, not the hops, is what the runs add to the costs: with it, the costs "
          f"reproduce every implementation's measured `key` median to within {hops:.3f} ms. The "
          "zero-cost profile above cannot show it: a zero cost skips the work's sleep, so neither "
          "its wake-up nor, in order, the later of two late wake-ups (`s` forwards `key` after "
          "`txt`) is in it. Mean `ks` lateness (start + work) out of order against in order: "
          f"{ks_late['out_of_order'] - ks_late['in_order']:+.3f} ms (both run each session in "
          "the role's own task, started by the same wake-up of its scheduled start).")
delivery = {i: mean(i, lambda r: dict((n, v) for n, v in r["series"]).get(
    "key delivery", {"median_ms": float("nan")})["median_ms"]) for i in IMPS}
gap = key["out_of_order"] - key["actors"]
print(f"\nAgainst the actors: `key` out of order is {gap:+.3f} ms from theirs on average; its "
      f"delivery from `ks` to `c` takes {1e3 * delivery['out_of_order']:.1f} µs at the median "
      f"against their {1e3 * delivery['actors']:.1f} µs "
      f"({1e3 * (delivery['out_of_order'] - delivery['actors']):+.1f} µs), while the start and "
      f"the work's wake-up differ by run more than between them (mean `ks` lateness above). "
      "The hop trace above splits the choreographies' delivery hop by hop.")
print(f"\nThe goal cannot be reached by lowering lateness: the costs alone, over the sessions the "
      f"median counts (after the warm-up), allow {-red(ideal):+.1f}%, and any overhead both "
      "forms share only shrinks the relative gain. A fix that made out of order reach −25% would "
      "have to slow in order down.")
