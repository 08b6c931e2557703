#!/usr/bin/env python3
# The README's performance table from the CSV of benches/instructions.sh --csv FILE:
#   python3 benches/readme_table.py docs/perf/instructions.csv
import csv,sys
labels={'01':'01 small positional request','02':'02 named notification','03':'03 eth_call','04':'04 MCP tools/call','05':'05 LSP didChange, escapes','06':'06 batch of 10','07':'07 1 KiB response','08':'08 64 KiB params','09':'09 web3.py request (spaces)','10':'10 ethers.js request (jsonrpc last)','11':'11 LSP didChange, source text','12':'12 MCP tools/call, long text','reply':'reply: 01 answered end to end'}
rows=list(csv.DictReader(open(sys.argv[1])))
f=lambda x:f"{round(float(x)):,}"
print('| message | bytes | jsonrpc-slice | no `std` | serde_json | sonic-rs | jsonrpsee-types | simd-json | best baseline ÷ jsonrpc-slice |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for r in rows:
    k=r['message'][:2] if r['message']!='reply' else 'reply'
    base=[float(r[b]) for b in ['serde_json','sonic-rs','jsonrpsee-types','simd-json']]
    s=float(r['jsonrpc-slice'])
    print(f"| {labels[k]} | {f(r['bytes'])} | **{f(s)}** | {f(r['jsonrpc-slice no std'])} | "+' | '.join(f(b) for b in base)+f" | {min(base)/s:{'.2f' if min(base)/s < 1.1 else '.1f'}}× |")
