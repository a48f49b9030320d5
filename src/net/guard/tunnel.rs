//! The filtering proxy's connections onward: to the checked addresses themselves or to the
//! person's own proxy, and the bytes carried between the two sides until either ends.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The first of `addrs` that takes the connection.
pub(super) fn direct(addrs: &[SocketAddr], timeout: Duration) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address to connect to");
    for addr in addrs {
        match TcpStream::connect_timeout(addr, timeout) {
            Ok(stream) => return Ok(stream),
            Err(error) => last = error,
        }
    }
    Err(last)
}

/// A connection to the proxy at `proxy` (`http://host:port`), which the person set up: its
/// address is not checked.
pub(super) fn to_proxy(proxy: &str, timeout: Duration) -> io::Result<TcpStream> {
    let rest = proxy.split_once("://").map_or(proxy, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or_default();
    let authority = authority.rsplit('@').next().unwrap_or_default();
    let with_port = match authority.rsplit_once(':') {
        Some((_, port)) if !port.contains(']') => authority.to_string(),
        _ => format!("{authority}:80"),
    };
    let addrs: Vec<SocketAddr> = with_port.to_socket_addrs()?.collect();
    direct(&addrs, timeout)
}

/// Copies `from` to `to` until `from` ends, then ends both.
pub(super) fn relay(mut from: &TcpStream, mut to: &TcpStream) {
    let _ = io::copy(&mut from, &mut to);
    end(from, to);
}

/// Carries bytes both ways until either side ends.
pub(super) fn both_ways(client: &TcpStream, server: &TcpStream) {
    std::thread::scope(|scope| {
        scope.spawn(|| relay(client, server));
        relay(server, client);
    });
}

/// Sends `length` bytes of a request's body: those already read (`start`), then the rest
/// from `from`.
pub(super) fn body(
    start: &[u8],
    length: u64,
    mut from: &TcpStream,
    mut to: &TcpStream,
) -> io::Result<()> {
    let first = start
        .len()
        .min(usize::try_from(length).unwrap_or(usize::MAX));
    to.write_all(&start[..first])?;
    let left = length - first as u64;
    let copied = io::copy(&mut (&mut from).take(left), &mut to)?;
    if copied < left {
        return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
    }
    Ok(())
}

/// Ends both connections, which wakes whatever still reads from either.
pub(super) fn end(a: &TcpStream, b: &TcpStream) {
    let _ = a.shutdown(Shutdown::Both);
    let _ = b.shutdown(Shutdown::Both);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn a_proxy_address_is_found_with_or_without_its_port() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let timeout = Duration::from_secs(5);
        for proxy in [
            format!("http://127.0.0.1:{port}"),
            format!("http://user:pw@127.0.0.1:{port}/"),
            format!("127.0.0.1:{port}"),
        ] {
            let stream = to_proxy(&proxy, timeout).unwrap();
            assert_eq!(stream.peer_addr().unwrap().port(), port, "{proxy}");
        }
        assert!(direct(&[], timeout).is_err());
    }

    #[test]
    fn a_body_is_sent_from_what_was_read_and_what_follows() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let mut writer = TcpStream::connect(addr).unwrap();
        let (from, _) = listener.accept().unwrap();
        let sink_listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let to = TcpStream::connect(sink_listener.local_addr().unwrap()).unwrap();
        let (mut sink, _) = sink_listener.accept().unwrap();
        writer.write_all(b"defEXTRA").unwrap();
        body(b"abc", 6, &from, &to).unwrap();
        drop(to);
        let mut got = Vec::new();
        sink.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"abcdef");
    }
}
