//! The `Host` names the service answers to (`COMPACTD_ALLOWED_HOSTS`):
//! loopback names always, the listed ones besides — a guard against DNS
//! rebinding while the service is open (no keys), when any page a browser
//! loads could otherwise reach it by a name that resolves here.

/// The names the service answers to besides loopback ones (`localhost`,
/// `*.localhost`, 127.0.0.0/8, `::1`): none by default, which matters only
/// while the service is open (with keys, every name is answered).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedHosts {
    /// Lower-cased; `*` any name, `*.example.com` any name under it.
    names: Vec<String>,
}

impl AllowedHosts {
    /// From a comma-separated list (`compactd.internal, *.example.com`).
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut names = Vec::new();
        for name in list.split(',').map(str::trim).filter(|name| !name.is_empty()) {
            let bare = name.strip_prefix("*.").unwrap_or(name);
            // A name without its port: a port never matches a name.
            let valid = name == "*"
                || (!bare.is_empty()
                    && bare
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')));
            if !valid {
                return Err(format!(
                    "{name:?} is not a host name (letters, digits, '.', '-', without a port; or *.name, or *)"
                ));
            }
            names.push(name.to_ascii_lowercase());
        }
        Ok(Self { names })
    }

    /// Whether requests' `Host` is checked: while the service is open, or
    /// when names were given.
    pub(crate) fn is_checked(&self, open: bool) -> bool {
        open || !self.names.is_empty()
    }

    /// Whether `name` (no port) is answered.
    pub(crate) fn allows(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        is_loopback(&name)
            || self.names.iter().any(|allowed| {
                allowed == "*"
                    || *allowed == name
                    || allowed
                        .strip_prefix('*')
                        .is_some_and(|suffix| suffix.starts_with('.') && name.ends_with(suffix))
            })
    }
}

/// A name only this machine answers to.
fn is_loopback(name: &str) -> bool {
    name == "localhost"
        || name.ends_with(".localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_are_always_answered_and_others_only_when_listed() {
        let none = AllowedHosts::default();
        for name in [
            "localhost",
            "api.localhost",
            "127.0.0.1",
            "127.9.9.9",
            "::1",
            "LOCALHOST",
        ] {
            assert!(none.allows(name), "{name}");
        }
        for name in ["example.com", "10.0.0.1", "localhost.example.com", "0.0.0.0"] {
            assert!(!none.allows(name), "{name}");
        }
    }

    #[test]
    fn a_listed_name_a_wildcard_under_a_domain_and_a_bare_star_are_answered() {
        let listed = AllowedHosts::parse(" compactd.internal , *.Example.com,").unwrap();
        assert!(listed.allows("compactd.internal"));
        assert!(listed.allows("COMPACTD.internal"));
        assert!(listed.allows("a.example.com"));
        assert!(listed.allows("a.b.example.com"));
        assert!(!listed.allows("example.com"), "the wildcard is for names under it");
        assert!(!listed.allows("badexample.com"));
        assert!(!listed.allows("compactd.internal.evil"));
        assert!(AllowedHosts::parse("*").unwrap().allows("anything.at.all"));
    }

    #[test]
    fn a_name_with_a_port_a_path_or_nothing_after_its_star_is_refused() {
        for bad in ["host:8080", "a/b", "*.", "exa mple.com", "ho$t"] {
            let refused = AllowedHosts::parse(bad).unwrap_err();
            assert!(refused.contains("is not a host name"), "{bad}: {refused}");
        }
    }

    #[test]
    fn names_are_checked_while_open_or_once_any_is_listed() {
        assert!(AllowedHosts::default().is_checked(true));
        assert!(!AllowedHosts::default().is_checked(false));
        assert!(AllowedHosts::parse("a.internal").unwrap().is_checked(false));
    }
}
