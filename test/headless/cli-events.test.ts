import {afterEach, expect, test} from 'vitest';
import {logRecordReadSchema} from '../../src/memlog/record.js';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {type RankLauncher, startRankLauncher} from '../helpers/rank-launcher.js';
import {startCli} from '../helpers/run-cli.js';

// The job's life through the built CLI: two real ranks of one job (a shared rendezvous, started by one launcher),
// one stopped, then killed, then the other ended; each is an event line on stderr and an event object among --json's
// records.

let launcher: RankLauncher | null = null;
let dir = '';
afterEach(async () => {
	await launcher?.stop();
	launcher = null;
	if (dir) rmSync(dir, {recursive: true, force: true});
});

type Line = Record<string, unknown>;

function jsonLines(text: string): Line[] {
	return text
		.split('\n')
		.filter(Boolean)
		.map(line => JSON.parse(line) as Line);
}

test('a rank stopped and killed, then the job ended: stderr lines and --json event objects', async () => {
	const tag = `tt-events-${process.pid}-${Date.now()}`;
	const port = String(20_000 + (process.pid % 20_000));
	const env = {MASTER_ADDR: '127.0.0.1', MASTER_PORT: port, WORLD_SIZE: '2'};
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-events-'));
	launcher = startRankLauncher(dir, {exitWhenIdle: true});
	const launcherPid = launcher.child.pid;
	const sleeper = ['python3', '-c', 'import time; time.sleep(600)', tag];
	const path_ = {PATH: process.env.PATH ?? '/usr/bin:/bin'};
	const rank0 = await launcher.launch(sleeper, {...path_, ...env, RANK: '0'});
	const rank1 = await launcher.launch(sleeper, {...path_, ...env, RANK: '1'});
	const jobId = `rdzv:127.0.0.1:${port}`;
	const run = startCli([
		'--json',
		'--nvidia-smi',
		'/nonexistent/nvidia-smi',
		'--interval',
		'0.1',
		'--log-interval',
		'0.3',
		'--ranks-interval',
		'0.5',
		// The sleeping ranks use no CPU: only a stop may quiet them here, not the stall window.
		'--stall-after',
		'3600',
		'--no-log',
		'--match',
		tag,
	]);
	// The job's life events: not the stream's start line ({"schema_version":1,"event":"start",…}) nor its readiness or
	// progress verdicts (their own tests: test/readiness/, test/progress/).
	const all = () => jsonLines(run.stdout()).filter(line => 'event' in line && line.event !== 'start');
	const events = () => all().filter(line => line.event !== 'readiness' && line.event !== 'progress');
	try {
		await run.waitFor(o => o.stderr.includes(`rank 1 (pid ${rank1.pid}) found`), 15_000);
		rank1.kill('SIGSTOP');
		await run.waitFor(o => o.stderr.includes('stopped (SIGSTOP'), 15_000);
		rank1.kill('SIGKILL');
		await rank1.exited;
		await run.waitFor(
			o =>
				o.stderr.includes(`rank 1 (pid ${rank1.pid}) of ${jobId} was killed`) ||
				o.stderr.includes(`rank 1 (pid ${rank1.pid}) of ${jobId} is gone`),
			15_000,
		);
		rank0.kill('SIGKILL');
		await run.waitFor(o => o.stderr.includes(`job ${jobId} ended`), 15_000);
		run.child.kill('SIGINT');
		expect(await run.exited).toBe(0);
	} finally {
		run.child.kill('SIGKILL');
	}

	const stderr = run.stderr();
	expect(stderr).toMatch(
		new RegExp(
			`traintop: \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d WARN rank 1 \\(pid ${rank1.pid}\\) of ${jobId} stopped \\(SIGSTOP, SIGTSTP or a debugger\\)\\n`,
		),
	);
	// SIGKILL's status is read when traintop sees the zombie before the test's process reaps it; else it is gone.
	expect(stderr).toMatch(
		new RegExp(
			`(CRIT rank 1 \\(pid ${rank1.pid}\\) of ${jobId} was killed by SIGKILL|WARN rank 1 \\(pid ${rank1.pid}\\) of ${jobId} is gone)`,
		),
	);
	expect(stderr).toMatch(new RegExp(`(CRIT|WARN) job ${jobId} ended, (killed by SIGKILL|exit status unknown)\\n`));

	// Its readiness when first judged, and again as its ranks go: ranks that sleep with SIGTERM's default action would
	// die unsaved.
	const readiness = all().filter(line => line.event === 'readiness');
	expect(readiness.map(line => line.verdict)).toEqual(readiness.map(() => 'not-ready'));
	expect(readiness[0]).toMatchObject({job: jobId, verdict: 'not-ready', signal: 'SIGTERM'});
	const missing = (readiness[0]!.reasons as Line[]).filter(reason => reason.code === 'no-handler');
	expect(missing.map(reason => reason.pid).sort()).toEqual([rank0.pid, rank1.pid].sort());
	expect(stderr).toContain(`readiness ${jobId}: not-ready — rank 0 (pid ${rank0.pid}) has no SIGTERM handler`);

	expect(events().map(e => [e.event, e.pid])).toEqual([
		['rank-stopped', rank1.pid],
		['rank-exited', rank1.pid],
		['rank-exited', rank0.pid],
		// A job with a launcher ends with it: its event names the launcher's pid.
		['job-ended', launcherPid],
	]);
	expect(events()[0]).toEqual({
		event: 'rank-stopped',
		time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
		job: jobId,
		rank: 1,
		pid: rank1.pid,
		level: 'warn',
		text: `rank 1 (pid ${rank1.pid}) of ${jobId} stopped (SIGSTOP, SIGTSTP or a debugger)`,
		exit: null,
	});
	expect(events()[3]).toMatchObject({event: 'job-ended', job: jobId, rank: null});
	// The records between them are unchanged.
	const records = jsonLines(run.stdout()).filter(line => !('event' in line));
	expect(records.length).toBeGreaterThan(0);
	for (const record of records) expect(logRecordReadSchema.safeParse(record).success).toBe(true);
});
