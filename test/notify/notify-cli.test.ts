import {spawn} from 'node:child_process';
import {chmodSync, existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {afterAll, afterEach, beforeAll, describe, expect, test} from 'vitest';
import {type DemoJob, startDemoJob} from '../../src/demo/job.js';
import {createScratchCgroup, type ScratchCgroup, scratchCgroupUnavailable} from '../helpers/cgroup-scratch.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {until} from '../helpers/until.js';
import {startWebhookReceiver, type WebhookReceiver} from '../helpers/webhook-receiver.js';

// Notifications end to end, on the built binary: a real memory cgroup with a limit holds traintop and what it watches,
// so the RAM metric is that limit's (the job's while its ranks live, traintop's own after), whatever the rest of a
// busy CI machine does; a local HTTP server stands for Slack's incoming webhook.

const MIB = 1024 ** 2;
const LIMIT = 512 * MIB;
const NO_GPU = ['--nvidia-smi', '/nonexistent/nvidia-smi'];
const unavailable = scratchCgroupUnavailable();
if (unavailable) console.warn(`skipping the notification tests in a cgroup: ${unavailable}`);

interface Body {
	readonly event: string;
	readonly metric?: string;
	readonly text: string;
	readonly host: string;
	readonly schema_version: number;
	readonly notice: {readonly state: string; readonly episode: string; readonly level: string; readonly repeats: number};
}

const bodies = (receiver: WebhookReceiver): Body[] => receiver.requests.map(request => request.body as unknown as Body);
const ramNotices = (receiver: WebhookReceiver, state: string): Body[] =>
	bodies(receiver).filter(body => body.event === 'level' && body.metric === 'ram' && body.notice.state === state);

/** Until the receiver has a resolve of the RAM episode. */
async function resolvedOnce(receiver: WebhookReceiver): Promise<void> {
	await until(
		() => ramNotices(receiver, 'resolved').length,
		n => n >= 1,
		'the resolve',
		60_000,
	);
}

/** Headless JSON at 2 samples a second, RAM critical at 50 % of the limit, notices to the receiver. */
function watching(pid: number, receiver: WebhookReceiver): string[] {
	const fast = ['--interval', '0.5', '--log-interval', '0.5'];
	return [
		'--headless',
		'--json',
		'--no-log',
		...NO_GPU,
		...fast,
		'--pid',
		String(pid),
		'--ram-threshold',
		'50',
		'--webhook',
		receiver.url,
	];
}

/** Starts traintop and moves it into the cgroup's child `monitor` at once (its pages from then on are charged there). */
function startCliIn(cgroup: ScratchCgroup, args: readonly string[]): CliRun {
	const run = startCli(args);
	writeFileSync(path.join(cgroup.dir('monitor'), 'cgroup.procs'), String(run.child.pid));
	return run;
}

/** The log records (one per sample with --log-interval = --interval) of a --json stdout. */
function records(run: CliRun): {timestamp: string}[] {
	return run
		.stdout()
		.split('\n')
		.filter(line => line.startsWith('{') && line.includes('"timestamp"') && !line.includes('"event"'))
		.map(line => JSON.parse(line) as {timestamp: string});
}

/** Waits until `more` further records have been printed: time passing as traintop counts it, not a sleep. */
async function recordsPass(run: CliRun, more: number, timeoutMs = 60_000): Promise<void> {
	const start = records(run).length;
	await until(
		() => records(run).length,
		count => count >= start + more,
		`${more} more records`,
		timeoutMs,
	);
}

/** A python3 process in `cgroupDir` that holds as many MiB as a line on its stdin says, and answers `held N`. */
async function startHolder(cgroupDir: string) {
	const script = [
		'import os, sys',
		`open(${JSON.stringify(path.join(cgroupDir, 'cgroup.procs'))}, "w").write(str(os.getpid()))`,
		'held = None',
		'print("ready", flush=True)',
		'for line in sys.stdin:',
		'    held = None',
		'    mib = int(line)',
		'    if mib > 0:',
		'        held = bytearray(mib * 1024 * 1024)',
		'        held[::4096] = b"x" * (mib * 256)',
		'    print("held", mib, flush=True)',
	].join('\n');
	const child = spawn('python3', ['-c', script, 'traintop-test-holder'], {
		env: {PATH: process.env.PATH ?? '/usr/bin:/bin', RANK: '0', WORLD_SIZE: '1'},
		stdio: ['pipe', 'pipe', 'inherit'],
	});
	const lines: string[] = [];
	createInterface({input: child.stdout}).on('line', line => lines.push(line));
	await until(
		() => lines,
		seen => seen.includes('ready'),
		'the holder ready',
	);
	return {
		pid: child.pid!,
		/** Holds `mib` MiB and resolves once the pages are touched. */
		async hold(mib: number): Promise<void> {
			const count = lines.filter(line => line === `held ${mib}`).length;
			child.stdin.write(`${mib}\n`);
			await until(
				() => lines.filter(line => line === `held ${mib}`).length,
				n => n > count,
				`the holder holding ${mib} MiB`,
			);
		},
		stop: () => {
			child.kill('SIGKILL');
		},
	};
}

describe.skipIf(unavailable !== null)('notifications from the built binary, RAM in a real cgroup', () => {
	let dir: string;
	let receiver: WebhookReceiver;
	let cgroup: ScratchCgroup;
	const cleanups: (() => Promise<void> | void)[] = [];
	beforeAll(async () => {
		dir = await mkdtemp(path.join(tmpdir(), 'traintop-notify-'));
	});
	afterEach(async () => {
		for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
	});
	afterAll(async () => {
		await rm(dir, {recursive: true, force: true});
	});

	async function setUp(): Promise<void> {
		receiver = await startWebhookReceiver();
		cleanups.push(() => receiver.close());
		cgroup = createScratchCgroup(['monitor', 'step']);
		cgroup.limit(LIMIT);
		cleanups.push(() => cgroup.remove());
	}

	async function stopCli(run: CliRun): Promise<void> {
		run.child.kill('SIGINT');
		await run.exited;
	}

	test('the demo job leaks until the OOM killer ends it: one CRIT message for the episode, one resolve after it', async () => {
		await setUp();
		// The demo's ranks start inside the cgroup: the launcher is exec'd there by a wrapper for python3.
		const wrapper = path.join(dir, 'python-in-cgroup');
		writeFileSync(
			wrapper,
			`#!/bin/sh\necho $$ > ${path.join(cgroup.dir('step'), 'cgroup.procs')}\nexec python3 "$@"\n`,
		);
		chmodSync(wrapper, 0o755);
		const runDir = path.join(dir, 'leak-run');
		const job: DemoJob = await startDemoJob({
			runDir,
			ranks: 2,
			workers: 0,
			stepSeconds: 0.05,
			saveEvery: 0,
			shutdownTimeoutS: 2,
			masterPort: 29_731,
			leakMbPerMin: 1500,
			leakRanks: [1],
			python: wrapper,
		});
		cleanups.push(async () => {
			await job.stop();
		});
		await job.ranksReady();
		const run = startCliIn(cgroup, [...watching(job.launcherPid, receiver), '--notify-cooldown', '3']);
		cleanups.push(() => stopCli(run));

		// The leak crosses 50 % of the limit: the message, once.
		await until(
			() => ramNotices(receiver, 'raised').length,
			n => n >= 1,
			'the CRIT RAM message',
			120_000,
		);
		// The kernel's OOM killer ends the leaking rank at the limit; the launcher stops the other; RAM falls back.
		expect(await job.exited).not.toBeNull();
		await resolvedOnce(receiver);
		// Traintop goes on sampling; nothing more comes of the episode.
		await recordsPass(run, 8);
		const raised = ramNotices(receiver, 'raised');
		const resolved = ramNotices(receiver, 'resolved');
		expect(raised).toHaveLength(1);
		expect(resolved).toHaveLength(1);
		expect(raised[0]!.notice.level).toBe('critical');
		expect(raised[0]!.text).toMatch(/CRIT.*ram/);
		expect(resolved[0]!.notice.episode).toBe(raised[0]!.notice.episode);
		expect(resolved[0]!.schema_version).toBe(1);
		// The ranks' end is a notice of its own, once however many ranks went (the killed one first when its status
		// was readable: the launcher may reap it before /proc is read).
		const deaths = bodies(receiver).filter(body => body.event === 'rank-exited');
		expect(deaths).toHaveLength(1);
		expect(deaths[0]!.text).toMatch(/rank [01] \(pid \d+\) of launcher\.py:\d+ /);
	}, 240_000);

	test('a metric that flaps inside the hysteresis, or across the line within the cool-down, is one message and one resolve', async () => {
		await setUp();
		const holder = await startHolder(cgroup.dir('step'));
		cleanups.push(() => holder.stop());
		const run = startCliIn(cgroup, [...watching(holder.pid, receiver), '--hysteresis', '5', '--notify-cooldown', '4']);
		cleanups.push(() => stopCli(run));
		await recordsPass(run, 2);

		await holder.hold(300); // about 60 % of 512 MiB
		await until(
			() => ramNotices(receiver, 'raised').length,
			n => n >= 1,
			'the CRIT RAM message',
			60_000,
		);
		// Inside the hysteresis: 47–51 %, never 5 points under the line; the level stays CRIT.
		for (let round = 0; round < 4; round++) {
			await holder.hold(240);
			await recordsPass(run, 2);
			await holder.hold(262);
			await recordsPass(run, 2);
		}
		// Across the line and back within the cool-down: the level drops, the episode does not end.
		await holder.hold(20);
		await recordsPass(run, 2);
		await holder.hold(300);
		await recordsPass(run, 2);
		expect(ramNotices(receiver, 'raised')).toHaveLength(1);
		expect(ramNotices(receiver, 'resolved')).toHaveLength(0);

		await holder.hold(0);
		await resolvedOnce(receiver);
		await recordsPass(run, 8);
		expect(ramNotices(receiver, 'raised')).toHaveLength(1);
		expect(ramNotices(receiver, 'resolved')).toHaveLength(1);
		expect(ramNotices(receiver, 'resolved')[0]!.notice.repeats).toBeGreaterThanOrEqual(1);
	}, 240_000);
});

describe('a notify command that never ends', () => {
	test('is killed after its timeout, and the monitor keeps its 1 s cadence meanwhile', async () => {
		const dir = await mkdtemp(path.join(tmpdir(), 'traintop-notify-hang-'));
		const script = path.join(dir, 'hang-forever.sh');
		// A sleep of its own length, to be told from any other on the machine.
		const seconds = String(100_000 + Math.floor(Math.random() * 100_000));
		writeFileSync(script, `#!/bin/sh\ncat > /dev/null\nsleep ${seconds}\n`);
		chmodSync(script, 0o755);
		// RAM at or above 0.1 % is CRIT at once: a notice the moment traintop starts.
		const run = startCli([
			'--headless',
			'--json',
			'--no-log',
			...NO_GPU,
			'--interval',
			'1',
			'--log-interval',
			'1',
			'--ram-threshold',
			'0.1',
			'--notify-command',
			script,
			'--notify-timeout',
			'10',
		]);
		try {
			// The sleep the script started: its own length tells it from any other (traintop's own argv names the script).
			const sleeping = () => sleepsOf(seconds);
			const [sleep] = await until(sleeping, pids => pids.length > 0, 'the notify command running', 60_000);
			// Killed after --notify-timeout with its whole group, the sleep among it.
			await until(
				() => existsSync(`/proc/${sleep}`) && sleeping().includes(sleep!),
				alive => !alive,
				'the command killed',
				60_000,
			);
			await recordsPass(run, 10);
			await run.waitFor(out => /notify command|command .*(killed|timed out|timeout)/i.test(out.stderr), 30_000);
			// The samples' own timestamps: one a second while the command hung and after, none skipped.
			const times = records(run).map(record => Date.parse(record.timestamp));
			const gaps = times.slice(1).map((time, i) => (time - times[i]!) / 1000);
			expect(gaps.length).toBeGreaterThanOrEqual(10);
			const sorted = [...gaps].sort((a, b) => a - b);
			expect(sorted[Math.floor(sorted.length / 2)]).toBeCloseTo(1, 0);
			// A sample that waited on the command would leave a gap of at least its 10 s timeout; a loaded machine's late
			// timers, never that much (the suite under load has seen them a few seconds late).
			expect(Math.max(...gaps)).toBeLessThan(8);
		} finally {
			run.child.kill('SIGINT');
			await run.exited;
			await rm(dir, {recursive: true, force: true});
		}
	}, 180_000);
});

/** The pids of `sleep SECONDS`. */
function sleepsOf(seconds: string): number[] {
	const pids: number[] = [];
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			if (readFileSync(path.join('/proc', entry, 'cmdline'), 'utf8') === `sleep\0${seconds}\0`)
				pids.push(Number(entry));
		} catch {
			// gone meanwhile
		}
	}
	return pids;
}
