//! Which addresses belong to the person's own machine or network: loopback, unspecified,
//! link-local, private, unique-local and shared (CGNAT), in IPv4 and IPv6, an IPv4 address
//! carried inside an IPv6 one (mapped, compatible, NAT64) judged as itself.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Why an address is the person's own rather than the public internet's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Own {
    /// 127.0.0.0/8, ::1.
    Loopback,
    /// 0.0.0.0/8, ::: connecting to it reaches this machine.
    Unspecified,
    /// 169.254.0.0/16, fe80::/10: where cloud metadata services answer.
    LinkLocal,
    /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fec0::/10 (site-local).
    Private,
    /// fc00::/7.
    UniqueLocal,
    /// 100.64.0.0/10, the shared address space of carrier-grade NAT.
    Shared,
}

impl Own {
    /// What the address is, as it follows "its address … is".
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Self::Loopback => "this machine (loopback)",
            Self::Unspecified => "the unspecified address, which reaches this machine",
            Self::LinkLocal => "link-local, where cloud metadata services answer",
            Self::Private => "on a private network",
            Self::UniqueLocal => "on a private network (IPv6 unique local)",
            Self::Shared => "on a carrier-grade NAT network (shared address space)",
        }
    }
}

/// Whether `ip` is the person's own, and why; `None` for a public address.
pub(crate) fn classify(ip: IpAddr) -> Option<Own> {
    match canonical(ip) {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// `addr` with an IPv4 address inside an IPv6 one taken out (`[::ffff:127.0.0.1]:80` is
/// `127.0.0.1:80`), as it is shown and allowed.
pub(crate) fn canonical_socket(addr: SocketAddr) -> SocketAddr {
    SocketAddr::new(canonical(addr.ip()), addr.port())
}

/// The IPv4 address an IPv6 one carries (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`,
/// NAT64 `64:ff9b::a.b.c.d`), else the address itself.
pub(crate) fn canonical(ip: IpAddr) -> IpAddr {
    let IpAddr::V6(v6) = ip else { return ip };
    let segments = v6.segments();
    let [a, b, c, d, e, f, ..] = segments;
    let inner = || Ipv4Addr::from(u128::from(v6) as u32);
    let mapped = [a, b, c, d, e] == [0; 5] && f == 0xffff;
    // `::` and `::1` are IPv6's own, not IPv4 addresses.
    let compatible = [a, b, c, d, e, f] == [0; 6] && u128::from(v6) > 1;
    let nat64 = [a, b, c, d, e, f] == [0x64, 0xff9b, 0, 0, 0, 0];
    if mapped || compatible || nat64 {
        IpAddr::V4(inner())
    } else {
        ip
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<Own> {
    let [a, b, ..] = ip.octets();
    Some(match (a, b) {
        (127, _) => Own::Loopback,
        (0, _) => Own::Unspecified,
        (169, 254) => Own::LinkLocal,
        (10, _) | (192, 168) => Own::Private,
        (172, b) if (16..32).contains(&b) => Own::Private,
        (100, b) if (64..128).contains(&b) => Own::Shared,
        _ => return None,
    })
}

fn classify_v6(ip: Ipv6Addr) -> Option<Own> {
    let first = ip.segments()[0];
    Some(match first {
        _ if ip == Ipv6Addr::LOCALHOST => Own::Loopback,
        _ if ip == Ipv6Addr::UNSPECIFIED => Own::Unspecified,
        _ if first & 0xffc0 == 0xfe80 => Own::LinkLocal,
        _ if first & 0xffc0 == 0xfec0 => Own::Private,
        _ if first & 0xfe00 == 0xfc00 => Own::UniqueLocal,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_of_the_persons_own_machine_and_network_are_told_from_public_ones() {
        use Own::*;
        let cases: &[(&str, Option<Own>)] = &[
            ("127.0.0.1", Some(Loopback)),
            ("127.255.255.254", Some(Loopback)),
            ("::1", Some(Loopback)),
            ("0.0.0.0", Some(Unspecified)),
            ("0.1.2.3", Some(Unspecified)),
            ("::", Some(Unspecified)),
            ("169.254.169.254", Some(LinkLocal)),
            ("fe80::1", Some(LinkLocal)),
            ("febf::1", Some(LinkLocal)),
            ("10.0.0.1", Some(Private)),
            ("172.16.0.1", Some(Private)),
            ("172.31.255.255", Some(Private)),
            ("192.168.1.1", Some(Private)),
            ("fec0::1", Some(Private)),
            ("fc00::1", Some(UniqueLocal)),
            ("fd12:3456::1", Some(UniqueLocal)),
            ("100.64.0.1", Some(Shared)),
            ("100.127.255.255", Some(Shared)),
            // IPv4 inside IPv6 is judged as itself.
            ("::ffff:127.0.0.1", Some(Loopback)),
            ("::ffff:10.1.2.3", Some(Private)),
            ("::ffff:169.254.169.254", Some(LinkLocal)),
            ("::127.0.0.1", Some(Loopback)),
            ("64:ff9b::7f00:1", Some(Loopback)),
            ("::ffff:0.0.0.0", Some(Unspecified)),
            // Public.
            ("93.184.216.34", None),
            ("8.8.8.8", None),
            ("172.15.255.255", None),
            ("172.32.0.1", None),
            ("100.63.255.255", None),
            ("100.128.0.1", None),
            ("169.253.0.1", None),
            ("192.169.0.1", None),
            ("11.0.0.1", None),
            ("2001:db8::1", None),
            ("2606:4700::1111", None),
            ("::ffff:8.8.8.8", None),
            ("fe00::1", None),
        ];
        for (text, expected) in cases {
            let ip: IpAddr = text.parse().unwrap();
            assert_eq!(classify(ip), *expected, "{text}");
        }
    }

    #[test]
    fn an_ipv4_address_inside_ipv6_is_shown_as_itself() {
        let cases = [
            ("[::ffff:127.0.0.1]:80", "127.0.0.1:80"),
            ("[64:ff9b::a00:1]:443", "10.0.0.1:443"),
            ("[::1]:8080", "[::1]:8080"),
            ("[::]:1", "[::]:1"),
            ("10.0.0.1:22", "10.0.0.1:22"),
        ];
        for (addr, shown) in cases {
            let addr: SocketAddr = addr.parse().unwrap();
            assert_eq!(canonical_socket(addr).to_string(), shown);
        }
    }

    #[test]
    fn every_kind_is_described_after_its_address() {
        assert_eq!(Own::Loopback.describe(), "this machine (loopback)");
        assert!(Own::LinkLocal.describe().contains("metadata"));
    }
}
