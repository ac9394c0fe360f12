import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {type LaunchedRank, type RankLauncher, startRankLauncher} from './rank-launcher.js';
import {until} from './until.js';

// One rank of a job that saves when signalled (signal-save-job.py), started by its own launcher (rank-launcher.ts:
// traintop never takes its own ancestor for a job's launcher), its working directory the run dir.

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'signal-save-job.py');

export interface SaveJob {
	readonly launcher: RankLauncher;
	readonly rank: LaunchedRank;
	/** Resolves with the name of the next save it reports after `count` saves (`saved NAME` lines). */
	saved(count: number): Promise<string>;
	stop(): Promise<void>;
}

export interface SaveJobSpec {
	/** A directory for the launcher's FIFOs (not the run dir: traintop would look at them). */
	readonly scratch: string;
	readonly runDir: string;
	readonly layout: 'seed' | 'generic';
	readonly onSignal: 'reason-signal' | 'step-name' | 'ignore';
	/** A periodic save every this many steps; 0: none. */
	readonly periodic?: number;
}

export async function startSaveJob(spec: SaveJobSpec): Promise<SaveJob> {
	const launcher = startRankLauncher(spec.scratch);
	const tag = `tt-save-job-${process.pid}-${Date.now()}`;
	const env = {
		PATH: process.env.PATH ?? '/usr/bin:/bin',
		RANK: '0',
		LOCAL_RANK: '0',
		WORLD_SIZE: '1',
		MASTER_ADDR: '127.0.0.1',
		MASTER_PORT: String(21_000 + (process.pid % 20_000)),
		PERIODIC: String(spec.periodic ?? 0),
	};
	const rank = await launcher.launch(['python3', '-u', SCRIPT, spec.runDir, spec.layout, spec.onSignal, tag], env);
	await until(
		() => rank.lines.join('\n') + rank.stderr(),
		text => text.includes('ready') || !rank.running(),
		'the job to install its handlers',
		30_000,
	);
	if (!rank.running()) throw new Error(`the job ended before it was ready: ${rank.stderr()}`);
	const saves = () => rank.lines.filter(line => line.startsWith('saved '));
	return {
		launcher,
		rank,
		saved: async count => {
			const lines = await until(saves, list => list.length > count, `save number ${count + 1} of the job`, 30_000);
			return lines[count]!.slice('saved '.length);
		},
		stop: () => launcher.stop(),
	};
}
