//! The legends of the report: what the colours and shapes of its pictures mean, drawn
//! with the same colours as the pictures (in CSS, so that every SVG of the page is a
//! figure's picture).

/// A legend entry: a mark styled by `style` (CSS), then `text`.
fn entry(style: &str, text: &str) -> String {
    format!("<span><i class=\"mark\" style=\"{style}\"></i>{text}</span>")
}

/// A short line in `colour`, `solid` or `dashed`.
fn line(colour: &str, kind: &str) -> String {
    format!("width:26px;height:0;border-top:2px {kind} {colour}")
}

/// What the colours and shapes of the machine pictures mean.
pub(super) fn machines_legend() -> String {
    let state = "width:12px;height:12px;border-radius:50%";
    format!(
        "<p class=\"legend\">{}{}{}{}</p>\n",
        entry(&line("#1f4e9e", "solid"), "send <code>Peer!label</code>"),
        entry(&line("#1d7a3a", "solid"), "receive <code>Peer?label</code>"),
        entry(
            &format!("{state};background:#fff3c4;border:1px solid black"),
            "initial state"
        ),
        entry(
            &format!("{state};background:white;border:3px double black"),
            "final state"
        ),
    )
}

/// What the colours of the charts of runs that go wrong mean.
pub(super) fn counterexamples_legend() -> String {
    format!(
        "<p class=\"legend\">{}{}{}</p>\n",
        entry(&line("#1f2937", "solid"), "a message sent and received"),
        entry(
            &line("#b3261e", "dashed"),
            "a message sent and never received"
        ),
        entry(
            "width:14px;height:9px;background:#fde8e7;border:1px solid #b3261e",
            "what goes wrong"
        ),
    )
}
