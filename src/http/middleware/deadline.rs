//! No request hangs: past its deadline it is abandoned and answered 503 with
//! a problem (tower-http's timeout answers an empty 408, which is neither our
//! shape nor the right status for a server that ran out of time).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use tower::{Layer, Service};

use crate::http::error::ApiError;

#[derive(Debug, Clone, Copy)]
pub(crate) struct DeadlineLayer(pub Duration);

impl<S> Layer<S> for DeadlineLayer {
    type Service = Deadline<S>;

    fn layer(&self, inner: S) -> Deadline<S> {
        Deadline { inner, limit: self.0 }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Deadline<S> {
    inner: S,
    limit: Duration,
}

impl<S> Service<Request> for Deadline<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let limit = self.limit;
        let call = self.inner.call(request);
        Box::pin(async move {
            match tokio::time::timeout(limit, call).await {
                Ok(answered) => answered,
                Err(_) => Ok(ApiError::Timeout(limit).into_response()),
            }
        })
    }
}
