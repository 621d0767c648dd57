"""Bazel rules that cook mesh sources with meshcook.

Load them from a workspace that names the meshcook binary (see
bazel/example and docs/build-integration.md "Bazel"):

    load("@meshcook_rules//:defs.bzl", "meshcook_asset", "meshcook_world")

    meshcook_asset(
        name = "box",
        src = "box.gltf",
        data = ["box.bin", "checker.png"],  # what `meshcook plan --bazel` lists
    )

Each action runs `meshcook cook --no-cache` over exactly its declared
inputs: Bazel's action cache and remote cache take the place of
meshcook's own cache, and meshcook's outputs depend only on those inputs
and the flags, so actions are hermetic and their results shareable
between machines (as long as the machines run the same meshcook build:
the binary is an input of every action).
"""

MeshCookInfo = provider(
    doc = "What a meshcook rule cooked.",
    fields = {
        "out": "the tree artifact holding the outputs, named as `meshcook cook -o` names them",
        "srcs": "depset of the sources cooked",
    },
)

_SOURCE_EXTENSIONS = [".gltf", ".glb", ".fbx", ".nwb", ".json"]

def _root(ctx, src):
    """The folder output names are taken relative to, in the execution
    root: the source's package, or `root` below it."""
    owner = src.owner
    parts = [p for p in [owner.workspace_root, owner.package, ctx.attr.root] if p]
    return "/".join(parts) if parts else "."

def _cook(ctx, srcs, extra_flags):
    out = ctx.actions.declare_directory(ctx.label.name + ".cooked")
    args = ctx.actions.args()
    args.add("cook")
    args.add("--root", _root(ctx, srcs[0]))
    args.add_all(srcs)
    args.add("-o", out.path)
    args.add_all(["--no-cache", "-j", "1", "--quiet"])
    args.add_all(extra_flags)
    args.add_all(ctx.attr.flags)
    ctx.actions.run(
        executable = ctx.executable.meshcook,
        arguments = [args],
        inputs = depset(srcs + ctx.files.data),
        outputs = [out],
        mnemonic = "MeshCook",
        progress_message = "Cooking %s" % ctx.label,
        # Nothing from the host environment reaches the cook.
        use_default_shell_env = False,
    )
    return [
        DefaultInfo(files = depset([out])),
        MeshCookInfo(out = out, srcs = depset(srcs)),
    ]

def _meshcook_asset_impl(ctx):
    return _cook(ctx, [ctx.file.src], [])

def _meshcook_world_impl(ctx):
    if not ctx.files.srcs:
        fail("meshcook_world %s: name at least one source" % ctx.label)
    return _cook(ctx, ctx.files.srcs, ["--target", ",".join(ctx.attr.targets)])

_COMMON_ATTRS = {
    "data": attr.label_list(
        allow_files = True,
        doc = "Files the sources reference (external buffers, images, a heightfield's PNG): `meshcook plan --bazel` lists them.",
    ),
    "root": attr.string(
        doc = "Folder below the sources' package that output names are relative to (default: the package itself), as `meshcook cook --root`. A world's sources share one package.",
    ),
    "flags": attr.string_list(
        doc = "More `meshcook cook` flags, e.g. [\"--lods\", \"0.5\"].",
    ),
    "meshcook": attr.label(
        default = "@meshcook_bin//:meshcook",
        allow_single_file = True,
        executable = True,
        cfg = "exec",
        doc = "The meshcook binary.",
    ),
}

meshcook_asset = rule(
    implementation = _meshcook_asset_impl,
    doc = """Cooks one source into a tree artifact NAME.cooked/ holding
what `meshcook cook` writes for it: <stem>.hmesh, <stem>.hmat, and when
the source has them <stem>.hanim and <stem>/<image>.ktx2 (and .msh7 with
flags = ["--target", "hmesh,msh7"]). <stem> is the source's path below the
root without its extension, so outputs are named as in a folder cook.""",
    attrs = dict(_COMMON_ATTRS, src = attr.label(
        mandatory = True,
        allow_single_file = _SOURCE_EXTENSIONS,
        doc = "The source: .gltf, .glb, .fbx, .nwb or .heightfield.json.",
    )),
)

meshcook_world = rule(
    implementation = _meshcook_world_impl,
    doc = """Cooks every source into one world, a tree artifact NAME.cooked/
with data/0, data/1, ... (.cnb blobs) and world-lock.json (targets
default to cnb).""",
    attrs = dict(_COMMON_ATTRS, srcs = attr.label_list(
        mandatory = True,
        allow_files = _SOURCE_EXTENSIONS,
        doc = "The sources of the world.",
    ), targets = attr.string_list(
        default = ["cnb"],
        doc = "`meshcook cook --target` values.",
    )),
)
