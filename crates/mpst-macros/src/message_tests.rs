//! Unit tests of `#[derive(Message)]` on token streams: the conversions it produces and
//! where each error points.

use super::expand;
use crate::test_support::{assert_errors, consts, expand_ok, fns, impls, pair, squash, types};
use quote::quote;

#[test]
fn each_label_gets_its_conversions_and_the_enum_its_names() {
    let file = expand_ok(
        expand,
        quote! {
            enum Label {
                Add(Add),
                #[message(label = "value")]
                Value(crate::Value),
            }
        },
    );
    assert_eq!(
        impls(&file),
        [
            pair("::mpst::Message<Add>", "Label"),
            pair("::core::convert::From<Add>", "Label"),
            pair("::core::convert::TryFrom<Label>", "Add"),
            pair("::mpst::Message<crate::Value>", "Label"),
            pair("::core::convert::From<crate::Value>", "Label"),
            pair("::core::convert::TryFrom<Label>", "crate::Value"),
            pair("::mpst::Labelled", "Label"),
        ]
    );
    assert_eq!(
        consts(&file),
        [
            ("NAME".to_string(), squash("\"Add\"")),
            ("NAME".to_string(), squash("\"value\"")),
            ("LABELS".to_string(), squash("&[\"Add\", \"value\"]")),
        ]
    );
    let error = ("Error".to_string(), squash("Label"));
    assert_eq!(types(&file), [error.clone(), error]);
    assert_eq!(
        fns(&file),
        [
            "upcast", "downcast", "from", "try_from", "upcast", "downcast", "from", "try_from",
            "label", "name_of", "sorts_of"
        ]
    );
}

#[test]
fn an_empty_label_enum_matches_on_nothing() {
    let file = expand_ok(
        expand,
        quote!(
            enum Never {}
        ),
    );
    assert_eq!(impls(&file), [pair("::mpst::Labelled", "Never")]);
    assert!(squash(&quote!(#file).to_string()).contains("match*self{}"));
}

#[test]
fn errors_point_at_the_offending_tokens() {
    let cases = [
        (
            "struct Label(Add);",
            "needs an enum with one variant per label",
            "Label",
        ),
        (
            "enum Label<T> { A(T) }",
            "does not support generic label enums",
            "<T>",
        ),
        (
            "enum Label { Add }",
            "wraps exactly one label type: `Add(Add)`",
            "Add",
        ),
        (
            "enum Label { Add(Add, u8) }",
            "wraps exactly one label type",
            "Add(Add, u8)",
        ),
        (
            "enum Label { Add { a: Add } }",
            "wraps exactly one label type",
            "Add { a: Add }",
        ),
        (
            "enum Label { A(Add), B(Add) }",
            "label type `Add` is used by two variants",
            "Add",
        ),
        (
            "enum Label { #[message(name = \"x\")] Add(Add) }",
            "expected `label = \"name\"`",
            "name",
        ),
        (
            "enum Label { #[message(label = \"x\", label = \"y\")] Add(Add) }",
            "the label name is given twice",
            "label",
        ),
        (
            "enum Label { #[message(label = 3)] Add(Add) }",
            "expected string literal",
            "3",
        ),
    ];
    assert_errors(expand, &cases);
}
