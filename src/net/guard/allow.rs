//! MARVIN_WEB_ALLOW read: the hosts, addresses and networks of the person's own machine or
//! network that the web tools may reach without asking (`localhost:3000`, `10.0.0.0/8`,
//! `[::1]:8080`, `*` for all of them).

use std::net::{IpAddr, SocketAddr};

use super::address::canonical;

/// What the person allows, entry by entry. Empty: nothing of their own is reached unasked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AllowList {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq)]
enum Entry {
    /// `*`: every address.
    Everything,
    /// A host as a URL names it, on any port or one.
    Name { name: String, port: Option<u16> },
    /// One address, on any port or one.
    Address { ip: IpAddr, port: Option<u16> },
    /// `10.0.0.0/8`, `fd00::/8`.
    Network { ip: IpAddr, prefix: u8 },
}

impl AllowList {
    /// The entries of `text`, separated by commas or spaces; the error names the entry that is
    /// neither a host, an address nor a network.
    pub fn parse(text: &str) -> Result<Self, String> {
        let entries = text
            .split([',', ' ', '\t'])
            .filter(|entry| !entry.is_empty())
            .map(|entry| {
                entry_of(entry).ok_or_else(|| {
                    format!(
                        "{entry:?} is not a host, an address or a network (like localhost:3000, 10.0.0.0/8 or *)"
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { entries })
    }

    /// Whether a request for `host` (as the URL writes it) may connect to `addr`.
    pub fn allows(&self, host: &str, addr: SocketAddr) -> bool {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_ascii_lowercase();
        let ip = canonical(addr.ip());
        let port_fits = |port: &Option<u16>| port.is_none_or(|port| port == addr.port());
        self.entries.iter().any(|entry| match entry {
            Entry::Everything => true,
            Entry::Name { name, port } => *name == host && port_fits(port),
            Entry::Address { ip: allowed, port } => *allowed == ip && port_fits(port),
            Entry::Network {
                ip: network,
                prefix,
            } => within(ip, *network, *prefix),
        })
    }
}

fn entry_of(entry: &str) -> Option<Entry> {
    if entry == "*" {
        return Some(Entry::Everything);
    }
    if let Some((ip, prefix)) = entry.split_once('/') {
        let ip = canonical(
            ip.trim_start_matches('[')
                .trim_end_matches(']')
                .parse()
                .ok()?,
        );
        let prefix: u8 = prefix.parse().ok()?;
        let most = if ip.is_ipv4() { 32 } else { 128 };
        return (prefix <= most).then_some(Entry::Network { ip, prefix });
    }
    if let Ok(ip) = entry.parse::<IpAddr>() {
        let ip = canonical(ip);
        return Some(Entry::Address { ip, port: None });
    }
    if let Some(inside) = entry.strip_prefix('[') {
        let (ip, rest) = inside.split_once(']')?;
        let ip = canonical(ip.parse().ok()?);
        let port = match rest {
            "" => None,
            rest => Some(rest.strip_prefix(':')?.parse().ok()?),
        };
        return Some(Entry::Address { ip, port });
    }
    let (host, port) = match entry.rsplit_once(':') {
        Some((host, port)) => (host, Some(port.parse::<u16>().ok()?)),
        None => (entry, None),
    };
    if let Ok(ip) = host.parse::<IpAddr>() {
        let ip = canonical(ip);
        return Some(Entry::Address { ip, port });
    }
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    let fits = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
    (!name.is_empty() && name.chars().all(fits)).then_some(Entry::Name { name, port })
}

/// Whether `ip` lies in `network/prefix` (both of one family).
fn within(ip: IpAddr, network: IpAddr, prefix: u8) -> bool {
    match (ip, network) {
        (IpAddr::V4(ip), IpAddr::V4(network)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            u32::from(ip) & mask == u32::from(network) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(network)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            u128::from(ip) & mask == u128::from(network) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_allow_what_they_name_and_nothing_else() {
        let list = AllowList::parse(
            "localhost:3000, intranet.example.  10.0.0.0/8,[::1]:8080 192.168.1.5 fd00::/8 127.0.0.1:9000",
        )
        .unwrap();
        let cases: &[(&str, &str, bool)] = &[
            ("localhost", "127.0.0.1:3000", true),
            ("LOCALHOST", "[::1]:3000", true),
            ("localhost", "127.0.0.1:3001", false),
            ("127.0.0.1", "127.0.0.1:3000", false),
            ("intranet.example", "10.9.9.9:80", true),
            ("intranet.example.", "172.16.0.1:443", true),
            ("wiki.intranet.example", "172.16.0.1:443", false),
            ("anything", "10.200.0.1:22", true),
            ("anything", "11.0.0.1:22", false),
            ("[::1]", "[::1]:8080", true),
            ("[::1]", "[::1]:8081", false),
            ("x", "192.168.1.5:1", true),
            ("x", "[::ffff:192.168.1.5]:1", true),
            ("x", "192.168.1.6:1", false),
            ("x", "[fd12::1]:80", true),
            ("x", "[fe80::1]:80", false),
            ("2130706433", "127.0.0.1:9000", true),
            ("127.1", "127.0.0.1:9001", false),
        ];
        for (host, addr, allowed) in cases {
            let addr: SocketAddr = addr.parse().unwrap();
            assert_eq!(list.allows(host, addr), *allowed, "{host} {addr}");
        }
    }

    #[test]
    fn everything_nothing_and_networks_of_any_size() {
        let addr: SocketAddr = "169.254.169.254:80".parse().unwrap();
        assert!(AllowList::parse("*").unwrap().allows("x", addr));
        assert!(!AllowList::parse("").unwrap().allows("x", addr));
        assert!(!AllowList::default().allows("x", addr));
        assert!(AllowList::parse("0.0.0.0/0").unwrap().allows("x", addr));
        assert!(
            AllowList::parse("169.254.169.254/32")
                .unwrap()
                .allows("x", addr)
        );
        assert!(!AllowList::parse("::/0").unwrap().allows("x", addr));
        assert!(
            AllowList::parse("::ffff:169.254.0.0/16")
                .unwrap()
                .allows("x", addr)
        );
    }

    #[test]
    fn entries_that_are_none_of_host_address_or_network_are_refused_by_name() {
        for bad in [
            "10.0.0.0/33",
            "::/129",
            "host:port",
            "host:70000",
            "[::1",
            "[::1]x",
            "http://localhost",
            "a/b",
            ":80",
        ] {
            let error = AllowList::parse(&format!("localhost, {bad}")).unwrap_err();
            assert!(
                error.starts_with(&format!("{bad:?} is not a host")),
                "{error}"
            );
        }
    }
}
