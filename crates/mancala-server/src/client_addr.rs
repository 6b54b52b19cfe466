//! The address a request comes from, for rate limits: the peer's own, or, where the peer is a
//! trusted reverse proxy (`--trusted-proxy CIDR`), the address the proxies name in
//! `X-Forwarded-For`. The header is read only from a trusted peer: anyone else could write
//! any address in it.

use std::net::{IpAddr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::{Extensions, HeaderMap};
use ipnet::IpNet;

/// The networks whose peers are reverse proxies of this server (`--trusted-proxy`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(pub Vec<IpNet>);

impl TrustedProxies {
    /// Whether `ip` is one of the proxies.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|n| n.contains(&ip))
    }

    /// The client's address of a request that `peer` sent with `headers`: `peer` itself
    /// unless it is trusted; else `X-Forwarded-For` read from the right (each proxy appends
    /// the address it heard from), the first address that is not a trusted proxy. A malformed
    /// entry stops the walk at the last address read, which a trusted proxy wrote.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let mut addr = peer.to_canonical();
        if !self.trusts(addr) {
            return addr;
        }
        let mut hops = Vec::new();
        for value in headers.get_all("x-forwarded-for") {
            let Ok(text) = value.to_str() else {
                return addr;
            };
            hops.extend(text.split(','));
        }
        for hop in hops.iter().rev() {
            let Some(ip) = parse_hop(hop) else {
                return addr;
            };
            addr = ip;
            if !self.trusts(ip) {
                break;
            }
        }
        addr
    }

    /// The client's address of a request, from its extensions (the peer's address, where the
    /// server was given peers' addresses) and its headers, by [`TrustedProxies::client`]:
    /// what the rate limit and the login limits count by. `None` without a peer's address.
    pub fn of_request(&self, ext: &Extensions, headers: &HeaderMap) -> Option<IpAddr> {
        ext.get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(a)| self.client(a.ip(), headers))
    }
}

/// One address of `X-Forwarded-For`: `203.0.113.7`, `2001:db8::1`, or with a port
/// (`203.0.113.7:41000`, `[2001:db8::1]:41000`).
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    hop.parse::<IpAddr>()
        .or_else(|_| hop.parse::<SocketAddr>().map(|s| s.ip()))
        .ok()
        .map(|ip| ip.to_canonical())
}

/// `--trusted-proxy`: a network (`10.0.0.0/8`, `fd00::/8`) or one address (`127.0.0.1`).
pub fn parse_proxy(s: &str) -> Result<IpNet, String> {
    let s = s.trim();
    s.parse::<IpNet>()
        .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
        .map(|n| n.trunc())
        .map_err(|_| format!("`{s}` is not an address or a network: write 127.0.0.1 or 10.0.0.0/8"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use proptest::prelude::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn proxies(nets: &[&str]) -> TrustedProxies {
        TrustedProxies(nets.iter().map(|n| parse_proxy(n).unwrap()).collect())
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn the_header_is_ignored_from_an_untrusted_peer() {
        let t = proxies(&["10.0.0.0/8"]);
        let h = headers(&["198.51.100.1"]);
        assert_eq!(t.client(ip("203.0.113.9"), &h), ip("203.0.113.9"));
        assert_eq!(
            TrustedProxies::default().client(ip("10.0.0.1"), &h),
            ip("10.0.0.1")
        );
    }

    #[test]
    fn a_trusted_peer_names_the_client_and_forged_entries_on_the_left_are_skipped() {
        let t = proxies(&["10.0.0.0/8", "127.0.0.1"]);
        // The client wrote "1.1.1.1" itself; the first proxy appended what it heard from.
        let h = headers(&["1.1.1.1, 198.51.100.7", "10.0.0.5"]);
        assert_eq!(t.client(ip("127.0.0.1"), &h), ip("198.51.100.7"));
        // With a port, and IPv6 in brackets.
        let h = headers(&["[2001:db8::7]:4711"]);
        assert_eq!(t.client(ip("10.1.2.3"), &h), ip("2001:db8::7"));
        // No header: the proxy itself.
        assert_eq!(t.client(ip("10.1.2.3"), &HeaderMap::new()), ip("10.1.2.3"));
        // A malformed entry stops at the last address a trusted proxy wrote.
        let h = headers(&["198.51.100.7, garbage, 10.0.0.9"]);
        assert_eq!(t.client(ip("10.1.2.3"), &h), ip("10.0.0.9"));
        // An IPv4-mapped IPv6 peer is the IPv4 address.
        assert_eq!(
            t.client(ip("::ffff:127.0.0.1"), &headers(&["192.0.2.1"])),
            ip("192.0.2.1")
        );
    }

    #[test]
    fn proxies_are_parsed_or_refused_with_the_form_to_write() {
        assert_eq!(parse_proxy("10.1.2.3/8").unwrap().to_string(), "10.0.0.0/8");
        assert_eq!(parse_proxy("::1").unwrap().to_string(), "::1/128");
        let e = parse_proxy("localhost").unwrap_err();
        assert!(e.contains("10.0.0.0/8"), "{e}");
        assert!(parse_proxy("10.0.0.0/33").is_err());
    }

    proptest! {
        #[test]
        fn any_header_from_an_untrusted_peer_gives_the_peer(v in "[ -~]{0,80}", a in any::<[u8; 4]>()) {
            let t = proxies(&["10.0.0.0/8"]);
            let peer = IpAddr::from([203, a[1], a[2], a[3]]);
            let h = HeaderValue::from_str(&v).map(|v| { let mut h = HeaderMap::new(); h.insert("x-forwarded-for", v); h }).unwrap_or_default();
            prop_assert_eq!(t.client(peer, &h), peer);
            // From a trusted peer: never panics, and gives an address of the header or the peer.
            let got = t.client(ip("10.0.0.1"), &h);
            let named = got == ip("10.0.0.1") || v.split(',').any(|hop| parse_hop(hop) == Some(got));
            prop_assert!(named, "{} from {:?}", got, v);
        }
    }
}
