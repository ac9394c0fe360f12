import {execFileSync} from 'node:child_process';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {UsageError} from '../../src/core/errors.js';
import {readAllRecords, readSeries, type SkippedLine} from '../../src/memlog/reader.js';
import {SkippedLines} from '../../src/memlog/skipped-lines.js';

let dir: string;
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-reader-bad-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

let n = 0;
async function file(text: string): Promise<string> {
	const f = path.join(dir, `f${n++}.jsonl`);
	await writeFile(f, text);
	return f;
}

/** Our writer's record with every field the analysis reads. */
function base(i: number) {
	return {
		timestamp: new Date(Date.UTC(2026, 0, 1) + i * 30_000).toISOString(),
		host: 'gpu-node-1',
		interval_s: 30,
		samples: 30,
		memory: {
			total_gb: 64,
			used_gb: 32,
			percent: 50,
			available_gb: 32,
			peak_percent: 51,
			peak_used_gb: 33,
			cgroup: {scope: 'job', path: '/job', version: 2, limit_gb: 40, used_gb: 30, percent: 75, peak_percent: 76},
		},
		swap: {total_gb: 8, used_gb: 1, percent: 12.5, peak_percent: 13},
		gpu: {memory_allocated_gb: 20, memory_total_gb: 80, memory_percent: 25, peak_memory_percent: 26},
		gpus: [0, 1].map(index => ({
			index,
			uuid: `GPU-${index}`,
			name: 'NVIDIA H100',
			memory_used_gb: 10,
			memory_total_gb: 80,
			memory_percent: 12.5,
			peak_memory_percent: 14,
			utilization_percent: 90,
			threshold: 80,
		})),
		gpu_status: 'ok',
		alerts: [],
		slurm: {job_id: '42', restart_count: 1},
	};
}
type Rec = ReturnType<typeof base>;

/** Record i as one line; `patch` breaks one of its values. */
function ours(i: number, patch: (r: Rec) => void = () => {}): string {
	const r = base(i);
	patch(r);
	return JSON.stringify(r);
}

const PERCENT = '(a percentage: 0 to 101)';
const CASES: [string, (r: Rec) => void, string][] = [
	['RAM over 100 %', r => (r.memory.percent = 250), `memory.percent: 250 is out of range ${PERCENT}`],
	['RAM 1e308', r => (r.memory.percent = 1e308), `memory.percent: 1e+308 is out of range ${PERCENT}`],
	['RAM peak negative', r => (r.memory.peak_percent = -0.5), `memory.peak_percent: -0.5 is out of range ${PERCENT}`],
	['RAM used negative', r => (r.memory.used_gb = -1), 'memory.used_gb: -1 is out of range (GiB: 0 to 1 PiB)'],
	[
		'cgroup over 200 %',
		r => (r.memory.cgroup.percent = 300),
		'memory.cgroup.percent: 300 is out of range (a percentage of a cgroup limit: 0 to 200)',
	],
	[
		'cgroup limit huge',
		r => (r.memory.cgroup.limit_gb = 1e300),
		'memory.cgroup.limit_gb: 1e+300 is out of range (GiB: 0 to 1 PiB)',
	],
	['swap total negative', r => (r.swap.total_gb = -8), 'swap.total_gb: -8 is out of range (GiB: 0 to 1 PiB)'],
	['swap percent', r => (r.swap.percent = 101.5), `swap.percent: 101.5 is out of range ${PERCENT}`],
	['GPU aggregate', r => (r.gpu.memory_percent = 1000), `gpu.memory_percent: 1000 is out of range ${PERCENT}`],
	['a GPU', r => (r.gpus[1]!.memory_percent = 180), `gpus[1].memory_percent: 180 is out of range ${PERCENT}`],
	[
		'a GPU peak',
		r => (r.gpus[0]!.peak_memory_percent = -2),
		`gpus[0].peak_memory_percent: -2 is out of range ${PERCENT}`,
	],
	[
		'a GPU threshold',
		r => (r.gpus[0]!.threshold = 0),
		'gpus[0].threshold: 0 is out of range (a threshold: above 0, at most 100)',
	],
	['interval', r => (r.interval_s = -30), 'interval_s: -30 is out of range (seconds: 0 to 86400)'],
	[
		'restart count',
		r => (r.slurm.restart_count = 1.5),
		'slurm.restart_count: 1.5 is out of range (a whole number, 0 or more)',
	],
];

describe('impossible values', () => {
	test.each(CASES)(
		'%s: the record is skipped with the field, the value and the range, by both read paths',
		async (_, patch, reason) => {
			const f = await file(`${ours(0)}\n${ours(1, patch)}\n${ours(2)}\n`);
			const fast: SkippedLine[] = [];
			const series = await readSeries([f], fast);
			expect(series.records).toBe(2);
			expect(fast).toEqual([{file: f, line: 2, reason}]);
			const slow: SkippedLine[] = [];
			expect(await readAllRecords([f], slow)).toHaveLength(2);
			expect(slow).toEqual(fast);
		},
	);

	test('the edges of each range are accepted: 0 and 101 %, a cgroup at 200 %, no interval, restart 0', async () => {
		const edge = ours(1, r => {
			r.memory.percent = 101;
			r.memory.peak_percent = 101;
			r.memory.cgroup.percent = 200;
			r.swap.percent = 0;
			r.gpus[0]!.memory_percent = 0;
			r.gpus[0]!.threshold = 100;
			r.interval_s = 0;
			r.slurm.restart_count = 0;
		});
		const skipped: SkippedLine[] = [];
		expect((await readSeries([await file(`${ours(0)}\n${edge}\n`)], skipped)).records).toBe(2);
		expect(skipped).toEqual([]);
	});
});

describe('files that are no log', () => {
	test('a FIFO handed to the reader (it became one after the inputs were listed) is refused, never waited on', async () => {
		const fifo = path.join(dir, 'fifo.jsonl');
		execFileSync('mkfifo', [fifo]);
		await expect(readSeries([fifo], [])).rejects.toThrow(
			new UsageError(`${fifo}: not a regular file (a FIFO); --analyze reads files`),
		);
	});

	test('an empty file beside a good one is left out and noted; with no record anywhere, an error naming each', async () => {
		const good = await file(`${ours(0)}\n`);
		const empty = await file('');
		const skipped = new SkippedLines();
		expect((await readSeries([empty, good], skipped)).records).toBe(1);
		expect(skipped.filesLeftOut).toEqual([{file: empty, reason: 'no memory record in it (it is empty)'}]);
		await expect(readSeries([empty], new SkippedLines())).rejects.toThrow(
			new UsageError(`${empty}: no memory record in it (it is empty)`),
		);
	});
});

describe('SkippedLines', () => {
	test('holds the count of every line but only the first examples of each reason, and a bounded set of reasons', () => {
		const s = new SkippedLines();
		for (let line = 1; line <= 100_000; line++)
			s.push({file: 'a', line, reason: `not JSON: Unexpected token at ${line}`});
		for (let line = 1; line <= 1000; line++) s.push({file: 'b', line, reason: `gpus.${line}.index: missing`});
		for (let line = 1; line <= 1000; line++) s.push({file: 'c', line, reason: `field_${line}: expected number`});
		expect(s.total).toBe(102_000);
		const reasons = Object.fromEntries(s.reasons.map(r => [r.reason, r.count]));
		expect(reasons['not JSON']).toBe(100_000);
		// Array positions are one reason, whatever the index.
		expect(reasons['gpus[].index']).toBe(1000);
		expect(s.reasons.length).toBeLessThanOrEqual(SkippedLines.MAX_REASONS + 1);
		expect(s.reasons.at(-1)).toEqual({reason: 'other', count: 1000 - (SkippedLines.MAX_REASONS - 2)});
		expect(s.reasons.reduce((sum, r) => sum + r.count, 0)).toBe(102_000);
		expect(s.examples.length).toBeLessThanOrEqual((SkippedLines.MAX_REASONS + 1) * SkippedLines.EXAMPLES_PER_REASON);
		expect(s.examples.slice(0, 3).map(e => e.line)).toEqual([1, 2, 3]);
	});
});
