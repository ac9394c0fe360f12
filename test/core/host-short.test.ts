import {describe, expect, it} from 'vitest';
import {hostShort} from '../../src/core/host-short.js';
import type {HostMemory} from '../../src/core/types.js';
import {hostMemory} from '../helpers/snapshots.js';

// When the host's top consumers are read: the host's RAM at the `ram` rule's warn line, or a container's own limit;
// not the job's cgroup limit alone (what fills it is charged to the job's cgroup, not to other processes).

const rule = {critical: 85, warnMargin: 10, hysteresis: 2};
const cgroup = (scope: 'job' | 'traintop', percent: number): HostMemory => ({
	...hostMemory(30),
	cgroup: {scope, version: 2, path: '/job', limitBytes: 16 * 1024 ** 3, usedBytes: 0, percent},
});

describe('hostShort', () => {
	it('the host at warn or critical is short; below, not', () => {
		expect(hostShort(hostMemory(74.9), rule)).toBe(false);
		expect(hostShort(hostMemory(75), rule)).toBe(true);
		expect(hostShort(hostMemory(99), rule)).toBe(true);
		expect(hostShort(null, rule)).toBe(false);
	});

	it("a container's own limit counts; the job's cgroup limit alone does not", () => {
		expect(hostShort(cgroup('traintop', 90), rule)).toBe(true);
		expect(hostShort(cgroup('job', 90), rule)).toBe(false);
		expect(hostShort({...cgroup('job', 90), ram: hostMemory(80).ram}, rule)).toBe(true);
	});
});
