//! Who the gateway lets in: a request whose Host is a loopback name (or the `--listen`
//! address) with the gateway's port, with no Origin of another site, carrying the token printed
//! at start. The gate judges each head by it before the connection takes one of the gateway's
//! places (strangers wait in a small pool of their own), and the gateway judges every request
//! by it again before anything else is read.

use std::net::IpAddr;

use crate::web::{self, Asked, HttpResponse};

pub(super) struct Door {
    /// `--listen`: the address listened on besides the loopback names.
    pub listen: Option<IpAddr>,
    pub token: String,
}

impl Door {
    /// The Host, the Origin and the token of a request to `port`; the refusal when one fails.
    pub(super) fn admit<R: Asked + ?Sized>(
        &self,
        request: &R,
        port: u16,
    ) -> Result<(), HttpResponse> {
        let refuse = |status, error: &str| {
            Err(web::json_response(
                status,
                &serde_json::json!({ "error": error }),
            ))
        };
        if !web::host_allowed(request, port) && !self.names_listen_address(request, port, "Host") {
            return refuse(403, "the Host is not this gateway's address");
        }
        let foreign_origin = request.field("Origin").is_some()
            && !self.names_listen_address(request, port, "Origin");
        if !web::origin_allowed(request, port) && foreign_origin {
            return refuse(403, "requests from another site are refused");
        }
        if !self.has_token(request) {
            return refuse(
                401,
                "the token is missing or wrong: use the address marvin serve printed",
            );
        }
        Ok(())
    }

    /// Whether header `name` (Host, or Origin without its scheme) is the `--listen` address
    /// with `port`.
    fn names_listen_address<R: Asked + ?Sized>(&self, request: &R, port: u16, name: &str) -> bool {
        let Some(address) = self.listen else {
            return false;
        };
        let expected = super::host_and_port(address, port);
        request.field(name).is_some_and(|value| {
            value
                .trim_start_matches("http://")
                .eq_ignore_ascii_case(&expected)
        })
    }

    /// The token, as `Authorization: Bearer TOKEN` or `?token=TOKEN`, compared in constant time.
    fn has_token<R: Asked + ?Sized>(&self, request: &R) -> bool {
        let (_, query) = web::path_and_query(request);
        let given = request
            .field("Authorization")
            .and_then(|h| h.strip_prefix("Bearer ").map(str::to_string))
            .or_else(|| web::query_param(query, "token"))
            .unwrap_or_default();
        crate::secret::same(given.as_bytes(), self.token.as_bytes())
    }
}
