import type {GpuHealthCode, GpuHealthProblem} from '../core/gpu-health.js';

// The words for a GPU's health problems (core/gpu-health.ts): a few words on the GPU line, a sentence for an alert
// and for its end. A problem, never a wall of counters: the counts appear only where they are the problem.

const THROTTLE_WORDS: Partial<Record<GpuHealthCode, string>> = {
	'power-cap': 'power cap',
	'hw-slowdown': 'hardware slowdown',
	'thermal-slowdown': 'thermal slowdown',
	'sw-thermal-slowdown': 'driver thermal slowdown',
	'power-brake': 'power brake',
};

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** A few words for the GPU line: `thermal slowdown`, `3 uncorrectable ECC`, `MIG on`. */
function gpuHealthWords(problem: GpuHealthProblem): string {
	const throttle = THROTTLE_WORDS[problem.code];
	if (throttle !== undefined) return throttle;
	switch (problem.code) {
		case 'ecc-uncorrected':
			return `${problem.count ?? 'some'} uncorrectable ECC`;
		case 'ecc-corrected-rising':
			return 'corrected ECC rising';
		case 'retired-pages-pending':
			return 'page retirement pending';
		case 'remapped-rows-pending':
			return 'row remap pending';
		case 'remap-failure':
			return 'row remap failed';
		default:
			return 'MIG on';
	}
}

/** The GPU line's health part: its problems' words, `; `-joined (`thermal slowdown; 3 uncorrectable ECC`). */
export function gpuHealthLine(problems: readonly GpuHealthProblem[]): string {
	return problems.map(gpuHealthWords).join('; ');
}

/** The alert when an episode starts: `GPU2 throttled: thermal slowdown`. */
export function gpuHealthAlertText(index: number, problem: GpuHealthProblem): string {
	const gpu = `GPU${index}`;
	const throttle = THROTTLE_WORDS[problem.code];
	if (throttle !== undefined) return `${gpu} throttled: ${throttle}`;
	const count = problem.count ?? 0;
	switch (problem.code) {
		case 'ecc-uncorrected':
			return `${gpu}: ${plural(count, 'uncorrectable ECC error', 'uncorrectable ECC errors')} since the driver loaded`;
		case 'ecc-corrected-rising':
			return `${gpu}: corrected ECC errors rising (${count} since the driver loaded)`;
		case 'retired-pages-pending':
			return `${gpu}: a memory page waits for a GPU reset to be retired`;
		case 'remapped-rows-pending':
			return `${gpu}: a memory row waits for a GPU reset to be remapped`;
		case 'remap-failure':
			return `${gpu}: a memory row remap failed: the GPU needs service`;
		default:
			return `${gpu} MIG on`;
	}
}

/** The line when an episode ends: `GPU2 no longer throttled: thermal slowdown`. */
export function gpuHealthClearedText(index: number, problem: GpuHealthProblem): string {
	const gpu = `GPU${index}`;
	const throttle = THROTTLE_WORDS[problem.code];
	if (throttle !== undefined) return `${gpu} no longer throttled: ${throttle}`;
	switch (problem.code) {
		case 'ecc-uncorrected':
			return `${gpu}: no uncorrectable ECC error since the driver loaded again`;
		case 'ecc-corrected-rising':
			return `${gpu}: corrected ECC errors no longer rising`;
		case 'retired-pages-pending':
			return `${gpu}: no memory page waits for retirement any more`;
		case 'remapped-rows-pending':
			return `${gpu}: no memory row waits for a remap any more`;
		case 'remap-failure':
			return `${gpu}: no row remap failure reported any more`;
		default:
			return `${gpu} MIG off`;
	}
}
