import type {JobEvent, SignalState} from '../core/types.js';
import {formatDuration} from '../format/duration.js';
import {printable} from '../format/printable.js';
import {schedulerVariablesText} from '../format/jobs.js';
import {LEVEL_TAG} from '../format/levels.js';
import {columns} from '../format/columns.js';
import {wrapText, wrapWords} from '../format/wrap-text.js';
import {type SignalHandling, signalHandling, signalMark} from '../format/signals.js';
import {localTime, localTimeShort} from '../format/time.js';
import {formatBytes, formatPercent} from '../format/units.js';
import type {RankDetail} from '../ranks/detail.js';
import type {RankSample} from '../core/rank-history.js';
import {rankHistoryLines} from './rank-history-lines.js';

// The rank detail box's text: what ranks/detail.ts read, in lines no wider than the box. Nothing is
// cut: a long command line or path is what the user opened the detail to read, so it wraps instead.

/** `rank 3 · pid 4242 · job torchrun:9999`; `rank ?` for a --match process without rank variables. */
export function detailTitle(rank: {readonly rank: number | null; readonly pid: number; readonly job: string}): string {
	return `rank ${rank.rank ?? '?'} · pid ${rank.pid} · job ${printable(rank.job)}`;
}

/** Columns of the labels (`command`, `cwd`…): values line up after them, and wrap back to them. */
const LABEL = 10;
/** Items of a section (a variable, a signal, a worker, an event) are indented this much. */
const ITEM = '  ';

/** The characters `$'…'` writes as a backslash and a letter. */
const ESCAPES: Readonly<Record<string, string>> = {'\n': '\\n', '\t': '\\t', '\r': '\\r', '\\': '\\\\', "'": "\\'"};

/**
 * An argument as a shell would need it: plain words as they are, anything else in single quotes, and one
 * holding a newline or another control character (a `python -c` script) as `$'…'`: one line, and a line
 * of the box must never hold a newline.
 */
export function shellWord(arg: string): string {
	if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
	// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
	if (!/[\x00-\x1f\x7f]/.test(arg)) return `'${arg.replaceAll("'", `'\\''`)}'`;
	const escaped = [...arg].map(c => {
		const named = ESCAPES[c];
		if (named !== undefined) return named;
		const code = c.codePointAt(0)!;
		return code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : c;
	});
	return `$'${escaped.join('')}'`;
}

/** `label     value`, the value wrapped under itself. */
function field(label: string, value: string, width: number): string[] {
	return wrapText(label.padEnd(LABEL) + value, width, ' '.repeat(LABEL));
}

/** One item of a section, wrapped under itself. */
function item(text: string, width: number): string[] {
	return wrapText(`${ITEM}${text}`, width, ITEM.repeat(2));
}

const STATE_WORDS: Readonly<Record<string, string>> = {
	R: 'running',
	S: 'sleeping',
	D: 'disk sleep (uninterruptible)',
	Z: 'zombie (exited, not yet reaped)',
	T: 'stopped (SIGSTOP, SIGTSTP)',
	t: 'stopped by a debugger',
	I: 'idle',
	X: 'dead',
};

/** `S sleeping, stalled (no CPU time for the stall window)`. */
function stateWords(detail: RankDetail): string {
	const words = STATE_WORDS[detail.state];
	const state = words ? `${detail.state} ${words}` : detail.state;
	return detail.stalled ? `${state}, stalled (no CPU time for the stall window)` : state;
}

const HANDLING_WORDS: Readonly<Record<SignalHandling, string>> = {
	handled: 'handled',
	ignored: 'ignored',
	kills: 'no handler: the signal kills',
	harmless: 'no handler, harmless',
};

/** The words behind a signal's mark (format/signals.ts's legend, one signal at a time). */
export function signalWords(state: SignalState): string {
	const base = HANDLING_WORDS[signalHandling(state)];
	const blocked = state.blocked ? ' · blocked: delivery waits until it is unblocked' : '';
	return `${base}${blocked}${state.pending ? ' · pending: sent, not yet delivered' : ''}`;
}

function variableLines(detail: RankDetail, width: number): string[] {
	if (detail.variables === null && detail.scanOnly)
		return item("not in the last scan: its node's agent reads them", width);
	if (detail.variables === null) return item("not readable: the environment of another user's process", width);
	if (detail.variables.length === 0)
		return item(
			`none of ${['RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'MASTER_ADDR', ...schedulerVariablesText()].join(', ')} is set`,
			width,
		);
	const name = Math.max(...detail.variables.map(v => v.name.length)) + 2;
	return detail.variables.flatMap(v =>
		wrapText(`${ITEM}${v.name.padEnd(name)}${v.value}`, width, ' '.repeat(ITEM.length + name)),
	);
}

function signalLines(detail: RankDetail, width: number): string[] {
	const entries = Object.entries(detail.signals);
	if (entries.length === 0) return item('not read', width);
	const name = Math.max(...entries.map(([signal]) => signal.length)) + 2;
	return entries.flatMap(([signal, state]) =>
		wrapText(
			`${ITEM}${signal.padEnd(name)}${signalMark(state).padEnd(4)}${signalWords(state)}`,
			width,
			' '.repeat(ITEM.length + name + 4),
		),
	);
}

function workerLines(detail: RankDetail, width: number): string[] {
	if (detail.workers.length === 0) return item('none (no DataLoader worker or other process carrying its rank)', width);
	const pid = Math.max(...detail.workers.map(w => String(w.pid).length));
	return detail.workers.flatMap(w => {
		const what = w.gone ? 'gone since the last scan' : `RSS ${formatBytes(w.rssBytes)}`;
		return wrapText(`${ITEM}pid ${String(w.pid).padEnd(pid)}  ${what}`, width, ITEM.repeat(2));
	});
}

function eventLines(detail: RankDetail, events: readonly JobEvent[], width: number): string[] {
	const own = events.filter(e => e.pid === detail.pid);
	if (own.length === 0) return item('none among the recent events (exits, stops, stalls)', width);
	return own.flatMap(e => {
		const head = `${ITEM}${localTimeShort(e.time, detail.readAt)} ${LEVEL_TAG[e.level]} `;
		return wrapText(`${head}${e.text}`, width, ' '.repeat(columns(head)));
	});
}

/**
 * The detail box's lines, `width` columns at most: the rank's state and resources, its command line
 * and cwd whole, its RSS and CPU over time (`history`, the Monitor's samples of it), its GPU memory per device
 * (`gpus`, rank-gpu-lines.ts), its launch variables
 * (those set), its signals, its workers and its recent events (`events` is the snapshot's recentEvents: this
 * rank's are picked by pid).
 */
export function rankDetailLines(
	detail: RankDetail,
	events: readonly JobEvent[],
	width: number,
	history: readonly RankSample[] = [],
	gpus: readonly string[] = [],
): string[] {
	const resources = [
		`CPU ${formatPercent(detail.cpuPercent)}`,
		`RSS ${formatBytes(detail.rssBytes)}`,
		`GPU ${detail.gpuMemoryBytes === null ? 'unknown' : formatBytes(detail.gpuMemoryBytes)}`,
	].join(' · ');
	const running = formatDuration((detail.readAt - detail.startedAt) / 1000);
	// Wrapped between arguments, so that a quoted one is not cut at its own blanks.
	const command = wrapWords(['command'.padEnd(LABEL - 1), ...detail.argv.map(shellWord)], width, ' '.repeat(LABEL));
	// Only the last scan (the rank's node could not be asked): said first, so that nobody takes it for /proc's.
	const scanOnly = detail.scanOnly === undefined ? [] : [...wrapText(detail.scanOnly, width), ''];
	const notExact = detail.scanOnly
		? "(the last scan's, split at blanks)"
		: "(the last scan's: /proc/PID/cmdline could not be read)";
	// argv, cwd, launch variables, the host and event text come from another process or a remote agent: every line is
	// made printable (shellWord already quotes C0 controls; C1 and bidirectional controls are caught here).
	return [
		...scanOnly,
		...field('state', stateWords(detail), width),
		...field('usage', resources, width),
		...field('started', `${localTime(detail.startedAt)} (running ${running})`, width),
		...field('host', detail.host, width),
		...command,
		...(detail.argvExact ? [] : field('', notExact, width)),
		...field('cwd', detail.cwd ?? (detail.scanOnly ? 'not in the last scan' : 'not readable'), width),
		// Said once, so that nobody waits for these numbers to move.
		...field('read at', `${localTime(detail.readAt)}; reopen the detail for newer numbers`, width),
		'',
		'Launch variables',
		...variableLines(detail, width),
		'',
		'Signals',
		...signalLines(detail, width),
		'',
		...rankHistoryLines(history, width),
		'',
		...(gpus.length > 0 ? [...gpus, ''] : []),
		`Workers (${detail.workers.length})`,
		...workerLines(detail, width),
		'',
		'Recent events',
		...eventLines(detail, events, width),
	].map(printable);
}
