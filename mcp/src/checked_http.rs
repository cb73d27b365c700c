//! Every HTTP upstream's client, wrapped so that an answer ptc cannot read fails its request
//! at once ([`CheckedClient`]).
//!
//! rmcp drops an SSE message frame it cannot decode as a JSON-RPC message and keeps reading
//! the stream; an upstream that answers a `tools/call` with such a frame and holds its
//! response stream open would leave the call waiting for its timeout. This wrapper reads
//! every message frame of a POST's response stream first: a frame that does not decode is
//! replaced by a JSON-RPC error for its request (the frame's own `id` when it has a usable
//! one, else the request the stream answers), with the reason, so the call fails now. The
//! stdio transport's equivalent is `crate::frame`.
//!
//! Invariant: a frame that decodes passes through unchanged, and so does every frame of a
//! stream that answers no request (a notification's POST) and of the standalone GET stream.

use axum::http::{HeaderName, HeaderValue};
use futures::StreamExt as _;
use futures::stream::BoxStream;
use rmcp::model::{ClientJsonRpcMessage, ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use serde_json::Value as Json;
use sse_stream::Sse;
use std::collections::HashMap;
use std::sync::Arc;

/// `C` with its response streams checked; see the module docs.
#[derive(Debug, Clone)]
pub struct CheckedClient<C> {
    inner: C,
}

impl<C> CheckedClient<C> {
    /// Wraps `inner`.
    #[must_use]
    pub fn new(inner: C) -> Self {
        CheckedClient { inner }
    }
}

/// The id of the request `message` is, if it is one.
fn request_id(message: &ClientJsonRpcMessage) -> Option<RequestId> {
    match message {
        ClientJsonRpcMessage::Request(request) => Some(request.id.clone()),
        _ => None,
    }
}

/// `response` with each message frame of its stream checked, when it is a stream answering
/// request `id`.
fn checked(
    response: StreamableHttpPostResponse,
    id: Option<RequestId>,
) -> StreamableHttpPostResponse {
    match (response, id) {
        (StreamableHttpPostResponse::Sse(stream, session), Some(id)) => {
            let stream: BoxStream<'static, Result<Sse, SseError>> = stream
                .map(move |event| event.map(|sse| repaired(sse, &id)))
                .boxed();
            StreamableHttpPostResponse::Sse(stream, session)
        }
        (response, _) => response,
    }
}

/// `sse` as it was, or, when it is a message frame whose data does not decode, a JSON-RPC
/// error for the frame's request (its own id when readable, else `answering`).
fn repaired(mut sse: Sse, answering: &RequestId) -> Sse {
    let message_frame = matches!(sse.event.as_deref(), None | Some("" | "message"));
    let Some(data) = sse
        .data
        .as_deref()
        .filter(|d| message_frame && !d.trim().is_empty())
    else {
        return sse;
    };
    let Err(error) = serde_json::from_str::<ServerJsonRpcMessage>(data) else {
        return sse;
    };
    let id = serde_json::from_str::<Json>(data)
        .ok()
        .and_then(|frame| serde_json::from_value::<RequestId>(frame.get("id")?.clone()).ok())
        .unwrap_or_else(|| answering.clone());
    let reason = format!("the server's answer could not be read: {error}");
    tracing::warn!("an upstream answer to request {id} could not be read: {error}");
    let answer = ServerJsonRpcMessage::error(ErrorData::internal_error(reason, None), Some(id));
    // An error message always serialises; were it not to, the frame stays as it was.
    if let Ok(text) = serde_json::to_string(&answer) {
        sse.data = Some(text);
    }
    sse
}

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for CheckedClient<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let id = request_id(&message);
        let response = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await?;
        Ok(checked(response, id))
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let id = request_id(&message);
        let response = self
            .inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await?;
        Ok(checked(response, id))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(data: &str) -> Sse {
        Sse {
            event: None,
            data: Some(data.to_owned()),
            id: None,
            retry: None,
        }
    }

    #[test]
    fn an_unreadable_frame_becomes_an_error_for_its_request() {
        let answering = RequestId::Number(7);
        for (data, id) in [
            (
                r#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":1e999}}"#,
                7,
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":NaN}}"#,
                7,
            ),
            (r#"{"jsonrpc":"2.0","id":3,"bogus":true}"#, 3),
            ("not json", 7),
        ] {
            let fixed = repaired(frame(data), &answering);
            let message: Json = serde_json::from_str(fixed.data.as_deref().unwrap()).unwrap();
            assert_eq!(message["id"], id, "{data}");
            let text = message["error"]["message"].as_str().unwrap();
            assert!(text.contains("could not be read"), "{text}");
            assert!(
                serde_json::from_str::<ServerJsonRpcMessage>(fixed.data.as_deref().unwrap())
                    .is_ok()
            );
        }
    }

    #[test]
    fn readable_frames_and_other_events_pass_unchanged() {
        let answering = RequestId::Number(1);
        let good = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        assert_eq!(
            repaired(frame(good), &answering).data.as_deref(),
            Some(good)
        );
        let mut ping = frame("not json");
        ping.event = Some("ping".to_owned());
        assert_eq!(repaired(ping, &answering).data.as_deref(), Some("not json"));
        assert_eq!(
            repaired(frame("  "), &answering).data.as_deref(),
            Some("  ")
        );
    }
}
