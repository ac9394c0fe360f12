import type {ChildProcess} from 'node:child_process';
import {userCommand} from '../format/command-line.js';
import {printable} from '../format/printable.js';
import {releasePipes, spawnInOwnGroup, sweepGroup, terminateGroup, waitForExit} from '../system/process-group.js';
import type {Notice, NoticeSink, SinkTrouble} from './notice.js';
import {noticeBody} from './notice-body.js';
import {QUEUE_LIMIT, serialQueue} from './serial-queue.js';
import {type TroubleLedger, troubleLedger} from './trouble-once.js';

// `--notify-command`: the user's command, run by /bin/sh once per notice with the notice as one JSON line on stdin.
// It must never hurt the monitor: it runs beside it (send never waits), one at a time so that a slow `mail` is not
// started a hundred times over, and one that hangs is killed with everything it started after the timeout.

/** What stderr is kept of a failing command, for the one message that says it failed. */
const STDERR_KEPT = 2048;
/** After SIGTERM, how long a command has to end before SIGKILL. */
const KILL_GRACE_MS = 1000;
/** After the shell exits, how long its pipes may stay open before a leftover in its group is killed. */
const SWEEP_GRACE_MS = 100;

type CommandTrouble = 'failed' | 'timeout' | 'start' | 'dropped';

export function commandSink(
	command: string,
	options: {readonly timeoutS: number; readonly trouble: SinkTrouble},
): NoticeSink {
	const shown = userCommand(command);
	const ledger = troubleLedger<CommandTrouble>('command', options.trouble);
	const later = 'later ones are counted, not said';

	async function run(notice: Notice): Promise<void> {
		const outcome = await runOnce(command, `${JSON.stringify(noticeBody(notice))}\n`, options.timeoutS * 1000);
		if (outcome.kind === 'ok') return;
		if (outcome.kind === 'timeout')
			ledger.note(
				'timeout',
				() =>
					`command \`${shown}\` still ran after ${options.timeoutS} s and was killed with what it started; ${later}`,
			);
		else if (outcome.kind === 'start')
			ledger.note('start', () => `command \`${shown}\` could not be started: ${printable(outcome.detail)}; ${later}`);
		else
			ledger.note('failed', () => {
				const said = outcome.stderr.trim() === '' ? '' : `: ${printable(outcome.stderr.trim())}`;
				return `command \`${shown}\` ${outcome.detail}${said}; ${later}`;
			});
	}

	const queue = serialQueue(run, (count, why) =>
		ledger.note(
			'dropped',
			() =>
				why === 'full'
					? `command \`${shown}\` fell behind: notices waited beyond ${QUEUE_LIMIT} and the oldest were dropped; ${later}`
					: `command \`${shown}\`: ${count} notice(s) not run, traintop was ending`,
			count,
		),
	);

	return {
		name: 'command',
		send(notice) {
			queue.push(notice);
		},
		async close() {
			await queue.close();
			const summary = summaryOf(ledger);
			if (summary !== null) {
				try {
					options.trouble('command', `command \`${shown}\`: ${summary}`);
				} catch {
					// As in the ledger: the printer's trouble is not the sink's.
				}
			}
		},
	};
}

/** The count of each kind that happened again after it was said; null when nothing did. */
function summaryOf(ledger: TroubleLedger<CommandTrouble>): string | null {
	const words: Record<CommandTrouble, string> = {
		failed: 'runs failed',
		timeout: 'runs killed after the timeout',
		start: 'runs could not start',
		dropped: 'notices dropped',
	};
	const counts = ledger.counts();
	const parts = (Object.keys(words) as CommandTrouble[])
		.filter(kind => ledger.unsaid(kind))
		.map(kind => `${counts[kind]} ${words[kind]}`);
	return parts.length === 0 ? null : `in all, ${parts.join(', ')}`;
}

type Outcome =
	| {readonly kind: 'ok'}
	| {readonly kind: 'timeout'}
	| {readonly kind: 'start'; readonly detail: string}
	| {readonly kind: 'failed'; readonly detail: string; readonly stderr: string};

/** One run of `command` with `input` on stdin; never rejects, and its whole process group is gone when it resolves. */
async function runOnce(command: string, input: string, timeoutMs: number): Promise<Outcome> {
	let child: ChildProcess;
	try {
		// Its own group, watched by the orphan reaper from its first moment: a traintop killed while it hangs must not
		// leave it behind.
		child = spawnInOwnGroup('/bin/sh', ['-c', command], process.env, {stdin: 'pipe', stdout: 'ignore'});
	} catch (error) {
		return {kind: 'start', detail: error instanceof Error ? error.message : String(error)};
	}
	let stderr = '';
	child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
		if (stderr.length < STDERR_KEPT) stderr = (stderr + chunk).slice(0, STDERR_KEPT);
	});
	if (child.pid === undefined) {
		// No process: spawn reports why on 'error', in the same turn of the loop or the next.
		const why = await new Promise<string>(resolve => child.once('error', error => resolve(error.message)));
		releasePipes(child);
		return {kind: 'start', detail: why};
	}
	child.on('error', () => {});
	child.stdin?.end(input);

	const exited = await waitForExit(child, timeoutMs);
	if (!exited) {
		// Ended: the group is swept and off the reaper's list. Not ended even by SIGKILL (state D): it stays on the list,
		// and only our ends of its pipes are let go, so that it cannot hold the sink.
		if (!(await terminateGroup(child, KILL_GRACE_MS))) child.stderr?.destroy();
		child.stdin?.destroy();
		return {kind: 'timeout'};
	}
	await sweepGroup(child, SWEEP_GRACE_MS);
	child.stdin?.destroy();
	if (child.exitCode === 0) return {kind: 'ok'};
	const detail =
		child.exitCode !== null ? `exited with code ${child.exitCode}` : `was ended by ${child.signalCode ?? 'a signal'}`;
	return {kind: 'failed', detail, stderr};
}
