import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {CgroupMemoryReader} from '../../src/system/cgroup-memory.js';

// cgroup v2 as files in a temp dir, laid out as the kernel shows them (Documentation/admin-guide/cgroup-v2.rst): this
// machine's memory controller is on v1 (cgroup-memory.test.ts runs the real one), so the v2 file names, `max` and
// inactive_file are checked here on a tree that a pure-v2 SLURM node (slurmstepd.scope, cgroup/v2 plugin) would have.

const MIB = 1024 ** 2;
let root: string;

beforeEach(async () => {
	root = await mkdtemp(path.join(tmpdir(), 'traintop-cgroup-v2-'));
});
afterEach(async () => {
	await rm(root, {recursive: true, force: true});
});

/** /proc with a cgroup2 mount at ROOT/cgroup and pid 4242 in `cgroupPath`; each cgroup's files as given. */
async function tree(cgroupPath: string, cgroups: Record<string, Record<string, string>>): Promise<string> {
	const proc = path.join(root, 'proc');
	await mkdir(path.join(proc, 'self'), {recursive: true});
	await mkdir(path.join(proc, '4242'), {recursive: true});
	const mount = path.join(root, 'cgroup');
	await writeFile(
		path.join(proc, 'self/mountinfo'),
		`35 24 0:30 / ${mount} rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n`,
	);
	await writeFile(path.join(proc, '4242/cgroup'), `0::${cgroupPath}\n`);
	for (const [cgroup, files] of Object.entries(cgroups)) {
		const dir = path.join(mount, cgroup);
		await mkdir(dir, {recursive: true});
		for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
	}
	return proc;
}

const STEP = '/system.slice/slurmstepd.scope/job_42/step_0/user/task_0';

test('v2: memory.current less inactive_file against the tightest memory.max up the tree; `max` is no limit', async () => {
	const proc = await tree(STEP, {
		[STEP]: {'memory.max': 'max\n', 'memory.current': `${100 * MIB}\n`, 'memory.stat': 'anon 1\n'},
		'/system.slice/slurmstepd.scope/job_42/step_0': {
			'memory.max': `${1024 * MIB}\n`,
			'memory.current': `${300 * MIB}\n`,
			'memory.stat': `anon ${250 * MIB}\nfile ${50 * MIB}\ninactive_file ${40 * MIB}\n`,
		},
		'/system.slice/slurmstepd.scope/job_42': {
			'memory.max': `${512 * MIB}\n`,
			'memory.current': `${400 * MIB}\n`,
			'memory.stat': `anon ${300 * MIB}\ninactive_file ${100 * MIB}\n`,
		},
		'/system.slice': {'memory.max': 'max\n'},
	});
	const reading = await new CgroupMemoryReader({procRoot: proc}).read([4242]);
	// job_42: 512 − 300 = 212 MiB left; step_0: 1024 − 260 = 764 MiB left. The job's OOM comes first.
	expect(reading).toEqual({
		scope: 'job',
		version: 2,
		path: '/system.slice/slurmstepd.scope/job_42',
		limitBytes: 512 * MIB,
		usedBytes: 300 * MIB,
		percent: (300 / 512) * 100,
	});
});

test('v2: a tree with no limit anywhere (the root cgroup has no memory.max) is no limit', async () => {
	const proc = await tree(STEP, {[STEP]: {'memory.max': 'max\n', 'memory.current': '1\n'}});
	expect(await new CgroupMemoryReader({procRoot: proc}).read([4242])).toBeNull();
});

test('a limited cgroup that goes away (the step ended) reads as no limit, not an error', async () => {
	const job = '/system.slice/slurmstepd.scope/job_42';
	const proc = await tree(STEP, {[job]: {'memory.max': `${512 * MIB}\n`, 'memory.current': `${10 * MIB}\n`}});
	const reader = new CgroupMemoryReader({procRoot: proc, refreshMs: 60_000});
	expect((await reader.read([4242]))?.usedBytes).toBe(10 * MIB);
	await rm(path.join(root, 'cgroup', job, 'memory.current'));
	expect(await reader.read([4242])).toBeNull();
});
