import {hostname} from 'node:os';
import type {Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import {EXIT, UsageError} from '../core/errors.js';
import {jobLine} from '../format/jobs.js';
import {versioned} from '../format/json-version.js';
import {printable} from '../format/printable.js';
import {stacksJson} from '../format/stacks-json.js';
import {stacksLines} from '../format/stacks.js';
import {chooseJob} from '../ranks/choose-job.js';
import {RankSampler} from '../ranks/discover.js';
import {whereAre} from '../ranks/stacks.js';
import type {RankSelector} from '../ranks/tree.js';
import {jobOfTraintop} from '../scheduler/registry.js';
import {procReader} from '../system/procfs.js';
import {existingRunDir} from './checkpoints.js';
import {noRanksText} from './ranks.js';

// `traintop stacks [RUN_DIR] [--job ID]`: where each rank of one job is, and each of its DataLoader workers: its
// threads' Python frames by py-spy when py-spy is on PATH, the kernel's view of its threads always. The job is picked
// as `traintop signal` picks it (ranks/choose-job.ts): several jobs and nothing that picks one, nothing is read.

export interface StacksCommandOptions {
	readonly settings: Settings;
	readonly selector: RankSelector;
	/** --job. */
	readonly job: string | null;
	/** RUN_DIR: the job whose ranks use it; null = none given. */
	readonly runDir: string | null;
	readonly json: boolean;
	readonly stdout: Writable;
	readonly stderr: Writable;
}

/** 0 when every process was read; 3 when none was found or one was gone; 2 (a UsageError) when no one job is picked. */
export async function runStacksCommand(o: StacksCommandOptions): Promise<number> {
	const runDir = o.runDir === null ? null : existingRunDir(o.runDir);
	const proc = procReader();
	// One scan: the ranks and their workers now (no CPU figure is wanted, so no second sample).
	const sampler = new RankSampler({
		proc,
		selector: o.selector,
		host: hostname(),
		stallAfterMs: o.settings.stallAfter * 1000,
		scheduledJob: jobOfTraintop(),
		runDir,
	});
	const set = await sampler.sample();
	const choice = chooseJob(set, {job: o.job, runDir, selector: o.selector});
	if (choice.kind === 'none') {
		o.stderr.write(`traintop: ${printable(noRanksText(o.selector, proc))}; nothing read\n`);
		if (o.json)
			o.stdout.write(`${JSON.stringify(versioned({job: null, method: null, py_spy: null, processes: []}))}\n`);
		return EXIT.actionRefused;
	}
	if (choice.kind === 'refused')
		throw new UsageError(
			[
				`stacks: ${choice.why}; nothing read. Jobs found:`,
				...choice.jobs.map(job => `  ${jobLine(job)}`),
				'Pick one: traintop stacks RUN_DIR (the run dir its ranks use), --job ID, --pid PID (its launcher or a rank) or --match REGEX.',
			].join('\n'),
		);
	const {job} = choice;
	const {pySpy, processes} = await whereAre(job.ranks, proc);
	if (o.json) o.stdout.write(`${JSON.stringify(stacksJson(job.id, pySpy, processes), null, 2)}\n`);
	else {
		o.stderr.write(`traintop: job ${printable(job.id)} (${printable(choice.why)})\n`);
		o.stdout.write(`${stacksLines(processes, pySpy).join('\n')}\n`);
	}
	return processes.length > 0 && processes.every(p => !p.gone) ? EXIT.ok : EXIT.actionRefused;
}
