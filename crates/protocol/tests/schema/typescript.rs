//! TypeScript declarations from the schema bundle: one `export type` (or `interface`)
//! per definition, its description as JSDoc. Only the keywords the bundle uses are
//! understood; any other keyword is an error, so that no constraint that shapes a type
//! is dropped silently.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// Keywords that only annotate or constrain values within a TypeScript type.
const ANNOTATIONS: [&str; 9] = [
    "description",
    "default",
    "format",
    "minimum",
    "maximum",
    "pattern",
    "minItems",
    "maxItems",
    "title",
];

/// Keywords that shape the type.
const SHAPES: [&str; 11] = [
    "$ref",
    "type",
    "const",
    "enum",
    "oneOf",
    "anyOf",
    "allOf",
    "properties",
    "required",
    "additionalProperties",
    "items",
];

/// The declarations for `bundle` (see `catan_protocol::schema::bundle`).
pub(crate) fn declarations(bundle: &Value, source: &str, bless: &str) -> String {
    let defs = bundle["$defs"].as_object().expect("the bundle has $defs");
    let mut out = String::new();
    writeln!(
        out,
        "// TypeScript declarations of the catan-server protocol, generated from\n\
         // {source}. Do not edit: `{bless}` regenerates it.\n\
         // Client-sent forms that differ from the server-written ones end in `Input`."
    )
    .unwrap();
    let roots: Vec<String> = bundle["anyOf"]
        .as_array()
        .expect("the root lists every message and body")
        .iter()
        .map(|r| reference(r["$ref"].as_str().expect("a root is a $ref")))
        .collect();
    out.push('\n');
    doc(&mut out, bundle["description"].as_str(), 0);
    writeln!(out, "export type AnyMessageOrBody = {};", roots.join(" | ")).unwrap();
    let mut names: Vec<&String> = defs.keys().collect();
    names.sort();
    for name in names {
        let def = &defs[name];
        out.push('\n');
        doc(&mut out, def.get("description").and_then(Value::as_str), 0);
        if is_plain_object(def) {
            write!(out, "export interface {name} ").unwrap();
            out.push_str(&object(def.as_object().expect("object"), 0));
            out.push('\n');
        } else {
            let t = ty(def, 0);
            let gap = if t.starts_with('\n') { "" } else { " " };
            writeln!(out, "export type {name} ={gap}{t};").unwrap();
        }
    }
    out
}

/// The definition name of a `#/$defs/...` reference.
fn reference(r: &str) -> String {
    r.strip_prefix("#/$defs/")
        .unwrap_or_else(|| panic!("unsupported reference {r}"))
        .to_owned()
}

fn pad(indent: usize) -> String {
    "  ".repeat(indent)
}

/// A JSDoc comment at `indent`.
fn doc(out: &mut String, text: Option<&str>, indent: usize) {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return;
    };
    let p = pad(indent);
    let text = text.replace("*/", "*\\/");
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() == 1 {
        writeln!(out, "{p}/** {} */", lines[0]).unwrap();
    } else {
        writeln!(out, "{p}/**").unwrap();
        for line in lines {
            if line.is_empty() {
                writeln!(out, "{p} *").unwrap();
            } else {
                writeln!(out, "{p} * {line}").unwrap();
            }
        }
        writeln!(out, "{p} */").unwrap();
    }
}

/// Checks that `schema` uses only known keywords.
fn known_keywords(schema: &Map<String, Value>) {
    for k in schema.keys() {
        assert!(
            ANNOTATIONS.contains(&k.as_str()) || SHAPES.contains(&k.as_str()),
            "the TypeScript generator does not know the keyword `{k}`"
        );
    }
}

/// An object schema with nothing but properties: an `interface`.
fn is_plain_object(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    map.get("type") == Some(&Value::from("object"))
        && map.contains_key("properties")
        && map
            .keys()
            .all(|k| ANNOTATIONS.contains(&k.as_str()) || OBJECT_KEYS.contains(&k.as_str()))
}

const OBJECT_KEYS: [&str; 4] = ["type", "properties", "required", "additionalProperties"];

/// A JSON value as a TypeScript literal type.
fn literal(v: &Value) -> String {
    match v {
        Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => v.to_string(),
        _ => panic!("unsupported literal {v}"),
    }
}

/// `t` as a member of a union or intersection.
fn paren(t: String) -> String {
    if t.contains(" | ") || t.contains(" & ") || t.starts_with("\n") {
        format!("({t})")
    } else {
        t
    }
}

/// The TypeScript type of `schema`, its nested lines indented from `indent`.
fn ty(schema: &Value, indent: usize) -> String {
    let map = match schema {
        Value::Bool(true) => return "unknown".to_owned(),
        Value::Bool(false) => return "never".to_owned(),
        Value::Object(map) => map,
        other => panic!("not a schema: {other}"),
    };
    known_keywords(map);
    if let Some(c) = map.get("const") {
        return literal(c);
    }
    if let Some(values) = map.get("enum") {
        let values = values.as_array().expect("enum is an array");
        return values.iter().map(literal).collect::<Vec<_>>().join(" | ");
    }
    // The parts that all hold: own type, reference, allOf; then the union, if any.
    let mut parts: Vec<String> = Vec::new();
    if map.contains_key("properties") || map.get("type") == Some(&Value::from("object")) {
        parts.push(object(map, indent));
    } else if let Some(t) = map.get("type") {
        parts.push(simple_type(t, map, indent));
    }
    if let Some(r) = map.get("$ref").and_then(Value::as_str) {
        parts.push(reference(r));
    }
    if let Some(all) = map.get("allOf").and_then(Value::as_array) {
        parts.extend(all.iter().map(|s| paren(ty(s, indent))));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(variants) = map.get(key).and_then(Value::as_array) {
            parts.push(union(variants, indent));
        }
    }
    match parts.len() {
        0 => "unknown".to_owned(),
        1 => parts.pop().expect("one part"),
        _ => parts.into_iter().map(paren).collect::<Vec<_>>().join(" & "),
    }
}

/// A union of `variants`, one per line with its description when any is an object.
fn union(variants: &[Value], indent: usize) -> String {
    let inline: Vec<String> = variants.iter().map(|v| ty(v, indent + 1)).collect();
    let multiline = variants
        .iter()
        .any(|v| v.get("description").is_some() || v.get("properties").is_some());
    if !multiline {
        return inline.join(" | ");
    }
    let p = pad(indent + 1);
    let mut out = String::new();
    for (v, t) in variants.iter().zip(inline) {
        out.push('\n');
        doc(
            &mut out,
            v.get("description").and_then(Value::as_str),
            indent + 1,
        );
        write!(out, "{p}| {t}").unwrap();
    }
    out
}

/// A type given by `type` (a name or a list of names).
fn simple_type(t: &Value, map: &Map<String, Value>, indent: usize) -> String {
    match t {
        Value::String(name) => named_type(name, map, indent),
        Value::Array(names) => names
            .iter()
            .map(|n| named_type(n.as_str().expect("a type name"), map, indent))
            .map(paren)
            .collect::<Vec<_>>()
            .join(" | "),
        other => panic!("unsupported type {other}"),
    }
}

fn named_type(name: &str, map: &Map<String, Value>, indent: usize) -> String {
    match name {
        "string" => "string".to_owned(),
        "integer" | "number" => "number".to_owned(),
        "boolean" => "boolean".to_owned(),
        "null" => "null".to_owned(),
        "array" => array(map, indent),
        "object" => object(map, indent),
        other => panic!("unsupported type name {other}"),
    }
}

/// An array: a tuple when its length is fixed (and short), else `T[]`.
fn array(map: &Map<String, Value>, indent: usize) -> String {
    let items = map.get("items").expect("arrays say what their items are");
    let item = ty(items, indent);
    let min = map.get("minItems").and_then(Value::as_u64);
    let max = map.get("maxItems").and_then(Value::as_u64);
    match (min, max) {
        (Some(n), Some(m)) if n == m && n <= 4 => {
            format!("[{}]", vec![item; n as usize].join(", "))
        }
        _ => format!("{}[]", paren(item)),
    }
}

/// An object type literal with one line per property.
fn object(map: &Map<String, Value>, indent: usize) -> String {
    let empty = Map::new();
    let properties = map
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if properties.is_empty() {
        return if map.get("additionalProperties") == Some(&Value::Bool(false)) {
            "Record<string, never>".to_owned()
        } else {
            "Record<string, unknown>".to_owned()
        };
    }
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // Required properties in their declared order (the tag first), then the others.
    let mut names: Vec<&String> = required
        .iter()
        .filter_map(|r| properties.get_key_value(*r).map(|(k, _)| k))
        .collect();
    let mut optional: Vec<&String> = properties
        .keys()
        .filter(|k| !required.contains(&k.as_str()))
        .collect();
    optional.sort();
    names.extend(optional);
    let p = pad(indent + 1);
    let mut out = String::from("{\n");
    for name in names {
        let prop = &properties[name];
        doc(
            &mut out,
            prop.get("description").and_then(Value::as_str),
            indent + 1,
        );
        let optional = if required.contains(&name.as_str()) {
            ""
        } else {
            "?"
        };
        let key = if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
        {
            name.clone()
        } else {
            Value::from(name.as_str()).to_string()
        };
        writeln!(out, "{p}{key}{optional}: {};", ty(prop, indent + 1)).unwrap();
    }
    write!(out, "{}}}", pad(indent)).unwrap();
    out
}
