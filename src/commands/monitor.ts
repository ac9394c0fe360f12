import {existsSync, statSync} from 'node:fs';
import {UsageError} from '../core/errors.js';
import type {Settings, SettingsInput} from '../config/schema.js';
import {EXIT} from '../core/errors.js';
import type {RankSelector} from '../ranks/tree.js';
import {selectedJob} from '../scheduler/registry.js';
import {openSession, type Session} from '../session/session.js';
import {fleetPlan, wantsAgents} from './fleet-connections.js';
import {runDirFrom} from './run-dir.js';
import {stopOnSignals} from './stop-signals.js';

export interface MonitorOptions {
	/** Positional arguments: at most one RUN_DIR. */
	readonly input: readonly string[];
	readonly flags: Readonly<Record<string, unknown>>;
	readonly settings: Settings;
	/** What the user set (not defaults): a cluster.yaml node's GPU reserve factors give way to theirs. */
	readonly given: Pick<SettingsInput, 'gpuThreshold' | 'gpuThresholds'>;
	/** This machine's node whatever the flags say (the demo watches its own job). */
	readonly localOnly?: boolean;
	readonly json: boolean;
	readonly selector: RankSelector;
	/** Ends the process at once (cli.ts owns process.exit): a second Ctrl-C means "now". */
	readonly exitNow: () => void;
}

/** The session's nodes: this machine's own, or a `traintop agent` per node (--hosts, --cluster, a job's --agents). */
async function sessionFor(options: MonitorOptions, runDir: string | null): Promise<Session> {
	const {flags, settings} = options;
	if (!options.localOnly && wantsAgents(flags))
		return openSession({settings, runDir, ...(await fleetPlan(flags, options.given, settings, runDir))});
	return openSession({settings, runDir, selector: options.selector, scheduledJob: selectedJob(flags)});
}

/**
 * The monitor, one node or many, until q, a signal or a closed pipe stops it: the TUI on a terminal, else (or with
 * --headless / --json) the headless view. The session is built once and handed to the view; this command owns the
 * process around it: signals, the exit hook, the last words on stderr.
 */
export async function runMonitor(options: MonitorOptions): Promise<number> {
	const {flags, json, exitNow} = options;
	const runDir = runDirFrom(options.input);
	const tui = !flags.headless && !json && process.stdout.isTTY === true && process.stdin.isTTY === true;
	const progressFile = options.settings.progressFile;
	if (progressFile !== null && existsSync(progressFile) && statSync(progressFile).isDirectory())
		throw new UsageError(`--progress-file ${progressFile}: a directory; name the log file the job appends to`);
	// --listen binds before the session opens (an address in use is a usage error, nothing started); prom-client is
	// loaded only then.
	const listen = options.settings.listen;
	const exporter = listen ? await (await import('../exporter/start.js')).startExporter(listen, process.stderr) : null;
	const session = await sessionFor(options, runDir);
	exporter?.watch(session);
	if (progressFile !== null && !existsSync(progressFile))
		process.stderr.write(`traintop: --progress-file ${progressFile} does not exist yet: followed once it appears\n`);
	// Said where a person watching the log would look; the TUI's checkpoints pane says it on screen.
	if (!tui && session.kind === 'local' && runDir !== null && !existsSync(runDir))
		process.stderr.write(`traintop: RUN_DIR ${runDir} does not exist yet: waiting for it to appear\n`);
	// However traintop exits, no nvidia-smi and no agent connection may outlive it.
	process.on('exit', () => session.killNow());

	const stop = stopOnSignals(exitNow);
	const terminal = {stdout: process.stdout, stdin: process.stdin, signal: stop};
	try {
		if (tui && session.kind === 'local') {
			const {runTui} = await import('../ui/run-tui.js');
			await runTui(session, terminal);
		} else if (tui && session.kind === 'agents') {
			const {runFleetTui} = await import('../ui/fleet/run-fleet-tui.js');
			await runFleetTui(session, terminal);
		} else {
			const {runHeadless} = await import('../headless/run.js');
			await runHeadless(session, {json, stdout: process.stdout, stderr: process.stderr, signal: stop});
		}
	} finally {
		await exporter?.close();
		// Closing writes the last window to the logs, so a log's trouble is known only after it.
		await session.close();
		if (tui) sayAfterTheScreen(session);
	}
	return EXIT.ok;
}

/** What the TUI could not say on its screen (a log that cannot be written), said once the screen is given back. */
function sayAfterTheScreen(session: Session): void {
	const many = session.kind === 'agents';
	for (const [node, recorder] of session.recorders) {
		const trouble = recorder.trouble.get();
		if (trouble) process.stderr.write(`traintop: ${many ? `${node}: ` : ''}${trouble}\n`);
	}
	if (!many && session.recorder.path) process.stderr.write(`traintop: memory log ${session.recorder.path}\n`);
	if (many && session.logPattern) process.stderr.write(`traintop: memory logs ${session.logPattern}\n`);
}
