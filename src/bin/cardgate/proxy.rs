//! The HTTP proxies `resolve` goes through, from the environment.

use crate::url::origin;
use std::ffi::OsString;

/// The proxies `resolve` goes through, read from the environment once, before any request,
/// the way curl and httpx (a2a-sdk's HTTP client) read it. ureq's own reading is switched off:
/// it takes the first of `ALL_PROXY`, `HTTPS_PROXY` and `HTTP_PROXY` that is set for every
/// URL whatever its scheme (an `HTTPS_PROXY` carried plain `http://` requests too), and its
/// `NO_PROXY` name `example.com` does not cover `registry.example.com`. Hand-written for
/// those two rules; ureq still makes the CONNECT tunnel.
pub(crate) struct Proxies {
    http: Option<ureq::Proxy>,
    https: Option<ureq::Proxy>,
    bypass: Vec<Bypass>,
}

/// One `NO_PROXY` entry.
#[derive(Debug, PartialEq)]
enum Bypass {
    /// `*`: every host.
    All,
    /// A host name and its subdomains (lowercase, without a leading `.`).
    Name(String),
    /// An address, or a range of them (`10.0.0.0/8`): the first `bits` bits of `net`.
    Net(std::net::IpAddr, u8),
}

impl Proxies {
    /// - an `https://` URL goes through `https_proxy` (else `HTTPS_PROXY`), an `http://` one
    ///   through `http_proxy` (else `HTTP_PROXY`), and either through `all_proxy` (else
    ///   `ALL_PROXY`) when its own is not set; an empty value is not set;
    /// - `no_proxy` (else `NO_PROXY`), comma-separated: `*` is every host; an IP address is
    ///   that address and `ADDRESS/BITS` the addresses in that range; any other entry is a
    ///   host name and its subdomains (a leading `.` or `*.` and a final `.` ignored, ASCII
    ///   case ignored). Ports are not read: an entry with one matches no host.
    ///
    /// A proxy value that is no http(s) proxy URL (not a URL, `socks5://`: this build has no
    /// SOCKS) or a value that is not UTF-8 is bad input, never a direct connection the user
    /// did not ask for. The message names the variable, not its value (it may hold a
    /// password).
    pub fn from_env(var: impl Fn(&str) -> Option<OsString>) -> Result<Proxies, String> {
        let value = |names: [&'static str; 2]| -> Result<Option<(&str, String)>, String> {
            for name in names {
                if let Some(raw) = var(name).filter(|v| !v.is_empty()) {
                    let text = raw
                        .into_string()
                        .map_err(|_| format!("the environment's {name} is not UTF-8 text"))?;
                    return Ok(Some((name, text)));
                }
            }
            Ok(None)
        };
        let proxy = |found: Option<(&str, String)>| -> Result<Option<ureq::Proxy>, String> {
            let Some((name, url)) = found else {
                return Ok(None);
            };
            let proxy = ureq::Proxy::new(url.trim()).ok().filter(|p| {
                matches!(
                    p.protocol(),
                    ureq::ProxyProtocol::Http | ureq::ProxyProtocol::Https
                )
            });
            proxy.map(Some).ok_or_else(|| {
                format!(
                    "the environment's {name} is not an http:// or https:// proxy URL (its \
                     value is not shown: it may hold a password)"
                )
            })
        };
        let all = value(["all_proxy", "ALL_PROXY"])?;
        let http = value(["http_proxy", "HTTP_PROXY"])?.or_else(|| all.clone());
        let https = value(["https_proxy", "HTTPS_PROXY"])?.or(all);
        let bypass = value(["no_proxy", "NO_PROXY"])?
            .map(|(_, list)| list.split(',').filter_map(Bypass::parse).collect())
            .unwrap_or_default();
        Ok(Proxies {
            http: proxy(http)?,
            https: proxy(https)?,
            bypass,
        })
    }

    /// The proxy for a request to `url`, or `None` to connect directly.
    pub fn for_url(&self, url: &str) -> Option<ureq::Proxy> {
        let (scheme, host, _) = origin(url)?;
        let proxy = match scheme.as_str() {
            "https" => self.https.as_ref(),
            _ => self.http.as_ref(),
        }?;
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(&host);
        let bypassed = self.bypass.iter().any(|entry| entry.covers(host));
        (!bypassed).then(|| proxy.clone())
    }
}

impl Bypass {
    fn parse(entry: &str) -> Option<Bypass> {
        let entry = entry.trim();
        if entry == "*" {
            return Some(Bypass::All);
        }
        let bare = |s: &str| {
            s.strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .unwrap_or(s)
                .to_owned()
        };
        if let Some((net, bits)) = entry.split_once('/') {
            let net: std::net::IpAddr = bare(net).parse().ok()?;
            let bits: u8 = bits.parse().ok()?;
            let max = if net.is_ipv4() { 32 } else { 128 };
            return (bits <= max).then_some(Bypass::Net(net, bits));
        }
        if let Ok(address) = bare(entry).parse::<std::net::IpAddr>() {
            let bits = if address.is_ipv4() { 32 } else { 128 };
            return Some(Bypass::Net(address, bits));
        }
        let name = entry.strip_prefix('*').unwrap_or(entry);
        let name = name.strip_prefix('.').unwrap_or(name);
        let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
        (!name.is_empty()).then_some(Bypass::Name(name))
    }

    /// Whether this entry covers `host` (a name, or an address without brackets).
    fn covers(&self, host: &str) -> bool {
        match self {
            Bypass::All => true,
            Bypass::Name(name) => {
                let host = host.to_ascii_lowercase();
                let host = host.strip_suffix('.').unwrap_or(&host);
                host == name
                    || host
                        .strip_suffix(name.as_str())
                        .is_some_and(|rest| rest.ends_with('.'))
            }
            Bypass::Net(net, bits) => {
                let Ok(address) = host.parse::<std::net::IpAddr>() else {
                    return false;
                };
                let prefix = |a: &std::net::IpAddr| -> u128 {
                    let (value, width) = match a {
                        std::net::IpAddr::V4(v4) => (u128::from(u32::from(*v4)), 32),
                        std::net::IpAddr::V6(v6) => (u128::from(*v6), 128),
                    };
                    // The bits past the prefix shifted out (all of them for `/0`).
                    value
                        .checked_shr(width - u32::from(*bits).min(width))
                        .unwrap_or(0)
                };
                net.is_ipv4() == address.is_ipv4() && prefix(net) == prefix(&address)
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::Proxies;

    /// The environment as curl and httpx read it (their documentation: curl's `CURLOPT_PROXY`
    /// and `CURLOPT_NOPROXY`, httpx's "Environment Variables"), not as ureq's default does.
    #[test]
    fn proxies_follow_the_url_scheme_and_no_proxy_covers_subdomains() {
        fn env(
            pairs: &'static [(&'static str, &'static str)],
        ) -> impl Fn(&str) -> Option<std::ffi::OsString> {
            move |name| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.into())
            }
        }
        let proxy = |url: &str| ureq::Proxy::new(url).unwrap();
        let via = |pairs, url: &str| {
            Proxies::from_env(env(pairs))
                .unwrap()
                .for_url(url)
                .map(|p| p.host().to_owned())
        };
        let corp = Some("corp".to_owned());
        // Each scheme its own variable: an HTTPS_PROXY carries no plain http request (ureq's
        // default sends it through the first variable set).
        let https_only = &[("HTTPS_PROXY", "http://corp:3128")];
        assert_eq!(via(https_only, "https://r.example/card"), corp);
        assert_eq!(via(https_only, "http://r.example/card"), None);
        let http_only = &[("http_proxy", "corp:3128")];
        assert_eq!(via(http_only, "http://r.example/card"), corp);
        assert_eq!(via(http_only, "https://r.example/card"), None);
        // ALL_PROXY when the scheme's own is not set (or empty); lowercase first.
        let all = &[("ALL_PROXY", "http://corp:1"), ("https_proxy", "")];
        assert_eq!(via(all, "https://r.example/card"), corp);
        assert_eq!(via(all, "http://r.example/card"), corp);
        let cases = &[
            ("https_proxy", "http://corp:1"),
            ("HTTPS_PROXY", "http://other:1"),
        ];
        assert_eq!(via(cases, "https://r.example/card"), corp);
        let p = Proxies::from_env(env(&[("HTTPS_PROXY", "http://u:pw@corp:3128")]));
        assert_eq!(
            p.unwrap().for_url("https://r.example/"),
            Some(proxy("http://u:pw@corp:3128"))
        );
        // NO_PROXY: a name covers its subdomains; addresses, ranges, `*`.
        let no = &[
            ("HTTPS_PROXY", "http://corp:3128"),
            (
                "NO_PROXY",
                " example.com., .svc.local,*.k8s, 10.0.0.0/8,192.168.1.7, [::1], fd00::/8, a:80",
            ),
        ];
        for direct in [
            "https://example.com/card",
            "https://registry.EXAMPLE.com./card",
            "https://svc.local/",
            "https://a.svc.local/",
            "https://x.k8s/",
            "https://10.200.1.1/",
            "https://192.168.1.7:8443/",
            "https://[::1]:8443/",
            "https://[fd12::1]/",
        ] {
            assert_eq!(via(no, direct), None, "{direct}");
        }
        for proxied in [
            "https://notexample.com/",
            "https://example.com.evil/",
            "https://11.0.0.1/",
            "https://192.168.1.8/",
            "https://[::2]/",
            "https://a/",
        ] {
            assert_eq!(via(no, proxied), corp, "{proxied}");
        }
        let star = &[("HTTPS_PROXY", "http://corp:1"), ("no_proxy", "*")];
        assert_eq!(via(star, "https://anything.example/"), None);
        let zero = &[
            ("HTTPS_PROXY", "http://corp:1"),
            ("no_proxy", "0.0.0.0/0,::/0"),
        ];
        assert_eq!(via(zero, "https://1.2.3.4/"), None);
        assert_eq!(via(zero, "https://[2001:db8::1]/"), None);
        // A value that is no http(s) proxy is refused, without its value in the message.
        for bad in [
            &[("HTTPS_PROXY", "socks5://u:secret@corp:1080")][..],
            &[("all_proxy", "http://u:secret@[bad")][..],
        ] {
            let e = Proxies::from_env(env(bad)).err().unwrap();
            assert!(e.contains(bad[0].0) && !e.contains("secret"), "{e}");
        }
    }

    /// A proxy variable that is not UTF-8 is refused by its name, whichever it is.
    #[test]
    fn proxy_variables_that_are_not_utf8_are_bad_input() {
        use std::os::unix::ffi::OsStringExt;
        for var in ["HTTP_PROXY", "no_proxy", "ALL_PROXY"] {
            let e = Proxies::from_env(|name| {
                (name == var).then(|| std::ffi::OsString::from_vec(b"http://p\xff:1".to_vec()))
            })
            .err()
            .unwrap();
            assert_eq!(e, format!("the environment's {var} is not UTF-8 text"));
        }
    }
}
