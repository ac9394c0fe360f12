import {afterAll, afterEach, beforeAll, describe, expect, test} from 'vitest';
import {CgroupMemoryReader} from '../../src/system/cgroup-memory.js';
import {createScratchCgroup, type ScratchCgroup, scratchCgroupUnavailable} from '../helpers/cgroup-scratch.js';
import {type PythonChild, startPython} from '../helpers/python-child.js';

// Real cgroups: a "job" cgroup with a limit, a "step" cgroup inside it, a python3 in the step that holds a known
// amount of memory; the reader must find the limit by walking up from the process, and count its usage.

const MIB = 1024 ** 2;
const unavailable = scratchCgroupUnavailable();
if (unavailable) console.warn(`skipping the cgroup tests: ${unavailable}`);

/** A python3 in `cgroup`'s `child`, holding `mib` MiB that it touched (so the pages are charged). */
function allocating(cgroup: ScratchCgroup, child: string, mib: number): Promise<PythonChild> {
	const setup = [
		cgroup.joinScript(child),
		// Allocated after the move: v1 does not move charges made before it (memory.move_charge_at_immigrate 0).
		`held = bytearray(${mib} * 1024 * 1024)`,
		'for i in range(0, len(held), 4096): held[i] = 1',
	].join('\n');
	return startPython(setup, {RANK: '0', WORLD_SIZE: '1'});
}

describe.skipIf(unavailable !== null)('the memory limit of a process in a real cgroup', () => {
	let cgroup: ScratchCgroup;
	let rank: PythonChild;
	beforeAll(async () => {
		cgroup = createScratchCgroup(['step']);
		cgroup.limit(512 * MIB);
		rank = await allocating(cgroup, 'step', 200);
	});
	afterAll(async () => {
		rank?.kill();
		await rank?.exited;
		await cgroup?.remove();
	});
	afterEach(() => cgroup.limit(null, 'step'));

	test('the limit is found on the job cgroup above the step the process is in, with the usage under it', async () => {
		const reading = await new CgroupMemoryReader().read([rank.pid]);
		expect(reading).toMatchObject({scope: 'job', version: cgroup.version, path: cgroup.path, limitBytes: 512 * MIB});
		// 200 MiB held, plus what python3 allocated after the move (its own heap: a few MiB).
		expect(reading!.usedBytes).toBeGreaterThanOrEqual(200 * MIB);
		expect(reading!.usedBytes).toBeLessThan(264 * MIB);
		expect(reading!.percent).toBeCloseTo((reading!.usedBytes / (512 * MIB)) * 100, 6);
	});

	test('a tighter limit on the step wins: its OOM comes first', async () => {
		cgroup.limit(300 * MIB, 'step');
		const reading = await new CgroupMemoryReader().read([rank.pid]);
		expect(reading).toMatchObject({path: `${cgroup.path}/step`, limitBytes: 300 * MIB});
		expect(reading!.percent).toBeGreaterThan(60);
	});

	test('a cached reader sees a new set of processes at once, and a process that is gone is no limit', async () => {
		const reader = new CgroupMemoryReader({refreshMs: 60_000});
		expect((await reader.read([rank.pid]))?.path).toBe(cgroup.path);
		// A pid that cannot exist (above pid_max's ceiling of 2^22): traintop's own cgroup instead, never this one.
		const own = await reader.read([4_194_304 + 1]);
		expect(own === null || own.scope === 'traintop').toBe(true);
		expect(own?.path).not.toBe(cgroup.path);
	});
});
