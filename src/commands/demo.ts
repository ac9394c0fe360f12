import {mkdtemp} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import {startDemoJob} from '../demo/job.js';
import {logPathFrom} from '../session/log-path.js';
import {runMonitor} from './monitor.js';
import {traintopCommand} from './user-command.js';

// `traintop demo`: the simulated job and the monitor on it, in one command, for a first look. The
// job is torchrun-shaped (a launcher and 4 ranks with DataLoader-like workers), saves every ~20 s,
// leaks RAM slowly on rank 1, and rank 3 has no SIGUSR1 handler so the refusal path shows. However
// traintop ends (q, Ctrl-C, SIGTERM, a closed terminal), the job is stopped; and should traintop be
// killed outright, the job stops by itself when its parent is gone (exitWithParent).

export interface DemoOptions {
	readonly settings: Settings;
	/** The command line's flags: the monitor reads --headless and friends from them. */
	readonly flags: Readonly<Record<string, unknown>>;
	readonly json: boolean;
	readonly stderr: Writable;
	readonly exitNow: () => void;
}

/** The demo job's shape; the README and the tests describe the same. */
const DEMO_JOB = {
	ranks: 4,
	workers: 2,
	stepSeconds: 0.2,
	saveEvery: 100,
	maxCheckpoints: 3,
	noUsr1Ranks: [3],
	leakMbPerMin: 20,
	leakRanks: [1],
} as const;

export async function runDemoCommand(o: DemoOptions): Promise<number> {
	const runDir = await mkdtemp(path.join(tmpdir(), 'traintop-demo-'));
	const say = (text: string) => o.stderr.write(`traintop demo: ${text}\n`);
	say(`starting a demo job (${DEMO_JOB.ranks} ranks) in ${runDir}…`);
	const job = await startDemoJob({
		...DEMO_JOB,
		noUsr1Ranks: [...DEMO_JOB.noUsr1Ranks],
		leakRanks: [...DEMO_JOB.leakRanks],
		runDir,
		shutdownTimeoutS: 5,
		exitWithParent: true,
	});
	// A first memory-log record after 5 s rather than 30, so `a` has something to show soon.
	const settings: Settings = o.flags.logInterval === undefined ? {...o.settings, logInterval: 5} : o.settings;
	let code: number;
	try {
		await job.ranksReady();
		code = await runMonitor({
			input: [runDir],
			flags: o.flags,
			settings,
			given: {},
			localOnly: true,
			json: o.json,
			selector: {kind: 'pid', pid: job.launcherPid},
			exitNow: o.exitNow,
		});
	} finally {
		const exit = await job.stop();
		say(
			`stopped the demo job (launcher exit ${exit ?? job.exitSignal() ?? '?'}: its ranks saved an emergency checkpoint on the way out).`,
		);
	}
	const log = logPathFrom(settings, runDir);
	say(`its run dir (kept): ${runDir}`);
	// As the user can type it here: `npx traintop` in a clone, `traintop` once installed.
	const traintop = traintopCommand();
	say(`look again: ${traintop} checkpoints ${runDir}${log ? ` · ${traintop} --analyze ${log}` : ''}`);
	return code;
}
