import type {Settings} from '../config/schema.js';
import {ProgressJudge} from '../core/progress.js';
import type {JobProgress} from '../core/progress-types.js';
import {NO_GPU_PROCESSES, type RankSet} from '../core/types.js';
import {WaitReader} from '../ranks/rank-waits.js';
import {procReader} from '../system/procfs.js';

// `traintop ranks`' progress: the judge over the two readings of the one-shot scan, half a second apart. That is
// enough to see every rank computing (progressing), a rank stopped while its peers wait (hung), or neither
// (unknown: the window of --hang-after needs a monitor that watches).

export function oneShotProgress(settings: Settings): {
	readonly first: (set: RankSet) => void;
	readonly second: (set: RankSet) => readonly JobProgress[];
} {
	const judge = new ProgressJudge({hangAfterS: settings.hangAfter});
	const waits = new WaitReader(procReader());
	const inputs = (set: RankSet) => ({
		ranks: set,
		waits: waits.read(set),
		steps: [],
		gpu: {status: 'starting'} as const,
		gpuProcesses: NO_GPU_PROCESSES,
		ras: null,
		now: set.sampledAt,
	});
	return {
		first: set => void judge.judge(inputs(set)),
		second: set => judge.judge(inputs(set)),
	};
}
