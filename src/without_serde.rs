//! What a build without the `serde` feature says to code that asks for typed params:
//! the compile error names the feature, rather than "no method named `decode`".
//!
//! The methods here have the names and shapes of the typed ones, bounded by a trait no
//! type implements, so a call fails to compile with that trait's message. Nothing here
//! is ever instantiated: no code in the build.

use crate::error::RpcError;
use crate::params::Params;
use crate::raw::RawJson;

mod sealed {
    /// Implemented by no type.
    pub trait Never {}
}

/// Implemented by no type: the bound of the typed methods without the `serde` feature.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "typed params need the `serde` feature of jsonrpc-slice",
    label = "`{Self}` cannot be decoded without it",
    note = "in Cargo.toml: jsonrpc-slice = {{ version = \"...\", features = [\"serde\"] }}",
    note = "without it, read the params as they are: `Params::positional`, `Params::named`, `RawJson::get`"
)]
pub trait TypedParamsNeedTheSerdeFeature: sealed::Never {
    /// A value no caller reaches (no type implements the trait).
    fn unreachable() -> Self;
}

macro_rules! typed_without_serde {
    ($($t:ty),*) => {$(
        #[doc(hidden)]
        impl<'a> $t {
            /// Needs the `serde` feature.
            #[doc(hidden)]
            pub fn decode<T: TypedParamsNeedTheSerdeFeature>(&self) -> Result<T, RpcError<'a>> {
                Ok(T::unreachable())
            }

            /// Needs the `serde` feature.
            #[doc(hidden)]
            pub fn decode_with_scratch<T: TypedParamsNeedTheSerdeFeature>(
                &self,
                _: &mut [u8],
            ) -> Result<T, RpcError<'a>> {
                Ok(T::unreachable())
            }
        }
    )*};
}

typed_without_serde!(Params<'a>, RawJson<'a>);

/// Needs the `serde` feature: the compile error says so.
#[doc(hidden)]
#[macro_export]
macro_rules! typed_handler {
    ($($anything:tt)*) => {
        ::core::compile_error!(
            "typed_handler! needs the `serde` feature of jsonrpc-slice: in Cargo.toml, \
             jsonrpc-slice = { version = \"...\", features = [\"serde\"] }"
        );
    };
}
