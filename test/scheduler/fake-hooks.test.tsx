import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {cleanup, render} from 'ink-testing-library';
import {afterAll, afterEach, beforeAll, describe, expect, test} from 'vitest';
import {Monitor} from '../../src/core/monitor.js';
import type {SkippedLine} from '../../src/memlog/reader.js';
import {flaggedJob, followJob, registerScheduler, selectedJob} from '../../src/scheduler/registry.js';
import {hostMemory, ScriptedSources} from '../helpers/snapshots.js';
import {FAKE_KIND, type FakeJobFile, fakeScheduler} from './fake/scheduler.js';

// The scheduler's own log key, flag and job pane come through the entry's hooks: the fake scheduler fills them in
// its own folder, and the memory log, the option table and the job pane take them without a line of their own. The
// modules that read the registry when they load (the log's keys, the option table) are loaded after it joined.

const rule = (critical: number) => ({critical, warnMargin: 10, hysteresis: 2});
const NOW = 1_800_000_000_000;

let dir: string;
let file: string;
let unregister: () => void;

const job = (fields: Partial<FakeJobFile> = {}): FakeJobFile => ({
	id: 'F7',
	state: 'RUNNING',
	startTime: NOW - 60_000,
	restarts: 0,
	timeLeftS: 1200,
	warning: null,
	graceS: 30,
	tasks: [],
	...fields,
});

beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-fake-hooks-'));
	file = path.join(dir, 'job.json');
	await writeFile(file, JSON.stringify(job()));
	unregister = registerScheduler(fakeScheduler(file));
});

afterAll(async () => {
	unregister();
	await rm(dir, {recursive: true, force: true});
});

afterEach(cleanup);

describe("a scheduler's own hooks", () => {
	test('its log key: the log names its job there, and --analyze reads a requeue in its name', async () => {
		const {MemoryLogRecorder} = await import('../../src/memlog/recorder.js');
		const {readSeries} = await import('../../src/memlog/reader.js');
		const {analyze} = await import('../../src/memlog/analyze.js');
		const {restartText} = await import('../../src/memlog/report-parts.js');
		const log = path.join(dir, 'memory.jsonl');
		const sources = Object.assign(new ScriptedSources(), {scheduler: followJob({kind: FAKE_KIND, jobId: 'F7'})!});
		sources.memory = hostMemory(40);
		let now = NOW;
		const monitor = new Monitor({
			sources,
			thresholds: {ram: rule(90), swap: rule(50), gpu: rule(90)},
			intervalMs: 1000,
			host: 'n',
			now: () => now,
		});
		const recorder = new MemoryLogRecorder({
			logPath: log,
			logIntervalMs: 2000,
			sampleIntervalMs: 1000,
			gpuThreshold: 90,
		});
		const ticks = async (count: number) => {
			for (let i = 0; i < count; i++) {
				recorder.add(await monitor.tick());
				now += 1000;
			}
		};
		await ticks(4);
		await writeFile(file, JSON.stringify(job({restarts: 1})));
		await ticks(4);
		recorder.close();

		const records = (await readFile(log, 'utf8'))
			.trim()
			.split('\n')
			.map(line => JSON.parse(line) as Record<string, unknown>);
		expect(records[0]).toMatchObject({fake: {job_id: 'F7', restart_count: 0}, slurm: null});
		expect(records.at(-1)).toMatchObject({fake: {job_id: 'F7', restart_count: 1}});
		const skipped: SkippedLine[] = [];
		const analysis = analyze(await readSeries([log], skipped), {
			ram: rule(90),
			swap: rule(50),
			gpu: rule(90),
		});
		expect(skipped).toEqual([]);
		expect(analysis.restarts).toEqual([
			expect.objectContaining({reason: 'requeue', scheduler: 'FAKE', job_id: 'F7', restart_count: 1}),
		]);
		expect(restartText(analysis.restarts[0]!)).toBe('requeued: FAKE job F7 restart 0 → 1');
	});

	test('its flag: in the option table after --job, its value a job of its kind', async () => {
		const {OPTIONS} = await import('../../src/config/options.js');
		const names = OPTIONS.map(option => option.name);
		expect(names.indexOf('fakeJob')).toBe(names.indexOf('job') + 1);
		expect(flaggedJob({fakeJob: 'F7'})).toEqual({kind: FAKE_KIND, jobId: 'F7'});
		expect(selectedJob({}, {FAKE_JOB_ID: 'F7'})).toEqual({kind: FAKE_KIND, jobId: 'F7'});
	});

	test('its view: the job pane draws its lines', async () => {
		const {default: JobPane} = await import('../../src/ui/panes/JobPane.js');
		const state = followJob({kind: FAKE_KIND, jobId: 'F7'})!.current();
		const frame = render(<JobPane state={state} risk={null} width={80} height={3} />).lastFrame();
		expect(frame).toContain('FAKE job F7 · RUNNING · restart');
	});
});
