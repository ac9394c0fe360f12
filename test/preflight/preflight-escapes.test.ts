import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterAll, expect, test} from 'vitest';
import {fakeEnv} from '../helpers/fake-nvidia-smi/harness.js';
import {removeTempDirs, runPreflight, seedConf, seedYaml, tempDir, writeIn} from './run-preflight.js';

// `traintop preflight`'s text names what it read: nvidia-smi's GPU names and the training config's path. A name
// with an OSC title or a clear-screen sequence is shown with its control characters as escapes.

afterAll(removeTempDirs);

const PWNED = '\u001b]0;PWNED\u0007\u001b[2J';
const SHOWN = '\\e]0;PWNED\\x07\\e[2J';

test("preflight: a GPU's name from nvidia-smi and the config file's path are printed escaped", async () => {
	const dir = tempDir();
	const scenario = path.join(dir, 'name-escapes.json');
	writeFileSync(
		scenario,
		JSON.stringify({
			scenario: 'name-escapes',
			recorded_format: 'csv,noheader,nounits',
			fields: ['index', 'uuid', 'name', 'memory.used', 'memory.total'],
			files: {'query-gpu.csv': `0, GPU-0001, H100${PWNED}, 802, 12206\n`},
		}),
	);
	const file = writeIn(dir, `era5${PWNED}.yaml`, seedYaml(seedConf({})));
	const run = await runPreflight(
		[],
		{trainConfig: file, nprocPerNode: '1'},
		{env: fakeEnv({FAKE_NVSMI_SCENARIO: scenario}), settings: {nvidiaSmi: 'nvidia-smi'}},
	);
	expect(run.stdout).toContain(`gpu0 H100${SHOWN}`);
	expect(run.stdout).toContain(`era5${SHOWN}.yaml`);
	expect(run.stdout).not.toContain('\u001b');
	expect(run.stdout).not.toContain('\u0007');
	expect(run.stderr).not.toContain('\u001b');
});
