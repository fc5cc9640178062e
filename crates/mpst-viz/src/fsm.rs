//! One role's communicating FSM as an SVG picture, laid out in pure Rust by
//! `layout-rs` (a Sugiyama-style layered layout, as Graphviz's `dot`): no external
//! program is needed.
//!
//! States are circles numbered canonically (as every writer of `mpst-fsm` numbers
//! them, so a picture matches the DOT text); final states are double circles; a box
//! with the role's name points at the initial state; every transition is labelled
//! with its action in nuscr's notation (`S!ready()`, `S?value(i32)`).

use layout::backends::svg::SVGWriter;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::style::StyleAttr;
use layout::std_shapes::render::get_shape_size;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;
use mpst_fsm::{Direction, Fsm};

/// Font size of state numbers and transition labels, in pixels.
const FONT: usize = 14;

/// Machines with more states are not laid out: the layout's time grows much faster
/// than the machine (seconds for a thousand states), and such a picture is
/// unreadable anyway.
pub const MAX_STATES: usize = 300;

/// Machines with more states are laid out without crossing minimisation, which is
/// the expensive part.
const OPTIMISE_UP_TO: usize = 40;

fn element(shape: ShapeKind, look: StyleAttr) -> Element {
    let size = get_shape_size(Orientation::TopToBottom, &shape, look.font_size, false);
    Element::create(shape, look, Orientation::TopToBottom, size)
}

fn look(line: &str, fill: &str) -> StyleAttr {
    StyleAttr::new(Color::fast(line), 2, Some(Color::fast(fill)), 0, FONT)
}

/// `fsm` as a standalone SVG document (with its XML declaration), laid out top to
/// bottom from the initial state. Send transitions are drawn in blue, receives in
/// green; the label text of each is [`Action`](mpst_fsm::Action)'s display.
///
/// A machine of more than [`MAX_STATES`] reachable states is not drawn: the picture
/// then says how large it is and that its text formats show it.
pub fn fsm_svg(fsm: &Fsm) -> String {
    let fsm = fsm.canonical();
    if fsm.state_count() > MAX_STATES {
        return too_large(&fsm);
    }
    let mut graph = VisualGraph::new(Orientation::TopToBottom);
    let mut start_look = look("#444444", "#fff3c4");
    start_look.rounded = 8;
    let start = graph.add_node(element(ShapeKind::new_box(fsm.role()), start_look));
    let states: Vec<_> = (0..fsm.state_count())
        .map(|s| {
            let text = s.to_string();
            let shape = if fsm.is_final(s) {
                ShapeKind::new_double_circle(&text)
            } else {
                ShapeKind::new_circle(&text)
            };
            let fill = if s == fsm.initial() {
                "#fff3c4"
            } else {
                "white"
            };
            graph.add_node(element(shape, look("black", fill)))
        })
        .collect();
    graph.add_edge(Arrow::simple(""), start, states[fsm.initial()]);
    for (source, transition) in fsm.all_transitions() {
        let mut arrow = Arrow::simple(&transition.action.to_string());
        let colour = match transition.action.direction {
            Direction::Send => "#1f4e9e",
            Direction::Receive => "#1d7a3a",
        };
        arrow.look = look(colour, "white");
        graph.add_edge(arrow, states[source], states[transition.target]);
    }
    let mut writer = SVGWriter::new();
    let big = fsm.state_count() > OPTIMISE_UP_TO;
    graph.do_it(false, big, false, &mut writer);
    pad(&texts_last(&sorted_style(&writer.finalize())), 40.0)
}

/// Moves every `<text>` element to the end of the picture, so that labels (with
/// their [`HALO`]) are drawn over the edges rather than under them.
fn texts_last(svg: &str) -> String {
    let Some(end) = svg.rfind("</svg>") else {
        return svg.to_string();
    };
    let mut rest = String::with_capacity(svg.len());
    let mut texts = String::new();
    let mut tail = &svg[..end];
    while let Some(start) = tail.find("<text") {
        let Some(len) = tail[start..].find("</text>") else {
            break;
        };
        let stop = start + len + "</text>".len();
        rest.push_str(&tail[..start]);
        texts.push_str(&tail[start..stop]);
        texts.push('\n');
        tail = &tail[stop..];
    }
    rest.push_str(tail);
    rest.push_str(&texts);
    rest.push_str(&svg[end..]);
    rest
}

/// Labels drawn over a white outline.
const HALO: &str =
    "text { paint-order: stroke; stroke: white; stroke-width: 4px; stroke-linejoin: round; }\n";

/// `layout-rs` writes its font classes from a hash map, in an order that changes from
/// run to run; sorting them makes equal machines give equal pictures. Adds [`HALO`].
fn sorted_style(svg: &str) -> String {
    let (Some(start), Some(end)) = (svg.find("<style>\n"), svg.find("</style>")) else {
        return svg.to_string();
    };
    let body = start + "<style>\n".len();
    if end < body {
        return svg.to_string();
    }
    let mut rules: Vec<&str> = svg[body..end].lines().collect();
    rules.sort_unstable();
    let mut out = svg[..body].to_string();
    for rule in rules {
        out.push_str(rule);
        out.push('\n');
    }
    // A white halo keeps a label readable where it crosses its own edge.
    out.push_str(HALO);
    out.push_str(&svg[end..]);
    out
}

/// The stand-in picture of a machine too large to draw.
fn too_large(fsm: &Fsm) -> String {
    let text = format!(
        "{} states and {} transitions: too large to draw (at most {MAX_STATES} states); \
         see it with --format dot or mermaid",
        fsm.state_count(),
        fsm.transition_count()
    );
    let width = crate::svg::text_width(&text, 14.0) + 40.0;
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg class=\"fsm too-large\" \
         xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"70\" viewBox=\"0 0 {width:.0} 70\" \
         font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/>\
         <text x=\"20\" y=\"28\" font-size=\"16\" font-weight=\"bold\">{}</text>\
         <text x=\"20\" y=\"52\" font-size=\"14\">{}</text></svg>\n",
        crate::svg::escape(fsm.role()),
        crate::svg::escape(&text)
    )
}

/// Widens the picture by `margin` on every side: `layout-rs` sizes the picture to its
/// nodes, and an edge label near the edge would be cut off.
fn pad(svg: &str, margin: f64) -> String {
    let Some(start) = svg.find("<svg ") else {
        return svg.to_string();
    };
    let Some(len) = svg[start..].find('>') else {
        return svg.to_string();
    };
    let head = &svg[start..start + len];
    let number = |name: &str| -> Option<f64> {
        let at = head.find(&format!("{name}=\""))? + name.len() + 2;
        let end = head[at..].find('"')? + at;
        head[at..end].parse().ok()
    };
    let (Some(w), Some(h)) = (number("width"), number("height")) else {
        return svg.to_string();
    };
    let (w2, h2) = (w + 2.0 * margin, h + 2.0 * margin);
    format!(
        "{}<svg class=\"fsm\" width=\"{w2}\" height=\"{h2}\" viewBox=\"{m} {m} {w2} {h2}\" \
         xmlns=\"http://www.w3.org/2000/svg\">{}",
        &svg[..start],
        &svg[start + len + 1..],
        m = -margin,
    )
}
