import path from 'node:path';
import {afterAll, describe, expect, test} from 'vitest';
import {seedCheckpoint, seedMetadata} from '../checkpoints/fixtures.js';
import {fakeEnv} from '../helpers/fake-nvidia-smi/harness.js';
import {
	removeTempDirs,
	ROOMY,
	runPreflight,
	runPreflightJson,
	seedConf,
	seedYaml,
	TINY,
	tempDir,
	unwrap,
	writeIn,
} from './run-preflight.js';

// `traintop preflight` end to end through runPreflightCommand: training configs as real YAML and JSON files, this
// machine's RAM from /proc (and its cgroup). Verdicts that depend on this machine's RAM are forced with thresholds
// no machine can miss: warn at 1 % (--warn-margin 99) is reached by any running system, an estimate of 768
// TiB is more than any has. Disk and GPUs: preflight-host.test.ts.

afterAll(removeTempDirs);

const HUGE = {workers: '64', prefetchFactor: '16', batchSize: '1024', sampleShape: '3x4096x4096', dtype: 'float64'};

describe('training configs', () => {
	test("a YAML config in the seed's layout: the seed's 4.95 GiB a rank, × --nproc-per-node, each input's source", async () => {
		const dir = tempDir();
		const file = writeIn(dir, 'era5.yaml', seedYaml(seedConf({})));
		const {code, json} = await runPreflightJson([], {trainConfig: file, nprocPerNode: '2'});
		expect(json.schema_version).toBe(1);
		expect(json.estimate).toMatchObject({
			status: 'estimated',
			missing: [],
			workers: 4,
			prefetch_factor: 4,
			batch_size: 1,
			sample_shape: [40, 721, 1440],
			dtype: 'float32',
			dtype_bytes: 4,
			nproc_per_node: 2,
			sample_bytes: 166_118_400,
			per_rank_bytes: 5_315_788_800,
			per_node_bytes: 10_631_577_600,
		});
		expect(json.estimate.inputs).toEqual({
			workers: {value: 4, from: `${file} trainer.thread_workers`},
			prefetch_factor: {value: 4, from: `${file} trainer.prefetch_factor`},
			batch_size: {value: 1, from: `${file} trainer.train_batch_size`},
			sample_shape: {
				value: '40x721x1440',
				from: `${file} data.source.ERA5: 3 vars_3D × 13 levels + 1 vars_2D + 0 diagnostic vars_2D; model.image_height; model.image_width`,
			},
			dtype: {value: 'float32', from: "default: the seed's float32; --dtype to change"},
			nproc_per_node: {value: 2, from: '--nproc-per-node'},
		});
		// Judged against this machine: the numbers hang together whatever its RAM.
		const ram = json.ram;
		expect(ram.after_bytes).toBe(ram.used_bytes + 10_631_577_600);
		expect(ram.room_bytes).toBe(ram.available_bytes - 10_631_577_600);
		expect(['fits', 'tight', 'will_not_fit']).toContain(json.verdict);
		expect(code).toBe(json.verdict === 'will_not_fit' ? 4 : 0);
	});

	test('a JSON config in the seed layout; a flag wins over its key', async () => {
		const dir = tempDir();
		const conf = seedConf({h: 64, w: 64, levels: 2, vars3d: ['u', 'v'], vars2d: ['SP'], diag2d: ['precip']});
		const file = writeIn(dir, 'small.json', JSON.stringify(conf));
		const {code, json} = await runPreflightJson([], {trainConfig: file}, {settings: ROOMY});
		expect(code).toBe(0);
		expect(json.verdict).toBe('fits');
		expect(json.estimate.per_node_bytes).toBe(3 * 1024 ** 2);
		const flagged = await runPreflightJson([], {trainConfig: file, workers: '1'}, {settings: ROOMY});
		expect(flagged.json.estimate.inputs.workers).toEqual({value: 1, from: '--workers'});
		expect(flagged.json.estimate.per_node_bytes).toBe((3 * 1024 ** 2) / 4);
	});

	test('a config of another shape read through --preflight-keys', async () => {
		const dir = tempDir();
		const file = writeIn(
			dir,
			'cfg.yaml',
			'loader:\n  workers: 2\n  prefetch: 3\n  batch: 16\ndata:\n  shape: [3, 64, 64]\n  dtype: torch.bfloat16\nlaunch:\n  nproc: 8\n',
		);
		const keys =
			'workers=loader.workers,prefetch_factor=loader.prefetch,batch_size=loader.batch,sample_shape=data.shape,dtype=data.dtype,nproc_per_node=launch.nproc';
		const {code, json} = await runPreflightJson([], {trainConfig: file, preflightKeys: keys}, {settings: ROOMY});
		expect(code).toBe(0);
		// 3 × 64 × 64 × 2 B = 24,576 B; × 2 workers × 3 prefetch × 16 batch × 2 = 4,718,592 B a rank; × 8 ranks.
		expect(json.estimate).toMatchObject({sample_bytes: 24_576, per_rank_bytes: 4_718_592, per_node_bytes: 37_748_736});
		expect(json.estimate.inputs.dtype).toEqual({value: 'bfloat16', from: `${file} data.dtype`});
		const noDtype = await runPreflightJson([], {
			trainConfig: file,
			preflightKeys: keys.replace('dtype=data.dtype', 'dtype=data.type'),
		});
		expect(noDtype.json.estimate.inputs.dtype).toEqual({
			value: 'float32',
			from: `default: the seed's float32 (not in ${file} (looked for data.type, as --preflight-keys maps it)); --dtype to change`,
		});
		const wrongPath = await runPreflightJson(
			[],
			{trainConfig: file, preflightKeys: 'workers=loader.num_workers'},
			{settings: ROOMY},
		);
		expect(wrongPath.json.estimate.missing).toContain(
			`workers: not in ${file} (looked for loader.num_workers, as --preflight-keys maps it); or give --workers N`,
		);
	});

	test('a partial config: the estimate is skipped with each reason, RAM is not judged, exit 0 even with --fail-on-breach', async () => {
		const dir = tempDir();
		const file = writeIn(
			dir,
			'partial.yaml',
			'trainer:\n  thread_workers: 8\n  train_batch_size: 2\nmodel:\n  image_height: 32\n',
		);
		const run = await runPreflight([], {trainConfig: file, failOnBreach: true});
		expect(run.code).toBe(0);
		expect(run.stdout).toContain('Estimate  skipped: an input is missing');
		expect(run.stdout).toContain('\n  - prefetch_factor: not in /');
		expect(run.stdout).toContain('RAM       not judged: no estimate');
		expect(run.stdout).toContain('Verdict   unknown (exit 0)');
		const {json} = await runPreflightJson([], {trainConfig: file});
		expect(json.estimate.status).toBe('skipped');
		expect(json.estimate.missing).toEqual([
			`prefetch_factor: not in ${file} (looked for trainer.prefetch_factor); or give --prefetch-factor N`,
			`sample_shape: channels: no data.source (the seed layout counts channels from its variables) in ${file}; or give --sample-shape CxHxW`,
			`sample_shape: width: not in ${file} (looked for model.image_width); or give --sample-shape CxHxW`,
		]);
		expect(json.ram.verdict).toBeNull();
		expect(json.verdict).toBe('unknown');
	});
});

describe('exit codes', () => {
	test('0 when it fits, 4 when it will not fit, 4 for tight only with --fail-on-breach', async () => {
		const fits = await runPreflight([], TINY, {settings: ROOMY});
		expect(fits.code).toBe(0);
		expect(fits.stdout).toMatch(/^RAM {7}fits: /m);
		const huge = await runPreflight([], HUGE);
		expect(huge.code).toBe(4);
		expect(huge.stdout).toContain('RAM       WILL NOT FIT: the estimate is more than the RAM available now');
		expect(huge.stdout).toContain('Verdict   WILL NOT FIT (exit 4)');
		expect(unwrap(huge.stdout)).toMatch(
			/after launch ~[\d.]+ TiB: [\d.]+ TiB over the 85% line, [\d.]+ TiB more than is available/,
		);
		expect(unwrap(fits.stdout)).toMatch(
			/after launch ~[\d.]+ [KMG]iB: [\d.]+ [KMG]iB below the 100% line, [\d.]+ [KMG]iB of RAM left/,
		);
		const tightLines = {ramThreshold: 100, warnMargin: 99};
		const tight = await runPreflightJson([], TINY, {settings: tightLines});
		expect([tight.code, tight.json.verdict]).toEqual([0, 'tight']);
		const failing = await runPreflightJson([], {...TINY, failOnBreach: true}, {settings: tightLines});
		expect([failing.code, failing.json.exit_code]).toEqual([4, 4]);
	});

	test('2 for bad input, with the flag, file or argument named on stderr and nothing on stdout', async () => {
		const dir = tempDir();
		const broken = writeIn(dir, 'broken.yaml', 'trainer:\n  thread_workers: [1, 2\n');
		const cases: [readonly string[], Record<string, unknown>, RegExp][] = [
			[
				[],
				{trainConfig: broken},
				/^traintop: training config .*broken\.yaml is not valid YAML at line \d+, column \d+: /,
			],
			[[], {trainConfig: path.join(dir, 'nope.yaml')}, /^traintop: cannot read training config .*nope\.yaml: ENOENT/],
			[
				[],
				{preflightKeys: 'workers=a.b'},
				/^traintop: --preflight-keys maps keys of a training config: give --train-config FILE/,
			],
			[[], {sampleShape: '3x224'.replace('224', 'abc')}, /^traintop: --sample-shape must be positive whole numbers/],
			[[], {trainConfig: ''}, /^traintop: --train-config needs a value/],
			[[path.join(dir, 'missing-run')], {}, /^traintop: RUN_DIR .*missing-run: no such directory/],
			[[dir, dir], {}, /^traintop: preflight takes at most one RUN_DIR/],
		];
		for (const [args, flags, message] of cases) {
			const run = await runPreflight(args, flags);
			expect(run.code, JSON.stringify(flags)).toBe(2);
			expect(run.stderr).toMatch(message);
			expect(run.stdout).toBe('');
		}
	});
});

describe('the text', () => {
	test('every section within 80 columns, the formula worked out, the signal advice', async () => {
		const runDir = tempDir();
		const t0 = Math.floor(Date.now() / 1000) * 1000 - 60_000;
		seedMetadata(runDir, [seedCheckpoint(runDir, {step: 10, epoch: 0, kind: 'periodic', time: t0})], 3);
		const dir = tempDir();
		const file = writeIn(dir, 'era5.yaml', seedYaml(seedConf({})));
		const env = fakeEnv({FAKE_NVSMI_SCENARIO: 'issue__bpytop-26-dual'});
		const run = await runPreflight(
			[runDir],
			{trainConfig: file, nprocPerNode: '4'},
			{env, settings: {nvidiaSmi: 'nvidia-smi'}},
		);
		const lines = run.stdout.trimEnd().split('\n');
		for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
		expect(run.stdout).toContain('Estimate  DataLoader host RAM 19.8 GiB per node');
		const text = unwrap(run.stdout);
		expect(text).toContain(
			'4 workers × prefetch 4 × batch 1 × 158 MiB × 2 (input, target) = 5.0 GiB a rank, × 4 ranks per node',
		);
		expect(text).toContain('sample 40x721x1440 float32 (4 B each) = 158 MiB');
		expect(text).toContain('Disk      fits: ');
		expect(text).toMatch(/newest checkpoint [\d.]+ KiB × \(keep 3 − 1 kept \+ 1 being written\)/);
		expect(text).toContain('Signals   not knowable before launch; check instead:');
		expect(text).toContain("`traintop ranks` then shows each rank's handlers");
		expect(text).toContain('put `#SBATCH --signal=TERM@120` in the batch script');
		expect(lines.at(-1)).toMatch(/^Verdict {3}(fits|tight|WILL NOT FIT) \(exit [04]\)$/);
	});
});
