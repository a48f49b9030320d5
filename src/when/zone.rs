//! The local time zone through the C library (`localtime_r`: TZ, else /etc/localtime): the
//! offset at a moment, and the moment of a wall-clock time with DST settled: a repeated hour
//! is its earlier moment and a skipped one moves forward by the gap (RFC 5545's reading, and
//! jiff's "compatible" disambiguation).

/// Seconds east of UTC at unix time `at` (0 where the C library has no answer).
// `tm_gmtoff` is a C long: i64 here, i32 on 32-bit targets.
#[allow(clippy::unnecessary_cast)]
pub(crate) fn offset_at(at: i64) -> i64 {
    broken_down(at).map_or(0, |tm| tm.tm_gmtoff as i64)
}

/// The C library's local broken-down time at `at`.
pub(super) fn broken_down(at: i64) -> Option<libc::tm> {
    let time = libc::time_t::try_from(at).ok()?;
    // SAFETY: localtime_r fills the zeroed `tm` we own from a time_t we own; it is the
    // thread-safe variant, and a null return (a year beyond `int`) is checked.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        (!libc::localtime_r(&time, &mut tm).is_null()).then_some(tm)
    }
}

/// How a wall-clock time maps to moments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// Once, as most times are.
    Once(i64),
    /// Twice, where the clock goes back: the earlier moment, then the later.
    Twice(i64, i64),
    /// Never, where the clock jumps forward: the moment the same time after the jump names
    /// (the offset before the jump applied to it).
    Skipped(i64),
}

/// The moments of `wall`, a wall-clock time counted like unix time (days × 86,400 + the
/// time of day) in the local zone.
pub(crate) fn resolve(wall: i64) -> Found {
    // The offsets in force a day on either side: no zone changes twice within two days.
    let before = offset_at(wall - 86_400);
    let after = offset_at(wall + 86_400);
    let fits = |offset: i64| {
        let at = wall - offset;
        (at + offset_at(at) == wall).then_some(at)
    };
    match (fits(before), fits(after)) {
        (Some(a), Some(b)) if a != b => Found::Twice(a.min(b), a.max(b)),
        (Some(at), _) | (_, Some(at)) => Found::Once(at),
        (None, None) => Found::Skipped(wall - before),
    }
}

/// The one moment `wall` stands for: the earlier of a repeated time, the skipped time moved
/// forward.
pub(crate) fn moment(wall: i64) -> i64 {
    match resolve(wall) {
        Found::Once(at) | Found::Twice(at, _) | Found::Skipped(at) => at,
    }
}

/// Whether the wall-clock time of `at` happens twice (the hour the clock goes back), so that
/// showing it needs its offset.
pub(crate) fn ambiguous(at: i64) -> bool {
    matches!(resolve(at + offset_at(at)), Found::Twice(..))
}

/// `+05:30`, `-04:00`, `+00:00`.
pub(crate) fn show_offset(offset: i64) -> String {
    let sign = if offset < 0 { '-' } else { '+' };
    let minutes = offset.abs() / 60;
    format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}
