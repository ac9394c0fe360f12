import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import MemoryPane, {type Props} from '../../../src/ui/panes/MemoryPane.js';
import type {HostMemory} from '../../../src/core/types.js';
import {hostLines, ramLimitText} from '../../../src/ui/panes/memory-rows.js';
import {hostMemory} from '../../helpers/snapshots.js';
import {expectFits, frameLines, GIB, NOW, status} from '../fixtures.js';

afterEach(cleanup);

/** The host at 30 % of 64 GiB; the job at 95 % of its 16 GiB cgroup limit. */
const limited: HostMemory = {
	...hostMemory(30),
	cgroup: {
		scope: 'job',
		version: 1,
		path: '/slurm/uid_0/job_42',
		limitBytes: 16 * GIB,
		usedBytes: 15.2 * GIB,
		percent: 95,
	},
};

const base: Props = {
	host: 'node1',
	memory: limited,
	memoryError: null,
	gpu: {status: 'absent', reason: 'nvidia-smi not found on PATH'},
	metrics: {ram: status(95, 'critical', 85, 96)},
	now: NOW,
	width: 100,
	height: 6,
};

describe('the RAM gauge against the job cgroup limit', () => {
	test('the gauge is against the limit, its headroom too; the title says which limit, with the host beside it', () => {
		const {lastFrame} = render(<MemoryPane {...base} />);
		const lines = expectFits(lastFrame(), 100, 6);
		expect(lines[0]).toBe('MEMORY node1 · RAM (job cgroup limit 16.0 GiB; host 30.0% of 64.0 GiB)');
		const ram = lines.find(l => l.startsWith('RAM '))!;
		// 85 % of 16 GiB is 13.6 GiB; 15.2 GiB used is 1.6 GiB over.
		expect(ram).toMatch(/95\.0% CRIT +15\.2 GiB\/16\.0 GiB +peak {2}96\.0% +1\.6 GiB over 85%/);
	});

	test('without a limit nothing changes: the host gauge and no words in the title', () => {
		const {lastFrame} = render(<MemoryPane {...base} memory={hostMemory(30)} metrics={{ram: status(30, 'ok', 85)}} />);
		const lines = frameLines(lastFrame());
		expect(lines[0]).toBe('MEMORY node1');
		expect(lines.find(l => l.startsWith('RAM '))).toMatch(/30\.0% ok +19\.2 GiB\/64\.0 GiB/);
	});

	test("traintop's own cgroup (a container, no ranks found) is a plain cgroup limit", () => {
		const own: HostMemory = {...limited, cgroup: {...limited.cgroup!, scope: 'traintop'}};
		expect(ramLimitText(own)).toBe('RAM (cgroup limit 16.0 GiB; host 30.0% of 64.0 GiB)');
		expect(ramLimitText(null)).toBeNull();
		const [ram] = hostLines({memory: own, memoryError: null, gpu: base.gpu}, {});
		expect(ram).toMatchObject({label: 'RAM', row: {percent: 95, totalBytes: 16 * GIB, headroomBytes: null}});
	});
});
