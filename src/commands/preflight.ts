import {hostname} from 'node:os';
import type {Writable} from 'node:stream';
import {diskSpace} from '../checkpoints/disk.js';
import {buildIndex} from '../checkpoints/retention.js';
import {scanRunDir} from '../checkpoints/scan.js';
import {checkNesting, readConfigText} from '../config/config-text.js';
import type {Settings} from '../config/schema.js';
import {EXIT, UsageError} from '../core/errors.js';
import {diskNeed} from '../preflight/disk-need.js';
import {estimateLoader} from '../preflight/estimate.js';
import {formatPreflight} from '../preflight/format-text.js';
import {preflightJson} from '../preflight/format-json.js';
import {gpuReport} from '../preflight/gpu-free.js';
import {type InputFlags, resolveInputs, type TrainConfig} from '../preflight/inputs.js';
import {parseKeyMapping} from '../preflight/keys.js';
import {judgeRam, ramBasis} from '../preflight/ram-verdict.js';
import {readinessBeforeLaunch} from '../preflight/readiness.js';
import {batchScriptFlag, runDirOf} from '../preflight/readiness-flags.js';
import {exitCodeOf, overallVerdict, type EstimatePart, type PreflightReport} from '../preflight/report.js';
import {signalAdvice} from '../preflight/signal-advice.js';
import {parseTrainConfig} from '../preflight/train-config.js';
import {readGpuStateOnce} from '../system/gpu-state-once.js';
import {readHostMemory} from '../system/memory.js';
import type {CheckpointIndex} from '../core/checkpoint-types.js';

// `traintop preflight [RUN_DIR]`: before sbatch/torchrun, the DataLoader's host RAM (the seed's estimate) against
// what this node has, the GPUs' free memory, the run dir's disk against the next saves, what to check about the
// signals, and (--batch-script, --run-dir, --grace) whether a preemption's save would make it. Run it on the node
// the job will run on (in the batch script, before srun): a login node's RAM says nothing about a compute node's.

export interface PreflightOptions {
	/** The words after `preflight`: at most a RUN_DIR. */
	readonly args: readonly string[];
	/** meow's flags (numbers as strings). */
	readonly flags: Readonly<Record<string, unknown>>;
	readonly settings: Settings;
	readonly json: boolean;
	readonly stdout: Writable;
	readonly stderr: Writable;
	/** nvidia-smi's environment (its PATH finds it); default this process's. */
	readonly env?: NodeJS.ProcessEnv;
	readonly columns?: number;
}

function stringFlag(flags: Readonly<Record<string, unknown>>, name: string, flag: string): string | null {
	const value = flags[name];
	if (value === undefined) return null;
	if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${flag} needs a value`);
	return value;
}

async function loadTrainConfig(flags: Readonly<Record<string, unknown>>): Promise<TrainConfig | null> {
	const file = stringFlag(flags, 'trainConfig', '--train-config');
	const keys = stringFlag(flags, 'preflightKeys', '--preflight-keys');
	if (file === null) {
		if (keys !== null)
			throw new UsageError('--preflight-keys maps keys of a training config: give --train-config FILE');
		return null;
	}
	const mapping = keys === null ? null : parseKeyMapping(keys);
	const text = (await readConfigText(file, 'training config', {missingIsNone: false})) ?? '';
	checkNesting(text, file, 'training config');
	return {file, data: parseTrainConfig(text, file), mapping};
}

/** The run dir's checkpoints, scanned as `traintop checkpoints` scans them: its disk need and its save times. */
async function indexRunDir(runDir: string, keep: number | null, now: number): Promise<CheckpointIndex> {
	const [scan, disk] = await Promise.all([scanRunDir(runDir), diskSpace(runDir)]);
	return buildIndex(scan, {keep, now, disk});
}

async function buildReport(o: PreflightOptions): Promise<PreflightReport> {
	const runDir = runDirOf(o.args, o.flags);
	// The readiness flags are read first: a bad one ends the run before any scan.
	const script = await batchScriptFlag(o.flags);
	const graceS = o.settings.grace;
	const resolved = resolveInputs(o.flags as InputFlags, await loadTrainConfig(o.flags));
	const {settings} = o;
	const now = Date.now();
	const [memory, gpuState, index] = await Promise.all([
		readHostMemory(),
		readGpuStateOnce(settings.nvidiaSmi, {env: o.env}),
		runDir === null ? null : indexRunDir(runDir, settings.keep, now),
	]);
	const run = runDir === null || index === null ? null : {path: runDir, index};
	// Judged when asked for: --batch-script, --run-dir or --grace (RUN_DIR alone keeps the report it always gave).
	const readiness =
		script === null && o.flags.runDir === undefined && graceS === null
			? null
			: readinessBeforeLaunch({script, runDir: run, graceS, now});
	const estimate: EstimatePart =
		resolved.status === 'ready'
			? {...resolved, status: 'estimated', estimate: estimateLoader(resolved.inputs)}
			: resolved;
	const basis = ramBasis(memory);
	const thresholds = {criticalPercent: settings.ramThreshold, warnMargin: settings.warnMargin};
	return {
		host: hostname(),
		estimate,
		ram: {
			basis,
			...thresholds,
			judgement: estimate.status === 'estimated' ? judgeRam(basis, estimate.estimate.perNodeBytes, thresholds) : null,
		},
		gpus: gpuReport(gpuState, settings),
		disk: run === null ? null : {runDir: run.path, need: diskNeed(run.index)},
		signals: {
			save: settings.saveSignal,
			emergency: settings.emergencySignal,
			advice: signalAdvice(settings.saveSignal, settings.emergencySignal),
		},
		readiness,
	};
}

/** Exit 0 fits (or nothing to judge), 4 will not fit (or tight with --fail-on-breach), 2 bad input. */
export async function runPreflightCommand(o: PreflightOptions): Promise<number> {
	let report: PreflightReport;
	try {
		report = await buildReport(o);
	} catch (error) {
		if (!(error instanceof UsageError)) throw error;
		o.stderr.write(`traintop: ${error.message}\n`);
		return EXIT.usage;
	}
	const verdict = overallVerdict(report);
	const code = exitCodeOf(verdict, Boolean(o.flags.failOnBreach), report.readiness?.readiness.verdict ?? null);
	o.stdout.write(
		o.json
			? `${JSON.stringify(preflightJson(report, verdict, code), null, 2)}\n`
			: `${formatPreflight(report, verdict, code, Math.min(o.columns ?? 80, 80))}\n`,
	);
	return code;
}
