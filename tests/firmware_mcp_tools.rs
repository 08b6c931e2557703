//! The MCP firmware's tool schemas against their argument types
//! (examples/firmware/src/mcp/tools.rs, compiled here as it is): the schemas are
//! constants in flash, written by hand, and this test keeps them from drifting from
//! what the firmware reads.
//!
//! For each tool, every property of its `inputSchema` is tried with values on and
//! around its bounds and of every other JSON type; the tool's reading must accept
//! exactly the values the schema accepts (JSON Schema 2020-12's rules for the keywords
//! used, and only those: a keyword this test does not know fails it), read them as
//! given, and name the argument when it refuses; a required property must be
//! required, an optional one must take the schema's `default`, and no other property
//! may be accepted. The `tools/list` document must carry each schema as it is, under
//! the name the firmware dispatches on.

#[path = "../examples/firmware/src/mcp/tools.rs"]
#[allow(dead_code)]
mod tools;

use jsonrpc_slice::RawJson;
use serde_json::{json, Map, Value};
use tools::{BadArguments, ReadSensor, Sample, SetLed, Tool};

/// What JSON Schema 2020-12 says of `value` against a property's schema, for the
/// keywords the tools use; panics on any other keyword, so that a schema this test
/// cannot judge fails it rather than passing unjudged.
fn accepts(schema: &Map<String, Value>, value: &Value) -> bool {
    let mut ok = true;
    for (keyword, arg) in schema {
        ok &= match keyword.as_str() {
            "type" => match arg.as_str() {
                // 2020-12: an integer is any number with a zero fractional part.
                Some("integer") => value.as_f64().is_some_and(|f| f.fract() == 0.0),
                Some("boolean") => value.is_boolean(),
                other => panic!("type {other:?}: not a type this test knows"),
            },
            "minimum" => value.as_f64().map_or(true, |v| v >= arg.as_f64().unwrap()),
            "maximum" => value.as_f64().map_or(true, |v| v <= arg.as_f64().unwrap()),
            // Annotations: no effect on validation.
            "description" | "default" | "title" => true,
            other => panic!("keyword {other}: not one this test knows"),
        };
    }
    ok
}

/// Values to try for a property: its bounds and their neighbours, integers spelled
/// with a fraction or an exponent, and every other JSON type.
fn candidates(schema: &Map<String, Value>) -> Vec<Value> {
    let mut out = vec![
        json!(true),
        json!(false),
        json!(null),
        json!("1"),
        json!([1]),
        json!({"v": 1}),
        json!(0.5),
        json!(-1),
        json!(i64::MAX),
        json!(i64::MIN),
        json!(u64::MAX),
    ];
    for key in ["minimum", "maximum"] {
        if let Some(bound) = schema.get(key).and_then(Value::as_i64) {
            for v in bound - 2..=bound + 2 {
                out.push(json!(v));
                out.push(json!(v as f64 + 0.5));
            }
        }
    }
    out
}

/// `arguments` as JSON text, read by the tool.
fn parse<T: Tool>(arguments: &str) -> Result<T, String> {
    let raw = RawJson::new(arguments.as_bytes()).expect("the test's JSON is valid");
    T::parse(Some(raw)).map_err(|e| e.to_string())
}

/// The schema's properties, with a valid value for each (its minimum, or `true`).
fn properties(schema: &Value) -> (Map<String, Value>, Map<String, Value>) {
    let props = schema["properties"]
        .as_object()
        .expect("properties")
        .clone();
    let valid = props
        .iter()
        .map(|(name, p)| {
            let v = match p["type"].as_str() {
                Some("integer") => p["minimum"].clone(),
                Some("boolean") => json!(true),
                other => panic!("{name}: type {other:?}"),
            };
            (name.clone(), v)
        })
        .collect();
    (props, valid)
}

fn check<T: Tool>() {
    let name = T::NAME;
    let schema: Value = serde_json::from_str(T::SCHEMA).expect("the schema is JSON");
    assert_eq!(schema["type"], "object", "{name}: inputSchema's type");
    assert_eq!(
        schema["additionalProperties"], false,
        "{name}: other properties are refused by the tool, so by the schema too"
    );
    for key in schema.as_object().unwrap().keys() {
        assert!(
            ["type", "properties", "required", "additionalProperties"].contains(&key.as_str()),
            "{name}: keyword {key} at the top of the schema, not one this test knows"
        );
    }
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().map(|v| v.as_str().unwrap()).collect())
        .unwrap_or_default();
    let (props, valid) = properties(&schema);
    for r in &required {
        assert!(
            props.contains_key(*r),
            "{name}: required {r} is not a property"
        );
    }

    // All valid: read as given.
    let all = Value::Object(valid.clone()).to_string();
    let args = parse::<T>(&all).unwrap_or_else(|e| panic!("{name}: {all} refused: {e}"));
    for (p, v) in &valid {
        let want = v.as_i64().or(v.as_bool().map(i64::from));
        assert_eq!(args.value(p), want, "{name}: {p} of {all}");
    }

    // Each property over the candidates: accepted exactly when the schema accepts.
    for (p, ps) in &props {
        let ps = ps.as_object().unwrap();
        for v in candidates(ps) {
            let mut obj = valid.clone();
            obj.insert(p.clone(), v.clone());
            let text = Value::Object(obj).to_string();
            let got = parse::<T>(&text);
            match (accepts(ps, &v), got) {
                (true, Ok(args)) => {
                    let want = v.as_f64().map(|f| f as i64).or(v.as_bool().map(i64::from));
                    assert_eq!(
                        args.value(p),
                        want,
                        "{name}: {p} = {v} read as another value"
                    );
                }
                (false, Err(e)) => assert!(
                    e.starts_with(&format!("`{p}` must be")),
                    "{name}: {p} = {v} refused, but the message does not name it: {e}"
                ),
                (true, Err(e)) => panic!("{name}: {text} is valid by the schema, refused: {e}"),
                (false, Ok(_)) => panic!("{name}: {text} is invalid by the schema, accepted"),
            }
        }
        // The same integers spelled as JSON Schema still counts them integers.
        if ps["type"] == "integer" {
            let min = ps["minimum"].as_i64().unwrap();
            for spelling in [
                format!("{min}.0"),
                format!("{}e-1", min * 10),
                format!("{min}.000e0"),
            ] {
                let mut obj = valid.clone();
                obj.remove(p);
                let mut text = Value::Object(obj).to_string();
                text.insert_str(
                    1,
                    &format!(
                        "\"{p}\":{spelling}{}",
                        if valid.len() > 1 { "," } else { "" }
                    ),
                );
                let args = parse::<T>(&text).unwrap_or_else(|e| panic!("{name}: {text}: {e}"));
                assert_eq!(args.value(p), Some(min), "{name}: {text}");
            }
        }
        // Absent: required, or its default.
        let mut obj = valid.clone();
        obj.remove(p);
        let text = Value::Object(obj).to_string();
        match (required.contains(&p.as_str()), parse::<T>(&text)) {
            (true, Err(e)) => assert_eq!(e, format!("`{p}` is required"), "{name}"),
            (true, Ok(_)) => panic!("{name}: {p} is required by the schema, {text} accepted"),
            (false, Ok(args)) => assert_eq!(
                args.value(p),
                ps.get("default").and_then(Value::as_i64),
                "{name}: {p} absent takes the schema's default"
            ),
            (false, Err(e)) => panic!("{name}: {p} is optional by the schema, {text} refused: {e}"),
        }
    }

    // Another property: refused, named.
    let mut obj = valid.clone();
    obj.insert("unknown_zz".into(), json!(1));
    let text = Value::Object(obj).to_string();
    assert_eq!(
        parse::<T>(&text).err().as_deref(),
        Some("`unknown_zz` is not an argument of this tool"),
        "{name}"
    );
    // `arguments` absent is `{}`; not an object is the request's fault.
    assert_eq!(
        T::parse(None).is_ok(),
        required.is_empty(),
        "{name}: no arguments"
    );
    for not_object in ["[]", "1", "\"x\"", "null"] {
        let raw = RawJson::new(not_object.as_bytes()).unwrap();
        assert!(
            matches!(T::parse(Some(raw)), Err(BadArguments::NotAnObject)),
            "{name}: arguments {not_object}"
        );
    }
}

#[test]
fn each_schema_agrees_with_its_argument_type() {
    check::<ReadSensor>();
    check::<SetLed>();
    check::<Sample>();
}

#[test]
fn the_tools_list_document_carries_each_schema_under_its_name() {
    let list: Value = serde_json::from_str(tools::TOOLS_LIST).expect("TOOLS_LIST is JSON");
    let tools = list["tools"].as_array().expect("tools");
    let want = [
        (ReadSensor::NAME, ReadSensor::SCHEMA),
        (SetLed::NAME, SetLed::SCHEMA),
        (Sample::NAME, Sample::SCHEMA),
    ];
    assert_eq!(tools.len(), want.len());
    for (tool, (name, schema)) in tools.iter().zip(want) {
        assert_eq!(tool["name"], name);
        assert_eq!(
            tool["inputSchema"],
            serde_json::from_str::<Value>(schema).unwrap(),
            "{name}"
        );
        assert!(tool["description"].is_string(), "{name}: a description");
    }
    // 2026-07-28's members of a cacheable result, and the server's identity.
    assert_eq!(list["resultType"], "complete");
    assert!(list["ttlMs"].as_u64().is_some());
    assert!(["public", "private"].contains(&list["cacheScope"].as_str().unwrap()));
    let meta: Value = serde_json::from_str(tools::SERVER_INFO_META).unwrap();
    assert_eq!(list["_meta"], meta);
}

#[test]
fn the_documents_name_the_revisions_and_the_server_alike() {
    let info = json!({"name": tools::SERVER_NAME, "version": tools::SERVER_VERSION});
    let meta: Value = serde_json::from_str(tools::SERVER_INFO_META).unwrap();
    assert_eq!(meta["io.modelcontextprotocol/serverInfo"], info);

    let discover: Value = serde_json::from_str(tools::DISCOVER).unwrap();
    assert_eq!(discover["resultType"], "complete");
    assert_eq!(
        discover["supportedVersions"],
        json!([tools::MODERN, tools::LEGACY])
    );
    assert!(discover["capabilities"]["tools"].is_object());
    assert!(discover["ttlMs"].as_u64().is_some());
    assert_eq!(discover["_meta"], meta);

    let init: Value = serde_json::from_str(tools::INITIALIZE).unwrap();
    assert_eq!(init["protocolVersion"], tools::LEGACY);
    assert_eq!(init["serverInfo"], info);
    assert_eq!(init["capabilities"], discover["capabilities"]);
    assert_eq!(init["instructions"], discover["instructions"]);
}
