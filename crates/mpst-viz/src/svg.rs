//! Small SVG helpers shared by the pictures: escaping, text width estimates, and
//! making a standalone SVG fit inline in an HTML page next to others.

/// Escapes `text` for XML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Approximate width in pixels of `text` in a sans-serif font of `size` pixels: wide
/// enough for layout, never measured (no font is at hand in a pure function).
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.62
}

/// Rewrites a standalone SVG document for inlining in HTML: drops the XML
/// declaration, and prefixes every `id` (and every `#id` reference to it) with
/// `prefix`, so that two pictures on one page never share an id — a label of one
/// machine must never follow the edge path of another.
pub fn inline(svg: &str, prefix: &str) -> String {
    let body = match svg.find("<svg") {
        Some(start) => &svg[start..],
        None => svg,
    };
    body.replace("id=\"", &format!("id=\"{prefix}"))
        .replace("url(#", &format!("url(#{prefix}"))
        .replace("href=\"#", &format!("href=\"#{prefix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_control_characters() {
        assert_eq!(escape("a<b>&\"'\u{1}"), "a&lt;b&gt;&amp;&quot;&apos; ");
    }

    #[test]
    fn inline_scopes_ids_and_references() {
        let svg = "<?xml version=\"1.0\"?><svg><path id=\"arrow1\"/>\
                   <textPath href=\"#arrow1\"/><g clip-path=\"url(#C0)\"/></svg>";
        assert_eq!(
            inline(svg, "k-"),
            "<svg><path id=\"k-arrow1\"/><textPath href=\"#k-arrow1\"/>\
             <g clip-path=\"url(#k-C0)\"/></svg>"
        );
    }
}
