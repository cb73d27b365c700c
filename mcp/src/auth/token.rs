//! The static bearer token of `--auth-token-env NAME` / `--auth-token-file PATH`.
//!
//! Only the token's SHA-256 digest is kept; a presented token is hashed and the two digests
//! compared in constant time (`subtle`), so neither the token's bytes nor its length leak
//! through timing.

use super::AuthSetupError;
use std::path::Path;
use subtle::ConstantTimeEq as _;

/// The shortest token accepted, in bytes: shorter ones are guessable.
pub const MIN_TOKEN_BYTES: usize = 16;

/// A shared secret clients present as `Authorization: Bearer TOKEN`.
pub struct StaticToken {
    digest: [u8; 32],
}

impl std::fmt::Debug for StaticToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StaticToken(..)")
    }
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, bytes);
    let mut out = [0u8; 32];
    out.copy_from_slice(digest.as_ref());
    out
}

impl StaticToken {
    /// The token `text` (white space around it dropped), from `source` (for errors).
    ///
    /// # Errors
    /// An empty token, one shorter than [`MIN_TOKEN_BYTES`], or one with characters a
    /// bearer token cannot carry (RFC 6750 `b64token`).
    pub fn new(text: &str, source: &str) -> Result<Self, AuthSetupError> {
        let token = text.trim();
        if token.len() < MIN_TOKEN_BYTES {
            return Err(AuthSetupError(format!(
                "{source}: the token must be at least {MIN_TOKEN_BYTES} bytes long"
            )));
        }
        let allowed = |c: char| c.is_ascii_alphanumeric() || "-._~+/=".contains(c);
        if !token.chars().all(allowed) {
            return Err(AuthSetupError(format!(
                "{source}: the token may hold only letters, digits and - . _ ~ + / ="
            )));
        }
        Ok(StaticToken {
            digest: sha256(token.as_bytes()),
        })
    }

    /// The token in the environment variable `name`.
    ///
    /// # Errors
    /// The variable is unset or not Unicode, or [`StaticToken::new`]'s.
    pub fn from_env(name: &str) -> Result<Self, AuthSetupError> {
        let source = format!("--auth-token-env {name}");
        let text = std::env::var(name).map_err(|e| AuthSetupError(format!("{source}: {e}")))?;
        StaticToken::new(&text, &source)
    }

    /// The token in the file at `path`.
    ///
    /// # Errors
    /// The file cannot be read or is not UTF-8, or [`StaticToken::new`]'s.
    pub fn from_file(path: &Path) -> Result<Self, AuthSetupError> {
        let source = format!("--auth-token-file {}", path.display());
        let text = std::fs::read_to_string(path)
            .map_err(|e| AuthSetupError(format!("{source}: cannot read it: {e}")))?;
        StaticToken::new(&text, &source)
    }

    /// Whether `given` is the token (constant time).
    #[must_use]
    pub fn matches(&self, given: &str) -> bool {
        sha256(given.as_bytes()).ct_eq(&self.digest).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_match_exactly_and_short_ones_are_refused() {
        let token = StaticToken::new(" abcdefghijklmnop\n", "t").unwrap();
        assert!(token.matches("abcdefghijklmnop"));
        assert!(!token.matches("abcdefghijklmnoq"));
        assert!(!token.matches("abcdefghijklmno"));
        assert!(!token.matches(""));
        assert_eq!(
            StaticToken::new("short", "t").unwrap_err().0,
            "t: the token must be at least 16 bytes long"
        );
        assert!(StaticToken::new("abcdefghijklmnop qr", "t").is_err());
        assert_eq!(format!("{token:?}"), "StaticToken(..)");
    }
}
