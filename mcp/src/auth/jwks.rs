//! The issuer's signing keys (a JWKS, RFC 7517), from a URL, a file or the issuer's own
//! metadata (discovery), cached.
//!
//! Discovery ([`JwksSource::Issuer`]) reads the issuer's authorization-server metadata
//! (RFC 8414: `/.well-known/oauth-authorization-server` inserted before the issuer's path;
//! then OpenID Connect's `ISSUER/.well-known/openid-configuration`), requires its `issuer`
//! to be exactly the configured one (RFC 8414 §3.3) and takes its `jwks_uri`, which must be
//! `https://` (or `http://` on loopback) like any key URL. The resolved URL is kept; a
//! failed discovery is tried again on the next fetch.
//!
//! The set is read at start-up and again when a token names a key id (`kid`) the cache
//! does not hold (key rotation) or the cache is older than [`MAX_AGE`] — but requests cause
//! at most one fetch per [`MIN_REFRESH`], so tokens with made-up key ids cannot make the
//! gateway hammer the issuer. A fetch is bounded: [`FETCH_TIMEOUT`], [`MAX_JWKS_BYTES`], no redirects, and
//! `https://` unless the host is loopback. When a fetch fails the keys already held stay.
//!
//! Only asymmetric signing keys are kept ([`ALGORITHMS`]): a symmetric (`oct`) key, an
//! encryption key (`use: enc`) or an unknown key type is skipped, so a token can never be
//! checked as an HMAC over a public key.

use super::{AuthSetupError, Refusal};
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use std::path::PathBuf;
use std::str::FromStr as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The signature algorithms a token may use: asymmetric ones only.
pub const ALGORITHMS: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];
/// How long one fetch of the JWKS may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest JWKS document read.
pub const MAX_JWKS_BYTES: usize = 256 << 10;
/// The most keys kept from one document.
pub const MAX_KEYS: usize = 64;
/// The least time between two fetches.
pub const MIN_REFRESH: Duration = Duration::from_secs(30);
/// Keys older than this are fetched again on the next request.
pub const MAX_AGE: Duration = Duration::from_secs(3600);

/// Where the keys come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JwksSource {
    /// An `https://` URL (or `http://` on loopback), usually the issuer's `jwks_uri`.
    Url(String),
    /// A file holding the JWKS document (air-gapped set-ups); read again like a URL.
    File(PathBuf),
    /// The issuer itself: its metadata's `jwks_uri` (discovery, see the module docs).
    Issuer(String),
}

/// Whether `url` is `https://`, or `http://` on a loopback host.
fn acceptable_url(url: &str) -> bool {
    let Ok(uri) = url.parse::<axum::http::Uri>() else {
        return false;
    };
    let loopback = uri.host().is_some_and(|h| {
        let h = h.trim_start_matches('[').trim_end_matches(']');
        h == "localhost"
            || h.parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    });
    match uri.scheme_str() {
        Some("https") => uri.host().is_some(),
        Some("http") => loopback,
        _ => false,
    }
}

/// Where the issuer's metadata may be, in the order tried: RFC 8414's well-known URI
/// (inserted between the host and the issuer's path), then OpenID Connect Discovery's.
fn metadata_urls(issuer: &str) -> Vec<String> {
    let trimmed = issuer.trim_end_matches('/');
    let mut urls = Vec::new();
    if let Some((scheme, rest)) = trimmed.split_once("://") {
        let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        let path = if path.is_empty() {
            String::new()
        } else {
            format!("/{path}")
        };
        urls.push(format!(
            "{scheme}://{authority}/.well-known/oauth-authorization-server{path}"
        ));
    }
    urls.push(format!("{trimmed}/.well-known/openid-configuration"));
    urls
}

/// One usable key.
#[derive(Clone)]
pub struct VerifyKey {
    /// Its key id.
    pub kid: Option<String>,
    /// The algorithms it may verify.
    pub algorithms: Vec<Algorithm>,
    /// The key.
    pub key: DecodingKey,
}

impl std::fmt::Debug for VerifyKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerifyKey")
            .field("kid", &self.kid)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct State {
    keys: Arc<Vec<VerifyKey>>,
    /// The last fetch a request caused (an unknown key id, stale keys).
    tried: Option<Instant>,
    /// The last successful fetch.
    loaded: Option<Instant>,
}

/// The cached key set of one issuer.
#[derive(Debug)]
pub struct KeyStore {
    source: JwksSource,
    client: reqwest::Client,
    state: tokio::sync::RwLock<State>,
    refresh: tokio::sync::Mutex<()>,
    /// The `jwks_uri` discovery found ([`JwksSource::Issuer`]).
    discovered: tokio::sync::OnceCell<String>,
}

impl KeyStore {
    /// A store for `source` (nothing fetched yet).
    ///
    /// # Errors
    /// A URL that is not `https://` (or `http://` on a loopback host), or an HTTP client
    /// that cannot be built.
    pub fn new(source: JwksSource) -> Result<Self, AuthSetupError> {
        let checked = match &source {
            JwksSource::Url(url) => Some(("--oauth-jwks-url", url)),
            JwksSource::Issuer(issuer) => Some(("--oauth-issuer (discovery)", issuer)),
            JwksSource::File(_) => None,
        };
        if let Some((flag, url)) = checked
            && !acceptable_url(url)
        {
            return Err(AuthSetupError(format!(
                "{flag} {url}: expected an https:// URL (http:// only on loopback)"
            )));
        }
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| AuthSetupError(format!("cannot build the HTTP client: {e}")))?;
        Ok(KeyStore {
            source,
            client,
            state: tokio::sync::RwLock::default(),
            refresh: tokio::sync::Mutex::new(()),
            discovered: tokio::sync::OnceCell::new(),
        })
    }

    /// Fetches the keys now (start-up).
    ///
    /// # Errors
    /// Why they could not be had.
    pub async fn load(&self) -> Result<usize, String> {
        let _guard = self.refresh.lock().await;
        self.fetch_into_state().await
    }

    /// The candidate keys for a token naming `kid` (all keys when it names none and the set
    /// holds exactly one), fetching again as the module docs say.
    ///
    /// # Errors
    /// [`Refusal::Invalid`] when no key fits, [`Refusal::Unavailable`] when no keys could
    /// ever be had.
    pub async fn candidates(&self, kid: Option<&str>) -> Result<Vec<VerifyKey>, Refusal> {
        let (keys, stale) = {
            let state = self.state.read().await;
            let stale = state.loaded.is_none_or(|at| at.elapsed() > MAX_AGE);
            (state.keys.clone(), stale)
        };
        if !stale && let Some(found) = pick(&keys, kid) {
            return Ok(found);
        }
        let refreshed = self.refresh_if_due().await;
        let (keys, ever_loaded) = {
            let state = self.state.read().await;
            (state.keys.clone(), state.loaded.is_some())
        };
        if let Some(found) = pick(&keys, kid) {
            return Ok(found);
        }
        if !ever_loaded {
            return Err(Refusal::Unavailable(
                refreshed
                    .err()
                    .unwrap_or_else(|| "no keys fetched yet".to_owned()),
            ));
        }
        Err(Refusal::Invalid(if kid.is_some() {
            "no key of the issuer has the token's key id"
        } else {
            "the token names no key id and the issuer has several keys"
        }))
    }

    /// Fetches again unless the last attempt was less than [`MIN_REFRESH`] ago.
    async fn refresh_if_due(&self) -> Result<(), String> {
        let _guard = self.refresh.lock().await;
        let due = self
            .state
            .read()
            .await
            .tried
            .is_none_or(|at| at.elapsed() >= MIN_REFRESH);
        if due {
            self.state.write().await.tried = Some(Instant::now());
            self.fetch_into_state().await.map(|_| ())
        } else {
            Ok(())
        }
    }

    async fn fetch_into_state(&self) -> Result<usize, String> {
        let fetched = self.fetch().await.and_then(|text| parse_jwks(&text));
        let mut state = self.state.write().await;
        match fetched {
            Ok(keys) => {
                let n = keys.len();
                state.keys = Arc::new(keys);
                state.loaded = Some(Instant::now());
                tracing::info!("{n} signing keys loaded from {}", self.describe());
                Ok(n)
            }
            Err(error) => {
                tracing::warn!("cannot load the keys from {}: {error}", self.describe());
                Err(error)
            }
        }
    }

    fn describe(&self) -> String {
        match &self.source {
            JwksSource::Url(url) => url.clone(),
            JwksSource::File(path) => path.display().to_string(),
            JwksSource::Issuer(issuer) => match self.discovered.get() {
                Some(url) => format!("{url} (discovered from {issuer})"),
                None => format!("the metadata of {issuer}"),
            },
        }
    }

    /// The issuer's `jwks_uri`, discovered once (see the module docs).
    async fn jwks_uri(&self, issuer: &str) -> Result<String, String> {
        self.discovered
            .get_or_try_init(|| async {
                let mut why = Vec::new();
                for url in metadata_urls(issuer) {
                    match self.get_bounded(&url).await.and_then(|text| {
                        let metadata: serde_json::Value =
                            serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
                        if metadata["issuer"].as_str() != Some(issuer) {
                            return Err(format!(
                                "its issuer is {}, not {issuer}",
                                metadata["issuer"]
                            ));
                        }
                        let jwks = metadata["jwks_uri"]
                            .as_str()
                            .ok_or("it has no jwks_uri")?
                            .to_owned();
                        if !acceptable_url(&jwks) {
                            return Err(format!(
                                "its jwks_uri {jwks} is not https:// (or http:// on loopback)"
                            ));
                        }
                        Ok(jwks)
                    }) {
                        Ok(jwks) => return Ok(jwks),
                        Err(error) => why.push(format!("{url}: {error}")),
                    }
                }
                Err(format!("discovery failed: {}", why.join("; ")))
            })
            .await
            .cloned()
    }

    /// The body of GET `url`, bounded like a key set.
    async fn get_bounded(&self, url: &str) -> Result<String, String> {
        let mut response = self
            .client
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| format!("request failed: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("HTTP status {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("reading the body failed: {e}"))?
        {
            if body.len() + chunk.len() > MAX_JWKS_BYTES {
                return Err(format!("larger than {MAX_JWKS_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        String::from_utf8(body).map_err(|_| "not UTF-8".to_owned())
    }

    /// The document's text, bounded.
    async fn fetch(&self) -> Result<String, String> {
        match &self.source {
            JwksSource::File(path) => {
                let bytes = tokio::fs::read(path)
                    .await
                    .map_err(|e| format!("cannot read it: {e}"))?;
                if bytes.len() > MAX_JWKS_BYTES {
                    return Err(format!("larger than {MAX_JWKS_BYTES} bytes"));
                }
                String::from_utf8(bytes).map_err(|_| "not UTF-8".to_owned())
            }
            JwksSource::Url(url) => self.get_bounded(url).await,
            JwksSource::Issuer(issuer) => {
                let url = self.jwks_uri(issuer).await?;
                self.get_bounded(&url).await
            }
        }
    }
}

/// The keys for `kid` (see [`KeyStore::candidates`]).
fn pick(keys: &[VerifyKey], kid: Option<&str>) -> Option<Vec<VerifyKey>> {
    match kid {
        Some(kid) => {
            let found: Vec<_> = keys
                .iter()
                .filter(|k| k.kid.as_deref() == Some(kid))
                .cloned()
                .collect();
            (!found.is_empty()).then_some(found)
        }
        None => (keys.len() == 1).then(|| keys.to_vec()),
    }
}

/// The usable keys of a JWKS document (see the module docs for what is skipped).
///
/// # Errors
/// Not JSON, no `keys` array, more than [`MAX_KEYS`] keys, or no usable key at all.
pub fn parse_jwks(text: &str) -> Result<Vec<VerifyKey>, String> {
    let document: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Some(entries) = document.get("keys").and_then(|k| k.as_array()) else {
        return Err("no `keys` array".to_owned());
    };
    if entries.len() > MAX_KEYS {
        return Err(format!("more than {MAX_KEYS} keys"));
    }
    let keys: Vec<VerifyKey> = entries.iter().filter_map(usable).collect();
    if keys.is_empty() {
        return Err("no usable signing key (RSA, EC P-256/P-384 or Ed25519)".to_owned());
    }
    Ok(keys)
}

/// The key of one JWKS entry, when it is an asymmetric signing key.
fn usable(entry: &serde_json::Value) -> Option<VerifyKey> {
    let jwk: Jwk = serde_json::from_value(entry.clone()).ok()?;
    if matches!(
        jwk.common.public_key_use,
        Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
    ) {
        return None;
    }
    let family: Vec<Algorithm> = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => ALGORITHMS[..6].to_vec(),
        AlgorithmParameters::EllipticCurve(p) => match p.curve {
            EllipticCurve::P256 => vec![Algorithm::ES256],
            EllipticCurve::P384 => vec![Algorithm::ES384],
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(p) if p.curve == EllipticCurve::Ed25519 => {
            vec![Algorithm::EdDSA]
        }
        _ => return None,
    };
    let algorithms = match jwk.common.key_algorithm {
        None => family,
        Some(declared) => {
            let alg = Algorithm::from_str(&declared.to_string()).ok()?;
            if !family.contains(&alg) {
                return None;
            }
            vec![alg]
        }
    };
    let key = DecodingKey::from_jwk(&jwk).ok()?;
    Some(VerifyKey {
        kid: jwk.common.key_id.clone(),
        algorithms,
        key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_looked_for_where_rfc_8414_and_openid_put_it() {
        assert_eq!(
            metadata_urls("https://idp.example"),
            [
                "https://idp.example/.well-known/oauth-authorization-server",
                "https://idp.example/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("https://idp.example/tenant/1/"),
            [
                "https://idp.example/.well-known/oauth-authorization-server/tenant/1",
                "https://idp.example/tenant/1/.well-known/openid-configuration"
            ]
        );
        assert!(acceptable_url("https://idp.example/keys"));
        assert!(acceptable_url("http://127.0.0.1:9/keys"));
        assert!(!acceptable_url("http://idp.example/keys"));
        assert!(!acceptable_url("file:///etc/keys"));
        assert!(KeyStore::new(JwksSource::Issuer("http://idp.example".into())).is_err());
    }

    #[test]
    fn symmetric_encryption_and_unknown_keys_are_skipped() {
        let text = r#"{"keys": [
            {"kty": "oct", "k": "c2VjcmV0", "kid": "h"},
            {"kty": "EC", "crv": "P-256", "use": "enc", "kid": "e",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "crv": "P-256", "kid": "s", "alg": "ES256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "crv": "P-256", "kid": "m", "alg": "HS256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "XYZ", "kid": "u"}]}"#;
        let keys = parse_jwks(text).unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].kid.as_deref(), Some("s"));
        assert_eq!(keys[0].algorithms, vec![Algorithm::ES256]);
        assert!(parse_jwks(r#"{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}"#).is_err());
        assert!(parse_jwks("[]").is_err());
    }

    #[test]
    fn plain_http_is_only_for_loopback() {
        assert!(KeyStore::new(JwksSource::Url("http://127.0.0.1:9/jwks".into())).is_ok());
        assert!(KeyStore::new(JwksSource::Url("https://idp.example/jwks".into())).is_ok());
        let err = KeyStore::new(JwksSource::Url("http://idp.example/jwks".into())).unwrap_err();
        assert!(err.0.contains("expected an https:// URL"), "{err}");
    }
}
