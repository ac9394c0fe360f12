// Invocation counters that survive between runs of the fake, so successive one-shots can walk the frames and
// "fail after N calls" can be emulated. One file per kind of invocation (query-gpu, query-compute-apps, …): the loop
// and the one-shots of a reader may run at the same time, but never two of the same kind.

import {appendFileSync, statSync} from 'node:fs';

/** Counts this invocation and returns its 1-based number among those of `kind`. */
export function countInvocation(statePath, kind) {
	const file = `${statePath}.${kind}`;
	// One byte per call; O_APPEND keeps the count exact without read-modify-write.
	appendFileSync(file, '.');
	return statSync(file).size;
}
