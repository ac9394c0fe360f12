import path from 'node:path';
import {PassThrough} from 'node:stream';
import {afterAll, describe, expect, test} from 'vitest';
import {scriptedMonitor} from '../helpers/scripted-monitor.js';
import {fullSnapshot, type WireSnapshot, wireSnapshot} from '../../src/agent/wire-snapshot.js';
import {runSignalCommand} from '../../src/commands/signal.js';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {followJob, jobOfTraintop} from '../../src/scheduler/registry.js';
import {hostMemory, ScriptedSources} from '../helpers/snapshots.js';
import {killRecorders, type Recorder, receivedBefore, startOutsider} from '../helpers/signal-recorder.js';
import {fakeJob, withFakeScheduler} from './fake/job-file.js';
import {FAKE_KIND, type FakeJobFile} from './fake/scheduler.js';

// The scheduler seam, proved by a scheduler that is not SLURM: registered by one line, its job file read by a real
// Monitor (the deadline in the snapshot, a requeue as a job event) and its signal route taken by `traintop signal`
// for a real process, through the guarded send. No generic code knows it.

const NOW = 1_800_000_000_000;

const recorders: Recorder[] = [];

const job = (fields: Partial<FakeJobFile> = {}): FakeJobFile =>
	fakeJob(NOW, {warning: {signal: 'USR1', leadS: 90}, ...fields});
const fake = withFakeScheduler('traintop-fake-scheduler-', job());

afterAll(() => killRecorders(recorders));

describe('a scheduler added by one registry line', () => {
	test('names the job traintop runs in from its own environment', () => {
		expect(jobOfTraintop({FAKE_JOB_ID: 'F7'})).toEqual({kind: FAKE_KIND, jobId: 'F7'});
		expect(jobOfTraintop({})).toBeNull();
	});

	test('a real Monitor carries its deadline in the snapshot and its requeue as a job event', async () => {
		const scheduler = followJob({kind: FAKE_KIND, jobId: 'F7'});
		expect(scheduler).not.toBeNull();
		const sources = new ScriptedSources();
		sources.memory = hostMemory(40);
		let now = NOW;
		const monitor = scriptedMonitor(Object.assign(sources, {scheduler: scheduler!}), () => now);
		const first = await monitor.tick();
		expect(first.scheduler).toMatchObject({kind: FAKE_KIND, name: 'FAKE', status: 'ok', jobId: 'F7'});
		expect(first.scheduler?.job?.deadline).toEqual({timeLeftS: 1200, warning: {signal: 'USR1', leadS: 90}, graceS: 30});
		expect(first.events).toEqual([]);
		// The deadline judged once, below the views: no save seen, so all the work is at risk.
		expect(first.deadlineRisk).toMatchObject({timeLeftS: 1200, cadence: 'none', warningLeadS: 90, level: 'warn'});
		// The agent stream carries both, and the receiver rebuilds them.
		const wire = JSON.parse(JSON.stringify(wireSnapshot(first, null))) as WireSnapshot;
		const received = fullSnapshot(wire, null, {recentAlerts: [], recentEvents: []});
		expect(received.scheduler).toEqual(first.scheduler);
		expect(received.deadlineRisk).toEqual(first.deadlineRisk);

		// The scheduler requeues the job: its answer shows restart 1.
		await fake().write(job({restarts: 1, state: 'PENDING', startTime: null, timeLeftS: null}));
		now += 1000;
		const second = await monitor.tick();
		expect(second.scheduler?.job).toMatchObject({restarts: 1, phase: 'pending', deadline: {timeLeftS: null}});
		expect(second.events).toEqual([
			expect.objectContaining({
				kind: 'requeued',
				job: 'fake:F7',
				level: 'warn',
				text: 'FAKE job F7 requeued (restart 1)',
			}),
		]);
	});

	test('`traintop signal --job F7` goes by its route to the task its file lists, gated as every send', async () => {
		const recorder = await startOutsider(path.join(fake().dir, 'rank.log'), {
			RANK: '0',
			LOCAL_RANK: '0',
			WORLD_SIZE: '1',
		});
		recorders.push(recorder);
		await fake().write(job({tasks: [recorder.pid]}));
		const stdout = new PassThrough();
		const out: Buffer[] = [];
		stdout.on('data', (chunk: Buffer) => out.push(chunk));
		const code = await runSignalCommand({
			settings: DEFAULT_SETTINGS,
			selector: {kind: 'pid', pid: recorder.pid},
			job: 'F7',
			action: 'save',
			ranks: undefined,
			yes: true,
			force: false,
			json: true,
			interactive: false,
			wait: false,
			runDir: null,
			stdin: new PassThrough(),
			stdout,
			stderr: new PassThrough(),
		});
		expect(code).toBe(0);
		const body = JSON.parse(Buffer.concat(out).toString()) as {
			route: string;
			results: {pid: number; outcome: string}[];
		};
		expect(body.route).toBe('fake');
		expect(body.results).toEqual([expect.objectContaining({pid: recorder.pid, outcome: 'sent'})]);
		expect(await receivedBefore(recorder)).toContain('SIGUSR1');
	});
});
