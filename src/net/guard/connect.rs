//! The guard inside ureq: a resolver that keeps only the addresses a request may connect to
//! (ureq connects to exactly those, on the first request and on every redirect, so a name
//! cannot answer one address to the check and another to the connection), and a first
//! connector that checks by name a request the person's proxy carries.

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{ConnectionDetails, Connector, NextTimeout, Transport};

use super::{Guard, Refusal};

/// Resolves as ureq does, then drops what the guard refuses.
#[derive(Debug)]
pub(crate) struct GuardedResolver {
    inner: DefaultResolver,
    guard: Guard,
}

impl GuardedResolver {
    pub(crate) fn new(guard: Guard) -> Self {
        Self {
            inner: DefaultResolver::default(),
            guard,
        }
    }
}

impl Resolver for GuardedResolver {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let resolved = self.inner.resolve(uri, config, timeout)?;
        // The proxy the person set up is theirs to reach; what it carries is checked by
        // GuardedConnector.
        if config.proxy().is_some_and(|proxy| proxy.uri() == uri) {
            return Ok(resolved);
        }
        let host = uri.host().unwrap_or_default();
        let kept = self
            .guard
            .filter(&uri.to_string(), host, resolved.iter().copied())
            .map_err(refused)?;
        let mut out = self.inner.empty();
        for addr in kept {
            out.push(addr);
        }
        Ok(out)
    }
}

/// First in the chain: a request that goes through a proxy (which resolves the name itself,
/// so no address of it passes the resolver) is checked by what its URL names.
#[derive(Debug)]
pub(crate) struct GuardedConnector {
    guard: Guard,
}

impl GuardedConnector {
    pub(crate) fn new(guard: Guard) -> Self {
        Self { guard }
    }
}

impl<In: Transport> Connector<In> for GuardedConnector {
    type Out = In;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<In>, ureq::Error> {
        let uri = details.uri;
        let proxied = details
            .config
            .proxy()
            .is_some_and(|proxy| proxy.uri() != uri && !proxy.is_no_proxy(uri));
        if proxied {
            let host = uri.host().unwrap_or_default();
            let https = uri.scheme_str() == Some("https");
            let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
            self.guard
                .check_proxied(&uri.to_string(), host, port)
                .map_err(refused)?;
        }
        Ok(chained)
    }
}

/// A refusal as ureq carries it out of a request, to be found again by `Transport::from_io`.
fn refused(refusal: Refusal) -> ureq::Error {
    ureq::Error::Io(std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        refusal,
    ))
}
