//! `mpst certs`: issue development identities for mutual TLS — a deployment CA and one
//! certificate and key per role, each certificate naming its role and protocol (the
//! scheme of `mpst_wire::names`) — taking the roles from a Scribble protocol or from
//! `--role`.

use std::path::PathBuf;

use crate::load::scribble::load;
use crate::{Outcome, UsageError, output};

/// Arguments of `mpst certs`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Writes DIR/ca.pem (trusted by every role), DIR/ca.key (the CA's \
secret: whoever holds it can issue any role), and DIR/<role>.pem and DIR/<role>.key per role \
(keys readable by their owner only). Existing files are never overwritten. The certificates \
name the protocol string the runtimes configure (`WireConfig::new(protocol, role)`): pass it \
with --name (default: the Scribble protocol's name). Exit status: 0 = written; 2 = bad usage, \
an unreadable or malformed file, an unusable role name, or existing files."
)]
pub struct Args {
    /// A Scribble file whose protocol's roles get identities (or use --role).
    pub file: Option<PathBuf>,
    /// The protocol of FILE (needed when it has several).
    #[arg(long, short = 'p', value_name = "P")]
    pub protocol: Option<String>,
    /// A role to issue an identity for, repeated (choreographies, or without FILE).
    #[arg(long = "role", short = 'r', value_name = "NAME")]
    pub roles: Vec<String>,
    /// The protocol string the certificates name, as the runtimes configure it (e.g.
    /// `ping/1`); default: the Scribble protocol's name.
    #[arg(long, value_name = "STRING")]
    pub name: Option<String>,
    /// The directory to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Runs the command.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let (name, roles) = match (&args.file, args.roles.is_empty()) {
        (Some(_), false) => {
            return Err(UsageError::Plain(
                "give either a Scribble file or --role, not both".into(),
            ));
        }
        (None, true) => {
            return Err(UsageError::Plain(
                "no roles: give a Scribble file or --role NAME (repeated)".into(),
            ));
        }
        (None, false) => {
            let Some(name) = args.name.clone() else {
                return Err(UsageError::Plain(
                    "--name STRING is needed with --role: the protocol string the runtimes configure".into(),
                ));
            };
            (name, args.roles.clone())
        }
        (Some(file), true) => {
            let loaded = match load(file) {
                Ok(loaded) => loaded,
                Err(stop) => return stop,
            };
            let protocol = loaded.select(args.protocol.as_deref())?;
            let roles = protocol.roles.iter().map(|r| r.text.clone()).collect();
            let name = args
                .name
                .clone()
                .unwrap_or_else(|| protocol.name.text.clone());
            (name, roles)
        }
    };
    let mut unique = roles.clone();
    unique.sort();
    unique.dedup();
    if unique.len() != roles.len() {
        return Err(UsageError::Plain(format!(
            "a role is given twice: {}",
            roles.join(", ")
        )));
    }
    let written = mpst_wire::certs::write_deployment(&args.out, &name, &roles)
        .map_err(|e| UsageError::Plain(format!("{}: {e}", args.out.display())))?;
    let mut text = format!(
        "identities for {} of protocol {name:?}:\n",
        roles.join(", ")
    );
    for path in written {
        text.push_str(&format!("  {}\n", path.display()));
    }
    text.push_str("keep ca.key secret (or delete it if no role will be added)\n");
    output::out(&text)?;
    Ok(Outcome::Holds)
}
