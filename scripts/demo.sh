#!/usr/bin/env bash
# The main job on a bundled example, end to end: the double-buffering protocol of the
# PPoPP 2022 paper is validated and projected, the optimised kernel is proved safe by
# asynchronous subtyping and the whole optimised system by k-MC, its Rust API is
# generated, and the hand-written processes run.
set -euo pipefail
cd "$(dirname "$0")/.."

scr=examples/double_buffering/double_buffering.scr
optimised=examples/double_buffering/kernel_optimised.dot
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cargo build --quiet -p mpst-cli
mpst=target/debug/mpst

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "mpst check $scr"
"$mpst" check "$scr"

for role in S K T; do
  "$mpst" project "$scr" --role "$role" > "$out/$role.dot"
done
step "mpst project $scr --role K"
cat "$out/K.dot"

step "mpst subtype $optimised (optimised kernel) against the projection of K"
"$mpst" subtype "$optimised" "$out/K.dot"

step "mpst kmc: the optimised kernel with the projected source and sink"
"$mpst" kmc "$optimised" "$out/S.dot" "$out/T.dot" --k 1..=4

step "mpst generate $scr --optimised K=$optimised (the kernel's session types)"
"$mpst" generate "$scr" --optimised "K=$optimised" -o "$out/api.rs"
grep -E '^pub (type|struct) K(Session|Optimised)\b' "$out/api.rs"

step "the processes, plain and with the optimised kernel (hand-written, then generated beside unchanged peers)"
cargo run --quiet -p mpst-examples --example double_buffering
cargo run --quiet -p mpst-examples --example optimised_double_buffering
cargo run --quiet -p mpst-examples --example built_double_buffering
