#!/usr/bin/env python3
"""The public surface of each published crate, one item a line.

Reads the rustdoc JSON of the workspace's crates (written by
scripts/public-api.sh into target/doc/) and prints, for each published crate,
every item a user can name: the crate's modules, types, traits, functions,
constants, statics and macros under the paths the crate shows them (following
`pub use`, globs included, into the crates they come from), with the inherent
methods, associated items, public fields and variants of its types and the
items of its traits. `#[doc(hidden)]` items and what only they lead to are
left out: they are not the public API (a hidden item re-exported under a
visible name counts under that name). Another crate's item re-exported is
listed as such, by its source path.

    scripts/public_api.py CRATE...      # prints each crate's list
    scripts/public_api.py --write api/ CRATE...   # writes api/CRATE.txt
"""
import json
import os
import sys

DOC = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "doc")

_docs = {}


def load(crate):
    """The rustdoc JSON of `crate` (its library name), read once."""
    if crate not in _docs:
        with open(os.path.join(DOC, crate + ".json")) as file:
            data = json.load(file)
        # Items of this crate by the path rustdoc gives their definition.
        data["by_path"] = {
            tuple(entry["path"]): int(key)
            for key, entry in data["paths"].items()
            if entry["crate_id"] == 0
        }
        _docs[crate] = data
    return _docs[crate]


def hidden(item):
    for attr in item.get("attrs", []):
        text = attr if isinstance(attr, str) else json.dumps(attr)
        if "doc(hidden)" in text.replace(" ", "") or "hidden" in text and "doc" in text:
            return True
    return False


def kind_of(item):
    inner = item["inner"]
    return inner if isinstance(inner, str) else next(iter(inner))


def resolve(data, item_id):
    """The crate data and item an id of `data` names, following it into the
    crate that defines it; None when that crate is not ours."""
    key = str(item_id)
    if key in data["index"] and data["index"][key]["crate_id"] == 0:
        return data, data["index"][key]
    entry = data["paths"].get(key)
    if entry is None:
        return None
    crate = data["external_crates"][str(entry["crate_id"])]["name"]
    if not os.path.exists(os.path.join(DOC, crate + ".json")):
        return None
    other = load(crate)
    found = other["by_path"].get(tuple(entry["path"]))
    if found is None or str(found) not in other["index"]:
        return None
    return other, other["index"][str(found)]


def members(data, item, path, out):
    """The associated items, fields and variants of a type or trait."""
    kind = kind_of(item)
    inner = item["inner"][kind]
    if not isinstance(inner, dict):
        return
    if kind == "struct":
        fields = inner["kind"].get("plain", {}).get("fields", []) if isinstance(inner["kind"], dict) else []
        for field in fields:
            field_item = data["index"].get(str(field))
            if field_item and field_item["visibility"] == "public" and not hidden(field_item):
                out.add(f"{path}::{field_item['name']} (field)")
    if kind == "enum":
        for variant in inner["variants"]:
            variant_item = data["index"].get(str(variant))
            if variant_item and not hidden(variant_item):
                out.add(f"{path}::{variant_item['name']} (variant)")
    if kind == "trait":
        for assoc in inner["items"]:
            assoc_item = data["index"].get(str(assoc))
            if assoc_item and not hidden(assoc_item):
                out.add(f"{path}::{assoc_item['name']} ({kind_of(assoc_item)})")
    for impl_id in inner.get("impls", []):
        impl = data["index"].get(str(impl_id))
        if impl is None:
            continue
        body = impl["inner"]["impl"]
        if body["trait"] is not None or body.get("is_synthetic") or body.get("blanket_impl"):
            continue
        if hidden(impl):
            continue
        for assoc in body["items"]:
            assoc_item = data["index"].get(str(assoc))
            if assoc_item and assoc_item["visibility"] == "public" and not hidden(assoc_item):
                out.add(f"{path}::{assoc_item['name']} ({kind_of(assoc_item)})")


def walk(data, module, path, out, seen):
    """Every public item of `module`, shown under `path`."""
    for item_id in module["inner"]["module"]["items"]:
        item = data["index"].get(str(item_id))
        if item is None or hidden(item) or item["visibility"] != "public":
            continue
        kind = kind_of(item)
        if kind == "use":
            use = item["inner"]["use"]
            if use["id"] is None:
                continue
            target = resolve(data, use["id"])
            if target is None:
                # A re-export of another crate's item: named here, described
                # there.
                out.add(f"{path}::{use['name']} (re-export of {use['source']})")
                continue
            target_data, target_item = target
            if use["is_glob"]:
                if kind_of(target_item) == "module":
                    walk(target_data, target_item, path, out, seen)
                continue
            show(target_data, target_item, f"{path}::{use['name']}", out, seen)
        else:
            show(data, item, f"{path}::{item['name']}", out, seen)


def show(data, item, path, out, seen):
    kind = kind_of(item)
    if kind in ("impl", "use"):
        return
    out.add(f"{path} ({kind})")
    if kind == "module":
        key = (id(data), item["id"], path)
        if key not in seen:
            seen.add(key)
            walk(data, item, path, out, seen)
    else:
        members(data, item, path, out)


def surface(crate):
    data = load(crate)
    root = data["index"][str(data["root"])]
    out = set()
    walk(data, root, crate, out, set())
    return sorted(out)


def main(args):
    write = None
    if args[:1] == ["--write"]:
        write, args = args[1], args[2:]
    for crate in args:
        lines = surface(crate)
        text = "".join(line + "\n" for line in lines)
        if write:
            os.makedirs(write, exist_ok=True)
            with open(os.path.join(write, crate + ".txt"), "w") as file:
                file.write(text)
        else:
            sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
