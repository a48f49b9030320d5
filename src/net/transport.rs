//! Transport failures, classified: what went wrong between Marvin and a service, before any
//! meaning is given to an answer. The model clients and the tools each turn these into their
//! own words.

use std::io;

/// Where in an exchange a failure happened: it decides what a timeout says and whether a lost
/// connection may simply be tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Sending the request and waiting for the first byte of the answer.
    Request,
    /// Reading an answer that has started.
    Answer,
}

/// What failed on the way. The texts inside come from the system or ureq, with every
/// credential of the exchange already cut out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Transport {
    /// Resolving the name or connecting took longer than [`super::CONNECT_TIMEOUT`].
    ConnectTimeout,
    /// Nothing arrived for the idle timeout, before the answer started or during it.
    Silent(Phase),
    /// The host name does not resolve.
    HostNotFound,
    /// Nothing listens at the address.
    Refused,
    /// The connection closed before any byte of the answer: the request may be sent again.
    ClosedEarly(String),
    /// The connection failed some other way.
    Broken(String),
    /// The request could not be made (a bad URL, a proxy that failed, a TLS error).
    Failed(String),
    /// The guard kept the request (or a redirect) from an address of the person's own.
    Guarded(super::guard::Refusal),
}

/// In plain words, lowercase, for a caller that has nothing more specific to say (a tool's
/// "cannot reach ntfy at …: connection refused").
impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ConnectTimeout => write!(
                f,
                "no connection within {}s",
                super::CONNECT_TIMEOUT.as_secs()
            ),
            Self::Silent(Phase::Request) => f.write_str("no answer in time"),
            Self::Silent(Phase::Answer) => f.write_str("the answer stopped arriving"),
            Self::HostNotFound => f.write_str("the host name does not resolve"),
            Self::Refused => f.write_str("connection refused"),
            Self::ClosedEarly(why) | Self::Broken(why) | Self::Failed(why) => f.write_str(why),
            Self::Guarded(refusal) => write!(f, "{} leads to {refusal}", refusal.url),
        }
    }
}

impl Transport {
    /// Classifies a ureq error met in `phase`.
    pub(crate) fn from_ureq(error: ureq::Error, phase: Phase) -> Self {
        match error {
            ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve) => {
                Self::ConnectTimeout
            }
            ureq::Error::Timeout(_) => Self::Silent(phase),
            ureq::Error::Io(io) => Self::from_io(io, phase),
            ureq::Error::HostNotFound => Self::HostNotFound,
            ureq::Error::ConnectionFailed => Self::Refused,
            other => Self::Failed(other.to_string()),
        }
    }

    /// Classifies an error met while reading a body in `phase`. ureq reports its own failures
    /// there (timeouts above all) as an io::Error wrapping a ureq::Error, and the guard its
    /// refusals as one wrapping the refusal.
    pub(crate) fn from_io(error: io::Error, phase: Phase) -> Self {
        let error = match inner::<super::guard::Refusal>(error) {
            Ok(refusal) => return Self::Guarded(refusal),
            Err(error) => error,
        };
        let error = match inner::<ureq::Error>(error) {
            Ok(inner) => return Self::from_ureq(inner, phase),
            Err(error) => error,
        };
        match error.kind() {
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => Self::Silent(phase),
            io::ErrorKind::ConnectionRefused => Self::Refused,
            io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::UnexpectedEof
                if phase == Phase::Request =>
            {
                Self::ClosedEarly(error.to_string())
            }
            _ => Self::Broken(error.to_string()),
        }
    }

    /// The same failure with `redact` applied to the texts it carries.
    pub(super) fn map_text(self, redact: impl Fn(&str) -> String) -> Self {
        match self {
            Self::ClosedEarly(text) => Self::ClosedEarly(redact(&text)),
            Self::Broken(text) => Self::Broken(redact(&text)),
            Self::Failed(text) => Self::Failed(redact(&text)),
            other => other,
        }
    }
}

/// The error of type `T` an io::Error carries, else the io::Error as it was.
fn inner<T: std::error::Error + Send + Sync + 'static>(error: io::Error) -> Result<T, io::Error> {
    if !error.get_ref().is_some_and(|inner| inner.is::<T>()) {
        return Err(error);
    }
    let kind = error.kind();
    match error.into_inner().map(|inner| inner.downcast::<T>()) {
        Some(Ok(inner)) => Ok(*inner),
        Some(Err(other)) => Err(io::Error::new(kind, other)),
        None => Err(io::Error::from(kind)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_are_classified_by_kind_and_phase() {
        use io::ErrorKind::*;
        let cases = [
            (TimedOut, Phase::Answer, Transport::Silent(Phase::Answer)),
            (
                WouldBlock,
                Phase::Request,
                Transport::Silent(Phase::Request),
            ),
            (ConnectionRefused, Phase::Request, Transport::Refused),
            (
                ConnectionReset,
                Phase::Request,
                Transport::ClosedEarly("gone".into()),
            ),
            (
                UnexpectedEof,
                Phase::Answer,
                Transport::Broken("gone".into()),
            ),
            (Other, Phase::Request, Transport::Broken("gone".into())),
        ];
        for (kind, phase, expected) in cases {
            let error = io::Error::new(kind, "gone");
            assert_eq!(Transport::from_io(error, phase), expected, "{kind:?}");
        }
    }

    #[test]
    fn failures_are_told_in_plain_words() {
        let cases = [
            (Transport::ConnectTimeout, "no connection within 30s"),
            (Transport::Silent(Phase::Request), "no answer in time"),
            (
                Transport::Silent(Phase::Answer),
                "the answer stopped arriving",
            ),
            (Transport::HostNotFound, "the host name does not resolve"),
            (Transport::Refused, "connection refused"),
            (Transport::Broken("reset by peer".into()), "reset by peer"),
        ];
        for (transport, said) in cases {
            assert_eq!(transport.to_string(), said);
        }
    }

    #[test]
    fn ureq_errors_inside_io_errors_are_unwrapped() {
        let wrapped = io::Error::other(ureq::Error::Timeout(ureq::Timeout::PerRead));
        assert_eq!(
            Transport::from_io(wrapped, Phase::Answer),
            Transport::Silent(Phase::Answer)
        );
        let connect = ureq::Error::Timeout(ureq::Timeout::Connect);
        assert_eq!(
            Transport::from_ureq(connect, Phase::Request),
            Transport::ConnectTimeout
        );
        assert_eq!(
            Transport::from_ureq(ureq::Error::HostNotFound, Phase::Request),
            Transport::HostNotFound
        );
    }
}
