import {readFile} from 'node:fs/promises';
import path from 'node:path';
import {cleanup, render} from 'ink-testing-library';
import {afterEach, describe, expect, test} from 'vitest';
import {scriptedMonitor, TEST_THRESHOLDS} from '../helpers/scripted-monitor.js';
import type {SkippedLine} from '../../src/memlog/reader.js';
import {flaggedJob, followJob, selectedJob} from '../../src/scheduler/registry.js';
import {hostMemory, ScriptedSources} from '../helpers/snapshots.js';
import {fakeJob, withFakeScheduler} from './fake/job-file.js';
import {FAKE_KIND, type FakeJobFile} from './fake/scheduler.js';

// The scheduler's own log key, flag and job pane come through the entry's hooks: the fake scheduler fills them in
// its own folder, and the memory log, the option table and the job pane take them without a line of their own. The
// modules that read the registry when they load (the log's keys, the option table) are loaded after it joined.

const NOW = 1_800_000_000_000;

const job = (fields: Partial<FakeJobFile> = {}): FakeJobFile => fakeJob(NOW, {...fields});
const fake = withFakeScheduler('traintop-fake-hooks-', job());

afterEach(cleanup);

describe("a scheduler's own hooks", () => {
	test('its log key: the log names its job there, and --analyze reads a requeue in its name', async () => {
		const {testRecorder} = await import('../helpers/test-recorder.js');
		const {readSeries} = await import('../../src/memlog/reader.js');
		const {analyze} = await import('../../src/memlog/analyze.js');
		const {restartText} = await import('../../src/memlog/report-parts.js');
		const log = path.join(fake().dir, 'memory.jsonl');
		const sources = Object.assign(new ScriptedSources(), {scheduler: followJob({kind: FAKE_KIND, jobId: 'F7'})!});
		sources.memory = hostMemory(40);
		let now = NOW;
		const monitor = scriptedMonitor(sources, () => now);
		const recorder = testRecorder(log, 2000);
		const ticks = async (count: number) => {
			for (let i = 0; i < count; i++) {
				recorder.add(await monitor.tick());
				now += 1000;
			}
		};
		await ticks(4);
		await fake().write(job({restarts: 1}));
		await ticks(4);
		recorder.close();

		const records = (await readFile(log, 'utf8'))
			.trim()
			.split('\n')
			.map(line => JSON.parse(line) as Record<string, unknown>);
		expect(records[0]).toMatchObject({fake: {job_id: 'F7', restart_count: 0}, slurm: null});
		expect(records.at(-1)).toMatchObject({fake: {job_id: 'F7', restart_count: 1}});
		const skipped: SkippedLine[] = [];
		const analysis = analyze(await readSeries([log], skipped), TEST_THRESHOLDS);
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
