import type {GpuReading, GpuState, HostCpu, HostMemory, Level, RankSet, Snapshot} from '../core/types.js';
import type {NodeConfig} from './cluster-schema.js';
import type {NodeLines} from './yaml-lines.js';
import {gpuSourceName} from '../format/gpu-state.js';

// cluster.yaml says what a node is (its GPUs by uuid and VRAM, its RAM and cores, how many jobs it takes at once);
// its agent says what it sees. Where they differ the operator wants to know: a GPU fallen off the bus or a uuid
// mistyped in the file, a node with less RAM than the file claims, more jobs than the node's adapter slots. Each
// finding names the node, the file and the line to look at. Pure: a declaration and a snapshot in, findings out.

/** Sizes within this share of the declared one agree: MemTotal is a little under the RAM installed, and a driver
 * keeps some VRAM for itself; a different GPU or a missing DIMM is well beyond it. */
const SIZE_TOLERANCE_PERCENT = 5;

/** nvidia-smi's and the seed's "MB" are MiB (an RTX 4090 is `vram_mb: 24564`, as nvidia-smi prints it). */
const MIB = 1024 * 1024;

/** One cluster.yaml node, with where its parts are in the file. */
export interface DeclaredNode {
	/** The file as given (`--cluster FILE`). */
	readonly file: string;
	readonly node: NodeConfig;
	readonly lines: NodeLines;
}

export type FindingKind = 'gpu-missing' | 'gpu-unlisted' | 'gpu-vram' | 'gpu-none' | 'ram' | 'cpu' | 'jobs';

export interface DeclaredFinding {
	/** The same difference from one snapshot to the next (kind and GPU uuid): what is said once, then cleared. */
	readonly key: string;
	readonly kind: FindingKind;
	readonly level: Level;
	readonly node: string;
	readonly file: string;
	/** The line to look at: the GPU's item, the key, else the node's first line. */
	readonly line: number | null;
	/** The difference and the rule, in words: `GPU GPU-ab12 (rtx-4090) is listed; its agent does not see it …`. */
	readonly what: string;
	/** A word or two for the node's row: `GPU missing`, `RAM`, `jobs 3/2`. */
	readonly short: string;
}

/** What a snapshot can leave unknown (nvidia-smi starting or failing, a failed /proc read, no rank scan yet). */
type Part = 'gpu' | 'ram' | 'cpu' | 'jobs';
const PART: Readonly<Record<FindingKind, Part>> = {
	'gpu-missing': 'gpu',
	'gpu-unlisted': 'gpu',
	'gpu-vram': 'gpu',
	'gpu-none': 'gpu',
	ram: 'ram',
	cpu: 'cpu',
	jobs: 'jobs',
};

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The seen size beyond the tolerance of the declared one (both in MiB). */
function sizesDiffer(seenMb: number, declaredMb: number): boolean {
	return Math.abs(seenMb - declaredMb) * 100 > SIZE_TOLERANCE_PERCENT * declaredMb;
}

/** `8192 MB (33.4 % less; more than 5 % apart)`; `what`: `of RAM` after the size. */
function seenSize(seenMb: number, declaredMb: number, what = ''): string {
	// Rounded up: just over the tolerance reads `5.1 %`, never a `5.0 %` that looks within it.
	const off = Math.ceil((Math.abs(seenMb - declaredMb) / declaredMb) * 1000) / 10;
	return `${Math.round(seenMb)} MB${what} (${off.toFixed(1)} % ${seenMb < declaredMb ? 'less' : 'more'}; more than ${SIZE_TOLERANCE_PERCENT} % apart)`;
}

type Make = (kind: FindingKind, line: number | null, what: string, short: string, about?: string) => DeclaredFinding;

function maker(declared: DeclaredNode): Make {
	return (kind, line, what, short, about) => ({
		key: about === undefined ? kind : `${kind}:${about}`,
		kind,
		level: 'warn',
		node: declared.node.name,
		file: declared.file,
		line: line ?? declared.lines.node,
		what,
		short,
	});
}

/** null: nvidia-smi has not answered (starting) or fails now: what the GPUs are is not known this time. */
function gpuFindings(declared: DeclaredNode, gpu: GpuState, make: Make): DeclaredFinding[] | null {
	const {gpus: listed} = declared.node;
	const {lines} = declared;
	if (gpu.status === 'starting' || gpu.status === 'error') return null;
	if (gpu.status === 'absent')
		return listed.length === 0
			? []
			: [
					make(
						'gpu-none',
						lines.gpus,
						`${plural(listed.length, 'GPU')} listed; its agent reads none: ${gpu.reason}`,
						'no GPUs',
					),
				];
	const seen = new Map(gpu.gpus.flatMap(reading => (reading.uuid === null ? [] : [[reading.uuid, reading] as const])));
	const findings: DeclaredFinding[] = [];
	for (const [j, want] of listed.entries()) {
		const got = seen.get(want.uuid);
		const line = lines.gpu[j] ?? null;
		if (!got) {
			const others = `${gpuSourceName(gpu)} there shows ${plural(gpu.gpus.length, 'GPU')}, none with that uuid`;
			findings.push(
				make(
					'gpu-missing',
					line,
					`GPU ${want.uuid} (${want.type}) is listed; its agent does not see it (${others})`,
					'GPU missing',
					want.uuid,
				),
			);
			continue;
		}
		// Unified memory (GB10) has no VRAM total of its own: nvidia-smi says N/A, nothing to compare.
		if (got.memoryTotalBytes === null) continue;
		const seenMb = got.memoryTotalBytes / MIB;
		if (sizesDiffer(seenMb, want.vramMb))
			findings.push(
				make(
					'gpu-vram',
					line,
					`GPU ${want.uuid}: vram_mb ${want.vramMb}, its agent sees ${seenSize(seenMb, want.vramMb)}`,
					'VRAM',
					want.uuid,
				),
			);
	}
	const listedUuids = new Set(listed.map(want => want.uuid));
	const unlisted = gpu.gpus.filter(reading => reading.uuid !== null && !listedUuids.has(reading.uuid));
	if (listed.length === 0 && unlisted.length > 0) {
		// A CPU-only node by the file: one finding, not one per GPU of an 8-GPU box.
		const what = `no GPUs listed (a CPU-only node); its agent sees ${plural(unlisted.length, 'GPU')}: ${unlisted.map(r => r.uuid).join(', ')}`;
		return [make('gpu-unlisted', lines.gpus, what, `${plural(unlisted.length, 'GPU')} not listed`)];
	}
	if (unlisted.length === 1) {
		const [reading] = unlisted as [GpuReading];
		const name = reading.name ? ` (${reading.name})` : '';
		const what = `its agent sees GPU ${reading.index} ${reading.uuid}${name}, which is not listed (no reserve factor applies to it)`;
		findings.push(make('gpu-unlisted', lines.gpus, what, 'GPU not listed', reading.uuid ?? undefined));
	} else if (unlisted.length > 1) {
		// One finding for all of them (the set is its key): 8 lines in ALERTS for one mistyped file say nothing more.
		const uuids = unlisted.map(reading => reading.uuid).join(', ');
		const what = `its agent sees ${unlisted.length} GPUs that are not listed (no reserve factor applies to them): ${unlisted.map(r => `GPU ${r.index} ${r.uuid}`).join(', ')}`;
		findings.push(make('gpu-unlisted', lines.gpus, what, `${unlisted.length} GPUs not listed`, uuids));
	}
	return findings;
}

/** null: the memory read failed this time. The host's RAM, not a cgroup limit: ram_mb sizes the node. */
function ramFindings(declared: DeclaredNode, memory: HostMemory | null, make: Make): DeclaredFinding[] | null {
	const {ramMb} = declared.node;
	if (ramMb === null) return [];
	if (memory === null) return null;
	const seenMb = memory.ram.totalBytes / MIB;
	if (!sizesDiffer(seenMb, ramMb)) return [];
	return [
		make('ram', declared.lines.ramMb, `ram_mb ${ramMb}, its agent sees ${seenSize(seenMb, ramMb, ' of RAM')}`, 'RAM'),
	];
}

/** null: no CPU reading (an agent without /proc). Logical CPUs online, as /proc/stat counts them. */
function cpuFindings(declared: DeclaredNode, cpu: HostCpu | null, make: Make): DeclaredFinding[] | null {
	const {cpuCores} = declared.node;
	if (cpuCores === null) return [];
	if (cpu === null) return null;
	if (cpu.cores === cpuCores) return [];
	return [
		make(
			'cpu',
			declared.lines.cpuCores,
			`cpu_cores ${cpuCores}, its agent counts ${plural(cpu.cores, 'CPU')} online`,
			'CPUs',
		),
	];
}

/** null: no rank scan yet. Each job running there takes one of the node's adapter slots. */
function jobFindings(declared: DeclaredNode, ranks: RankSet | null, make: Make): DeclaredFinding[] | null {
	if (ranks === null) return null;
	const max = declared.node.maxAdapters;
	const count = ranks.jobs.length;
	if (count <= max) return [];
	const given = declared.lines.maxAdapters === null ? ' (not set: the default)' : '';
	const ids = ranks.jobs.map(job => job.id).join(', ');
	const what = `${count} jobs run there (${ids}), more than max_adapters ${max}${given}`;
	return [make('jobs', declared.lines.maxAdapters, what, `jobs ${count}/${max}`)];
}

/**
 * Where the node's latest snapshot differs from its declaration. A part the snapshot leaves unknown keeps the
 * `previous` findings about it: not seeing the GPUs for a moment is not seeing them agree.
 */
export function compareDeclared(
	declared: DeclaredNode,
	snapshot: Snapshot,
	previous: readonly DeclaredFinding[] = [],
): readonly DeclaredFinding[] {
	const make = maker(declared);
	const parts: Readonly<Record<Part, DeclaredFinding[] | null>> = {
		gpu: gpuFindings(declared, snapshot.gpu, make),
		ram: ramFindings(declared, snapshot.memory, make),
		cpu: cpuFindings(declared, snapshot.cpu ?? null, make),
		jobs: jobFindings(declared, snapshot.ranks, make),
	};
	return (Object.keys(parts) as Part[]).flatMap(
		part => parts[part] ?? previous.filter(finding => PART[finding.kind] === part),
	);
}

const where = (finding: DeclaredFinding): string =>
	`${finding.file}${finding.line === null ? '' : ` line ${finding.line}`}`;

/** `node gpu2 differs from cluster.yaml line 9: GPU GPU-ab12 (rtx-4090) is listed; …` */
export function findingText(finding: DeclaredFinding): string {
	return `node ${finding.node} differs from ${where(finding)}: ${finding.what}`;
}

/** `node gpu2 agrees with cluster.yaml line 9 again (was: …)` */
export function clearedText(finding: DeclaredFinding): string {
	return `node ${finding.node} agrees with ${where(finding)} again (was: ${finding.what})`;
}

/** `≠ cluster.yaml: 2 GPU missing, RAM`: the row's and the banner's word for them; '' for none. */
export function findingsNote(findings: readonly DeclaredFinding[]): string {
	const first = findings[0];
	if (!first) return '';
	const counts = new Map<string, number>();
	for (const finding of findings) counts.set(finding.short, (counts.get(finding.short) ?? 0) + 1);
	const words = [...counts].map(([short, count]) => (count === 1 ? short : `${count}× ${short}`));
	const file = first.file.split('/').at(-1) ?? first.file;
	return `≠ ${file}: ${words.join(', ')}`;
}
