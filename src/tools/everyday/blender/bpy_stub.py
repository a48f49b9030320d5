# A small stand-in for Blender's `bpy`, for python.rs's tests only: enough of bpy.data,
# bpy.context and bpy.ops for the four fixed programs, behaving as Blender does where it
# matters to them. A mesh primitive added in Edit Mode goes into the mesh being edited (no new
# object; the active object stays the user's), object.mode_set needs an active object, names
# taken get ".001". The test runs `python3 -c <this> '<scene JSON>'` with a program on stdin,
# as addon.py's execute_code runs one: exec with `bpy` in its namespace, its stdout captured.
# It prints what the program printed, then `scene:` and the scene's JSON after it; a program
# that raises prints `error:` and the message, and exits 3.
import contextlib, io, json, sys, types


class Socket:
    def __init__(self):
        self.default_value = None


class Material:
    def __init__(self, name):
        self.name = name
        self.diffuse_color = [0.8, 0.8, 0.8, 1.0]
        self.node_tree = None
        self._use_nodes = False

    @property
    def use_nodes(self):
        return self._use_nodes

    @use_nodes.setter
    def use_nodes(self, on):
        self._use_nodes = on
        if on and self.node_tree is None:
            bsdf = types.SimpleNamespace(
                inputs={n: Socket() for n in ("Base Color", "Metallic", "Roughness")})
            self.node_tree = types.SimpleNamespace(nodes={"Principled BSDF": bsdf})


class Collection(list):
    """bpy.data.objects / bpy.data.materials: found by name, new names made unique."""

    def get(self, name, default=None):
        return next((item for item in self if item.name == name), default)

    def unique(self, name):
        if self.get(name) is None:
            return name
        n = 1
        while self.get("%s.%03d" % (name, n)) is not None:
            n += 1
        return "%s.%03d" % (name, n)

    def new(self, name):
        material = Material(self.unique(name))
        self.append(material)
        return material

    def remove(self, item, do_unlink=True):
        list.remove(self, item)


class Object:
    def __init__(self, name, type):
        self.name, self.type = name, type
        self.location, self.rotation_euler, self.scale = [0.0] * 3, [0.0] * 3, [1.0] * 3
        self.hide_viewport = self.hide_render = False
        self.faces_added = 0
        if type == "MESH":
            self.data = types.SimpleNamespace(materials=[])
        elif type == "EMPTY":
            self.data = None
        else:
            self.data = types.SimpleNamespace()

    def as_pointer(self):
        return id(self)


def make(scene):
    objects, materials = Collection(), Collection()
    for name, type in scene["objects"]:
        objects.append(Object(name, type))
    context = types.SimpleNamespace(mode=scene.get("mode", "OBJECT"), active_object=None)
    if scene.get("active") is not None:
        context.active_object = objects.get(scene["active"])

    def add(name, type):
        obj = Object(objects.unique(name), type)
        objects.append(obj)
        context.active_object = obj

    def primitive(name):
        def operator(**_):
            if context.mode == "EDIT_MESH":
                context.active_object.faces_added += 1
            else:
                add(name, "MESH")
        return operator

    def mode_set(mode):
        if context.active_object is None:
            raise RuntimeError("Operator bpy.ops.object.mode_set.poll() failed, context is incorrect")
        if scene.get("mode_set", True):
            context.mode = {"EDIT": "EDIT_MESH"}.get(mode, mode)

    mesh = types.SimpleNamespace(**{
        "primitive_%s_add" % kind: primitive(name) for kind, name in [
            ("cube", "Cube"), ("uv_sphere", "Sphere"), ("ico_sphere", "Icosphere"),
            ("cylinder", "Cylinder"), ("cone", "Cone"), ("torus", "Torus"),
            ("plane", "Plane"), ("circle", "Circle"), ("monkey", "Suzanne")]})
    obj_ops = types.SimpleNamespace(
        mode_set=mode_set,
        text_add=lambda **_: add("Text", "FONT"),
        empty_add=lambda **_: add("Empty", "EMPTY"),
        camera_add=lambda **_: add("Camera", "CAMERA"),
        light_add=lambda type="POINT", **_: add(type.capitalize(), "LIGHT"))
    return types.SimpleNamespace(
        data=types.SimpleNamespace(objects=objects, materials=materials),
        context=context,
        ops=types.SimpleNamespace(mesh=mesh, object=obj_ops))


def describe(bpy):
    def material_names(obj):
        return [m.name for m in getattr(obj.data, "materials", None) or []]
    return {
        "mode": bpy.context.mode,
        "objects": [{"name": o.name, "type": o.type, "location": list(o.location),
                     "faces_added": o.faces_added, "materials": material_names(o)}
                    for o in bpy.data.objects],
        "materials": {m.name: list(m.diffuse_color) for m in bpy.data.materials},
    }


bpy = make(json.loads(sys.argv[1]))
printed = io.StringIO()
try:
    with contextlib.redirect_stdout(printed):
        exec(sys.stdin.read(), {"bpy": bpy})
except Exception as e:
    print(printed.getvalue(), end="")
    print("error:" + str(e))
    sys.exit(3)
print(printed.getvalue(), end="")
print("scene:" + json.dumps(describe(bpy)))
