//! The small bpy programs behind `blender_create_object`, `blender_modify_object`,
//! `blender_delete_object` and `blender_set_material`, which blender-mcp's add-on has no
//! command for: each is sent through its `execute_code`. No argument is ever pasted into the
//! code: the arguments go in as one JSON document inside an ASCII-only Python string literal
//! (`ARGS = json.loads("…")`), and the code around it is fixed text. Each program prints one
//! `marvin:` line of JSON saying what it did.

use serde_json::Value;

/// What the programs print before their JSON line, to find it among other output.
pub(super) const MARKER: &str = "marvin:";

/// The kinds of object `blender_create_object` makes, with the operator that adds each.
pub(super) const KINDS: &[(&str, &str)] = &[
    ("cube", "bpy.ops.mesh.primitive_cube_add()"),
    ("sphere", "bpy.ops.mesh.primitive_uv_sphere_add()"),
    ("ico_sphere", "bpy.ops.mesh.primitive_ico_sphere_add()"),
    ("cylinder", "bpy.ops.mesh.primitive_cylinder_add()"),
    ("cone", "bpy.ops.mesh.primitive_cone_add()"),
    ("torus", "bpy.ops.mesh.primitive_torus_add()"),
    ("plane", "bpy.ops.mesh.primitive_plane_add()"),
    ("circle", "bpy.ops.mesh.primitive_circle_add()"),
    ("monkey", "bpy.ops.mesh.primitive_monkey_add()"),
    ("text", "bpy.ops.object.text_add()"),
    ("empty", "bpy.ops.object.empty_add()"),
    ("camera", "bpy.ops.object.camera_add()"),
    ("light", "bpy.ops.object.light_add(type='POINT')"),
];

/// The kind names, for the parameter's choices.
pub(super) const KIND_NAMES: &[&str] = &[
    "cube",
    "sphere",
    "ico_sphere",
    "cylinder",
    "cone",
    "torus",
    "plane",
    "circle",
    "monkey",
    "text",
    "empty",
    "camera",
    "light",
];

/// Reads the arguments and defines the helpers every program uses: find an object by its
/// exact name, place it (rotation given in degrees), report it.
const PRELUDE: &str = r#"import json, math
def _marvin_object(name):
    obj = bpy.data.objects.get(name)
    if obj is None:
        raise ValueError("there is no object named %r in this Blender file" % name)
    return obj
def _marvin_place(obj):
    if ARGS.get("location") is not None:
        obj.location = ARGS["location"]
    if ARGS.get("rotation") is not None:
        obj.rotation_euler = [math.radians(d) for d in ARGS["rotation"]]
    if ARGS.get("scale") is not None:
        obj.scale = ARGS["scale"]
def _marvin_report(obj):
    print("marvin:" + json.dumps({"name": obj.name, "type": obj.type,
        "location": [round(v, 4) for v in obj.location],
        "rotation": [round(math.degrees(v), 2) for v in obj.rotation_euler],
        "scale": [round(v, 4) for v in obj.scale],
        "visible": not obj.hide_viewport}))
"#;

const MODIFY: &str = r#"obj = _marvin_object(ARGS["name"])
_marvin_place(obj)
if ARGS.get("visible") is not None:
    obj.hide_viewport = not ARGS["visible"]
    obj.hide_render = not ARGS["visible"]
if ARGS.get("new_name"):
    obj.name = ARGS["new_name"]
_marvin_report(obj)
"#;

const DELETE: &str = r#"obj = _marvin_object(ARGS["name"])
name = obj.name
bpy.data.objects.remove(obj, do_unlink=True)
print("marvin:" + json.dumps({"deleted": name}))
"#;

const MATERIAL: &str = r#"obj = _marvin_object(ARGS["object"])
if obj.data is None or not hasattr(obj.data, "materials"):
    raise ValueError("%s is a %s, which cannot hold a material" % (obj.name, obj.type))
name = ARGS.get("material") or obj.name + "_Material"
mat = bpy.data.materials.get(name) or bpy.data.materials.new(name=name)
mat.use_nodes = True
bsdf = mat.node_tree.nodes.get("Principled BSDF")
if bsdf is not None:
    bsdf.inputs["Base Color"].default_value = ARGS["color"]
    if ARGS.get("metallic") is not None:
        bsdf.inputs["Metallic"].default_value = ARGS["metallic"]
    if ARGS.get("roughness") is not None:
        bsdf.inputs["Roughness"].default_value = ARGS["roughness"]
mat.diffuse_color = ARGS["color"]
if len(obj.data.materials):
    obj.data.materials[0] = mat
else:
    obj.data.materials.append(mat)
print("marvin:" + json.dumps({"object": obj.name, "material": mat.name,
    "color": [round(c, 4) for c in mat.diffuse_color]}))
"#;

/// `text` as a Python string literal of ASCII only: quotes and backslashes escaped, every
/// other character outside printable ASCII as `\uXXXX` or `\UXXXXXXXX`. Nothing in it can end
/// the literal or the line, whatever `text` holds.
pub(super) fn py_str(text: &str) -> String {
    let mut literal = String::with_capacity(text.len() + 2);
    literal.push('"');
    for c in text.chars() {
        match c {
            '"' => literal.push_str("\\\""),
            '\\' => literal.push_str("\\\\"),
            ' '..='~' => literal.push(c),
            c if (c as u32) <= 0xFFFF => literal.push_str(&format!("\\u{:04x}", c as u32)),
            c => literal.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    literal.push('"');
    literal
}

/// The line that gives a program its arguments: `ARGS = json.loads("…")`.
fn arguments(args: &Value) -> String {
    format!("ARGS = json.loads({})\n", py_str(&args.to_string()))
}

fn program(args: &Value, body: &str) -> String {
    format!("{PRELUDE}{}{body}", arguments(args))
}

/// Leaves Edit, Sculpt or any other mode for Object Mode first (a mesh primitive added in Edit
/// Mode goes into the edited mesh instead of making an object), adds the object with
/// `OPERATOR`, and checks that the active object is a new one before naming and placing it:
/// never the person's own object. `KIND` and `OPERATOR` are replaced from [`KINDS`].
const CREATE: &str = r#"_marvin_before = set(o.as_pointer() for o in bpy.data.objects)
if bpy.context.mode != 'OBJECT' and bpy.context.active_object is not None:
    bpy.ops.object.mode_set(mode='OBJECT')
OPERATOR
obj = bpy.context.active_object
if obj is None or obj.as_pointer() in _marvin_before:
    raise RuntimeError("the KIND was not added as an object of its own (Blender is in %s mode%s); "
        "switch Blender to Object Mode, check the scene with blender_get_scene (Ctrl+Z in Blender "
        "undoes a change), then try again" % (bpy.context.mode,
        "" if obj is None else ", and it may have gone into %s" % obj.name))
if ARGS.get("name"):
    obj.name = ARGS["name"]
_marvin_place(obj)
_marvin_report(obj)
"#;

/// Adds an object of `kind` (one of [`KINDS`]), then names and places it as `args` say.
pub(super) fn create(kind: &str, args: &Value) -> Option<String> {
    let (name, operator) = KINDS.iter().find(|(name, _)| *name == kind)?;
    let body = CREATE
        .replace("OPERATOR", operator)
        .replace("KIND", &name.replace('_', " "));
    Some(program(args, &body))
}

/// Moves, rotates, scales, hides, shows or renames the object `args.name`.
pub(super) fn modify(args: &Value) -> String {
    program(args, MODIFY)
}

/// Removes the object `args.name`.
pub(super) fn delete(args: &Value) -> String {
    program(args, DELETE)
}

/// Gives the object `args.object` the material `args.material` (made when missing) of
/// `args.color` (RGBA, linear), with its metallic and roughness when given.
pub(super) fn material(args: &Value) -> String {
    program(args, MATERIAL)
}

/// The JSON a program printed after [`MARKER`] (the last such line).
pub(super) fn printed(output: &str) -> Option<Value> {
    output
        .lines()
        .rev()
        .find_map(|line| line.trim().strip_prefix(MARKER))
        .and_then(|json| serde_json::from_str(json).ok())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests run programs as a person would
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_become_ascii_python_literals() {
        let cases = [
            ("Cube", r#""Cube""#),
            ("", r#""""#),
            (r#"say "hi""#, r#""say \"hi\"""#),
            (r"C:\new", r#""C:\\new""#),
            ("a\nb\r\tc", r#""a\u000ab\u000d\u0009c""#),
            (
                "\"); import os; os.system(\"x",
                r#""\"); import os; os.system(\"x""#,
            ),
            ("café", r#""caf\u00e9""#),
            ("\u{2028}", r#""\u2028""#),
            ("🙂", r#""\U0001f642""#),
            ("\0", r#""\u0000""#),
            ("'''", r#""'''""#),
        ];
        for (text, literal) in cases {
            assert_eq!(py_str(text), literal, "{text:?}");
            assert!(py_str(text).is_ascii());
        }
    }

    /// Python itself reads each literal back to the same text, and the arguments line back to
    /// the same JSON (when python3 is installed: it is the judge, not a dependency).
    #[test]
    fn python_reads_the_literals_back() {
        let Ok(probe) = std::process::Command::new("python3")
            .arg("--version")
            .output()
        else {
            return;
        };
        assert!(probe.status.success());
        let texts = [
            "plain",
            "quote \" and backslash \\ and ''' triple",
            "new\nline, tab\t, nul \0, separator \u{2028}",
            "café 🙂 日本",
        ];
        let args = json!({"name": texts[1], "texts": texts});
        let script = format!(
            "import json, sys\n{}print(json.dumps([{}, ARGS], ensure_ascii=True))\n",
            arguments(&args),
            texts.map(py_str).join(", ")
        );
        let output = std::process::Command::new("python3")
            .args(["-c", &script])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let read: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(read[0], json!(texts[0]));
        assert_eq!(read[1], json!(texts[1]));
        assert_eq!(read[2], json!(texts[2]));
        assert_eq!(read[3], json!(texts[3]));
        assert_eq!(read[4], args);
    }

    #[test]
    fn programs_carry_arguments_only_inside_the_literal() {
        let args = json!({"name": "x\")\nimport os  #", "location": [1, 2, 3]});
        let code = modify(&args);
        assert!(code.contains(&arguments(&args)));
        assert!(!code.lines().any(|l| l.starts_with("import os")), "{code}");
        assert_eq!(code.lines().filter(|l| l.starts_with("ARGS = ")).count(), 1);
        let created = create("light", &json!({})).unwrap();
        assert!(created.contains("bpy.ops.object.light_add(type='POINT')\nobj = "));
        assert_eq!(create("teapot", &json!({})), None);
        for (kind, _) in KINDS {
            assert!(KIND_NAMES.contains(kind), "{kind}");
        }
        assert_eq!(KINDS.len(), KIND_NAMES.len());
    }

    /// A stand-in for Blender's `bpy` (see its opening comment), run by python3.
    const STUB: &str = include_str!("bpy_stub.py");

    /// A name with a quote, a newline, a backslash and more, as a person may give one.
    const ODD: &str = "say \"hi\"\nC:\\new café 🙂";

    /// Runs `code` as addon.py's execute_code would, under the stub set up as `scene` says:
    /// what it printed and the scene after it, or what it printed and its error; `None`
    /// without python3 (the judge, not a dependency).
    fn under_stub(scene: &Value, code: &str) -> Option<Result<(String, Value), String>> {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let mut child = match Command::new("python3")
            .args(["-c", STUB, &scene.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                eprintln!("skipped: python3 is not installed, so the bpy programs were not run");
                return None;
            }
            Err(e) => panic!("python3: {e}"),
        };
        child
            .stdin
            .take()
            .unwrap()
            .write_all(code.as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        match output.status.code() {
            Some(0) => {
                let (printed, scene) = stdout.rsplit_once("scene:").unwrap();
                Some(Ok((printed.into(), serde_json::from_str(scene).unwrap())))
            }
            Some(3) => Some(Err(stdout)),
            _ => panic!(
                "{:?}: {stdout}{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            ),
        }
    }

    /// The default scene, with one more mesh of an awkward name, in `mode`.
    fn scene(mode: &str, active: Option<&str>) -> Value {
        json!({
            "objects": [["Cube", "MESH"], ["Light", "LIGHT"], [ODD, "MESH"]],
            "mode": mode,
            "active": active,
        })
    }

    fn object<'a>(scene: &'a Value, name: &str) -> Option<&'a Value> {
        scene["objects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
    }

    #[test]
    fn the_four_programs_run_and_print_their_line() {
        let start = scene("OBJECT", Some("Cube"));
        let new_name = format!("new {ODD}");
        let cases = [
            (
                create("cube", &json!({"name": new_name, "location": [1.0, 2.0, 3.0], "rotation": [0.0, 90.0, 0.0]})).unwrap(),
                json!({"name": new_name, "type": "MESH", "location": [1.0, 2.0, 3.0], "rotation": [0.0, 90.0, 0.0], "scale": [1.0, 1.0, 1.0], "visible": true}),
            ),
            (
                modify(&json!({"name": ODD, "scale": [2.0, 2.0, 2.0], "visible": false, "new_name": new_name})),
                json!({"name": new_name, "type": "MESH", "location": [0.0, 0.0, 0.0], "rotation": [0.0, 0.0, 0.0], "scale": [2.0, 2.0, 2.0], "visible": false}),
            ),
            (
                material(&json!({"object": ODD, "color": [1.0, 0.5, 0.0, 1.0], "material": ODD, "metallic": 0.5, "roughness": null})),
                json!({"object": ODD, "material": ODD, "color": [1.0, 0.5, 0.0, 1.0]}),
            ),
            (delete(&json!({"name": ODD})), json!({"deleted": ODD})),
        ];
        for (code, expected) in cases {
            let Some(ran) = under_stub(&start, &code) else {
                return;
            };
            let (output, _) = ran.unwrap_or_else(|e| panic!("{e}\n{code}"));
            assert_eq!(printed(&output), Some(expected), "{output}");
        }
        for (kind, _) in KINDS {
            let code = create(kind, &json!({"name": null})).unwrap();
            let (output, after) = under_stub(&start, &code).unwrap().unwrap();
            let made = printed(&output).unwrap();
            assert!(object(&after, made["name"].as_str().unwrap()).is_some());
            assert_eq!(after["objects"].as_array().unwrap().len(), 4, "{kind}");
        }
    }

    #[test]
    fn an_object_is_created_in_object_mode_never_inside_the_edited_one() {
        for mode in ["EDIT_MESH", "SCULPT"] {
            let code =
                create("cube", &json!({"name": "Box", "location": [0.0, 0.0, 2.0]})).unwrap();
            let Some(ran) = under_stub(&scene(mode, Some("Cube")), &code) else {
                return;
            };
            let (output, after) = ran.unwrap_or_else(|e| panic!("{mode}: {e}"));
            assert_eq!(printed(&output).unwrap()["name"], "Box", "{mode}");
            assert_eq!(after["mode"], "OBJECT");
            let cube = object(&after, "Cube").unwrap();
            assert_eq!(cube["location"], json!([0.0, 0.0, 0.0]), "{mode}");
            assert_eq!(cube["faces_added"], 0, "{mode}");
            assert_eq!(
                object(&after, "Box").unwrap()["location"],
                json!([0.0, 0.0, 2.0])
            );
        }
        // Nothing active: nothing to leave a mode for, and nothing asked of mode_set.
        let code = create("cone", &json!({"name": "Hat"})).unwrap();
        let (_, after) = under_stub(&scene("SCULPT", None), &code).unwrap().unwrap();
        assert!(object(&after, "Hat").is_some());
        // A mode Blender would not leave: the cube went into the edited mesh, which is said,
        // and that mesh is neither renamed nor moved.
        let mut stuck = scene("EDIT_MESH", Some("Cube"));
        stuck["mode_set"] = json!(false);
        let code = create("cube", &json!({"name": "Box", "location": [0.0, 0.0, 2.0]})).unwrap();
        let error = under_stub(&stuck, &code).unwrap().unwrap_err();
        assert!(
            error.contains("error:the cube was not added as an object of its own"),
            "{error}"
        );
        assert!(!error.contains("scene:"), "{error}");
    }

    #[test]
    fn the_marked_line_is_read_from_the_output() {
        let cases = [
            (
                "marvin:{\"deleted\": \"Cube\"}\n",
                Some(json!({"deleted": "Cube"})),
            ),
            (
                "warning\nmarvin:{\"a\": 1}\nmarvin:{\"a\": 2}\n",
                Some(json!({"a": 2})),
            ),
            ("no marker\n", None),
            ("marvin:not json\n", None),
            ("", None),
        ];
        for (output, expected) in cases {
            assert_eq!(printed(output), expected, "{output:?}");
        }
    }
}
