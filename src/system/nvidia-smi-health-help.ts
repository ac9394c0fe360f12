import type {ChildProcess} from 'node:child_process';
import {HEALTH_ITEMS, type HealthField} from './nvidia-smi-health-cells.js';
import type {ChildGroups} from './nvidia-smi-processes.js';
import {releasePipes, spawnInOwnGroup, waitForOutputEnd} from './process-group.js';

// Which health fields this driver knows, asked once when the device loop starts: `nvidia-smi --help-query-gpu` lists
// every field it answers, one `"name"` (or `"name" or "alias"`) a line. A driver refuses a WHOLE query for one field
// it does not know, so only the listed ones are asked for; the throttle reasons by their newest name the driver lists
// (`clocks_event_reasons.*` from driver 535 on, `clocks_throttle_reasons.*` before). A help that fails, hangs or says
// nothing usable means no health fields at all: the memory figures never wait or fail for health.

/** The field names a `--help-query-gpu` text lists: each quoted name at the start of a line, aliases included. */
export function fieldsInHelp(help: string): Set<string> {
	const names = new Set<string>();
	for (const line of help.split('\n')) {
		if (!line.startsWith('"')) continue;
		for (const match of line.matchAll(/"([A-Za-z0-9_.]+)"/g)) if (match[1] !== undefined) names.add(match[1]);
	}
	return names;
}

/** The health fields to ask a driver whose help lists `known`, in the loop's order. */
export function healthFieldsFor(known: ReadonlySet<string>): HealthField[] {
	return HEALTH_ITEMS.flatMap(names => {
		const name = names.find(candidate => known.has(candidate));
		return name === undefined ? [] : [name];
	});
}

/** The H200's help is 40 KiB; more than this is not a help text. */
const MAX_HELP_BYTES = 1024 * 1024;
/** After 'exit', how long the last output may take to come out of the pipe. */
const DRAIN_MS = 100;

export interface HealthHelpOptions {
	readonly command: string;
	readonly env: NodeJS.ProcessEnv | undefined;
	readonly timeoutMs: number;
	/** The reader's child groups: its stop() and killNow() end this one-shot too. */
	readonly groups: ChildGroups;
}

/** Runs `--help-query-gpu` once; resolves to the health fields to ask for ([] on any failure). Never rejects. */
export function askHealthFields(options: HealthHelpOptions): Promise<HealthField[]> {
	let child: ChildProcess;
	try {
		child = spawnInOwnGroup(options.command, ['--help-query-gpu'], options.env);
	} catch {
		return Promise.resolve([]);
	}
	options.groups.track(child);
	return new Promise(resolve => {
		const chunks: Buffer[] = [];
		let bytes = 0;
		let done = false;
		const finish = (fields: HealthField[], end: 'ended' | 'terminate'): void => {
			if (done) return;
			done = true;
			clearTimeout(timer);
			if (end === 'terminate') void options.groups.terminate(child);
			resolve(fields);
		};
		const timer = setTimeout(() => finish([], 'terminate'), options.timeoutMs);
		child.stdout?.on('data', (chunk: Buffer) => {
			bytes += chunk.length;
			if (bytes > MAX_HELP_BYTES) finish([], 'terminate');
			else if (!done) chunks.push(chunk);
		});
		// `on`, not `once`: a second 'error' without a listener would be thrown at traintop. Not found: the loop's
		// own start says so (absent), with nothing asked here.
		child.on('error', () => {
			options.groups.forget(child);
			finish([], 'ended');
		});
		child.once('exit', (code, signal) => {
			void waitForOutputEnd(child, DRAIN_MS).then(closed => {
				if (closed) {
					options.groups.forget(child);
					releasePipes(child);
				} else {
					void options.groups.terminate(child);
				}
				const ok = code === 0 && signal === null;
				finish(ok ? healthFieldsFor(fieldsInHelp(Buffer.concat(chunks).toString('utf8'))) : [], 'ended');
			});
		});
	});
}
