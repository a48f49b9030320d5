//! html5lib-tests' encoding/*.dat (not the scripted ones): the encoding each case's bytes
//! declare (a BOM, the prescan, a later `<meta>` in the head as a browser's reparse finds it),
//! Windows-1252 when they declare none (the spec's default, as the tests assume), compared by
//! WHATWG name with the expected one.

use encoding_rs::{Encoding, WINDOWS_1252};

use super::super::charset::declared;
use super::{dat_cases, fixtures, report};

#[test]
fn html5lib_encoding() {
    let (mut passed, mut total) = (0, 0);
    let mut failures = Vec::new();
    for (file, bytes) in fixtures("encoding", ".dat") {
        for case in dat_cases(&bytes) {
            let section = |name: &str| case.iter().find(|(n, _)| n == name).map(|(_, b)| b.clone());
            let (Some(data), Some(label)) = (section("data"), section("encoding")) else {
                continue;
            };
            total += 1;
            let expected = Encoding::for_label(label.trim_ascii()).expect("a known encoding");
            let found = declared(&data, None).unwrap_or(WINDOWS_1252);
            if found == expected {
                passed += 1;
            } else {
                let data: String = String::from_utf8_lossy(&data).chars().take(300).collect();
                failures.push(format!(
                    "{file}: {data:?}: expected {}, found {}",
                    expected.name(),
                    found.name()
                ));
            }
        }
    }
    report("encoding", passed, total, "", &failures, 1.0);
}
