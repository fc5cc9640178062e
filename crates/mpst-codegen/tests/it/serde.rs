//! `Options::serde`: the generated labels derive serde's traits, and nothing else changes.

#[test]
fn three_buyers_with_serde_derives() {
    let source = include_str!("../../../../examples/three_buyers/three_buyers.scr");
    let loaded = mpst_scribble::load("three_buyers.scr", source, None).unwrap();
    let fsms = mpst_codegen::role_fsms(&loaded, &[], 10).unwrap();
    let options = mpst_codegen::Options::default().serde(true);
    let code = mpst_codegen::generate_with("ThreeBuyers", &fsms, &options).unwrap();
    insta::assert_snapshot!(code);
    let plain = mpst_codegen::generate("ThreeBuyers", &fsms).unwrap();
    assert_eq!(
        code.replace(", serde::Serialize, serde::Deserialize", ""),
        plain
    );
    assert_eq!(code.matches("serde::Deserialize").count(), 1 + 12);
}

#[test]
fn the_channel_type_can_be_chosen() {
    let source = include_str!("../../../../examples/three_buyers/three_buyers.scr");
    let loaded = mpst_scribble::load("three_buyers.scr", source, None).unwrap();
    let fsms = mpst_codegen::role_fsms(&loaded, &[], 10).unwrap();
    let options = mpst_codegen::Options::default().channel("mpst::net::AnyRoute<Label>");
    let code = mpst_codegen::generate_with("ThreeBuyers", &fsms, &options).unwrap();
    assert!(
        code.contains("pub type Channel = mpst::net::AnyRoute<Label>;\n"),
        "{code}"
    );
    let plain = mpst_codegen::generate("ThreeBuyers", &fsms).unwrap();
    assert_eq!(code.lines().count(), plain.lines().count());
}
