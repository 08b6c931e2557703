//! A typed batch against the `http-node` example: `eth_chainId`, `eth_blockNumber` and
//! the balance of `0x…aa`, in one message, each call with its own typed handle and a
//! deadline, over HTTP or WebSocket.
//!
//! ```sh
//! cargo run --example http-node -- --addr 127.0.0.1:8545 &
//! cargo run --example node-client -- --url http://127.0.0.1:8545   # or ws://127.0.0.1:8545
//! # chain_id=1337 block=16 balance=1000000000000000000
//! ```

use std::time::{Duration, Instant};

use jsonrpc_slice::client::{Call, Handle};
use jsonrpc_slice::http::RemoteClient;
use jsonrpc_slice::RawJson;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = match std::env::args().collect::<Vec<_>>().as_slice() {
        [_, flag, url] if flag == "--url" => url.clone(),
        _ => return Err("usage: node-client --url http://HOST:PORT (or ws://)".into()),
    };
    let mut node: RemoteClient = RemoteClient::connect(&url).await?;
    let deadline = Instant::now() + Duration::from_secs(5);
    let call = |method| Call::new(method).deadline(deadline);
    let aa = RawJson::new(br#"["0x00000000000000000000000000000000000000aa","latest"]"#)?;
    let (chain_id, block, balance) = node
        .send_batch(|b| {
            Ok((
                b.call(call("eth_chainId"), ())?,
                b.call(call("eth_blockNumber"), ())?,
                b.call(call("eth_getBalance"), aa)?,
            ))
        })
        .await?;
    // Each result is a hex quantity ("0x539"): taken as a string, read as a number.
    let mut quantity = |h: Handle<&str>| match node.client().take(&h) {
        Some(Ok(hex)) => {
            u64::from_str_radix(hex.trim_start_matches("0x"), 16).map_err(|e| e.to_string())
        }
        Some(Err(e)) => Err(e.to_string()),
        None => Err("no reply".to_string()),
    };
    let (chain_id, block, balance) = (quantity(chain_id)?, quantity(block)?, quantity(balance)?);
    println!("chain_id={chain_id} block={block} balance={balance}");
    Ok(())
}
