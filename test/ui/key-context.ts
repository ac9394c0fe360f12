import type {KeyContext} from '../../src/ui/state.js';

/**
 * The context a key arrives in, for reducer tests: ranks with these pids, all of job torchrun:100, a 76-column
 * box, SIGUSR1 to save and SIGTERM for an emergency; `overrides` for what a test varies.
 */
export function keyContext(pids: readonly number[], overrides: Partial<KeyContext> = {}): KeyContext {
	return {
		ranks: pids.map(pid => ({pid, job: 'torchrun:100'})),
		page: 2,
		analysisRows: 3,
		helpLines: 10,
		width: 76,
		readonly: false,
		signals: {save: 'SIGUSR1', emergency: 'SIGTERM'},
		now: 1_000_000,
		...overrides,
	};
}
