use compactd::http::openapi::document;

use crate::helpers::spawn_app;

#[test]
fn the_committed_openapi_document_matches_the_code() {
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json")).unwrap_or_default();
    assert!(
        committed == document(),
        "openapi/openapi.json is stale: regenerate it with `cargo run -q -- openapi > openapi/openapi.json`"
    );
}

#[test]
fn the_document_is_openapi_3_1_and_describes_every_route() {
    let spec: serde_json::Value = serde_json::from_str(&document()).unwrap();
    assert!(spec["openapi"].as_str().unwrap().starts_with("3.1"));
    for path in [
        "/usage",
        "/turn-ended",
        "/decide",
        "/due",
        "/conversations/{id}",
        "/conversations/{id}/events",
        "/healthz",
        "/readyz",
        "/openapi.json",
        "/summarize",
        "/handoff",
        "/compactions",
        "/conversations/{id}/compactions",
        "/conversations/{id}/turns",
        "/conversations/{id}/context",
        "/conversations/{id}/keep",
        "/conversations/{id}/keep/check",
        "/stats",
        "/metrics",
    ] {
        assert!(spec["paths"].get(path).is_some(), "{path} is not documented");
    }
}

#[tokio::test]
async fn the_service_serves_its_document() {
    let app = spawn_app().await;

    let (status, served) = app.get_json("/openapi.json").await;

    assert_eq!(status, 200);
    assert_eq!(served, serde_json::from_str::<serde_json::Value>(&document()).unwrap());
}

/// Every `src`/`href` a page loads, so a test can see where it fetches from.
fn loaded_from(html: &str) -> Vec<String> {
    let pattern = regex::Regex::new(r#"(?:src|href)="([^"]*)""#).unwrap();
    pattern.captures_iter(html).map(|c| c[1].to_owned()).collect()
}

#[tokio::test]
async fn the_docs_page_loads_everything_from_the_service_itself() {
    let app = spawn_app().await;

    let page = app.get("/docs/").send().await.unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    let assets = loaded_from(&html);

    assert!(html.contains("swagger-ui"), "{html}");
    assert!(assets.len() >= 3, "{assets:?}");
    for asset in &assets {
        assert!(
            !asset.contains("://") && !asset.starts_with("//"),
            "{asset} is fetched from elsewhere"
        );
        let served = app
            .get(&format!("/docs/{}", asset.trim_start_matches("./")))
            .send()
            .await
            .unwrap();
        assert_eq!(served.status(), 200, "{asset}");
    }
    let initializer = app
        .get("/docs/swagger-initializer.js")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(initializer.contains("/openapi.json"), "{initializer}");
}
