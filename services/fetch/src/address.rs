//! Which addresses may be fetched: every special-purpose range of the IANA
//! registries (private, loopback, link-local, documentation, benchmarking,
//! reserved, multicast, ...) is refused unless allowed, for IP literals in
//! URLs and for every address a name resolves to; the connection goes to
//! the addresses that passed.

use crate::error::FetchError;
use ipnet::{Ipv4Net, Ipv6Net};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::OnceLock;
use url::Url;

/// The IPv4 ranges never fetched without `allow_private`: every entry of
/// the IANA IPv4 Special-Purpose Address Registry whose "Globally
/// Reachable" is false (the AS112 and AMT ranges, which are reachable, are
/// left out), plus multicast (224.0.0.0/4). Data, not a parser: the
/// registry is short and changes rarely; a test covers every line.
const V4_REFUSED: &[(&str, &str)] = &[
    ("0.0.0.0/8", "this network"),
    ("10.0.0.0/8", "private use"),
    ("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link local"),
    ("172.16.0.0/12", "private use"),
    ("192.0.0.0/24", "IETF protocol assignments"),
    ("192.0.2.0/24", "documentation (TEST-NET-1)"),
    ("192.88.99.0/24", "deprecated 6to4 relay anycast"),
    ("192.168.0.0/16", "private use"),
    ("198.18.0.0/15", "benchmarking"),
    ("198.51.100.0/24", "documentation (TEST-NET-2)"),
    ("203.0.113.0/24", "documentation (TEST-NET-3)"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),
    ("255.255.255.255/32", "limited broadcast"),
];

/// The IPv6 ranges refused the same way, from the IANA IPv6
/// Special-Purpose Address Registry and the IPv6 address space (anything
/// outside global unicast 2000::/3 is refused as well). The ranges that
/// embed an IPv4 address (mapped, NAT64, 6to4) are judged by that address.
const V6_REFUSED: &[(&str, &str)] = &[
    ("::/8", "reserved (loopback, unspecified, IPv4-compatible)"),
    ("64:ff9b:1::/48", "local-use IPv4/IPv6 translation"),
    ("100::/64", "discard-only"),
    ("100:0:0:1::/64", "dummy prefix"),
    (
        "2001::/23",
        "IETF protocol assignments (Teredo, benchmarking, ORCHID)",
    ),
    ("2001:db8::/32", "documentation"),
    ("3fff::/20", "documentation"),
    ("5f00::/16", "segment routing (SRv6) SIDs"),
    ("fc00::/7", "unique local"),
    ("fe80::/10", "link-local unicast"),
    ("fec0::/10", "site-local (deprecated)"),
    ("ff00::/8", "multicast"),
];

fn v4_table() -> &'static [(Ipv4Net, &'static str)] {
    static T: OnceLock<Vec<(Ipv4Net, &'static str)>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t: Vec<_> = V4_REFUSED
            .iter()
            .map(|(net, why)| (net.parse().expect("a valid IPv4 range"), *why))
            .collect();
        // The most specific range names an address (255.255.255.255 is
        // the limited broadcast, not just reserved).
        t.sort_by_key(|(net, _): &(Ipv4Net, _)| std::cmp::Reverse(net.prefix_len()));
        t
    })
}

fn v6_table() -> &'static [(Ipv6Net, &'static str)] {
    static T: OnceLock<Vec<(Ipv6Net, &'static str)>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t: Vec<_> = V6_REFUSED
            .iter()
            .map(|(net, why)| (net.parse().expect("a valid IPv6 range"), *why))
            .collect();
        // The most specific range names an address (255.255.255.255 is
        // the limited broadcast, not just reserved).
        t.sort_by_key(|(net, _): &(Ipv6Net, _)| std::cmp::Reverse(net.prefix_len()));
        t
    })
}

/// The IPv4 address an IPv6 one stands for: IPv4-mapped (::ffff:a.b.c.d),
/// NAT64 (64:ff9b::/96) and 6to4 (2002::/16, the address in bits 16-48).
fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = v6.segments();
    let o = v6.octets();
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(o[2], o[3], o[4], o[5]));
    }
    None
}

/// Why an address may not be fetched without `allow_private` (the
/// registry's name for its range), or `None` when it may.
pub fn refusal(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_table()
            .iter()
            .find(|(net, _)| net.contains(&v4))
            .map(|(_, why)| *why),
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                return refusal(IpAddr::V4(v4));
            }
            if let Some((_, why)) = v6_table().iter().find(|(net, _)| net.contains(&v6)) {
                return Some(why);
            }
            // Only global unicast (2000::/3) is allocated for the Internet.
            (v6.segments()[0] & 0xe000 != 0x2000).then_some("not global unicast")
        }
    }
}

/// Whether an address may be fetched without `allow_private`.
pub fn is_public(ip: IpAddr) -> bool {
    refusal(ip).is_none()
}

/// Resolves names for reqwest and drops addresses that may not be fetched,
/// so a public name pointing at 127.0.0.1 cannot slip through.
pub(crate) struct GuardedResolver {
    pub(crate) allow_private: bool,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow = self.allow_private;
        Box::pin(async move {
            let host = name.as_str().to_string();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let ok: Vec<SocketAddr> = addrs
                .into_iter()
                .filter(|a| allow || is_public(a.ip()))
                .collect();
            if ok.is_empty() {
                return Err(Box::new(crate::error::PrivateOnly(host))
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(ok.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// Refuses IP-literal hosts in reserved ranges (names are checked by the
/// resolver, after resolution).
pub(crate) fn check_address(url: &Url, allow_private: bool) -> Result<(), FetchError> {
    if allow_private {
        return Ok(());
    }
    let ip = match url.host() {
        Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
        _ => return Ok(()),
    };
    match refusal(ip) {
        None => Ok(()),
        Some(why) => Err(FetchError::Private(format!("{ip} ({why})"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first, a middle and the last address of every refused range.
    #[test]
    fn every_special_purpose_range_is_refused_end_to_end() {
        for (net, why) in V4_REFUSED {
            let net: Ipv4Net = net.parse().unwrap();
            let (lo, hi) = (u32::from(net.network()), u32::from(net.broadcast()));
            let mid = Ipv4Addr::from(lo + (hi - lo) / 2);
            for a in [net.network(), mid, net.broadcast()] {
                assert!(!is_public(IpAddr::V4(a)), "{a} ({why})");
            }
        }
        for (net, why) in V6_REFUSED {
            let net: Ipv6Net = net.parse().unwrap();
            let mid =
                Ipv6Addr::from((u128::from(net.network()) / 2) + (u128::from(net.broadcast()) / 2));
            for a in [net.network(), mid, net.broadcast()] {
                // ::ffff:0:0/96 inside ::/8 is judged by its IPv4 address.
                if a.to_ipv4_mapped().is_some() {
                    continue;
                }
                assert!(!is_public(IpAddr::V6(a)), "{a} ({why})");
            }
        }
    }

    #[test]
    fn embedded_ipv4_addresses_are_judged_by_that_address() {
        for a in [
            "::ffff:127.0.0.1",
            "64:ff9b::7f00:1",  // NAT64 of 127.0.0.1
            "64:ff9b::a00:1",   // NAT64 of 10.0.0.1
            "2002:c0a8:101::1", // 6to4 of 192.168.1.1
            "2002:7f00:1::",    // 6to4 of 127.0.0.1
        ] {
            assert!(!is_public(a.parse().unwrap()), "{a}");
        }
        for a in [
            "::ffff:93.184.216.34",
            "64:ff9b::5db8:d822",
            "2002:5db8:d822::1",
        ] {
            assert!(is_public(a.parse().unwrap()), "{a}");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for a in [
            "93.184.216.34",
            "1.1.1.1",
            "192.31.196.1", // AS112: globally reachable
            "198.20.0.1",   // just past 198.18.0.0/15
            "100.128.0.1",  // just past 100.64.0.0/10
            "223.255.255.255",
            "2606:4700::1111",
            "2a00:1450:4001::200e",
        ] {
            assert!(is_public(a.parse().unwrap()), "{a}");
        }
    }
}
