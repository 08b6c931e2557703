//! The MCP image's tools as MCP sees them: each tool's argument type, the JSON Schema
//! `tools/list` gives for it (a constant), and the reading of `tools/call`'s
//! `arguments` into that type.
//!
//! The schemas are written by hand, as constants in flash; `tests/firmware_mcp_tools.rs`
//! (the library's tests, on the host) checks each against its type's reading: every
//! property the schema names is read, with its bounds, its type and its default, each
//! required one is required, and nothing else is accepted. This file depends on
//! `jsonrpc_slice` alone, so that test compiles it as it is.

use core::fmt;

use jsonrpc_slice::{Kind, RawJson, RawStr};

/// What is wrong with a tool's `arguments`.
#[derive(Copy, Clone, Debug)]
pub enum BadArguments<'a> {
    /// `arguments` is not an object: the request is not a `tools/call` request
    /// (`-32602`, not a tool's error).
    NotAnObject,
    /// A required argument is missing.
    Missing(&'static str),
    /// An argument of the wrong type, or out of its bounds.
    Invalid(&'static Arg),
    /// An argument the tool does not take.
    Unknown(RawStr<'a>),
    /// An argument given twice.
    Twice(&'static str),
}

impl fmt::Display for BadArguments<'_> {
    // `write_str` for the names, not `{}`: `Formatter::pad` and its width and
    // precision rules would be linked for nothing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quoted = |f: &mut fmt::Formatter<'_>, name: &str| {
            f.write_str("`")?;
            f.write_str(name)?;
            f.write_str("`")
        };
        match *self {
            Self::NotAnObject => f.write_str("`arguments` must be an object"),
            Self::Missing(name) => {
                quoted(f, name)?;
                f.write_str(" is required")
            }
            Self::Invalid(arg) => {
                quoted(f, arg.name)?;
                match arg.ty {
                    Type::Integer { min, max } => {
                        write!(f, " must be an integer from {min} to {max}")
                    }
                    Type::Boolean => f.write_str(" must be true or false"),
                }
            }
            Self::Unknown(name) => {
                f.write_str("`")?;
                fmt::Display::fmt(&name, f)?;
                f.write_str("` is not an argument of this tool")
            }
            Self::Twice(name) => {
                quoted(f, name)?;
                f.write_str(" is given twice")
            }
        }
    }
}

/// One argument: its name, its JSON type and bounds, and its default when it is
/// optional (`None`: required).
#[derive(Debug)]
pub struct Arg {
    /// The property's name.
    pub name: &'static str,
    /// Its type.
    pub ty: Type,
    /// The value an absent argument takes; `None` for a required one.
    pub default: Option<i64>,
}

/// The JSON types the tools' arguments take.
#[derive(Copy, Clone, Debug)]
pub enum Type {
    /// An integer in `min..=max` (as JSON Schema counts them: `1.0` is one).
    Integer { min: i32, max: i32 },
    /// `true` or `false`, read as 1 or 0.
    Boolean,
}

/// A tool's argument type.
pub trait Tool: Sized {
    /// The tool's name in `tools/list` and `tools/call`.
    const NAME: &'static str;
    /// Its `inputSchema` (the firmware sends it within [`TOOLS_LIST`]; the schema
    /// test reads it here).
    #[cfg_attr(not(test), allow(dead_code))]
    const SCHEMA: &'static str;
    /// Reads the arguments (`None`: the request had no `arguments`, read as `{}`).
    fn parse(arguments: Option<RawJson<'_>>) -> Result<Self, BadArguments<'_>>;
    /// The value the arguments gave `name` (a boolean as 0 or 1), for the schema test.
    #[cfg(test)]
    fn value(&self, name: &str) -> Option<i64>;
}

/// Reads `arguments` by `spec`: each member matched to its argument, checked, and
/// each argument given or defaulted, in `spec`'s order.
fn read<'a, const N: usize>(
    arguments: Option<RawJson<'a>>,
    spec: &'static [Arg; N],
) -> Result<[i64; N], BadArguments<'a>> {
    let mut values = [0i64; N];
    let mut given = [false; N];
    if let Some(arguments) = arguments {
        if arguments.kind() != Kind::Object {
            return Err(BadArguments::NotAnObject);
        }
        for (key, value) in arguments.members() {
            let i = spec
                .iter()
                .position(|arg| key.eq_str(arg.name))
                .ok_or(BadArguments::Unknown(key))?;
            let (Some(arg), Some(slot), Some(seen)) =
                (spec.get(i), values.get_mut(i), given.get_mut(i))
            else {
                return Err(BadArguments::Unknown(key));
            };
            if *seen {
                return Err(BadArguments::Twice(arg.name));
            }
            *seen = true;
            *slot = match arg.ty {
                Type::Integer { min, max } => integer(value)
                    .filter(|v| (i64::from(min)..=i64::from(max)).contains(v))
                    .ok_or(BadArguments::Invalid(arg))?,
                Type::Boolean => i64::from(value.as_bool().ok_or(BadArguments::Invalid(arg))?),
            };
        }
    }
    for ((arg, slot), seen) in spec.iter().zip(&mut values).zip(given) {
        if !seen {
            *slot = arg.default.ok_or(BadArguments::Missing(arg.name))?;
        }
    }
    Ok(values)
}

/// Numbers beyond this size are out of every argument's bounds: [`integer`] need not
/// say what they are.
const HUGE: i64 = 1_000_000_000_000;

/// The value of a number that is an integer as JSON Schema counts them, a zero
/// fractional part (`2`, `2.0`, `20e-1`: `"type": "integer"` takes all three), if it
/// is within ±[`HUGE`]; `None` for anything else. Decimal digits, no floats (a
/// float parser would cost the firmware more than this whole function).
fn integer(value: RawJson<'_>) -> Option<i64> {
    if let Some(v) = value.as_i64() {
        return Some(v);
    }
    if value.kind() != Kind::Number {
        return None;
    }
    let b = value.as_bytes();
    let (negative, b) = match b {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, b),
    };
    let e = b
        .iter()
        .position(|&c| c == b'e' || c == b'E')
        .unwrap_or(b.len());
    let (mantissa, exponent) = b.split_at(e);
    // The exponent, saturated well past any digit count a 1 KiB line can hold.
    let mut exp: i32 = 0;
    for &c in exponent.iter().filter(|c| c.is_ascii_digit()) {
        exp = (exp * 10 + i32::from(c - b'0')).min(100_000);
    }
    if exponent.contains(&b'-') {
        exp = -exp;
    }
    let point = mantissa
        .iter()
        .position(|&c| c == b'.')
        .unwrap_or(mantissa.len());
    // Digits before `cut` are the integer part, those after must be zeros.
    let cut = point as i32 + exp;
    let (mut n, mut count) = (0i64, 0i32);
    for &c in mantissa.iter().filter(|c| c.is_ascii_digit()) {
        let d = i64::from(c - b'0');
        if count < cut {
            n = n * 10 + d;
            if n > HUGE {
                return None;
            }
        } else if d != 0 {
            return None;
        }
        count += 1;
    }
    while n != 0 && count < cut {
        n *= 10;
        if n > HUGE {
            return None;
        }
        count += 1;
    }
    Some(if negative { -n } else { n })
}

/// The ADC inputs the tools read (AIN0 to AIN3).
const CHANNEL: Arg = Arg {
    name: "channel",
    ty: Type::Integer { min: 0, max: 3 },
    default: None,
};

/// `read_sensor`: one conversion of an ADC input.
#[derive(Debug, PartialEq, Eq)]
pub struct ReadSensor {
    /// The ADC input, 0 to 3.
    pub channel: u8,
}

/// `read_sensor`'s `inputSchema` (a macro, so the `tools/list` document can be
/// spliced together from the schemas with `concat!`).
macro_rules! read_sensor_schema {
    () => {
        r#"{"type":"object","properties":{"channel":{"type":"integer","minimum":0,"maximum":3,"description":"ADC input, AIN0 to AIN3"}},"required":["channel"],"additionalProperties":false}"#
    };
}

impl Tool for ReadSensor {
    const NAME: &'static str = "read_sensor";
    const SCHEMA: &'static str = read_sensor_schema!();
    fn parse(arguments: Option<RawJson<'_>>) -> Result<Self, BadArguments<'_>> {
        static SPEC: [Arg; 1] = [CHANNEL];
        let [channel] = read(arguments, &SPEC)?;
        Ok(Self {
            channel: channel as u8,
        })
    }
    #[cfg(test)]
    fn value(&self, name: &str) -> Option<i64> {
        (name == "channel").then_some(i64::from(self.channel))
    }
}

/// `set_led`: the status LED on or off.
#[derive(Debug, PartialEq, Eq)]
pub struct SetLed {
    /// On (`true`) or off.
    pub on: bool,
}

/// `set_led`'s `inputSchema`.
macro_rules! set_led_schema {
    () => {
        r#"{"type":"object","properties":{"on":{"type":"boolean","description":"true: on, false: off"}},"required":["on"],"additionalProperties":false}"#
    };
}

impl Tool for SetLed {
    const NAME: &'static str = "set_led";
    const SCHEMA: &'static str = set_led_schema!();
    fn parse(arguments: Option<RawJson<'_>>) -> Result<Self, BadArguments<'_>> {
        static SPEC: [Arg; 1] = [Arg {
            name: "on",
            ty: Type::Boolean,
            default: None,
        }];
        let [on] = read(arguments, &SPEC)?;
        Ok(Self { on: on != 0 })
    }
    #[cfg(test)]
    fn value(&self, name: &str) -> Option<i64> {
        (name == "on").then_some(i64::from(self.on))
    }
}

/// `sample`: several conversions of one input, with a progress notification after
/// each when the request asks for progress.
#[derive(Debug, PartialEq, Eq)]
pub struct Sample {
    /// The ADC input, 0 to 3 (default 0).
    pub channel: u8,
    /// How many conversions, 1 to 16.
    pub count: u8,
}

/// `sample`'s `inputSchema`.
macro_rules! sample_schema {
    () => {
        r#"{"type":"object","properties":{"channel":{"type":"integer","minimum":0,"maximum":3,"default":0,"description":"ADC input, AIN0 to AIN3"},"count":{"type":"integer","minimum":1,"maximum":16,"description":"conversions to take"}},"required":["count"],"additionalProperties":false}"#
    };
}

impl Tool for Sample {
    const NAME: &'static str = "sample";
    const SCHEMA: &'static str = sample_schema!();
    fn parse(arguments: Option<RawJson<'_>>) -> Result<Self, BadArguments<'_>> {
        static SPEC: [Arg; 2] = [
            Arg {
                default: Some(0),
                ..CHANNEL
            },
            Arg {
                name: "count",
                ty: Type::Integer { min: 1, max: 16 },
                default: None,
            },
        ];
        let [channel, count] = read(arguments, &SPEC)?;
        Ok(Self {
            channel: channel as u8,
            count: count as u8,
        })
    }
    #[cfg(test)]
    fn value(&self, name: &str) -> Option<i64> {
        match name {
            "channel" => Some(i64::from(self.channel)),
            "count" => Some(i64::from(self.count)),
            _ => None,
        }
    }
}

/// The server's name and version, as `_meta` carries them in every result that is a
/// document ([`TOOLS_LIST`], [`DISCOVER`]).
macro_rules! server_info {
    () => {
        r#"{"name":"jsonrpc-slice-firmware","version":"0.0.0"}"#
    };
}

/// The server's name, as [`server_info`] has it (a tool result writes it member by
/// member; the schema test checks the two agree).
pub const SERVER_NAME: &str = "jsonrpc-slice-firmware";
/// The server's version, likewise.
pub const SERVER_VERSION: &str = "0.0.0";

/// `_meta` with the server's identity (2026-07-28: servers SHOULD put it in every
/// result); the test's reference for what a tool result writes.
#[cfg(test)]
pub const SERVER_INFO_META: &str = concat!(
    r#"{"io.modelcontextprotocol/serverInfo":"#,
    server_info!(),
    "}"
);

/// The `tools/list` result, one document for both revisions: 2026-07-28's
/// `resultType`, `ttlMs` and `cacheScope` are members a 2025-11-25 client ignores
/// (its `Result` allows any). The list never changes: a day's `ttlMs`.
pub const TOOLS_LIST: &str = concat!(
    r#"{"resultType":"complete","tools":["#,
    r#"{"name":"read_sensor","title":"Read a sensor","description":"One conversion of an ADC input: its 10-bit value (0 to 1023).","inputSchema":"#,
    read_sensor_schema!(),
    r#","annotations":{"readOnlyHint":true}},"#,
    r#"{"name":"set_led","title":"Set the LED","description":"Turns the board's status LED (PF0) on or off; answers the pin's state read back.","inputSchema":"#,
    set_led_schema!(),
    r#","annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},"#,
    r#"{"name":"sample","title":"Sample a sensor","description":"Several conversions of one ADC input: their minimum, maximum and mean. Sends a progress notification after each when asked for progress.","inputSchema":"#,
    sample_schema!(),
    r#","annotations":{"readOnlyHint":true}}"#,
    r#"],"ttlMs":86400000,"cacheScope":"public","_meta":"#,
    r#"{"io.modelcontextprotocol/serverInfo":"#,
    server_info!(),
    "}}"
);

/// The protocol revisions served: 2026-07-28 (stateless, `_meta` on every request)
/// and 2025-11-25 (the `initialize` handshake).
pub const MODERN: &str = "2026-07-28";
/// The one handshake revision served.
pub const LEGACY: &str = "2025-11-25";

/// The `server/discover` result (2026-07-28).
pub const DISCOVER: &str = concat!(
    r#"{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"#,
    r#""capabilities":{"tools":{"listChanged":false}},"#,
    r#""instructions":"A Cortex-M3 board: read_sensor and sample read its ADC, set_led drives its LED.","#,
    r#""ttlMs":86400000,"cacheScope":"public","_meta":"#,
    r#"{"io.modelcontextprotocol/serverInfo":"#,
    server_info!(),
    "}}"
);

/// The `initialize` result (2025-11-25), whatever version the client asked for: the
/// one handshake revision served.
pub const INITIALIZE: &str = concat!(
    r#"{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false}},"serverInfo":"#,
    server_info!(),
    r#","instructions":"A Cortex-M3 board: read_sensor and sample read its ADC, set_led drives its LED."}"#
);
