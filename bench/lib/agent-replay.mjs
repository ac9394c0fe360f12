#!/usr/bin/env node
// A stand-in for ssh that answers as a node's agent by replaying a recorded agent stream (bench/fleet-replay.mjs
// records it from a real `traintop agent` on the demo job): `agent-replay.mjs STREAM [-l U] [-o X]… HOST CMD…`.
// The hello and every snapshot come as HOST, their times moved to now, one line an interval, the recording looped;
// it exits when the viewer closes its stdin, as an agent does.

import {readFileSync} from 'node:fs';
import path from 'node:path';
import {root} from './scenario.mjs';

const [stream, ...args] = process.argv.slice(2);
while (args[0] === '-l' || args[0] === '-o') args.splice(0, 2);
const host = args[0];
const [hello, ...snapshots] = readFileSync(stream, 'utf8')
	.trim()
	.split('\n')
	.map(line => JSON.parse(line.replaceAll('"@HOST@"', JSON.stringify(host))));

/** The epoch-ms fields of a snapshot, as the viewer checks them (agent/wire-values.ts): moved by the same offset. */
const {TIME_KEYS: TIMES} = await import(path.join(root, 'dist/agent/wire-values.js'));
function moved(value, by) {
	if (Array.isArray(value)) return value.map(item => moved(item, by));
	if (value === null || typeof value !== 'object') return value;
	const out = {};
	for (const [key, item] of Object.entries(value))
		out[key] = typeof item === 'number' && TIMES.has(key) ? item + by : moved(item, by);
	return out;
}

const first = snapshots[0].snapshot.time;
const span = snapshots.at(-1).snapshot.time - first + hello.interval_ms;
const start = Date.now();
process.stdout.write(`${JSON.stringify({...hello, clock: start})}\n`);
let next = 0;
setInterval(() => {
	const loop = Math.floor(next / snapshots.length);
	process.stdout.write(`${JSON.stringify(moved(snapshots[next % snapshots.length], start - first + loop * span))}\n`);
	next++;
}, hello.interval_ms);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
