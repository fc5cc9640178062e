//! The pictures of the command line as a user gets them: `mpst project --format svg`,
//! `mpst chart` and `mpst report`, the report also opened in headless Chromium.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{code, example, exits_with, mpst, stderr, stdout};

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_report");
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir.join(name)
}

/// The double-buffering kernel made to wait for the value before asking for it: no
/// subtype of its projection, and the system deadlocks.
const BAD_KERNEL: &str = "digraph K {
  0 -> 1 [label=\"S?value(i32)\"];
  1 -> 2 [label=\"S!ready()\"];
  2 -> 3 [label=\"T?ready()\"];
  3 -> 0 [label=\"T!value(i32)\"];
}
";

/// The text of every `<text>` element of an SVG document, which must parse as XML.
fn svg_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG parses as XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.tag_name().name() == "text")
        .map(|n| {
            let text: String = n
                .descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect();
            text.trim().to_string()
        })
        .collect()
}

#[test]
fn project_prints_the_machine_as_svg_with_every_label() {
    let out = mpst(&[
        "project",
        &example("two_adder"),
        "--role",
        "C",
        "--format",
        "svg",
    ]);
    assert_eq!(code(&out), 0);
    let texts = svg_texts(&stdout(&out));
    let dot = stdout(&mpst(&["project", &example("two_adder"), "--role", "C"]));
    let fsm = &mpst_fsm::format::parse_dot(&dot).expect("DOT")[0];
    for (_, t) in fsm.all_transitions() {
        assert!(
            texts.contains(&t.action.to_string()),
            "{} in {texts:?}",
            t.action
        );
    }
}

#[test]
fn chart_prints_the_global_protocol_as_svg() {
    let out = mpst(&["chart", &example("travel_agency")]);
    assert_eq!(code(&out), 0);
    let texts = svg_texts(&stdout(&out));
    for expected in [
        "C",
        "A",
        "S",
        "query(String)",
        "[choice at C]",
        "[rec Loop]",
        "loop",
        "alt",
    ] {
        assert!(
            texts.iter().any(|t| t == expected),
            "no `{expected}` in {texts:?}"
        );
    }
    let several = tmp("two.scr");
    std::fs::write(
        &several,
        "global protocol P(role A, role B) { m() from A to B; }\n\
         global protocol Q(role A, role B) { n() from B to A; }\n",
    )
    .expect("writable");
    let out = mpst(&["chart", several.to_str().expect("UTF-8")]);
    assert_eq!(code(&out), 2, "several protocols and none chosen");
    let out = mpst(&["chart", several.to_str().expect("UTF-8"), "-p", "Q"]);
    assert_eq!(code(&out), 0);
    assert!(svg_texts(&stdout(&out)).contains(&"n()".to_string()));
}

/// Writes the report of `file` (with `extra` arguments) to `name`; returns the exit
/// code and the page.
fn report(file: &str, extra: &[&str], name: &str) -> (i32, PathBuf, String) {
    let path = tmp(name);
    let mut args = vec!["report", file, "-o", path.to_str().expect("UTF-8")];
    args.extend_from_slice(extra);
    let out = mpst(&args);
    let html = std::fs::read_to_string(&path).unwrap_or_default();
    (code(&out), path, html)
}

/// Writes [`BAD_KERNEL`] to a file of its own for test `name` (tests run in
/// parallel) and returns the `--optimised` argument naming it.
fn bad_kernel(name: &str) -> String {
    let dot = tmp(&format!("bad_kernel_{name}.dot"));
    std::fs::write(&dot, BAD_KERNEL).expect("writable");
    format!("K={}", dot.display())
}

#[test]
fn report_of_a_valid_protocol_holds_and_shows_every_machine() {
    let (code, _, html) = report(&example("travel_agency"), &[], "valid.html");
    assert_eq!(code, 0);
    assert_eq!(html.matches("<figure class=\"machine\"").count(), 3);
    assert_eq!(html.matches("<figure class=\"chart\"").count(), 1);
    assert_eq!(html.matches("<figure class=\"counterexample\"").count(), 0);
    assert!(html.contains("holds for k = 1"));
    for remote in ["src=", "<link", "href=\"http", "url(http", "@import"] {
        assert!(
            !html.contains(remote),
            "the page loads nothing from elsewhere: {remote}"
        );
    }
}

#[test]
fn report_with_a_bad_optimised_role_fails_and_charts_what_goes_wrong() {
    let (code, _, html) = report(
        &example("double_buffering"),
        &["--optimised", &bad_kernel("cli")],
        "bad.html",
    );
    assert_eq!(code, 1);
    assert_eq!(
        html.matches("<figure class=\"machine\"").count(),
        4,
        "3 projections and the optimised K"
    );
    assert_eq!(
        html.matches("<figure class=\"counterexample\"").count(),
        2,
        "refutation and k-MC run"
    );
    assert!(html.contains("not a subtype"));
    assert!(html.contains("progress fails"));
    let (code, _, _) = report(
        &example("travel_agency"),
        &["--optimised", &bad_kernel("no_such_role")],
        "no_such_role.html",
    );
    assert_eq!(code, 2, "role K is not in the travel agency");
}

/// A choice whose second branch starts at the wrong role: the error is at that branch,
/// its secondary label "the choice is made here" at the `choice` line.
const WRONG_SENDER: &str = "global protocol WrongSender(role A, role B) {
  choice at A {
    yes() from A to B;
  } or {
    no() from B to A;
  }
}
";

#[test]
fn a_secondary_label_is_shown_under_its_own_line_and_the_machines_have_a_legend() {
    let file = tmp("wrong_sender.scr");
    std::fs::write(&file, WRONG_SENDER).expect("writable");
    let (code, _, html) = report(file.to_str().expect("UTF-8"), &[], "wrong_sender.html");
    assert_eq!(code, 1, "{html}");
    let choice = html
        .find(">  choice at A {</span>")
        .expect("the choice line");
    let secondary = html
        .find("<span class=\"diag secondary\">↑ the choice is made here (for the error on line 5)")
        .expect("the secondary label, naming the error's line");
    let next_line = html[choice..].find("<span class=\"line").unwrap() + choice;
    assert!(
        choice < secondary && secondary < next_line,
        "the label sits right under the choice line: {html}"
    );
    let error = html.find("<span class=\"diag\">error:").expect("the error");
    let branch = html.find(">    no() from B to A;</span>").unwrap();
    assert!(branch < error, "the error sits under its own line");
    let message = &html[error..html[error..].find("</span>").unwrap() + error];
    assert!(
        !message.contains("the choice is made here"),
        "the secondary label is not repeated in the error's message: {message}"
    );

    let (_, _, valid) = report(&example("travel_agency"), &[], "legend.html");
    let legend = valid
        .split("<h3>Machines</h3>\n")
        .nth(1)
        .and_then(|rest| rest.split("</p>").next())
        .expect("a legend under the machines' heading");
    for meaning in ["send", "receive", "initial state", "final state"] {
        assert!(legend.contains(meaning), "{meaning} in {legend}");
    }
}

/// A file `name` whose second line has a syntax error.
fn malformed(name: &str) -> PathBuf {
    let file = tmp(name);
    let source = "global protocol P(role A, role B) {\n  m() from A to ;\n}\n";
    std::fs::write(&file, source).expect("writable");
    file
}

#[test]
fn report_of_malformed_input_still_shows_the_source_and_its_error() {
    let file = malformed("malformed.scr");
    let (code, _, html) = report(file.to_str().expect("UTF-8"), &[], "malformed.html");
    assert_eq!(code, 2);
    assert!(html.contains("line flagged"), "the bad line is highlighted");
    assert!(
        html.contains("class=\"diag\""),
        "the error is shown under it"
    );
}

#[test]
fn report_of_malformed_input_gives_the_located_error_of_check() {
    let file = malformed("malformed_like_check.scr");
    let page = tmp("malformed_like_check.html");
    let run = |command: &[&str]| {
        let file = file.to_str().expect("UTF-8");
        mpst(&[command, &[file, "--color", "never"]].concat())
    };
    let err = exits_with(&run(&["check"]), 2, "malformed_like_check.scr:2:");
    let report = run(&["report", "-o", page.to_str().expect("UTF-8")]);
    assert_eq!(code(&report), 2);
    assert_eq!(stderr(&report), err, "report and check say the same");
}

/// Chromium, if installed: `MPST_CHROMIUM`, or `chromium` / `chromium-browser` on
/// the usual paths.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("MPST_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// Runs headless Chromium on `page` with `mode` (`--dump-dom` or `--screenshot=…`),
/// at most two minutes (coreutils' `timeout`); returns stdout and stderr.
fn headless(browser: &Path, page: &Path, mode: &str, profile: &str) -> (String, String) {
    let profile = tmp(profile);
    let out = Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,2000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(mode)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let (out_text, err_text) = (
        stdout(&out),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "chromium failed: {err_text}");
    (out_text, err_text)
}

/// The value of `attribute` on the element with id `id` in serialised HTML.
fn attribute(html: &str, id: &str, attribute: &str) -> Option<String> {
    let at = html.find(&format!("id=\"{id}\""))?;
    let start = html[..at].rfind('<')?;
    let end = at + html[at..].find('>')?;
    let tag = &html[start..end];
    let key = format!("{attribute}=\"");
    let from = tag.find(&key)? + key.len();
    Some(tag[from..from + tag[from..].find('"')?].to_string())
}

#[test]
fn reports_render_in_headless_chromium_without_errors() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have chromium (apt-get install chromium) for the browser test"
        );
        println!("skipped: no chromium (install Debian's `chromium` to run this test)");
        return;
    };
    let wrong_sender = tmp("browser_wrong_sender.scr");
    std::fs::write(&wrong_sender, WRONG_SENDER).expect("writable");
    let cases = [
        (example("travel_agency"), vec![], 3usize, "valid"),
        (
            example("double_buffering"),
            vec!["--optimised".to_string(), bad_kernel("browser")],
            4,
            "violation",
        ),
        (wrong_sender.display().to_string(), vec![], 0, "invalid"),
    ];
    for (file, extra, machines, name) in cases {
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let (_, page, html) = report(&file, &extra, &format!("browser-{name}.html"));
        assert!(!html.is_empty());
        let (dom, log) = headless(&browser, &page, "--dump-dom", &format!("profile-{name}"));
        let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
        assert!(console.is_empty(), "{name}: console messages: {console:?}");
        assert_eq!(
            attribute(&dom, "self-check", "data-status").as_deref(),
            Some("ok"),
            "{name}: the page's self-check: {:?}",
            attribute(&dom, "self-check", "data-problems")
        );
        // Counted in the DOM the browser built: one SVG per machine plus the chart.
        assert_eq!(
            dom.matches("<figure class=\"machine\"").count(),
            machines,
            "{name}"
        );
        assert_eq!(dom.matches("<figure class=\"chart\"").count(), 1, "{name}");
        let svgs = dom.matches("<svg").count();
        let figures = dom.matches("<figure").count();
        assert_eq!(svgs, figures, "{name}: every figure holds one SVG");
        assert_eq!(
            attribute(&dom, "self-check", "data-pictures"),
            Some(figures.to_string())
        );
        let png = tmp(&format!("report-{name}.png"));
        let _ = std::fs::remove_file(&png);
        headless(
            &browser,
            &page,
            &format!("--screenshot={}", png.display()),
            &format!("profile-{name}"),
        );
        let bytes = std::fs::read(&png).expect("a screenshot");
        assert!(bytes.starts_with(b"\x89PNG"), "{name}: a PNG");
        assert!(
            bytes.len() > 20_000,
            "{name}: the screenshot shows something ({} bytes)",
            bytes.len()
        );
        println!("{name}: screenshot at {}", png.display());
    }
}

/// The pictures committed under `docs/` are what the commands beside them in
/// `docs/PICTURES.md` print today.
#[test]
fn the_committed_pictures_are_up_to_date() {
    let docs = support::repo().join("docs");
    let cases: [(&str, Vec<String>); 2] = [
        (
            "travel_agency_chart.svg",
            vec!["chart".into(), example("travel_agency")],
        ),
        (
            "double_buffering_k.svg",
            vec![
                "project".into(),
                example("double_buffering"),
                "--role".into(),
                "K".into(),
                "--format".into(),
                "svg".into(),
            ],
        ),
    ];
    for (file, args) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = mpst(&args);
        assert_eq!(code(&out), 0);
        let committed = std::fs::read_to_string(docs.join(file)).expect("committed");
        assert!(
            stdout(&out) == committed,
            "docs/{file} is out of date: run `mpst {}` > docs/{file}",
            args.join(" ")
        );
    }
}
