//! Smoke test of the impaired-links evaluation (`-- --impaired`): every implementation
//! with every role on its own host of a test bed, one small delay with jitter, a
//! fraction of a second of each benchmark. Every session completes and the merged
//! `impaired_links` has exactly its documented shape, the other results untouched. No
//! timing is asserted. Needs root (network namespaces): without it the test prints a
//! SKIPPED line, and fails when `CI` is set.

use mpst_choreo_eval::drive::Implementation;
use mpst_choreo_eval::impaired::{self, Plan, report};

const TEST: &str = "impaired_links_complete_every_session_and_merge_in_shape";

#[test]
fn impaired_links_complete_every_session_and_merge_in_shape() {
    let plan = Plan::smoke(7);
    let outcome = match impaired::run(&plan) {
        Ok(outcome) => outcome,
        Err(e @ mpst_testbed::Error::Unavailable(_)) => {
            mpst_testbed::skip_or_fail(TEST, &e);
            return;
        }
        Err(e) => panic!("{TEST}: {e}"),
    };
    // Every implementation ran both benchmarks, and every session completed.
    for imp in Implementation::ALL {
        for benchmark in ["concurrent_send", "model_serving"] {
            let runs: Vec<_> = outcome
                .runs
                .iter()
                .filter(|m| m.implementation == imp && m.benchmark == benchmark)
                .filter(|m| !m.control)
                .collect();
            assert_eq!(runs.len(), 1, "{imp:?} {benchmark}: one run");
            let s = &runs[0].summary;
            assert_eq!(runs[0].failures, 0, "{imp:?} {benchmark}: failed sessions");
            assert!(s.requests > 0, "{imp:?} {benchmark}: {s:?}");
            assert_eq!(
                s.answered, s.requests,
                "{imp:?} {benchmark}: every answer: {s:?}"
            );
        }
    }

    // The A/A control: the actors ran concurrent send once more, with and without costs,
    // and answered every session; nothing else has a control run.
    let controls: Vec<_> = outcome.runs.iter().filter(|m| m.control).collect();
    let mut control_benchmarks: Vec<&str> = controls.iter().map(|m| m.benchmark.as_str()).collect();
    control_benchmarks.sort();
    assert_eq!(control_benchmarks, [impaired::SEND, impaired::HOPS]);
    for m in &controls {
        assert_eq!(m.implementation, Implementation::Actors, "{m:?}");
        assert_eq!(m.failures, 0, "{m:?}");
        assert_eq!(m.summary.answered, m.summary.requests, "{m:?}");
    }

    // The key compared session by session, with costs and without, at the one delay:
    // every implementation's sessions after the warm-up, each number finite.
    let mut benchmarks: Vec<&str> = outcome
        .comparisons
        .iter()
        .map(|c| c.benchmark.as_str())
        .collect();
    benchmarks.sort();
    assert_eq!(benchmarks, [impaired::SEND, impaired::HOPS]);
    for c in &outcome.comparisons {
        assert_eq!(c.delay_ms, plan.delays_ms[0], "{c:?}");
        assert!(c.sessions > 0, "{c:?}");
        let control = c.actors_over_actors.expect("the A/A control compared");
        for i in [
            c.out_of_order_over_actors,
            c.out_of_order_minus_actors_ms,
            c.in_order_minus_out_of_order_ms,
            control,
        ] {
            let numbers = [i.estimate, i.low, i.high];
            assert!(
                numbers.iter().all(|x| x.is_finite()) && i.low <= i.high,
                "{c:?}"
            );
        }
    }

    // Merged into a results.json that has other results: they stay as they were.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let other = serde_json::json!({"producers": {"points": [1, 2, 3]}, "run": {"x": 1.5}});
    std::fs::write(dir.path().join("results.json"), other.to_string()).expect("written");
    let details = report::Details {
        command: "smoke".into(),
        wall_seconds: 0.0,
        load_before: String::new(),
        load_after: String::new(),
        plan: serde_json::to_value(&plan).expect("the plan serialises"),
        plan_text: plan.describe(),
        jitter: plan.jitter,
        send_cost_medians_ms: plan.send_cost_medians(),
        runs: outcome.runs.clone(),
        comparisons: outcome.comparisons.clone(),
    };
    report::merge(dir.path(), &outcome.links, &details).expect("merged");
    let text = std::fs::read_to_string(dir.path().join("results.json")).expect("read");
    let mut json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let links = json
        .as_object_mut()
        .and_then(|m| m.remove(report::KEY))
        .expect("impaired_links is there");
    assert_eq!(json, other, "the other results are untouched");

    // Exactly {"<delay ms>": {"in_order" | "out_of_order" | "actors":
    //   {"key_median_ms": .., "saturation_rps": ..}}}.
    let delays = links.as_object().expect("an object of delays");
    let want: Vec<String> = plan.delays_ms.iter().map(u64::to_string).collect();
    let mut got: Vec<String> = delays.keys().cloned().collect();
    got.sort();
    assert_eq!(got, want);
    for (delay, cells) in delays {
        let cells = cells.as_object().expect("an object of implementations");
        let mut names: Vec<&str> = cells.keys().map(String::as_str).collect();
        names.sort();
        assert_eq!(
            names,
            ["actors", "in_order", "out_of_order"],
            "at {delay} ms"
        );
        for (imp, cell) in cells {
            let cell = cell.as_object().expect("an object of numbers");
            let mut fields: Vec<&str> = cell.keys().map(String::as_str).collect();
            fields.sort();
            assert_eq!(
                fields,
                ["key_median_ms", "saturation_rps"],
                "{delay} ms {imp}"
            );
            // A median latency is positive; a saturation may be 0 on a loaded machine
            // (nothing completed inside a run's half-second window: 50 runs beside two
            // busy loops saw in-order model serving answer every request, after ~1 s),
            // and timing is not what this test asserts.
            for (field, v) in cell {
                let v = v.as_f64().expect("a number");
                let least = if field == "saturation_rps" {
                    0.0
                } else {
                    f64::MIN_POSITIVE
                };
                assert!(v.is_finite() && v >= least, "{delay} ms {imp} {field}: {v}");
            }
        }
    }

    // The section renders from it, with both plots.
    let links: impaired::Links = serde_json::from_value(links).expect("reads back");
    let section = report::section(dir.path(), &links).expect("rendered");
    assert!(
        section.contains("A/A control: actors / actors") && section.contains("The A/A control"),
        "the control's column and reading in the section"
    );
    for plot in ["impaired_key_median.svg", "impaired_saturation.svg"] {
        assert!(section.contains(plot), "{plot} in the section");
        let svg = std::fs::read_to_string(dir.path().join(plot)).expect("the plot");
        assert_eq!(svg.matches("<polyline").count(), 3, "{plot}: one line each");
    }
}
