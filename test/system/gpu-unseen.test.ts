// GPU memory nobody can see, read for real: the fake nvidia-smi replays the H200's PID-namespace recording
// (test/fixtures/nvidia-smi/csv/recorded__h200-pid-namespace.json, copied from the shared H200 recordings of
// 2026-11-28) through a real NvidiaSmiReader and a real Monitor; a pid that ended, a real zombie and a real PID
// namespace (`unshare -p -f --mount-proc`, root only) are made by the test.

import {type ChildProcess, spawn, spawnSync} from 'node:child_process';
import {readFileSync, statSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {Monitor} from '../../src/core/monitor.js';
import type {GpuMemoryUnseen} from '../../src/core/memory-types.js';
import {gpuUnseenLines} from '../../src/format/gpu-unseen.js';
import {GpuUnseenReader, inPidNamespace, PROC_PID_INIT_INO, procHidesOthers} from '../../src/system/gpu-unseen.js';
import {NvidiaSmiReader} from '../../src/system/nvidia-smi.js';
import {DIST, requireBuild} from '../helpers/dist.js';
import {fakeEnv, removeTempDirs, tempDir} from '../helpers/fake-nvidia-smi/harness.js';
import {TEST_THRESHOLDS} from '../helpers/scripted-monitor.js';
import {until} from '../helpers/until.js';

const PIDNS = 'recorded-h200-pid-namespace';
const GIB = 1024 ** 3;
const HOST_MEMORY = {
	ram: {totalBytes: 64 * GIB, usedBytes: 8 * GIB, availableBytes: 56 * GIB, percent: 12.5},
	swap: null,
};

/** Whether this machine lets the test make a PID namespace (root, or a kernel that allows it). */
const canUnshare = spawnSync('unshare', ['-p', '-f', '--mount-proc', 'true']).status === 0;

const children: ChildProcess[] = [];
const readers: NvidiaSmiReader[] = [];
afterEach(async () => {
	for (const child of children.splice(0)) child.kill('SIGKILL');
	await Promise.all(readers.splice(0).map(r => r.stop()));
});
afterAll(removeTempDirs);

/** A real Monitor over a real NvidiaSmiReader on the fake, judged by `unseen`; ticks until `ok` holds. */
async function judgedBy(
	unseen: GpuUnseenReader,
	knobs: Record<string, string>,
	ok: (u: GpuMemoryUnseen) => boolean,
): Promise<GpuMemoryUnseen> {
	const gpu = new NvidiaSmiReader({intervalMs: 200, processIntervalMs: 200, env: fakeEnv(knobs)});
	readers.push(gpu);
	gpu.start();
	const monitor = new Monitor({
		sources: {readMemory: async () => HOST_MEMORY, gpu, readGpuUnseen: (state, table) => unseen.read(state, table)},
		thresholds: TEST_THRESHOLDS,
		intervalMs: 1000,
		host: 'n',
	});
	let last: GpuMemoryUnseen | null = null;
	await until(
		() => {
			void monitor.tick().then(s => {
				last = s.gpuUnseen ?? null;
			});
			return last;
		},
		u => u !== null && ok(u),
		'the snapshot to judge the GPU memory',
		20_000,
		200,
	);
	return last as unknown as GpuMemoryUnseen;
}

/** A scenario file of one GPU (index 3) whose compute-apps table lists `rows` (pid, MiB). */
function scenarioListing(rows: readonly [number, number][]): string {
	const uuid = 'GPU-5a3a5fb5-4612-cbe1-12cd-a299a7bb159b';
	const used = rows.reduce((sum, [, mib]) => sum + mib, 0);
	const file = join(tempDir(), 'listing.json');
	writeFileSync(
		file,
		JSON.stringify({
			scenario: 'listing',
			recorded_format: 'csv,noheader,nounits',
			recorded: {
				'query-gpu.csv': {
					format: 'csv,noheader,nounits',
					fields: ['index', 'uuid', 'name', 'memory.total', 'memory.used'],
				},
				'query-compute-apps.csv': {format: 'csv,noheader,nounits', fields: ['gpu_uuid', 'pid', 'used_gpu_memory']},
			},
			files: {
				'query-gpu.csv': `3, ${uuid}, NVIDIA H200, 143771, ${used}\n`,
				'query-compute-apps.csv': rows.map(([pid, mib]) => `${uuid}, ${pid}, ${mib}\n`).join(''),
			},
		}),
	);
	return file;
}

/** A pid that was a process and is no more (exited and reaped by this test). */
async function endedPid(): Promise<number> {
	const child = spawn('true');
	await new Promise(resolve => child.once('exit', resolve));
	return child.pid!;
}

function stateOf(pid: number): string | null {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
	} catch {
		return null;
	}
}

describe('processes nvidia-smi lists that are not live here', () => {
	it('a pid that ended is gone (in the host namespace), a real zombie is a zombie', async () => {
		const gone = await endedPid();
		// A python parent that forks and never reaps: its child stays a zombie while the parent sleeps.
		const parent = spawn(
			'python3',
			['-c', 'import os,time\npid=os.fork()\nif pid==0: os._exit(0)\nprint(pid,flush=True)\ntime.sleep(120)'],
			{
				stdio: ['ignore', 'pipe', 'inherit'],
			},
		);
		children.push(parent);
		const zombie = Number(
			await new Promise<string>(resolve => parent.stdout?.once('data', (d: Buffer) => resolve(d.toString()))),
		);
		await until(
			() => stateOf(zombie),
			state => state === 'Z',
			`pid ${zombie} to be a zombie`,
		);

		const scenario = scenarioListing([
			[gone, 8192],
			[zombie, 1188],
		]);
		const unseen = await judgedBy(new GpuUnseenReader(), {FAKE_NVSMI_SCENARIO: scenario}, u => u.gpus.length > 0);
		// Where the test itself runs in a PID namespace (a CI container), an absent pid is only "not visible here".
		const absent = inPidNamespace() === false ? 'gone' : 'not visible here';
		expect(gpuUnseenLines(unseen)).toEqual([
			`pid ${gone} (${absent}) ${absent === 'gone' ? 'still ' : ''}holds 8.0 GiB on GPU3`,
			`pid ${zombie} (zombie, not reaped) still holds 1.2 GiB on GPU3`,
		]);
	}, 30_000);
});

describe('what /proc can show', () => {
	it("hidepid=2 or invisible hides other users' processes from a reader that is not root", () => {
		const mounts = join(tempDir(), 'mounts');
		const line = (options: string) => `sysfs /sys sysfs rw 0 0\nproc /proc proc ${options} 0 0\n`;
		writeFileSync(mounts, line('rw,nosuid,nodev,noexec,relatime,hidepid=invisible'));
		expect(procHidesOthers(mounts, 1000)).toBe(true);
		expect(procHidesOthers(mounts, 0)).toBe(false);
		writeFileSync(mounts, line('rw,relatime,hidepid=2,gid=27'));
		expect(procHidesOthers(mounts, 1000)).toBe(true);
		writeFileSync(mounts, line('rw,relatime'));
		expect(procHidesOthers(mounts, 1000)).toBe(false);
		expect(procHidesOthers(join(tempDir(), 'none'), 1000)).toBe(false);
	});
});

describe.runIf(canUnshare)('in a real PID namespace', () => {
	it('the recorded H200 case: no process listed, 1188 MiB used → held by processes not visible here', async () => {
		// A process in a new PID namespace: its ns/pid is what /proc/self/ns/pid is for traintop in a container.
		const holder = spawn('unshare', ['-p', '-f', '--mount-proc', '--kill-child', 'sleep', '120'], {stdio: 'ignore'});
		children.push(holder);
		const nsPath = `/proc/${holder.pid}/ns/pid_for_children`;
		await until(
			() => {
				try {
					return statSync(nsPath).ino;
				} catch {
					return null;
				}
			},
			ino => ino !== null && ino !== statSync('/proc/self/ns/pid').ino,
			'unshare to make its PID namespace',
		);
		expect(inPidNamespace(nsPath)).toBe(true);
		const unseen = await judgedBy(new GpuUnseenReader({nsPath}), {FAKE_NVSMI_SCENARIO: PIDNS}, u => u.gpus.length > 0);
		expect(unseen.pidNamespace).toBe(true);
		expect(gpuUnseenLines(unseen)).toEqual(['1.2 GiB on GPU0 held by processes not visible here (PID namespace)']);
	}, 30_000);

	it('traintop itself inside `unshare -p -f --mount-proc`: the headless line says so', async () => {
		requireBuild();
		// Measured on this machine: the host's namespace has the kernel's initial inode (4026531836), a new one does not.
		const inside = spawnSync(
			'unshare',
			[
				'-p',
				'-f',
				'--mount-proc',
				process.execPath,
				'--input-type=module',
				'-e',
				`import {inPidNamespace} from '${join(DIST, 'system/gpu-unseen.js')}'; import {statSync} from 'node:fs'; console.log(JSON.stringify([inPidNamespace(), statSync('/proc/self/ns/pid').ino]));`,
			],
			{encoding: 'utf8'},
		);
		const [judged, ino] = JSON.parse(inside.stdout) as [boolean, number];
		expect(judged).toBe(true);
		expect(ino).not.toBe(PROC_PID_INIT_INO);

		const tag = `tt-unseen-${process.pid}-${Date.now()}`;
		const script = `RANK=0 WORLD_SIZE=1 python3 -c 'import time; time.sleep(120)' ${tag} & exec "$0" "$@"`;
		const cli = spawn(
			'unshare',
			[
				'-p',
				'-f',
				'--mount-proc',
				'--kill-child',
				'sh',
				'-c',
				script,
				process.execPath,
				join(DIST, 'cli.js'),
				'--headless',
				'--no-log',
				'--match',
				tag,
				'--interval',
				'0.2',
				'--log-interval',
				'5',
				'--gpu-process-interval',
				'0.2',
			],
			{env: fakeEnv({FAKE_NVSMI_SCENARIO: PIDNS}), stdio: ['ignore', 'ignore', 'pipe']},
		);
		children.push(cli);
		let stderr = '';
		cli.stderr?.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		await until(
			() => stderr,
			text => text.includes('GPU memory: 1.2 GiB on GPU0 held by processes not visible here (PID namespace)'),
			'the headless line inside the namespace',
			20_000,
		);
	}, 30_000);
});
