//! The README's list of `mpst` commands is what `mpst --help` and each subcommand's
//! `--help` say: the same subcommands, and for each the same long options.

use crate::support;

use std::collections::BTreeSet;

use support::{mpst, repo, stdout};

/// The lines of the README's `text` block that lists the commands (`mpst check ...`).
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let (_, after) = readme
        .split_once("## The `mpst` command\n\n```text\n")
        .expect("the README has a section `The mpst command` opening with a text block");
    let (block, _) = after.split_once("```").expect("the block ends");
    block.lines().map(str::to_string).collect()
}

/// The long options (`--name`) in `text`, but `--help`, `--version` and `--color` (which
/// every command has, and the README describes once below the list).
fn long_options(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (i, _) in text.match_indices("--") {
        let name: String = text[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if !name.is_empty() && !["help", "version", "color"].contains(&name.as_str()) {
            found.insert(name);
        }
    }
    found
}

/// The long options of a README line, with each short one (`-o`) written as the long
/// one that `help` pairs it with (`-o, --output`).
fn readme_options(line: &str, help: &str) -> BTreeSet<String> {
    let mut options = long_options(line);
    for word in line.split_whitespace() {
        let word = word.trim_start_matches('[');
        let short = word.len() == 2 && word.starts_with('-') && word != "--";
        if !short {
            continue;
        }
        let paired = help
            .lines()
            .find_map(|l| l.trim_start().strip_prefix(&format!("{word}, ")))
            .unwrap_or_else(|| panic!("{word} of `{line}` is not in the help:\n{help}"));
        options.extend(long_options(paired.split_whitespace().next().unwrap_or("")));
    }
    options
}

/// The subcommands `mpst --help` lists, but `help`.
fn subcommands() -> Vec<String> {
    let help = stdout(&mpst(&["--help"]));
    let (_, list) = help.split_once("Commands:\n").expect("a command list");
    list.lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_lists_every_subcommand_with_the_options_of_its_help() {
    let lines = readme_commands();
    let listed: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    let commands = subcommands();
    assert!(commands.len() >= 9, "{commands:?}");
    let mut sorted_listed: Vec<&str> = listed.clone();
    sorted_listed.sort_unstable();
    let mut sorted_commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    sorted_commands.sort_unstable();
    assert_eq!(sorted_listed, sorted_commands, "README vs `mpst --help`");
    for command in &commands {
        let line = lines
            .iter()
            .find(|l| l.split_whitespace().nth(1) == Some(command.as_str()))
            .unwrap();
        let help = stdout(&mpst(&[command, "--help"]));
        let usage_and_options = help.split("\nExit status").next().unwrap_or(&help);
        assert_eq!(
            readme_options(line, usage_and_options),
            long_options(usage_and_options),
            "the README's `mpst {command}` line vs `mpst {command} --help`"
        );
    }
}
