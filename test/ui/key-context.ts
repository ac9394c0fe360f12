import type {KeyContext, NodesKeyContext} from '../../src/ui/state.js';
import type {ProcessIdentity} from '../../src/ui/targets.js';

/** A test rank's start time: any number, as long as each test uses the same one for the same pid. */
export const startOf = (pid: number): number => pid * 10;

/** The identities (pid, start time) of these test pids, as a confirm box holds them. */
export const identities = (...pids: number[]): ProcessIdentity[] => pids.map(pid => ({pid, startTime: startOf(pid)}));

/**
 * The context a key arrives in, for reducer tests: ranks with these pids (start times startOf), all of job torchrun:100, a 76-column
 * box, SIGUSR1 to save and SIGTERM for an emergency; `overrides` for what a test varies.
 */
export function keyContext(pids: readonly number[], overrides: Partial<KeyContext> = {}): KeyContext {
	return {
		ranks: pids.map(pid => ({pid, job: 'torchrun:100', startTime: startOf(pid)})),
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

/** The context a key arrives in on the list of nodes, for reducer tests: these nodes, no fleet; `overrides` as above. */
export function nodesKeyContext(nodes: readonly string[], overrides: Partial<NodesKeyContext> = {}): NodesKeyContext {
	return {
		nodes,
		page: 2,
		helpLines: 20,
		helpRows: 5,
		fleet: [],
		readonly: false,
		signals: {save: 'SIGUSR1', emergency: 'SIGTERM'},
		now: 0,
		...overrides,
	};
}
