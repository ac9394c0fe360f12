import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {PassThrough} from 'node:stream';
import {runPreflightCommand} from '../../src/commands/preflight.js';
import {DEFAULT_SETTINGS, type Settings} from '../../src/config/schema.js';

// `traintop preflight` called directly (the CLI's routing is wired separately): real files, the real /proc and
// cgroup, nvidia-smi as a real child (the fake on PATH, or a path that does not exist).

export const NO_NVIDIA_SMI = '/nonexistent/traintop-test/nvidia-smi';

/** Lines no machine's RAM changes: fits unless the estimate is more than what is available. */
export const ROOMY = {ramThreshold: 100, warnMargin: 0};
/** An estimate of 64 B. */
export const TINY = {workers: '1', prefetchFactor: '1', batchSize: '1', sampleShape: '8'};

export interface PreflightRun {
	readonly code: number;
	readonly stdout: string;
	readonly stderr: string;
}

export async function runPreflight(
	args: readonly string[],
	flags: Record<string, unknown> = {},
	options: {settings?: Partial<Settings>; env?: NodeJS.ProcessEnv; json?: boolean} = {},
): Promise<PreflightRun> {
	const stdout = new PassThrough();
	const stderr = new PassThrough();
	let out = '';
	let err = '';
	stdout.on('data', chunk => {
		out += String(chunk);
	});
	stderr.on('data', chunk => {
		err += String(chunk);
	});
	const code = await runPreflightCommand({
		args,
		flags,
		settings: {...DEFAULT_SETTINGS, nvidiaSmi: NO_NVIDIA_SMI, ...options.settings},
		json: options.json ?? false,
		stdout,
		stderr,
		env: options.env,
	});
	return {code, stdout: out, stderr: err};
}

/** runPreflight with --json, its output parsed. */
export async function runPreflightJson(
	args: readonly string[],
	flags: Record<string, unknown> = {},
	options: {settings?: Partial<Settings>; env?: NodeJS.ProcessEnv} = {},
	// biome-ignore lint/suspicious/noExplicitAny: the JSON's shape is what the tests assert.
): Promise<{code: number; json: any; stderr: string}> {
	const run = await runPreflight(args, flags, {...options, json: true});
	return {code: run.code, json: run.stdout === '' ? null : JSON.parse(run.stdout), stderr: run.stderr};
}

const made: string[] = [];

export function tempDir(): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'traintop-preflight-'));
	made.push(dir);
	return dir;
}

export function removeTempDirs(): void {
	for (const dir of made.splice(0)) rmSync(dir, {recursive: true, force: true});
}

export function writeIn(dir: string, name: string, text: string): string {
	const file = path.join(dir, name);
	writeFileSync(file, text);
	return file;
}

/** A training config in the seed's layout, as credit's tests build it. */
export function seedConf(o: {
	workers?: number;
	prefetch?: number;
	batch?: number;
	h?: number;
	w?: number;
	vars3d?: string[];
	vars2d?: string[];
	diag2d?: string[];
	levels?: number;
}) {
	return {
		trainer: {thread_workers: o.workers ?? 4, prefetch_factor: o.prefetch ?? 4, train_batch_size: o.batch ?? 1},
		model: {image_height: o.h ?? 721, image_width: o.w ?? 1440},
		data: {
			source: {
				ERA5: {
					levels: Array.from({length: o.levels ?? 13}, (_, i) => i),
					variables: {
						prognostic: {vars_3D: o.vars3d ?? ['U', 'V', 'T'], vars_2D: o.vars2d ?? ['SP']},
						diagnostic: {vars_2D: o.diag2d ?? []},
					},
				},
			},
		},
	};
}

/** The text with its wrapped lines joined again (continuations are indented 4 or more). */
export function unwrap(text: string): string {
	return text.replace(/\n {4,}/g, ' ');
}

export function seedYaml(conf: ReturnType<typeof seedConf>): string {
	const t = conf.trainer;
	const source = conf.data.source.ERA5;
	const list = (items: readonly (string | number)[]) => `[${items.join(', ')}]`;
	return [
		'save_loc: /glade/scratch/me/run1',
		'trainer:',
		`  thread_workers: ${t.thread_workers}`,
		`  prefetch_factor: ${t.prefetch_factor}`,
		`  train_batch_size: ${t.train_batch_size}`,
		'model:',
		`  image_height: ${conf.model.image_height}`,
		`  image_width: ${conf.model.image_width}`,
		'data:',
		'  source:',
		'    ERA5:',
		`      levels: ${list(source.levels)}`,
		'      variables:',
		'        prognostic:',
		`          vars_3D: ${list(source.variables.prognostic.vars_3D)}`,
		`          vars_2D: ${list(source.variables.prognostic.vars_2D)}`,
		'        diagnostic:',
		'          vars_2D:',
		'',
	].join('\n');
}
