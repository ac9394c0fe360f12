import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {PROTOCOL} from '../../src/agent/protocol.js';
import {wireSnapshot} from '../../src/agent/wire-snapshot.js';
import type {JobEvent, Snapshot} from '../../src/core/types.js';

// An agent link that says its hello and one snapshot, then waits for its stdin to close as an agent does: a child
// process speaking the agent protocol, for tests of what the viewer makes of many nodes' reports.

/** A job event as an agent reports it: a rank's exit names rank 0, any other event the job. */
export function agentEvent(kind: JobEvent['kind'], job: string, text: string, time: number): JobEvent {
	return {time, kind, job, rank: kind === 'rank-exited' ? 0 : null, pid: null, level: 'warn', text};
}

/** The connection for `host`'s agent: its hello (sampling every `intervalMs`) and `snapshot`, from a file in `dir`. */
export function scriptedAgent(dir: string, host: string, snapshot: Snapshot, intervalMs: number) {
	const now = snapshot.time;
	const hello = {
		kind: 'hello',
		protocol: PROTOCOL,
		host,
		version: '0.1.0',
		pid: 4000,
		clock: now,
		interval_ms: intervalMs,
	};
	const message = {kind: 'snapshot', host, snapshot: wireSnapshot(snapshot, null)};
	const file = path.join(dir, `${host}.jsonl`);
	writeFileSync(file, `${JSON.stringify({...hello, run_dir: null})}\n${JSON.stringify(message)}\n`);
	return {nodes: [host], argv: ['sh', '-c', `cat '${file}'; exec cat >/dev/null`]};
}
