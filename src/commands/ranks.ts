import {hostname} from 'node:os';
import type {Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import {describeSelector} from '../config/selection.js';
import type {RankSet} from '../core/types.js';
import {RankSampler} from '../ranks/discover.js';
import type {RankSelector} from '../ranks/tree.js';
import {readGpuProcessesOnce} from '../system/gpu-processes-once.js';
import {procReader, type ProcReader} from '../system/procfs.js';
import {formatRanks, ranksJson} from './ranks-format.js';

/** CPU % needs two readings of the tick counters; half a second is long enough to be meaningful. */
const CPU_WINDOW_MS = 500;

/** One scan with CPU % measured over a short window and GPU memory when nvidia-smi answers. */
export async function scanRanks(
	settings: Settings,
	selector: RankSelector,
	proc: ProcReader = procReader(),
): Promise<RankSet> {
	const sampler = new RankSampler({proc, selector, host: hostname(), stallAfterMs: settings.stallAfter * 1000});
	const [gpu] = await Promise.all([readGpuProcessesOnce(settings.nvidiaSmi), sampler.sample()]);
	await new Promise(resolve => setTimeout(resolve, CPU_WINDOW_MS));
	return sampler.sample(gpu);
}

/** `traintop ranks [--json]`: exit 0 whether or not ranks were found (finding none is an answer). */
export async function runRanksCommand(options: {
	settings: Settings;
	selector: RankSelector;
	json: boolean;
	stdout: Writable;
	columns?: number;
}): Promise<number> {
	const set = await scanRanks(options.settings, options.selector);
	if (options.json) {
		options.stdout.write(`${JSON.stringify(ranksJson(set), null, 2)}\n`);
	} else if (set.ranks.length === 0) {
		options.stdout.write(`no ranks found ${describeSelector(options.selector)}\n`);
	} else {
		options.stdout.write(`${formatRanks(set, options.columns ?? 120)}\n`);
	}
	return 0;
}
