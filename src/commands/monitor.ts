import {existsSync} from 'node:fs';
import path from 'node:path';
import {EXIT, UsageError} from '../core/errors.js';
import type {Settings} from '../config/schema.js';
import type {RankSelector} from '../ranks/tree.js';
import {type LocalSession as Session, openSession} from '../session/session.js';
import {slurmJobFromFlags} from '../config/selection.js';
import {existingRunDir} from './checkpoints.js';
import {stopOnSignals} from './stop-signals.js';

/**
 * RUN_DIR, which may not exist yet: `torchrun … & traintop runs/x --pid $!` starts before the job makes its run
 * dir, and the watcher waits for it. Something there that is not a directory is still a usage error.
 */
export function runDirFrom(input: readonly string[]): string | null {
	if (input.length > 1) {
		throw new UsageError(`expected at most one RUN_DIR, got ${input.length}: ${input.join(' ')}`);
	}
	const runDir = input[0];
	if (runDir === undefined) return null;
	return existsSync(runDir) ? existingRunDir(runDir) : path.resolve(runDir);
}

export interface MonitorOptions {
	/** Positional arguments: at most one RUN_DIR. */
	readonly input: readonly string[];
	readonly flags: Readonly<Record<string, unknown>>;
	readonly settings: Settings;
	readonly json: boolean;
	readonly selector: RankSelector;
	/** Ends the process at once (cli.ts owns process.exit): a second Ctrl-C means "now". */
	readonly exitNow: () => void;
}

/**
 * The monitor, until q, a signal or a closed pipe stops it: the TUI on a terminal, else (or with
 * --headless / --json) the headless view. The session is built once and handed to the view; this
 * command owns the process around it: signals, the exit hook, the last words on stderr.
 */
export async function runMonitor({input, flags, settings, json, selector, exitNow}: MonitorOptions): Promise<number> {
	const runDir = runDirFrom(input);
	const tui = !flags.headless && !json && process.stdout.isTTY === true && process.stdin.isTTY === true;
	const session = await openSession({settings, runDir, selector, slurmJob: slurmJobFromFlags(flags.slurmJob)});
	// Said where a person watching the log would look; the TUI's checkpoints pane says it on screen.
	if (!tui && runDir !== null && !existsSync(runDir))
		process.stderr.write(`traintop: RUN_DIR ${runDir} does not exist yet: waiting for it to appear\n`);
	// However traintop exits, no nvidia-smi may outlive it.
	process.on('exit', () => session.killNow());

	const stop = stopOnSignals(exitNow);

	try {
		if (tui) {
			const {runTui} = await import('../ui/run-tui.js');
			await runTui(session, {stdout: process.stdout, stdin: process.stdin, signal: stop});
		} else {
			const {runHeadless} = await import('../headless/run.js');
			await runHeadless(session, {json, stdout: process.stdout, stderr: process.stderr, signal: stop});
		}
	} finally {
		// Closing writes the last window to the log, so the log's trouble is known only after it.
		await session.close();
		if (tui) sayAfterTheScreen(session);
	}
	return EXIT.ok;
}

/** What the TUI could not say on its screen, said once the screen is given back. */
function sayAfterTheScreen(session: Session): void {
	const trouble = session.recorder.trouble.get();
	if (trouble) process.stderr.write(`traintop: ${trouble}\n`);
	if (session.recorder.path) process.stderr.write(`traintop: memory log ${session.recorder.path}\n`);
}
