//! Converting physical units locally: a table of units (length, mass, volume, temperature,
//! speed, area, data, time), each with its exact factor to its dimension's base unit (an offset
//! too for temperatures) and the names people write it by.

/// What a unit measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dimension {
    Length,
    Mass,
    Volume,
    Temperature,
    Speed,
    Area,
    Data,
    Time,
}

impl Dimension {
    fn name(self) -> &'static str {
        match self {
            Dimension::Length => "length",
            Dimension::Mass => "mass",
            Dimension::Volume => "volume",
            Dimension::Temperature => "temperature",
            Dimension::Speed => "speed",
            Dimension::Area => "area",
            Dimension::Data => "data",
            Dimension::Time => "time",
        }
    }
}

/// One unit: `base = value × factor + offset` in its dimension's base unit (metre, kilogram,
/// litre, kelvin, metre per second, square metre, byte, second).
#[derive(Debug)]
pub(super) struct Unit {
    /// The symbol results show.
    pub(super) symbol: &'static str,
    pub(super) dimension: Dimension,
    factor: f64,
    offset: f64,
    /// What people write for it, besides the symbol (compared as written, then in lower case,
    /// then without a plural `s`).
    aliases: &'static [&'static str],
}

const fn unit(
    symbol: &'static str,
    dimension: Dimension,
    factor: f64,
    aliases: &'static [&'static str],
) -> Unit {
    Unit {
        symbol,
        dimension,
        factor,
        offset: 0.0,
        aliases,
    }
}

use Dimension::*;

/// Every unit, with the exact definitions of their factors (the international yard and pound
/// of 1959, the US customary and imperial gallons, the mean Gregorian year).
const UNITS: &[Unit] = &[
    unit("m", Length, 1.0, &["meter", "metre"]),
    unit("km", Length, 1000.0, &["kilometer", "kilometre"]),
    unit("cm", Length, 0.01, &["centimeter", "centimetre"]),
    unit("mm", Length, 0.001, &["millimeter", "millimetre"]),
    unit(
        "µm",
        Length,
        1e-6,
        &["um", "micrometer", "micrometre", "micron"],
    ),
    unit("nm", Length, 1e-9, &["nanometer", "nanometre"]),
    unit("mi", Length, 1609.344, &["mile"]),
    unit("yd", Length, 0.9144, &["yard"]),
    unit("ft", Length, 0.3048, &["foot", "feet", "'"]),
    unit("in", Length, 0.0254, &["inch", "inches", "\""]),
    unit("nmi", Length, 1852.0, &["nautical mile", "NM"]),
    unit("kg", Mass, 1.0, &["kilogram", "kilo"]),
    unit("g", Mass, 0.001, &["gram", "gramme"]),
    unit("mg", Mass, 1e-6, &["milligram"]),
    unit("µg", Mass, 1e-9, &["ug", "mcg", "microgram"]),
    unit("t", Mass, 1000.0, &["tonne", "metric ton"]),
    unit("lb", Mass, 0.453_592_37, &["lbs", "pound"]),
    unit("oz", Mass, 0.028_349_523_125, &["ounce"]),
    unit("st", Mass, 6.350_293_18, &["stone"]),
    unit("short ton", Mass, 907.184_74, &["us ton", "ton"]),
    unit("long ton", Mass, 1_016.046_908_8, &["imperial ton"]),
    unit("L", Volume, 1.0, &["l", "liter", "litre", "dm3"]),
    unit(
        "mL",
        Volume,
        0.001,
        &["ml", "milliliter", "millilitre", "cm3", "cc"],
    ),
    unit("cL", Volume, 0.01, &["cl", "centiliter", "centilitre"]),
    unit("dL", Volume, 0.1, &["dl", "deciliter", "decilitre"]),
    unit("m³", Volume, 1000.0, &["m3", "cubic meter", "cubic metre"]),
    unit("gal", Volume, 3.785_411_784, &["gallon", "us gallon"]),
    unit(
        "imp gal",
        Volume,
        4.546_09,
        &["imperial gallon", "uk gallon"],
    ),
    unit("qt", Volume, 0.946_352_946, &["quart"]),
    unit("pt", Volume, 0.473_176_473, &["pint", "us pint"]),
    unit(
        "imp pt",
        Volume,
        0.568_261_25,
        &["imperial pint", "uk pint"],
    ),
    unit("cup", Volume, 0.236_588_236_5, &["us cup"]),
    unit(
        "fl oz",
        Volume,
        0.029_573_529_562_5,
        &["floz", "fluid ounce"],
    ),
    unit("tbsp", Volume, 0.014_786_764_781_25, &["tablespoon"]),
    unit("tsp", Volume, 0.004_928_921_593_75, &["teaspoon"]),
    unit(
        "ft³",
        Volume,
        28.316_846_592,
        &["ft3", "cubic foot", "cubic feet"],
    ),
    unit(
        "in³",
        Volume,
        0.016_387_064,
        &["in3", "cubic inch", "cubic inches"],
    ),
    Unit {
        symbol: "K",
        dimension: Temperature,
        factor: 1.0,
        offset: 0.0,
        aliases: &["kelvin"],
    },
    Unit {
        symbol: "°C",
        dimension: Temperature,
        factor: 1.0,
        offset: 273.15,
        aliases: &["C", "celsius", "centigrade", "degC", "deg C"],
    },
    Unit {
        symbol: "°F",
        dimension: Temperature,
        factor: 5.0 / 9.0,
        offset: 273.15 - 32.0 * 5.0 / 9.0,
        aliases: &["F", "fahrenheit", "degF", "deg F"],
    },
    Unit {
        symbol: "°R",
        dimension: Temperature,
        factor: 5.0 / 9.0,
        offset: 0.0,
        aliases: &["R", "rankine"],
    },
    unit(
        "m/s",
        Speed,
        1.0,
        &["mps", "meters per second", "metres per second"],
    ),
    unit(
        "km/h",
        Speed,
        1.0 / 3.6,
        &[
            "kph",
            "kmh",
            "kmph",
            "kilometers per hour",
            "kilometres per hour",
        ],
    ),
    unit("mph", Speed, 0.447_04, &["mi/h", "miles per hour"]),
    unit("kn", Speed, 1852.0 / 3600.0, &["knot", "kt", "kts"]),
    unit("ft/s", Speed, 0.3048, &["fps", "feet per second"]),
    unit(
        "m²",
        Area,
        1.0,
        &["m2", "sq m", "square meter", "square metre"],
    ),
    unit(
        "km²",
        Area,
        1e6,
        &["km2", "sq km", "square kilometer", "square kilometre"],
    ),
    unit(
        "cm²",
        Area,
        1e-4,
        &["cm2", "sq cm", "square centimeter", "square centimetre"],
    ),
    unit(
        "mm²",
        Area,
        1e-6,
        &["mm2", "sq mm", "square millimeter", "square millimetre"],
    ),
    unit("ha", Area, 1e4, &["hectare"]),
    unit("acre", Area, 4_046.856_422_4, &["ac"]),
    unit(
        "ft²",
        Area,
        0.092_903_04,
        &["ft2", "sq ft", "sqft", "square foot", "square feet"],
    ),
    unit(
        "in²",
        Area,
        0.000_645_16,
        &["in2", "sq in", "square inch", "square inches"],
    ),
    unit("yd²", Area, 0.836_127_36, &["yd2", "sq yd", "square yard"]),
    unit(
        "mi²",
        Area,
        2_589_988.110_336,
        &["mi2", "sq mi", "square mile"],
    ),
    unit("bit", Data, 0.125, &["b", "bits"]),
    unit("B", Data, 1.0, &["byte", "octet"]),
    unit("kB", Data, 1e3, &["KB", "kilobyte"]),
    unit("MB", Data, 1e6, &["megabyte"]),
    unit("GB", Data, 1e9, &["gigabyte"]),
    unit("TB", Data, 1e12, &["terabyte"]),
    unit("PB", Data, 1e15, &["petabyte"]),
    unit("KiB", Data, 1024.0, &["kibibyte"]),
    unit("MiB", Data, 1_048_576.0, &["mebibyte"]),
    unit("GiB", Data, 1_073_741_824.0, &["gibibyte"]),
    unit("TiB", Data, 1_099_511_627_776.0, &["tebibyte"]),
    unit("kbit", Data, 125.0, &["kb", "kilobit"]),
    unit("Mbit", Data, 125e3, &["Mb", "megabit"]),
    unit("Gbit", Data, 125e6, &["Gb", "gigabit"]),
    unit("s", Time, 1.0, &["sec", "second"]),
    unit("ms", Time, 1e-3, &["millisecond"]),
    unit("µs", Time, 1e-6, &["us", "microsecond"]),
    unit("ns", Time, 1e-9, &["nanosecond"]),
    unit("min", Time, 60.0, &["minute"]),
    unit("h", Time, 3600.0, &["hr", "hour"]),
    unit("d", Time, 86_400.0, &["day"]),
    unit("wk", Time, 604_800.0, &["week"]),
    unit("month", Time, 2_629_746.0, &["mo"]),
    unit("yr", Time, 31_556_952.0, &["year", "y"]),
];

/// The unit `text` names, or why none: unknown, or written so that several units fit.
pub(super) fn find(text: &str) -> Result<&'static Unit, String> {
    let written = normalise(text);
    let exact: Vec<&Unit> = UNITS
        .iter()
        .filter(|u| names(u).any(|n| n == written))
        .collect();
    if let [one] = exact[..] {
        return Ok(one);
    }
    let lower = written.to_lowercase();
    let singular = lower
        .strip_suffix("es")
        .filter(|s| s.len() > 1)
        .into_iter()
        .chain(lower.strip_suffix('s').filter(|s| !s.is_empty()));
    for candidate in std::iter::once(lower.as_str()).chain(singular) {
        let found: Vec<&Unit> = UNITS
            .iter()
            .filter(|u| names(u).any(|n| n.to_lowercase() == candidate))
            .collect();
        match found[..] {
            [] => continue,
            [one] => return Ok(one),
            _ => {
                let options: Vec<String> = found.iter().map(|u| u.symbol.to_string()).collect();
                return Err(format!(
                    "'{}' could mean {}: write the unit exactly (case matters, e.g. MB for megabytes, Mb for megabits).",
                    text.trim(),
                    options.join(" or ")
                ));
            }
        }
    }
    if let Some(speed) = ratio(&written) {
        return Ok(speed);
    }
    Err(format!(
        "'{}' is not a unit convert_units knows. It knows {}; currencies are three-letter codes such as USD or EUR.",
        text.trim(),
        known()
    ))
}

/// A speed written as a length over a time ("km/hr", "mi/hr", "metres per sec", as GNU units
/// reads them): the speed unit of the table with that factor, when there is one.
fn ratio(written: &str) -> Option<&'static Unit> {
    let (length, time) = written
        .split_once('/')
        .or_else(|| written.split_once(" per "))?;
    let (length, time) = (find(length).ok()?, find(time).ok()?);
    if length.dimension != Length || time.dimension != Time {
        return None;
    }
    let factor = length.factor / time.factor;
    UNITS
        .iter()
        .find(|u| u.dimension == Speed && ((u.factor - factor) / factor).abs() < 1e-12)
}

fn names(unit: &Unit) -> impl Iterator<Item = &'static str> {
    std::iter::once(unit.symbol).chain(unit.aliases.iter().copied())
}

/// Spaces squeezed, superscripts and `^` made plain digits, `μ` (Greek mu) and `°` handled.
fn normalise(text: &str) -> String {
    let text = text
        .trim()
        .replace('²', "2")
        .replace('³', "3")
        .replace('^', "")
        .replace('μ', "µ")
        .replace("degrees ", "")
        .replace("degree ", "");
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match text.strip_prefix('°') {
        Some(rest) if !rest.is_empty() => format!("°{}", rest.to_uppercase()),
        _ => text,
    }
}

fn known() -> String {
    [Length, Mass, Volume, Temperature, Speed, Area, Data, Time]
        .iter()
        .map(|d| {
            let symbols: Vec<&str> = UNITS
                .iter()
                .filter(|u| u.dimension == *d)
                .map(|u| u.symbol)
                .collect();
            format!("{} ({})", d.name(), symbols.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// `value` in `from` as `to`, or why the two cannot be converted.
pub(super) fn convert(value: f64, from: &Unit, to: &Unit) -> Result<f64, String> {
    if from.dimension != to.dimension {
        return Err(format!(
            "Cannot convert {} ({}) to {} ({}): pick two units of the same kind.",
            from.symbol,
            from.dimension.name(),
            to.symbol,
            to.dimension.name()
        ));
    }
    let base = value * from.factor + from.offset;
    if from.dimension == Temperature && base < -1e-9 {
        return Err(format!(
            "{} {} is below absolute zero, which no temperature is.",
            number(value),
            from.symbol
        ));
    }
    Ok((base - to.offset) / to.factor)
}

/// A number as people read it: at most 12 significant digits (what is left of f64's rounding
/// of exact factors), no trailing zeros, scientific notation only for the very large or small.
pub(super) fn number(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return if value.is_finite() {
            "0".into()
        } else {
            value.to_string()
        };
    }
    // The decimal exponent, read from the shortest exact form rather than log10 (which would
    // pull libm into the binary and its start, and misjudges some powers of ten).
    let scientific = format!("{:e}", value.abs());
    let magnitude: i32 = scientific
        .split_once('e')
        .and_then(|(_, exponent)| exponent.parse().ok())
        .unwrap_or(0);
    if !(-6..15).contains(&magnitude) {
        let text = format!("{value:.11e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        return format!("{}e{exponent}", trim_zeros(mantissa));
    }
    let decimals = (11 - magnitude).clamp(0, 17) as usize;
    trim_zeros(&format!("{value:.decimals$}"))
}

fn trim_zeros(text: &str) -> String {
    if !text.contains('.') {
        return text.to_string();
    }
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

/// Whether a unit's size is an average rather than a definition (months and years).
pub(super) fn is_average(unit: &Unit) -> bool {
    matches!(unit.symbol, "month" | "yr")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_are_exact_to_the_digits_shown() {
        let cases: &[(f64, &str, &str, &str)] = &[
            (1.0, "mile", "km", "1.609344"),
            (100.0, "km", "mi", "62.1371192237"),
            (12.0, "inches", "feet", "1"),
            (5.0, "ft", "cm", "152.4"),
            (1.0, "nautical mile", "m", "1852"),
            (1.0, "kg", "lb", "2.20462262185"),
            (16.0, "oz", "lb", "1"),
            (14.0, "pounds", "stone", "1"),
            (1.0, "gallon", "L", "3.785411784"),
            (1.0, "imperial gallon", "imp pt", "8"),
            (3.0, "tsp", "tbsp", "1"),
            (2.0, "cups", "pint", "1"),
            (100.0, "°C", "°F", "212"),
            (-40.0, "F", "C", "-40"),
            (98.6, "fahrenheit", "celsius", "37"),
            (0.0, "K", "°C", "-273.15"),
            (491.67, "R", "K", "273.15"),
            (100.0, "km/h", "mph", "62.1371192237"),
            (1.0, "knot", "km/h", "1.852"),
            (1.0, "acre", "m²", "4046.8564224"),
            (1.0, "ha", "acres", "2.47105381467"),
            (1.0, "sq mi", "km2", "2.58998811034"),
            (1.0, "GiB", "MB", "1073.741824"),
            (1.0, "GB", "MiB", "953.674316406"),
            (100.0, "Mbit", "MB", "12.5"),
            (8.0, "bits", "B", "1"),
            (90.0, "minutes", "h", "1.5"),
            (1.0, "week", "s", "604800"),
            (1.0, "year", "days", "365.2425"),
            (1e-9, "s", "ns", "1"),
            (1e20, "nm", "km", "100000000"),
            (3.0, "µm", "nm", "3000"),
            (2.0, "μm", "um", "2"),
        ];
        for (value, from, to, expected) in cases {
            let (a, b) = (find(from).unwrap(), find(to).unwrap());
            let got = number(convert(*value, a, b).unwrap());
            assert_eq!(&got, expected, "{value} {from} → {to}");
        }
    }

    #[test]
    fn names_are_found_by_symbol_alias_case_and_plural() {
        let cases: &[(&str, &str)] = &[
            ("KM", "km"),
            ("Kilometres", "km"),
            ("feet", "ft"),
            ("ft^2", "ft²"),
            ("square feet", "ft²"),
            ("°c", "°C"),
            ("degrees Fahrenheit", "°F"),
            ("MB", "MB"),
            ("Mb", "Mbit"),
            ("kb", "kbit"),
            ("KB", "kB"),
            ("b", "bit"),
            ("B", "B"),
            ("  fl   oz ", "fl oz"),
            ("hours", "h"),
            ("ounces", "oz"),
            ("kgs", "kg"),
            // GNU units reads any length over any time; `hr` is its hour.
            ("km/hr", "km/h"),
            ("mi/hr", "mph"),
            ("m/sec", "m/s"),
            ("feet per sec", "ft/s"),
            ("nmi/hr", "kn"),
        ];
        for (text, symbol) in cases {
            assert_eq!(find(text).map(|u| u.symbol), Ok(*symbol), "{text}");
        }
    }

    #[test]
    fn unknown_ambiguous_and_mismatched_units_say_what_to_do() {
        let unknown = find("furlong").unwrap_err();
        assert!(unknown.starts_with("'furlong' is not a unit"), "{unknown}");
        assert!(unknown.contains("length (m, km"), "{unknown}");
        let ambiguous = find("mb").unwrap_err();
        assert!(ambiguous.contains("could mean MB or Mbit"), "{ambiguous}");
        let mismatch = convert(1.0, find("kg").unwrap(), find("m").unwrap()).unwrap_err();
        assert_eq!(
            mismatch,
            "Cannot convert kg (mass) to m (length): pick two units of the same kind."
        );
        let cold = convert(-300.0, find("C").unwrap(), find("K").unwrap()).unwrap_err();
        assert!(cold.contains("below absolute zero"), "{cold}");
    }

    #[test]
    fn numbers_read_plainly() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (1.5, "1.5"),
            (-0.000_000_000_001, "-1e-12"),
            (299_792_458.0, "299792458"),
            (1e18, "1e18"),
            (0.1 + 0.2, "0.3"),
            (2.0 / 3.0, "0.666666666667"),
        ];
        for (value, expected) in cases {
            assert_eq!(number(*value), *expected, "{value}");
        }
    }
}
