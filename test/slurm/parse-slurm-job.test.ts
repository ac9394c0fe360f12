import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {pickJob} from '../../src/slurm/job-record.js';
import {parseScontrolJobs, scontrolFields} from '../../src/slurm/parse-scontrol-job.js';
import {parseSqueueJson} from '../../src/slurm/parse-squeue-json.js';

// The job parsers on outputs recorded from a real SLURM 22.05.8 (test/fixtures/slurm/README.md says how), plus a
// hand-made sample of the 23.02+ JSON shape. scontrol prints local time without a zone; the recordings were made
// in UTC, so the tests read them in UTC.
process.env.TZ = 'UTC';

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, '../fixtures/slurm', name), 'utf8');
const epoch = (seconds: number) => seconds * 1000;

describe('scontrol show job -o', () => {
	it('reads a running 2-task job', () => {
		const [job] = parseScontrolJobs(fixture('running.scontrol.txt'));
		expect(job).toEqual({
			jobId: '8',
			arrayJobId: null,
			arrayTaskId: null,
			name: 'train-demo',
			user: 'root',
			partition: 'debug',
			state: 'RUNNING',
			reason: null,
			nodes: 'vm',
			batchHost: 'vm',
			workDir: '/tmp/h14a',
			submitTime: epoch(1795510028),
			startTime: epoch(1795510186),
			endTime: epoch(1795510486),
			elapsedS: 11,
			timeLimitS: 300,
			timeLeftS: 289,
			restarts: 0,
			requeue: true,
			tasks: 2,
			// Running: its ExitCode=0:0 is a placeholder, not an exit.
			exit: null,
		});
	});

	it("reads an ended job's exit from ExitCode: 99:0 for FAILED, 143:0 for TIMEOUT (the batch shell's 128 + SIGTERM)", () => {
		const [failed] = parseScontrolJobs(fixture('failed-99.scontrol.txt'));
		expect(failed).toMatchObject({state: 'FAILED', reason: 'NonZeroExitCode', exit: {code: 99, signal: null}});
		const [timeout] = parseScontrolJobs(fixture('timeout.scontrol.txt'));
		expect(timeout).toMatchObject({state: 'TIMEOUT', reason: 'TimeLimit', exit: {code: 143, signal: null}});
		// A signal number after the colon is the signal that killed the batch shell.
		const killed = fixture('failed-99.scontrol.txt').replace('ExitCode=99:0', 'ExitCode=0:9');
		expect(parseScontrolJobs(killed)[0]?.exit).toEqual({code: null, signal: 'SIGKILL'});
	});

	it('reads a pending job: its reason, no node, no start, no time left', () => {
		const [job] = parseScontrolJobs(fixture('pending.scontrol.txt'));
		expect(job).toMatchObject({state: 'PENDING', reason: 'Resources', nodes: '', batchHost: null});
		expect(job).toMatchObject({startTime: null, endTime: null, timeLeftS: null, timeLimitS: 300});
	});

	it('reads the restart count of a requeued job, pending and running again', () => {
		const [pending] = parseScontrolJobs(fixture('requeued-pending.scontrol.txt'));
		expect(pending).toMatchObject({state: 'PENDING', reason: 'BeginTime', restarts: 1});
		const [running] = parseScontrolJobs(fixture('requeued-running.scontrol.txt'));
		expect(running).toMatchObject({state: 'RUNNING', restarts: 1, elapsedS: 14, timeLeftS: 286});
	});

	it('reads a completed UNLIMITED job: no time limit, no time left', () => {
		const [job] = parseScontrolJobs(fixture('completed.scontrol.txt'));
		expect(job).toMatchObject({jobId: '11', state: 'COMPLETED', timeLimitS: null, timeLeftS: null, elapsedS: 1});
		expect(job?.exit).toEqual({code: 0, signal: null});
	});

	it('reads each task of an array and picks one by its own id or ARRAY_TASK', () => {
		const jobs = parseScontrolJobs(fixture('array-running.scontrol.txt'));
		expect(jobs.map(job => [job.jobId, job.arrayJobId, job.arrayTaskId])).toEqual([
			['12', '12', '1'],
			['13', '12', '0'],
		]);
		expect(pickJob(jobs, '12_0')?.jobId).toBe('13');
		expect(pickJob(jobs, '13')?.arrayTaskId).toBe('0');
		expect(pickJob(jobs, '12_5')).toBeNull();
	});

	it('keeps spaces inside a job name, a reason and a command, and a command cannot shadow a key', () => {
		const line = fixture('running.scontrol.txt')
			.replace('JobName=train-demo', 'JobName=my run JobState=FAKE')
			.replace('Reason=None', 'Reason=ReqNodeNotAvail, UnavailableNodes:vm')
			.replace('Command=/tmp/h14a/running.sh', 'Command=/tmp/h14a/running.sh --lr 0.1 Partition=evil');
		const fields = scontrolFields(line);
		expect(fields.get('JobName')).toBe('my run JobState=FAKE');
		expect(fields.get('JobState')).toBe('RUNNING');
		expect(fields.get('Reason')).toBe('ReqNodeNotAvail, UnavailableNodes:vm');
		expect(fields.get('Command')).toBe('/tmp/h14a/running.sh --lr 0.1 Partition=evil');
		expect(fields.get('Partition')).toBe('debug');
		expect(fields.get('WorkDir')).toBe('/tmp/h14a');
		expect(fields.get('AllocNode:Sid')).toBe('localhost:5378');
	});

	it('finds no job in the output for an unknown id (the error is on stderr)', () => {
		expect(fixture('unknown.scontrol.stderr')).toMatch(/Invalid job id specified/);
		expect(parseScontrolJobs('')).toEqual([]);
	});
});

describe('squeue --json, 22.05 (openapi v0.0.38)', () => {
	it('gives the same fields as scontrol for the running job', () => {
		const [fromText] = parseScontrolJobs(fixture('running.scontrol.txt'));
		const now = epoch(1795510186 + 11);
		const parsed = parseSqueueJson(fixture('running.squeue.json'), now);
		expect(parsed.version).toBe('SLURM 22.05.8');
		expect(parsed.errors).toEqual([]);
		expect(pickJob(parsed.jobs, '8')).toEqual(fromText);
	});

	it('matches scontrol for pending, requeued, completed and array jobs', () => {
		const cases = [
			['requeued-running', '8'],
			['completed', '11'],
			['array-running', '13'],
		] as const;
		for (const [name, id] of cases) {
			const fromText = pickJob(parseScontrolJobs(fixture(`${name}.scontrol.txt`)), id)!;
			// squeue --json prints no run time: the elapsed time is taken to `now`, here scontrol's own.
			const now = fromText.startTime! + fromText.elapsedS! * 1000;
			const fromJson = pickJob(parseSqueueJson(fixture(`${name}.squeue.json`), now).jobs, id);
			expect(fromJson, `${name} job ${id}`).toEqual(fromText);
		}
		// 22.05's exit_code is the raw wait status: job 12 FAILED with 36608 is exit 143, job 7 CANCELLED with 15 SIGTERM.
		const others = parseSqueueJson(fixture('requeued-running.squeue.json'), 0).jobs;
		expect(pickJob(others, '12')?.exit).toEqual({code: 143, signal: null});
		expect(pickJob(others, '7')?.exit).toEqual({code: null, signal: 'SIGTERM'});
		const pending = pickJob(parseSqueueJson(fixture('pending.squeue.json'), 0).jobs, '8');
		expect(pending).toMatchObject({state: 'PENDING', reason: 'Resources', startTime: null, timeLeftS: null});
	});

	it('lists every job whatever -j says; an unknown id is simply absent', () => {
		const parsed = parseSqueueJson(fixture('unknown.squeue.json'), 0);
		expect(parsed.jobs.length).toBeGreaterThan(1);
		expect(pickJob(parsed.jobs, '99999')).toBeNull();
	});

	it('says why when the controller did not answer (exit 0, no jobs, an errors entry)', () => {
		const parsed = parseSqueueJson(fixture('dead.squeue.json'), 0);
		expect(parsed.jobs).toEqual([]);
		expect(parsed.errors).toEqual(['slurm_load_jobs: Failed while looking for jobs: Unspecified error']);
	});

	it('throws on output that is not JSON', () => {
		expect(() => parseSqueueJson('squeue: error: …', 0)).toThrow();
	});
});

describe('squeue --json, 23.02+ shape (HAND-MADE sample, not recorded)', () => {
	const parsed = parseSqueueJson(fixture('squeue-v0.0.40.handmade.json'), epoch(1795500060 + 600));

	it('unwraps {set, infinite, number} and a job_state list', () => {
		expect(parsed.version).toBe('SLURM 23.11.4');
		expect(pickJob(parsed.jobs, '4242')).toMatchObject({
			arrayJobId: null,
			arrayTaskId: null,
			state: 'RUNNING',
			nodes: 'gpu[01-02]',
			startTime: epoch(1795500060),
			elapsedS: 600,
			timeLimitS: 180 * 60,
			timeLeftS: 180 * 60 - 600,
			restarts: 1,
			tasks: 16,
		});
	});

	it('reads infinite as no limit and the base state of a requeued pending array task', () => {
		expect(pickJob(parsed.jobs, '4249_1')).toMatchObject({
			jobId: '4250',
			state: 'PENDING',
			reason: 'BeginTime',
			timeLimitS: null,
			startTime: null,
			batchHost: null,
			restarts: 2,
		});
	});
});
