//! Reading input files with errors that name the file.

use std::path::Path;

use crate::UsageError;

/// Reads a whole UTF-8 file, or says which file could not be read and why.
pub fn read(path: &Path) -> Result<String, UsageError> {
    std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))
}
