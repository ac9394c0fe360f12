import {versioned} from '../format/json-version.js';
import {readinessJson} from './readiness-json.js';
import type {OverallVerdict, PreflightReport} from './report.js';

// `traintop preflight --json`: one object, snake_case keys, schema_version first (format/json-version.ts). Sizes
// are bytes; a value that could not be read or judged is null.

function sources(report: PreflightReport) {
	return Object.fromEntries(
		Object.entries(report.estimate.sources).map(([key, s]) => [key, {value: s.value, from: s.from}]),
	);
}

function estimateJson(report: PreflightReport) {
	const part = report.estimate;
	if (part.status === 'skipped') return {status: 'skipped', missing: part.missing, inputs: sources(report)};
	const {inputs, estimate, dtype} = part;
	return {
		status: 'estimated',
		missing: [],
		inputs: sources(report),
		workers: inputs.workers,
		prefetch_factor: inputs.prefetchFactor,
		batch_size: inputs.batchSize,
		sample_shape: inputs.sampleShape,
		dtype: dtype.name,
		dtype_bytes: dtype.bytes,
		nproc_per_node: inputs.nprocPerNode,
		sample_bytes: estimate.sampleBytes,
		per_rank_bytes: estimate.perRankBytes,
		per_node_bytes: estimate.perNodeBytes,
	};
}

function ramJson(report: PreflightReport) {
	const {basis, judgement, criticalPercent, warnMargin} = report.ram;
	return {
		basis: basis.source,
		cgroup_path: basis.cgroupPath,
		total_bytes: basis.totalBytes,
		used_bytes: basis.usedBytes,
		available_bytes: basis.availableBytes,
		threshold_percent: criticalPercent,
		warn_percent: criticalPercent - warnMargin,
		verdict: judgement?.verdict ?? null,
		reason: judgement?.reason ?? null,
		after_bytes: judgement?.afterBytes ?? null,
		after_percent: judgement?.afterPercent ?? null,
		headroom_bytes: judgement?.headroomBytes ?? null,
		room_bytes: judgement?.roomBytes ?? null,
	};
}

function gpusJson(report: PreflightReport) {
	const gpus = report.gpus;
	if (gpus.status !== 'ok') return {status: gpus.status, reason: gpus.reason, devices: []};
	return {
		status: 'ok',
		reason: null,
		devices: gpus.devices.map(gpu => ({
			index: gpu.index,
			uuid: gpu.uuid,
			name: gpu.name,
			total_bytes: gpu.totalBytes,
			used_bytes: gpu.usedBytes,
			free_bytes: gpu.freeBytes,
			used_percent: gpu.usedPercent,
			busy: gpu.busy,
		})),
	};
}

function diskJson(report: PreflightReport) {
	if (!report.disk) return null;
	const {runDir, need} = report.disk;
	return {
		run_dir: runDir,
		status: need.status,
		free_bytes: need.freeBytes,
		checkpoint: need.checkpointName,
		checkpoint_bytes: need.checkpointBytes,
		keep: need.keep,
		kept: need.kept,
		saves: need.saves,
		needed_bytes: need.neededBytes,
		rule: need.rule,
	};
}

export function preflightJson(report: PreflightReport, verdict: OverallVerdict, exitCode: number) {
	return versioned({
		host: report.host,
		verdict,
		exit_code: exitCode,
		estimate: estimateJson(report),
		ram: ramJson(report),
		gpus: gpusJson(report),
		disk: diskJson(report),
		signals: {save: report.signals.save, emergency: report.signals.emergency, advice: report.signals.advice},
		readiness: report.readiness === null ? null : readinessJson(report.readiness),
	});
}
