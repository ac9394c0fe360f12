import type {WholeJobEnd} from '../ranks/whole-job.js';
import {taskSchedulers} from '../scheduler/kinds.js';

// The words of ranks/whole-job.ts's fact: said in the confirm box and by `traintop signal --rank`, before sending.

function why(end: WholeJobEnd): string {
	switch (end.launcher) {
		case 'elastic':
			// TORCHELASTIC_RUN_ID says an elastic agent runs the ranks; its name is the launcher's (`torchrun`).
			return end.name === 'torchrun'
				? 'torchrun (the elastic agent) stops every rank when one fails'
				: `its elastic agent (${end.name}, as torchrun) stops every rank when one fails`;
		case 'deepspeed':
			return 'the DeepSpeed launcher kills every rank when one exits with an error';
		default: {
			const scheduler = taskSchedulers().find(one => one.launcher === end.launcher);
			return scheduler?.words?.launcherEndsStep ?? `${end.name} may end the whole step when a task exits with an error`;
		}
	}
}

/** `ENDS THE WHOLE JOB: the 1 chosen rank exits, and torchrun … — all 2 ranks end, not only the one chosen`. */
export function wholeJobWarning(end: WholeJobEnd): string {
	const chosen = end.chosen === 1 ? 'the 1 chosen rank exits' : `the ${end.chosen} chosen ranks exit`;
	const head = end.certain ? 'ENDS THE WHOLE JOB' : 'MAY END THE WHOLE JOB';
	const all = end.certain ? `every one of its ${end.of} ranks ends` : `every one of its ${end.of} ranks would end`;
	return `${head}: ${chosen}, and ${why(end)}: ${all}, not only the ${end.chosen} chosen`;
}
