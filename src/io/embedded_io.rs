//! `embedded-io` 0.6 (features `embedded-io`, `embedded-io-async`): serve a framed
//! byte stream from a UART or any `Read` + `Write` object, or a reader and a writer
//! as a [`Split`], blocking ([`serve`]) or async (`serve_async`). The loops are
//! [`Service`](crate::service::Service)'s; the same for 0.7 is in `io::embedded_io_07`.
//!
//! ```
//! use jsonrpc_slice::io::embedded_io::{serve, Split};
//! use jsonrpc_slice::frame::newline::LineAccumulator;
//! use jsonrpc_slice::service::Service;
//! use jsonrpc_slice::{demo, Server};
//!
//! static SERVER: Server<()> = Server::new(demo::TABLE);
//! let mut framer = LineAccumulator::<256>::new();
//! let (mut chunk, mut output) = ([0u8; 64], [0u8; 256]);
//! let mut service = Service::new(&SERVER, &mut framer, &mut chunk, &mut output);
//! // `&[u8]` reads and `&mut [u8]` writes, in embedded-io too.
//! let mut input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1,2],\"id\":1}";
//! let mut wire = [0u8; 64];
//! let mut writer: &mut [u8] = &mut wire;
//! serve(&mut service, &mut (), &mut Split(&mut input, &mut writer)).unwrap();
//! let left = writer.len();
//! assert_eq!(&wire[..64 - left], b"{\"jsonrpc\":\"2.0\",\"result\":3,\"id\":1}\n");
//! ```

crate::io::embedded_io_adapters!(
    embedded_io,
    "embedded-io",
    embedded_io_async,
    "embedded-io-async",
    "0.6"
);
