import {printable} from '../format/printable.js';
import {formatBytes, formatPercent} from '../format/units.js';
import {wrapText} from '../format/wrap-text.js';
import {TENSORS_PER_SAMPLE} from './estimate.js';
import type {GpuReport} from './gpu-free.js';
import {readinessHead, readinessItems} from './readiness-text.js';
import type {OverallVerdict, PreflightReport} from './report.js';
import {formatShape} from './shape.js';

// The report as text for a terminal or a batch log: sections with a label column, every line within `width`.

const LABEL = 10;
const ITEM = '  ';

const WORDS: Readonly<Record<OverallVerdict, string>> = {
	fits: 'fits',
	tight: 'tight',
	will_not_fit: 'WILL NOT FIT',
	unknown: 'unknown',
};

// Every text goes through section() or items(), which show control characters as escapes before they wrap: the
// report names what it read (nvidia-smi's GPU names and errors, the config file's path and keys, the cgroup's path).
function section(label: string, text: string, width: number): string[] {
	return wrapText(`${label.padEnd(LABEL)}${printable(text)}`, width, ' '.repeat(LABEL));
}

/** Indented lines; a long one goes on two spaces further in, so where one item ends stays plain. */
function items(texts: readonly string[], width: number, bullet = ''): string[] {
	return texts.flatMap(text => wrapText(`${ITEM}${bullet}${printable(text)}`, width, `${ITEM}  `));
}

function plural(count: number, word: string): string {
	return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function estimateLines(report: PreflightReport, width: number): string[] {
	const part = report.estimate;
	const sources = Object.entries(part.sources).map(([key, s]) => `${key} ${s.value} (${s.from})`);
	if (part.status === 'skipped') {
		return [
			...section('Estimate', 'skipped: an input is missing', width),
			...items(part.missing, width, '- '),
			...items(sources, width),
		];
	}
	const {inputs, estimate, dtype} = part;

	return [
		...section('Estimate', `DataLoader host RAM ${formatBytes(estimate.perNodeBytes)} per node`, width),
		...items(
			[
				`${plural(inputs.workers, 'worker')} × prefetch ${inputs.prefetchFactor} × batch ${inputs.batchSize} × ${formatBytes(estimate.sampleBytes)} × ${TENSORS_PER_SAMPLE} (input, target) = ${formatBytes(estimate.perRankBytes)} a rank, × ${plural(inputs.nprocPerNode, 'rank')} per node`,
				`sample ${formatShape(inputs.sampleShape)} ${dtype.name} (${dtype.bytes} B each) = ${formatBytes(estimate.sampleBytes)}`,
				...(inputs.workers === 0 ? ['workers 0: batches load in the rank itself, none prefetched'] : []),
			],
			width,
		),
		...items(sources, width),
	];
}

/** `12 GiB below the 85% line`, or over it. */
function toLine(headroomBytes: number, percent: number): string {
	const side = headroomBytes < 0 ? 'over' : 'below';
	return `${formatBytes(Math.abs(headroomBytes))} ${side} the ${percent}% line`;
}

function room(roomBytes: number): string {
	return roomBytes < 0 ? `${formatBytes(-roomBytes)} more than is available` : `${formatBytes(roomBytes)} of RAM left`;
}

function ramLines(report: PreflightReport, width: number): string[] {
	const {basis, judgement, criticalPercent} = report.ram;
	const of = basis.source === 'cgroup' ? `the cgroup limit ${basis.cgroupPath}` : `host RAM on ${report.host}`;
	const now = `now ${formatBytes(basis.usedBytes)} used of ${formatBytes(basis.totalBytes)} (${of}), ${formatBytes(basis.availableBytes)} available`;
	if (!judgement) return [...section('RAM', 'not judged: no estimate', width), ...items([now], width)];
	return [
		...section('RAM', `${WORDS[judgement.verdict]}: ${judgement.reason}`, width),
		...items(
			[
				now,
				`after launch ~${formatBytes(judgement.afterBytes)}: ${toLine(judgement.headroomBytes, criticalPercent)}, ${room(judgement.roomBytes)}`,
			],
			width,
		),
	];
}

function gpuLines(gpus: GpuReport, width: number): string[] {
	if (gpus.status !== 'ok') return section('GPUs', `none read: ${gpus.reason}`, width);
	if (gpus.devices.length === 0) return section('GPUs', 'nvidia-smi lists none', width);
	const lines = gpus.devices.map(gpu => {
		const busy = gpu.busy ? `; ${formatPercent(gpu.usedPercent)} used already: another job?` : '';
		return `gpu${gpu.index} ${gpu.name ?? '?'}: ${formatBytes(gpu.freeBytes)} free of ${formatBytes(gpu.totalBytes)}${busy}`;
	});
	return [...section('GPUs', `${gpus.devices.length} on this machine, memory free now`, width), ...items(lines, width)];
}

function diskLines(report: PreflightReport, width: number): string[] {
	if (!report.disk)
		return section('Disk', 'not checked: give RUN_DIR to check its checkpoints against free space', width);
	const {runDir, need} = report.disk;
	const free = `${formatBytes(need.freeBytes)} free`;
	const head =
		need.status === 'unknown'
			? `unknown: ${free}`
			: `${WORDS[need.status]}: ${free}, ${formatBytes(need.neededBytes)} needed`;
	return [...section('Disk', head, width), ...items([runDir, need.rule], width)];
}

/** The verdict before launch, its deciding reason on the head line and the others below; nothing without inputs. */
function readinessLines(report: PreflightReport, width: number): string[] {
	const part = report.readiness;
	if (part === null) return [];
	return [...section('Readiness', readinessHead(part), width), ...items(readinessItems(part), width, '- ')];
}

function readinessVerdict(report: PreflightReport): string {
	return report.readiness === null ? '' : `; readiness ${report.readiness.readiness.verdict}`;
}

export function formatPreflight(
	report: PreflightReport,
	verdict: OverallVerdict,
	exitCode: number,
	width = 80,
): string {
	return [
		`traintop preflight on ${printable(report.host)}`,
		...estimateLines(report, width),
		...ramLines(report, width),
		...gpuLines(report.gpus, width),
		...diskLines(report, width),
		...section('Signals', 'not knowable before launch; check instead:', width),
		...items(report.signals.advice, width, '- '),
		...readinessLines(report, width),
		...section('Verdict', `${WORDS[verdict]}${readinessVerdict(report)} (exit ${exitCode})`, width),
	].join('\n');
}
