//! Reads criterion's results back: every `new/benchmark.json` under the criterion
//! directory with its sibling `estimates.json`.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One benchmark: `<group>/<implementation>/<runtime>/<size>` and its timing.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The protocol: `stream`, `double_buffering` or `fft`.
    pub group: String,
    /// The implementation, e.g. `ours-optimised`.
    pub implementation: String,
    /// `multi-thread`, `current-thread`, `threads` or `sequential`.
    pub runtime: String,
    /// The benchmark's `n`.
    pub size: usize,
    /// Median time of one run, in nanoseconds.
    pub median_ns: f64,
    /// Lower and upper bound of the median's 95% confidence interval, in nanoseconds.
    pub median_ci_ns: (f64, f64),
    /// Time of one run in the fastest sample (criterion's `sample.json`), in nanoseconds:
    /// the estimate least disturbed by other jobs on a shared machine.
    pub best_ns: f64,
}

impl Measurement {
    /// Throughput in `n` per microsecond (the unit of the paper's Appendix C.1).
    pub fn throughput(&self) -> f64 {
        self.size as f64 / self.median_ns * 1_000.0
    }

    /// Throughput of the fastest sample, in `n` per microsecond.
    pub fn best_throughput(&self) -> f64 {
        self.size as f64 / self.best_ns * 1_000.0
    }

    /// Half-width of the median's confidence interval relative to the median.
    pub fn relative_spread(&self) -> f64 {
        (self.median_ci_ns.1 - self.median_ci_ns.0) / 2.0 / self.median_ns
    }
}

#[derive(Deserialize)]
struct Benchmark {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
}

#[derive(Deserialize)]
struct Estimates {
    median: Estimate,
}

#[derive(Deserialize)]
struct Samples {
    iters: Vec<f64>,
    times: Vec<f64>,
}

#[derive(Deserialize)]
struct Estimate {
    point_estimate: f64,
    confidence_interval: Interval,
}

#[derive(Deserialize)]
struct Interval {
    lower_bound: f64,
    upper_bound: f64,
}

/// Why results could not be read.
#[derive(Debug)]
pub struct ReadError {
    /// The file concerned.
    pub path: PathBuf,
    /// What was wrong with it.
    pub reason: String,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, ReadError> {
    let error = |reason: String| ReadError {
        path: path.to_owned(),
        reason,
    };
    let text = fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| error(format!("not criterion's format: {e}")))
}

/// Reads one `new/` directory; `None` when it is not one of ours (no `impl/runtime` id).
fn read_one(new: &Path) -> Result<Option<Measurement>, ReadError> {
    let benchmark: Benchmark = read_json(&new.join("benchmark.json"))?;
    let estimates: Estimates = read_json(&new.join("estimates.json"))?;
    let samples: Samples = read_json(&new.join("sample.json"))?;
    let best_ns = samples
        .iters
        .iter()
        .zip(&samples.times)
        .filter(|(iters, _)| **iters > 0.0)
        .map(|(iters, time)| time / iters)
        .fold(f64::INFINITY, f64::min);
    let (Some(function), Some(value)) = (benchmark.function_id, benchmark.value_str) else {
        return Ok(None);
    };
    let Some((implementation, runtime)) = function.split_once('/') else {
        return Ok(None);
    };
    let Ok(size) = value.parse() else {
        return Ok(None);
    };
    let median = estimates.median;
    Ok(Some(Measurement {
        group: benchmark.group_id,
        implementation: implementation.to_owned(),
        runtime: runtime.to_owned(),
        size,
        median_ns: median.point_estimate,
        median_ci_ns: (
            median.confidence_interval.lower_bound,
            median.confidence_interval.upper_bound,
        ),
        best_ns: if best_ns.is_finite() {
            best_ns
        } else {
            median.point_estimate
        },
    }))
}

/// Every measurement under `dir` (criterion's output directory), sorted.
pub fn read_all(dir: &Path) -> Result<Vec<Measurement>, ReadError> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(current) = pending.pop() {
        let entries = fs::read_dir(&current).map_err(|e| ReadError {
            path: current.clone(),
            reason: e.to_string(),
        })?;
        for entry in entries.flatten() {
            let path = entry.path();
            if !path.is_dir() {
                continue;
            }
            if path.file_name().is_some_and(|name| name == "new")
                && path.join("benchmark.json").is_file()
            {
                found.extend(read_one(&path)?);
            } else if path.file_name().is_none_or(|name| name != "report") {
                pending.push(path);
            }
        }
    }
    found.sort_by(|a, b| {
        (&a.group, &a.implementation, &a.runtime, a.size).cmp(&(
            &b.group,
            &b.implementation,
            &b.runtime,
            b.size,
        ))
    });
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, benchmark: &str, median: f64) {
        fs::create_dir_all(dir).unwrap();
        fs::write(dir.join("benchmark.json"), benchmark).unwrap();
        let ci = format!(
            r#"{{"confidence_level":0.95,"lower_bound":{},"upper_bound":{}}}"#,
            median - 10.0,
            median + 10.0
        );
        let estimate = format!(
            r#"{{"confidence_interval":{ci},"point_estimate":{median},"standard_error":1.0}}"#
        );
        let estimates = format!(
            r#"{{"mean":{estimate},"median":{estimate},"median_abs_dev":{estimate},"slope":null,"std_dev":{estimate}}}"#
        );
        fs::write(dir.join("estimates.json"), estimates).unwrap();
        let samples = format!(
            r#"{{"sampling_mode":"Linear","iters":[1.0,2.0],"times":[{},{}]}}"#,
            median * 1.5,
            median * 1.8
        );
        fs::write(dir.join("sample.json"), samples).unwrap();
    }

    #[test]
    fn reads_our_benchmarks_and_skips_others() {
        let root = std::env::temp_dir().join(format!("report-results-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        write(
            &root.join("stream/ours_multi-thread/10/new"),
            r#"{"group_id":"stream","function_id":"ours/multi-thread","value_str":"10","throughput":{"Elements":10},"full_id":"stream/ours/multi-thread/10","directory_name":"stream/ours_multi-thread/10","title":"stream/ours/multi-thread/10"}"#,
            2000.0,
        );
        write(
            &root.join("other/x/new"),
            r#"{"group_id":"other","function_id":null,"value_str":null,"throughput":null,"full_id":"other","directory_name":"other","title":"other"}"#,
            5.0,
        );
        let found = read_all(&root).unwrap();
        fs::remove_dir_all(&root).unwrap();
        assert_eq!(found.len(), 1);
        let m = &found[0];
        assert_eq!(
            (
                m.group.as_str(),
                m.implementation.as_str(),
                m.runtime.as_str(),
                m.size
            ),
            ("stream", "ours", "multi-thread", 10)
        );
        assert!(
            (m.throughput() - 5.0).abs() < 1e-9,
            "10 per 2 µs is 5 per µs"
        );
        assert!((m.relative_spread() - 0.005).abs() < 1e-9);
        assert!(
            (m.best_ns - 1800.0).abs() < 1e-9,
            "the faster of 3000/1 and 3600/2 ns"
        );
    }

    #[test]
    fn a_malformed_file_names_itself() {
        let root = std::env::temp_dir().join(format!("report-bad-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let new = root.join("g/f/1/new");
        fs::create_dir_all(&new).unwrap();
        fs::write(new.join("benchmark.json"), "{").unwrap();
        let error = read_all(&root).unwrap_err();
        fs::remove_dir_all(&root).unwrap();
        assert!(error.path.ends_with("benchmark.json"), "{error}");
    }
}
