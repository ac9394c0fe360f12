import {randomUUID} from 'node:crypto';
import {PassThrough} from 'node:stream';
import {describe, expect, test} from 'vitest';
import {runRanksCommand} from '../../src/commands/ranks.js';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {forkTwo, killedAfterEach, pssOf} from '../helpers/forked-children.js';
import {startPython} from '../helpers/python-child.js';
import {until} from '../helpers/until.js';

// `traintop ranks` on a real rank (python3 carrying RANK) holding a touched 64 MiB numpy array and two forked workers
// that only read it: a `memory:` line under the job, and `jobs[].memory` in --json, its PSS read at once (a one-shot
// has no later read to wait for) and within 5 % of the test's own sum of each process's smaps_rollup `Pss:`.

const SETUP = [
	'import numpy as np',
	'a = np.ones(64 * 1024 * 1024 // 8)',
	forkTwo(['s = float(a.sum())', 'os.write(1, b"read\\n")']),
].join('\n');

const {children, strays} = killedAfterEach();

async function run(json: boolean, tag: string): Promise<string> {
	const stdout = new PassThrough();
	let out = '';
	stdout.on('data', chunk => {
		out += String(chunk);
	});
	const code = await runRanksCommand({
		// No GPU here: nvidia-smi is not on this machine's PATH under this name.
		settings: {...DEFAULT_SETTINGS, nvidiaSmi: 'traintop-test-no-nvidia-smi'},
		selector: {kind: 'match', pattern: new RegExp(tag)},
		job: null,
		json,
		stdout,
		wide: true,
	});
	expect(code).toBe(0);
	return out;
}

describe('traintop ranks: the job memory', () => {
	test('a memory line, and jobs[].memory by PSS within 5 % of smem-style sums', async () => {
		const tag = `tt-ranksmem-${randomUUID()}`;
		const child = await startPython(SETUP, {RANK: '0', LOCAL_RANK: '0', WORLD_SIZE: '1'}, tag);
		children.push(child);
		const workers = child.lines.filter(l => l.startsWith('worker ')).map(l => Number(l.split(' ')[1]));
		strays.push(...workers);
		await until(
			() => child.lines.filter(l => l === 'read').length,
			n => n === 2,
			'both workers read',
			60_000,
		);

		const parsed = JSON.parse(await run(true, tag)) as {jobs: {memory: Record<string, unknown>}[]};
		const smem = [child.pid, ...workers].reduce((sum, pid) => sum + (pssOf(pid) ?? Number.NaN), 0);
		const memory = parsed.jobs[0]!.memory as {
			pss_bytes: number;
			rss_bytes: number;
			gpu_bytes: null;
			pss_at: string;
			text: string;
			ranks: {pid: number; workers: {pid: number; pss_bytes: number}[]}[];
			ram_share: {by: string; basis: string} | null;
		};
		expect(Math.abs(memory.pss_bytes - smem) / smem).toBeLessThan(0.05);
		expect(memory.rss_bytes - memory.pss_bytes).toBeGreaterThan(1.5 * 64 * 1024 * 1024);
		expect(memory.gpu_bytes).toBeNull();
		expect(Date.parse(memory.pss_at)).toBeGreaterThan(Date.now() - 60_000);
		expect(memory.ranks[0]!.pid).toBe(child.pid);
		expect(memory.ranks[0]!.workers.map(w => w.pid).sort()).toEqual([...workers].sort());
		expect(memory.ram_share).toMatchObject({by: 'pss'});
		expect(memory.text).toMatch(/^[\d.]+ MiB PSS · RSS [\d.]+ MiB \(workers share pages\) · [\d.]+% of /);

		const text = await run(false, tag);
		// The RSS column is the rank with its workers: the array counted in each of the three.
		const row = text.split('\n').find(l => l.startsWith('0 '));
		expect(Number(/ (\d+)M /.exec(row ?? '')?.[1])).toBeGreaterThan(3 * 64);
		expect(text).toMatch(/\n {2}memory: [\d.]+ MiB PSS · RSS [\d.]+ MiB \(workers share pages\) · [\d.]+% of /);
	}, 120_000);
});
