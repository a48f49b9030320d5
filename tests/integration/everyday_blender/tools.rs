//! The eight blender_ tools end to end: what the add-on is sent, what the model gets back, and
//! each way the socket can fail (nobody listening, no answer, an error status, not JSON).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Addon, Answer, call, run_reply, run_with, scene};
use crate::common::{Reply, TempDir, closed_port};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x03\x20\0\0\x01\xc2\x08\x06\0\0\0";

/// The arguments a bpy program of ours was given: its one `ARGS = json.loads("…")` line,
/// whose literal (ASCII, no character beyond U+FFFF here) is a JSON string too.
fn args_of(command: &Value) -> Value {
    assert_eq!(command["type"], "execute_code", "{command}");
    let code = command["params"]["code"].as_str().unwrap();
    let lines: Vec<&str> = code.lines().filter(|l| l.starts_with("ARGS = ")).collect();
    assert_eq!(lines.len(), 1, "{code}");
    let literal = lines[0]
        .strip_prefix("ARGS = json.loads(")
        .and_then(|l| l.strip_suffix(')'))
        .unwrap();
    assert!(literal.is_ascii());
    let text: String = serde_json::from_str(literal).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn code_of(command: &Value) -> &str {
    command["params"]["code"].as_str().unwrap()
}

/// What addon.py's execute_code answers: what the code printed.
fn printed(line: Value) -> Answer {
    Answer::Result(json!({"executed": true, "result": format!("marvin:{line}\n")}))
}

#[test]
fn the_scene_and_an_object_are_read() {
    let home = TempDir::new("blender-read");
    let addon = Addon::answering(scene());
    assert_eq!(
        call(&home, "blender_get_scene", json!({}), &addon.env()),
        "Scene \"Scene\": 3 objects, 1 material.\n- Cube (MESH) at (0, 0, 0)\n- Light (LIGHT) at (4.08, 1.01, 5.9)\n- Camera (CAMERA) at (7.36, -6.93, 4.96)"
    );
    assert_eq!(
        addon.commands(),
        [json!({"type": "get_scene_info", "params": {}})]
    );
    // get_object_info's answer, sent in two writes.
    let addon = Addon::start(|_| {
        Answer::Split(json!({"status": "success", "result": {
            "name": "Cube", "type": "MESH", "location": [0.0, 0.0, 1.0],
            "rotation": [0.0, 0.0, std::f64::consts::FRAC_PI_4], "scale": [1.0, 1.0, 2.0],
            "visible": true, "materials": ["Material"],
            "world_bounding_box": [[-1.0, -1.0, -1.0], [1.0, 1.0, 3.0]],
            "mesh": {"vertices": 8, "edges": 12, "polygons": 6}}}))
    });
    assert_eq!(
        call(
            &home,
            "blender_get_object",
            json!({"name": "Cube"}),
            &addon.env()
        ),
        "Cube (MESH)\nlocation: (0, 0, 1)\nrotation: (0°, 0°, 45°)\nscale: (1, 1, 2)\nvisible: yes\nmaterials: Material\nmesh: 8 vertices, 12 edges, 6 faces\nbounding box: (-1, -1, -1) to (1, 1, 3)"
    );
    assert_eq!(
        addon.commands(),
        [json!({"type": "get_object_info", "params": {"name": "Cube"}})]
    );
}

#[test]
fn an_error_status_is_said_with_the_addons_message() {
    let home = TempDir::new("blender-error");
    let addon = Addon::start(|_| Answer::Error("Object not found: Nope"));
    assert_eq!(
        call(
            &home,
            "blender_get_object",
            json!({"name": "Nope"}),
            &addon.env()
        ),
        "Error: Blender refused get_object_info: Object not found: Nope."
    );
    let addon = Addon::start(|_| Answer::Error("Unknown command type: get_viewport_screenshot"));
    let result = call(&home, "blender_screenshot", json!({}), &addon.env());
    assert!(
        result.ends_with("Unknown command type: get_viewport_screenshot (this BlenderMCP add-on does not have it: update the add-on from github.com/ahujasid/blender-mcp)."),
        "{result}"
    );
}

#[test]
fn objects_are_created_changed_coloured_and_deleted_through_execute_code() {
    let home = TempDir::new("blender-edit");
    let addon = Addon::start(|command| {
        let args = args_of(command);
        match args.get("object") {
            Some(_) => printed(
                json!({"object": "Box \"1\"", "material": "Orange", "color": [1.0, 0.2159, 0.0, 1.0]}),
            ),
            None if args.as_object().unwrap().len() == 1 => {
                printed(json!({"deleted": args["name"]}))
            }
            None => printed(
                json!({"name": "Box \"1\"", "type": "MESH", "location": [0.0, 0.0, 1.0],
                "rotation": [0.0, 0.0, 45.0], "scale": [2.0, 1.0, 1.0], "visible": args["visible"] != false}),
            ),
        }
    });
    let name = "Box \"1\"\n__import__('os').system('x')";
    let created = call(
        &home,
        "blender_create_object",
        json!({"type": "cube", "name": name, "location": [0, 0, 1], "rotation": [0, 0, 45], "scale": [2, 1, 1]}),
        &addon.env(),
    );
    assert_eq!(
        created,
        "Created Box \"1\" (MESH) at (0, 0, 1), rotation (0°, 0°, 45°), scale (2, 1, 1)."
    );
    let modified = call(
        &home,
        "blender_modify_object",
        json!({"name": "Box \"1\"", "visible": false, "new_name": "Crate"}),
        &addon.env(),
    );
    assert!(
        modified.starts_with("Now Box \"1\" (MESH) at (0, 0, 1)")
            && modified.ends_with(", hidden."),
        "{modified}"
    );
    let coloured = call(
        &home,
        "blender_set_material",
        json!({"object": "Box \"1\"", "color": "#ff8000", "material": "Orange", "roughness": 0.3}),
        &addon.env(),
    );
    assert_eq!(
        coloured,
        "Box \"1\" now has material Orange of colour (1, 0.216, 0, 1)."
    );
    let deleted = call(
        &home,
        "blender_delete_object",
        json!({"name": "Crate"}),
        &addon.env(),
    );
    assert_eq!(deleted, "Deleted Crate.");

    let commands = addon.commands();
    assert_eq!(commands.len(), 4);
    assert_eq!(
        args_of(&commands[0]),
        json!({"name": name, "location": [0.0, 0.0, 1.0], "rotation": [0.0, 0.0, 45.0], "scale": [2.0, 1.0, 1.0]})
    );
    assert!(code_of(&commands[0]).contains("\nbpy.ops.mesh.primitive_cube_add()\n"));
    // The name went in as data only: no line of the program is the name's second line.
    assert!(
        !code_of(&commands[0])
            .lines()
            .any(|l| l.starts_with("__import__"))
    );
    assert_eq!(
        args_of(&commands[1]),
        json!({"name": "Box \"1\"", "location": null, "rotation": null, "scale": null, "visible": false, "new_name": "Crate"})
    );
    assert_eq!(
        args_of(&commands[2]),
        json!({"object": "Box \"1\"", "color": [1.0, 0.2159, 0.0, 1.0], "material": "Orange", "metallic": null, "roughness": 0.3})
    );
    assert!(
        code_of(&commands[2])
            .contains("bsdf.inputs[\"Base Color\"].default_value = ARGS[\"color\"]")
    );
    assert_eq!(args_of(&commands[3]), json!({"name": "Crate"}));
    assert!(code_of(&commands[3]).contains("bpy.data.objects.remove(obj, do_unlink=True)"));
}

#[test]
fn bad_arguments_are_refused_before_blender_is_asked() {
    let home = TempDir::new("blender-bad");
    let addon = Addon::answering(json!({}));
    let cases = [
        (
            "blender_modify_object",
            json!({"name": "Cube"}),
            "Error: Say what to change: location, rotation, scale, visible or new_name.",
        ),
        (
            "blender_set_material",
            json!({"object": "Cube", "color": "red"}),
            "Error: color must be \"#rrggbb\" or [r, g, b] / [r, g, b, a] from 0 to 1, not \"red\".",
        ),
        (
            "blender_set_material",
            json!({"object": "Cube", "color": [1, 0, 0], "metallic": 2}),
            "Error: metallic goes from 0 to 1.",
        ),
        (
            "blender_screenshot",
            json!({"path": "/tmp/shot.png"}),
            "Error: Absolute paths not allowed.",
        ),
        (
            "blender_screenshot",
            json!({"path": "shot.jpg"}),
            "Error: The screenshot is a PNG: name it .png, not .jpg.",
        ),
        (
            "blender_execute_code",
            json!({"code": "  "}),
            "Error: The code is empty.",
        ),
    ];
    for (tool, args, expected) in cases {
        let result = call(&home, tool, args.clone(), &addon.env());
        assert!(result.starts_with(expected), "{tool} {args}: {result}");
    }
    assert_eq!(addon.commands(), Vec::<Value>::new());
}

#[test]
fn code_runs_and_its_output_or_its_error_comes_back() {
    let home = TempDir::new("blender-code");
    let addon = Addon::start(|command| match code_of(command) {
        "print(len(bpy.data.objects))" => {
            Answer::Result(json!({"executed": true, "result": "3\n"}))
        }
        "pass" => Answer::Result(json!({"executed": true, "result": ""})),
        _ => Answer::Error("Code execution error: name 'foo' is not defined"),
    });
    let env = addon.env();
    assert_eq!(
        call(
            &home,
            "blender_execute_code",
            json!({"code": "print(len(bpy.data.objects))"}),
            &env
        ),
        "3\n"
    );
    assert_eq!(
        call(&home, "blender_execute_code", json!({"code": "pass"}), &env),
        "The code ran in Blender and printed nothing."
    );
    assert_eq!(
        call(
            &home,
            "blender_execute_code",
            json!({"code": "foo()"}),
            &env
        ),
        "Error: Blender refused execute_code: Code execution error: name 'foo' is not defined."
    );
}

#[test]
fn code_is_refused_without_anyone_to_approve_it_and_in_plan_mode() {
    let home = TempDir::new("blender-code-refused");
    let addon = Addon::answering(json!({"executed": true, "result": "ran"}));
    let calls = [("1", "blender_execute_code", r#"{"code": "print(1)"}"#)];
    let (_, results) = run_with(
        &home,
        &calls,
        &addon.env(),
        &["--permission-mode", "default"],
    );
    assert_eq!(
        results,
        [
            "Error: no one to ask: denied. blender_execute_code needs approval in permission mode default, and nobody can answer here; say what you would have done instead."
        ]
    );
    // Plan mode offers no tool that writes: a model that calls it anyway is told why not.
    let (_, results) = run_reply(
        &home,
        Reply::tool_calls(&calls).made_up(),
        &addon.env(),
        &["--permission-mode", "plan"],
    );
    assert!(
        results[0].starts_with("Error: Tool 'blender_execute_code' is not available here: it writes, and this agent is read-only."),
        "{results:?}"
    );
    assert_eq!(addon.commands(), Vec::<Value>::new());
}

/// An add-on that writes `bytes` where it is told to, as get_viewport_screenshot does.
fn camera(bytes: &'static [u8]) -> Addon {
    Addon::start(move |command| {
        let path = command["params"]["filepath"].as_str().unwrap();
        std::fs::write(path, bytes).unwrap();
        Answer::Result(json!({"success": true, "width": 800, "height": 450, "filepath": path}))
    })
}

fn saved_path(result: &str) -> PathBuf {
    let start = result.find(" to /").unwrap() + 4;
    let end = result.rfind(" (").unwrap();
    PathBuf::from(&result[start..end])
}

#[test]
fn a_screenshot_is_a_png_file_in_a_private_directory_or_where_asked() {
    let home = TempDir::new("blender-shot");
    let tmp = home.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let addon = camera(PNG);
    let mut env = addon.env();
    env.push(("TMPDIR", tmp.display().to_string()));
    let result = call(&home, "blender_screenshot", json!({"max_size": 1024}), &env);
    let path = saved_path(&result);
    assert_eq!(
        result,
        format!(
            "Saved the viewport (800×450 pixels) as PNG to {} ({} bytes).",
            path.display(),
            PNG.len()
        )
    );
    assert_eq!(std::fs::read(&path).unwrap(), PNG);
    let dir = path.parent().unwrap();
    assert_eq!(dir.parent().unwrap(), tmp);
    assert!(
        dir.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("marvin-blender-")
    );
    assert_eq!(
        std::fs::metadata(dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(
        addon.commands(),
        [
            json!({"type": "get_viewport_screenshot", "params": {"max_size": 1024, "filepath": path.to_str().unwrap(), "format": "png"}})
        ]
    );

    let result = call(
        &home,
        "blender_screenshot",
        json!({"path": "shots/view"}),
        &env,
    );
    let wanted = std::fs::canonicalize(home.path())
        .unwrap()
        .join("shots/view.png");
    assert_eq!(saved_path(&result), wanted, "{result}");
    assert_eq!(addon.commands()[1]["params"]["max_size"], 800);
    assert_eq!(std::fs::read(&wanted).unwrap(), PNG);
    let again = call(
        &home,
        "blender_screenshot",
        json!({"path": "shots/view.png"}),
        &env,
    );
    assert!(
        again.starts_with("Error: shots/view.png already exists"),
        "{again}"
    );
    assert_eq!(addon.commands().len(), 2);
}

#[test]
fn a_screenshot_that_is_not_an_image_or_not_taken_is_said_and_left_nowhere() {
    let home = TempDir::new("blender-shot-bad");
    let tmp = home.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let addon = camera(b"Traceback (most recent call last):");
    let mut env = addon.env();
    env.push(("TMPDIR", tmp.display().to_string()));
    let result = call(&home, "blender_screenshot", json!({}), &env);
    assert!(
        result.starts_with(&format!(
            "Error: The file Blender wrote at {}",
            tmp.display()
        )) && result.ends_with("/viewport.png is not an image."),
        "{result}"
    );
    assert_eq!(entries(&tmp), 0, "the private directory is removed");
    // addon.py answers a missing viewport as a success holding {"error": …}.
    let addon = Addon::answering(json!({"error": "No 3D viewport found"}));
    let mut env = addon.env();
    env.push(("TMPDIR", tmp.display().to_string()));
    assert_eq!(
        call(&home, "blender_screenshot", json!({}), &env),
        "Error: Blender could not do get_viewport_screenshot: No 3D viewport found."
    );
    assert_eq!(entries(&tmp), 0);
}

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

#[test]
fn nobody_listening_no_answer_and_not_json_are_each_one_sentence() {
    let home = TempDir::new("blender-down");
    let port = closed_port();
    let env = [
        ("BLENDER_MCP_HOST", "127.0.0.1".to_string()),
        ("BLENDER_MCP_PORT", port.to_string()),
    ];
    assert_eq!(
        call(&home, "blender_get_scene", json!({}), &env),
        format!(
            "Error: Blender is not reachable at 127.0.0.1:{port}: start Blender with the BlenderMCP add-on enabled and press \"Connect to Claude\" (\"Connect to MCP\") in its sidebar tab, or set BLENDER_MCP_HOST/BLENDER_MCP_PORT to where it listens."
        )
    );

    let silent = Addon::start(|_| Answer::Silent);
    let mut env = silent.env();
    env.push(("MARVIN_TOOL_TIMEOUT", "1".into()));
    assert_eq!(
        call(&home, "blender_get_scene", json!({}), &env),
        "Error: Blender did not answer within 1s: it may be busy (a long operation, a dialog open); try again, or raise MARVIN_TOOL_TIMEOUT."
    );
    assert_eq!(silent.commands().len(), 1);

    let web =
        Addon::start(|_| Answer::Raw(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"));
    assert_eq!(
        call(&home, "blender_get_scene", json!({}), &web.env()),
        format!(
            "Error: What answered at 127.0.0.1:{} is not Blender's add-on: its reply is not JSON (\"HTTP/1.1 400 Bad Request\\r\\nContent-Length: 0\\r\\n\\r\\n\"). Check BLENDER_MCP_HOST/BLENDER_MCP_PORT.",
            web.port
        )
    );
    let cut = Addon::start(|_| Answer::Raw(b"{\"status\": \"success\", \"res"));
    assert_eq!(
        call(&home, "blender_get_scene", json!({}), &cut.env()),
        format!(
            "Error: Blender at 127.0.0.1:{} closed the connection in the middle of its reply; try again.",
            cut.port
        )
    );
}

#[test]
fn a_change_blender_did_not_answer_says_to_check_before_trying_again() {
    let home = TempDir::new("blender-write-timeout");
    let silent = Addon::start(|_| Answer::Silent);
    let mut env = silent.env();
    env.push(("MARVIN_TOOL_TIMEOUT", "1".into()));
    let said = "Error: Blender did not answer within 1s, but the change may still have happened: Blender's add-on finishes a command even after Marvin stops waiting, so check with blender_get_scene or blender_get_object before trying again (if Blender is busy with a long operation, raise MARVIN_TOOL_TIMEOUT).";
    let writes = [
        ("blender_create_object", json!({"type": "cube"})),
        (
            "blender_modify_object",
            json!({"name": "Cube", "scale": [2, 2, 2]}),
        ),
        ("blender_delete_object", json!({"name": "Cube"})),
        (
            "blender_set_material",
            json!({"object": "Cube", "color": "#ff0000"}),
        ),
        (
            "blender_execute_code",
            json!({"code": "bpy.ops.mesh.primitive_cube_add()"}),
        ),
    ];
    for (tool, arguments) in writes {
        assert_eq!(call(&home, tool, arguments, &env), said, "{tool}");
    }
    assert_eq!(silent.commands().len(), 5);
    // A read is only a look: trying again is harmless.
    assert!(
        call(&home, "blender_get_object", json!({"name": "Cube"}), &env)
            .ends_with("; try again, or raise MARVIN_TOOL_TIMEOUT.")
    );
}

#[test]
fn a_screenshot_in_the_project_is_approved_first_and_leaves_nothing_when_it_fails() {
    let home = TempDir::new("blender-shot-project");
    let tmp = home.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let addon = camera(PNG);
    let mut env = addon.env();
    env.push(("TMPDIR", tmp.display().to_string()));
    let shot = [("1", "blender_screenshot", r#"{"path": "shots/view"}"#)];
    let (_, results) = run_with(&home, &shot, &env, &["--permission-mode", "default"]);
    assert_eq!(
        results,
        [
            "Error: no one to ask: denied. blender_screenshot needs approval in permission mode default, and nobody can answer here; say what you would have done instead."
        ]
    );
    assert!(!home.path().join("shots").exists(), "nothing is made first");
    assert_eq!(addon.commands(), Vec::<Value>::new());
    // The private temporary file is Marvin's own: no one is asked.
    let private = [("1", "blender_screenshot", "{}")];
    let (_, results) = run_with(&home, &private, &env, &["--permission-mode", "default"]);
    assert!(results[0].starts_with("Saved the viewport"), "{results:?}");
    // A new file is an edit: accept-edits lets it through.
    let (_, results) = run_with(&home, &shot, &env, &["--permission-mode", "accept-edits"]);
    assert!(results[0].starts_with("Saved the viewport"), "{results:?}");
    assert_eq!(
        std::fs::read(home.path().join("shots/view.png")).unwrap(),
        PNG
    );

    // What Blender wrote is not an image: the file goes, and the directories made for it,
    // not the one that was there.
    std::fs::create_dir(home.path().join("pics")).unwrap();
    let broken = camera(b"Traceback (most recent call last):");
    let result = call(
        &home,
        "blender_screenshot",
        json!({"path": "pics/new/deep/view.png"}),
        &broken.env(),
    );
    assert!(
        result.ends_with("/pics/new/deep/view.png is not an image."),
        "{result}"
    );
    assert_eq!(broken.commands().len(), 1);
    assert_eq!(entries(&home.path().join("pics")), 0);
    // No viewport: nothing written, the new directory taken away.
    let blind = Addon::answering(json!({"error": "No 3D viewport found"}));
    assert_eq!(
        call(
            &home,
            "blender_screenshot",
            json!({"path": "out/view"}),
            &blind.env()
        ),
        "Error: Blender could not do get_viewport_screenshot: No 3D viewport found."
    );
    assert!(!home.path().join("out").exists());
}
