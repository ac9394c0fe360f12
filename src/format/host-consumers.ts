import type {HostConsumer, HostConsumers} from '../core/memory-types.js';
import {printable} from './printable.js';
import {formatBytes} from './units.js';

// The host's top consumers that are not the job, in words: `not the job: 30.1 GiB nobody python3 hog.py`, as htop
// users read a process list (size, user, command).

/** Its size: PSS, else RSS marked so (another user's smaps_rollup is unreadable without root). */
function size(c: HostConsumer): string {
	if (c.pssBytes !== null) return formatBytes(c.pssBytes);
	return c.rssBytes === null ? '?' : `${formatBytes(c.rssBytes)} RSS`;
}

/** `30.1 GiB nobody python3 hog.py`; printable again, as it may come from another node's agent; `cmdMax`: cut there. */
function hostConsumerText(c: HostConsumer, cmdMax = Number.POSITIVE_INFINITY): string {
	const cmd = printable(c.cmd);
	return `${size(c)} ${printable(c.user)} ${cmd.length > cmdMax ? `${cmd.slice(0, cmdMax - 1)}…` : cmd}`;
}

/** A command's share of the headless line, which names three of them (the JSON has each whole). */
const LINE_CMD_MAX = 60;

/** A line each, largest first: `not the job: 30.1 GiB nobody python3 hog.py`. */
export function hostConsumerLines(consumers: HostConsumers | null | undefined): string[] {
	return consumers ? consumers.top.map(c => `not the job: ${hostConsumerText(c)}`) : [];
}

/** The headless line: the largest three with their pids. */
export function hostConsumersLine(consumers: HostConsumers): string {
	if (consumers.top.length === 0) return `RAM short; no process but the job's holds memory (${consumers.scanned} read)`;
	const shown = consumers.top.slice(0, 3).map(c => `${hostConsumerText(c, LINE_CMD_MAX)} (pid ${c.pid})`);
	return `RAM short; largest not the job's: ${shown.join(', ')}`;
}

/** As `--json` and the headless stream write it. */
export function hostConsumersJson(consumers: HostConsumers): Record<string, unknown> {
	return {
		sampled_at: new Date(consumers.sampledAt).toISOString(),
		scanned: consumers.scanned,
		top: consumers.top.map(c => ({pid: c.pid, user: c.user, cmd: c.cmd, pss_bytes: c.pssBytes, rss_bytes: c.rssBytes})),
	};
}
