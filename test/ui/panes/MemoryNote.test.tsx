import {cleanup, render} from 'ink-testing-library';
import {afterEach, describe, expect, test} from 'vitest';
import type {GpuMemoryUnseen, HostConsumers} from '../../../src/core/memory-types.js';
import type {GpuState} from '../../../src/core/types.js';
import MemoryPane, {type Props} from '../../../src/ui/panes/MemoryPane.js';
import {memoryNeed} from '../../../src/ui/panes/memory-layout.js';
import {fitLines, noteRows, withNoteRows} from '../../../src/ui/panes/memory-notes.js';
import {gpu, hostMemory} from '../../helpers/snapshots.js';
import {expectFits, NOW, status} from '../fixtures.js';

// The memory pane's notes: the host's top consumers under the host lines while the host is short, GPU memory nobody
// can see under the GPU gauges; their own rows when they have something to say, never more lines than the pane is given.

afterEach(cleanup);

const MIB = 1024 ** 2;
const gpus: GpuState = {status: 'ok', gpus: [gpu(0, 40), gpu(3, 20)], sampledAt: NOW, warning: null};
const unseen: GpuMemoryUnseen = {
	pidNamespace: true,
	gpus: [
		{index: 0, uuid: 'GPU-0', unaccountedBytes: 1188 * MIB, processes: []},
		{index: 3, uuid: 'GPU-3', unaccountedBytes: 0, processes: [{pid: 5521, usedBytes: 8192 * MIB, reason: 'gone'}]},
	],
};

const base: Props = {
	host: 'node1',
	memory: hostMemory(30),
	memoryError: null,
	gpu: gpus,
	metrics: {ram: status(30, 'ok', 85), gpu0: status(40, 'ok', 90), gpu3: status(20, 'ok', 90)},
	now: NOW,
	width: 100,
	height: 7,
};

describe('the note under the GPU gauges', () => {
	test('the pane asks for its rows, and draws the note below the last GPU', () => {
		const need = memoryNeed(2, 1);
		expect(withNoteRows(need, {gpuUnseen: unseen})).toEqual({min: need.min, want: need.want + 2});
		expect(withNoteRows(need, {gpuUnseen: {pidNamespace: false, gpus: []}})).toEqual(need);
		const {lastFrame} = render(<MemoryPane {...base} height={need.want + 2} gpuUnseen={unseen} />);
		const lines = expectFits(lastFrame(), 100, need.want + 2);
		expect(lines.slice(-3)[0]).toMatch(/^GPU3 /);
		expect(lines.slice(-2)).toEqual([
			'1.2 GiB on GPU0 held by processes not visible here (PID namespace)',
			'pid 5521 (gone) still holds 8.0 GiB on GPU3',
		]);
	});

	test('short of rows the gauges keep theirs; a cut note says how many more lines it has', () => {
		const {lastFrame} = render(<MemoryPane {...base} height={5} gpuUnseen={unseen} />);
		const lines = expectFits(lastFrame(), 100, 5);
		expect(lines.at(-1)).toMatch(/^GPU3 /);
		expect(fitLines(['a', 'b', 'c'], 2)).toEqual(['a', '… 2 more']);
		expect(fitLines(['a'], 0)).toEqual([]);
	});
});

const consumers: HostConsumers = {
	sampledAt: NOW,
	scanned: 312,
	top: [
		{pid: 4242, user: 'nobody', cmd: 'python3 hog.py', pssBytes: 30.1 * 1024 ** 3, rssBytes: 30.2 * 1024 ** 3},
		{pid: 77, user: 'alice', cmd: 'jupyter-lab\u001b]0;x', pssBytes: null, rssBytes: 2 * 1024 ** 3},
		{pid: 78, user: '1001', cmd: '[kworker/0:1]', pssBytes: 1024 ** 3, rssBytes: 1024 ** 3},
		{pid: 79, user: 'bob', cmd: 'sleep', pssBytes: 1024 ** 2, rssBytes: 1024 ** 2},
	],
};

describe("the host's top consumers under the host lines", () => {
	test('largest first with user and command, below RAM and swap, above the GPUs; the rest counted', () => {
		const need = memoryNeed(2, 1);
		expect(withNoteRows(need, {hostConsumers: consumers, gpuUnseen: unseen}).want).toBe(need.want + 3 + 2);
		const height = need.want + 3;
		const {lastFrame} = render(<MemoryPane {...base} height={height} hostConsumers={consumers} gpuUnseen={unseen} />);
		const lines = expectFits(lastFrame(), 100, height);
		expect(lines.slice(3, 6)).toEqual([
			'not the job: 30.1 GiB nobody python3 hog.py',
			'not the job: 2.0 GiB RSS alice jupyter-lab\\e]0;x',
			'… 2 more',
		]);
		expect(lines.at(-1)).toMatch(/^GPU3 /);
		// The consumers first: the host is short; GPU memory nobody can see gets what is left.
		expect(noteRows(4, {hostConsumers: consumers, gpuUnseen: unseen})).toEqual({consumers: 3, unseen: 1});
	});
});
