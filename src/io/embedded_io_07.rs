//! `embedded-io` 0.7 adapters (features `embedded-io-07`, `embedded-io-async-07`):
//! the same serve loops as `embedded_io` (0.6), over the 0.7 traits.

crate::io::embedded_io_adapters!(
    embedded_io_07,
    "embedded-io-07",
    embedded_io_async_07,
    "embedded-io-async-07",
    "0.7"
);
