#!/usr/bin/env bash
# Issue 27, "names that read unambiguously": renames the use sites of four names across
# the repository. The definitions, the deprecated aliases and the reasons are hand-made
# (ARCHITECTURE.md, section "Names"); this script only moves the users to the new names:
#
#   mpst_choreo::Roles![A, B]   -> mpst_choreo::RoleSet![A, B]   (the type of a role set;
#                                  `roles!`, which declares roles, keeps its name)
#   mpst_choreo::Config         -> mpst_choreo::EndpointConfig
#   mpst::net::Config           -> mpst::net::NetConfig
#   mpst::net::Endpoint         -> mpst::net::BoundRole          (bound, not yet connected)
#
# Idempotent (a second run changes nothing) and safe to re-run after merging other
# branches: it rewrites whole words only, and only where the file says which `Config` or
# `Endpoint` it means (a path, an import, a method only one of them has). Lines that carry
# the marker `rename-27: keep` (the deprecated aliases and their tests), and the region
# between `rename-27: keep-start` and `rename-27: keep-end` (ARCHITECTURE.md's record of
# the old names), are left alone.
# Other crates' `Config`s (`WireConfig`, `TcpConfig`, an enum variant `Kind::Config(..)`)
# and the comparison peers' own types (comparison/peers) are never touched. It ends with
# `cargo fmt --all`, which sorts the renamed imports.
#
# Usage: scripts/rename-27.sh   (from anywhere inside the repository)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

program=$(mktemp)
trap 'rm -f "$program"' EXIT
cat >"$program" <<'PERL'
my $path = $ARGV;
# Which `Config`/`Endpoint` a file means, decided before anything is rewritten (so a
# second run, or a file half converted, is read the same way): by where it is or what
# it imports.
my $choreo = $path =~ m{(^|/)crates/mpst-choreo/}
    || /use\s+(mpst_choreo|crate::endpoint)::(\{[^{}]*\b(Endpoint)?Config\b[^{}]*\}|(Endpoint)?Config\b)/;
my $net = $path =~ m{(^|/)crates/mpst/src/net/}
    || /use\s+mpst::net::(\{[^{}]*\b(NetConfig|Config|BoundRole|Endpoint)\b[^{}]*\}|(NetConfig|Config|BoundRole|Endpoint)\b)/;
my $mentions_choreo = /\bmpst_choreo\b/ || $path =~ m{(^|/)crates/mpst-choreo};
my @kept;
# Regions between lines marked `rename-27: keep-start` and `rename-27: keep-end` (the
# record of the old names in ARCHITECTURE.md), and lines marked `rename-27: keep`, are
# put aside and restored unchanged at the end.
s{^[^\n]*rename-27: keep-start.*?rename-27: keep-end[^\n]*$}{push @kept, $&; "\x{1}KEEP$#kept\x{1}"}gmse;
s{^.*rename-27: keep.*$}{push @kept, $&; "\x{1}KEEP$#kept\x{1}"}gme;

# A bare `Config`/`Endpoint` that names a type: not a variant (`Kind::Config(..)`), not
# part of a longer name (`WireConfig`).
my $bare_config = qr/(?<!Kind::)(?<!Error::)(?<!\w)Config\b(?!\s*\()/;
my $bare_endpoint = qr/(?<!\w)(?<!::)Endpoint\b(?!\s*\()/;

# --- Roles! -> RoleSet! ---------------------------------------------------------------
s/\]\((crate|mpst_choreo)::Roles\)/]($1::RoleSet!)/g; # a doc link: the macro, not the trait
s/\bRoles!/RoleSet!/g;
s/\b(mpst_choreo|\$crate)::Roles\b/$1::RoleSet/g;
s/\bcrate::Roles\b/crate::RoleSet/g if $path =~ m{(^|/)crates/mpst-choreo/src/};
# Imports of the macro: `RoleSet` names the trait and the macro at once.
my $imports = sub {
    my ($list) = @_;
    return $list unless $list =~ /\bRoles\b/;
    if ($list =~ /\bRoleSet\b/) {
        $list =~ s/\bRoles\b\s*,\s*//g;
        $list =~ s/,\s*\bRoles\b//g;
    } else {
        $list =~ s/\bRoles\b/RoleSet/g;
    }
    $list;
};
s{(use\s+mpst_choreo::\{)([^{}]*)(\})}{$1 . $imports->($2) . $3}ge;
s{\buse\s+mpst_choreo::Roles;}{use mpst_choreo::RoleSet;}g;
if ($path =~ m{(^|/)crates/mpst-choreo/src/}) {
    s{(use\s+crate::\{)([^{}]*)(\})}{$1 . $imports->($2) . $3}ge;
}

# --- Config -> EndpointConfig (mpst_choreo) and NetConfig (mpst::net) -----------------
s/\bmpst_choreo::Config\b/mpst_choreo::EndpointConfig/g;
s/\b(mpst::net|net::config)::Config\b/$1::NetConfig/g;
# Members only one of the two has (the session runtime's only where it is meant: its
# crate, the examples, prose, or a file that uses `mpst::net`).
s/\bConfig(::|\.|\s*\{\s*)(recv_timeout|unclaimed_limit|unclaimed_bytes|unclaimed_age|ignore_keys|ignores_keys)\b/EndpointConfig$1$2/g;
s/\bConfig::(new|from_toml|from_wire|listen|peer|peer_without_address|dialled_by|identity|identity_files|insecure_plaintext|fingerprint|expect|connect_timeout|handshake_timeout|max_pending_handshakes|receive_timeout|idle_timeout|max_frame_length|flush_threshold|wire|role|protocol|peers|dials|bind|connect)\b/NetConfig::$1/g
    if $path =~ m{(^|/)(crates/mpst/|examples/)|\.(md|toml)$} || /\bmpst::net\b/;
# Only the endpoint's has `default()` (the network one is built from a protocol and a
# role).
s/\bConfig::default\(\)/EndpointConfig::default()/g if $mentions_choreo || $path =~ /\.md$/;
# ARCHITECTURE.md's code map names the session runtime's in prose.
s/`Config` wrapping `WireConfig`/`NetConfig` wrapping `WireConfig`/g;
# Files that say which one they mean.
if ($choreo && !$net) {
    s/$bare_config/EndpointConfig/g;
} elsif ($net && !$choreo) {
    s/$bare_config/NetConfig/g;
}

# --- mpst::net::Endpoint -> BoundRole --------------------------------------------------
s/\bmpst::net::Endpoint\b/mpst::net::BoundRole/g;
s/\bsuper::Endpoint\b/super::BoundRole/g if $path =~ m{(^|/)crates/mpst/src/net/};
s/$bare_endpoint/BoundRole/g if $net && !$mentions_choreo;

s{\x{1}KEEP(\d+)\x{1}}{$kept[$1]}g;
PERL

git ls-files -z -- '*.rs' '*.md' '*.stderr' '*.snap' '*.toml' \
    ':!:comparison/peers/**' ':!:scripts/rename-27.sh' \
    | xargs -0 perl -0777 -i -p "$program"

cargo fmt --all
