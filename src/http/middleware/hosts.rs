//! Which names the service answers to (issue 23): a web page that rebinds
//! its own name to 127.0.0.1 (`Host: rebind.evil.example`) would otherwise
//! read and write everything of a service running open on this machine, and
//! the MCP specification asks servers to check `Origin`. Open (no keys), the
//! service answers loopback names only unless `COMPACTD_ALLOWED_HOSTS` names
//! more; with keys, any name, for a page that lacks the key can do nothing.
//! A browser's `Origin` must be an allowed name or the service itself, on
//! every route while names are checked and on `/mcp` always. Health and
//! metrics answer every name: orchestrators probe by address.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::config::AllowedHosts;
use crate::http::AppState;
use crate::http::error::ApiError;

/// Routes every name may reach.
const PROBES: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

pub(crate) async fn check(State(app): State<AppState>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let checked = app.hosts.is_checked(app.keys.is_open());
    let mcp = path == "/mcp" || path.starts_with("/mcp/");
    let probe = PROBES.contains(&path);
    // A request in absolute form names its host in its target too.
    let target = request.uri().authority().map(|authority| authority.as_str().to_owned());
    let check_host = checked && !probe;
    let refused = match target.as_deref() {
        Some(target) if check_host && !app.hosts.allows(name_of(target)) => Some(unanswered(target)),
        _ => refusal(&app.hosts, request.headers(), check_host, checked || mcp),
    };
    match refused {
        Some(why) => ApiError::Forbidden(why).into_response(),
        None => next.run(request).await,
    }
}

/// Why a request with these headers is refused, if it is: its `Host` when
/// names are checked, its `Origin` when origins are.
fn refusal(hosts: &AllowedHosts, headers: &HeaderMap, check_host: bool, check_origin: bool) -> Option<String> {
    // A Host that is no text is no name this service answers to.
    let host = headers.get(header::HOST).map(|value| value.to_str().unwrap_or(""));
    if check_host {
        match host {
            Some(host) if hosts.allows(name_of(host)) => {}
            Some(host) => return Some(unanswered(host)),
            None => return Some("a request must name the host it is for (Host)".to_owned()),
        }
    }
    let origin = headers.get(header::ORIGIN)?;
    if !check_origin {
        return None;
    }
    let origin = origin.to_str().unwrap_or("null");
    let authority = origin.split_once("://").map(|(_, rest)| rest);
    let same = authority.is_some() && authority == host;
    match authority {
        _ if same => None,
        Some(authority) if hosts.allows(name_of(authority)) => None,
        _ => Some(format!(
            "requests from the web page at {origin:?} are not accepted; set COMPACTD_ALLOWED_HOSTS to allow its name"
        )),
    }
}

/// Why a request for `authority` is refused.
fn unanswered(authority: &str) -> String {
    format!(
        "this service does not answer to the name {:?}; set COMPACTD_ALLOWED_HOSTS to the names it is reached by",
        name_of(authority)
    )
}

/// The name in a `Host` (or an origin's authority): without its port, and
/// an IPv6 address without its brackets.
fn name_of(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        // Past the address only a port may follow; anything else is no name.
        return match rest.split_once(']') {
            Some((address, "")) => address,
            Some((address, port))
                if port
                    .strip_prefix(':')
                    .is_some_and(|p| p.chars().all(|c| c.is_ascii_digit())) =>
            {
                address
            }
            _ => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => authority,
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        headers
    }

    #[test]
    fn names_lose_their_port_and_brackets() {
        assert_eq!(name_of("localhost:8080"), "localhost");
        assert_eq!(name_of("[::1]:8080"), "::1");
        assert_eq!(name_of("[::1]"), "::1");
        assert_eq!(name_of("compactd.internal"), "compactd.internal");
        assert_eq!(name_of("[::1]evil"), "[::1]evil", "no name to allow");
    }

    #[test]
    fn a_request_without_a_host_or_with_one_that_is_no_text_is_refused_while_names_are_checked() {
        let hosts = AllowedHosts::default();
        assert!(refusal(&hosts, &HeaderMap::new(), true, true).is_some());
        let mut garbled = HeaderMap::new();
        garbled.insert(header::HOST, HeaderValue::from_bytes(b"\xfflocalhost").unwrap());
        assert!(refusal(&hosts, &garbled, true, true).is_some());
        assert!(refusal(&hosts, &headers("[::1]evil", None), true, true).is_some());
        assert_eq!(refusal(&hosts, &HeaderMap::new(), false, true), None, "unchecked");
    }

    #[test]
    fn open_it_answers_loopback_names_only() {
        let hosts = AllowedHosts::default();
        for host in [
            "127.0.0.1:8080",
            "localhost",
            "app.localhost:3000",
            "[::1]:8080",
            "127.3.4.5",
        ] {
            assert_eq!(refusal(&hosts, &headers(host, None), true, true), None, "{host}");
        }
        for host in ["rebind.evil.example", "10.0.0.7:8080", "localhost.evil.example"] {
            assert!(refusal(&hosts, &headers(host, None), true, true).is_some(), "{host}");
        }
    }

    #[test]
    fn named_hosts_and_wildcards_are_answered_too() {
        let hosts = AllowedHosts::parse("compactd.internal, *.example.com").unwrap();
        for host in [
            "compactd.internal:8080",
            "COMPACTD.internal",
            "a.example.com",
            "localhost",
        ] {
            assert_eq!(refusal(&hosts, &headers(host, None), true, true), None, "{host}");
        }
        assert!(refusal(&hosts, &headers("example.com", None), true, true).is_some());
        assert!(
            AllowedHosts::parse("compactd.internal:8080").is_err(),
            "a port never matches"
        );
        let any = AllowedHosts::parse("*").unwrap();
        assert_eq!(refusal(&any, &headers("whatever.example", None), true, true), None);
    }

    #[test]
    fn an_origin_must_be_the_service_itself_or_an_allowed_name() {
        let hosts = AllowedHosts::default();
        let ok = [
            ("127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("127.0.0.1:8080", "http://localhost:5173"),
            ("compactd.internal", "https://compactd.internal"),
        ];
        for (host, origin) in ok {
            assert_eq!(
                refusal(&hosts, &headers(host, Some(origin)), false, true),
                None,
                "{origin}"
            );
        }
        for origin in ["https://evil.example", "null", "http://127.0.0.1.evil.example"] {
            assert!(
                refusal(&hosts, &headers("127.0.0.1:8080", Some(origin)), false, true).is_some(),
                "{origin}"
            );
        }
        assert_eq!(
            refusal(
                &hosts,
                &headers("127.0.0.1:8080", Some("https://evil.example")),
                false,
                false
            ),
            None,
            "origins unchecked"
        );
    }
}
