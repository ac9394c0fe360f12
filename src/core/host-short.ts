import {rawLevel, type ThresholdRule} from './thresholds.js';
import type {HostMemory} from './types.js';

// When the host's top consumers are worth reading (system/host-consumers.ts): while the RAM that other processes
// can take from the job is short, judged against the `ram` rule's warn line (no hysteresis: the reader's own 10 s
// cadence keeps a value hovering at the line from churning).
//
// Which RAM: the host's, or the limit of traintop's own cgroup (a container: every process /proc shows here is
// charged to that limit). Not the job's cgroup limit when that is what the RAM metric is judged against: a process
// outside the job's cgroup is charged elsewhere and can neither fill that limit nor be the reason the job nears it.
// Then the list would say "it is not your job" of processes that have nothing to do with it.

export function hostShort(memory: HostMemory | null, rule: ThresholdRule): boolean {
	if (memory === null) return false;
	const {cgroup, ram} = memory;
	if (rawLevel(ram.percent, rule) !== 'ok') return true;
	return cgroup?.scope === 'traintop' && rawLevel(cgroup.percent, rule) !== 'ok';
}
