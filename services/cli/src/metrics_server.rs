//! `GET /metrics` (Prometheus text) and `GET /health` (200 or 503 with the
//! reasons, from `gleaner_core::health`) on one address, for `gleaner run
//! --metrics` and the services.

use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

async fn metrics_text() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        gleaner_core::metrics::render(),
    )
}

async fn health() -> impl IntoResponse {
    match gleaner_core::health::check() {
        Ok(()) => (StatusCode::OK, "ok\n".to_string()),
        Err(reasons) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("unavailable: {}\n", reasons.join("; ")),
        ),
    }
}

/// Serves `/metrics` and `/health` on `addr` (port 0 picks one) until the
/// process ends; returns the address bound.
pub async fn serve(addr: &str) -> anyhow::Result<std::net::SocketAddr> {
    gleaner_core::metrics::handle();
    let app = Router::new()
        .route("/metrics", get(metrics_text))
        .route("/health", get(health))
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                "not found: try /metrics or /health\n",
            )
        });
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("metrics address {addr}: {e}"))?;
    let local = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "metrics server stopped");
        }
    });
    tracing::info!(%local, "metrics on http://{local}/metrics, health on http://{local}/health");
    Ok(local)
}
