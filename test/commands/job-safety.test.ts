import {spawn, type ChildProcess} from 'node:child_process';
import {existsSync} from 'node:fs';
import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {connect} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {DEMO_JOB_DIR} from '../../src/demo/job.js';
import {runCli, startCli, type CliRun} from '../helpers/run-cli.js';

// What is never a rank, whatever its environment (a batch-script shell, another traintop), and a monitor that
// starts before its job: `torchrun … & traintop RUN_DIR --pid $!` on a run dir made seconds later.

let dir: string;
const started: ChildProcess[] = [];
const clis: CliRun[] = [];
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-safety-'));
});
afterEach(async () => {
	for (const cli of clis.splice(0)) cli.child.kill('SIGKILL');
	for (const child of started.splice(0)) {
		try {
			process.kill(-child.pid!, 'SIGKILL'); // the whole group: a shell and what it started
		} catch {
			// already gone
		}
	}
	await rm(dir, {recursive: true, force: true});
});

/** Starts a command in its own process group; resolves when it prints `ready` (when asked to wait for it). */
async function startGroup(command: string, args: string[], env: Record<string, string>, waitReady: boolean) {
	const child = spawn(command, args, {
		env: {...process.env, ...env},
		stdio: ['ignore', 'pipe', 'inherit'],
		detached: true,
	});
	started.push(child);
	if (waitReady)
		await new Promise<void>(resolve => {
			createInterface({input: child.stdout!}).on('line', line => {
				if (line === 'ready') resolve();
			});
		});
	return child;
}

const NO_GPU = ['--nvidia-smi', '/nonexistent'];

test('a batch-script shell carrying SLURM_PROCID is not a rank; the python it runs is (a job of its own: no step proves its SLURM ids)', async () => {
	const env = {SLURM_JOB_ID: '999', SLURM_STEP_ID: 'batch', SLURM_PROCID: '0', SLURM_NTASKS: '1'};
	// `; true` keeps bash alive as the parent (a lone command would be exec'd in its place), as sbatch's script is.
	const script = 'python3 -c "import time; print(\'ready\', flush=True); time.sleep(120)"; true';
	const shell = await startGroup('bash', ['-c', script], env, true);
	const {stdout, code} = await runCli(['ranks', '--json', '--pid', String(shell.pid), ...NO_GPU]);
	expect(code).toBe(0);
	const out = JSON.parse(stdout) as {
		jobs: {id: string; ranks: number[]}[];
		ranks: {pid: number; ppid: number; cmd: string}[];
	};
	expect(out.ranks).toHaveLength(1);
	expect(out.ranks[0]).toMatchObject({ppid: shell.pid});
	expect(out.ranks[0]?.cmd).toMatch(/python3 -c import time/);
	// Its SLURM variables were set by hand here: no slurmstepd of job 999 above it, so they name no job (job-proof.ts).
	expect(out.jobs.map(j => j.id)).toEqual([`pid:${out.ranks[0]?.pid}`]);
});

test('another traintop with rank variables is never a rank, and SIGUSR1 opens no inspector in it', async () => {
	const other = startCli(['--headless', '--no-log', '--interval', '0.2', ...NO_GPU], {
		env: {RANK: '0', LOCAL_RANK: '0', SLURM_PROCID: '0', WORLD_SIZE: '1'},
	});
	clis.push(other);
	await other.waitFor(({stdout, stderr}) => stdout.length + stderr.length > 0);
	process.kill(other.child.pid!, 'SIGUSR1');
	const {stdout} = await runCli(['ranks', '--json', '--pid', String(other.child.pid), ...NO_GPU]);
	expect((JSON.parse(stdout) as {ranks: unknown[]}).ranks).toEqual([]);
	// Node opens the inspector on SIGUSR1 at once and says so on stderr; a scan later, nothing was said…
	expect(other.stderr()).not.toMatch(/Debugger listening/);
	// …nothing listens on the inspector's port…
	const refused = await new Promise<boolean>(resolve => {
		const socket = connect(9229, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(false);
		});
		socket.once('error', () => resolve(true));
	});
	expect(refused).toBe(true);
	// …and it is still monitoring: it stops on SIGTERM as it should, exit 0.
	other.child.kill('SIGTERM');
	expect(await other.exited).toBe(0);
});

test('started before its job: RUN_DIR made 3 s later is waited for, the ranks and saves are found, the log lands there', async () => {
	const runDir = path.join(dir, 'run');
	const launch = [
		'sleep 3',
		`exec python3 ${path.join(DEMO_JOB_DIR, 'launcher.py')} --run-dir ${runDir} --ranks 2 --workers 0 --step-seconds 0.05 --save-every 40 --master-port 29641 --shutdown-timeout 3`,
	].join('; ');
	const job = await startGroup('sh', ['-c', launch], {}, false);
	const monitor = startCli(
		[runDir, '--headless', '--json', '--pid', String(job.pid), '--interval', '0.5', '--log-interval', '1', ...NO_GPU],
		{},
	);
	clis.push(monitor);
	await monitor.waitFor(({stderr}) =>
		stderr.includes(`RUN_DIR ${runDir} does not exist yet: waiting for it to appear`),
	);
	expect(existsSync(runDir)).toBe(false);
	// Found at a full process scan (every 10 s while there are no ranks), then the first periodic save.
	await monitor.waitFor(({stderr}) => /ranks: rank 0 \(pid \d+\), rank 1 \(pid \d+\)/.test(stderr), 30_000);
	await monitor.waitFor(({stderr}) => /saved checkpoint_step_40_\S+ \(periodic/.test(stderr), 30_000);
	// The memory log was held while RUN_DIR was missing and written once it appeared.
	await monitor.waitFor(() => existsSync(path.join(runDir, 'traintop-memory.jsonl')), 10_000);
	const log = await readFile(path.join(runDir, 'traintop-memory.jsonl'), 'utf8');
	expect(log.trim().split('\n').length).toBeGreaterThanOrEqual(1);
	monitor.child.kill('SIGTERM');
	expect(await monitor.exited).toBe(0);
}, 60_000);

test('--pid of a process that is not running: says the job ended (or the pid is wrong), not just "no ranks"', async () => {
	const gone = spawn('true');
	const pid = gone.pid!;
	await new Promise(resolve => gone.once('exit', resolve));
	const {stdout, code} = await runCli(['ranks', '--pid', String(pid), ...NO_GPU]);
	expect(code).toBe(0);
	expect(stdout.trim()).toBe(
		`no ranks found: process ${pid} is not running (the job it started has ended, or the pid is wrong)`,
	);
});

test("inside an allocation (SLURM_JOB_ID in traintop's environment) only that SLURM job's tasks are ranks", async () => {
	const task = (job: string) =>
		startGroup(
			'python3',
			['-c', 'import time; print("ready", flush=True); time.sleep(120)', `tt-alloc-${job}`],
			{SLURM_JOB_ID: job, SLURM_STEP_ID: '0', SLURM_PROCID: '0', SLURM_NTASKS: '1'},
			true,
		);
	const [mine, other] = await Promise.all([task(`${process.pid}1`), task(`${process.pid}2`)]);
	// Run as if under `srun --jobid J --overlap`: traintop's own SLURM_JOB_ID is the first job's.
	const {stdout} = await runCli(['ranks', '--json', '--match', 'tt-alloc-', ...NO_GPU], {
		env: {SLURM_JOB_ID: `${process.pid}1`},
	});
	const out = JSON.parse(stdout) as {jobs: {id: string}[]; ranks: {pid: number}[]};
	expect(out.ranks.map(r => r.pid)).toEqual([mine.pid]);
	// Its variables were set here, not by a step of that job (no slurmstepd above it): a job of its own.
	expect(out.jobs.map(j => j.id)).toEqual([`pid:${mine.pid}`]);
	// Outside an allocation both are found, each its own job.
	const all = JSON.parse((await runCli(['ranks', '--json', '--match', 'tt-alloc-', ...NO_GPU])).stdout) as {
		ranks: {pid: number}[];
	};
	expect(all.ranks.map(r => r.pid).sort()).toEqual([mine.pid, other.pid].sort());
});
