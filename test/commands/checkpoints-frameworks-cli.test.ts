import {afterEach, describe, expect, test} from 'vitest';
import {makeTempDir, removeTempDirs} from '../checkpoints/fixtures.js';
import {CKPT_DIR, topThreeRun} from '../checkpoints/frameworks/lightning-fixture.js';
import {requireBuild} from '../helpers/dist.js';
import {runCli} from '../helpers/run-cli.js';

// `traintop checkpoints` as a real child process on a run dir as Lightning writes it: the framework's name and the
// rule it deletes by, in the text and in --json.

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);

function lightningRun(): {run: string; worst: string} {
	const run = makeTempDir('traintop-fw-cli-');
	return {run, worst: topThreeRun(run, T0)};
}

type Json = {
	checkpoints: {name: string; framework: string; retention: string; metric: {name: string; value: number} | null}[];
	retention: {groups: {framework: string; rule: string; source: string; from: string | null; to_prune: string[]}[]};
};

describe('traintop checkpoints names the framework and its rule', () => {
	test('text: one retention line for the group, with the rule and where it was declared', async () => {
		requireBuild();
		const {run} = lightningRun();
		const result = await runCli(['checkpoints', run]);
		expect(result.code).toBe(0);
		expect(result.stdout).toContain(`4 checkpoints in ${run} (PyTorch Lightning in ${CKPT_DIR}/)`);
		expect(result.stdout).toContain(
			`retention: PyTorch Lightning in ${CKPT_DIR}/ · Lightning top-3 by val_loss (min) (lightning_logs/version_0/config.yaml); 3 counted; the next save prunes epoch=1-step=200-val_loss=0.61.ckpt`,
		);
		expect(result.stdout).toMatch(/ +last +complete +protected +last\.ckpt$/m);
	});

	test('--json: each checkpoint names its framework and metric; the group its rule and what it prunes', async () => {
		requireBuild();
		const {run, worst} = lightningRun();
		const result = await runCli(['checkpoints', run, '--json', '--keep', '2']);
		expect(result.code).toBe(0);
		const json = JSON.parse(result.stdout) as Json;
		expect(json.retention.groups).toEqual([
			expect.objectContaining({
				framework: 'PyTorch Lightning',
				rule: 'Lightning top-3 by val_loss (min)',
				source: 'metadata',
				from: 'lightning_logs/version_0/config.yaml save_top_k',
				to_prune: [worst],
			}),
		]);
		const byName = Object.fromEntries(json.checkpoints.map(c => [c.name, c]));
		expect(byName['epoch=1-step=200-val_loss=0.61.ckpt']).toMatchObject({
			framework: 'PyTorch Lightning',
			retention: 'prune-next',
			metric: {name: 'val_loss', value: 0.61},
		});
		expect(byName['last.ckpt']).toMatchObject({retention: 'protected', metric: null});
	});
});
