import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import MemoryPane, {type Props} from '../../../src/ui/panes/MemoryPane.js';
import type {GpuState} from '../../../src/core/types.js';
import {DEFAULT_SETTINGS} from '../../../src/config/schema.js';
import {thresholdsFrom} from '../../../src/config/thresholds.js';
import {Monitor} from '../../../src/core/monitor.js';
import {gpu, hostMemory, ScriptedSources} from '../../helpers/snapshots.js';
import {expectFits, frameLines, NOW, status} from '../fixtures.js';

afterEach(cleanup);

const twoGpus: GpuState = {status: 'ok', gpus: [gpu(0, 95), gpu(1, 40)], sampledAt: NOW, warning: null};

const base: Props = {
	host: 'node1',
	memory: hostMemory(78, 10),
	memoryError: null,
	gpu: twoGpus,
	metrics: {
		ram: status(78, 'warn', 85, 80.5),
		swap: status(10, 'ok', 50),
		gpu0: status(95, 'critical', 90, 97),
		gpu1: status(40, 'ok', 90),
	},
	now: NOW,
	width: 80,
	height: 8,
};

function line(frame: string | undefined, label: string): string {
	const found = frameLines(frame).find(l => l.startsWith(label));
	if (found === undefined) throw new Error(`no line for ${label} in\n${frame}`);
	return found;
}

describe('MemoryPane', () => {
	test('a gauge per metric, each with its level written out', () => {
		const {lastFrame} = render(<MemoryPane {...base} />);
		const lines = expectFits(lastFrame(), 80, 8);
		expect(lines[0]).toBe('MEMORY node1');
		expect(line(lastFrame(), 'RAM ')).toContain('78.0% WARN');
		expect(line(lastFrame(), 'swap')).toContain('10.0% ok');
		expect(line(lastFrame(), 'GPU0')).toContain('95.0% CRIT');
		expect(line(lastFrame(), 'GPU1')).toContain('40.0% ok');
		expect(lines).toHaveLength(5);
	});

	test('peak since start and headroom to the threshold', () => {
		const {lastFrame} = render(<MemoryPane {...base} />);
		// RAM: 85 % of 64 GiB is 54.4 GiB; 78 % used is 49.92 GiB: 4.5 GiB to go.
		expect(line(lastFrame(), 'RAM ')).toMatch(/peak {2}80\.5%.*4\.5 GiB to 85%/);
		// GPU0: 95 % of 80 GiB is 76 GiB, 4 GiB over the 90 % line (72 GiB).
		expect(line(lastFrame(), 'GPU0')).toMatch(/peak {2}97\.0%.*4\.0 GiB over 90%/);
	});

	test('no swap on the machine: "swap none", not a 0 % gauge', () => {
		const {lastFrame} = render(<MemoryPane {...base} memory={hostMemory(50)} />);
		expect(line(lastFrame(), 'swap')).toMatch(/^swap +none$/);
	});

	test('absent GPU reader: its reason instead of GPU gauges', () => {
		const {lastFrame} = render(
			<MemoryPane {...base} gpu={{status: 'absent', reason: 'nvidia-smi not found on PATH'}} />,
		);
		expect(line(lastFrame(), 'GPU')).toMatch(/^GPU +not monitored: nvidia-smi not found on PATH$/);
		expect(lastFrame()).not.toContain('GPU0');
		expectFits(lastFrame(), 80, 8);
	});

	test('failing GPU reader: the error and when it retries', () => {
		const {lastFrame} = render(
			<MemoryPane {...base} gpu={{status: 'error', message: 'nvidia-smi exited with code 9', retryAt: NOW + 5000}} />,
		);
		expect(line(lastFrame(), 'GPU')).toContain('nvidia-smi failed: nvidia-smi exited with code 9; retrying in 5 s');
		expect(lastFrame()).not.toContain('GPU0');
	});

	test('starting GPU reader', () => {
		const {lastFrame} = render(<MemoryPane {...base} gpu={{status: 'starting'}} />);
		expect(line(lastFrame(), 'GPU')).toContain('starting nvidia-smi');
	});

	test('a GPU whose memory nvidia-smi reports N/A (MIG) is n/a, not 0 %', () => {
		const {lastFrame} = render(
			<MemoryPane
				{...base}
				gpu={{status: 'ok', gpus: [gpu(0, null)], sampledAt: NOW, warning: 'infoROM is corrupted'}}
				metrics={{}}
			/>,
		);
		expect(line(lastFrame(), 'GPU0')).toContain('n/a');
		expect(frameLines(lastFrame())[0]).toContain('nvidia-smi warns: infoROM is corrupted');
	});

	test('no memory reading: the read error, on the title and on the RAM line', () => {
		const {lastFrame} = render(<MemoryPane {...base} memory={null} memoryError="EACCES /proc/meminfo" />);
		expect(frameLines(lastFrame())[0]).toContain('memory read failed: EACCES /proc/meminfo');
		expect(line(lastFrame(), 'RAM')).toContain('n/a: EACCES /proc/meminfo');
	});

	test('sparklines from the history props in the wide form, none in the compact form', () => {
		const history = {ram: [0, 50, 100], gpu0: [100, 100]};
		const wide = render(<MemoryPane {...base} history={history} width={100} sparklineWidth={10} />);
		expect(line(wide.lastFrame(), 'RAM ')).toMatch(/▁▅█$/);
		// The GPU's utilisation comes after its sparkline (see MemoryPane-sensors.test.tsx).
		expect(line(wide.lastFrame(), 'GPU0')).toMatch(/██ {2}util {2}50%$/);
		expectFits(wide.lastFrame(), 100, 8);
		const compact = render(<MemoryPane {...base} history={history} width={100} sparklineWidth={10} compact />);
		expect(compact.lastFrame()).not.toMatch(/[▁▅]/);
	});

	test('many GPUs are packed several a line', () => {
		const gpus = Array.from({length: 8}, (_, i) => gpu(i, 10 * i));
		const {lastFrame} = render(
			<MemoryPane {...base} gpu={{status: 'ok', gpus, sampledAt: NOW, warning: null}} gpuColumns={2} height={7} />,
		);
		const lines = expectFits(lastFrame(), 80, 7);
		expect(lines[3]).toMatch(/^GPU0 .*GPU1 /);
		expect(lines[6]).toMatch(/^GPU6 .*GPU7 /);
	});

	test('GPUs that do not fit are counted, and the worst of them named', () => {
		const gpus = Array.from({length: 8}, (_, i) => gpu(i, i === 6 ? 96 : 30));
		const metrics = {...base.metrics, gpu6: status(96, 'critical', 90)};
		const {lastFrame} = render(
			<MemoryPane {...base} gpu={{status: 'ok', gpus, sampledAt: NOW, warning: null}} metrics={metrics} height={6} />,
		);
		const lines = expectFits(lastFrame(), 80, 6);
		expect(lines.at(-1)).toBe('+6 more GPUs; highest GPU6 96.0% CRIT');
		expect(lines[3]).toMatch(/^GPU0 /);
		expect(lines[4]).toMatch(/^GPU1 /);
	});

	test('never more lines than its height nor wider than its width', () => {
		const gpus = Array.from({length: 16}, (_, i) => gpu(i, 6 * i));
		for (const width of [40, 60, 80, 100]) {
			for (let height = 0; height <= 12; height++) {
				for (const gpuColumns of [1, 2, 3]) {
					const {lastFrame, unmount} = render(
						<MemoryPane
							{...base}
							gpu={{status: 'ok', gpus, sampledAt: NOW, warning: 'x'.repeat(200)}}
							width={width}
							height={height}
							gpuColumns={gpuColumns}
							sparklineWidth={12}
						/>,
					);
					expectFits(lastFrame(), width, height);
					unmount();
				}
			}
		}
	});

	test('short of rows, the title and swap go first; RAM and the GPUs stay', () => {
		const three = render(
			<MemoryPane {...base} gpu={{status: 'ok', gpus: [gpu(0, 95)], sampledAt: NOW, warning: null}} height={3} />,
		);
		expect(expectFits(three.lastFrame(), 80, 3).map(l => l.slice(0, 4))).toEqual(['RAM ', 'swap', 'GPU0']);
		const two = render(
			<MemoryPane {...base} gpu={{status: 'ok', gpus: [gpu(0, 95)], sampledAt: NOW, warning: null}} height={2} />,
		);
		expect(expectFits(two.lastFrame(), 80, 2).map(l => l.slice(0, 4))).toEqual(['RAM ', 'GPU0']);
		// Two GPUs in one row: the row sums them up, the critical one by name.
		const summed = render(<MemoryPane {...base} height={2} />);
		expect(expectFits(summed.lastFrame(), 80, 2)[1]).toBe('2 GPUs; highest GPU0 95.0% CRIT');
	});
});

describe('a failed memory read', () => {
	test('the RAM gauge keeps the last level and threshold, marked stale, instead of falling back to ok', async () => {
		// The snapshot as the real Monitor makes it: a reading at 90 %, then a read that fails.
		const sources = new ScriptedSources();
		const monitor = new Monitor({
			sources,
			thresholds: thresholdsFrom(DEFAULT_SETTINGS),
			intervalMs: 1000,
			host: 'node1',
		});
		sources.memory = hostMemory(90, null);
		await monitor.tick();
		sources.memory = new Error('EIO reading /proc/meminfo');
		const snapshot = await monitor.tick();
		const {lastFrame} = render(
			<MemoryPane
				{...base}
				memory={snapshot.memory}
				memoryError={snapshot.memoryError}
				metrics={snapshot.metrics}
				width={120}
				height={4}
			/>,
		);
		const lines = frameLines(lastFrame());
		expect(lines[0]).toContain('memory read failed: EIO reading /proc/meminfo');
		const ram = lines.find(l => l.startsWith('RAM'))!;
		expect(ram).toContain('≈90.0% CRIT');
		expect(ram).toContain('┊');
		expect(ram).toMatch(/over 85%/);
		expect(ram).not.toMatch(/ ok /);
	});
});

test('the title carries the host CPU and load average when they are read', () => {
	const {lastFrame} = render(
		<MemoryPane {...base} width={100} cpu={{percent: 12.4, cores: 16, load: [9.8, 7.25, 5.1]}} />,
	);
	expect(lastFrame()?.split('\n')[0]).toContain('CPU 12% of 16 cores · load 9.80 7.25 5.10');
	const first = render(<MemoryPane {...base} width={100} cpu={{percent: null, cores: 1, load: null}} />);
	expect(first.lastFrame()?.split('\n')[0]).toMatch(/CPU \(1 core\)$/);
});
