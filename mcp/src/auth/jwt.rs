//! The OAuth 2.1 resource server: JWT access tokens (RFC 9068) checked with
//! `jsonwebtoken` against the issuer's keys ([`super::jwks`]).
//!
//! A token is admitted when its header names an asymmetric algorithm ([`ALGORITHMS`]; no
//! `none`, no HMAC) that its key allows, its signature verifies, `iss` is the issuer, `aud`
//! names this gateway's resource URL, `exp` is in the future and `nbf` (if any) in the past
//! (both within [`OAuthSettings::leeway`]), and its scopes (`scope`, space-separated, or
//! `scp`, a list) hold every required scope.

use super::jwks::{ALGORITHMS, JwksSource, KeyStore};
use super::{AuthSetupError, METADATA_PATH, PublicUrl, Refusal};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Validation, decode, decode_header};
use serde_json::{Map, Value as Json, json};
use std::time::Duration;

/// The longest token looked at, in bytes.
pub const MAX_TOKEN_BYTES: usize = 16 << 10;
/// The clock skew allowed on `exp` and `nbf` when none is given.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);

/// What the resource server is configured with.
#[derive(Debug, Clone)]
pub struct OAuthSettings {
    /// This gateway's resource URL: the audience tokens must name.
    pub resource: PublicUrl,
    /// The authorization server's issuer identifier (`iss`, exactly).
    pub issuer: String,
    /// Where its keys are.
    pub jwks: JwksSource,
    /// Scopes every token must hold.
    pub scopes: Vec<String>,
    /// Clock skew allowed on `exp` and `nbf`.
    pub leeway: Duration,
}

/// A configured resource server.
#[derive(Debug)]
pub struct OAuth {
    settings: OAuthSettings,
    keys: KeyStore,
}

impl OAuth {
    /// A resource server for `settings` (keys not fetched yet: [`OAuth::load_keys`]).
    ///
    /// # Errors
    /// An issuer that is not an http(s) URL, a scope with white space or quotes, or the
    /// key source's error.
    pub fn new(settings: OAuthSettings) -> Result<Self, AuthSetupError> {
        PublicUrl::parse(&settings.issuer)
            .map_err(|e| AuthSetupError(format!("--oauth-issuer {e}")))?;
        if let Some(bad) = settings
            .scopes
            .iter()
            .find(|s| s.is_empty() || s.contains(|c: char| c.is_whitespace() || c == '"'))
        {
            return Err(AuthSetupError(format!(
                "--oauth-scope {bad:?}: a scope is one word without quotes"
            )));
        }
        let keys = KeyStore::new(settings.jwks.clone())?;
        Ok(OAuth { settings, keys })
    }

    /// Fetches the issuer's keys now; the number of usable keys.
    ///
    /// # Errors
    /// Why they could not be had (they are fetched again on the next request).
    pub async fn load_keys(&self) -> Result<usize, String> {
        self.keys.load().await
    }

    /// The resource URL.
    #[must_use]
    pub fn resource(&self) -> &PublicUrl {
        &self.settings.resource
    }

    /// The required scopes.
    #[must_use]
    pub fn scopes(&self) -> &[String] {
        &self.settings.scopes
    }

    /// Where the metadata is: the well-known path on the resource's origin, suffixed with
    /// the resource's path (RFC 9728 §3.1).
    #[must_use]
    pub fn metadata_url(&self) -> String {
        let resource = &self.settings.resource;
        format!(
            "{}{METADATA_PATH}{}",
            resource.origin(),
            resource.path().trim_end_matches('/')
        )
    }

    /// The Protected Resource Metadata document (RFC 9728 §2).
    #[must_use]
    pub fn metadata(&self) -> Json {
        let mut document = json!({
            "resource": self.settings.resource.as_str(),
            "authorization_servers": [self.settings.issuer],
            "bearer_methods_supported": ["header"],
            "resource_name": "ptc MCP gateway",
        });
        if !self.settings.scopes.is_empty() {
            document["scopes_supported"] = json!(self.settings.scopes);
        }
        document
    }

    /// Checks `token` (see the module docs).
    ///
    /// # Errors
    /// Why it is refused.
    pub async fn verify(&self, token: &str) -> Result<(), Refusal> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(Refusal::Invalid("the token is too long"));
        }
        let header =
            decode_header(token).map_err(|_| Refusal::Invalid("the token is not a signed JWT"))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(Refusal::Invalid("the token's algorithm is not accepted"));
        }
        let candidates = self.keys.candidates(header.kid.as_deref()).await?;
        let mut refusal = Refusal::Invalid("no key of the issuer fits the token's algorithm");
        for key in candidates
            .iter()
            .filter(|k| k.algorithms.contains(&header.alg))
        {
            let mut validation = Validation::new(header.alg);
            validation.set_audience(&[self.settings.resource.as_str()]);
            validation.set_issuer(&[self.settings.issuer.as_str()]);
            validation.set_required_spec_claims(&["exp", "iss", "aud"]);
            validation.validate_nbf = true;
            validation.leeway = self.settings.leeway.as_secs();
            match decode::<Map<String, Json>>(token, &key.key, &validation) {
                Ok(data) => return self.check_scopes(&data.claims),
                Err(error) => {
                    refusal = Refusal::Invalid(reason(error.kind()));
                    if !matches!(error.kind(), ErrorKind::InvalidSignature) {
                        break;
                    }
                }
            }
        }
        Err(refusal)
    }

    fn check_scopes(&self, claims: &Map<String, Json>) -> Result<(), Refusal> {
        let mut held: Vec<&str> = Vec::new();
        if let Some(Json::String(scope)) = claims.get("scope") {
            held.extend(scope.split_whitespace());
        }
        match claims.get("scp") {
            Some(Json::String(scp)) => held.extend(scp.split_whitespace()),
            Some(Json::Array(items)) => held.extend(items.iter().filter_map(Json::as_str)),
            _ => {}
        }
        if self
            .settings
            .scopes
            .iter()
            .all(|needed| held.contains(&needed.as_str()))
        {
            Ok(())
        } else {
            Err(Refusal::Scope)
        }
    }
}

/// A refusal reason safe to show the client.
fn reason(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired",
        ErrorKind::ImmatureSignature => "the token is not valid yet",
        ErrorKind::InvalidAudience => "the token was issued for another audience",
        ErrorKind::InvalidIssuer => "the token comes from another issuer",
        ErrorKind::InvalidSignature => "the token's signature does not verify",
        ErrorKind::MissingRequiredClaim(_) => "the token lacks a required claim (exp, iss, aud)",
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not fit the key",
        _ => "the token is not valid",
    }
}
