//! Blender, through blender-mcp's add-on socket (BLENDER_MCP_HOST:BLENDER_MCP_PORT, `link`):
//! `blender_get_scene` (get_scene_info), `blender_get_object` (get_object_info),
//! `blender_execute_code` (execute_code, always approved first where the mode asks),
//! `blender_screenshot` (get_viewport_screenshot into a file, `shot`); the add-on has no
//! command to create, change, delete or colour an object, so those four send small fixed bpy
//! programs through execute_code (`python`). [`status`] is what `!blender` says.

mod link;
mod python;
mod shot;

use std::borrow::Cow;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::cancel::CancelToken;
use crate::config::WebSettings;
use crate::interact::approvals::{Action, ActionKind, visible};
use crate::tools::schema::{Choices, Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};
use link::Link;

const VECTOR: &str =
    r#"{"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3}"#;
const COLOR: &str = r##"{"anyOf": [{"type": "string", "description": "#rrggbb"}, {"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1}, "minItems": 3, "maxItems": 4}]}"##;

const NAME: &[Param] = &[Param::required(
    "name",
    Kind::String,
    "The object's exact name, as blender_get_scene lists it",
)];
const CREATE: &[Param] = &[
    Param::required(
        "type",
        Kind::Choice(Choices::Fixed(python::KIND_NAMES)),
        "What to add",
    ),
    Param::optional(
        "name",
        Kind::String,
        "Its name (Blender adds .001 if taken)",
    ),
    Param::optional(
        "location",
        Kind::Any(Cow::Borrowed(VECTOR)),
        "[x, y, z] in metres (default the 3D cursor)",
    ),
    Param::optional(
        "rotation",
        Kind::Any(Cow::Borrowed(VECTOR)),
        "[x, y, z] Euler angles in degrees",
    ),
    Param::optional(
        "scale",
        Kind::Any(Cow::Borrowed(VECTOR)),
        "[x, y, z] factors",
    ),
];
const MODIFY: &[Param] = &[
    Param::required("name", Kind::String, "The object's exact name"),
    Param::optional(
        "location",
        Kind::Any(Cow::Borrowed(VECTOR)),
        "New [x, y, z] in metres",
    ),
    Param::optional(
        "rotation",
        Kind::Any(Cow::Borrowed(VECTOR)),
        "New [x, y, z] Euler angles in degrees",
    ),
    Param::optional(
        "scale",
        Kind::Any(Cow::Borrowed(VECTOR)),
        "New [x, y, z] factors",
    ),
    Param::optional(
        "visible",
        Kind::Boolean,
        "Show (true) or hide (false) it in the viewport and renders",
    ),
    Param::optional("new_name", Kind::String, "Rename it"),
];
const MATERIAL: &[Param] = &[
    Param::required("object", Kind::String, "The object's exact name"),
    Param::required(
        "color",
        Kind::Any(Cow::Borrowed(COLOR)),
        "\"#rrggbb\", or [r, g, b] or [r, g, b, a] from 0 to 1 (linear)",
    ),
    Param::optional(
        "material",
        Kind::String,
        "The material's name: reused if it exists (default <object>_Material)",
    ),
    Param::optional("metallic", Kind::Number, "0 to 1"),
    Param::optional("roughness", Kind::Number, "0 to 1"),
];
const CODE: &[Param] = &[Param::required(
    "code",
    Kind::String,
    "Python run in Blender with `bpy` imported; what it prints is the result",
)];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "blender",
    about: "Blender 3D scenes",
    words: &[
        "blender", "3d", "scene", "mesh", "render", "cube", "sphere", "material",
    ],
    asks: &[
        "add a cube to the blender scene",
        "make the sphere red",
        "render a screenshot of the 3d viewport",
        "move the camera in blender",
        "delete the cylinder object",
        "what objects are in my scene",
        "give the mesh a metal material",
        "execute a python script inside blender",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("blender_get_scene")
            .describe("The open Blender scene: its name, how many objects and materials, and the first objects with type and location. Use first when working in Blender.")
            .offered(Offered::Everywhere)
            .params(&[])
            .example("{}")
            .handler(get_scene),
        ToolDef::build("blender_get_object")
            .describe("One Blender object in detail: type, location, rotation in degrees, scale, visibility, materials, mesh size and bounding box.")
            .offered(Offered::Everywhere)
            .params(NAME)
            .example(r#"{"name": "Cube"}"#)
            .handler(get_object),
        ToolDef::build("blender_create_object")
            .describe("Add an object to the Blender scene (a mesh primitive, text, empty, camera or point light), optionally named, placed, rotated and scaled. Blender is switched to Object Mode first.")
            .offered(Offered::Everywhere)
            .writes()
            .params(CREATE)
            .example(r#"{"type": "cube", "name": "Box", "location": [0, 0, 1], "scale": [2, 1, 1]}"#)
            .handler(create_object),
        ToolDef::build("blender_modify_object")
            .describe("Move, rotate, scale, hide, show or rename an object in Blender.")
            .offered(Offered::Everywhere)
            .writes()
            .params(MODIFY)
            .example(r#"{"name": "Box", "location": [1, 0, 1], "rotation": [0, 0, 45]}"#)
            .handler(modify_object),
        ToolDef::build("blender_delete_object")
            .describe("Delete an object from the Blender scene.")
            .offered(Offered::Everywhere)
            .writes()
            .params(NAME)
            .example(r#"{"name": "Box"}"#)
            .handler(delete_object),
        ToolDef::build("blender_set_material")
            .describe("Give a Blender object a coloured material (Principled BSDF base colour, metallic, roughness), making the material if needed.")
            .offered(Offered::Everywhere)
            .writes()
            .params(MATERIAL)
            .example(r##"{"object": "Box", "color": "#ff8800", "roughness": 0.3}"##)
            .handler(set_material),
        ToolDef::build("blender_execute_code")
            .describe("Run Python (bpy) in Blender for anything the other blender_ tools cannot do; print what you need back. The user approves each piece of code first.")
            .offered(Offered::Everywhere)
            .writes()
            .params(CODE)
            .example(r#"{"code": "print([o.name for o in bpy.data.objects])"}"#)
            .handler(execute_code),
        shot::tool(),
    ]
}

/// The longest `!blender` waits for the add-on (less, when MARVIN_TOOL_TIMEOUT is shorter).
const STATUS_PATIENCE: Duration = Duration::from_secs(5);

/// What `!blender` says: whether Blender's add-on answers, and the scene it has open.
pub(crate) fn status(settings: &WebSettings, cancel: &CancelToken) -> String {
    // A look, not work: a Blender that does not answer within a few seconds is not there.
    let link = Link::new(settings).patience(STATUS_PATIENCE);
    let answer = link.send("get_scene_info", json!({}), cancel);
    if cancel.is_cancelled() {
        return "Stopped asking Blender.".to_string();
    }
    match answer {
        Ok(scene) => format!(
            "Blender is reachable at {}: scene \"{}\", {}.",
            link.address(),
            scene["name"].as_str().unwrap_or("?"),
            count(scene["object_count"].as_u64().unwrap_or(0), "object")
        ),
        Err(why) if why.starts_with("Blender did not answer within") => format!(
            "Blender did not answer at {} within {}s: it may be busy (a long operation, a dialog open); try !blender again in a moment.",
            link.address(),
            link.patience_secs()
        ),
        Err(why) => why,
    }
}

fn send(ctx: &ToolContext, command: &str, params: Value) -> Result<Value, String> {
    Link::new(ctx.settings.web.settings()).send(command, params, &ctx.cancel)
}

#[derive(Deserialize)]
struct Empty {}

fn get_scene(_: Empty, ctx: &ToolContext) -> Result<String, String> {
    let scene = send(ctx, "get_scene_info", json!({}))?;
    let total = scene["object_count"].as_u64().unwrap_or(0);
    let objects = scene["objects"].as_array().cloned().unwrap_or_default();
    let mut lines = vec![format!(
        "Scene \"{}\": {}, {}.",
        scene["name"].as_str().unwrap_or("?"),
        count(total, "object"),
        count(scene["materials_count"].as_u64().unwrap_or(0), "material")
    )];
    lines.extend(objects.iter().map(|object| {
        format!(
            "- {} ({}) at {}",
            object["name"].as_str().unwrap_or("?"),
            object["type"].as_str().unwrap_or("?"),
            vector(&object["location"], 1.0, "")
        )
    }));
    if (objects.len() as u64) < total {
        lines.push(format!(
            "(the add-on lists the first {} of {total}; blender_get_object tells about any by name)",
            objects.len()
        ));
    }
    Ok(lines.join("\n"))
}

#[derive(Deserialize)]
struct Named {
    name: String,
}

fn get_object(args: Named, ctx: &ToolContext) -> Result<String, String> {
    let object = send(ctx, "get_object_info", json!({"name": args.name}))?;
    let mut lines = vec![
        format!(
            "{} ({})",
            object["name"].as_str().unwrap_or("?"),
            object["type"].as_str().unwrap_or("?")
        ),
        format!("location: {}", vector(&object["location"], 1.0, "")),
        format!(
            "rotation: {}",
            vector(&object["rotation"], 180.0 / std::f64::consts::PI, "°")
        ),
        format!("scale: {}", vector(&object["scale"], 1.0, "")),
        format!(
            "visible: {}",
            if object["visible"].as_bool() == Some(false) {
                "no"
            } else {
                "yes"
            }
        ),
    ];
    let materials: Vec<&str> = object["materials"]
        .as_array()
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    lines.push(format!(
        "materials: {}",
        if materials.is_empty() {
            "none".to_string()
        } else {
            materials.join(", ")
        }
    ));
    let mesh = &object["mesh"];
    if mesh.is_object() {
        lines.push(format!(
            "mesh: {} vertices, {} edges, {} faces",
            mesh["vertices"], mesh["edges"], mesh["polygons"]
        ));
    }
    if let Some([low, high]) = object["world_bounding_box"].as_array().map(Vec::as_slice) {
        lines.push(format!(
            "bounding box: {} to {}",
            vector(low, 1.0, ""),
            vector(high, 1.0, "")
        ));
    }
    Ok(lines.join("\n"))
}

#[derive(Deserialize)]
struct CreateArgs {
    r#type: String,
    name: Option<String>,
    location: Option<[f64; 3]>,
    rotation: Option<[f64; 3]>,
    scale: Option<[f64; 3]>,
}

fn create_object(args: CreateArgs, ctx: &ToolContext) -> Result<String, String> {
    let values = json!({"name": args.name, "location": args.location, "rotation": args.rotation, "scale": args.scale});
    let code = python::create(&args.r#type, &values).ok_or_else(|| {
        format!(
            "Blender cannot add a {:?}; choose one of {}.",
            args.r#type,
            python::KIND_NAMES.join(", ")
        )
    })?;
    let done = run_program(ctx, &code)?;
    Ok(format!("Created {}", placed(&done)))
}

#[derive(Deserialize, serde::Serialize)]
struct ModifyArgs {
    name: String,
    location: Option<[f64; 3]>,
    rotation: Option<[f64; 3]>,
    scale: Option<[f64; 3]>,
    visible: Option<bool>,
    new_name: Option<String>,
}

fn modify_object(args: ModifyArgs, ctx: &ToolContext) -> Result<String, String> {
    let nothing = args.location.is_none()
        && args.rotation.is_none()
        && args.scale.is_none()
        && args.visible.is_none()
        && args.new_name.is_none();
    if nothing {
        return Err("Say what to change: location, rotation, scale, visible or new_name.".into());
    }
    let values = serde_json::to_value(&args).map_err(|e| e.to_string())?;
    let done = run_program(ctx, &python::modify(&values))?;
    Ok(format!("Now {}", placed(&done)))
}

fn delete_object(args: Named, ctx: &ToolContext) -> Result<String, String> {
    let done = run_program(ctx, &python::delete(&json!({"name": args.name})))?;
    Ok(format!(
        "Deleted {}.",
        done["deleted"].as_str().unwrap_or(&args.name)
    ))
}

#[derive(Deserialize)]
struct MaterialArgs {
    object: String,
    color: Value,
    material: Option<String>,
    metallic: Option<f64>,
    roughness: Option<f64>,
}

fn set_material(args: MaterialArgs, ctx: &ToolContext) -> Result<String, String> {
    let color = rgba(&args.color)?;
    for (name, value) in [("metallic", args.metallic), ("roughness", args.roughness)] {
        if value.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
            return Err(format!("{name} goes from 0 to 1."));
        }
    }
    let values = json!({"object": args.object, "color": color, "material": args.material, "metallic": args.metallic, "roughness": args.roughness});
    let done = run_program(ctx, &python::material(&values))?;
    Ok(format!(
        "{} now has material {} of colour {}.",
        done["object"].as_str().unwrap_or(&args.object),
        done["material"].as_str().unwrap_or("?"),
        vector(&done["color"], 1.0, "")
    ))
}

/// Runs one of our own programs and reads the line it printed.
fn run_program(ctx: &ToolContext, code: &str) -> Result<Value, String> {
    let output = run_code(ctx, code)?;
    python::printed(&output).ok_or_else(|| {
        format!(
            "Blender ran the change but did not say how it went (its output: {:?}); check with blender_get_scene.",
            output.chars().take(200).collect::<String>()
        )
    })
}

/// execute_code: what the code printed.
fn run_code(ctx: &ToolContext, code: &str) -> Result<String, String> {
    let result = send(ctx, "execute_code", json!({"code": code}))?;
    Ok(match &result["result"] {
        Value::String(printed) => printed.clone(),
        _ => String::new(),
    })
}

#[derive(Deserialize)]
struct CodeArgs {
    code: String,
}

fn execute_code(args: CodeArgs, ctx: &ToolContext) -> Result<String, String> {
    if args.code.trim().is_empty() {
        return Err("The code is empty.".into());
    }
    ctx.approve(Action {
        tool: "blender_execute_code".into(),
        kind: ActionKind::Command,
        key: format!("blender_execute_code:{}", args.code),
        scope: None,
        summary: "blender_execute_code wants to run this Python in Blender (it can do anything Blender can, files included):".into(),
        detail: visible(&args.code),
    })?;
    let printed = run_code(ctx, &args.code)?;
    Ok(if printed.trim().is_empty() {
        "The code ran in Blender and printed nothing.".into()
    } else {
        printed
    })
}

/// "Box (MESH) at (0, 0, 1), rotation (0°, 0°, 45°), scale (1, 1, 1)." from a report line.
fn placed(done: &Value) -> String {
    let hidden = if done["visible"].as_bool() == Some(false) {
        ", hidden"
    } else {
        ""
    };
    format!(
        "{} ({}) at {}, rotation {}, scale {}{hidden}.",
        done["name"].as_str().unwrap_or("?"),
        done["type"].as_str().unwrap_or("?"),
        vector(&done["location"], 1.0, ""),
        vector(&done["rotation"], 1.0, "°"),
        vector(&done["scale"], 1.0, "")
    )
}

/// "(1, 2.5, 0)": each number times `factor`, at most three decimals, `unit` after each.
fn vector(value: &Value, factor: f64, unit: &str) -> String {
    let parts: Vec<String> = value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_f64)
                .map(|n| format!("{}{unit}", number(n * factor)))
                .collect()
        })
        .unwrap_or_default();
    format!("({})", parts.join(", "))
}

fn number(n: f64) -> String {
    let text = format!("{:.3}", n);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

/// `x^2.4` for x in (0, 1], as x² times the fifth root of x² (Newton's method): `powf` would
/// link the binary with libm, one more shared library at every start.
fn pow_2_4(x: f64) -> f64 {
    let square = x * x;
    let mut root = 1.0_f64;
    for _ in 0..40 {
        let fourth = root * root * root * root;
        root -= (fourth * root - square) / (5.0 * fourth);
    }
    square * root
}

fn count(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// A colour as RGBA from 0 to 1: "#rrggbb" (sRGB, made linear as Blender's colours are) or
/// [r, g, b] / [r, g, b, a] as given.
fn rgba(color: &Value) -> Result<[f64; 4], String> {
    let wrong = || {
        format!("color must be \"#rrggbb\" or [r, g, b] / [r, g, b, a] from 0 to 1, not {color}.")
    };
    if let Some(text) = color.as_str() {
        let hex = text.trim().trim_start_matches('#');
        if hex.len() != 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(wrong());
        }
        let channel = |i: usize| {
            let srgb = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0)) / 255.0;
            let linear = if srgb <= 0.04045 {
                srgb / 12.92
            } else {
                pow_2_4((srgb + 0.055) / 1.055)
            };
            (linear * 10_000.0).round() / 10_000.0
        };
        return Ok([channel(0), channel(2), channel(4), 1.0]);
    }
    let numbers: Vec<f64> = color
        .as_array()
        .ok_or_else(wrong)?
        .iter()
        .map(|n| n.as_f64().filter(|v| (0.0..=1.0).contains(v)))
        .collect::<Option<_>>()
        .ok_or_else(wrong)?;
    match numbers.as_slice() {
        [r, g, b] => Ok([*r, *g, *b, 1.0]),
        [r, g, b, a] => Ok([*r, *g, *b, *a]),
        _ => Err(wrong()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_power_without_libm_matches_powf() {
        let cases = [
            (0.0905, 0.0031329725523742582),
            (0.25, 0.03589682359365735),
            (0.5, 0.18946457081379978),
            (0.75, 0.5013569413029385),
            (1.0, 1.0),
        ];
        for (x, expected) in cases {
            assert!((pow_2_4(x) - expected).abs() < 1e-12, "{x}: {}", pow_2_4(x));
        }
    }

    #[test]
    fn colours_are_read_as_rgba() {
        let cases = [
            (json!("#ffffff"), Ok([1.0, 1.0, 1.0, 1.0])),
            (json!("000000"), Ok([0.0, 0.0, 0.0, 1.0])),
            (json!("#ff8000"), Ok([1.0, 0.2159, 0.0, 1.0])),
            (json!([0.1, 0.2, 0.3]), Ok([0.1, 0.2, 0.3, 1.0])),
            (json!([0.1, 0.2, 0.3, 0.5]), Ok([0.1, 0.2, 0.3, 0.5])),
        ];
        for (color, expected) in cases {
            assert_eq!(rgba(&color), expected, "{color}");
        }
        for bad in [
            json!("#fff"),
            json!("red"),
            json!([1, 2, 3]),
            json!([0.5]),
            json!(3),
        ] {
            assert!(
                rgba(&bad).unwrap_err().starts_with("color must be"),
                "{bad}"
            );
        }
    }

    #[test]
    fn numbers_and_vectors_read_well() {
        assert_eq!(vector(&json!([0, 1.5, -0.0001]), 1.0, ""), "(0, 1.5, 0)");
        assert_eq!(
            vector(
                &json!([0, 0, std::f64::consts::FRAC_PI_4]),
                180.0 / std::f64::consts::PI,
                "°"
            ),
            "(0°, 0°, 45°)"
        );
        assert_eq!(vector(&Value::Null, 1.0, ""), "()");
        assert_eq!(count(1, "object"), "1 object");
        assert_eq!(count(3, "object"), "3 objects");
    }
}
