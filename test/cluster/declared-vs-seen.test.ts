import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {loadClusterFile} from '../../src/cluster/cluster-config.js';
import {
	clearedText,
	compareDeclared,
	type DeclaredFinding,
	type DeclaredNode,
	findingsNote,
	findingText,
} from '../../src/cluster/declared-vs-seen.js';
import type {GpuReading, Snapshot} from '../../src/core/types.js';
import {gpu, hostMemory} from '../helpers/snapshots.js';
import {job, jobSet, rank} from '../ui/fixtures.js';
import {FakeFleet} from '../ui/fleet/fleet-fixtures.js';

// A real cluster.yaml read as `--cluster` reads it (so each finding's line is the file's own), against snapshots as
// the viewer rebuilds them from an agent's wire messages.

const MIB = 1024 * 1024;
const CLUSTER = `
nodes:
  - name: gpu1
    host: localhost
    gpus:
      - uuid: GPU-0
        type: h100
        vram_mb: 81920
      - uuid: GPU-gone
        type: h100
        vram_mb: 81920
    max_adapters: 2
  - name: box
    host: localhost
    cpu_cores: 16
    ram_mb: 65536
  - name: jetson
    host: localhost
    gpus:
      - {uuid: GPU-jet, type: jetson-orin, vram_mb: 8192, memory_type: unified}
`;

let dir: string;
let nodes: readonly DeclaredNode[];
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-declared-'));
	const file = path.join(dir, 'cluster.yaml');
	await writeFile(file, CLUSTER.replace(/^\n/, ''));
	nodes = (await loadClusterFile(file)).nodes;
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

const declared = (name: string): DeclaredNode => nodes.find(node => node.node.name === name)!;

/** The node's snapshot as its agent's wire message makes it here. */
function seen(name: string, fields: Partial<Snapshot>): Snapshot {
	return new FakeFleet([name]).hello(name).send(name, fields).view(name).snapshot!;
}

const gpus = (...readings: GpuReading[]): Partial<Snapshot> => ({
	gpu: {status: 'ok', gpus: readings, sampledAt: 0, warning: null},
});
/** A GPU of `mib` MiB of memory. */
const sized = (index: number, mib: number, uuid = `GPU-${index}`): GpuReading => ({
	...gpu(index, 10),
	uuid,
	memoryTotalBytes: mib * MIB,
});
const cpu = (cores: number): Partial<Snapshot> => ({cpu: {percent: 5, cores, load: null}});
/** Host memory of `mib` MiB. */
const ram = (mib: number): Partial<Snapshot> => {
	const memory = hostMemory(10);
	return {memory: {...memory, ram: {...memory.ram, totalBytes: mib * MIB}}};
};
const jobs = (count: number): Partial<Snapshot> => ({
	ranks: jobSet(Array.from({length: count}, (_, i) => job(`torchrun:${100 + i}`, [rank(0, {pid: 1000 + i})]))),
});

const summary = (findings: readonly DeclaredFinding[]) => findings.map(f => `${f.kind} line ${f.line}: ${f.what}`);

describe('GPUs by uuid', () => {
	test('listed but not seen, seen but not listed: each names its line, its uuid and the rule', () => {
		const findings = compareDeclared(declared('gpu1'), seen('gpu1', gpus(sized(0, 81920), sized(1, 81920, 'GPU-new'))));
		expect(summary(findings)).toEqual([
			'gpu-missing line 8: GPU GPU-gone (h100) is listed; its agent does not see it (nvidia-smi there shows 2 GPUs, none with that uuid)',
			'gpu-unlisted line 4: its agent sees GPU 1 GPU-new (NVIDIA H100 80GB HBM3), which is not listed (no reserve factor applies to it)',
		]);
		expect(findings.every(f => f.level === 'warn' && f.node === 'gpu1')).toBe(true);
		expect(findings.map(f => f.key)).toEqual(['gpu-missing:GPU-gone', 'gpu-unlisted:GPU-new']);
		expect(findingText(findings[0]!)).toBe(
			`node gpu1 differs from ${path.join(dir, 'cluster.yaml')} line 8: GPU GPU-gone (h100) is listed; its agent does not see it (nvidia-smi there shows 2 GPUs, none with that uuid)`,
		);
		expect(clearedText(findings[1]!)).toMatch(
			/^node gpu1 agrees with .*cluster\.yaml line 4 again \(was: its agent sees GPU 1 GPU-new/,
		);
		expect(findingsNote(findings)).toBe('≠ cluster.yaml: GPU missing, GPU not listed');
	});

	test('several GPUs seen but not listed are one finding (one ALERTS line), keyed by the set', () => {
		const findings = compareDeclared(
			declared('gpu1'),
			seen(
				'gpu1',
				gpus(sized(0, 81920), sized(1, 81920, 'GPU-gone'), sized(2, 81920, 'GPU-x'), sized(3, 81920, 'GPU-y')),
			),
		);
		expect(summary(findings)).toEqual([
			'gpu-unlisted line 4: its agent sees 2 GPUs that are not listed (no reserve factor applies to them): GPU 2 GPU-x, GPU 3 GPU-y',
		]);
		expect(findings.map(f => f.key)).toEqual(['gpu-unlisted:GPU-x, GPU-y']);
		expect(findingsNote(findings)).toBe('≠ cluster.yaml: 2 GPUs not listed');
	});

	test.each([
		['exactly 5 % less', 77_824, false],
		['5 % less and a MiB', 77_823, true],
		['exactly 5 % more', 86_016, false],
		['5 % more and a MiB', 86_017, true],
		['as listed', 81_920, false],
	])('VRAM %s than vram_mb 81920', (_, mib, differs) => {
		const findings = compareDeclared(declared('gpu1'), seen('gpu1', gpus(sized(0, mib), sized(1, 81920, 'GPU-gone'))));
		expect(findings.map(f => f.kind)).toEqual(differs ? ['gpu-vram'] : []);
		if (differs)
			expect(findings[0]?.what).toMatch(
				/^GPU GPU-0: vram_mb 81920, its agent sees \d+ MB \(5\.1 % (less|more); more than 5 % apart\)$/,
			);
		if (differs) expect(findings[0]?.line).toBe(5);
	});

	test('a unified-memory GPU (no VRAM total of its own) is matched by uuid, its size not compared', () => {
		const jetson: GpuReading = {
			...sized(0, 1, 'GPU-jet'),
			memoryTotalBytes: null,
			memoryUsedBytes: null,
			memoryPercent: null,
		};
		expect(compareDeclared(declared('jetson'), seen('jetson', gpus(jetson)))).toEqual([]);
	});

	test('no nvidia-smi where GPUs are listed: one finding with its reason; a CPU-only node with GPUs: one finding', () => {
		const absent = compareDeclared(
			declared('gpu1'),
			seen('gpu1', {gpu: {status: 'absent', reason: 'nvidia-smi not found on PATH'}}),
		);
		expect(summary(absent)).toEqual([
			'gpu-none line 4: 2 GPUs listed; its agent reads none: nvidia-smi not found on PATH',
		]);
		const box = compareDeclared(
			declared('box'),
			seen('box', {...gpus(sized(0, 1), sized(1, 1)), ...cpu(16), ...ram(65536)}),
		);
		expect(summary(box)).toEqual([
			'gpu-unlisted line 12: no GPUs listed (a CPU-only node); its agent sees 2 GPUs: GPU-0, GPU-1',
		]);
		expect(findingsNote(box)).toBe('≠ cluster.yaml: 2 GPUs not listed');
	});

	test('nvidia-smi starting or failing: what was found about the GPUs stands (not seeing them is not seeing them agree)', () => {
		const node = declared('gpu1');
		const before = compareDeclared(node, seen('gpu1', gpus(sized(0, 81920))));
		expect(before.map(f => f.kind)).toEqual(['gpu-missing']);
		const failing = seen('gpu1', {gpu: {status: 'error', message: 'nvidia-smi timed out', retryAt: null}});
		expect(compareDeclared(node, failing, before)).toEqual(before);
		expect(compareDeclared(node, seen('gpu1', {gpu: {status: 'starting'}}), before)).toEqual(before);
		expect(compareDeclared(node, failing)).toEqual([]);
	});
});

describe('a CPU-only node: ram_mb and cpu_cores', () => {
	test('as declared (RAM within 5 %, the same CPU count): nothing', () => {
		expect(compareDeclared(declared('box'), seen('box', {...ram(63_000), ...cpu(16)}))).toEqual([]);
	});

	test("less RAM, fewer CPUs: each at its key's line, with what the agent sees", () => {
		const findings = compareDeclared(declared('box'), seen('box', {...ram(32_000), ...cpu(8)}));
		expect(summary(findings)).toEqual([
			'ram line 15: ram_mb 65536, its agent sees 32000 MB of RAM (51.2 % less; more than 5 % apart)',
			'cpu line 14: cpu_cores 16, its agent counts 8 CPUs online',
		]);
		expect(findingsNote(findings)).toBe('≠ cluster.yaml: RAM, CPUs');
	});

	test('a failed memory read and no CPU reading keep what was found', () => {
		const node = declared('box');
		const before = compareDeclared(node, seen('box', {...ram(32_000), ...cpu(8)}));
		expect(compareDeclared(node, seen('box', {memory: null, cpu: null}), before)).toEqual(before);
	});
});

describe('jobs against max_adapters', () => {
	test("reached is as declared; exceeded is a WARN at max_adapters' line", () => {
		const node = declared('gpu1');
		const fine = gpus(sized(0, 81920), sized(1, 81920, 'GPU-gone'));
		expect(compareDeclared(node, seen('gpu1', {...fine, ...jobs(2)}))).toEqual([]);
		const over = compareDeclared(node, seen('gpu1', {...fine, ...jobs(3)}));
		expect(summary(over)).toEqual([
			'jobs line 11: 3 jobs run there (torchrun:100, torchrun:101, torchrun:102), more than max_adapters 2',
		]);
		expect(over[0]?.level).toBe('warn');
		expect(findingsNote(over)).toBe('≠ cluster.yaml: jobs 3/2');
	});

	test("max_adapters not set: the default 1, said so, at the node's line; no rank scan yet keeps what was found", () => {
		const node = declared('box');
		const base = {...ram(65_536), ...cpu(16)};
		expect(compareDeclared(node, seen('box', {...base, ...jobs(1)}))).toEqual([]);
		const over = compareDeclared(node, seen('box', {...base, ...jobs(2)}));
		expect(summary(over)).toEqual([
			'jobs line 12: 2 jobs run there (torchrun:100, torchrun:101), more than max_adapters 1 (not set: the default)',
		]);
		expect(compareDeclared(node, seen('box', {...base, ranks: null}), over)).toEqual(over);
	});
});
