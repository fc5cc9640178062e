//! Renders the pictures of a Scribble file's protocols to stdout (a development aid:
//! `cargo run -p mpst-viz --example render -- FILE.scr > out.html`).

fn main() {
    let path = std::env::args().nth(1).expect("a .scr path");
    let source = std::fs::read_to_string(path).expect("readable");
    let protocols = mpst_scribble::parse(&source).expect("parses");
    println!("<!doctype html><html><body>");
    for p in &protocols {
        println!(
            "{}",
            mpst_viz::svg::inline(&mpst_viz::global_chart(p), "g-")
        );
        for (i, proj) in mpst_scribble::project_all(p)
            .expect("projects")
            .iter()
            .enumerate()
        {
            println!(
                "{}",
                mpst_viz::svg::inline(&mpst_viz::fsm_svg(&proj.fsm), &format!("f{i}-"))
            );
        }
    }
    println!("</body></html>");
}
