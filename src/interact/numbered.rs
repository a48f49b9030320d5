//! An option chosen by its number, read the same on every surface where a person types one
//! (`--resume ID --answer`, the phone's words, `--attach`'s `/answer`, the terminal's typed
//! numbers): a number that is no option is refused with one sentence, which says which
//! numbers are options and how to give your own words, never taken as your own words.

/// How a surface takes the person's own words in place of an option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum OwnWords {
    /// It does not: only the options count (a form's choice).
    Not,
    /// Written after `Other:` (`--answer "Other: 7"`, the phone, `/answer`).
    Written,
    /// By choosing "Other", the option of this number (the terminal's numbered list).
    Chosen(usize),
}

/// The place among `count` options of the one `word` names by its number: `None` when
/// `word` is no number (a label or the person's own words), `Err` with why when no option has
/// that number.
pub(crate) fn option_number(
    word: &str,
    count: usize,
    own: OwnWords,
) -> Option<Result<usize, String>> {
    let n: usize = word.trim().parse().ok()?;
    Some(match (1..=count).contains(&n) {
        true => Ok(n - 1),
        false => Err(no_option(n, count, own)),
    })
}

/// The sentence that refuses option `n` of `count`.
pub(crate) fn no_option(n: usize, count: usize, own: OwnWords) -> String {
    let options = match count {
        1 => "the only option is 1".to_string(),
        _ => format!("the options are 1 to {count}"),
    };
    let own = match own {
        OwnWords::Not => String::new(),
        OwnWords::Written => format!(". To answer {n} in your own words, write Other: {n}"),
        OwnWords::Chosen(other) => format!(". For your own words, choose {other} (Other)"),
    };
    format!("There is no option {n}: {options}{own}")
}

/// The person's own words where `typed` says so (`Other: 7`, any case), as they are.
pub(crate) fn own_words(typed: &str) -> Option<&str> {
    let typed = typed.trim();
    let head = typed.get(..6)?;
    head.eq_ignore_ascii_case("other:")
        .then(|| typed[6..].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_names_an_option_or_is_refused_with_the_numbers_and_the_way_to_words() {
        // (typed, options, how own words are given, what it names)
        type Case = (
            &'static str,
            usize,
            OwnWords,
            Option<Result<usize, &'static str>>,
        );
        let cases: &[Case] = &[
            ("2", 2, OwnWords::Written, Some(Ok(1))),
            (" 1 ", 3, OwnWords::Not, Some(Ok(0))),
            ("SQLite", 2, OwnWords::Written, None),
            ("-1", 2, OwnWords::Written, None),
            (
                "7",
                2,
                OwnWords::Written,
                Some(Err(
                    "There is no option 7: the options are 1 to 2. To answer 7 in your own words, write Other: 7",
                )),
            ),
            (
                "0",
                3,
                OwnWords::Chosen(3),
                Some(Err(
                    "There is no option 0: the options are 1 to 3. For your own words, choose 3 (Other)",
                )),
            ),
            (
                "4",
                1,
                OwnWords::Not,
                Some(Err("There is no option 4: the only option is 1")),
            ),
        ];
        for (word, count, own, expected) in cases {
            let got = option_number(word, *count, *own);
            let expected = expected.map(|r| r.map_err(str::to_string));
            assert_eq!(got, expected, "{word:?} of {count}");
        }
    }

    #[test]
    fn other_before_the_words_marks_them_as_the_persons_own() {
        assert_eq!(own_words("Other: 7"), Some("7"));
        assert_eq!(own_words("other:DuckDB"), Some("DuckDB"));
        assert_eq!(own_words("Others"), None);
        assert_eq!(own_words("7"), None);
        assert_eq!(own_words("Ötherwise"), None);
    }
}
