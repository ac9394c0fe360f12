import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {cleanup, render} from 'ink-testing-library';
import {afterEach, beforeEach, expect, test} from 'vitest';
import type {DemoJob} from '../../src/demo/job.js';
import App from '../../src/ui/app.js';
import {allGotSigterm, endJob} from '../helpers/demo-signals.js';
import {press, untilFrame as until} from '../helpers/ink.js';
import {closeSessions, testSession} from '../helpers/session.js';
import {checkpointKinds as kinds, startSmallJob} from '../helpers/small-demo-job.js';

// Two real demo jobs at once, in two run dirs, watched by one real session with RUN_DIR = B's: the TUI shows
// both jobs, and `s` on a rank of job B sends to B's ranks only; job A gets nothing.

const DOWN = '\u001B[B';
const ESC = '\u001B';

let dirA = '';
let dirB = '';
let jobs: DemoJob[] = [];

beforeEach(async () => {
	dirA = await mkdtemp(path.join(tmpdir(), 'traintop-tui-job-a-'));
	dirB = await mkdtemp(path.join(tmpdir(), 'traintop-tui-job-b-'));
});

afterEach(async () => {
	cleanup();
	await closeSessions();
	await Promise.all(jobs.map(job => job.stop()));
	jobs = [];
	await Promise.all([dirA, dirB].map(dir => rm(dir, {recursive: true, force: true})));
});

async function start(runDir: string, masterPort: number): Promise<DemoJob> {
	const job = await startSmallJob(runDir, masterPort);
	jobs.push(job);
	return job;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test("s on a rank of job B: the box names job B, B's ranks save, job A gets nothing", async () => {
	const [a, b] = await Promise.all([start(dirA, 29_701), start(dirB, 29_702)]);
	// These two jobs' ranks only (not the launchers, whose command line names the run dir too), whatever else runs here.
	const pattern = new RegExp(`rank\\.py --run-dir (${escapeRegExp(dirA)}|${escapeRegExp(dirB)}) `);
	const session = await testSession({settings: {timeout: 15}, runDir: dirB, selector: {kind: 'match', pattern}});
	const {lastFrame, stdin} = render(<App session={session} />);
	const idA = `launcher.py:${a.launcherPid}`;
	const idB = `launcher.py:${b.launcherPid}`;
	const pidsA = [...(await a.ranksReady()).values()];
	const pidsB = [...(await b.ranksReady()).values()];

	const frame = await until(lastFrame, f => f.includes(`JOB ${idA} ·`) && f.includes(`JOB ${idB} ·`));
	expect(frame).toContain('RANKS 4 in 2 jobs');
	expect(frame).toMatch(new RegExp(`JOB ${idB} · 2 ranks \\(world 2\\) · run dir ${escapeRegExp(dirB)}`));
	for (const pid of [...pidsA, ...pidsB]) expect(frame).toMatch(new RegExp(`^[› ][● ] +[01] +${pid} `, 'm'));

	// The cursor counts ranks job by job; B's second rank is after every rank of the jobs listed before B.
	const listed = session.monitor.getSnapshot()?.ranks?.jobs ?? [];
	const before = listed
		.slice(
			0,
			listed.findIndex(job => job.id === idB),
		)
		.reduce((n, job) => n + job.ranks.length, 0);
	await press(stdin, ...Array.from({length: before + 1}, () => DOWN));
	await until(lastFrame, f => f.includes(`target: job ${idB} (all 2 ranks)`));

	await press(stdin, 's');
	const box = await until(lastFrame, f => f.includes(`Send SIGUSR1 (save) to job ${idB}?`));
	expect(box).toContain(`all 2 ranks · run dir ${dirB}`);
	for (const pid of pidsB) expect(box).toContain(`pid ${pid}  handles SIGUSR1`);
	for (const pid of pidsA) expect(box).not.toContain(`pid ${pid} `);

	await press(stdin, 'y');
	await until(lastFrame, f => f.includes(`SIGUSR1 (save) to job ${idB}: sent 2`));
	await press(stdin, ESC);
	await b.waitForLine(/^rank 0 step \d+ saved checkpoint_step_\d+_\d+_\d+ \(manual\)$/, 10_000);
	// RUN_DIR is B's, so the save is watched and attributed.
	await until(lastFrame, f => /saved checkpoint_step_\d+_\d+_\d+ in [\d.]+ s/.test(f), 15_000);
	expect(await kinds(dirB)).toEqual(['manual']);
	expect(b.output()).toMatch(/^rank 1 got SIGUSR1$/m);

	// A answers a later SIGTERM in order: a SIGUSR1 sent to it before would have shown first.
	expect(await endJob(a, 2)).toEqual(allGotSigterm(2));
	expect(a.output()).not.toMatch(/SIGUSR1/);
	expect(await kinds(dirA)).not.toContain('manual');
});
