//! OSRM's steps in words: the maneuver (`type` and `modifier`), the road (`name`, `ref`) and
//! the distance in the person's unit, one line a step, after the way osrm-text-instructions
//! phrases them, kept short.

use serde_json::Value;

use crate::tools::kit::geo::DistanceUnit;

/// One line per step of every leg; a stop between legs is said as a stop.
pub(super) fn lines(legs: &Value, unit: DistanceUnit) -> Vec<String> {
    let legs = legs.as_array().map_or(&[][..], Vec::as_slice);
    let mut lines = Vec::new();
    for (n, leg) in legs.iter().enumerate() {
        let last_leg = n + 1 == legs.len();
        for step in leg["steps"].as_array().into_iter().flatten() {
            let maneuver = &step["maneuver"];
            let kind = maneuver["type"].as_str().unwrap_or_default();
            if kind == "depart" && n > 0 {
                continue;
            }
            let mut line = instruction(maneuver, road(step).as_deref(), last_leg, n + 1);
            if kind != "arrive" {
                let meters = step["distance"].as_f64().unwrap_or_default();
                line.push_str(&format!(" ({})", unit.show(meters)));
            }
            lines.push(line);
        }
    }
    lines
}

/// The step's road: its name, its number, or both ("Main Street (A 7)").
fn road(step: &Value) -> Option<String> {
    let name = step["name"].as_str().map(str::trim).unwrap_or_default();
    let number = step["ref"].as_str().map(str::trim).unwrap_or_default();
    match (name.is_empty(), number.is_empty()) {
        (true, true) => None,
        (false, true) => Some(name.to_string()),
        (true, false) => Some(number.to_string()),
        (false, false) if name == number => Some(name.to_string()),
        (false, false) => Some(format!("{name} ({number})")),
    }
}

/// What to do at one maneuver, in words.
fn instruction(maneuver: &Value, road: Option<&str>, last_leg: bool, leg: usize) -> String {
    let kind = maneuver["type"].as_str().unwrap_or_default();
    let modifier = maneuver["modifier"].as_str().unwrap_or_default();
    let way = direction(modifier);
    let onto = road.map(|r| format!(" onto {r}")).unwrap_or_default();
    match kind {
        "depart" => {
            let heading = maneuver["bearing_after"].as_f64().map(compass);
            let on = road.map(|r| format!(" on {r}")).unwrap_or_default();
            match heading {
                Some(heading) => format!("Head {heading}{on}"),
                None => format!("Start{on}"),
            }
        }
        "arrive" => {
            let side = match modifier {
                "left" | "slight left" | "sharp left" => ", on the left",
                "right" | "slight right" | "sharp right" => ", on the right",
                _ => "",
            };
            let at = if last_leg {
                "your destination".to_string()
            } else {
                format!("stop {leg}")
            };
            format!("Arrive at {at}{side}")
        }
        _ if modifier == "uturn" => format!("Make a U-turn{onto}"),
        "turn" | "end of road" if modifier == "straight" => format!("Go straight{onto}"),
        "turn" => joined("Turn", &way, &onto),
        "end of road" => format!("At the end of the road, turn {way}{onto}"),
        "new name" | "continue" | "notification" | "use lane" | "" if modifier == "straight" => {
            format!("Continue{onto}")
        }
        "new name" | "continue" | "notification" | "use lane" | "" => {
            joined("Continue", &way, &onto)
        }
        "merge" => joined("Merge", &way, &onto),
        "on ramp" => format!("Take the ramp on the {}{onto}", side(modifier)),
        "off ramp" => format!("Take the exit on the {}{onto}", side(modifier)),
        "fork" => format!("Keep {} at the fork{onto}", side(modifier)),
        "roundabout" | "rotary" => match maneuver["exit"].as_u64() {
            Some(exit) => format!("At the {kind}, take exit {exit}{onto}"),
            None => format!("Enter the {kind}{onto}"),
        },
        "roundabout turn" => format!("At the roundabout, turn {way}{onto}"),
        "exit roundabout" | "exit rotary" => format!("Leave the roundabout{onto}"),
        other => format!("{}{onto}", capital(other)),
    }
}

/// "Turn left onto X", or "Turn onto X" when there is no side to say.
fn joined(verb: &str, way: &str, onto: &str) -> String {
    if way.is_empty() {
        format!("{verb}{onto}")
    } else {
        format!("{verb} {way}{onto}")
    }
}

/// A modifier as said after "turn": "left", "slightly right", "sharp left", "straight".
fn direction(modifier: &str) -> String {
    match modifier.split_once(' ') {
        Some(("slight", side)) => format!("slightly {side}"),
        _ => modifier.to_string(),
    }
}

/// The side a modifier leans to (ramps, forks).
fn side(modifier: &str) -> &'static str {
    if modifier.contains("left") {
        "left"
    } else if modifier.contains("right") {
        "right"
    } else {
        "middle"
    }
}

/// A bearing as one of eight compass points.
fn compass(bearing: f64) -> &'static str {
    const POINTS: [&str; 8] = [
        "north",
        "northeast",
        "east",
        "southeast",
        "south",
        "southwest",
        "west",
        "northwest",
    ];
    POINTS[crate::tools::kit::geo::compass_point(bearing)]
}

fn capital(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maneuvers_read_as_instructions() {
        for (maneuver, road, said) in [
            (
                json!({"type": "depart", "bearing_after": 195}),
                None,
                "Head south",
            ),
            (
                json!({"type": "depart", "bearing_after": 290}),
                Some("Rue X"),
                "Head west on Rue X",
            ),
            (
                json!({"type": "turn", "modifier": "right"}),
                None,
                "Turn right",
            ),
            (
                json!({"type": "turn", "modifier": "slight left"}),
                Some("A 7"),
                "Turn slightly left onto A 7",
            ),
            (
                json!({"type": "turn", "modifier": "uturn"}),
                None,
                "Make a U-turn",
            ),
            (
                json!({"type": "new name", "modifier": "straight"}),
                Some("Main St"),
                "Continue onto Main St",
            ),
            (
                json!({"type": "end of road", "modifier": "left"}),
                None,
                "At the end of the road, turn left",
            ),
            (
                json!({"type": "fork", "modifier": "slight right"}),
                None,
                "Keep right at the fork",
            ),
            (
                json!({"type": "off ramp", "modifier": "right"}),
                Some("Exit 4"),
                "Take the exit on the right onto Exit 4",
            ),
            (
                json!({"type": "roundabout", "modifier": "right", "exit": 2}),
                None,
                "At the roundabout, take exit 2",
            ),
            (
                json!({"type": "exit roundabout", "modifier": "right"}),
                Some("B Road"),
                "Leave the roundabout onto B Road",
            ),
            (
                json!({"type": "merge", "modifier": "slight left"}),
                None,
                "Merge slightly left",
            ),
            (
                json!({"type": "arrive", "modifier": "left"}),
                None,
                "Arrive at your destination, on the left",
            ),
            (
                json!({"type": "arrive"}),
                None,
                "Arrive at your destination",
            ),
        ] {
            assert_eq!(instruction(&maneuver, road, true, 1), said, "{maneuver}");
        }
        assert_eq!(
            instruction(&json!({"type": "arrive"}), None, false, 1),
            "Arrive at stop 1"
        );
    }

    #[test]
    fn roads_and_short_distances() {
        assert_eq!(road(&json!({"name": "", "ref": ""})), None);
        assert_eq!(
            road(&json!({"name": "Main St"})).as_deref(),
            Some("Main St")
        );
        assert_eq!(
            road(&json!({"name": "Autoroute du Soleil", "ref": "A 7"})).as_deref(),
            Some("Autoroute du Soleil (A 7)")
        );
        assert_eq!(DistanceUnit::Miles.show(33.1), "110 ft");
        assert_eq!(DistanceUnit::Kilometers.show(33.1), "33 m");
    }
}
