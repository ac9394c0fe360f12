import {describe, expect, test} from 'vitest';
import {buildRankTree, type ProcessFacts} from '../../src/ranks/tree.js';

// Ranks grouped into jobs, from process facts: every identity rule and every "never a rank" rule.

const ME = {pid: 900, uid: 1000};

function p(
	pid: number,
	ppid: number,
	argv: string,
	env: Record<string, string> | null = {},
	extra: {uid?: number; comm?: string} = {},
): ProcessFacts {
	return {
		pid,
		ppid,
		uid: extra.uid ?? 1000,
		startTime: pid * 10,
		argv: argv.split(' '),
		...(extra.comm === undefined ? {} : {comm: extra.comm}),
		env: env === null ? null : new Map(Object.entries(env)),
	};
}

const shell = [p(1, 0, '/sbin/init', {}, {uid: 0}), p(100, 1, '/bin/bash')];

function elastic(agent: number, runId: string, port: string): ProcessFacts[] {
	const env = (rank: number) => ({
		RANK: String(rank),
		LOCAL_RANK: String(rank),
		WORLD_SIZE: '2',
		LOCAL_WORLD_SIZE: '2',
		MASTER_ADDR: '127.0.0.1',
		MASTER_PORT: port,
		TORCHELASTIC_RUN_ID: runId,
	});
	return [
		p(agent, 100, '/usr/bin/python3 /usr/bin/torchrun --nproc-per-node 2 train.py'),
		p(agent + 1, agent, '/usr/bin/python3 -u train.py', env(0)),
		p(agent + 2, agent, '/usr/bin/python3 -u train.py', env(1)),
	];
}

const jobsOf = (all: ProcessFacts[], slurmJob: string | null = null) =>
	buildRankTree(all, {kind: 'env'}, ME, {
		scheduledJob: slurmJob === null ? null : {kind: 'slurm', jobId: slurmJob},
	}).jobs.map(job => ({
		id: job.id,
		identity: job.identity,
		launcher: job.launcher?.pid ?? null,
		ranks: job.ranks.map(r => r.process.pid),
	}));

/** Each job's proof, its ranks and the processes that only claim it (pid and why not proven). */
const proofOf = (all: ProcessFacts[]) =>
	buildRankTree(all, {kind: 'env'}, ME).jobs.map(job => ({
		id: job.id,
		provenBy: job.provenBy,
		ranks: job.ranks.map(r => r.process.pid),
		unproven: job.unproven.map(u => [u.member.process.pid, u.reason]),
	}));

const RDZV = {MASTER_ADDR: '127.0.0.9', MASTER_PORT: '29999', WORLD_SIZE: '2'};

describe('jobs', () => {
	test('two torchrun jobs with the default run id "none" are two jobs, one per agent', () => {
		const all = [...shell, ...elastic(200, 'none', '29500'), ...elastic(300, 'none', '29501')];
		expect(jobsOf(all)).toEqual([
			{id: 'torchrun:200', identity: 'elastic', launcher: 200, ranks: [201, 202]},
			{id: 'torchrun:300', identity: 'elastic', launcher: 300, ranks: [301, 302]},
		]);
		// With two jobs, no single launcher stands for "the" job.
		expect(buildRankTree(all, {kind: 'env'}, ME).launcher).toBeNull();
	});

	test('SLURM: tasks of one step are one job, another step of the same job is another', () => {
		const task = (pid: number, step: string, procid: string) =>
			p(pid, step === '0' ? 50 : 60, 'python3 train.py', {
				SLURM_JOB_ID: '4242',
				SLURM_STEP_ID: step,
				SLURM_PROCID: procid,
			});
		const all = [
			p(1, 0, 'init', {}, {uid: 0}),
			p(50, 1, 'slurmstepd: [4242.0]', null, {uid: 0, comm: 'slurmstepd'}),
			p(60, 1, 'slurmstepd: [4242.1]', null, {uid: 0, comm: 'slurmstepd'}),
			task(51, '0', '0'),
			task(52, '0', '1'),
			task(61, '1', '0'),
		];
		expect(jobsOf(all).map(j => [j.id, j.identity, j.ranks])).toEqual([
			['slurm:4242.0', 'scheduler', [51, 52]],
			['slurm:4242.1', 'scheduler', [61]],
		]);
	});

	test('plain DDP from a shell: MASTER_ADDR:MASTER_PORT and WORLD_SIZE make the job; two ports, two jobs', () => {
		const ddp = (pid: number, rank: number, port: string) =>
			p(pid, 100, 'python3 ddp.py', {RANK: String(rank), WORLD_SIZE: '2', MASTER_ADDR: 'localhost', MASTER_PORT: port});
		const all = [...shell, ddp(201, 0, '1234'), ddp(202, 1, '1234'), ddp(301, 0, '4321'), ddp(302, 1, '4321')];
		expect(jobsOf(all)).toEqual([
			{id: 'rdzv:localhost:1234', identity: 'rendezvous', launcher: null, ranks: [201, 202]},
			{id: 'rdzv:localhost:4321', identity: 'rendezvous', launcher: null, ranks: [301, 302]},
		]);
	});

	test('no identity in the environment: the nearest launcher ancestor (deepspeed) groups its ranks', () => {
		const all = [
			...shell,
			p(200, 100, '/usr/bin/python3 /usr/bin/deepspeed train.py'),
			p(201, 200, 'python3 train.py', {RANK: '0'}),
			p(202, 200, 'python3 train.py', {RANK: '1'}),
		];
		expect(jobsOf(all)).toEqual([{id: 'deepspeed:200', identity: 'launcher', launcher: 200, ranks: [201, 202]}]);
	});

	test('ranks with nothing in common but a shell are separate jobs, never merged by guesswork', () => {
		const all = [...shell, p(201, 100, 'python3 a.py', {RANK: '0'}), p(202, 100, 'python3 b.py', {RANK: '0'})];
		expect(jobsOf(all).map(j => j.id)).toEqual(['pid:201', 'pid:202']);
	});

	test('a batch-script shell with SLURM_PROCID is not a rank; the python it runs is, with its workers', () => {
		const env = {SLURM_JOB_ID: '77', SLURM_STEP_ID: 'batch', SLURM_PROCID: '0'};
		const all = [
			p(1, 0, 'init', {}, {uid: 0}),
			p(40, 1, 'slurmstepd: [77.batch]', null, {uid: 0, comm: 'slurmstepd'}),
			p(41, 40, '/bin/bash /var/spool/slurmd/job00077/slurm_script', env),
			p(42, 41, 'python3 train.py', env),
			p(43, 42, 'python3 train.py', env),
		];
		const tree = buildRankTree(all, {kind: 'env'}, ME);
		expect(tree.ranks.map(r => [r.process.pid, r.workers])).toEqual([[42, [43]]]);
		expect(tree.jobs.map(j => j.id)).toEqual(['slurm:77.batch']);
	});

	test('srun, slurmstepd, shells and any traintop are never ranks, whatever their environment', () => {
		const env = {SLURM_JOB_ID: '5', SLURM_STEP_ID: '0', SLURM_PROCID: '0', RANK: '0'};
		const all = [
			...shell,
			p(200, 100, 'srun -n 2 python3 train.py', env),
			p(201, 1, 'slurmstepd: [5.0]', env, {comm: 'slurmstepd'}),
			p(202, 100, '-bash', env),
			p(203, 100, 'zsh', env),
			// Another traintop: by its title, by node running its cli, by its comm.
			p(204, 100, 'traintop --headless', env),
			p(205, 100, 'node /home/u/traintop/dist/cli.js --headless', env),
			p(206, 100, 'node /usr/lib/node_modules/.bin/traintop', env),
			p(207, 100, 'whatever', env, {comm: 'traintop --head'}),
			// nvidia-smi started by a traintop under srun inherits SLURM_PROCID.
			p(208, 204, 'nvidia-smi --query-gpu=memory.used --format=csv -lms 1000', env),
			p(209, 100, 'python3 train.py', env),
		];
		expect(buildRankTree(all, {kind: 'env'}, ME).ranks.map(r => r.process.pid)).toEqual([209]);
	});

	test('torchrun inside an srun step carries SLURM_PROCID but is the launcher; its workers are the ranks', () => {
		const slurm = {SLURM_JOB_ID: '8', SLURM_STEP_ID: '0', SLURM_PROCID: '0'};
		const worker = (pid: number, rank: number) =>
			p(pid, 200, 'python3 -u train.py', {...slurm, RANK: String(rank), TORCHELASTIC_RUN_ID: '8'});
		const all = [
			p(1, 0, 'init', {}, {uid: 0}),
			p(50, 1, 'slurmstepd: [8.0]', null, {uid: 0, comm: 'slurmstepd'}),
			p(200, 50, '/usr/bin/python3 /usr/bin/torchrun --nproc-per-node 2 train.py', slurm),
			worker(201, 0),
			worker(202, 1),
		];
		expect(jobsOf(all)).toEqual([{id: 'torchrun:200', identity: 'elastic', launcher: 200, ranks: [201, 202]}]);
	});

	test("inside an allocation only that SLURM job's tasks are ranks", () => {
		const task = (pid: number, job: string) =>
			p(pid, pid - 1, 'python3 train.py', {SLURM_JOB_ID: job, SLURM_STEP_ID: '0', SLURM_PROCID: '0'});
		const stepd = (pid: number, job: string) => p(pid, 1, `slurmstepd: [${job}.0]`, null, {uid: 0, comm: 'slurmstepd'});
		const all = [
			...shell,
			stepd(200, '10'),
			task(201, '10'),
			stepd(300, '11'),
			task(301, '11'),
			p(401, 100, 'python3 local.py', {RANK: '0'}),
		];
		expect(jobsOf(all, '11').map(j => j.id)).toEqual(['slurm:11.0']);
		expect(jobsOf(all).map(j => j.id)).toEqual(['slurm:10.0', 'slurm:11.0', 'pid:401']);
	});

	test('the demo launcher (python3 launcher.py) is named by its script', () => {
		const all = [
			...shell,
			p(200, 100, '/usr/bin/python3 /x/demo/job/launcher.py --run-dir /tmp/a'),
			p(201, 200, 'python3 rank.py', {RANK: '0', TORCHELASTIC_RUN_ID: 'traintop-demo-200'}),
		];
		expect(jobsOf(all)[0]?.id).toBe('launcher.py:200');
	});

	test("rendezvous variables from anywhere do not join a launcher's job: listed apart, never a rank", () => {
		const all = [
			...shell,
			p(150, 1, '/bin/bash'),
			p(200, 100, '/usr/bin/python3 launch.py'),
			p(201, 200, 'python3 ddp.py', {...RDZV, RANK: '0'}),
			p(202, 200, 'python3 ddp.py', {...RDZV, RANK: '1'}),
			// `RANK=1 setsid python3 victim.py &`: reparented to PID 1.
			p(500, 1, 'python3 victim.py', {...RDZV, RANK: '1'}),
			// The same from another terminal's shell, no setsid.
			p(501, 150, 'python3 victim.py', {...RDZV, RANK: '1'}),
		];
		expect(proofOf(all)).toEqual([
			{
				id: 'rdzv:127.0.0.9:29999',
				provenBy: 'launcher-tree',
				ranks: [201, 202],
				unproven: [
					[500, 'orphan'],
					[501, 'env-only'],
				],
			},
		]);
	});

	test('hand-started ranks of one shell session are one rendezvous job; a setsid one of the same shell is not', () => {
		const ddp = (pid: number, rank: string, session: number, ppid = 100) => ({
			...p(pid, ppid, 'python3 ddp.py', {...RDZV, RANK: rank}),
			session,
		});
		const job = [...shell, ddp(201, '0', 100), ddp(202, '1', 100)];
		// setsid forks when started as a job of an interactive shell: the victim's parent is PID 1.
		expect(proofOf([...job, ddp(203, '1', 203, 1)])).toEqual([
			{id: 'rdzv:127.0.0.9:29999', provenBy: 'shell-session', ranks: [201, 202], unproven: [[203, 'orphan']]},
		]);
		// Without the fork it stays the shell's child in a session of its own: two sessions of one shell cannot be
		// told apart by their variables, so no rendezvous job is made of either; each rank is a job of its own.
		expect(proofOf([...job, ddp(203, '1', 203)]).map(j => j.id)).toEqual(['pid:201', 'pid:202', 'pid:203']);
	});

	test("SLURM variables set by hand do not join the step: only tasks under the step's slurmstepd are its ranks", () => {
		const env = (procid: string) => ({SLURM_JOB_ID: '9', SLURM_STEP_ID: '0', SLURM_PROCID: procid});
		const all = [
			...shell,
			p(50, 1, 'slurmstepd: [9.0]', null, {uid: 0, comm: 'slurmstepd'}),
			p(51, 50, 'python3 train.py', env('0')),
			// A user process named like slurmstepd proves nothing: slurmd's step daemons are root's.
			p(60, 1, 'slurmstepd: [9.0]', null, {comm: 'slurmstepd'}),
			p(61, 60, 'python3 victim.py', env('1')),
			p(62, 1, 'python3 victim.py', env('1')),
		];
		expect(proofOf(all)).toEqual([
			{
				id: 'slurm:9.0',
				provenBy: 'scheduler-step',
				ranks: [51],
				unproven: [
					[61, 'not-in-step'],
					[62, 'not-in-step'],
				],
			},
		]);
		const tree = buildRankTree(all, {kind: 'env'}, ME);
		expect(tree.ranks.map(r => [r.process.pid, r.inStep])).toEqual([[51, true]]);
	});

	test("a SLURM task is proven by its step's cgroup when no slurmstepd is seen above it", () => {
		const env = {SLURM_JOB_ID: '9', SLURM_STEP_ID: '0', SLURM_PROCID: '0'};
		const all = [...shell, p(70, 1, 'python3 train.py', env), p(71, 1, 'python3 victim.py', env)];
		const cgroups: Record<number, string> = {
			70: '0::/system.slice/slurmstepd.scope/job_9/step_0/user/task_0\n',
			71: '0::/user.slice/user-1000.slice/session-3.scope\n',
		};
		const tree = buildRankTree(all, {kind: 'env'}, ME, {scheduledJob: null, cgroupOf: pid => cgroups[pid] ?? null});
		expect(
			tree.jobs.map(j => [j.id, j.ranks.map(r => r.process.pid), j.unproven.map(u => u.member.process.pid)]),
		).toEqual([['slurm:9.0', [70], [71]]]);
	});

	test('orphaned ranks of two runs (run id "none", parent PID 1) are each a job of their own; no key in an id', () => {
		const orphan = (pid: number) =>
			p(pid, 1, 'python3 -u train.py', {
				RANK: '0',
				TORCHELASTIC_RUN_ID: 'none',
				MASTER_ADDR: '127.0.0.1',
				MASTER_PORT: '29500',
				WORLD_SIZE: '1',
			});
		const all = [...shell, orphan(301), orphan(401)];
		expect(proofOf(all)).toEqual([
			{id: 'pid:301', provenBy: 'single-process', ranks: [301], unproven: []},
			{id: 'pid:401', provenBy: 'single-process', ranks: [401], unproven: []},
		]);
	});

	test('--match: a matching process without rank variables is a rank only if it runs Python or holds a GPU', () => {
		const all = [
			...shell,
			p(201, 100, '/usr/bin/python3 train.py --out runs/x'),
			p(202, 100, 'tail -f runs/x/train.log'),
			p(203, 100, 'vim train.py'),
			p(204, 100, './train_gpt2cu runs/x'),
		];
		const match = {kind: 'match', pattern: /train/} as const;
		const pids = (usesGpu?: (pid: number) => boolean) =>
			buildRankTree(all, match, ME, {scheduledJob: null, ...(usesGpu ? {usesGpu} : {})}).ranks.map(r => r.process.pid);
		expect(pids()).toEqual([201]);
		expect(pids(pid => pid === 204)).toEqual([201, 204]);
	});
});
